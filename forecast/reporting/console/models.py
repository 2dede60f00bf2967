"""The models one at a time: a reported series' forecast, a backtest, a diffusion fit.

These commands fit or load models, so they import the modelling code (and PyMC) when called.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from forecast.core.errors import ForecastError
from forecast.core.presentation import format_number
from forecast.reporting.console.table import table_text


def series_text(name: str | None, *, quarters: int = 4, fmt: str = "table",
                scenario: str = "base", data_dir: str | Path | None = None,
                root: str | Path | None = None,
                progress: Callable[[str], None] | None = None) -> str:
    """The posterior predictive of an observed revenue series, or the series' names.

    Parameters
    ----------
    name
        Series name; None lists the names.
    quarters
        Fiscal quarters ahead (> 0).
    fmt
        ``table`` (rounded to 3 decimals, with a header line) or ``json`` (records).
    scenario
        Scenario whose fit (its spend model) forecasts the series.
    data_dir, root
        Data directory and fit store (defaults: the project's).
    progress
        Called with a line per fitting step when a fit has to be made.

    Returns
    -------
    str
        The text.

    Raises
    ------
    ForecastError
        On ``quarters <= 0`` or an unknown series.
    """
    from forecast.models.spend.evidence import FORECAST_SERIES

    if name is None:
        return "\n".join(FORECAST_SERIES)
    if quarters <= 0:
        raise ForecastError(f"--quarters must be > 0, got {quarters}")
    from forecast.pipeline.runner import load_run

    _, _, bundle = load_run(scenario, root=root, data_dir=data_dir, progress=progress)
    spend = bundle.models["spend"]
    if name not in spend.series_names():
        raise ForecastError(f"unknown series {name!r} (known: "
                            f"{', '.join(spend.series_names())})")
    table = spend.series_forecast(name, quarters=quarters)
    if fmt == "json":
        return table.to_json(orient="records", date_format="iso", double_precision=4)
    numeric = table.select_dtypes("number").columns
    table[numeric] = table[numeric].round(3)
    return (f"{name}: posterior predictive, USD billions per fiscal quarter "
            f"(fit {bundle.fit_id})\n" + table_text(table))


def diffusion_text(file: str | Path, *, model: str = "bass", fmt: str = "table",
                   progress: Callable[[str], None] | None = None) -> str:
    """Fit a Bass-family model to a unit series (``period,value`` CSV) and report it.

    Parameters
    ----------
    file
        The CSV file; checked before the (slow) fit.
    model
        ``bass``, ``gbass`` or ``norton-bass``.
    fmt
        ``table`` or ``json``.
    progress
        Called once before fitting.

    Returns
    -------
    str
        Parameters with their intervals and the convergence diagnostics.
    """
    import pandas as pd

    from forecast.models.diffusion import diffusion_report, fit_units_csv, read_units_csv

    read_units_csv(file, model)  # bad input fails here, before the slow part
    if progress is not None:
        progress(f"fitting {model} to {file} (NUTS; about 10-30 s)...")
    report = diffusion_report(fit_units_csv(file, kind=model))
    if fmt == "json":
        return json.dumps(report, indent=2)
    from forecast.core.quantile_schema import quantile_columns

    table = pd.DataFrame(report["parameters"])
    for column in quantile_columns(table):
        table[column] = table[column].map(lambda value: format_number(value, missing="nan"))
    status = "converged" if report["converged"] else "NOT CONVERGED: do not rely on it"
    return "\n".join([
        f"{report['model']} fit to {report['n_observations']} periods "
        f"({int(report['interval'] * 100)}% intervals; p and q per period)",
        table_text(table),
        f"max r_hat {report['max_r_hat']:.4f}, min bulk ESS {report['min_ess_bulk']:.0f}, "
        f"divergences {report['divergences']}: {status}",
    ])
