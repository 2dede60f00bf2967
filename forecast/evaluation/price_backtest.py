"""Backtest of the price-erosion model: fit before a cut-off, score the later observed prices.

The model is fitted on ``dataset.as_of(cutoff)`` and predicts every later observation of a
chip and pricing type it has seen (chips launched after the cut-off have no fitted level and
are left out of both models, and counted). The baseline is a random walk with drift on log
price per provider series, with drift and volatility per year pooled over every series'
increments before the cut-off. Both are scored on the same observations (the harness's
common cells) with the shared scores of :mod:`forecast.evaluation.harness`; the headline is
CRPS on log price (``log_crps``) and 80% and 95% central-interval coverage, comparable across
$1 and $12 chips.

Each observation after the cut-off is one harness cell: its key is its row in the collapsed
later prices (:func:`later_prices`), its quarters the number of quarters (91.3 days) from the
cut-off, rounded up.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.evaluation import harness
from forecast.models.price import (
    DAYS_PER_YEAR,
    PriceModel,
    collapse_held_prices,
    offset_types,
    price_class,
)

SERIES_KEY = ["chip", "provider_or_index", "pricing_type"]
BAYES = "bayesian"
RANDOM_WALK = "random walk + drift"


def _last_prices(train: pd.DataFrame, classes: Mapping[str, str]
                 ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Collapsed training prices with log price and class; the last row per provider series
    and per (chip, pricing type, price class)."""
    train = collapse_held_prices(train).sort_values("date")
    train = train.assign(
        log_price=np.log(train["usd_per_chip_hour"]),
        price_class=price_class(train["pricing_type"].astype(str), train["provider_or_index"],
                                classes))
    last_series = train.groupby(SERIES_KEY, observed=True).last()
    last_type = train.groupby(["chip", "pricing_type", "price_class"], observed=True).last()
    return train, last_series, last_type


def _last_rows(last_series: pd.DataFrame, last_type: pd.DataFrame, test: pd.DataFrame,
               classes: Mapping[str, str]) -> list[pd.Series | None]:
    """Per test row, the training row it continues (its series', else its chip, type and
    class's), or None."""
    test_class = price_class(test["pricing_type"].astype(str), test["provider_or_index"],
                             classes)
    rows: list[pd.Series | None] = []
    for j, row in enumerate(test.itertuples(index=False)):
        key = (row.chip, row.provider_or_index, row.pricing_type)
        if key in last_series.index:
            rows.append(last_series.loc[key])
        elif (row.chip, row.pricing_type, test_class[j]) in last_type.index:
            rows.append(last_type.loc[(row.chip, row.pricing_type, test_class[j])])
        else:
            rows.append(None)
    return rows


def has_history(train: pd.DataFrame, test: pd.DataFrame, classes: Mapping[str, str]
                ) -> np.ndarray:
    """Mask of the test rows with a price to continue in ``train`` (see
    :func:`random_walk_samples`): the rows any model can be compared on."""
    _, last_series, last_type = _last_prices(train, classes)
    return np.array([last is not None
                     for last in _last_rows(last_series, last_type, test, classes)], dtype=bool)


def random_walk_samples(train: pd.DataFrame, test: pd.DataFrame, draws: int, seed: int,
                        classes: Mapping[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Random walk with drift on log price, per provider series.

    A test row whose provider series has no history continues the latest price of the same
    chip, pricing type and price class (list or market), so a hyperscaler's list price is never
    forecast from a neocloud's.

    Returns samples of price (draws x rows) and a mask of the test rows it could forecast.
    """
    rng = np.random.default_rng(seed)
    train, last_series, last_type = _last_prices(train, classes)
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

    samples = np.full((draws, len(test)), np.nan)
    usable = np.zeros(len(test), dtype=bool)
    lasts = _last_rows(last_series, last_type, test, classes)
    for j, (row, last) in enumerate(zip(test.itertuples(index=False), lasts, strict=True)):
        if last is None:
            continue
        years = max((row.date - last["date"]).days / DAYS_PER_YEAR, 1 / 365)
        log_price = (last["log_price"] + drift * years
                     + volatility * np.sqrt(years) * rng.standard_normal(draws))
        samples[:, j] = np.exp(log_price)
        usable[j] = True
    return samples, usable


def later_prices(dataset: Dataset, cutoff: pd.Timestamp) -> pd.DataFrame:
    """The rental prices dated after ``cutoff`` (the test rows), held prices collapsed within
    them, re-indexed 0..n-1.

    A price still held after the cut-off is a test row once (its first observation after
    it): a list price that did not move is an outcome to forecast as much as a cut is.
    """
    prices = dataset.rental_prices
    return collapse_held_prices(prices[prices["date"] > cutoff]).reset_index(drop=True)


def price_horizons(test: pd.DataFrame, cutoff: pd.Timestamp) -> np.ndarray:
    """Quarters (of 91.3 days) from ``cutoff`` to each test row's date, rounded up (>= 1)."""
    days = (test["date"] - cutoff).dt.days.to_numpy()
    return np.maximum(np.ceil(days / (DAYS_PER_YEAR / 4)), 1).astype(int)


def _cells(test: pd.DataFrame, cutoff: pd.Timestamp, rows: np.ndarray,
           samples: np.ndarray) -> dict[harness.Cell, np.ndarray]:
    quarters_ahead = price_horizons(test, cutoff)
    return {(int(row), int(quarters_ahead[row])): samples[:, j] for j, row in enumerate(rows)}


@dataclass(frozen=True)
class PriceModelForecast:
    """The price model as a harness forecaster: fit as of the origin, predict later rows.

    Predicts the rows whose chip and pricing type were fitted and that have a price to
    continue before the origin (:func:`has_history`).
    """

    dataset: Dataset
    sampler: dict[str, Any] | None
    draws: int
    seed: int

    def __call__(self, origin: pd.Timestamp) -> harness.OriginForecast:
        """Fit on ``dataset.as_of(origin)`` and sample the later observations."""
        train = self.dataset.as_of(origin)
        fitted = PriceModel(sampler=self.sampler).fit_dataset(train)
        test = later_prices(self.dataset, origin)
        fitted_chips = {str(c) for c in fitted.posterior["chip"].values}
        fitted_types = {"on-demand"} | {str(t) for t in fitted.posterior["offset_type"].values}
        quoted = offset_types(test["pricing_type"], price_class(
            test["pricing_type"].astype(str), test["provider_or_index"], train.provider_classes))
        known = (test["chip"].isin(fitted_chips).to_numpy()
                 & np.isin(quoted, list(fitted_types)))
        history = has_history(train.rental_prices, test, train.provider_classes)
        rows = np.flatnonzero(known & history)
        samples = fitted.predict_observations(test.iloc[rows].reset_index(drop=True),
                                              draws=self.draws, seed=self.seed)
        return harness.OriginForecast(_cells(test, origin, rows, samples),
                                {"n_known": int(known.sum()), **fitted.diagnostics()})


@dataclass(frozen=True)
class RandomWalkForecast:
    """The pooled random walk with drift (:func:`random_walk_samples`) as a forecaster."""

    dataset: Dataset
    draws: int
    seed: int

    def __call__(self, origin: pd.Timestamp) -> harness.OriginForecast:
        """Sample every later observation with a price to continue before ``origin``."""
        test = later_prices(self.dataset, origin)
        samples, usable = random_walk_samples(self.dataset.as_of(origin).rental_prices, test,
                                              self.draws, self.seed,
                                              self.dataset.provider_classes)
        rows = np.flatnonzero(usable)
        return harness.OriginForecast(_cells(test, origin, rows, samples[:, rows]))


@dataclass(frozen=True)
class PriceActuals:
    """The observed price of every later row, by (row, quarters ahead)."""

    dataset: Dataset

    def __call__(self, origin: pd.Timestamp) -> dict[harness.Cell, float]:
        """Cells of every row after ``origin``."""
        test = later_prices(self.dataset, origin)
        prices = test["usd_per_chip_hour"].to_numpy(dtype=float)
        return {(row, int(h)): float(prices[row])
                for row, h in enumerate(price_horizons(test, origin))}


# --------------------------------------------------------------------------- rolling origins

STACK = "stack (bayesian + random walk)"


def price_origins(dataset: Dataset, origins: int) -> list[pd.Timestamp]:
    """The ``origins`` last calendar quarter ends before the last rental price, oldest first;
    each with a price on or before it to fit and one after it to score.

    Raises
    ------
    ForecastError
        When the prices give fewer cut-offs than ``origins`` (checked before any list).
    """
    if origins <= 0:
        raise ForecastError(f"origins must be > 0, got {origins}")
    dates = collapse_held_prices(dataset.rental_prices)["date"]
    first, last = dates.min().to_period("Q"), dates.max().to_period("Q") - 1
    available = max(0, (last - first).n + 1)
    if origins > available:
        raise ForecastError(f"--origins {origins}: the rental prices ({first} to {last + 1}) "
                            f"give {available} quarter-end cut-offs with a price on or before "
                            f"each and one after it; ask for at most {available}")
    end = last.end_time.normalize()
    return [(end.to_period("Q") - k).end_time.normalize() for k in range(origins)][::-1]


def check_backtest(dataset: Dataset, origins: int, quarters: int) -> int:
    """Refuse more ``origins`` than the prices give (:func:`price_origins`), before any fit.

    Returns
    -------
    int
        Values one origin's forecasts hold per path at most: a rental price of the data for
        the model, the random walk and their stack.
    """
    price_origins(dataset, origins)
    return 3 * len(dataset.rental_prices)


def known_at(dataset: Dataset) -> harness.KnownAt:
    """Of an earlier origin's cells (rows of its later prices), the prices dated on or before
    a later origin: what the stack's weight at that origin learns from."""
    later = functools.cache(lambda origin: later_prices(dataset, origin))

    def known(origin: Any, earlier: Any, cells: Sequence[harness.Cell]) -> dict[int, float]:
        test = later(earlier)
        rows = np.array([int(cell[0]) for cell in cells], dtype=int)
        prices = test["usd_per_chip_hour"].to_numpy(float)[rows]
        dated = test["date"].to_numpy()[rows] <= np.datetime64(origin)
        return {j: float(prices[j]) for j in np.flatnonzero(dated)}

    return known


def scored_price_class(scored: pd.DataFrame, dataset: Dataset) -> np.ndarray:
    """"list" or "market" for each scored row (its observation's :func:`price_class`)."""
    classes = np.empty(len(scored), dtype=object)
    for origin, where in scored.groupby("origin").indices.items():
        test = later_prices(dataset, pd.Timestamp(origin))
        of_test = price_class(test["pricing_type"].astype(str), test["provider_or_index"],
                              dataset.provider_classes)
        classes[where] = of_test[scored["key"].to_numpy()[where].astype(int)]
    return classes


def _class_reports(scored: pd.DataFrame, dataset: Dataset) -> dict[str, Any]:
    """The harness summary of the list prices and of the market prices apart."""
    classes = scored_price_class(scored, dataset)
    return {label: harness.summarize_scores(scored[classes == label])
            for label in ("list", "market") if (classes == label).any()}


def _summary_table(scored: pd.DataFrame, dataset: Dataset) -> pd.DataFrame:
    """Per model and price class (all, list, market), pooled (quarters ahead "all") and
    per quarter ahead: n, log CRPS, CRPS, coverage, mean PIT."""
    classes = scored_price_class(scored, dataset)
    rows = []
    for prices, subset in [("all", scored)] + [(c, scored[classes == c])
                                               for c in ("list", "market")]:
        for name in pd.unique(subset["forecaster"]):
            mine = subset[subset["forecaster"] == name]
            groups = [("all", mine)] + [(str(h), g) for h, g in mine.groupby("quarters_ahead")]
            for quarters, group in groups:
                rows.append({"model": name, "prices": prices, "quarters_ahead": quarters,
                             "n": len(group), "crps_log": group["log_crps"].mean(),
                             "crps": group["crps"].mean(),
                             "coverage_80": group["in_80"].mean(),
                             "coverage_95": group["in_95"].mean(),
                             "mean_pit": group["pit"].mean()})
    return pd.DataFrame(rows)


def backtest_price_cli(dataset: Dataset, *, origins: int, quarters: int, draws: int,
                       seed: int = 0, map_fn: harness.MapFn = map,
                       sampler: dict[str, Any] | None = None
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rolling-origin backtest of the price model, the per-provider random walk and their
    out-of-sample stack (``python cli.py backtest price``).

    Parameters
    ----------
    dataset
        The full dataset.
    origins, quarters
        Number of quarter-end cut-offs (:func:`price_origins`) and quarters ahead scored.
    draws, seed
        Samples per observation and the seed of every forecaster.
    map_fn
        Runs the harness tasks (one fit per origin and forecaster).
    sampler
        Overrides of the price model's sampler (default: its own, :data:`PRICE_SAMPLER`).

    Returns
    -------
    (tidy, summary)
        ``tidy``: the harness's scored frame (one row per model, origin and observation), with
        ``attrs["report"]`` (:func:`~forecast.evaluation.harness.summarize_scores`, with
        the same for list and market prices apart under ``by_price_class``),
        ``attrs["weights"]`` (the stack's weight of the model per origin) and
        ``attrs["fits"]`` (the model's diagnostics per origin); ``summary``: n, log CRPS,
        CRPS, coverage and mean PIT per model, price class and quarter ahead.
    """
    if quarters <= 0 or draws <= 0:
        raise ForecastError("quarters and draws must be > 0")
    cuts = price_origins(dataset, origins)
    forecasters = {BAYES: PriceModelForecast(dataset, sampler, draws, seed),
                   RANDOM_WALK: RandomWalkForecast(dataset, draws, seed)}
    results = list(map_fn(harness.run_task, harness.make_tasks(forecasters, cuts)))
    stacked, weights = harness.stack_results(results, BAYES, RANDOM_WALK, cuts,
                                             known_at(dataset), seed, STACK)
    truth = {cut: dict(PriceActuals(dataset)(cut)) for cut in cuts}
    scored = harness.score_results(results + stacked, truth, range(1, quarters + 1),
                                   common_cells=True)
    scored.attrs["report"] = {**harness.summarize_scores(scored),
                              "by_price_class": _class_reports(scored, dataset)}
    scored.attrs["weights"] = weights
    scored.attrs["fits"] = {harness.origin_label(r.origin): r.info for r in results
                            if r.forecaster == BAYES and r.error is None}
    return scored, _summary_table(scored, dataset)


def main(argv: list[str] | None = None) -> None:
    """``python -m forecast.evaluation.price_backtest [--origins 6] [--quarters 4]
    [--draws 1000] [--json] [--misses]``: the rolling backtest's summary table (or the
    harness's JSON), the stack's weights and the model's gate per origin, and with
    ``--misses`` every observation outside the model's 80% interval."""
    import argparse
    import json

    from forecast.data.dataset import load_dataset

    parser = argparse.ArgumentParser(prog="python -m forecast.evaluation.price_backtest")
    parser.add_argument("--origins", type=int, default=6)
    parser.add_argument("--quarters", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true",
                        help="also list the observations outside the model's 80%% interval")
    args = parser.parse_args(argv)
    from forecast.evaluation.price_misses import missed_observations

    dataset = load_dataset()
    tidy, summary = backtest_price_cli(dataset, origins=args.origins,
                                       quarters=args.quarters, draws=args.draws)
    if args.json:
        print(json.dumps(tidy.attrs["report"], indent=2))
        return
    print(summary.round(3).to_string(index=False))
    print("stack weight of the model by origin:", tidy.attrs["weights"])
    gates = {origin: {key: info[key] for key in ("max_r_hat", "min_ess_bulk", "divergences")}
             for origin, info in tidy.attrs["fits"].items()}
    print("model gate by origin:", json.dumps(gates))
    if args.misses:
        misses = missed_observations(tidy, dataset)
        print(f"\n{len(misses)} observations outside the model's 80% interval:")
        print(misses.round({"median": 2, "pit": 3}).to_string(index=False))


if __name__ == "__main__":
    main()
