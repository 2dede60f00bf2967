"""The PyMC builder of the share model (see :mod:`forecast.models.share`).

The only module of the package that imports PyMC, inside :func:`build_share_model`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from forecast.economics.cost_paths import ShareData
from forecast.models.priors import prior
from forecast.models.share.data import (
    DEFAULT_REFERENCE,
    NVIDIA,
    centred_log_cost,
    observation_layout,
    start_vendors,
    vendor_roles,
)

DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "price_coefficient": {"dist": "lognormal", "median": 1.0, "sigma": 0.6},
    "ecosystem_nvidia": {"dist": "normal", "mu": 2.0, "sigma": 1.0},
    "ecosystem_other": {"dist": "normal", "mu": 0.0, "sigma": 2.0},
    "adjustment_speed": {"dist": "beta", "alpha": 2.0, "beta": 3.0},
    "initial_logit": {"dist": "normal", "mu": -2.0, "sigma": 2.0},
    "noise_sigma": {"dist": "gamma", "alpha": 2.0, "beta": 6.0},
}

#: Parameters reported in the summary and gated (the latent shares are gated as a state).
SUMMARY_VARS = ["price_coefficient", "ecosystem", "adjustment_speed", "initial_logit",
                "noise_sigma"]


def build_share_model(data: ShareData, priors: Mapping[str, Mapping[str, Any]],
                      reference_vendor: str = DEFAULT_REFERENCE) -> Any:
    """The PyMC model of the package docstring for ``data`` and complete ``priors``."""
    import pymc as pm
    import pytensor.tensor as pt

    vendors = list(data.vendors)
    others = vendor_roles(vendors, reference_vendor)
    t_idx, v_idx, values, rotation, eigenvalues = observation_layout(data)
    log_cost = centred_log_cost(data)
    seen = start_vendors(data)
    coords = {"vendor": vendors, "other_vendor": others, "start_vendor": seen,
              "quarter": list(data.quarters), "obs": np.arange(len(values))}
    with pm.Model(coords=coords) as model:
        b = prior("price_coefficient", priors["price_coefficient"])
        a_nvidia = prior("ecosystem_nvidia", priors["ecosystem_nvidia"])
        a_other = prior("ecosystem_other", priors["ecosystem_other"], dims="other_vendor")
        parts = []
        for vendor in vendors:
            if vendor == NVIDIA:
                parts.append(a_nvidia)
            elif vendor == reference_vendor:
                parts.append(pt.constant(0.0))
            else:
                parts.append(a_other[others.index(vendor)])
        a = pm.Deterministic("ecosystem", pt.stack(parts), dims="vendor")
        lam = prior("adjustment_speed", priors["adjustment_speed"])
        sigma = prior("noise_sigma", priors["noise_sigma"])
        # Costs depend on the scenario's cost assumptions, the rest of the data does not:
        # as pm.Data they let scenarios share one compiled sampler.
        cost = pm.Data("log_cost_centred", log_cost)
        utility = a[None, :] - b * cost
        target = pt.special.softmax(utility, axis=1)
        z_free = prior("initial_logit", priors["initial_logit"], dims="start_vendor")
        z_parts = []
        for k, vendor in enumerate(vendors[1:], start=1):
            if vendor in seen:
                z_parts.append(z_free[seen.index(vendor)])
            else:
                # Unobserved at the start: the target log-ratio (a free start is a funnel).
                z_parts.append(utility[0, k] - utility[0, 0])
        current = pt.special.softmax(pt.concatenate([pt.zeros(1), pt.stack(z_parts)]))
        rows = [current]
        for t in range(1, len(data.quarters)):
            current = current + lam * (target[t] - current)
            rows.append(current)
        shares = pt.stack(rows)
        pm.Deterministic("target_share", target, dims=("quarter", "vendor"))
        pm.Deterministic("share", shares, dims=("quarter", "vendor"))
        log_shares = pt.log(shares)
        mu = log_shares[t_idx, v_idx] - log_shares[t_idx, 0]
        # MvNormal(mu, Sigma + sigma^2 I) written in Sigma's eigenbasis (see observation_layout).
        pm.Normal("log_ratio_rotated", mu=pt.dot(rotation.T, mu),
                  sigma=pt.sqrt(eigenvalues + sigma**2), observed=rotation.T @ values,
                  dims="obs")
    return model
