"""Backtest of the price-erosion model: fit before a cut-off, score the later observed prices.

The model is fitted on ``dataset.as_of(cutoff)`` and predicts every later observation of a
chip and pricing type it has seen (chips launched after the cut-off have no fitted level and
are left out of both models, and counted). The baseline is a random walk with drift on log
price per provider series, with drift and volatility per year pooled over every series'
increments before the cut-off. Both are scored on log price with CRPS, and with 80% and 95%
central-interval coverage, so that scores are comparable across $1 and $12 chips.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.data.dataset import Dataset
from forecast.evaluation.scoring import coverage, crps_samples
from forecast.models.price import DAYS_PER_YEAR, PriceModel, collapse_held_prices, price_class

SERIES_KEY = ["chip", "provider_or_index", "pricing_type"]


@dataclass(frozen=True)
class PriceBacktest:
    """Scores per model and the observation-level detail behind them."""

    scores: pd.DataFrame
    detail: pd.DataFrame
    cutoff: pd.Timestamp
    n_excluded: int


def random_walk_samples(train: pd.DataFrame, test: pd.DataFrame, draws: int,
                        seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random walk with drift on log price, per provider series.

    A test row whose provider series has no history continues the latest price of the same
    chip, pricing type and price class (list or market), so a hyperscaler's list price is never
    forecast from a neocloud's.

    Returns samples of price (draws x rows) and a mask of the test rows it could forecast.
    """
    rng = np.random.default_rng(seed)
    train = collapse_held_prices(train).sort_values("date")
    train = train.assign(
        log_price=np.log(train["usd_per_chip_hour"]),
        price_class=price_class(train["pricing_type"].astype(str), train["provider_or_index"]))
    test_class = price_class(test["pricing_type"].astype(str), test["provider_or_index"])
    steps = []
    for _, series in train.groupby(SERIES_KEY, observed=True):
        years = series["date"].diff().dt.days.to_numpy()[1:] / DAYS_PER_YEAR
        change = np.diff(series["log_price"].to_numpy())
        keep = years > 0
        steps.append(pd.DataFrame({"years": years[keep], "change": change[keep]}))
    increments = pd.concat(steps, ignore_index=True)
    drift = increments["change"].sum() / increments["years"].sum()
    residual = increments["change"] - drift * increments["years"]
    volatility = np.sqrt((residual**2).sum() / increments["years"].sum())

    last_series = train.groupby(SERIES_KEY, observed=True).last()
    last_type = train.groupby(["chip", "pricing_type", "price_class"], observed=True).last()
    samples = np.full((draws, len(test)), np.nan)
    usable = np.zeros(len(test), dtype=bool)
    for j, row in enumerate(test.itertuples(index=False)):
        key = (row.chip, row.provider_or_index, row.pricing_type)
        if key in last_series.index:
            last = last_series.loc[key]
        elif (row.chip, row.pricing_type, test_class[j]) in last_type.index:
            last = last_type.loc[(row.chip, row.pricing_type, test_class[j])]
        else:
            continue
        years = max((row.date - last["date"]).days / DAYS_PER_YEAR, 1 / 365)
        log_price = (last["log_price"] + drift * years
                     + volatility * np.sqrt(years) * rng.standard_normal(draws))
        samples[:, j] = np.exp(log_price)
        usable[j] = True
    return samples, usable


def backtest_price(dataset: Dataset, cutoff: str = "2024-07-01", draws: int = 2000,
                   seed: int = 0, sampler: dict[str, Any] | None = None) -> PriceBacktest:
    """Fit before ``cutoff``, forecast the observations after it, score against the baseline."""
    cut = pd.Timestamp(cutoff)
    train_data = dataset.as_of(cut)
    fitted = PriceModel(sampler=sampler).fit(train_data)
    later = dataset.rental_prices[dataset.rental_prices["date"] > cut]
    test = collapse_held_prices(dataset.rental_prices)
    test = test[test["date"] > cut].reset_index(drop=True)
    fitted_chips = {str(c) for c in fitted.posterior["chip"].values}
    fitted_types = {"on-demand"} | {str(t) for t in fitted.posterior["offset_type"].values}
    known = test["chip"].isin(fitted_chips) & test["pricing_type"].astype(str).isin(fitted_types)
    rw_samples, rw_usable = random_walk_samples(train_data.rental_prices, test, draws, seed)
    keep = known.to_numpy() & rw_usable
    scored = test[keep].reset_index(drop=True)
    bayes = fitted.predict_observations(scored, draws=draws, seed=seed)
    baseline = rw_samples[:, keep]
    y = np.log(scored["usd_per_chip_hour"].to_numpy())
    rows, detail = [], []
    for name, samples in (("bayesian", bayes), ("random walk + drift", baseline)):
        logs = np.log(samples)
        crps = crps_samples(logs, y)
        cover80, cover95 = coverage(logs, y, 0.8), coverage(logs, y, 0.95)
        rows.append({"model": name, "observations": len(y), "crps_log": crps.mean(),
                     "coverage_80": cover80.mean(), "coverage_95": cover95.mean()})
        detail.append(scored.assign(model=name, crps_log=crps, covered_80=cover80,
                                    median=np.median(samples, axis=0)))
    return PriceBacktest(
        scores=pd.DataFrame(rows),
        detail=pd.concat(detail, ignore_index=True),
        cutoff=cut,
        n_excluded=int(len(test) - keep.sum()) + int(len(later) - len(test)),
    )
