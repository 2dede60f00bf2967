"""``cli.py sweep``: run a scenario sweep on the chosen executor, write its files, summarise."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.core.errors import ForecastError
from forecast.reporting.console.table import table_text

#: Grid points the summary lists before pointing to the CSV.
SHOWN_POINTS = 40


def sweep_summary(result: Any, thesis: str) -> pd.DataFrame:
    """Per grid point (seeds averaged): the varied inputs, the thesis probability and its
    Monte Carlo error, rounded for the terminal."""
    from forecast.reporting.sweep import point_summary

    frame = point_summary(result, thesis).rename(columns={"prob": f"P({thesis})"})
    for name in result.inputs:
        if not result.scenario.inputs[name].is_quarter:
            frame[name] = frame[name].map(lambda v: f"{v:.4g}")
    return frame.round(3)


def sweep_text(scenario: str, vary: Sequence[str], *, draws: int | None = None,
               seed: int | None = None, seeds: int = 1, horizon: int | None = None,
               thesis: str | None = None, out: str | Path = "out",
               root: str | Path | None = None, fit_id: str | None = None,
               data_dir: str | Path | None = None, workers: int | None = None,
               scheduler: str | None = None,
               progress: Callable[[str], None] | None = None) -> str:
    """Sweep a scenario over a grid of inputs, write the table and chart, return a summary.

    Parameters
    ----------
    scenario, vary, draws, seed, seeds, horizon, root, fit_id, data_dir
        As for :func:`forecast.pipeline.sweep.run_sweep`.
    thesis
        Thesis charted and summarised (default: the scenario's first).
    out
        Directory for ``sweep_<scenario>.csv``, ``.parquet`` and the PNG (checked writable
        before any run).
    workers, scheduler
        Where the runs go (:func:`forecast.pipeline.execution.resolve`).
    progress
        Called with progress lines and a ``wrote PATH`` line per file.

    Returns
    -------
    str
        A header line and the thesis probability per grid point.
    """
    from forecast.pipeline.execution import resolve
    from forecast.pipeline.sweep import check_sweep_size, parse_varies, run_sweep, sweep_seeds
    from forecast.reporting.console.progress import task_executor
    from forecast.reporting.outputs import check_out_dir
    from forecast.reporting.sweep import check_thesis, write_sweep
    from forecast.scenarios import load_scenario

    # Bad input fails here, before a grid is built, a cluster starts or a file is written.
    check_sweep_size(vary, seeds)
    loaded = load_scenario(scenario)
    parse_varies(vary, loaded)
    sweep_seeds(0, seeds)
    if draws is not None and draws <= 0:
        raise ForecastError(f"--draws must be > 0, got {draws}")
    thesis = check_thesis(loaded, thesis)
    resolve(workers, scheduler)
    directory = check_out_dir(out)
    say = progress or (lambda line: None)
    with task_executor(workers, scheduler, progress) as task_map:
        result = run_sweep(scenario, vary, draws=draws, seed=seed, seeds=seeds,
                           horizon=horizon, root=root, fit_id=fit_id, data_dir=data_dir,
                           map_fn=task_map, progress=progress)
    for path in write_sweep(result, directory, thesis):
        say(f"wrote {path}")
    summary = sweep_summary(result, thesis)
    points = len(summary)
    lines = [f"sweep of scenario {result.scenario.name}, fit {result.fit_id}: {points} grid "
             f"points x {len(result.seeds)} seed(s), {result.draws} paths each, "
             f"{len(result.table)} runs in {result.seconds:.1f} s",
             f"thesis {thesis}: probability per grid point (mean over seeds) "
             "+- its Monte Carlo error",
             table_text(summary.head(SHOWN_POINTS))]
    if points > SHOWN_POINTS:
        lines.append(f"... {points - SHOWN_POINTS} more grid points in the CSV")
    return "\n".join(lines)
