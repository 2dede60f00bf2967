"""The PyMC builder of the diffusion models (docs/models/diffusion.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from forecast.models.diffusion.data import DiffusionData, check_kind
from forecast.models.diffusion.math import (
    cdf_expr,
    effective_increments_expr,
    norton_bass_expr,
)
from forecast.models.priors import prior

DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "p": {"dist": "lognormal", "median": 0.01, "sigma": 1.0, "unit": "per quarter"},
    "q": {"dist": "lognormal", "median": 0.1, "sigma": 1.0, "unit": "per quarter"},
    "m_ratio": {"dist": "lognormal", "median": 2.0, "sigma": 0.8,
                "unit": "multiple of the observed total units"},
    "sigma": {"dist": "halfnormal", "sigma": 0.5, "unit": "log units"},
    "beta": {"dist": "normal", "mu": 0.0, "sigma": 1.0,
             "unit": "hazard change per unit log change of the covariate"},
}

#: Floor on a period's adoption fraction inside the likelihood (log of 0 is -inf).
TINY = 1e-12


def summary_vars(kind: str) -> tuple[str, ...]:
    """The parameters a fit of ``kind`` reports and gates: p, q, m, sigma (and beta)."""
    return ("p", "q", "m", "sigma") + (("beta",) if check_kind(kind) == "gbass" else ())


def build_diffusion_model(data: DiffusionData, priors: Mapping[str, Mapping[str, Any]]) -> Any:
    """The PyMC model of docs/models/diffusion.md for prepared ``data`` and complete ``priors``."""
    import pymc as pm
    import pytensor.tensor as pt

    obs = data.observations
    n_total = data.launch_offset + data.n_span
    ends = np.arange(n_total + 1, dtype=float)  # period ends 0..n_total, global clock
    coords = {"generation": list(data.generations), "obs": np.arange(len(obs))}
    # Observed period k sits at global period launch_offset + k (row index into sales).
    row = obs["position"].to_numpy() + data.launch_offset - 1
    col = obs["generation"].map({g: i for i, g in enumerate(data.generations)}).to_numpy()
    with pm.Model(coords=coords) as model:
        p = prior("p", priors["p"])
        q = prior("q", priors["q"])
        sigma = prior("sigma", priors["sigma"])
        if data.kind == "norton-bass":
            m_ratio = prior("m_ratio", priors["m_ratio"], dims="generation")
            totals = np.asarray(data.totals)
            pm.Deterministic("m", m_ratio * totals, dims="generation")
            # m in units of generation 1's total keeps the likelihood scale-free.
            m_scaled = m_ratio * totals / totals[0]
            cdfs = [cdf_expr(ends - tau, p, q, pt) for tau in data.launch_periods]
            _, _, gross = norton_bass_expr(cdfs, [m_scaled[g] for g in range(len(cdfs))], pt)
            sales = pt.stack(gross, axis=1) * (totals[0] / totals)[None, :]
            mean = sales[row, col]
        else:
            m_ratio = prior("m_ratio", priors["m_ratio"])
            pm.Deterministic("m", m_ratio * data.totals[0])
            if data.kind == "gbass":
                beta = prior("beta", priors["beta"])
                steps = effective_increments_expr(data.log_change, beta, pt)
                elapsed = pt.concatenate([pt.zeros(1), pt.cumsum(steps)])
            else:
                elapsed = ends
            cdf = cdf_expr(elapsed, p, q, pt)
            mean = m_ratio * (cdf[1:] - cdf[:-1])[row]
        pm.Normal("log_units", mu=pt.log(pt.maximum(mean, TINY)), sigma=sigma,
                  observed=np.log(obs["scaled"].to_numpy()), dims="obs")
    return model
