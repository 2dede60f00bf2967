"""Rolling-origin backtests: refit at each cut-off, forecast 1..H quarters, score.

A *forecaster* is any callable ``(dataset_as_of, series_names, horizon, draws, seed) ->
{series: ndarray (draws, horizon)}`` returning sample paths of each series' next ``horizon``
fiscal quarters after its last observation in ``dataset_as_of``. Adapters make one from the
Bayesian market model (:class:`MarketForecaster`, refitted on ``dataset.as_of(cutoff)``) and
from any baseline of :mod:`forecast.evaluation.baselines` (:class:`BaselineForecaster`).

:func:`rolling_origin` runs them over cut-offs and returns a tidy frame (model, series,
cutoff, horizon, metric, value); :func:`summarize` averages it per model and metric, over all
horizons and per horizon. :func:`backtest_market` is the CLI entry point
(``python cli.py backtest market``).

Scores (see :mod:`forecast.evaluation.scoring`): ``crps`` (USD bn), ``crps_log`` (on log revenue:
comparable across scales), ``pinball`` (mean over the quantile levels) and ``pinball_qXXX``,
``coverage_80`` / ``coverage_95`` (share of outcomes inside the central interval) and
``interval_score_80`` / ``interval_score_95``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import next_fiscal_labels
from forecast.core.errors import ForecastError
from forecast.evaluation import scoring
from forecast.evaluation.baselines import BASELINES
from forecast.models.market import MarketModel, observed_series

Forecaster = Callable[[Any, Sequence[str], int, int, int], dict[str, np.ndarray]]

#: Backtest sampler settings of the Bayesian model: fewer draws than a publication fit
#: (scores need a few hundred paths, not ESS 400 on every parameter).
BACKTEST_SAMPLER: dict[str, Any] = {"draws": 500, "tune": 500, "chains": 2}


class BaselineForecaster:
    """Adapter: fit a baseline on each series' history (as of the cut-off) and simulate."""

    def __init__(self, baseline: Any):
        self.baseline = baseline

    def __call__(self, dataset: Any, series: Sequence[str], horizon: int, draws: int,
                 seed: int) -> dict[str, np.ndarray]:
        paths = {}
        for name in series:
            history = observed_series(dataset, name)
            try:
                fitted = self.baseline.fit(history["value"].to_numpy())
            except ForecastError:
                continue  # too short a history at this origin: not scored there
            paths[name] = fitted.forecast(horizon, draws=draws, seed=seed)
        return paths


class MarketForecaster:
    """Adapter: fit the market model on the cut data, forecast each observed series."""

    def __init__(self, model: MarketModel | None = None, **sampler: Any):
        self.model = model or MarketModel()
        self.sampler = {**BACKTEST_SAMPLER, **sampler}
        self.fits: list[dict[str, Any]] = []

    def __call__(self, dataset: Any, series: Sequence[str], horizon: int, draws: int,
                 seed: int) -> dict[str, np.ndarray]:
        fitted = self.model.fit(dataset, random_seed=seed, **self.sampler)
        self.fits.append({"as_of": str(dataset.as_of_date), **fitted.diagnostics(),
                          "fit_seconds": fitted.meta.get("fit_seconds")})
        return {name: fitted.series_paths(name, horizon, draws=draws, seed=seed)[1]
                for name in series if name in fitted.series_names()}


def cutoffs_for(dataset: Any, series: str, origins: int, horizon: int) -> list[pd.Timestamp]:
    """The last ``origins`` observation dates of ``series`` that leave ``horizon`` quarters.

    Each cut-off is the end of one of the series' fiscal quarters, so the fit "as of" it
    holds that quarter and everything reported before it.
    """
    dates = list(observed_series(dataset, series)["calendar_quarter_end"])
    usable = dates[: len(dates) - horizon]
    if len(usable) < origins:
        raise ForecastError(f"{series}: {len(dates)} observations cannot give {origins} "
                            f"origins with horizon {horizon}")
    return [pd.Timestamp(d) for d in usable[-origins:]]


def score_paths(paths: np.ndarray, actual: np.ndarray,
                quantiles: Sequence[float] = scoring.DEFAULT_QUANTILES) -> dict[str, np.ndarray]:
    """Every backtest metric per horizon for paths (draws, H) against actuals (H,)."""
    pinball = scoring.pinball_loss(paths, actual, quantiles)
    metrics = {
        "crps": scoring.crps_samples(paths, actual),
        "crps_log": scoring.crps_samples(np.log(paths), np.log(actual)),
        "pinball": pinball.mean(axis=0),
        "coverage_80": scoring.coverage(paths, actual, 0.8),
        "coverage_95": scoring.coverage(paths, actual, 0.95),
        "interval_score_80": scoring.interval_score(paths, actual, 0.8),
        "interval_score_95": scoring.interval_score(paths, actual, 0.95),
    }
    for q, values in zip(quantiles, pinball, strict=True):
        metrics[f"pinball_q{q * 100:05.1f}"] = values
    return metrics


def rolling_origin(dataset: Any, forecasters: Mapping[str, Forecaster],
                   series: Sequence[str] = ("nvidia_data_center",), origins: int = 6,
                   horizon: int = 4, draws: int = 1000, seed: int = 0,
                   cutoffs: Sequence[pd.Timestamp] | None = None,
                   progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Rolling-origin evaluation of several forecasters on several observed series.

    Parameters
    ----------
    dataset
        The full :class:`~forecast.data.dataset.Dataset`; each origin uses
        ``dataset.as_of(cutoff)``.
    forecasters
        Model name -> forecaster (see module docstring).
    series
        Observed series to score; cut-offs come from the first unless given.
    origins, horizon
        Number of cut-offs and quarters ahead (1..horizon).
    draws, seed
        Paths per forecast and the seed (the same for every model and origin).
    cutoffs
        Explicit cut-off dates instead of the last ``origins`` of ``series[0]``.
    progress
        Called with a line of text after each fit.

    Returns
    -------
    pandas.DataFrame
        Tidy: model, series, cutoff, horizon, fiscal_period, actual, metric, value. A model
        that fails at an origin is skipped there (its error is in ``attrs["failures"]``).
    """
    cutoffs = list(cutoffs) if cutoffs is not None else cutoffs_for(
        dataset, series[0], origins, horizon)
    full = {name: observed_series(dataset, name) for name in series}
    records: list[dict[str, Any]] = []
    failures: list[str] = []
    for cutoff in cutoffs:
        cut = dataset.as_of(cutoff)
        for model_name, forecaster in forecasters.items():
            start = time.perf_counter()
            try:
                paths = forecaster(cut, series, horizon, draws, seed)
            except Exception as exc:  # noqa: BLE001 - one model failing must not stop the rest
                failures.append(f"{model_name} @ {cutoff.date()}: {exc}")
                continue
            if progress:
                progress(f"{model_name} as of {cutoff.date()}: "
                         f"{time.perf_counter() - start:.1f}s")
            for name, sample in paths.items():
                history = observed_series(cut, name)
                if history.empty:
                    continue
                labels = next_fiscal_labels(str(history["fiscal_period"].iloc[-1]), horizon)
                truth = full[name].set_index("fiscal_period")["value"]
                for h, label in enumerate(labels, start=1):
                    if label not in truth.index:
                        continue
                    actual = np.array([truth[label]])
                    metrics = score_paths(sample[:, h - 1:h], actual)
                    for metric, value in metrics.items():
                        records.append({"model": model_name, "series": name,
                                        "cutoff": cutoff, "horizon": h,
                                        "fiscal_period": label, "actual": float(actual[0]),
                                        "metric": metric, "value": float(value[0])})
    tidy = pd.DataFrame.from_records(records, columns=[
        "model", "series", "cutoff", "horizon", "fiscal_period", "actual", "metric", "value"])
    tidy.attrs["failures"] = failures
    return tidy


def summarize(tidy: pd.DataFrame,
              metrics: Sequence[str] = ("crps", "crps_log", "pinball", "coverage_80",
                                        "coverage_95", "interval_score_80",
                                        "interval_score_95")) -> pd.DataFrame:
    """Mean of each metric per series and model, over all horizons (``horizon="all"``) and
    per horizon; one row per (series, model, horizon), metrics as columns, plus ``n``."""
    data = tidy[tidy["metric"].isin(metrics)]
    if data.empty:
        return pd.DataFrame(columns=["series", "model", "horizon", "n", *metrics])
    overall = data.assign(horizon="all")
    both = pd.concat([overall, data.assign(horizon=data["horizon"].astype(str))])
    table = both.pivot_table(index=["series", "model", "horizon"], columns="metric",
                             values="value", aggfunc="mean")
    counts = both[both["metric"] == metrics[0]].groupby(["series", "model", "horizon"]).size()
    table["n"] = counts
    table = table.reset_index()
    ordered = [m for m in metrics if m in table.columns]
    # "all" first, then horizons in numeric order.
    table["_order"] = [0 if h == "all" else int(h) for h in table["horizon"]]
    table = table.sort_values(["series", "_order", "model"]).drop(columns="_order")
    return table[["series", "model", "horizon", "n", *ordered]].reset_index(drop=True)


def backtest_market(dataset: Any, origins: int = 6, horizon: int = 4, draws: int = 1000,
                    series: Sequence[str] = ("nvidia_data_center",), seed: int = 0,
                    sampler: Mapping[str, Any] | None = None,
                    include_bayes: bool = True,
                    progress: Callable[[str], None] | None = None
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Backtest the market model against random walk with drift, ETS and UC.

    For ``python cli.py backtest market [--origins N] [--horizon H]``: returns ``(tidy,
    summary)`` from :func:`rolling_origin` and :func:`summarize`. ``sampler`` overrides the
    Bayesian model's :data:`BACKTEST_SAMPLER`; the per-origin fit diagnostics are in
    ``tidy.attrs["fits"]``.
    """
    forecasters: dict[str, Forecaster] = {}
    market = MarketForecaster(**dict(sampler or {}))
    if include_bayes:
        forecasters["bayes_market"] = market
    for name, baseline in BASELINES.items():
        forecasters[name] = BaselineForecaster(baseline())
    tidy = rolling_origin(dataset, forecasters, series=series, origins=origins,
                          horizon=horizon, draws=draws, seed=seed, progress=progress)
    tidy.attrs["fits"] = market.fits
    return tidy, summarize(tidy)
