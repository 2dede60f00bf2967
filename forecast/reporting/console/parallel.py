"""The commands whose runs go to Dask: the backtests and the sensitivity analysis.

Each opens the executor of ``--workers`` / ``--scheduler``
(:func:`forecast.reporting.console.progress.task_executor`: serial, a local cluster or a
user's cluster, with a progress bar) and closes it before returning.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from forecast.core.errors import ForecastError
from forecast.reporting.console.table import table_text

#: Backtests ``python cli.py backtest TARGET`` runs: target -> "module:function". Each
#: function takes ``(dataset, *, origins, quarters, draws, map_fn)`` and returns ``(tidy,
#: summary)`` with the harness's JSON summary in ``tidy.attrs["report"]``; its module has a
#: ``check_backtest(dataset, origins, quarters)`` (:func:`check_backtest_size`).
BACKTESTS: dict[str, str] = {
    "spend": "forecast.evaluation.spend_backtest:backtest_spend",
    "price": "forecast.evaluation.price_backtest:backtest_price_cli",
    "share": "forecast.evaluation.share_backtest:backtest_share_cli",
}
#: Peak memory of a backtest over the samples its forecasts hold (the scores and the stack's
#: mixtures copy them once more), rounded up.
BACKTEST_PEAK = 3.0


def check_backtest_size(dataset: Any, target: str, origins: int, quarters: int,
                        draws: int) -> None:
    """Refuse, before a cluster starts or a model is fitted, ``--origins`` the data cannot
    give (each backtest module's ``check_backtest``) and samples that would not fit in memory.

    Raises
    ------
    ForecastError
        Naming the flag and the most the data or the memory allow.
    """
    import importlib

    from forecast.pipeline.runner import MEMORY_MARGIN, available_memory

    module = importlib.import_module(BACKTESTS[target].split(":")[0])
    values = module.check_backtest(dataset, origins, quarters)
    per_draw = origins * values * 8 * BACKTEST_PEAK
    available = available_memory()
    if draws * per_draw > MEMORY_MARGIN * available:
        raise ForecastError(
            f"--draws {draws}: {origins} origins of {target} forecasts would hold about "
            f"{draws * per_draw / 1e9:.3g} GB of samples and {available / 1e9:.3g} GB is "
            f"available: at most {int(MEMORY_MARGIN * available // per_draw)} draws fit")


def backtest_text(target: str = "spend", *, origins: int = 6, quarters: int = 4,
                  draws: int = 1000, fmt: str = "table",
                  data_dir: str | Path | None = None, workers: int | None = None,
                  scheduler: str | None = None, out: str | Path | None = None,
                  progress: Callable[[str], None] | None = None) -> str:
    """Rolling-origin backtest of one model against its naive baselines.

    Every (forecaster, origin) fit is one task on the executor.

    Parameters
    ----------
    target
        A key of :data:`BACKTESTS`.
    origins, quarters
        Forecast origins and quarters ahead (both > 0).
    draws
        Posterior predictive draws per forecast (> 0).
    fmt
        ``table`` (the summary, rounded to 3 decimals) or ``json`` (the harness's shape:
        pooled and per-quarter-ahead scores and the PIT histogram of every forecaster).
    data_dir
        Data directory (default: the project's ``data/``).
    workers, scheduler
        Where the fits run (:func:`forecast.pipeline.execution.resolve`).
    out
        Also write ``backtest_<target>.json`` (the JSON of ``fmt="json"``) and
        ``pit_<target>.png`` (the PIT histogram of every forecaster) into this directory
        (:func:`forecast.reporting.outputs.write_backtest_files`), made and proven writable
        before any fit; ``progress`` says where they went.
    progress
        Called with progress lines.
    """
    import importlib

    from forecast.data.dataset import load_dataset
    from forecast.pipeline.execution import resolve
    from forecast.reporting.console.progress import task_executor
    from forecast.reporting.outputs import backtest_json, check_out_dir, write_backtest_files

    if target not in BACKTESTS:
        raise ForecastError(f"unknown backtest {target!r} (known: {', '.join(BACKTESTS)})")
    if origins <= 0 or quarters <= 0:
        raise ForecastError("--origins and --quarters must be > 0")
    if draws <= 0:
        raise ForecastError(f"--draws must be > 0, got {draws}")
    dataset = load_dataset(data_dir)
    check_backtest_size(dataset, target, origins, quarters, draws)
    resolve(workers, scheduler)
    directory = check_out_dir(out) if out is not None else None
    module, function = BACKTESTS[target].split(":")
    run = getattr(importlib.import_module(module), function)
    with task_executor(workers, scheduler, progress) as task_map:
        tidy, summary = run(dataset, origins=origins, quarters=quarters, draws=draws,
                            map_fn=task_map)
    # A forecaster that failed at an origin is left out of the scores: say so, never hide it.
    for failure in tidy.attrs.get("failures", []):
        print(f"warning: not scored: {failure}", file=sys.stderr)
    if directory is not None:
        for path in write_backtest_files(tidy.attrs["report"], target, directory):
            if progress is not None:
                progress(f"wrote {path}")
    if fmt == "json":
        return backtest_json(tidy.attrs["report"])
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
