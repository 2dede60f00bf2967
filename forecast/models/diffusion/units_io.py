"""Unit series from CSV files: validation with one-line errors, and fitting a file.

Every problem with a file is a one-line :class:`~forecast.core.errors.ForecastError`
``file:line:column: message`` (the header is line 1), for the command line.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import pandas as pd

from forecast.core.errors import ForecastError, Issue
from forecast.models.diffusion.data import MIN_OBSERVATIONS, QUARTER_PATTERN, check_kind
from forecast.models.diffusion.fitted import FittedDiffusion
from forecast.models.diffusion.model import DiffusionModel

_INTEGER_PATTERN = re.compile(r"^[+-]?\d+$")

#: Columns a file needs besides ``period`` and ``value``, by model kind.
_KIND_COLUMNS = {"gbass": ["covariate"], "norton-bass": ["generation"]}


def _csv_error(path: Path, line: int | None, column: str | None, message: str) -> ForecastError:
    return ForecastError(str(Issue(str(path), line, column, message)))


def read_units_csv(
    path: str | Path, kind: str = "bass"
) -> tuple[pd.Series | pd.DataFrame, pd.Series | None]:
    """Read and validate a units CSV; returns (series or wide frame, covariate or None).

    Columns: ``period,value`` (periods are integers or quarters such as ``2024Q1``), plus
    ``covariate`` (positive) for ``gbass`` and ``generation`` (long format) for
    ``norton-bass``; other columns are ignored. Every problem is a one-line ForecastError
    ``file:line:column: message`` (the header is line 1).
    """
    check_kind(kind)
    path = Path(path)
    try:
        handle = path.open(newline="", encoding="utf-8")
    except FileNotFoundError:
        raise _csv_error(path, None, None, "file not found") from None
    except OSError as exc:
        raise _csv_error(path, None, None, f"cannot read file: {exc.strerror}") from None
    with handle:
        records, period_kind, last_line = _read_records(csv.reader(handle), path, kind)
    if len(records) < MIN_OBSERVATIONS:
        raise _csv_error(path, max(last_line, 1), "value",
                         f"{len(records)} data rows, need at least {MIN_OBSERVATIONS}")
    return _units_frame(pd.DataFrame(records), period_kind, kind)


def _read_records(reader: Any, path: Path, kind: str
                  ) -> tuple[list[dict[str, Any]], str | None, int]:
    """Parsed data rows, the kind of their periods and the last line read."""
    try:
        header = [cell.strip() for cell in next(reader)]
    except StopIteration:
        raise _csv_error(path, None, None, "file is empty (no header row)") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise _csv_error(path, 1, None, f"unreadable CSV: {exc}") from None
    for column in ["period", "value"] + _KIND_COLUMNS.get(kind, []):
        if column not in header:
            raise _csv_error(path, 1, column, f"required column is missing (kind {kind})")
    records: list[dict[str, Any]] = []
    seen: dict[tuple[Any, ...], int] = {}
    period_kind: str | None = None
    for start, raw in _rows(reader, header, path):
        parsed, this_kind = _parse_row(raw, path, start, kind)
        if period_kind is None:
            period_kind = this_kind
        elif this_kind != period_kind:
            raise _csv_error(path, start, "period", f"mixes {this_kind} and {period_kind} "
                             f"periods, got {raw['period']!r}")
        key = (parsed["period"],) + ((raw["generation"],) if kind == "norton-bass" else ())
        if key in seen:
            what = "period" if len(key) == 1 else "period and generation"
            raise _csv_error(path, start, "period", f"duplicate {what} {raw['period']!r} "
                             f"(first on line {seen[key]})")
        seen[key] = start
        records.append(parsed)
    return records, period_kind, reader.line_num


def _rows(reader: Any, header: list[str], path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """(first line, cells by column) of each non-blank row; a row of the wrong width or
    an undecodable one is an error."""
    line = reader.line_num
    try:
        for record in reader:
            start, line = line + 1, reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(header):
                raise _csv_error(path, start, None,
                                 f"expected {len(header)} fields, got {len(record)}")
            yield start, {name: cell.strip() for name, cell in zip(header, record, strict=True)}
    except (csv.Error, UnicodeDecodeError) as exc:
        raise _csv_error(path, line + 1, None, f"unreadable CSV: {exc}") from None


def _parse_row(raw: dict[str, str], path: Path, line: int, kind: str
               ) -> tuple[dict[str, Any], str]:
    """One data row's period, value (covariate, generation) and the kind of its period."""
    period, period_kind = _parse_period(raw["period"], path, line)
    parsed = {"period": period, "line": line,
              "value": _parse_positive(raw["value"], path, line, "value")}
    if kind == "gbass":
        parsed["covariate"] = _parse_positive(raw["covariate"], path, line, "covariate")
    if kind == "norton-bass":
        if not raw["generation"]:
            raise _csv_error(path, line, "generation", "value is required")
        parsed["generation"] = raw["generation"]
    return parsed, period_kind


def _parse_period(text: str, path: Path, line: int) -> tuple[Any, str]:
    if not text:
        raise _csv_error(path, line, "period", "value is required")
    if _INTEGER_PATTERN.match(text):
        return int(text), "integer"
    match = QUARTER_PATTERN.match(text)
    if match:
        return f"{match.group(1)}Q{match.group(2)}", "quarter"
    raise _csv_error(path, line, "period",
                     f"not an integer or a quarter like 2024Q1, got {text!r}")


def _parse_positive(text: str, path: Path, line: int, column: str) -> float:
    if not text:
        raise _csv_error(path, line, column, "value is required")
    try:
        value = float(text)
    except ValueError:
        raise _csv_error(path, line, column, f"not a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise _csv_error(path, line, column, f"must be a positive number, got {text!r}")
    return value


def _units_frame(frame: pd.DataFrame, period_kind: str | None, kind: str
                 ) -> tuple[pd.Series | pd.DataFrame, pd.Series | None]:
    """The parsed rows as the series (or one column per generation) and the covariate."""
    if period_kind == "quarter":
        frame["period"] = pd.PeriodIndex(frame["period"], freq="Q")
    if kind == "norton-bass":
        order = frame.groupby("generation", sort=False)["period"].min().sort_values(
            kind="stable").index
        wide = frame.pivot(index="period", columns="generation", values="value")
        wide = wide.reindex(columns=list(order)).sort_index()
        wide.columns.name = None
        return wide, None
    frame = frame.set_index("period").sort_index()
    covariate = frame["covariate"] if kind == "gbass" else None
    return frame["value"].rename("units"), covariate


def fit_units_csv(
    path: str | Path,
    kind: str = "bass",
    sampler: Mapping[str, Any] | None = None,
    priors: Mapping[str, Any] | None = None,
    launch_offset: int = 0,
) -> FittedDiffusion:
    """Read a units CSV (see :func:`read_units_csv`) and fit a diffusion model of ``kind``."""
    series, covariate = read_units_csv(path, kind)
    model = DiffusionModel(priors=priors, sampler=sampler, kind=kind)
    return cast(FittedDiffusion, model.fit(model.prepare_series(series, covariate,
                                                                launch_offset)))
