"""Rolling-origin backtest of the share model against constant shares and a random walk
with drift on log-ratios, with their out-of-sample stack.

The target is what the share model is fitted to: the market model's measured log-ratio
``log(spend_v / spend_nvidia)`` of each rival in each quarter where a reported series
informs it (:class:`~forecast.economics.share_inputs.ShareData`, built by
:func:`forecast.models.share.share_data_from_market`). For each origin (a quarter label)
every forecaster sees the measurements up to the origin and forecasts the next ``horizon``
quarters; the share model forecasts at the realised costs (a conditional forecast: costs
are its input) and includes its measurement noise (it forecasts a measurement).

Baselines, both fitted on the measured changes of each vendor up to the origin:

- ``constant_share``: the last measured log-ratio, with a random-walk spread growing with
  the steps since it;
- ``rw_drift``: the same plus the mean measured change per quarter (a random walk with
  drift on log-ratios).

The stack mixes the model and ``constant_share`` with the model's weight learnt at each
origin on the cells of earlier origins whose quarters were measured by then: the quarter
scored never enters its own weight. Each (forecaster, origin) fit is one harness task.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_index
from forecast.core.errors import ForecastError
from forecast.economics.share_inputs import ShareData
from forecast.evaluation import harness, scoring
from forecast.models.share import ShareModel
from forecast.models.share.data import measured_quarters

MODEL = "share_model"
NAIVE = "constant_share"
DRIFT = "rw_drift"
STACK = "stack (share_model + constant_share)"
#: Weights of the model the stack tries.
STACK_GRID = np.linspace(0.0, 1.0, 21)


def _test_quarters(data: ShareData, origin: str, horizon: int) -> list[int]:
    """Indices of the (up to ``horizon``) quarters after ``origin``."""
    o = list(data.quarters).index(origin)
    return list(range(o + 1, min(o + 1 + horizon, len(data.quarters))))


@dataclass(frozen=True)
class ShareModelForecast:
    """The share model as a harness forecaster: cells (vendor, h) of measured log-ratios."""

    data: ShareData
    horizon: int
    priors: Mapping[str, Any] | None
    sampler: Mapping[str, Any] | None
    draws: int
    seed: int

    def __call__(self, origin: str) -> harness.Forecast:
        """Fit on the quarters up to ``origin``; forecast the next ones at realised costs."""
        data, labels = self.data, list(self.data.quarters)
        test = _test_quarters(data, origin, self.horizon)
        fitted = ShareModel(self.priors, self.sampler).fit(data.window(last=origin))
        cost = np.exp(data.log_cost[test])[None]
        paths = fitted.forecast([labels[i] for i in test], draws=self.draws, seed=self.seed,
                                cost_paths=cost, vendors=list(data.vendors),
                                measurement=True)["log_ratio"].values
        cells = {(data.vendors[v], h): paths[:, h - 1, v - 1]
                 for v in range(1, len(data.vendors)) for h in range(1, len(test) + 1)}
        return harness.Forecast(cells, fitted.diagnostics())


@dataclass(frozen=True)
class RandomWalkForecast:
    """Naive forecaster: the last measured log-ratio up to the origin (plus the mean
    measured change per quarter when ``drift``), with a random-walk spread.

    For vendor v last measured in quarter ``l <= origin``, the forecast of quarter ``t`` is
    Normal(y(l) + (t - l) drift, (t - l) var(changes)), the changes being those between
    consecutive measured quarters up to the origin (none with fewer than two).
    """

    data: ShareData
    horizon: int
    draws: int
    seed: int
    drift: bool = False

    def __call__(self, origin: str) -> dict[harness.Cell, np.ndarray]:
        """Samples of every vendor measured at least twice by ``origin``, every horizon."""
        data = self.data
        o = list(data.quarters).index(origin)
        test = _test_quarters(data, origin, self.horizon)
        name = DRIFT if self.drift else NAIVE
        rng = np.random.default_rng(harness.task_seed(self.seed, name, origin))
        cells: dict[harness.Cell, np.ndarray] = {}
        for v in range(1, len(data.vendors)):
            past = np.array([i for i in range(o + 1) if data.observed[i, v]])
            if len(past) < 3:
                continue
            values = data.alr_mean[past, v - 1]
            steps = np.diff(past)
            # Changes per quarter between consecutive measurements (gaps spread evenly).
            per_quarter = np.diff(values) / steps
            drift = float(np.diff(values).sum() / steps.sum()) if self.drift else 0.0
            var = float(np.var(per_quarter * np.sqrt(steps), ddof=1))
            for h, t in enumerate(test, start=1):
                ahead = t - past[-1]
                cells[(data.vendors[v], h)] = (values[-1] + ahead * drift + np.sqrt(
                    ahead * var) * rng.standard_normal(self.draws))
        return cells


@dataclass(frozen=True)
class ShareActuals:
    """The measured log-ratio of every vendor measured in the quarters after an origin."""

    data: ShareData
    horizon: int

    def __call__(self, origin: str) -> dict[harness.Cell, float]:
        """Cells (vendor, h) with a measurement in quarter origin + h."""
        data = self.data
        return {(data.vendors[v], h): float(data.alr_mean[t, v - 1])
                for h, t in enumerate(_test_quarters(data, origin, self.horizon), start=1)
                for v in range(1, len(data.vendors)) if data.observed[t, v]}


def _usable(labels: Sequence[str], observed: np.ndarray) -> list[str]:
    """Quarters that leave at least one quarter to score, each with at least three measured
    quarters of some rival before it (``observed``: (T, V), the reference first)."""
    return [q for i, q in enumerate(labels[:-1]) if observed[: i + 1, 1:].sum(axis=0).max() >= 3]


def share_origins(data: ShareData, origins: int, horizon: int) -> list[str]:
    """The last ``origins`` quarters that leave at least one quarter to score, each with at
    least three measured quarters of some rival before it."""
    usable = _usable(list(data.quarters), data.observed)
    if not usable:
        raise ValueError("share backtest: no origin has three measured quarters before it")
    return usable[-origins:]


def check_backtest(dataset: Any, origins: int, horizon: int) -> int:
    """Refuse, before the market model is fitted (minutes), more ``origins`` than the data
    give (:func:`share_origins`' rule on the quarters the market data measure each rival).

    Returns
    -------
    int
        Values one origin's forecasts hold per path: every rival for ``horizon`` quarters,
        for the model, the naive forecast and their stack.

    Raises
    ------
    ForecastError
        Saying how many origins the data give.
    """
    from forecast.models.market import market_timeline, prepare_market_data
    from forecast.models.market.data import VENDORS

    frames = prepare_market_data(dataset)
    quarters = market_timeline(frames)
    usable = _usable(quarters, measured_quarters(frames, quarters, list(VENDORS)))
    if origins > len(usable):
        span = f" ({usable[0]} to {usable[-1]})" if usable else ""
        raise ForecastError(f"--origins {origins}: the data give {len(usable)} share origins"
                            f"{span}, quarters with three measured quarters of a rival before "
                            f"them and one after; ask for at most {len(usable)}")
    return horizon * (len(VENDORS) - 1) * 3


def _weight(pairs: list[tuple[np.ndarray, np.ndarray, float]], seed: int) -> float:
    """The grid weight of the model with the lowest mean CRPS on ``pairs`` (0.5 with none)."""
    if not pairs:
        return 0.5
    model = np.stack([p[0] for p in pairs], axis=1)
    naive = np.stack([p[1] for p in pairs], axis=1)
    actual = np.array([p[2] for p in pairs])
    take = np.random.default_rng(seed).random(model.shape[0])
    losses = [scoring.crps_samples(np.where((take < w)[:, None], model, naive), actual).mean()
              for w in STACK_GRID]
    return float(STACK_GRID[int(np.argmin(losses))])


def stack_results(results: Sequence[harness.TaskResult], actuals: ShareActuals,
                  origins: Sequence[str], seed: int) -> list[harness.TaskResult]:
    """One stacked forecast per origin (model + constant share), its weight learnt on the
    cells of earlier origins whose quarters were measured by this origin."""
    by_key = {(r.forecaster, r.origin): r for r in results if r.error is None}
    seen: list[tuple[np.ndarray, np.ndarray, float, int]] = []
    stacked = []
    for origin in origins:
        model, naive = by_key.get((MODEL, origin)), by_key.get((NAIVE, origin))
        if model is None or naive is None:
            continue
        now = quarter_index(origin)
        weight = _weight([(m, n, a) for m, n, a, q in seen if q <= now], seed)
        where = {cell: j for j, cell in enumerate(naive.cells)}
        cells = [cell for cell in model.cells if cell in where]
        mine = model.samples[:, [model.cells.index(c) for c in cells]]
        theirs = naive.samples[:, [where[c] for c in cells]]
        take = np.random.default_rng(harness.task_seed(seed, STACK, origin)).random(
            mine.shape[0]) < weight
        mixed = np.where(take[:, None], mine, theirs)
        stacked.append(harness.TaskResult(STACK, origin, cells, mixed, {"weight": weight}, 0.0))
        truth = actuals(origin)
        for j, cell in enumerate(cells):
            if cell in truth:
                seen.append((mine[:, j], theirs[:, j], truth[cell], now + cell[1]))
    return stacked


def share_backtest(data: ShareData, origins: Sequence[str], horizon: int = 4,
                   priors: Mapping[str, Any] | None = None,
                   sampler: Mapping[str, Any] | None = None, draws: int = 1000, seed: int = 0,
                   *, map_fn: harness.MapFn = map,
                   progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """The harness's scored frame of the model, both baselines and the stack.

    ``attrs``: ``report`` (:func:`~forecast.evaluation.harness.summarize_scores`),
    ``weights`` (the stack's weight of the model per origin), ``fits`` (the model's
    diagnostics per origin). The model, the baselines and the stack are scored on the cells
    all of them forecast. Scores on log-ratios: ``log_crps`` is not defined (NaN).
    """
    labels = list(data.quarters)
    for origin in origins:
        labels.index(origin)  # ValueError for an unknown origin, before any fit
    usable = [origin for origin in origins if _test_quarters(data, origin, horizon)]
    forecasters = {MODEL: ShareModelForecast(data, horizon, priors, sampler, draws, seed),
                   NAIVE: RandomWalkForecast(data, horizon, draws, seed),
                   DRIFT: RandomWalkForecast(data, horizon, draws, seed, drift=True)}
    results = []
    for result in map_fn(harness.run_task, harness.make_tasks(forecasters, usable)):
        if progress is not None and result.error is None:
            progress(f"{result.forecaster} as of {result.origin}: {result.seconds:.1f}s")
        results.append(result)
    actuals = ShareActuals(data, horizon)
    stacked = stack_results(results, actuals, usable, seed)
    truth = {origin: actuals(origin) for origin in usable}
    scored = harness.score_results(results + stacked, truth, range(1, horizon + 1),
                                   common_cells=True, log_scores=False)
    scored.attrs["report"] = harness.summarize_scores(scored)
    scored.attrs["weights"] = {str(r.origin): r.info["weight"] for r in stacked}
    scored.attrs["fits"] = {str(r.origin): r.info for r in results
                            if r.forecaster == MODEL and r.error is None}
    return scored


def summary_table(scored: pd.DataFrame) -> pd.DataFrame:
    """Per model, pooled (horizon "all") and per horizon: n, CRPS, pinball, coverage, PIT."""
    rows = []
    for name in pd.unique(scored["forecaster"]):
        mine = scored[scored["forecaster"] == name]
        groups = [("all", mine)] + [(str(h), g) for h, g in mine.groupby("horizon")]
        for horizon, group in groups:
            rows.append({"model": name, "horizon": horizon, "n": len(group),
                         "crps": group["crps"].mean(), "pinball": group["pinball"].mean(),
                         "coverage_80": group["in_80"].mean(),
                         "coverage_95": group["in_95"].mean(), "mean_pit": group["pit"].mean()})
    return pd.DataFrame(rows)


def backtest_share_cli(dataset: Any, *, origins: int, horizon: int, draws: int,
                       seed: int = 0, map_fn: harness.MapFn = map,
                       scenario: str = "base",
                       progress: Callable[[str], None] | None = None
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``python cli.py backtest share``: fit the market model of ``scenario`` on the whole
    dataset (its default sampler), measure the log-ratios the share model is fitted to, and
    run :func:`share_backtest` over the last ``origins`` usable quarters.

    Returns ``(scored, summary)``: the harness's frame with its ``attrs`` and
    :func:`summary_table`.
    """
    from forecast.models.market import MarketModel
    from forecast.scenarios import load_scenario

    spec = load_scenario(scenario)
    check_backtest(dataset, origins, horizon)  # before the market fit
    if progress is not None:
        progress(f"market model ({spec.name}): sampling the measurements...")
    market = MarketModel.from_scenario(spec).fit_dataset(dataset, spec)
    data = ShareModel.from_scenario(spec).prepare(dataset, spec, upstream={"market": market})
    cuts = share_origins(data, origins, horizon)
    scored = share_backtest(data, cuts, horizon, priors=ShareModel.scenario_priors(spec),
                            draws=draws, seed=seed, map_fn=map_fn, progress=progress)
    scored.attrs["market_fit"] = market.diagnostics()
    return scored, summary_table(scored)
