"""The vendor-spend model's math, for numpy arrays and PyTensor tensors alike (``xp``).

Every function is pure. Time runs along the last axis, vendor groups along the axis before
it. Log spend is in log USD billions per quarter.

Relative positions (a rival's log spend over NVIDIA's), for rival g and quarter t::

    target_g(t) = a_g + erosion * years(t) - b (log k_g(t) - log k_nvidia(t))
    d_g(t)      = rho d_g(t-1) + sigma_g eps_g(t)                    persistent deviation
    x_g(t)      = (1 - lambda) x_g(t-1) + lambda target_g(t) + d_g(t)  partial adjustment
    r_g(t)      = x_g(t) + sum_n h_n F_n(t)                          plus each ramp

``F_n`` is generation n's installed fraction, a logistic in quarters around its ramp
midpoint (sourced launch date plus half a ramp): a generation that ramps lifts its vendor's
position by ``h_n`` for good, so a ramp is not a deviation that the adjustment pulls back.
The recursions are written as products with lower-triangular matrices of powers
(:func:`power_matrix`), not loops: small graphs and fast gradients in PyMC.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from forecast.core.shortaxis import short_max, short_sum

#: The five vendor groups of every output (DESIGN section 4).
VENDORS: tuple[str, ...] = ("nvidia", "amd", "google", "aws", "other")
#: Groups with a state of their own; ``nvidia`` is the common level. ``custom``:
#: Broadcom-built accelerators (Google TPU, Meta MTIA, OpenAI's and other XPUs), measured
#: once by Broadcom's AI revenue and split between ``google`` and ``other`` by a fraction;
#: ``rest``: every other data-center accelerator (Intel Gaudi, Microsoft Maia, Huawei
#: Ascend, Marvell-built custom chips other than AWS's, start-ups).
LATENT_GROUPS: tuple[str, ...] = ("nvidia", "amd", "custom", "aws", "rest")
RIVALS: tuple[str, ...] = LATENT_GROUPS[1:]
#: Whose cost per effective PFLOP-hour drives each rival's target: Broadcom's custom chips
#: are mostly Google's TPUs.
COST_VENDOR: dict[str, str] = {"amd": "amd", "custom": "google", "aws": "aws", "rest": "other"}


def power_matrix(base: Any, n: int, xp: Any = np) -> Any:
    """Lower-triangular ``M[t, s] = base ** (t - s)`` for ``s <= t`` (0 above), (..., n, n).

    ``base`` is a scalar, a vector of one per leading index (numpy) or a scalar tensor.
    """
    idx = np.arange(n)
    lag = idx[:, None] - idx[None, :]
    mask = lag >= 0
    powers = np.where(mask, lag, 0).astype(float)
    b = np.asarray(base, dtype=float)[..., None, None] if xp is np else base
    return xp.where(mask, b**powers, 0.0)


def deviations(eps: Any, persistence: Any, sigma: Any, xp: Any = np,
               length: int | None = None) -> Any:
    """AR(1) deviations ``d(t) = rho d(t-1) + sigma eps(t)`` from ``d(-1) = 0``.

    ``eps`` (rival, quarter) standard normal; ``sigma`` one per rival; ``persistence`` a
    scalar. ``length``: the number of quarters, required when ``eps`` is symbolic. Returns
    (rival, quarter).
    """
    n = int(eps.shape[-1]) if length is None else length
    matrix = power_matrix(persistence, n, xp)
    scaled = sigma[..., :, None] * eps
    if xp is np:
        return np.einsum("...ts,...gs->...gt", matrix, scaled)
    return xp.dot(scaled, matrix.T)


def adjusted_positions(target: Any, start: Any, speed: Any, xp: Any = np,
                       length: int | None = None) -> Any:
    """``x(t) = (1 - lambda) x(t-1) + lambda target(t)`` from ``x(-1) = start``.

    The position is ``x(t) + d(t)``: the deviation rides on the adjusted path rather than
    through it, so the speed and the deviations do not trade off (a deviation filtered by
    ``1 - lambda`` left the sampler a ridge between the two).

    ``target`` (..., rival, quarter), ``start`` (..., rival), ``speed`` lambda (a scalar, or
    one per leading index); ``length`` the number of quarters, required when they are
    symbolic. Returns (..., rival, quarter).
    """
    n = int(target.shape[-1]) if length is None else length
    keep = 1.0 - speed
    matrix = power_matrix(keep, n, xp)
    if xp is np:
        speed = np.asarray(speed)
        drive = speed[..., None, None] * target
        decay = np.asarray(keep)[..., None] ** np.arange(1, n + 1, dtype=float)
        carried = np.einsum("...ts,...gs->...gt", matrix, drive)
        return carried + start[..., :, None] * decay[..., None, :]
    decay = keep ** np.arange(1, n + 1, dtype=float)
    return xp.dot(speed * target, matrix.T) + start[:, None] * decay[None, :]


def ramp_curves(t: np.ndarray, midpoints: Any, width: float, xp: Any = np) -> Any:
    """Installed fraction of each generation by quarter: ``1 / (1 + exp(-(t - m) / w))``.

    ``t`` quarter indices (quarter,), ``midpoints`` (..., generation) quarter indices.
    Returns (..., generation, quarter).
    """
    t = np.asarray(t, dtype=float)
    if xp is np:
        lag = t - np.asarray(midpoints, dtype=float)[..., :, None]
        return 1.0 / (1.0 + np.exp(-lag / width))
    lag = t[None, :] - midpoints[:, None]
    return 1.0 / (1.0 + xp.exp(-lag / width))


def ramp_lifts(heights: Any, curves: Any, owner: np.ndarray, n_rivals: int,
               xp: Any = np) -> Any:
    """Sum of each rival's ramps ``sum_n h_n F_n(t)``, (..., rival, quarter).

    ``heights`` (..., generation), ``curves`` (..., generation, quarter), ``owner`` the
    rival index of each generation.
    """
    onehot = (np.asarray(owner)[:, None] == np.arange(n_rivals)[None, :]).astype(float)
    if xp is np:
        return np.einsum("gr,...g,...gt->...rt", onehot, np.asarray(heights), curves)
    return xp.dot(onehot.T, heights[:, None] * curves)


def targets(ecosystem: Any, erosion: Any, price_coefficient: Any, cost_gap: Any,
            years: np.ndarray, xp: Any = np) -> Any:
    """``a_g + erosion * years(t) - b * gap_g(t)``, (..., rival, quarter).

    ``ecosystem`` (..., rival); ``erosion``, ``price_coefficient`` scalars (or one per
    leading index); ``cost_gap`` (..., rival, quarter) = ``log k_g - log k_nvidia``;
    ``years`` (quarter,) from the fit's first quarter.
    """
    years = np.asarray(years, dtype=float)
    if xp is np:
        a = np.asarray(ecosystem, dtype=float)[..., :, None]
        e = np.asarray(erosion, dtype=float)[..., None, None]
        b = np.asarray(price_coefficient, dtype=float)[..., None, None]
        return a + e * years - b * cost_gap
    return ecosystem[:, None] + erosion * years[None, :] - price_coefficient * cost_gap


def log_shares(log_spend: Any, axis: int = 0, xp: Any = np) -> Any:
    """Log shares of the groups along ``axis`` (log softmax)."""
    if xp is np:
        peak = short_max(log_spend, axis, keepdims=True)
        total = short_sum(np.exp(log_spend - peak), axis, keepdims=True)
    else:
        peak = log_spend.max(axis=axis, keepdims=True)
        total = xp.exp(log_spend - peak).sum(axis=axis, keepdims=True)
    return log_spend - (peak + xp.log(total))


def vendor_spend(latent: np.ndarray, google_fraction: np.ndarray,
                 rest_custom_fraction: np.ndarray) -> dict[str, np.ndarray]:
    """The five vendor groups and the custom part of ``other`` from the latent groups.

    ``latent`` (draw, latent group, quarter) in USD; the fractions one per draw. ``google``
    is its fraction of Broadcom's custom chips, ``other`` the rest of them plus ``rest``,
    ``custom_other`` the custom (cloud-designed) part of ``other``. Each latent dollar goes
    to exactly one vendor group.
    """
    nvidia, amd, custom, aws, rest = (latent[:, i] for i in range(len(LATENT_GROUPS)))
    phi = np.asarray(google_fraction, dtype=float)[:, None]
    psi = np.asarray(rest_custom_fraction, dtype=float)[:, None]
    google = phi * custom
    other = (1.0 - phi) * custom + rest
    return {"spend": np.stack([nvidia, amd, google, aws, other], axis=1),
            "custom_other": (1.0 - phi) * custom + psi * rest}
