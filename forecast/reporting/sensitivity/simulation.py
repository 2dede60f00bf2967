"""One-at-a-time sensitivity by re-running the simulation from one loaded fit.

:class:`SimulationSensitivity` re-runs :func:`~forecast.pipeline.simulate.simulate` with the
scenario inputs held at quantiles (the ``inputs`` argument of ``simulate``), always with the
same seed and number of draws: common random numbers, so the posterior draws and model noise
are identical across runs and a swing is the effect of the input, not Monte Carlo noise.
:func:`run_sensitivity` adds the global ranking over the scenario's own Monte Carlo draws.

Each run is a pure task (:class:`PointTask`, :func:`run_point`); the runs a tornado or a
spider needs are planned first and handed together to a pluggable ``map_fn`` (serial by
default; :mod:`forecast.pipeline.execution` sends them to Dask), with the same numbers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.pipeline.results import Forecast
from forecast.reporting.sensitivity.measures import (
    SPIDER_PERCENTILES,
    global_ranking,
    spider,
    tornado,
)
from forecast.reporting.sensitivity.outputs import (
    OutputSpec,
    check_output,
    output_draws,
    output_value,
    parse_output,
)

#: Default number of paths per one-at-a-time run.
DEFAULT_DRAWS = 2000

MapFn = Callable[[Callable[[Any], Any], Iterable[Any]], Iterable[Any]]


def fixed_inputs(scenario: Any, point: Mapping[str, float], n: int) -> pd.DataFrame:
    """Scenario inputs held at one value each, ``n`` identical rows (as ``Scenario.sample``).

    Inputs missing from ``point`` are held at their medians; quarter inputs stay integer
    quarter indices.
    """
    unknown = sorted(set(point) - set(scenario.input_names))
    if unknown:
        raise ForecastError(f"scenario {scenario.name} has no input {unknown[0]!r}")
    columns = {}
    for name, spec in scenario.inputs.items():
        value = point[name] if name in point else spec.median()
        if spec.is_quarter:
            columns[name] = np.full(n, int(round(value)), dtype=np.int64)
        else:
            columns[name] = np.full(n, float(value), dtype=float)
    frame = pd.DataFrame(columns, columns=scenario.input_names)
    frame.index.name = "draw"
    return frame


def input_ppfs(scenario: Any, names: Iterable[str] | None = None
               ) -> dict[str, Callable[[float], float]]:
    """Inverse CDF per scenario input (all inputs, or ``names``), for :func:`one_at_a_time`."""
    chosen = list(scenario.input_names if names is None else names)
    for name in chosen:
        if name not in scenario.inputs:
            raise ForecastError(f"scenario {scenario.name} has no input {name!r}")
    return {name: (lambda u, spec=scenario.inputs[name]: spec.quantile(u)) for name in chosen}


def forecast_inputs(scenario: Any, forecast: Forecast) -> pd.DataFrame:
    """The input draws behind a forecast made by ``simulate`` from the scenario's own sampler.

    ``Scenario.sample`` is deterministic given the number of draws and the seed, so these are
    exactly the rows ``simulate`` used (not so for a forecast made with an ``inputs``
    override).
    """
    if forecast.scenario != scenario.name:
        raise ForecastError(
            f"forecast is of scenario {forecast.scenario}, not {scenario.name}")
    return scenario.sample(forecast.draws, seed=forecast.seed)


@dataclass(frozen=True)
class PointTask:
    """One one-at-a-time run: every input held at ``point`` (in the scenario's input order).

    A pure function of its fields (:func:`run_point`), so it can run anywhere.
    """

    bundle: Any
    dataset: Any
    scenario: Any
    point: tuple[float, ...]
    draws: int
    seed: int
    horizon: int | None
    outputs: tuple[OutputSpec, ...]


def run_point(task: PointTask) -> dict[OutputSpec, float]:
    """Simulate with the inputs held at the task's point; the value of every output."""
    from forecast.pipeline.simulate import simulate

    scenario = task.scenario
    inputs = fixed_inputs(scenario, dict(zip(scenario.input_names, task.point, strict=True)),
                          task.draws)
    result = simulate(task.bundle, task.dataset, scenario, draws=task.draws, seed=task.seed,
                      horizon=task.horizon, inputs=inputs)
    for spec in task.outputs:
        check_output(result, spec)
    return {spec: output_value(result, spec) for spec in task.outputs}


class SimulationSensitivity:
    """One-at-a-time sensitivity of forecast outputs, re-running ``simulate`` per point.

    Every run uses the same fit, number of draws and seed (common random numbers). Each
    point (one value per input) is simulated once and all the requested outputs are read
    off it, so a tornado and a spider over the same outputs share runs.

    Parameters
    ----------
    bundle, dataset, scenario
        A loaded fit (keyed ``price``/``market``/``share``), its data and the scenario
        (see :func:`forecast.pipeline.runner.load_run`).
    outputs
        Outputs to track (:class:`OutputSpec` or text for :func:`parse_output`).
    draws
        Paths per run (default :data:`DEFAULT_DRAWS`).
    seed
        Seed of every run (default: the scenario's).
    horizon
        Last calendar year (default: the scenario's).
    progress
        Called with a line every 10 simulation runs.
    map_fn
        Runs the planned runs of a tornado or spider (:func:`run_point` over
        :class:`PointTask`), like the builtin ``map`` (the default) and in order.
    """

    def __init__(self, bundle: Any, dataset: Any, scenario: Any,
                 outputs: Sequence[OutputSpec | str], draws: int = DEFAULT_DRAWS,
                 seed: int | None = None, horizon: int | None = None,
                 progress: Callable[[str], None] | None = None, map_fn: MapFn = map):
        if int(draws) <= 0:
            raise ForecastError(f"draws must be > 0, got {draws}")
        self.outputs = [parse_output(o) if isinstance(o, str) else o for o in outputs]
        if not self.outputs:
            raise ForecastError("no output to analyse")
        self.bundle = bundle
        self.dataset = dataset
        self.scenario = scenario
        self.draws = int(draws)
        self.seed = scenario.seed if seed is None else int(seed)
        self.horizon = horizon
        self.progress = progress
        self.map_fn = map_fn
        self.runs = 0
        self._cache: dict[tuple[float, ...], dict[OutputSpec, float]] = {}
        self._medians = {name: float(spec.median()) for name, spec in scenario.inputs.items()}

    def _key(self, point: Mapping[str, float]) -> tuple[float, ...]:
        """Every input's value at ``point`` (the unnamed ones at their medians), in order."""
        return tuple(float(point.get(name, self._medians[name]))
                     for name in self.scenario.input_names)

    def _task(self, key: tuple[float, ...]) -> PointTask:
        return PointTask(self.bundle, self.dataset, self.scenario, key, self.draws,
                         self.seed, self.horizon, tuple(self.outputs))

    def _values(self, point: Mapping[str, float]) -> dict[OutputSpec, float]:
        key = self._key(point)
        if key not in self._cache:
            self._cache[key] = run_point(self._task(key))
            self.runs += 1
            if self.progress is not None and self.runs % 10 == 0:
                self.progress(f"sensitivity: {self.runs} simulation runs")
        return self._cache[key]

    def prefetch(self, points: Iterable[Mapping[str, float]]) -> int:
        """Run every point not yet run through ``map_fn`` at once; returns how many ran."""
        keys = [key for key in dict.fromkeys(self._key(point) for point in points)
                if key not in self._cache]
        if not keys:
            return 0
        results = list(self.map_fn(run_point, [self._task(key) for key in keys]))
        self._cache.update(zip(keys, results, strict=True))
        self.runs += len(keys)
        if self.progress is not None:
            self.progress(f"sensitivity: {self.runs} simulation runs")
        return len(keys)

    def _plan(self, analysis: Callable[[Callable[[Mapping[str, float]], float]], Any]) -> None:
        """Prefetch the points ``analysis(evaluate)`` asks for (found by a dry run that
        records them), so that they run together on ``map_fn``."""
        points: list[dict[str, float]] = []

        def record(point: Mapping[str, float]) -> float:
            points.append(dict(point))
            return 0.0

        analysis(record)
        self.prefetch(points)

    def _spec(self, output: OutputSpec | str | None) -> OutputSpec:
        if output is None:
            return self.outputs[0]
        spec = parse_output(output) if isinstance(output, str) else output
        if spec not in self.outputs:
            raise ForecastError(f"output {spec.label} was not requested "
                                f"(requested: {', '.join(o.label for o in self.outputs)})")
        return spec

    def evaluator(self, output: OutputSpec | str | None = None
                  ) -> Callable[[Mapping[str, float]], float]:
        """Point -> output value, for the pure functions (:func:`tornado`, :func:`spider`)."""
        spec = self._spec(output)
        return lambda point: self._values(point)[spec]

    def baseline(self, output: OutputSpec | str | None = None) -> float:
        """The output with every input at its median."""
        return self.evaluator(output)({})

    def tornado(self, output: OutputSpec | str | None = None, low: float = 10,
                high: float = 90, inputs: Iterable[str] | None = None) -> pd.DataFrame:
        """Tornado data (see :func:`tornado_table`) plus each input's ``unit``."""
        self.baseline(output)  # first run: checks the outputs before the swings
        ppfs = input_ppfs(self.scenario, inputs)
        self._plan(lambda evaluate: tornado(evaluate, ppfs, low, high))
        table = tornado(self.evaluator(output), ppfs, low, high)
        table["unit"] = [self.scenario.inputs[name].unit for name in table["input"]]
        return table

    def spider(self, output: OutputSpec | str | None = None,
               percentiles: Sequence[float] = SPIDER_PERCENTILES,
               inputs: Iterable[str] | None = None) -> pd.DataFrame:
        """Spider data (see :func:`spider_table`)."""
        self.baseline(output)
        ppfs = input_ppfs(self.scenario, inputs)
        self._plan(lambda evaluate: spider(evaluate, ppfs, percentiles))
        return spider(self.evaluator(output), ppfs, percentiles)


@dataclass
class SensitivityResult:
    """Everything :func:`run_sensitivity` computes for one output, and how long it took."""

    output: OutputSpec
    scenario: Any
    fit_id: str
    draws: int
    seed: int
    tornado: pd.DataFrame
    ranking: pd.DataFrame
    runs: int
    seconds: float = 0.0


def run_sensitivity(name: str, metric: str, *, stat: str = "median",
                    draws: int | None = None, seed: int | None = None,
                    horizon: int | None = None, root: str | Path | None = None,
                    fit_id: str | None = None, data_dir: str | Path | None = None,
                    low: float = 10, high: float = 90,
                    progress: Callable[[str], None] | None = None,
                    map_fn: MapFn = map) -> SensitivityResult:
    """Tornado of one output under a scenario, and the global ranking over its draws.

    Parameters
    ----------
    name
        Scenario name or file.
    metric
        Output text for :func:`parse_output` (``aws_revenue:2030``, ``thesis:NAME``...).
    stat
        Statistic of a metric's draws (median, mean, p10, p90).
    draws, seed, horizon
        Paths per run (default :data:`DEFAULT_DRAWS`), seed (default: the scenario's) and
        last year.
    root, fit_id, data_dir
        Which fit and data (as for :func:`forecast.pipeline.runner.run_scenario`).
    low, high
        Percentiles of the swing.
    progress
        Called with a line per fitting step (when a fit has to be made) and on the runs.
    map_fn
        Runs the one-at-a-time simulations (see :class:`SimulationSensitivity`).

    Returns
    -------
    SensitivityResult
        The tornado, the ranking, how many simulation runs they took and the seconds.
    """
    from forecast.pipeline.runner import load_run
    from forecast.pipeline.simulate import simulate

    started = time.perf_counter()
    spec = parse_output(metric, stat)
    scenario, dataset, bundle = load_run(name, root=root, fit_id=fit_id, data_dir=data_dir,
                                         progress=progress)
    runner = SimulationSensitivity(bundle, dataset, scenario, [spec],
                                   draws=DEFAULT_DRAWS if draws is None else draws,
                                   seed=seed, horizon=horizon, progress=progress,
                                   map_fn=map_fn)
    table = runner.tornado(spec, low=low, high=high)
    inputs = scenario.sample(runner.draws, seed=runner.seed)
    monte_carlo = simulate(runner.bundle, dataset, scenario, draws=runner.draws,
                           seed=runner.seed, horizon=horizon, inputs=inputs)
    ranking = global_ranking(inputs, output_draws(monte_carlo, spec))
    return SensitivityResult(output=spec, scenario=scenario, fit_id=bundle.fit_id,
                             draws=runner.draws, seed=runner.seed, tornado=table,
                             ranking=ranking, runs=runner.runs,
                             seconds=time.perf_counter() - started)
