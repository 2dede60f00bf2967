"""The market model's math, for numpy arrays and PyTensor tensors alike (``xp``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from forecast.core.errors import ForecastError
from forecast.core.shortaxis import short_max, short_sum
from forecast.models.market.data import SERIES

#: Latent group each observed series measures.
SERIES_GROUP: dict[str, str] = {
    "nvidia_data_center": "nvidia", "nvidia_networking": "nvidia", "nvidia_compute": "nvidia",
    "amd_data_center": "amd", "broadcom_ai": "custom",
}
#: Noise of each series. None: exact given its fraction (NVIDIA Data Center: its wobble goes
#: into the total's damped trend; Broadcom: into the custom share's random walk).
SERIES_SIGMA: dict[str, str | None] = {
    "nvidia_data_center": None, "nvidia_networking": "sigma_networking",
    "nvidia_compute": "sigma_networking", "amd_data_center": "sigma_amd",
    "broadcom_ai": None,
}


def bridge_walk(start: Any, rise: Any, step: Any, z: Any, xp: Any = np) -> Any:
    """A Gaussian random walk written as its total rise plus a Brownian bridge.

    ``eta_t = start + (t + 1) / n * rise + step * (W_t - (t + 1) / n * W_{n-1})`` with
    ``W = cumsum(z)``. With ``z`` standard normal and ``rise ~ Normal(0, step sqrt(n))`` this
    is exactly ``start + step * cumsum(z')``: the bridge is independent of the endpoint.
    The sampler gains because the rise, which the data pin (e.g. AWS growing from a few
    percent of NVIDIA), is a parameter of its own instead of a ridge through every ``z``
    and ``step``; the direction of ``z`` along ``(1, ..., 1)`` drops out (prior only).
    """
    walk = xp.cumsum(z, axis=-1)
    n = walk.shape[-1]
    frac = xp.arange(1, n + 1) / n
    bridge = walk - frac * walk[..., -1:]
    return start + frac * rise + step * bridge


def vendor_log_shares(eta: Any, xp: Any = np, axis: int = 0) -> Any:
    """Log shares from log-ratios to the reference vendor (``eta``: groups x time).

    Returns (1 + groups) x time: the reference first, ``log softmax([0, eta])``. ``axis`` is
    the groups axis: ``axis=1`` takes a batch ``draws x groups x time`` at once.
    """
    first = (slice(None),) * axis + (slice(0, 1),)
    zeros = xp.zeros_like(eta[first])
    full = xp.concatenate([zeros, eta], axis=axis)
    if xp is np:  # over the few groups slice by slice: 2-3 times faster in numpy
        peak = short_max(full, axis, keepdims=True)
        total = short_sum(np.exp(full - peak), axis, keepdims=True)
    else:
        peak = full.max(axis=axis, keepdims=True)
        total = xp.exp(full - peak).sum(axis=axis, keepdims=True)
    return full - (peak + xp.log(total))


def measurement_log_mean(series: str, log_spend: Any, params: Mapping[str, Any],
                         cpu: Any = None, xp: Any = np) -> Any:
    """Expected log of an observed proxy given log latent spend of its vendor group.

    ``nvidia_data_center``: ``log A - log f_nv``; ``nvidia_networking``:
    ``log A + log(1 - f_nv) - log f_nv``; ``nvidia_compute``: ``log A``;
    ``amd_data_center``: ``log(A + C)`` with ``cpu`` = C; ``broadcom_ai``: ``log A - log f_bc``.
    """
    if series == "nvidia_data_center":
        return log_spend - xp.log(params["nvidia_compute_fraction"])
    if series == "nvidia_networking":
        f = params["nvidia_compute_fraction"]
        return log_spend + xp.log(1.0 - f) - xp.log(f)
    if series == "nvidia_compute":
        return log_spend
    if series == "amd_data_center":
        return xp.log(xp.exp(log_spend) + cpu)
    if series == "broadcom_ai":
        return log_spend - xp.log(params["broadcom_custom_fraction"])
    raise ForecastError(f"unknown series {series!r} (known: {', '.join(SERIES)})")
