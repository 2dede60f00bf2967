"""One rolling-origin backtest harness for every model (market, price, share, baselines).

Vocabulary
----------
origin
    A cut-off: a date, a quarter label, anything hashable. A forecaster sees only what was
    known at the origin.
cell
    ``(key, quarters_ahead)``: one forecast target. ``key`` names the series (a revenue
    series, a vendor, an observed price row), ``quarters_ahead`` the number of quarters
    after the origin (1, 2, ...).
forecaster
    ``fit_forecast(origin) -> OriginForecast`` (or a plain mapping ``cell -> samples``): fit on the
    data as of the origin and return samples ``(draws,)`` of every cell it can forecast. The
    Bayesian models and every baseline are forecasters.
actuals
    ``actuals(origin) -> {cell: value}``: the realised values after the origin.

Pipeline
--------
:func:`make_tasks` builds one :class:`Task` per (forecaster, origin). Each task is an
independent, pure job (it holds its forecaster and origin and nothing else), so
:func:`run_backtest` runs them with a pluggable ``map_fn`` (the builtin serial ``map`` by
default; e.g. a Dask client's ``lambda f, xs: client.gather(client.map(f, xs))``) and the
results are the same whatever runs them. :func:`score_results` then scores every forecast
cell that has an actual with the shared definitions of :func:`score_cells` (CRPS, log CRPS,
pinball at 10/50/90, 80% and 95% coverage, interval scores, PIT) into one tidy frame, and
:func:`summarize_scores` reduces it to the JSON shape of ``cli.py backtest MODEL --format
json``::

    {"models": [{"model": NAME,
                 "pooled": {"n", "crps", "log_crps", "pinball", "coverage_80",
                            "coverage_95", "mean_pit"},
                 "by_quarters_ahead": [{"quarters_ahead", "n", "crps", ...}, ...],
                 "pit_histogram": [10 counts]}]}
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.evaluation import scoring

Cell = tuple[Hashable, int]
Samples = Mapping[Cell, np.ndarray]
MapFn = Callable[[Callable[[Any], Any], Iterable[Any]], Iterable[Any]]

#: Quantile levels of the shared pinball score.
PINBALL_LEVELS: tuple[float, ...] = (0.1, 0.5, 0.9)
#: Interval levels scored for coverage (``in_80``, ``in_95``) and interval score.
INTERVAL_LEVELS: tuple[float, ...] = (0.8, 0.95)
#: Keys of every pooled and per-quarter-ahead summary, in order.
SUMMARY_KEYS: tuple[str, ...] = ("n", "crps", "log_crps", "pinball", "coverage_80",
                                 "coverage_95", "mean_pit")
#: Number of bins of the PIT histogram of each model.
PIT_BINS = 10


def pinball_column(level: float) -> str:
    """Column name of the pinball loss at ``level``: ``pinball_10`` for 0.1."""
    return f"pinball_{level * 100:g}"


#: Score columns of the tidy frame, in order.
SCORE_COLUMNS: tuple[str, ...] = (
    "crps", "log_crps", "pinball", *(pinball_column(q) for q in PINBALL_LEVELS),
    "in_80", "in_95", "interval_score_80", "interval_score_95", "pit",
)
#: Every column of the tidy frame of :func:`score_results`.
FRAME_COLUMNS: tuple[str, ...] = ("forecaster", "key", "origin", "quarters_ahead", "actual",
                                  "median", "mean", "sd", *SCORE_COLUMNS)


@dataclass(frozen=True)
class OriginForecast:
    """What a forecaster returns for one origin: samples per cell, and optional fit info."""

    samples: Samples
    info: Mapping[str, Any] = field(default_factory=dict)


FitForecast = Callable[[Any], OriginForecast | Samples]
Actuals = Callable[[Any], Mapping[Cell, float]]


@dataclass(frozen=True)
class Task:
    """One independent job: fit ``fit_forecast`` at ``origin``.

    ``catch`` records an exception as the task's error instead of raising it.
    """

    forecaster: str
    origin: Any
    fit_forecast: FitForecast
    catch: bool = True


@dataclass(frozen=True)
class TaskResult:
    """The outcome of a :class:`Task`: forecast cells and their samples ``(draws, cells)``."""

    forecaster: str
    origin: Any
    cells: list[Cell]
    samples: np.ndarray
    info: dict[str, Any]
    seconds: float
    error: str | None = None


def task_seed(seed: int, *parts: Any) -> int:
    """A seed for one task, a pure function of ``seed`` and the text of ``parts``.

    Lets a forecaster draw independent random numbers at each origin without sharing a
    generator across tasks (so the tasks can run in any order, anywhere).
    """
    words = [zlib.crc32(str(part).encode()) for part in parts]
    return int(np.random.SeedSequence([int(seed), *words]).generate_state(1)[0])


def paths_to_cells(paths: Mapping[Hashable, np.ndarray],
                   quarters_ahead: Sequence[int] | None = None) -> dict[Cell, np.ndarray]:
    """Cells from sample paths ``{key: (draws, H)}``; column ``j`` is ``quarters_ahead[j]``
    (default 1..H)."""
    cells: dict[Cell, np.ndarray] = {}
    for key, array in paths.items():
        matrix = np.asarray(array, dtype=float)
        steps = (list(quarters_ahead) if quarters_ahead is not None
                 else list(range(1, matrix.shape[1] + 1)))
        for j, ahead in enumerate(steps):
            cells[(key, int(ahead))] = matrix[:, j]
    return cells


def make_tasks(forecasters: Mapping[str, FitForecast], origins: Sequence[Any],
               catch: bool = True) -> list[Task]:
    """One task per (origin, forecaster), origins outermost, in the given orders."""
    return [Task(name, origin, fit, catch) for origin in origins
            for name, fit in forecasters.items()]


def _stack(samples: Samples) -> tuple[list[Cell], np.ndarray]:
    cells = [(key, int(ahead)) for key, ahead in samples]
    if not cells:
        return [], np.empty((0, 0))
    columns = [np.asarray(value, dtype=float).ravel() for value in samples.values()]
    if len({len(column) for column in columns}) != 1:
        raise ForecastError("every cell of one forecast needs the same number of draws")
    matrix = np.column_stack(columns)
    if matrix.shape[0] < 1 or not np.all(np.isfinite(matrix)):
        raise ForecastError("forecast samples must be finite, at least one draw per cell")
    return cells, matrix


def run_task(task: Task) -> TaskResult:
    """Run one task: call its forecaster at its origin and stack the samples (pure)."""
    start = time.perf_counter()
    try:
        output = task.fit_forecast(task.origin)
        forecast = output if isinstance(output, OriginForecast) else OriginForecast(output)
        cells, matrix = _stack(forecast.samples)
    except Exception as exc:  # noqa: BLE001 - one forecaster failing must not stop the rest
        if not task.catch:
            raise
        return TaskResult(task.forecaster, task.origin, [], np.empty((0, 0)), {},
                          time.perf_counter() - start, error=str(exc))
    return TaskResult(task.forecaster, task.origin, cells, matrix, dict(forecast.info),
                      time.perf_counter() - start)


def score_cells(samples: np.ndarray, actual: np.ndarray, log_scores: bool = True,
                quantiles: Sequence[float] = PINBALL_LEVELS) -> dict[str, np.ndarray]:
    """Every shared score of sample columns against their actuals.

    Parameters
    ----------
    samples
        ``(draws, n)``: one column per cell.
    actual
        ``(n,)`` realised values.
    log_scores
        Also score ``log_crps`` (CRPS of log samples at the log actual) where the samples and
        the actual are all positive; NaN elsewhere, and everywhere when False (e.g. for
        log-ratios, whose log is meaningless).
    quantiles
        Levels of the pinball loss; ``pinball`` is their mean.

    Returns
    -------
    dict
        Column name -> ``(n,)`` array: ``median``, ``mean``, ``sd`` (of the samples) and the
        scores of :data:`SCORE_COLUMNS` (pinball columns named by :func:`pinball_column`).
    """
    x = np.asarray(samples, dtype=float)
    y = np.asarray(actual, dtype=float)
    log_crps = np.full(y.shape, np.nan)
    positive = np.all(x > 0, axis=0) & (y > 0)
    if log_scores and positive.any():
        log_crps[positive] = scoring.crps_samples(np.log(x[:, positive]), np.log(y[positive]))
    pinball = scoring.pinball_loss(x, y, quantiles)
    scores = {"median": np.median(x, axis=0), "mean": x.mean(axis=0), "sd": x.std(axis=0),
              "crps": scoring.crps_samples(x, y), "log_crps": log_crps,
              "pinball": pinball.mean(axis=0)}
    scores.update({pinball_column(q): row for q, row in zip(quantiles, pinball, strict=True)})
    for level in INTERVAL_LEVELS:
        percent = round(level * 100)
        scores[f"in_{percent}"] = scoring.coverage(x, y, level)
        scores[f"interval_score_{percent}"] = scoring.interval_score(x, y, level)
    scores["pit"] = scoring.pit(x, y)
    return scores


def _common_cells(results: Sequence[TaskResult]) -> dict[Any, set[Cell]]:
    """Per origin, the cells every forecaster that succeeded there has forecast."""
    common: dict[Any, set[Cell]] = {}
    for result in results:
        if result.error is None:
            cells = set(result.cells)
            common[result.origin] = common.get(result.origin, cells) & cells
    return common


def origin_label(origin: Any) -> str:
    """Text of an origin: the date alone for a midnight timestamp."""
    if isinstance(origin, pd.Timestamp) and origin == origin.normalize():
        return str(origin.date())
    return str(origin)


def twin_results(result: TaskResult, twins: Mapping[str, str]) -> list[TaskResult]:
    """The twin forecasts (info key -> forecaster name) a model's result carries on its
    cells, as results of their own (taken out of the model's info)."""
    out = []
    for key, name in twins.items():
        cells = result.info.pop(key, None)
        if cells:
            samples = np.column_stack([cells[cell] for cell in result.cells])
            out.append(TaskResult(name, result.origin, list(result.cells), samples, {}, 0.0))
    return out


#: Weights of the structural model an out-of-sample stack tries (the rest: its baseline).
STACK_GRID = np.linspace(0.0, 1.0, 21)
#: ``known(origin, earlier, cells) -> {column: actual}``: of an earlier origin's ``cells``,
#: those whose outcome was published by ``origin``, by column index.
KnownAt = Callable[[Any, Any, Sequence[Cell]], Mapping[int, float]]


def mixture(model: np.ndarray, baseline: np.ndarray, weight: float, seed: int) -> np.ndarray:
    """Samples ``(draws, cells)`` of the mixture: each whole draw (path) from the model with
    probability ``weight``, else the baseline's."""
    take = np.random.default_rng(seed).random(model.shape[0]) < weight
    return np.where(take[:, None], model, baseline)


def learn_weight(model: np.ndarray, baseline: np.ndarray, actual: np.ndarray, seed: int,
                 log: bool = True) -> float:
    """The grid weight whose mixture has the lowest mean CRPS (of logs when ``log``) on the
    cells given; 0.5 with none."""
    if not actual.size:
        return 0.5
    scale = np.log if log else np.asarray
    losses = [scoring.crps_samples(scale(mixture(model, baseline, w, seed)), scale(actual)).mean()
              for w in STACK_GRID]
    return float(STACK_GRID[int(np.argmin(losses))])


def aligned(model: TaskResult, baseline: TaskResult) -> tuple[list[Cell], np.ndarray, np.ndarray]:
    """The cells both forecast and both sample matrices in that order (the draws both have)."""
    where = {cell: j for j, cell in enumerate(baseline.cells)}
    cells = [cell for cell in model.cells if cell in where]
    draws = min(model.samples.shape[0], baseline.samples.shape[0])
    return (cells, model.samples[:draws, [model.cells.index(c) for c in cells]],
            baseline.samples[:draws, [where[c] for c in cells]])


def stack_results(results: Sequence[TaskResult], model: str, baseline: str,
                  origins: Sequence[Any], known: KnownAt, seed: int, name: str,
                  log: bool = True, then: Any = None
                  ) -> tuple[list[TaskResult], dict[str, float]]:
    """One stacked forecast per origin (``name``), the model's weight learnt out of sample.

    At each origin the weight minimises the mean (log) CRPS of the mixture on the cells of
    earlier origins whose outcomes were published by this origin (``known``): the quarter
    being scored never enters its own weight. Returns the stacked results and the weight
    of each origin (by :func:`origin_label`); with ``then`` (a date after the origins, e.g.
    the data's end), also under ``"forecast"`` the weight learnt on every origin's cells
    known by then: the one a forecast made then mixes with.
    """
    by_key = {(r.forecaster, r.origin): r for r in results if r.error is None}
    seen: list[tuple[Any, list[Cell], np.ndarray, np.ndarray]] = []
    stacked: list[TaskResult] = []
    weights: dict[str, float] = {}

    def weight_at(origin: Any) -> float:
        history = [(m[:, j], b[:, j], value) for earlier, cells, m, b in seen
                   for j, value in known(origin, earlier, cells).items()]
        return 0.5 if not history else learn_weight(
            np.stack([h[0] for h in history], axis=1), np.stack([h[1] for h in history], axis=1),
            np.array([h[2] for h in history], dtype=float), seed, log)

    for origin in origins:
        mine, theirs = by_key.get((model, origin)), by_key.get((baseline, origin))
        if mine is None or theirs is None:
            continue
        weight = weight_at(origin)
        cells, m, b = aligned(mine, theirs)
        mixed = mixture(m, b, weight, task_seed(seed, name, origin))
        stacked.append(TaskResult(name, origin, cells, mixed, {"weight": weight}, 0.0))
        weights[origin_label(origin)] = weight
        seen.append((origin, cells, m, b))
    if then is not None:
        weights["forecast"] = weight_at(then)
    return stacked, weights


def score_results(results: Sequence[TaskResult], truth: Mapping[Any, Mapping[Cell, float]],
                  quarters_ahead: Sequence[int] | None = None, common_cells: bool = False,
                  log_scores: bool = True) -> pd.DataFrame:
    """Score task results against the actuals of their origins.

    Parameters
    ----------
    results
        From :func:`run_task`, in task order (the frame keeps it).
    truth
        origin -> {cell: actual}; cells without a finite actual are not scored.
    quarters_ahead
        Score only these quarters ahead (all when None).
    common_cells
        Score, at each origin, only the cells every successful forecaster forecast there
        (so that forecasters are compared on the same targets).
    log_scores
        See :func:`score_cells`.

    Returns
    -------
    pandas.DataFrame
        One row per scored (forecaster, cell, origin) with :data:`FRAME_COLUMNS`; failed
        tasks are listed in ``attrs["failures"]`` ("name @ origin: error") and every task's
        fit info in ``attrs["info"]`` (dicts with forecaster, origin, seconds, info).
    """
    keep = set(quarters_ahead) if quarters_ahead is not None else None
    common = _common_cells(results) if common_cells else {}
    parts: list[pd.DataFrame] = []
    for result in results:
        if result.error is not None:
            continue
        actual = truth.get(result.origin, {})
        index = [j for j, cell in enumerate(result.cells)
                 if (keep is None or cell[1] in keep)
                 and (not common_cells or cell in common[result.origin])
                 and cell in actual and np.isfinite(actual[cell])]
        if not index:
            continue
        cells = [result.cells[j] for j in index]
        y = np.array([actual[cell] for cell in cells], dtype=float)
        scores = score_cells(result.samples[:, index], y, log_scores)
        frame = pd.DataFrame({"forecaster": result.forecaster,
                              "key": pd.Series([cell[0] for cell in cells], dtype=object),
                              "origin": pd.Series([result.origin] * len(cells), dtype=object),
                              "quarters_ahead": [cell[1] for cell in cells], "actual": y, **scores})
        parts.append(frame)
    scored = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=list(FRAME_COLUMNS))
    scored = scored[list(FRAME_COLUMNS)]
    scored.attrs["failures"] = [f"{r.forecaster} @ {origin_label(r.origin)}: {r.error}"
                                for r in results if r.error is not None]
    scored.attrs["info"] = [{"forecaster": r.forecaster, "origin": r.origin,
                             "seconds": r.seconds, "info": r.info} for r in results]
    return scored


def run_backtest(forecasters: Mapping[str, FitForecast], origins: Sequence[Any],
                 actuals: Actuals, quarters_ahead: Sequence[int] | None = None, *,
                 map_fn: MapFn = map, common_cells: bool = False, log_scores: bool = True,
                 catch: bool = True,
                 progress: Callable[[TaskResult], None] | None = None) -> pd.DataFrame:
    """Rolling-origin backtest: fit every forecaster at every origin, score against actuals.

    Parameters
    ----------
    forecasters
        Name -> ``fit_forecast(origin)`` (the model and each baseline).
    origins
        Cut-offs, in order.
    actuals
        ``actuals(origin) -> {(key, quarters_ahead): value}``.
    quarters_ahead
        Horizons to score (all when None).
    map_fn
        Runs :func:`run_task` over the tasks, like the builtin ``map`` (the default, serial)
        and returning results in task order; a parallel map gives the same frame.
    common_cells, log_scores
        See :func:`score_results`.
    catch
        Record a failing forecaster (``attrs["failures"]``) and go on (True), or raise.
    progress
        Called with each :class:`TaskResult` as it arrives.

    Returns
    -------
    pandas.DataFrame
        The tidy frame of :func:`score_results`.
    """
    tasks = make_tasks(forecasters, origins, catch)
    results = []
    for result in map_fn(run_task, tasks):
        if progress is not None:
            progress(result)
        results.append(result)
    truth = {origin: dict(actuals(origin)) for origin in origins}
    return score_results(results, truth, quarters_ahead, common_cells, log_scores)


def _mean(values: pd.Series) -> float | None:
    finite = values[np.isfinite(values.to_numpy(dtype=float))]
    return float(finite.mean()) if len(finite) else None


def _aggregate(rows: pd.DataFrame) -> dict[str, Any]:
    return {"n": len(rows), "crps": _mean(rows["crps"]), "log_crps": _mean(rows["log_crps"]),
            "pinball": _mean(rows["pinball"]), "coverage_80": _mean(rows["in_80"]),
            "coverage_95": _mean(rows["in_95"]), "mean_pit": _mean(rows["pit"])}


def summarize_scores(scored: pd.DataFrame, model_column: str = "forecaster",
                     bins: int = PIT_BINS) -> dict[str, list[dict[str, Any]]]:
    """Pooled and per-quarter-ahead scores of each model, JSON-ready (see the module docstring).

    Means are over the scored cells (``log_crps`` over those that have one; None when no cell
    has one); coverage is a fraction. Models come in order of first appearance.

    Parameters
    ----------
    scored
        A frame with the columns of :func:`score_results` (``model_column`` naming the model).
    model_column
        Column holding the model name.
    bins
        Bins of the PIT histogram.
    """
    models = []
    for name in pd.unique(scored[model_column]):
        rows = scored[scored[model_column] == name]
        by_quarters_ahead = [{"quarters_ahead": int(h), **_aggregate(group)}
                      for h, group in rows.groupby("quarters_ahead", sort=True)]
        models.append({"model": str(name), "pooled": _aggregate(rows),
                       "by_quarters_ahead": by_quarters_ahead,
                       "pit_histogram": [int(c) for c in
                                         scoring.pit_histogram(rows["pit"], bins)]})
    return {"models": models}
