"""Rolling-origin backtest of the spend model's reported series: refit at each cut-off,
forecast 1..H quarters.

A *forecaster* here is any callable ``(dataset_as_of, series_names, quarters, draws, seed) ->
{series: ndarray (draws, quarters)}`` returning sample paths of each series' next ``quarters``
fiscal quarters after its last observation in ``dataset_as_of``. Adapters make one from the
Bayesian spend model (:class:`SpendForecaster`, refitted on ``dataset.as_of(cutoff)``) and
from any baseline of :mod:`forecast.evaluation.baselines` (:class:`BaselineForecaster`).

Each (forecaster, cut-off) fit is one task of the shared harness
(:mod:`forecast.evaluation.harness`). :func:`series_scores` gives its tidy frame,
:func:`rolling_origin` the long form (model, series, cutoff, quarters_ahead, metric, value),
:func:`summarize` its means per model and metric; :func:`backtest_spend` is the CLI entry
point (``python cli.py backtest spend``).

Metrics of the long form (see :func:`forecast.evaluation.harness.score_cells`): ``crps``
(USD bn), ``crps_log`` (on log revenue: comparable across scales), ``pinball`` (mean over the
10%, 50% and 90% quantiles) and ``pinball_qXXX``, ``coverage_80`` / ``coverage_95`` (share of
outcomes inside the central interval), ``interval_score_80`` / ``interval_score_95`` and
``pit``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import next_fiscal_labels
from forecast.core.errors import ForecastError
from forecast.evaluation import harness, scoring
from forecast.evaluation.baselines import BASELINES
from forecast.evaluation.spend_forecasters import (
    HELD_PATHS,
    UNBOUNDED_PATHS,
    BaselineForecaster,
    SpendForecaster,
    shared_fits,
)
from forecast.models.spend.evidence import SERIES, observed_series

Forecaster = Callable[[Any, Sequence[str], int, int, int], dict[str, np.ndarray]]

#: Every observed series with history: the backtest scores each (DESIGN section 6).
BACKTEST_SERIES: tuple[str, ...] = ("nvidia_data_center", "amd_data_center", "broadcom_ai")
#: Name of the Bayesian model's forecaster and of the out-of-sample stack.
BAYES = "spend_model"
#: The same fits forecast without M6's bound (scored beside the model, never stacked).
UNBOUNDED = "spend_model (unbounded)"
#: The same fits with the rivals' positions held (the baseline of the forecast's stack).
HELD = "spend_model (held positions)"
#: The twins a model's result carries in its info, as results of their own.
TWINS = {UNBOUNDED_PATHS: UNBOUNDED, HELD_PATHS: HELD}
STACK = "stack (spend_model + rw_drift)"
#: The naive baseline the stack mixes in.
STACK_BASELINE = "rw_drift"

#: Long-form metric name of each harness score column.
METRICS: dict[str, str] = {
    "crps": "crps", "log_crps": "crps_log", "pinball": "pinball",
    **{harness.pinball_column(q): f"pinball_q{q * 100:05.1f}" for q in harness.PINBALL_LEVELS},
    "in_80": "coverage_80", "in_95": "coverage_95",
    "interval_score_80": "interval_score_80", "interval_score_95": "interval_score_95",
    "pit": "pit",
}


@dataclass(frozen=True)
class CutoffForecast:
    """A forecaster as a harness task body: ``(cutoff) -> Forecast`` on ``dataset.as_of``."""

    dataset: Any
    forecaster: Forecaster
    series: tuple[str, ...]
    quarters: int
    draws: int
    seed: int

    def __call__(self, cutoff: pd.Timestamp) -> harness.OriginForecast:
        """Fit as of ``cutoff``; cells (series, h) for h = 1..quarters."""
        paths = self.forecaster(self.dataset.as_of(cutoff), self.series, self.quarters,
                                self.draws, self.seed)
        info = dict(getattr(paths, "info", {}))
        for twin in TWINS:
            if twin in info:
                info[twin] = self._cells(info[twin])
        return harness.OriginForecast(self._cells(paths), info)

    def _cells(self, paths: Mapping[str, np.ndarray]) -> dict[harness.Cell, np.ndarray]:
        return {(name, h): np.asarray(sample, dtype=float)[:, h - 1]
                for name, sample in paths.items() for h in range(1, self.quarters + 1)}


@dataclass(frozen=True)
class SeriesActuals:
    """The outcomes after a cut-off: each series' next ``quarters`` fiscal quarters."""

    dataset: Any
    series: tuple[str, ...]
    quarters: int

    def labels(self, cutoff: pd.Timestamp) -> dict[harness.Cell, str]:
        """Fiscal period of each cell: the h-th quarter after the series' last one as of
        ``cutoff`` (series with no history then have none)."""
        cut = self.dataset.as_of(cutoff)
        out: dict[harness.Cell, str] = {}
        for name in self.series:
            history = observed_series(cut, name)
            if history.empty:
                continue
            last = str(history["fiscal_period"].iloc[-1])
            for h, label in enumerate(next_fiscal_labels(last, self.quarters), start=1):
                out[(name, h)] = label
        return out

    def __call__(self, cutoff: pd.Timestamp) -> dict[harness.Cell, float]:
        """Reported value of every cell whose quarter has been reported."""
        truth = {name: observed_series(self.dataset, name).set_index("fiscal_period")["value"]
                 for name in self.series}
        return {cell: float(truth[cell[0]][label])
                for cell, label in self.labels(cutoff).items() if label in truth[cell[0]].index}


def all_cutoffs(dataset: Any, series: str, quarters: int) -> list[pd.Timestamp]:
    """Every report date of ``series`` that leaves ``quarters`` quarters after it.

    Each cut-off is the day one of the series' quarters was reported (its ``published_date``,
    the earnings release): ``dataset.as_of`` cuts revenue on publication, so the fit "as of"
    it holds that quarter and everything reported before it.
    """
    if series not in SERIES:
        raise ForecastError(f"unknown series {series!r} (known: {', '.join(SERIES)})")
    company, segment = SERIES[series]
    published = dataset.revenue_series(company, segment).set_index("fiscal_period")[
        "published_date"]
    dates = [published[label] for label in observed_series(dataset, series)["fiscal_period"]]
    return [pd.Timestamp(d) for d in dates[:max(len(dates) - quarters, 0)]]


def cutoffs_for(dataset: Any, series: str, origins: int, quarters: int) -> list[pd.Timestamp]:
    """The last ``origins`` cut-offs of :func:`all_cutoffs`.

    Raises
    ------
    ForecastError
        For fewer than one origin, or more than the series gives.
    """
    usable = all_cutoffs(dataset, series, quarters)
    if origins < 1 or len(usable) < origins:
        count = len(observed_series(dataset, series))
        raise ForecastError(f"--origins {origins}: {series} has {count} observations, "
                            f"which give {len(usable)} origins with --quarters {quarters}; ask "
                            f"for at most {len(usable)}" + (" and at least 1" if origins < 1
                                                             else ""))
    return usable[len(usable) - origins:]


def score_paths(paths: np.ndarray, actual: np.ndarray,
                quantiles: Sequence[float] = scoring.DEFAULT_QUANTILES) -> dict[str, np.ndarray]:
    """Every backtest metric per quarter ahead for paths (draws, H) against actuals (H,).

    The harness's scores (:func:`forecast.evaluation.harness.score_cells`) under their
    long-form names, with the pinball loss at ``quantiles``.
    """
    cells = harness.score_cells(paths, actual, quantiles=quantiles)
    metrics = {METRICS.get(name, name): values for name, values in cells.items()
               if name in harness.SCORE_COLUMNS and not name.startswith("pinball_")}
    for q in quantiles:
        metrics[f"pinball_q{q * 100:05.1f}"] = cells[harness.pinball_column(q)]
    return metrics


def series_scores(dataset: Any, forecasters: Mapping[str, Forecaster],
                  series: Sequence[str] = ("nvidia_data_center",), origins: int = 6,
                  quarters: int = 4, draws: int = 1000, seed: int = 0,
                  cutoffs: Sequence[pd.Timestamp] | None = None,
                  progress: Callable[[str], None] | None = None, *,
                  map_fn: harness.MapFn = map) -> pd.DataFrame:
    """The harness's tidy scores of several forecasters on observed series.

    Parameters as :func:`rolling_origin`, plus ``map_fn`` (see
    :func:`forecast.evaluation.harness.run_backtest`).

    Returns
    -------
    pandas.DataFrame
        :data:`forecast.evaluation.harness.FRAME_COLUMNS` (``key`` is the series, ``origin``
        the cut-off) plus ``fiscal_period``; ``attrs["failures"]`` and ``attrs["info"]`` as
        in :func:`forecast.evaluation.harness.score_results`.
    """
    cutoffs = list(cutoffs) if cutoffs is not None else cutoffs_for(
        dataset, series[0], origins, quarters)
    names = tuple(series)
    tasks = {name: CutoffForecast(dataset, forecaster, names, quarters, draws, seed)
             for name, forecaster in forecasters.items()}
    actuals = SeriesActuals(dataset, names, quarters)

    def report(result: harness.TaskResult) -> None:
        if progress is not None and result.error is None:
            progress(f"{result.forecaster} as of {harness.origin_label(result.origin)}: "
                     f"{result.seconds:.1f}s")

    scored = harness.run_backtest(tasks, cutoffs, actuals, range(1, quarters + 1),
                                  map_fn=map_fn, progress=report)
    labels = {cutoff: actuals.labels(cutoff) for cutoff in cutoffs}
    scored.insert(4, "fiscal_period", [
        labels[o][(k, h)] for k, o, h in zip(scored["key"], scored["origin"],
                                             scored["quarters_ahead"], strict=True)])
    return scored


def long_scores(scored: pd.DataFrame) -> pd.DataFrame:
    """The long form of :func:`series_scores`: one row per cell and metric (see
    :data:`METRICS`), columns model, series, cutoff, quarters_ahead, fiscal_period, actual, metric,
    value."""
    ids = {"model": scored["forecaster"], "series": scored["key"], "cutoff": scored["origin"],
           "quarters_ahead": scored["quarters_ahead"], "fiscal_period": scored["fiscal_period"],
           "actual": scored["actual"]}
    n, k = len(scored), len(METRICS)
    frame = pd.DataFrame({name: np.repeat(column.to_numpy(), k) for name, column in ids.items()})
    frame["metric"] = np.tile(list(METRICS.values()), n)
    frame["value"] = scored[list(METRICS)].to_numpy(dtype=float).reshape(-1)
    if n:
        frame["cutoff"] = pd.to_datetime(frame["cutoff"])
        frame["quarters_ahead"] = frame["quarters_ahead"].astype(int)
        frame["actual"] = frame["actual"].astype(float)
    return frame


def rolling_origin(dataset: Any, forecasters: Mapping[str, Forecaster],
                   series: Sequence[str] = ("nvidia_data_center",), origins: int = 6,
                   quarters: int = 4, draws: int = 1000, seed: int = 0,
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
    origins, quarters
        Number of cut-offs and quarters ahead (1..quarters).
    draws, seed
        Paths per forecast and the seed (the same for every model and origin).
    cutoffs
        Explicit cut-off dates instead of the last ``origins`` of ``series[0]``.
    progress
        Called with a line of text after each fit.

    Returns
    -------
    pandas.DataFrame
        Tidy: model, series, cutoff, quarters_ahead, fiscal_period, actual, metric, value. A model
        that fails at an origin is skipped there (its error is in ``attrs["failures"]``).
    """
    scored = series_scores(dataset, forecasters, series, origins, quarters, draws, seed,
                           cutoffs, progress)
    tidy = long_scores(scored)
    tidy.attrs["failures"] = scored.attrs["failures"]
    tidy.attrs["info"] = scored.attrs["info"]
    return tidy


def summarize(tidy: pd.DataFrame,
              metrics: Sequence[str] = ("crps", "crps_log", "pinball", "coverage_80",
                                        "coverage_95", "interval_score_80",
                                        "interval_score_95")) -> pd.DataFrame:
    """Mean of each metric per series and model, over all quarters ahead
    (``quarters_ahead="all"``) and per quarter ahead; one row per (series, model,
    quarters_ahead), metrics as columns, plus ``n``."""
    data = tidy[tidy["metric"].isin(metrics)]
    if data.empty:
        return pd.DataFrame(columns=["series", "model", "quarters_ahead", "n", *metrics])
    overall = data.assign(quarters_ahead="all")
    both = pd.concat([overall, data.assign(quarters_ahead=data["quarters_ahead"].astype(str))])
    table = both.pivot_table(index=["series", "model", "quarters_ahead"], columns="metric",
                             values="value", aggfunc="mean")
    keys = ["series", "model", "quarters_ahead"]
    counts = both[both["metric"] == metrics[0]].groupby(keys).size()
    table["n"] = counts
    table = table.reset_index()
    ordered = [m for m in metrics if m in table.columns]
    # "all" first, then quarters_ahead in numeric order.
    table["_order"] = [0 if h == "all" else int(h) for h in table["quarters_ahead"]]
    table = table.sort_values(["series", "_order", "model"]).drop(columns="_order")
    return table[["series", "model", "quarters_ahead", "n", *ordered]].reset_index(drop=True)


def known_at(actuals: SeriesActuals) -> harness.KnownAt:
    """Of an earlier cut-off's cells, those whose fiscal quarter was reported by a later
    cut-off, with the reported value (the stack's weights learn from these alone)."""
    reported = functools.cache(lambda cutoff: _reported(actuals, cutoff))
    labels = functools.cache(actuals.labels)

    def known(origin: Any, earlier: Any, cells: Sequence[harness.Cell]) -> dict[int, float]:
        got, label = reported(origin), labels(earlier)
        return {j: got[(cell[0], label[cell])] for j, cell in enumerate(cells)
                if (cell[0], label.get(cell)) in got}

    return known


def _reported(actuals: SeriesActuals, cutoff: pd.Timestamp) -> dict[tuple[str, str], float]:
    """(series, fiscal period) -> value of every quarter reported by ``cutoff``."""
    cut = actuals.dataset.as_of(cutoff)
    out: dict[tuple[str, str], float] = {}
    for name in actuals.series:
        rows = observed_series(cut, name)
        out.update({(name, str(fp)): float(v)
                    for fp, v in zip(rows["fiscal_period"], rows["value"], strict=True)})
    return out


def _score(results: Sequence[harness.TaskResult], actuals: SeriesActuals,
           cutoffs: Sequence[pd.Timestamp], quarters: int) -> pd.DataFrame:
    """The harness's scores with the fiscal period of each cell. The model, the random walk
    and the stack are scored on the cells all three forecast (a fair comparison); ETS and
    UC, which need longer histories, on their own cells."""
    truth = {cutoff: dict(actuals(cutoff)) for cutoff in cutoffs}
    paired = {BAYES, UNBOUNDED, HELD, STACK_BASELINE, STACK}
    parts = [harness.score_results([r for r in results if r.forecaster in paired], truth,
                                   range(1, quarters + 1), common_cells=True),
             harness.score_results([r for r in results if r.forecaster not in paired],
                                   truth, range(1, quarters + 1))]
    scored = pd.concat(parts, ignore_index=True)
    scored.attrs["failures"] = parts[0].attrs["failures"] + parts[1].attrs["failures"]
    scored.attrs["info"] = parts[0].attrs["info"] + parts[1].attrs["info"]
    labels = {cutoff: actuals.labels(cutoff) for cutoff in cutoffs}
    scored.insert(4, "fiscal_period", [
        labels[o][(k, h)] for k, o, h in zip(scored["key"], scored["origin"],
                                             scored["quarters_ahead"], strict=True)])
    return scored


def check_backtest(dataset: Any, origins: int, quarters: int) -> int:
    """Refuse more ``origins`` than the anchor series gives (:func:`cutoffs_for`), before
    any fit.

    Returns
    -------
    int
        Values one origin's forecasts hold per path: each backtest series for ``quarters``
        quarters, for the model, each baseline and their stack.
    """
    cutoffs_for(dataset, BACKTEST_SERIES[0], origins, quarters)
    return len(BACKTEST_SERIES) * quarters * (len(BASELINES) + 2)


def backtest_spend(dataset: Any, origins: int = 6, quarters: int = 4, draws: int = 1000,
                    series: Sequence[str] = BACKTEST_SERIES, seed: int = 0,
                    sampler: Mapping[str, Any] | None = None,
                    include_bayes: bool = True,
                    progress: Callable[[str], None] | None = None, *,
                    map_fn: harness.MapFn = map
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Backtest the spend model's reported series against random walk with drift, ETS and UC,
    and their out-of-sample stack (:func:`stack_scores`).

    For ``python cli.py backtest spend [--origins N] [--quarters H]``: returns ``(tidy,
    summary)``, the long form of :func:`rolling_origin` and :func:`summarize`. The model
    fits at its default sampler (``sampler`` overrides it); the per-origin fit diagnostics
    are in ``tidy.attrs["fits"]``, the stack's weight of the model per origin in
    ``tidy.attrs["weights"]`` and the JSON-shaped summary of
    :func:`forecast.evaluation.harness.summarize_scores` in ``tidy.attrs["report"]``.
    """
    forecasters: dict[str, Forecaster] = {}
    if include_bayes:
        forecasters[BAYES] = SpendForecaster(unbounded_twin=True, held_twin=True,
                                             **dict(sampler or {}))
    for name, baseline in BASELINES.items():
        forecasters[name] = BaselineForecaster(baseline())
    cutoffs = cutoffs_for(dataset, series[0], origins, quarters)
    names = tuple(series)
    tasks = {name: CutoffForecast(dataset, forecaster, names, quarters, draws, seed)
             for name, forecaster in forecasters.items()}
    actuals = SeriesActuals(dataset, names, quarters)
    results = []
    with shared_fits():
        for result in map_fn(harness.run_task, harness.make_tasks(tasks, cutoffs)):
            if progress is not None and result.error is None:
                progress(f"{result.forecaster} as of {harness.origin_label(result.origin)}: "
                         f"{result.seconds:.1f}s")
            results += [result, *harness.twin_results(result, TWINS)]
    weights: dict[str, float] = {}
    if include_bayes:
        stacked, weights = harness.stack_results(results, BAYES, STACK_BASELINE, cutoffs,
                                                 known_at(actuals), seed, STACK)
        results += stacked
    scored = _score(results, actuals, cutoffs, quarters)
    tidy = long_scores(scored)
    tidy.attrs["failures"] = scored.attrs.get("failures", [])
    tidy.attrs["fits"] = [entry["info"] for entry in scored.attrs.get("info", [])
                          if entry["forecaster"] == BAYES and entry["info"]]
    tidy.attrs["weights"] = weights
    tidy.attrs["report"] = {**harness.summarize_scores(scored), "by_cutoff": by_cutoff(scored)}
    return tidy, summarize(tidy)


def by_cutoff(scored: pd.DataFrame) -> list[dict[str, Any]]:
    """Each forecaster's mean log CRPS and 80% coverage per series and cut-off, over every
    quarter ahead (JSON-ready rows: series, cutoff, model, n, crps_log, coverage_80): where
    in time a model wins or loses, which the pooled means hide with five cut-offs."""
    rows = []
    for (series, origin, model), cells in scored.groupby(["key", "origin", "forecaster"],
                                                         sort=True):
        rows.append({"series": str(series), "cutoff": str(pd.Timestamp(origin).date()),
                     "model": str(model), "n": len(cells),
                     "crps_log": float(cells["log_crps"].mean()),
                     "coverage_80": float(cells["in_80"].mean())})
    return rows
