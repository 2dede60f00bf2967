"""A sweep's files and chart: the tidy table as CSV and Parquet, a heat map of a thesis.

:func:`thesis_grid` averages a thesis probability over seeds (and over any varied input past
the first two) into a grid; :func:`sweep_chart` draws it as a heat map over the first two
varied inputs, or as a line with its Monte Carlo band when one input is varied;
:func:`write_sweep` writes ``sweep_<scenario>.csv``, ``.parquet`` and
``sweep_<scenario>_<thesis>.png``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.pipeline.sweep import SweepResult

#: Grid cells above which the heat map shows colours only, no numbers.
ANNOTATE_CELLS = 150


def check_thesis(result: SweepResult | Any, thesis: str | None) -> str:
    """The thesis to chart: ``thesis``, or the first one; one of the scenario's theses.

    ``result`` is a :class:`SweepResult` or a scenario.
    """
    names = list(result.theses)
    if not names:
        raise ForecastError("the scenario has no thesis to chart")
    if thesis is None:
        return names[0]
    if thesis not in names:
        raise ForecastError(f"unknown thesis {thesis!r} (known: {', '.join(names)})")
    return thesis


def thesis_grid(result: SweepResult, thesis: str) -> pd.DataFrame:
    """Mean probability and Monte Carlo error of ``thesis`` per value of the first one or
    two varied inputs (averaged over seeds and the other inputs).

    Returns a frame indexed by the first input's values (grid order) with columns
    ``prob`` and ``mcse`` for one varied input, or a probability matrix (rows: first
    input, columns: second input) for two or more; ``attrs["mcse"]`` holds the matrix of
    errors and ``attrs["averaged"]`` the number of runs behind each cell.
    """
    thesis = check_thesis(result, thesis)
    table = result.table
    keys = result.varies[:2]
    prob, mcse = table[f"prob_{thesis}"], table[f"mcse_{thesis}"]
    runs = len(table) // int(np.prod([len(v.values) for v in keys]))
    # The mean of n runs' estimates has the error of one over sqrt(n) (independent seeds
    # or inputs; an upper bound otherwise).
    groups = [table[v.name] for v in keys]
    mean = prob.groupby(groups, sort=False).mean()
    error = (mcse.groupby(groups, sort=False).mean() / np.sqrt(runs))
    if len(keys) == 1:
        order = keys[0].labels()
        frame = pd.DataFrame({"prob": mean.reindex(order), "mcse": error.reindex(order)})
        frame.index.name = keys[0].name
        frame.attrs["averaged"] = runs
        return frame
    rows, columns = keys[0].labels(), keys[1].labels()
    matrix = mean.unstack().reindex(index=rows, columns=columns)
    matrix.attrs["mcse"] = error.unstack().reindex(index=rows, columns=columns)
    matrix.attrs["averaged"] = runs
    return matrix


def point_summary(result: SweepResult, thesis: str) -> pd.DataFrame:
    """Per grid point, in grid order: the varied inputs (as in the table), ``prob`` (the
    thesis probability averaged over seeds) and ``mcse`` (its Monte Carlo error)."""
    thesis = check_thesis(result, thesis)
    grouped = result.table.groupby("point", sort=True)
    frame = grouped[result.inputs].first().reset_index(drop=True)
    frame["prob"] = grouped[f"prob_{thesis}"].mean().to_numpy()
    frame["mcse"] = grouped[f"mcse_{thesis}"].mean().to_numpy() / np.sqrt(len(result.seeds))
    return frame


def _title(result: SweepResult, thesis: str) -> str:
    others = result.inputs[2:]
    runs = f"{len(result.seeds)} seed{'s' if len(result.seeds) > 1 else ''}"
    extra = f", averaged over {', '.join(others)}" if others else ""
    return (f"P({thesis}), scenario {result.scenario.name}\n"
            f"{result.draws} paths x {runs} per point{extra}")


def _heat_map(result: SweepResult, thesis: str, grid: pd.DataFrame) -> tuple[Any, Any]:
    import matplotlib.pyplot as plt

    first, second = result.varies[:2]
    fig, ax = plt.subplots(figsize=(max(7.0, 3.0 + 0.65 * len(second.values)),
                                    max(5.0, 2.2 + 0.4 * len(first.values))))
    image = ax.imshow(grid.to_numpy(float), origin="lower", aspect="auto", cmap="viridis",
                      vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(grid.columns)))
    ax.set_xticklabels([_tick(v) for v in grid.columns], rotation=45, ha="right",
                       fontsize="small")
    ax.set_yticks(range(len(grid.index)))
    ax.set_yticklabels([_tick(v) for v in grid.index], fontsize="small")
    ax.set_xlabel(_axis_label(result, second.name))
    ax.set_ylabel(_axis_label(result, first.name))
    if grid.size <= ANNOTATE_CELLS:
        for (i, j), value in np.ndenumerate(grid.to_numpy(float)):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize="x-small",
                    color="white" if value < 0.6 else "black")
    fig.colorbar(image, ax=ax, label=f"P({thesis})")
    ax.set_title(_title(result, thesis), fontsize="medium")
    fig.tight_layout()
    return fig, ax


def _line(result: SweepResult, thesis: str, grid: pd.DataFrame) -> tuple[Any, Any]:
    import matplotlib.pyplot as plt

    x = np.arange(len(grid))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    prob, band = grid["prob"].to_numpy(float), 2 * grid["mcse"].to_numpy(float)
    ax.fill_between(x, np.clip(prob - band, 0, 1), np.clip(prob + band, 0, 1), alpha=0.3,
                    color="tab:blue", label="+- 2 Monte Carlo errors")
    ax.plot(x, prob, marker="o", color="tab:blue", label=f"P({thesis})")
    ax.set_xticks(x)
    ax.set_xticklabels([_tick(v) for v in grid.index], rotation=45, ha="right",
                       fontsize="small")
    ax.set_xlabel(_axis_label(result, result.inputs[0]))
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    ax.set_title(_title(result, thesis), fontsize="medium")
    fig.tight_layout()
    return fig, ax


def _tick(value: Any) -> str:
    return value if isinstance(value, str) else f"{value:.4g}"


def _axis_label(result: SweepResult, name: str) -> str:
    unit = result.scenario.inputs[name].unit
    return f"{name}\n({unit})" if unit else name


def sweep_chart(result: SweepResult, thesis: str | None = None) -> tuple[Any, Any]:
    """Heat map of a thesis probability over the first two varied inputs (a line chart
    when one input is varied); returns ``(fig, ax)``."""
    from forecast.reporting import plots  # noqa: F401  (selects the Agg backend)

    thesis = check_thesis(result, thesis)
    grid = thesis_grid(result, thesis)
    if len(result.varies) == 1:
        return _line(result, thesis, grid)
    return _heat_map(result, thesis, grid)


def sweep_paths(result: SweepResult, directory: Path, thesis: str) -> dict[str, Path]:
    """Where :func:`write_sweep` writes: keys ``csv``, ``parquet`` and ``png``."""
    stem = f"sweep_{result.scenario.name}"
    return {"csv": directory / f"{stem}.csv", "parquet": directory / f"{stem}.parquet",
            "png": directory / f"{stem}_{thesis}.png"}


def write_sweep(result: SweepResult, directory: str | Path,
                thesis: str | None = None) -> list[Path]:
    """Write the table (CSV, Parquet) and the chart of ``thesis`` (PNG) into ``directory``.

    Each file is written under a temporary name and renamed into place, so a reader never
    sees half a file. Returns the paths: CSV, Parquet, PNG.
    """
    from forecast.reporting import plots

    thesis = check_thesis(result, thesis)
    paths = sweep_paths(result, Path(directory), thesis)
    table = result.table

    def place(path: Path, write: Any) -> None:
        staging = path.with_name(f".{path.stem}.tmp{path.suffix}")
        write(staging)
        os.replace(staging, path)

    place(paths["csv"], lambda p: table.to_csv(p, index=False, float_format="%.6g"))
    place(paths["parquet"], lambda p: table.to_parquet(p, index=False))
    place(paths["png"], lambda p: plots.save(sweep_chart(result, thesis)[0], p))
    return list(paths.values())
