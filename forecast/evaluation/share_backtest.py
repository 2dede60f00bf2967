"""Rolling-origin backtest of the spend model's relative positions: reported shares against
constant shares.

Nobody reports a vendor's share of accelerator spend; what is reported is each vendor's
segment revenue. The targets here are the reported relative sizes: the log ratio of AMD's
Data Center revenue and of Broadcom's AI revenue to NVIDIA's Data Center revenue in the same
calendar quarter (``amd_data_center``, ``broadcom_ai`` keys), ``h`` quarters after the
origin (NVIDIA's ``h``-th next fiscal quarter). Forecasters:

- ``spend_model``: the spend model refitted at the origin; the ratio of its joint posterior
  predictive paths of the two series (one set of draws for both);
- ``constant_share``: the last reported ratio held, with a random-walk spread from the
  ratio's reported changes (what "shares stay where they are" forecasts), read as the held
  twin reads its steps: their median absolute deviation, so NVIDIA's one jump of 2023Q2
  does not widen every quarter (the held twin's rule, applied to the baseline it is scored
  against);
- ``rw_drift``: the mean change per quarter added, spread by the changes' sd;
- ``spend_model (held positions)``: the same fit with each rival's position held where its
  last report left it, spread by its fitted quarterly changes: constant shares in the model's own
  space, the one baseline a forecast's paths can be mixed with (TAM and shares stay one
  posterior's).

The stack mixes the model and its held twin, each whole path from the model with the
model's weight learnt at each origin on earlier origins' scored cells
(:func:`forecast.evaluation.harness.stack_results`, as for the series and the prices); the
weight learnt on every origin by the data's end is the one ``forecast`` publishes its stack
with (``weights["forecast"]``). Each (forecaster, origin) fit is one harness task.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import fiscal_to_calendar_quarter, quarter_label
from forecast.core.errors import ForecastError
from forecast.evaluation import harness
from forecast.evaluation.spend_backtest import HELD, all_cutoffs
from forecast.evaluation.spend_forecasters import HELD_PATHS, SpendForecaster
from forecast.models.spend.evidence import observed_series
from forecast.models.spend.simulation import robust_step_sd

MODEL = "spend_model"
NAIVE = "constant_share"
DRIFT = "rw_drift"
STACK = "stack (spend_model + held positions)"
#: The rivals' reported series whose ratio to NVIDIA's is scored.
RIVAL_SERIES: tuple[str, ...] = ("amd_data_center", "broadcom_ai")
ANCHOR = "nvidia_data_center"


def reported_ratios(dataset: Any) -> pd.DataFrame:
    """Log ratio of each rival's reported series to NVIDIA's by calendar quarter (rows) and
    series (columns), NaN where either is missing."""
    anchor = observed_series(dataset, ANCHOR).set_index("quarter")["value"]
    columns = {}
    for name in RIVAL_SERIES:
        rival = observed_series(dataset, name).set_index("quarter")["value"]
        columns[name] = np.log(rival) - np.log(anchor.reindex(rival.index))
    return pd.DataFrame(columns).sort_index()


def anchor_quarters(dataset: Any, cutoff: pd.Timestamp, quarters: int) -> list[str]:
    """Calendar quarters of NVIDIA's next ``quarters`` fiscal quarters after ``cutoff``."""
    return _calendar(dataset.as_of(cutoff), ANCHOR, quarters)


@dataclass(frozen=True)
class ModelRatios:
    """The spend model's ratio paths: its joint series paths at each cut-off."""

    dataset: Any
    quarters: int
    draws: int
    seed: int
    forecaster: Any

    def __call__(self, cutoff: pd.Timestamp) -> harness.OriginForecast:
        cut = self.dataset.as_of(cutoff)
        series = (ANCHOR, *RIVAL_SERIES)
        # One more quarter than asked: a rival's fiscal calendar may end later than NVIDIA's.
        paths = self.forecaster(cut, series, self.quarters + 1, self.draws, self.seed)
        info = dict(getattr(paths, "info", {}))
        if HELD_PATHS in info:  # the held twin's ratios, on the same cells
            info[HELD_PATHS] = self._ratios(cut, cutoff, info[HELD_PATHS])
        return harness.OriginForecast(self._ratios(cut, cutoff, paths), info)

    def _ratios(self, cut: Any, cutoff: pd.Timestamp, paths: Any
                ) -> dict[harness.Cell, np.ndarray]:
        """Each rival's log ratio to NVIDIA in NVIDIA's next quarters, from series paths."""
        series = (ANCHOR, *RIVAL_SERIES)
        quarters = anchor_quarters(self.dataset, cutoff, self.quarters)
        by_quarter = {name: dict(zip(_calendar(cut, name, self.quarters + 1),
                                     np.asarray(paths[name]).T, strict=True))
                      for name in series if name in paths}
        cells = {}
        for name in RIVAL_SERIES:
            for h, quarter in enumerate(quarters, start=1):
                if quarter in by_quarter.get(name, {}) and quarter in by_quarter[ANCHOR]:
                    cells[(name, h)] = (np.log(by_quarter[name][quarter])
                                        - np.log(by_quarter[ANCHOR][quarter]))
        return cells


def _calendar(dataset: Any, series: str, count: int) -> list[str]:
    """Calendar quarters of a series' next ``count`` fiscal quarters."""
    rows = observed_series(dataset, series)
    last = pd.Timestamp(rows["calendar_quarter_end"].iloc[-1])
    return [quarter_label(fiscal_to_calendar_quarter(last + pd.DateOffset(months=3 * h)))
            for h in range(1, count + 1)]


@dataclass(frozen=True)
class HeldRatios:
    """Constant shares (``drift`` False) or a random walk with drift on the log ratios."""

    dataset: Any
    quarters: int
    draws: int
    seed: int
    drift: bool

    def __call__(self, cutoff: pd.Timestamp) -> dict[harness.Cell, np.ndarray]:
        ratios = reported_ratios(self.dataset.as_of(cutoff))
        rng = np.random.default_rng(harness.task_seed(self.seed, "held", self.drift))
        cells = {}
        for name in RIVAL_SERIES:
            history = ratios[name].dropna().to_numpy(float)
            if len(history) < 3:
                continue
            steps = np.diff(history)
            mean = steps.mean() if self.drift else 0.0
            sd = steps.std(ddof=1) if self.drift else float(robust_step_sd(steps))
            walk = np.cumsum(rng.normal(mean, sd, size=(self.draws, self.quarters)), axis=1)
            for h in range(1, self.quarters + 1):
                cells[(name, h)] = history[-1] + walk[:, h - 1]
        return cells


@dataclass(frozen=True)
class RatioActuals:
    """The reported log ratios in NVIDIA's next quarters after a cut-off."""

    dataset: Any
    quarters: int

    def __call__(self, cutoff: pd.Timestamp) -> dict[harness.Cell, float]:
        ratios = reported_ratios(self.dataset)
        out = {}
        for h, quarter in enumerate(anchor_quarters(self.dataset, cutoff, self.quarters),
                                    start=1):
            for name in RIVAL_SERIES:
                if quarter in ratios.index and np.isfinite(ratios.loc[quarter, name]):
                    out[(name, h)] = float(ratios.loc[quarter, name])
        return out


def share_origins(dataset: Any, origins: int, quarters: int) -> list[pd.Timestamp]:
    """The last ``origins`` cut-offs of NVIDIA's series that leave ``quarters`` quarters and
    have three quarters of a rival's reported ratio by then.

    Raises
    ------
    ForecastError
        When fewer cut-offs qualify, saying how many do.
    """
    every = all_cutoffs(dataset, ANCHOR, quarters)
    usable = [c for c in every if reported_ratios(dataset.as_of(c)).notna().sum().max() >= 3]
    if origins > len(usable):
        raise ForecastError(f"--origins {origins}: {len(usable)} of {ANCHOR}'s cut-offs leave "
                            f"{quarters} quarters to score and follow three reported ratios of "
                            f"a rival; ask for at most {len(usable)}")
    return usable[len(usable) - origins:]


def check_backtest(dataset: Any, origins: int, quarters: int) -> int:
    """Refuse, before the spend model is fitted (minutes), more ``origins`` than the data
    give.

    Returns
    -------
    int
        Values one origin's forecasts hold per path: every rival for ``quarters`` quarters,
        for the model, the two held-ratio forecasts and their stack.

    Raises
    ------
    ForecastError
        Saying how many origins the data give.
    """
    available = len(observed_series(dataset, ANCHOR)) - quarters
    if origins > available:
        raise ForecastError(f"--origins {origins}: {ANCHOR} gives {max(available, 0)} origins "
                            f"that leave {quarters} quarters to score; ask for at most "
                            f"{max(available, 0)}")
    share_origins(dataset, origins, quarters)
    return len(RIVAL_SERIES) * quarters * 4


def backtest_share_cli(dataset: Any, *, origins: int = 6, quarters: int = 4, draws: int = 1000,
                       seed: int = 0, map_fn: harness.MapFn = map,
                       progress: Callable[[str], None] | None = None,
                       sampler: Mapping[str, Any] | None = None
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Backtest the spend model's shares against constant shares and a drift walk, and
    their out-of-sample stack; returns ``(tidy, summary)`` with the harness's JSON summary in
    ``tidy.attrs["report"]`` (``python cli.py backtest share``)."""
    check_backtest(dataset, origins, quarters)  # before any fit
    usable = share_origins(dataset, origins, quarters)
    tasks = {MODEL: ModelRatios(dataset, quarters, draws, seed,
                                SpendForecaster(held_twin=True, **dict(sampler or {}))),
             NAIVE: HeldRatios(dataset, quarters, draws, seed, drift=False),
             DRIFT: HeldRatios(dataset, quarters, draws, seed, drift=True)}
    results = []
    for result in map_fn(harness.run_task, harness.make_tasks(tasks, usable)):
        if progress is not None and result.error is None:
            progress(f"{result.forecaster} as of {harness.origin_label(result.origin)}: "
                     f"{result.seconds:.1f}s")
        results += [result, *harness.twin_results(result, {HELD_PATHS: HELD})]
    actuals = RatioActuals(dataset, quarters)
    truth = {cutoff: actuals(cutoff) for cutoff in usable}
    stacked, weights = harness.stack_results(results, MODEL, HELD, usable,
                                             known_at(dataset, quarters), seed, STACK, log=False,
                                             then=dataset.last_observation)
    results += stacked
    scored = harness.score_results(results, truth, range(1, quarters + 1), log_scores=False)
    report = harness.summarize_scores(scored)
    tidy = scored.rename(columns={"forecaster": "model", "key": "series"})
    tidy.attrs["report"] = report
    tidy.attrs["weights"] = weights
    tidy.attrs["fits"] = [entry["info"] for entry in scored.attrs.get("info", [])
                          if entry["forecaster"] == MODEL and entry["info"]]
    summary = (tidy.groupby("model")[["crps", "in_80", "in_95", "pit"]].mean()
               .rename(columns={"in_80": "coverage_80", "in_95": "coverage_95",
                                "pit": "mean_pit"}).reset_index())
    return tidy, summary


def known_at(dataset: Any, quarters: int) -> harness.KnownAt:
    """Of an earlier origin's cells, the ratios reported by a later origin (none published
    after it): what the stack's weight at that origin learns from."""
    as_of = functools.cache(lambda origin: RatioActuals(dataset.as_of(origin), quarters))

    def known(origin: Any, earlier: Any, cells: Sequence[harness.Cell]) -> dict[int, float]:
        truth = as_of(origin)(earlier)
        return {j: truth[cell] for j, cell in enumerate(cells) if cell in truth}

    return known
