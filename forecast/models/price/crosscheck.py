"""The frequentist cross-check (statsmodels OLS) and a simulator of price observations."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from forecast.data.dataset import Dataset
from forecast.models.price.data import (
    DAYS_PER_YEAR,
    identified_market_vendors,
    prepare_price_data,
    price_class,
)
from forecast.models.price.math import NOISE_DOF, log_price_mean

# --------------------------------------------------------------------------- cross-check


def ols_cross_check(dataset: Dataset) -> Any:
    """Frequentist cross-check: OLS of log price on age by vendor, statsmodels results.

    Same design as the Bayesian model without pooling and without the cycle: chip and pricing
    type fixed effects, a list-price premium, a market-price slope per vendor
    (``age_market:C(vendor_group)``) and one common slope for list prices. Standard errors are
    heteroskedasticity-robust (HC3). Call ``.summary()`` on the result for the table.
    """
    import statsmodels.formula.api as smf

    frame = prepare_price_data(dataset).observations.copy()
    frame["is_list"] = (frame["price_class"] == "list").astype(float)
    frame["age_list"] = frame["age_years"] * frame["is_list"]
    market_vendors = identified_market_vendors(frame)
    terms = []
    for vendor in market_vendors:
        column = f"age_market_{vendor}"
        frame[column] = frame["age_years"] * (1.0 - frame["is_list"]) * (
            frame["vendor_group"] == vendor)
        terms.append(column)
    formula = ("log_price ~ C(chip) + C(pricing_type, Treatment('on-demand')) + is_list"
               " + age_list + " + " + ".join(terms))
    with warnings.catch_warnings():
        # Chips seen only at list prices make their fixed effect collinear with the list
        # premium; the slopes reported here stay identified (statsmodels uses a pseudo-inverse).
        warnings.simplefilter("ignore")
        return smf.ols(formula, data=frame).fit(cov_type="HC3")


def ols_decay_rates(results: Any) -> pd.DataFrame:
    """Per-vendor market decay (log price per year) and its standard error from the OLS fit."""
    rows = [
        {"vendor": name.removeprefix("age_market_"), "decay": value, "se": results.bse[name]}
        for name, value in results.params.items()
        if name.startswith("age_market_")
    ]
    return pd.DataFrame(rows)


def simulate_price_observations(
    template: pd.DataFrame,
    catalogue: pd.DataFrame,
    decay: Mapping[str, float],
    launch_log_price: Mapping[str, float],
    list_premium: float,
    list_drift: float,
    type_offsets: Mapping[str, float],
    noise: float,
    seed: int,
    classes: Mapping[str, str],
) -> pd.DataFrame:
    """Prices simulated from the model's own math on the design of ``template``.

    ``template`` has the rental-price columns (date, chip, provider_or_index, pricing_type);
    ``classes`` maps its providers to their provider class (``Dataset.provider_classes``);
    the cycle is switched off (its recovery is not what the test checks). Returns a frame in
    the shape of ``Dataset.rental_prices`` with ``usd_per_chip_hour`` replaced.
    """
    rng = np.random.default_rng(seed)
    frame = template.copy()
    spec = catalogue.set_index("chip")
    vendor = spec.loc[frame["chip"], "vendor_group"].to_numpy()
    release = spec.loc[frame["chip"], "release_date"].to_numpy()
    age = np.maximum((frame["date"].to_numpy() - release) / np.timedelta64(1, "D")
                     / DAYS_PER_YEAR, 0.0)
    is_market = price_class(frame["pricing_type"].astype(str), frame["provider_or_index"],
                            classes) == "market"
    offsets = frame["pricing_type"].astype(str).map(lambda k: type_offsets.get(k, 0.0))
    level = (frame["chip"].map(launch_log_price).to_numpy() + offsets.to_numpy()
             + np.where(is_market, 0.0, list_premium))
    slope = np.where(is_market, np.array([decay[v] for v in vendor]), list_drift)
    log_price = log_price_mean(level, 0.0, slope, age, 0.0, 0.0)
    log_price = log_price + noise * rng.standard_t(NOISE_DOF, size=len(frame))
    frame["usd_per_chip_hour"] = np.exp(log_price)
    return frame
