"""The PyMC builder of the price-erosion model (see :mod:`forecast.models.price`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from forecast.models.price.data import PriceData
from forecast.models.price.math import NOISE_DOF, ar1_loading_matrix, detrend_matrix, log_price_mean
from forecast.models.priors import prior

DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "decay_mu": {"dist": "normal", "mu": -0.30, "sigma": 0.15},
    "decay_tau": {"dist": "halfnormal", "sigma": 0.15},
    "launch_price": {"dist": "normal", "mu": 1.0, "sigma": 1.0},
    "type_offset": {"dist": "normal", "mu": -0.3, "sigma": 0.5},
    "list_premium": {"dist": "normal", "mu": 0.5, "sigma": 0.5},
    "list_drift": {"dist": "normal", "mu": 0.0, "sigma": 0.1},
    "cycle_rho": {"dist": "beta", "alpha": 6.0, "beta": 2.0},
    "cycle_sigma": {"dist": "halfnormal", "sigma": 0.15},
    "noise_list": {"dist": "halfnormal", "sigma": 0.3},
    "noise_market": {"dist": "halfnormal", "sigma": 0.5},
}


# --------------------------------------------------------------------------- PyMC builder


def build_price_model(data: PriceData, priors: Mapping[str, Mapping[str, Any]]) -> Any:
    """The PyMC model of the module docstring for prepared ``data`` and complete ``priors``."""
    import pymc as pm
    import pytensor.tensor as pt

    obs = data.observations
    chip_idx = obs["chip"].map({c: i for i, c in enumerate(data.chips)}).to_numpy()
    vendor_idx = obs["vendor_group"].map({v: i for i, v in enumerate(data.vendors)}).to_numpy()
    type_idx = obs["pricing_type"].map({k: i for i, k in enumerate(data.pricing_types)}).to_numpy()
    # List prices before the cycle window do not load on it; clip their index into range.
    quarter_idx = np.clip((obs["quarter"] - data.quarters[0]).map(lambda o: o.n).to_numpy(),
                          0, len(data.quarters) - 1)
    is_market = (obs["price_class"] == "market").to_numpy().astype(float)
    ref_age = obs.groupby("chip")["age_years"].mean().reindex(list(data.chips)).to_numpy()
    vendor_of_chip = obs.drop_duplicates("chip").set_index("chip")["vendor_group"]
    chip_vendor_idx = np.array([data.vendors.index(vendor_of_chip[c]) for c in data.chips])
    listed_chips = set(obs.loc[obs["price_class"] == "list", "chip"])
    has_list = np.array([chip in listed_chips for chip in data.chips], dtype=float)
    coords = {
        "chip": list(data.chips),
        "vendor": list(data.vendors),
        "offset_type": list(data.pricing_types[1:]),
        "quarter": [str(q) for q in data.quarters],
        "obs": np.arange(len(obs)),
    }
    with pm.Model(coords=coords) as model:
        decay_mu = prior("decay_mu", priors["decay_mu"])
        decay_tau = prior("decay_tau", priors["decay_tau"])
        # Non-centred: with one vendor rich in market prices and the rest prior-only, a centred
        # form diverges in the funnel as decay_tau shrinks (tried: 18-46 divergences).
        decay_eta = pm.Normal("decay_eta", 0.0, 1.0, dims="vendor")
        decay = pm.Deterministic("decay", decay_mu + decay_tau * decay_eta, dims="vendor")
        level = prior("price_level", priors["launch_price"], dims="chip")
        offsets = prior("type_offset", priors["type_offset"], dims="offset_type")
        offset_all = pt.concatenate([pt.zeros(1), offsets])
        list_premium = prior("list_premium", priors["list_premium"])
        list_drift = prior("list_drift", priors["list_drift"])
        # The free level is each chip's list level (market level for market-only chips) at its
        # mean observed age; the launch market price follows (see the module docstring).
        chip_slope = has_list * list_drift + (1.0 - has_list) * decay[chip_vendor_idx]
        launch = pm.Deterministic(
            "launch_log_price", level - has_list * list_premium - chip_slope * ref_age,
            dims="chip")
        rho = prior("cycle_rho", priors["cycle_rho"])
        cycle_sigma = prior("cycle_sigma", priors["cycle_sigma"])
        cycle_eps = pm.Normal("cycle_eps", 0.0, 1.0, dims="quarter")
        loading = ar1_loading_matrix(rho, len(data.quarters))
        projection = detrend_matrix(len(data.quarters))
        cycle = pm.Deterministic(
            "cycle", cycle_sigma * pt.dot(projection, pt.dot(loading, cycle_eps)),
            dims="quarter")
        noise_list = prior("noise_list", priors["noise_list"])
        noise_market = prior("noise_market", priors["noise_market"])

        slope = is_market * decay[vendor_idx] + (1.0 - is_market) * list_drift
        level = launch[chip_idx] + offset_all[type_idx] + (1.0 - is_market) * list_premium
        mu = log_price_mean(level, 0.0, slope, obs["age_years"].to_numpy(), is_market,
                            cycle[quarter_idx])
        sigma = is_market * noise_market + (1.0 - is_market) * noise_list
        pm.StudentT("log_price", nu=NOISE_DOF, mu=mu, sigma=sigma,
                    observed=obs["log_price"].to_numpy(), dims="obs")
    return model


SUMMARY_VARS = ["decay_mu", "decay_tau", "decay", "launch_log_price", "type_offset", "list_premium",
                "list_drift",
                "cycle_rho", "cycle_sigma", "noise_list", "noise_market"]


