"""The PyMC builder of the share model (see :mod:`forecast.models.share`): default priors
with their rationale, and the model. PyMC is imported inside :func:`build_share_model`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from forecast.economics.share_inputs import ShareData
from forecast.models.priors import prior
from forecast.models.share.data import measured_cells
from forecast.models.share.statespace import (
    StateParams,
    share_filter_scan,
    target_log_ratios,
)

#: Sd of the first quarter's log-ratio around its target (the filter's starting spread):
#: wide, the first measurements place it.
START_SD = 1.5

DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "price_coefficient": {
        "dist": "lognormal", "median": 1.0, "sigma": 0.6,
        "rationale": "b: how strongly a lower cost per effective PFLOP-hour than NVIDIA's "
                     "raises a vendor's target log-ratio to NVIDIA; b = 1 makes target spend "
                     "proportional to compute per dollar. 80% range 0.46-2.2. The scenario's "
                     "[priors.share] sets it.",
    },
    "ecosystem_nvidia": {
        "dist": "normal", "mu": 2.0, "sigma": 1.0,
        "rationale": "NVIDIA's ecosystem (CUDA) advantage over the average rival in log-ratio "
                     "units at equal cost. The scenario's [priors.share] sets it.",
    },
    "ecosystem_offset": {
        "dist": "zerosumnormal", "sigma": 1.5,
        "rationale": "Each rival's ecosystem term relative to the average rival: a_v = "
                     "offset_v - ecosystem_nvidia, the offsets summing to zero so that "
                     "NVIDIA's lead is minus the rivals' mean term (a free offset per rival "
                     "left a ridge the sampler could not cross). Wide: the measured "
                     "log-ratios place each vendor's level.",
    },
    "adjustment_speed": {
        "dist": "beta", "alpha": 2.0, "beta": 3.0,
        "rationale": "lambda: the share of the gap to the cost-driven target closed in a "
                     "quarter; mean 0.4. Contracts, software ports and supply slow switching.",
    },
    "deviation_persistence": {
        "dist": "beta", "alpha": 4.0, "beta": 3.0,
        "rationale": "rho: how much of a quarter's deviation from the partial-adjustment path "
                     "carries into the next; a ramp (Trainium2 in 2024-25) persists for a few "
                     "quarters. Mean 0.57, 90% range 0.27-0.84: kept off 1, where the "
                     "deviation becomes a random walk and the ecosystem terms lose their "
                     "meaning.",
    },
    "deviation_sd": {
        "dist": "lognormal", "median": 0.08, "sigma": 0.5, "unit": "log-ratio / quarter",
        "rationale": "Sd of the deviation's quarterly shock, one for every rival (a dozen "
                     "measured quarters cannot tell four apart); 90% range 3.5-18%.",
    },
    "obs_sd": {
        "dist": "lognormal", "median": 0.05, "sigma": 0.5, "unit": "log-ratio",
        "rationale": "Sd of the market model's measured log-ratio around the latent one (the "
                     "proxies' noise: AMD's segment includes CPUs), one for every rival; 90% "
                     "range 2-11%.",
    },
}

#: Parameters reported by ``summary()`` and gated, with the filtered last state the
#: forecasts start from.
SUMMARY_VARS = ["price_coefficient", "ecosystem_nvidia", "ecosystem", "adjustment_speed",
                "deviation_persistence", "deviation_sd", "obs_sd", "state_m", "state_d"]


def build_share_model(data: ShareData, priors: Mapping[str, Mapping[str, Any]]) -> Any:
    """The PyMC model of the package docstring for ``data`` and complete ``priors``.

    The measured log-ratios and the costs are ``pm.Data`` (``log_ratio_measured``,
    ``log_cost``): bull, base and bear differ in both (their market fits and cost bases)
    and share one compiled sampler. The latent states are integrated out by the Kalman
    filter (:func:`~forecast.models.share.statespace.share_filter_scan`); the filtered
    state of the last quarter is kept (``state_*``) for the forecasts.
    """
    import pymc as pm
    import pytensor.tensor as pt

    rivals = list(data.vendors[1:])
    y, seen = measured_cells(data)
    t_idx, v_idx = np.nonzero(seen)
    coords = {"rival": rivals, "quarter": list(data.quarters), "cell": np.arange(len(t_idx))}
    with pm.Model(coords=coords) as model:
        # Static shapes: swapped data keep the structure's shapes (compile_key), and the
        # scan and indexing need them known.
        measured_data = pm.Data("log_ratio_measured", y[t_idx, v_idx], dims="cell")
        cells = pt.specify_shape(measured_data, (len(t_idx),))
        measured = pt.zeros(y.shape)[t_idx, v_idx].set(cells)
        log_cost = pt.specify_shape(pm.Data("log_cost", data.log_cost), data.log_cost.shape)
        b = prior("price_coefficient", priors["price_coefficient"])
        lead = prior("ecosystem_nvidia", priors["ecosystem_nvidia"])
        offset = prior("ecosystem_offset", priors["ecosystem_offset"], dims="rival")
        a = pm.Deterministic("ecosystem", offset - lead, dims="rival")
        params = StateParams(
            prior("adjustment_speed", priors["adjustment_speed"]),
            prior("deviation_persistence", priors["deviation_persistence"]),
            prior("deviation_sd", priors["deviation_sd"]),
            prior("obs_sd", priors["obs_sd"]),
            START_SD)
        target = pm.Deterministic("target", target_log_ratios(a, b, log_cost, xp=pt),
                                  dims=("quarter", "rival"))
        state = share_filter_scan(measured, seen, target, params)
        # The filter's likelihood as one-step-ahead predictive densities of the measured
        # cells: an observed variable, so ArviZ's LOO and the posterior predictive check
        # (calibration of one-quarter-ahead forecasts) work on it.
        pm.Normal("obs_log_ratio", mu=state.pred_mean[t_idx, v_idx],
                  sigma=pt.sqrt(state.pred_var[t_idx, v_idx]), observed=measured_data,
                  dims="cell")
        for name in ("m", "d", "p_mm", "p_md", "p_dd"):
            pm.Deterministic(f"state_{name}", getattr(state, name), dims="rival")
    return model


def swappable_values(data: ShareData) -> dict[str, np.ndarray]:
    """The ``pm.Data`` values of :func:`build_share_model` for ``data``."""
    y, seen = measured_cells(data)
    return {"log_ratio_measured": y[np.nonzero(seen)], "log_cost": data.log_cost}
