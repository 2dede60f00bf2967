"""The commands whose runs go to Dask: the market backtest and the sensitivity analysis.

Each opens the executor of ``--workers`` / ``--scheduler``
(:func:`forecast.reporting.console.progress.task_executor`: serial, a local cluster or a
user's cluster, with a progress bar) and closes it before returning.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from forecast.core.errors import ForecastError
from forecast.reporting.console.table import table_text


def backtest_text(*, origins: int = 6, horizon: int = 4, draws: int = 1000,
                  data_dir: str | Path | None = None, workers: int | None = None,
                  scheduler: str | None = None,
                  progress: Callable[[str], None] | None = None) -> str:
    """Rolling-origin backtest of the market model against simple baselines.

    Every (model, origin) fit is one task on the executor.

    Parameters
    ----------
    origins, horizon
        Forecast origins and quarters ahead (both > 0).
    draws
        Posterior predictive draws per forecast (> 0).
    data_dir
        Data directory (default: the project's ``data/``).
    workers, scheduler
        Where the fits run (:func:`forecast.pipeline.execution.resolve`).
    progress
        Called with progress lines.

    Returns
    -------
    str
        The summary table, rounded to 3 decimals.
    """
    from forecast.data.dataset import load_dataset
    from forecast.evaluation.market_backtest import backtest_market
    from forecast.pipeline.execution import resolve
    from forecast.reporting.console.progress import task_executor

    if origins <= 0 or horizon <= 0:
        raise ForecastError("--origins and --horizon must be > 0")
    if draws <= 0:
        raise ForecastError(f"--draws must be > 0, got {draws}")
    resolve(workers, scheduler)
    dataset = load_dataset(data_dir)
    with task_executor(workers, scheduler, progress) as task_map:
        _, summary = backtest_market(dataset, origins=origins, horizon=horizon, draws=draws,
                                     map_fn=task_map)
    return table_text(summary.round(3))


def sensitivity_result(scenario: str, metric: str, *, workers: int | None = None,
                       scheduler: str | None = None,
                       progress: Callable[[str], None] | None = None, **options: Any) -> Any:
    """:func:`forecast.reporting.sensitivity.run_sensitivity` with its one-at-a-time runs
    on the executor of ``workers`` / ``scheduler``; ``options`` are its keyword arguments."""
    from forecast.pipeline.execution import resolve
    from forecast.reporting.console.progress import task_executor
    from forecast.reporting.sensitivity import parse_output, run_sensitivity
    from forecast.scenarios import load_scenario

    load_scenario(scenario)  # bad input fails before a cluster starts
    parse_output(metric, options.get("stat", "median"))
    resolve(workers, scheduler)
    with task_executor(workers, scheduler, progress) as task_map:
        return run_sensitivity(scenario, metric, map_fn=task_map, progress=progress,
                               **options)
