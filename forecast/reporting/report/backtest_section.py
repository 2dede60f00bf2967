"""The report's optional backtest section: scores and PIT histograms of rolling-origin backtests.

A backtest is the harness's JSON (:func:`forecast.evaluation.harness.summarize_scores`), as
``cli.py backtest TARGET --out DIR`` writes it (``DIR/backtest_TARGET.json``) and
``--format json`` prints it. :func:`load_backtests` reads and checks the files before any
slow work; :func:`backtests` lays out, per file, the pooled scores of every model, their
coverage by quarters and the PIT histograms.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from forecast.core.errors import ForecastError
from forecast.core.presentation import PROBABILITY
from forecast.evaluation.harness import SUMMARY_KEYS
from forecast.reporting.report.blocks import Cell, ReportBuilder

#: Columns of the pooled table: summary key -> header and unit (fractions as probabilities).
POOLED_COLUMNS: dict[str, tuple[str, str]] = {
    "n": ("n", ""), "crps": ("CRPS", ""), "log_crps": ("log CRPS", ""),
    "pinball": ("pinball", ""), "coverage_80": ("80% coverage", PROBABILITY),
    "coverage_95": ("95% coverage", PROBABILITY), "mean_pit": ("mean PIT", PROBABILITY),
}


def load_backtests(paths: Sequence[str | Path]) -> dict[str, dict[str, Any]]:
    """Read and check backtest JSON files.

    Returns
    -------
    dict
        Label -> report, in the order given; a label is its file's name without ``.json``
        (``backtest_market``), numbered when two files share a name.

    Raises
    ------
    ForecastError
        When a file is not JSON or not a backtest's report (one line naming the file).
    """
    loaded: dict[str, dict[str, Any]] = {}
    for path in map(Path, paths):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise ForecastError(f"--backtest {path}: not a JSON text file") from None
        except json.JSONDecodeError as exc:
            raise ForecastError(f"--backtest {path}: not JSON ({exc.msg}, line "
                                f"{exc.lineno})") from None
        check_backtest(report, f"--backtest {path}")
        loaded[_unique(path.stem, loaded)] = report
    return loaded


def _unique(name: str, taken: Any) -> str:
    """``name``, or the first of ``name_2``, ``name_3``... not in ``taken``."""
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name}_{number}"
    return candidate


def check_backtest(report: Any, name: str) -> None:
    """Raise a one-line :class:`ForecastError` (``name: ...``) unless ``report`` has the shape
    of :func:`~forecast.evaluation.harness.summarize_scores`: models, each with a unique
    name, pooled and per quarter ahead scores (numbers or null) and a PIT histogram of counts."""
    models = report.get("models") if isinstance(report, dict) else None
    if not isinstance(models, list) or not models:
        raise ForecastError(f"{name}: not a backtest report (no list of models)")
    seen = set()
    for model in models:
        what = model.get("model") if isinstance(model, dict) else None
        if not isinstance(what, str) or what in seen:
            raise ForecastError(f"{name}: every model needs a name of its own")
        seen.add(what)
        rows = model.get("by_quarters_ahead")
        if not isinstance(rows, list) or not all(
                _scores(row) and _number(row.get("quarters_ahead")) for row in rows):
            raise ForecastError(f"{name}: model {what}: by_quarters_ahead must list the scores of "
                                "each quarters")
        if not _scores(model.get("pooled")):
            raise ForecastError(f"{name}: model {what}: pooled needs {', '.join(SUMMARY_KEYS)}")
        counts = model.get("pit_histogram")
        if not isinstance(counts, list) or not counts or not all(
                _number(c) and c >= 0 for c in counts):
            raise ForecastError(f"{name}: model {what}: pit_histogram must be counts")


def _number(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value))


def _scores(row: Any) -> bool:
    """A dict with every summary key, each a number or null (``n`` a number)."""
    return (isinstance(row, dict) and _number(row.get("n"))
            and all(k in row and (row[k] is None or _number(row[k])) for k in SUMMARY_KEYS))


def backtests(b: ReportBuilder, reports: Mapping[str, Mapping[str, Any]] | None) -> None:
    """The Backtests section: per backtest, the pooled scores of every model, coverage by
    quarters and the PIT histograms.

    Parameters
    ----------
    b
        The report being built.
    reports
        Label -> a backtest's report (:func:`load_backtests`); None or empty adds nothing.
    """
    if not reports:
        return
    from forecast.reporting import plots

    b.heading(2, "Backtests")
    b.paragraph("Rolling-origin backtests (cli.py backtest): at each origin every model is "
                "fitted on the data known then and scored on the quarters that followed. "
                "CRPS, log CRPS (of the logs, where positive) and pinball loss (mean over "
                "10/50/90%) are means over the scored cells, lower is better; coverage is "
                "the fraction of actuals inside the central 80% and 95% intervals; the PIT "
                "is the rank of the actual among the forecast's draws, whose histogram is "
                "flat (dashed line) for calibrated forecasts and mean 0.5 for unbiased ones.")
    images: set[str] = set()
    for label, report in reports.items():
        check_backtest(report, f"backtest {label}")
        _pooled(b, label, report)
        _by_quarters_ahead(b, label, report)
        name = _unique("pit_" + re.sub(r"[^\w.-]+", "_", label), images)
        images.add(name)
        b.image(f"{name}.png", f"PIT histograms: {label}",
                plots.pit_histograms(report, f"PIT histograms: {label}"))


def _cell(b: ReportBuilder, key: str, value: float | None, unit: str = "",
          count: bool = False) -> Cell:
    """A numeric cell; a missing score (null) shows as missing, a count as a whole number."""
    cell = b.number(key, math.nan if value is None else value, unit)
    return dataclasses.replace(cell, text=f"{value:.0f}") if count else cell


def _pooled(b: ReportBuilder, label: str, report: Mapping[str, Any]) -> None:
    rows = []
    for model in report["models"]:
        name, pooled = model["model"], model["pooled"]
        rows.append([name, *(_cell(b, f"backtest:{label}:{name}:{key}", pooled[key], unit,
                                   count=key == "n")
                             for key, (_, unit) in POOLED_COLUMNS.items())])
    b.table(["model", *(header for header, _ in POOLED_COLUMNS.values())], rows,
            f"{label}: pooled scores per model")


def _by_quarters_ahead(b: ReportBuilder, label: str, report: Mapping[str, Any]) -> None:
    rows = []
    for model in report["models"]:
        name = model["model"]
        for row in model["by_quarters_ahead"]:
            key = f"backtest:{label}:{name}:h{row['quarters_ahead']:g}"
            rows.append([name, f"{row['quarters_ahead']:g}",
                         _cell(b, f"{key}:n", row["n"], count=True),
                         _cell(b, f"{key}:coverage_80", row["coverage_80"], PROBABILITY),
                         _cell(b, f"{key}:coverage_95", row["coverage_95"], PROBABILITY)])
    b.table(["model", "quarters ahead", "n", "80% coverage", "95% coverage"], rows,
            f"{label}: coverage by quarters (quarters ahead)")
