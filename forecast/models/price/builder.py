"""The PyMC builder of the price-erosion model (see :mod:`forecast.models.price`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.models.price.data import LIST_PROVIDER_CLASS, LIST_TYPES, PriceData
from forecast.models.price.math import NOISE_DOF, ar1_loading_matrix, log_price_mean
from forecast.models.price.steps import list_intervals
from forecast.models.priors import prior

#: Moves one interval between two list-price snapshots may hold: more have odds of about
#: 1.5% given a move, at 0.33 moves a year over the data's longest interval (3.9 years).
MAX_MOVES = 4
#: The class whose mean provider effect is the ``list_premium`` (see the package docstring).
LIST_CLASS = LIST_PROVIDER_CLASS

DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    # The names of model version 3 first, in their order (scenario_contract.MODEL_PRIORS).
    "decay_mu": {"dist": "normal", "mu": -0.30, "sigma": 0.15},
    # Vendors differ little: the fall in cost per FLOP is market-wide (Epoch's trend spans
    # vendors), and only NVIDIA's rate meets data; a wider spread let that one vendor drift
    # from the anchor (0.15 tried: NVIDIA's slope +15%/yr, out-of-sample log CRPS 0.136).
    "decay_tau": {"dist": "halfnormal", "sigma": 0.05},
    "launch_price": {"dist": "normal", "mu": 1.0, "sigma": 1.0},
    "type_offset": {"dist": "normal", "mu": -0.3, "sigma": 0.5},
    "list_premium": {"dist": "normal", "mu": 0.5, "sigma": 0.5},
    "list_drift": {"dist": "normal", "mu": 0.0, "sigma": 0.1},
    "cycle_rho": {"dist": "beta", "alpha": 6.0, "beta": 2.0},
    "cycle_sigma": {"dist": "halfnormal", "sigma": 0.15},
    "noise_list": {"dist": "halfnormal", "sigma": 0.3},
    "noise_market": {"dist": "halfnormal", "sigma": 0.5},
    "class_effect": {"dist": "normal", "mu": 0.0, "sigma": 0.5},
    "provider_sd": {"dist": "halfnormal", "sigma": 0.3},
    "premium_sd": {"dist": "halfnormal", "sigma": 0.3},
    "series_sd": {"dist": "halfnormal", "sigma": 0.2},
    "vintage": {"dist": "truncnormal", "mu": -0.3, "sigma": 0.3, "upper": 0.0},
    # Clouds' commitment discounts differ around the pooled offset: Google Cloud's 1- and
    # 3-year prices are 37% and 55% off on-demand, deeper than AWS's and Azure's on the
    # same chips (0.2 in log allows a 20% difference either way, rarely 45%).
    "commitment_sd": {"dist": "halfnormal", "sigma": 0.2},
    # Clouds' list prices drift differently: Azure's commitment prices rose with age (its
    # V100 1-year price from $1.95 to $2.24) while Google Cloud's commitment discounts are a
    # fixed share of on-demand (its TPU v4 1- and 3-year prices held from 2022 to 2025).
    "list_drift_sd": {"dist": "halfnormal", "sigma": 0.05},
    # List prices move in steps (forecast.models.price.steps). Hyperscalers hold a GPU's list
    # price for years (AWS's A100 from its 2020 launch to 2025; the data's README, caveat 6):
    # about one move in two to three years, a mean of 0.5 a year allowing 0.1-1.2.
    "list_move_hazard": {"dist": "gamma", "alpha": 2.0, "beta": 4.0},
    # Mostly cuts: AWS cut its P4 and P5 on-demand prices by up to 45% in June 2025 (log
    # -0.6); Azure's commitment prices rose by 10-35% in 2024. A mean cut of about 20%.
    "list_move_size": {"dist": "normal", "mu": -0.2, "sigma": 0.2},
    "list_move_sd": {"dist": "halfnormal", "sigma": 0.3},
}

SUMMARY_VARS = ["decay_mu", "decay_tau", "decay", "vintage", "launch_log_price", "type_offset",
                "list_premium", "class_effect", "provider_sd", "provider_effect", "premium_sd",
                "chip_premium", "series_sd", "commitment_sd", "commitment_effect", "list_drift",
                "list_drift_sd", "list_drift_effect",
                "cycle_rho", "cycle_sigma", "noise_list", "noise_market",
                "list_move_hazard", "list_move_size", "list_move_sd"]


@dataclass(frozen=True)
class Design:
    """Index arrays of the observations into the model's coordinates (pure numpy)."""

    chip: np.ndarray
    vendor: np.ndarray
    offset_type: np.ndarray
    provider: np.ndarray
    series: np.ndarray
    #: Per observation: index into :data:`LIST_TYPES` (0 for market prices).
    list_type: np.ndarray
    quarter: np.ndarray
    is_market: np.ndarray
    is_hyperscaler: np.ndarray
    #: Per provider (company): index into ``("reference", *data.classes)``.
    provider_class: np.ndarray
    #: Per observation: 0, or 1 + the flat index of its (company, commitment type) discount
    #: deviation for a list commitment price (companies in ``list_providers``).
    commitment: np.ndarray
    #: Per observation: 0, or 1 + the flat index of its (company, list type) drift deviation
    #: for a list price.
    list_drift: np.ndarray
    list_providers: tuple[str, ...]
    #: Per chip: vendor index, 1.0 when it has list prices, mean age, mean market vintage gap.
    chip_vendor: np.ndarray
    has_list: np.ndarray
    ref_age: np.ndarray
    ref_gap: np.ndarray


def design(data: PriceData) -> Design:
    """The index arrays of ``data`` (see :class:`Design`)."""
    obs = data.observations

    def index(column: str, labels: tuple[str, ...]) -> np.ndarray:
        return obs[column].map({label: i for i, label in enumerate(labels)}).to_numpy(int)

    # List prices before the cycle window do not load on it; clip their index into range.
    quarter = np.clip([(q - data.quarters[0]).n for q in obs["quarter"]], 0,
                      len(data.quarters) - 1)
    is_market = (obs["price_class"] == "market").to_numpy(float)
    first = obs.drop_duplicates("provider").set_index("provider")
    class_labels = {label: i + 1 for i, label in enumerate(data.classes)}
    provider_class = np.array([class_labels.get(first.loc[p, "provider_class"], 0)
                               for p in data.providers])
    chips = list(data.chips)
    vendor_of = obs.drop_duplicates("chip").set_index("chip")["vendor_group"]
    listed = set(obs.loc[obs["price_class"] == "list", "chip"])
    market = obs[obs["price_class"] == "market"]
    return Design(
        chip=index("chip", data.chips), vendor=index("vendor_group", data.vendors),
        offset_type=index("offset_type", data.pricing_types),
        provider=index("provider", data.providers), series=index("series", data.series),
        list_type=np.array([LIST_TYPES.index(k) if k in LIST_TYPES and c == "list" else 0
                            for k, c in zip(obs["offset_type"], obs["price_class"],
                                            strict=True)]),
        quarter=np.asarray(quarter),
        is_market=is_market, provider_class=provider_class,
        is_hyperscaler=(obs["provider_class"] == LIST_CLASS).to_numpy(float),
        chip_vendor=np.array([data.vendors.index(vendor_of[c]) for c in chips]),
        has_list=np.array([c in listed for c in chips], dtype=float),
        ref_age=obs.groupby("chip")["age_years"].mean().reindex(chips).to_numpy(),
        ref_gap=market.groupby("chip")["vintage_gap"].mean().reindex(chips).fillna(0.0)
        .to_numpy(), **list_index(obs))


def list_index(obs: pd.DataFrame) -> dict[str, Any]:
    """Which list prices take which company's commitment-offset and drift deviations."""
    listed = (obs["price_class"] == "list").to_numpy()
    providers = tuple(sorted(set(obs.loc[listed, "provider"])))
    kinds = list(LIST_TYPES)
    company = [providers.index(p) if ok else -1 for p, ok in zip(obs["provider"], listed,
                                                                  strict=True)]
    kind = [kinds.index(k) if k in kinds else -1 for k in obs["offset_type"]]
    drift = [1 + c * len(kinds) + k if c >= 0 and k >= 0 else 0
             for c, k in zip(company, kind, strict=True)]
    # Commitments only (on-demand is the reference): kinds 1 and 2 -> 0 and 1.
    commitment = [1 + c * (len(kinds) - 1) + k - 1 if c >= 0 and k >= 1 else 0
                  for c, k in zip(company, kind, strict=True)]
    return {"commitment": np.asarray(commitment, dtype=int),
            "list_drift": np.asarray(drift, dtype=int), "list_providers": providers}


def _provider_effects(data: PriceData, index: Design, priors: Mapping[str, Any]) -> Any:
    """Class means (reference 0, hyperscaler = list premium) plus a pooled deviation."""
    import pymc as pm
    import pytensor.tensor as pt

    list_premium = prior("list_premium", priors["list_premium"])
    others = [c for c in data.classes if c != LIST_CLASS]
    effects = prior("class_effect", priors["class_effect"], dims="class_other") if others \
        else pt.zeros(0)
    by_class = [pt.zeros(1)]
    for label in data.classes:
        by_class.append(pt.reshape(list_premium, (1,)) if label == LIST_CLASS
                        else effects[others.index(label)][None])
    class_mean = pt.concatenate(by_class)
    provider_sd = prior("provider_sd", priors["provider_sd"])
    # Non-centred: most providers have one or two quotes, so their effects sit in a funnel.
    eta = pm.Normal("provider_eta", 0.0, 1.0, dims="provider")
    provider = pm.Deterministic(
        "provider_effect", class_mean[index.provider_class] + provider_sd * eta, dims="provider")
    # Hyperscalers mark chips up by different amounts (an H100 lists at 3-4x its market
    # price, an A100 at about 2x): a chip's premium deviates from the class's, pooled.
    premium_sd = prior("premium_sd", priors["premium_sd"])
    premium_eta = pm.Normal("premium_eta", 0.0, 1.0, dims="chip")
    chip_premium = pm.Deterministic("chip_premium", premium_sd * premium_eta, dims="chip")
    return list_premium, provider, chip_premium


def _commitment_effects(index: Design, priors: Mapping[str, Any]) -> Any:
    """0 followed by each list company's deviation from the pooled commitment offsets."""
    import pymc as pm
    import pytensor.tensor as pt

    if len(index.list_providers) < 2:  # one company: nothing to deviate from
        return pt.zeros(1 + 2 * len(index.list_providers))
    commitment_sd = prior("commitment_sd", priors["commitment_sd"])
    # Zero-sum over the companies: the pooled offset is their mean, not a ridge with it.
    eta = pm.ZeroSumNormal("commitment_eta", 1.0, dims=("commitment", "list_provider"))
    effect = pm.Deterministic("commitment_effect", commitment_sd * eta.T,
                              dims=("list_provider", "commitment"))
    return pt.concatenate([pt.zeros(1), pt.flatten(effect)])


def _list_drift_effects(index: Design, priors: Mapping[str, Any]) -> Any:
    """0 followed by each list company's deviation from the pooled drift of each list type."""
    import pymc as pm
    import pytensor.tensor as pt

    if len(index.list_providers) < 2:
        return pt.zeros(1 + len(LIST_TYPES) * len(index.list_providers))
    drift_sd = prior("list_drift_sd", priors["list_drift_sd"])
    eta = pm.ZeroSumNormal("list_drift_eta", 1.0, dims=("list_type", "list_provider"))
    effect = pm.Deterministic("list_drift_effect", drift_sd * eta.T,
                              dims=("list_provider", "list_type"))
    return pt.concatenate([pt.zeros(1), pt.flatten(effect)])


def _list_steps(data: PriceData, priors: Mapping[str, Any]) -> None:
    """The step process of list prices: whether each interval between two observations of a
    list series saw a move (Poisson arrivals), and the log change of those that moved (the
    sum of one to :data:`MAX_MOVES` moves, weighted by their Poisson odds given one)."""
    import pymc as pm
    import pytensor.tensor as pt
    from pytensor.tensor.special import softmax

    intervals = list_intervals(data.list_history)
    hazard = prior("list_move_hazard", priors["list_move_hazard"])
    size = prior("list_move_size", priors["list_move_size"])
    size_sd = prior("list_move_sd", priors["list_move_sd"])
    if intervals.empty:
        return
    years = intervals["years"].to_numpy(float)
    moved = intervals["moved"].to_numpy(bool)
    pm.Bernoulli("list_moved", p=pt.clip(-pt.expm1(-hazard * years), 1e-9, 1.0 - 1e-9),
                 observed=moved.astype(int))
    if not moved.any():
        return
    counts = np.arange(1, MAX_MOVES + 1)
    rate = hazard * years[moved][:, None]
    # Poisson(n; rate) for n = 1..MAX_MOVES, normalised over those counts.
    log_factorial = np.array([math.lgamma(n + 1.0) for n in counts])
    log_odds = counts * pt.log(rate) - log_factorial
    weights = softmax(log_odds, axis=1)
    components = pm.Normal.dist(mu=counts * size, sigma=np.sqrt(counts) * size_sd)
    pm.Mixture("list_move", w=weights, comp_dists=components,
               observed=intervals.loc[moved, "change"].to_numpy(float))


def build_price_model(data: PriceData, priors: Mapping[str, Mapping[str, Any]]) -> Any:
    """The PyMC model of the package docstring for prepared ``data`` and complete ``priors``."""
    import pymc as pm
    import pytensor.tensor as pt

    obs = data.observations
    ix = design(data)
    coords = {"chip": list(data.chips), "vendor": list(data.vendors),
              "offset_type": list(data.pricing_types[1:]), "provider": list(data.providers),
              "series": list(data.series), "list_type": list(LIST_TYPES),
              "class_other": [c for c in data.classes if c != LIST_CLASS],
              "quarter": [str(q) for q in data.quarters], "obs": np.arange(len(obs)),
              "list_provider": list(ix.list_providers),
              "commitment": list(LIST_TYPES[1:])}
    with pm.Model(coords=coords) as model:
        decay_mu = prior("decay_mu", priors["decay_mu"])
        decay_tau = prior("decay_tau", priors["decay_tau"])
        # Non-centred: one vendor rich in market prices and the rest prior-only.
        decay_eta = pm.Normal("decay_eta", 0.0, 1.0, dims="vendor")
        decay = pm.Deterministic("decay", decay_mu + decay_tau * decay_eta, dims="vendor")
        vintage = prior("vintage", priors["vintage"])
        level = prior("price_level", priors["launch_price"], dims="chip")
        offsets = prior("type_offset", priors["type_offset"], dims="offset_type")
        offset_all = pt.concatenate([pt.zeros(1), offsets])
        list_premium, provider_effect, chip_premium = _provider_effects(data, ix, priors)
        # One drift per list type: commitment discounts narrowed with age (Azure's V100 1-year
        # price rose from $1.95 to $2.24) while on-demand list prices stayed flat.
        list_drift = prior("list_drift", priors["list_drift"], dims="list_type")
        # The free level is each chip's level where its data sit (list level at its mean age
        # for a listed chip, market level at its mean age and vintage gap otherwise); the
        # launch market price at a neocloud follows (an intercept far from the data would
        # form a ridge with the slopes and the premium).
        chip_slope = ix.has_list * list_drift[0] + (1.0 - ix.has_list) * decay[ix.chip_vendor]
        launch = pm.Deterministic(
            "launch_log_price", level - ix.has_list * (list_premium + chip_premium)
            - chip_slope * ix.ref_age
            - (1.0 - ix.has_list) * vintage * ix.ref_gap, dims="chip")
        rho = prior("cycle_rho", priors["cycle_rho"])
        cycle_sigma = prior("cycle_sigma", priors["cycle_sigma"])
        # No zero-trend constraint: a stationary AR(1) cannot carry a lasting trend, which
        # belongs to the decay (anchored by its prior) and the vintage term.
        cycle_eps = pm.Normal("cycle_eps", 0.0, 1.0, dims="quarter")
        cycle = pm.Deterministic(
            "cycle", cycle_sigma * pt.dot(ar1_loading_matrix(rho, len(data.quarters)),
                                          cycle_eps), dims="quarter")
        noise_list = prior("noise_list", priors["noise_list"])
        noise_market = prior("noise_market", priors["noise_market"])
        market = ix.is_market
        slope = market * decay[ix.vendor] + (1.0 - market) * (
            list_drift[ix.list_type] + _list_drift_effects(ix, priors)[ix.list_drift])
        premium = ix.is_hyperscaler * chip_premium[ix.chip]
        # A provider's markup on one chip persists (RunPod's H100 sits higher than its A100
        # suggests): one pooled effect per (chip, provider) series, as a random walk's last
        # price would carry it.
        series_sd = prior("series_sd", priors["series_sd"])
        series_eta = pm.Normal("series_eta", 0.0, 1.0, dims="series")
        series = pm.Deterministic("series_effect", series_sd * series_eta, dims="series")
        premium = premium + series[ix.series] + _commitment_effects(ix, priors)[ix.commitment]
        mu = log_price_mean(launch[ix.chip] + provider_effect[ix.provider] + premium,
                            offset_all[ix.offset_type], slope, obs["age_years"].to_numpy(),
                            market, cycle[ix.quarter], vintage,
                            market * obs["vintage_gap"].to_numpy())
        sigma = market * noise_market + (1.0 - market) * noise_list
        pm.StudentT("log_price", nu=NOISE_DOF, mu=mu, sigma=sigma,
                    observed=obs["log_price"].to_numpy(), dims="obs")
        _list_steps(data, priors)
    return model

