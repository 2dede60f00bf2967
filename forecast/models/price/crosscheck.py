"""The frequentist cross-check (statsmodels OLS) and a simulator of price observations."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from forecast.data.dataset import Dataset
from forecast.models.price.data import (
    identified_market_vendors,
    observation_frame,
    prepare_price_data,
)
from forecast.models.price.math import NOISE_DOF, log_price_mean

# --------------------------------------------------------------------------- cross-check


def ols_cross_check(dataset: Dataset) -> Any:
    """Frequentist cross-check: OLS of log price with the Bayesian model's fixed effects.

    Chip, provider and pricing-type fixed effects (unpooled, where the Bayesian model pools
    providers within their class), one age slope for list prices, a market-price age slope
    per vendor with market prices of one chip at two ages (``age_market_<vendor>``) and the
    vintage gap of market prices (``vintage_market``); no cycle. Standard errors are
    heteroskedasticity-robust (HC1: HC3 is infinite for the providers
    quoted once, whose leverage is 1). Call ``.summary()`` on the result for the table.
    """
    import statsmodels.formula.api as smf

    frame = prepare_price_data(dataset).observations.copy()
    is_list = (frame["price_class"] == "list").astype(float)
    frame["age_list"] = frame["age_years"] * is_list
    frame["vintage_market"] = frame["vintage_gap"] * (1.0 - is_list)
    terms = []
    for vendor in identified_market_vendors(frame):
        column = f"age_market_{vendor}"
        frame[column] = frame["age_years"] * (1.0 - is_list) * (frame["vendor_group"] == vendor)
        terms.append(column)
    formula = ("log_price ~ C(chip) + C(provider) + C(offset_type, Treatment('on-demand'))"
               " + age_list + vintage_market + " + " + ".join(terms))
    with warnings.catch_warnings():
        # Chips seen at one provider only make their fixed effects collinear; the slopes
        # reported here stay identified (statsmodels uses a pseudo-inverse).
        warnings.simplefilter("ignore")
        return smf.ols(formula, data=frame).fit(cov_type="HC1")


def ols_decay_rates(results: Any) -> pd.DataFrame:
    """Per-vendor market decay (log price per year) and its standard error from the OLS fit."""
    rows = [
        {"vendor": name.removeprefix("age_market_"), "decay": value, "se": results.bse[name]}
        for name, value in results.params.items()
        if name.startswith("age_market_")
    ]
    return pd.DataFrame(rows)


def ols_vintage(results: Any) -> tuple[float, float]:
    """The OLS vintage effect (log price per log unit behind the frontier) and its SE."""
    return float(results.params["vintage_market"]), float(results.bse["vintage_market"])


@dataclass(frozen=True)
class SimulationTruth:
    """Parameters of :func:`simulate_price_observations` (names as in the PyMC model)."""

    decay: Mapping[str, float]
    launch_log_price: Mapping[str, float]
    provider_effect: Mapping[str, float]
    vintage: float
    list_drift: float
    type_offsets: Mapping[str, float]
    noise: float
    #: Market cycle by quarter label ("2024Q3"); quarters left out are 0.
    cycle: Mapping[str, float] = field(default_factory=dict)
    #: (chip, provider) series effects by :func:`series_label`; series left out are 0.
    series_effect: Mapping[str, float] = field(default_factory=dict)


def simulate_price_observations(template: pd.DataFrame, catalogue: pd.DataFrame,
                                classes: Mapping[str, str], truth: SimulationTruth,
                                seed: int, companies: Mapping[str, str] | None = None
                                ) -> pd.DataFrame:
    """Prices simulated from the model's own math on the design of ``template``.

    ``template`` has the rental-price columns (date, chip, provider_or_index, pricing_type);
    ``classes`` maps its providers to their provider class (``Dataset.provider_classes``),
    ``companies`` to the company whose effect they take (default: each is its own; the
    truth's ``provider_effect`` is keyed by company).
    Covariates come from :func:`~forecast.models.price.data.observation_frame` and the mean
    from :func:`~forecast.models.price.math.log_price_mean`, as in the fit. Returns a frame in
    the shape of ``Dataset.rental_prices`` with ``usd_per_chip_hour`` replaced.
    """
    rng = np.random.default_rng(seed)
    rows = observation_frame(template.drop(columns=["usd_per_chip_hour"], errors="ignore"),
                             catalogue, classes, companies)
    market = (rows["price_class"] == "market").to_numpy()
    level = (rows["chip"].map(truth.launch_log_price).to_numpy(float)
             + rows["offset_type"].map(lambda k: truth.type_offsets.get(k, 0.0)).to_numpy()
             + rows["provider"].map(truth.provider_effect).to_numpy(float)
             + rows["series"].map(lambda s: truth.series_effect.get(s, 0.0)).to_numpy())
    slope = np.where(market, rows["vendor_group"].map(truth.decay).to_numpy(float),
                     truth.list_drift)
    cycle = rows["quarter"].astype(str).map(lambda q: truth.cycle.get(q, 0.0)).to_numpy()
    log_price = log_price_mean(level, 0.0, slope, rows["age_years"].to_numpy(),
                               market.astype(float), cycle, truth.vintage,
                               market * rows["vintage_gap"].to_numpy())
    log_price = log_price + truth.noise * rng.standard_t(NOISE_DOF, size=len(rows))
    frame = template.copy()
    frame["usd_per_chip_hour"] = np.exp(log_price)
    return frame
