"""Scenario sweeps: re-simulate a stored fit over a grid of held input values and seeds.

``--vary INPUT=LOW:HIGH:N`` holds one scenario input at each of ``N`` evenly spaced values
from ``LOW`` to ``HIGH`` (quarter inputs: quarter labels, ``2026Q3:2028Q2:8``); several
``--vary`` make the Cartesian grid, the first varying slowest. At a grid point the scenario's
own input draws (``scenario.sample(draws, seed)``, correlations and all) are made and the
varied columns overwritten with the point's values, so every path holds them while the other
inputs keep their uncertainty; :func:`~forecast.pipeline.simulate.simulate` then runs from
the stored fit with those inputs and the seed. A grid point's numbers are therefore exactly a
single ``simulate`` run's at the same inputs and seed.

Each (grid point, seed) is one pure task (:class:`SweepTask`, :func:`run_point`): it reads
its fit bundle, dataset and scenario from its fields and returns one row; nothing is written
by the tasks. :func:`run_sweep` runs them with a pluggable ``map_fn`` (serially by default;
a :class:`~forecast.pipeline.execution.TaskMap` sends them to Dask, where the bundle, shared
by every task, travels once) and returns the tidy table in task order.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_index, quarter_label
from forecast.core.errors import ForecastError
from forecast.pipeline.results import Forecast

MapFn = Callable[[Callable[[Any], Any], Iterable[Any]], Iterable[Any]]

#: Metrics whose horizon-year median is a column of the sweep table (see :func:`point_row`).
HEADLINE_METRICS = ("tam", "share", "aws_spend_at_cost", "aws_rental_revenue",
                    "aws_merchant_value", "aws_custom_chips_run_rate", "custom_silicon_spend")
#: Most tasks (grid points x seeds) one sweep may have.
MAX_TASKS = 100_000


@dataclass(frozen=True)
class Vary:
    """One varied input: its name and the values it is held at, in grid order.

    Quarter inputs hold integer quarter indices (as ``Scenario.sample`` gives them).
    """

    name: str
    values: tuple[float, ...]
    is_quarter: bool = False

    def labels(self) -> list[Any]:
        """The values as the table shows them: quarter labels, or the floats."""
        return [quarter_label(int(v)) if self.is_quarter else float(v) for v in self.values]


def _bound(text: str, name: str, quarter: bool) -> float:
    try:
        return float(quarter_index(text)) if quarter else float(text)
    except (ValueError, ForecastError):
        kind = "a quarter label such as 2027Q1" if quarter else "a number"
        raise ForecastError(f"--vary {name}: {text!r} is not {kind}") from None


def check_sweep_size(texts: Sequence[str], seeds: int) -> int:
    """The runs of a sweep (grid points x seeds), counted from its ``--vary`` texts before
    any grid or seed list is built.

    Raises
    ------
    ForecastError
        When they are more than :data:`MAX_TASKS`, naming the ``--vary`` (or ``--seeds``)
        that makes them so. Bad syntax is left to :func:`parse_vary`.
    """
    runs = int(seeds)
    if runs > MAX_TASKS:
        raise ForecastError(f"--seeds {runs} makes the sweep more than {MAX_TASKS:,} runs; "
                            "use fewer seeds")
    for text in texts:
        name, _, grid = text.partition("=")
        parts = grid.split(":")
        try:
            points = int(parts[2]) if len(parts) == 3 else 1
        except ValueError:
            continue
        runs *= max(points, 1)
        if runs > MAX_TASKS:
            raise ForecastError(
                f"--vary {name}: {points:,} points make the sweep {runs:,} runs or more (grid "
                f"points x {seeds} seed(s)), more than {MAX_TASKS:,}; use fewer points or seeds")
    return runs


def parse_vary(text: str, scenario: Any) -> Vary:
    """``INPUT=LOW:HIGH:N`` -> :class:`Vary`, checked against the scenario's inputs.

    Raises
    ------
    ForecastError
        On bad syntax, an unknown input, ``N < 1``, values outside the input's range, or a
        quarter grid that repeats quarters.
    """
    name, equals, grid = text.partition("=")
    parts = grid.split(":")
    if not equals or not name or len(parts) != 3:
        raise ForecastError(f"--vary takes INPUT=LOW:HIGH:N, got {text!r}")
    if name not in scenario.inputs:
        raise ForecastError(f"--vary: scenario {scenario.name} has no input {name!r} "
                            f"(see: cli.py scenarios show {scenario.name})")
    spec = scenario.inputs[name]
    low, high = (_bound(part, name, spec.is_quarter) for part in parts[:2])
    try:
        n = int(parts[2])
    except ValueError:
        raise ForecastError(f"--vary {name}: N must be an integer, got {parts[2]!r}") from None
    if n > MAX_TASKS:  # before the grid is built: np.linspace would allocate 8 bytes a point
        raise ForecastError(f"--vary {name}: {n:,} points, more than a sweep's {MAX_TASKS:,} "
                            "runs")
    if n < 1 or (n == 1 and low != high) or not (math.isfinite(low) and math.isfinite(high)):
        raise ForecastError(f"--vary {name}: need finite LOW and HIGH and N >= 1 "
                            f"(N = 1 only with LOW = HIGH), got {grid!r}")
    lowest, highest = float(spec.quantile(0.0)), float(spec.quantile(1.0))
    for value in (low, high):
        if not lowest <= value <= highest:
            raise ForecastError(
                f"--vary {name}: {spec.format_value(value)} is outside the input's range "
                f"[{spec.format_value(lowest)}, {spec.format_value(highest)}]")
        _check_held(name, value, scenario)
    values = np.linspace(low, high, n)
    if spec.is_quarter:
        values = np.round(values)
        if len(set(values)) < n:
            raise ForecastError(f"--vary {name}: {n} points repeat quarters between "
                                f"{parts[0]} and {parts[1]}")
    return Vary(name, tuple(float(v) for v in values), spec.is_quarter)


def _check_held(name: str, value: float, scenario: Any) -> None:
    """A held value is one every part the input plays can take, within the sane range of a
    draw (:mod:`forecast.core.input_support`): a lognormal input's range has no top."""
    from forecast.core.input_support import QUARTER
    from forecast.scenarios.supports import input_roles

    for role in input_roles(scenario).get(name, []):
        part = role.support
        if part is QUARTER:
            continue
        if not (part.contains(value) and part.sane_low <= value <= part.sane_high):
            raise ForecastError(f"--vary {name}: {value:g} is not {part.name} within "
                                f"{part.sane_low:g} to {part.sane_high:g}, the sane range of a "
                                f"draw ({role.reader} reads it)")


def parse_varies(texts: Sequence[str], scenario: Any) -> list[Vary]:
    """Every ``--vary`` (:func:`parse_vary`): at least one, each input at most once."""
    if not texts:
        raise ForecastError("a sweep needs at least one --vary INPUT=LOW:HIGH:N")
    varies = [parse_vary(text, scenario) for text in texts]
    names = [vary.name for vary in varies]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ForecastError(f"--vary {repeated[0]} is given more than once")
    return varies


def sweep_seeds(seed: int, seeds: int) -> list[int]:
    """The seeds of a sweep: ``seed, seed + 1, ..., seed + seeds - 1``."""
    if seeds < 1:
        raise ForecastError(f"--seeds must be >= 1, got {seeds}")
    check_sweep_size([], seeds)  # before the list is built
    return [int(seed) + k for k in range(int(seeds))]


def point_inputs(scenario: Any, values: Mapping[str, float], draws: int,
                 seed: int) -> pd.DataFrame:
    """The scenario's input draws with the varied columns held at ``values``."""
    inputs = scenario.sample(int(draws), seed=int(seed))
    for name, value in values.items():
        column = inputs[name]
        inputs[name] = np.full(len(inputs), int(value) if column.dtype.kind == "i"
                               else float(value), dtype=column.dtype)
    return inputs


def simulate_point(bundle: Any, dataset: Any, scenario: Any, values: Mapping[str, float],
                   draws: int, seed: int, horizon: int | None = None) -> Forecast:
    """One grid point: :func:`~forecast.pipeline.simulate.simulate` with held inputs."""
    from forecast.pipeline.simulate import simulate

    return simulate(bundle, dataset, scenario, draws=draws, seed=seed, horizon=horizon,
                    inputs=point_inputs(scenario, values, draws, seed))


def point_row(forecast: Forecast) -> dict[str, float]:
    """The numbers of one grid point: each thesis's ``prob_<thesis>`` and ``mcse_<thesis>``,
    and the horizon year's median of each headline metric, ``median_<metric>_<year>``
    (``median_share_<vendor>_<year>`` for shares)."""
    row: dict[str, float] = {}
    for thesis in forecast.theses().itertuples(index=False):
        row[f"prob_{thesis.name}"] = float(thesis.probability)
        row[f"mcse_{thesis.name}"] = float(thesis.mcse)
    year = str(forecast.meta["horizon"])
    for metric in HEADLINE_METRICS:
        if metric not in forecast.data:
            continue
        table = forecast.quantiles(metric, q=(0.5,))
        table = table[table["period"] == year]
        for label, value in zip(table["key"], table["q50"], strict=True):
            row[f"median_{metric}" + (f"_{label}" if label else "") + f"_{year}"] = float(value)
    return row


@dataclass(frozen=True)
class SweepTask:
    """One (grid point, seed) of a sweep: everything :func:`run_point` needs, nothing else."""

    bundle: Any
    dataset: Any
    scenario: Any
    point: int
    values: tuple[tuple[str, float], ...]
    seed: int
    draws: int
    horizon: int | None


def run_point(task: SweepTask) -> dict[str, Any]:
    """Simulate one grid point at one seed; returns ``point``, ``seed`` and the numbers."""
    forecast = simulate_point(task.bundle, task.dataset, task.scenario, dict(task.values),
                              task.draws, task.seed, task.horizon)
    return {"point": task.point, "seed": task.seed, **point_row(forecast)}


@dataclass
class SweepResult:
    """A sweep's tidy table and what made it.

    ``table`` has one row per grid point x seed, in grid order then seed order: ``point``
    (grid index), ``seed``, the varied inputs (quarter inputs as labels), then the columns
    of :func:`point_row`.
    """

    table: pd.DataFrame
    scenario: Any
    fit_id: str
    varies: list[Vary]
    draws: int
    seeds: list[int]
    horizon: int
    seconds: float = 0.0

    @property
    def inputs(self) -> list[str]:
        """Names of the varied inputs, in grid order."""
        return [vary.name for vary in self.varies]

    @property
    def theses(self) -> list[str]:
        """Names of the theses with a probability column."""
        return [c[len("prob_"):] for c in self.table.columns if c.startswith("prob_")]


def sweep_tasks(bundle: Any, dataset: Any, scenario: Any, varies: Sequence[Vary],
                seeds: Sequence[int], draws: int, horizon: int | None) -> list[SweepTask]:
    """One task per grid point (first input slowest) and seed."""
    grid = list(itertools.product(*(vary.values for vary in varies)))
    if len(grid) * len(seeds) > MAX_TASKS:
        raise ForecastError(f"the sweep has {len(grid) * len(seeds)} runs, more than "
                            f"{MAX_TASKS}; use fewer points or seeds")
    names = [vary.name for vary in varies]
    return [SweepTask(bundle, dataset, scenario, point, tuple(zip(names, values, strict=True)),
                      seed, draws, horizon)
            for point, values in enumerate(grid) for seed in seeds]


def _table(tasks: Sequence[SweepTask], rows: Sequence[Mapping[str, Any]],
           varies: Sequence[Vary]) -> pd.DataFrame:
    """Rows in task order with the varied inputs after ``point`` and ``seed``."""
    table = pd.DataFrame(list(rows))
    for position, vary in enumerate(varies):
        shown = [dict(task.values)[vary.name] for task in tasks]
        table.insert(2 + position, vary.name,
                     [quarter_label(int(v)) for v in shown] if vary.is_quarter else shown)
    return table


def run_sweep(name: str, vary: Sequence[str], *, draws: int | None = None,
              seed: int | None = None, seeds: int = 1, horizon: int | None = None,
              root: str | Path | None = None, fit_id: str | None = None,
              data_dir: str | Path | None = None, map_fn: MapFn = map,
              progress: Callable[[str], None] | None = None) -> SweepResult:
    """Sweep a scenario's inputs over a grid, re-simulating from its stored fit.

    Parameters
    ----------
    name
        Scenario name or file.
    vary
        ``INPUT=LOW:HIGH:N`` texts (see :func:`parse_vary`), at least one.
    draws, seed, horizon
        Paths per run, first seed and last year (defaults: the scenario's).
    seeds
        Seeds per grid point: ``seed .. seed + seeds - 1``.
    root, fit_id, data_dir
        Which fit and data, as for :func:`forecast.pipeline.runner.run_scenario`.
    map_fn
        Runs :func:`run_point` over the tasks, returning results in task order (builtin
        ``map`` by default; see :mod:`forecast.pipeline.execution`).
    progress
        Called with a line when a fit has to be made first.

    Returns
    -------
    SweepResult
        The table (see :class:`SweepResult`) and its provenance.
    """
    from forecast.pipeline.runner import load_run
    from forecast.scenarios import load_scenario

    started = time.perf_counter()
    scenario = load_scenario(name)
    check_sweep_size(vary, seeds)
    varies = parse_varies(vary, scenario)
    draws = scenario.draws if draws is None else int(draws)
    if draws <= 0:
        raise ForecastError(f"--draws must be > 0, got {draws}")
    seed_list = sweep_seeds(scenario.seed if seed is None else int(seed), seeds)
    scenario, dataset, bundle = load_run(name, root=root, fit_id=fit_id, data_dir=data_dir,
                                         progress=progress)
    tasks = sweep_tasks(bundle, dataset, scenario, varies, seed_list, draws, horizon)
    rows = list(map_fn(run_point, tasks))
    table = _table(tasks, rows, varies)
    return SweepResult(table=table, scenario=scenario, fit_id=bundle.fit_id, varies=varies,
                       draws=draws, seeds=seed_list,
                       horizon=scenario.horizon if horizon is None else int(horizon),
                       seconds=time.perf_counter() - started)
