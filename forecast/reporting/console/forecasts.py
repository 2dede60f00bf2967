"""Forecasts on the terminal: headline quantiles, theses, scenarios side by side.

Imports only numpy, pandas and xarray (through :mod:`forecast.pipeline.results`): a forecast
from a stored fit never loads SciPy, Matplotlib or PyMC.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from forecast.core.errors import ForecastError
from forecast.core.presentation import HEADLINE, HEADLINE_VENDORS, PROBABILITY, format_number
from forecast.pipeline.results import Forecast, quantile_table
from forecast.reporting.console.table import table_text

#: Output formats of :func:`forecast_text`.
FORMATS = ("table", "json", "csv")


def _number(value: float, unit: str) -> str:
    # Fixed-width columns: no thousands separators; a missing value as Python prints it.
    return format_number(value, unit, missing="nan", thousands=False)


def headline_text(result: Forecast) -> str:
    """Calendar-year 10/50/90% of the headline metrics, one block per metric.

    Parameters
    ----------
    result
        The forecast.

    Returns
    -------
    str
        For each metric of :data:`~forecast.core.presentation.HEADLINE` a title line with its
        unit, then a line per year (and vendor of
        :data:`~forecast.core.presentation.HEADLINE_VENDORS`).
    """
    table = quantile_table(result, HEADLINE)
    table = table[table["key"].isin(HEADLINE_VENDORS)]
    lines = []
    for metric, group in table.groupby("metric", sort=False):
        unit = group["unit"].iloc[0]
        lines.append(f"{metric} ({unit}), calendar year: 10% / 50% / 90%")
        for row in group.itertuples(index=False):
            label = f"{row.period} {row.key}".strip()
            lines.append(f"  {label:<16} {_number(row.q10, unit):>8} "
                         f"{_number(row.q50, unit):>8} {_number(row.q90, unit):>8}")
    return "\n".join(lines)


def theses_text(result: Forecast) -> str:
    """Every thesis with its probability, Monte Carlo error, statement, the 10/50/90% of the
    value it compares with its threshold, and when it is met (by calendar year)."""
    lines = ["theses (probability +- Monte Carlo standard error):"]
    for row in result.theses().itertuples(index=False):
        lines.append(f"  {row.name}: P = {_number(row.probability, PROBABILITY)} +- "
                     f"{_number(row.mcse, PROBABILITY)}")
        lines.append(f"      {row.statement}")
        note = getattr(row, "note", None)
        if isinstance(note, str):
            lines.append(f"      not evaluated: {note}")
        elif row.metric_q50 == row.metric_q50:
            unit = getattr(row, "unit", None) or ""
            values = " / ".join(format_number(getattr(row, f"metric_q{q}"), unit, missing="nan")
                                for q in (10, 50, 90))
            lines.append(f"      value 10% / 50% / 90%: {values}"
                         + (f" ({unit})" if unit else ""))
        first = getattr(row, "first_year_median", None)
        if first is not None and first == first:
            lines.append(f"      median first year reached: {first:.0f}; never within the "
                         f"horizon in {row.never_within_horizon:.0%} of paths")
        reached = getattr(row, "first_reached_years", None)
        if not isinstance(reached, dict):
            reached = getattr(row, "first_reached", None)
        if isinstance(reached, dict) and reached:
            lines.append("      first reached: " + ", ".join(
                f"{label} {'<1%' if share < 0.005 else f'{share:.0%}'}"
                for label, share in reached.items() if share > 0)
                + f"; never {row.never_within_horizon:.0%}")
    return "\n".join(lines)


def thesis_comparison_text(results: Sequence[Forecast]) -> str:
    """Every thesis of any of the scenarios, ``P +- Monte Carlo error`` under each one
    (``-`` where a scenario does not define it, ``n/a`` where it cannot be evaluated)."""
    tables = {r.scenario: r.theses() for r in results}
    tables = {name: (t.set_index("name") if not t.empty else t) for name, t in tables.items()}
    theses = list(dict.fromkeys(n for t in tables.values() for n in t.index))
    rows = []
    for thesis in theses:
        row = {"thesis": thesis}
        for name, table in tables.items():
            if thesis not in table.index:
                row[name] = "-"
                continue
            p, error = table.loc[thesis, "probability"], table.loc[thesis, "mcse"]
            row[name] = "n/a" if p != p else f"{p:.3f} +- {error:.3f}"
        rows.append(row)
    return table_text(pd.DataFrame(rows, columns=["thesis", *tables]))


def comparison_text(results: Sequence[Forecast]) -> str:
    """Medians in the horizon year and every thesis's probability with its Monte Carlo error,
    one column per scenario (:func:`thesis_comparison_text`)."""
    names = [r.scenario for r in results]
    tables = [quantile_table(r, HEADLINE, years=[str(r.meta["horizon"])]).assign(
        scenario=r.scenario) for r in results]
    medians = pd.concat(tables).pivot_table(
        index=["metric", "period", "key"], columns="scenario", values="q50",
        sort=False)[names]
    return "\n".join([
        f"median in {results[0].meta['horizon']} by scenario",
        table_text(medians.round(3).reset_index()),
        "",
        "thesis probabilities by scenario",
        "(each P +- its Monte Carlo standard error, which counts the posterior's ESS)",
        thesis_comparison_text(results),
        *skill_text(results[0].meta.get("skill_gaps", []), results[0].meta.get("stack")),
    ])


def forecast_text(results: Sequence[Forecast], fmt: str = "table",
                  compare: bool = False) -> str:
    """What ``cli.py forecast`` prints for one forecast, or several compared.

    Parameters
    ----------
    results
        The forecasts (one unless ``compare``).
    fmt
        ``table``: provenance, :func:`headline_text` and :func:`theses_text` (or
        :func:`comparison_text`); ``json``: the summary (a list of them when comparing);
        ``csv``: the headline quantiles (one forecast only; a comparison prints its table).
    compare
        Several scenarios side by side.

    Returns
    -------
    str
        The text, without a final newline.
    """
    if fmt not in FORMATS:
        raise ForecastError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if compare:
        if fmt == "json":
            return json.dumps([r.summary() for r in results], indent=2, sort_keys=True)
        return comparison_text(results)
    result = results[0]
    if fmt == "json":
        return json.dumps(result.summary(), indent=2, sort_keys=True)
    if fmt == "csv":
        csv = quantile_table(result, HEADLINE).to_csv(index=False, float_format="%.6g")
        return csv.removesuffix("\n")
    return "\n".join([f"scenario {result.scenario}, fit {result.fit_id}, {result.draws} draws, "
                      f"seed {result.seed}, data to {result.meta['data_end']}",
                      headline_text(result), "", theses_text(result),
                      *skill_text(result.meta.get("skill_gaps", []), result.meta.get("stack"))])


def skill_text(gaps: Sequence[Mapping[str, Any]], stack: Mapping[str, Any] | None = None
               ) -> list[str]:
    """Lines saying where the published backtests found a naive baseline better than the
    structural model, and whether the forecast publishes the out-of-sample stack (none when
    there is neither)."""
    lines = []
    if gaps:
        lines += ["", "out of sample, a naive baseline beat the model in the published "
                  "backtests (docs/results.md):", *(f"  {gap['line']}" for gap in gaps)]
    if stack is not None:
        lines += ["", f"this forecast publishes the out-of-sample stack of the spend model "
                  f"({stack['weight']:.0%} of paths) and its positions held where each "
                  f"rival's reports left them, constant shares in the model's own space "
                  f"({stack['held_paths']} paths), with the weight the share backtest learnt"]
    elif gaps:
        lines.append("this forecast publishes the model's paths, not a stack with a baseline")
    return lines
