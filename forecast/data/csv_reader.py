"""Reading one CSV against its schema: every cell parsed and checked, every problem located.

A problem is recorded as an :class:`~forecast.core.errors.Issue` (``file:row:column``, where
row is the line in the file and the header is line 1) and reading goes on, so one pass over
the data reports everything that is wrong with it.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.core.errors import Issue
from forecast.data.schemas import Column, FileSchema

__all__ = ["ParsedFile", "parse_date", "read_csv"]

_DATE_PATTERNS = (
    (re.compile(r"^\d{4}-\d{2}-\d{2}$"), "day"),
    (re.compile(r"^\d{4}-\d{2}$"), "month"),
    (re.compile(r"^\d{4}-Q[1-4]$"), "quarter"),
    (re.compile(r"^\d{4}$"), "year"),
)


def parse_date(text: str) -> tuple[pd.Timestamp, str]:
    """Parse a day, month (``2025-09``), quarter (``2025-Q1``) or year (``2025``) date.

    Parameters
    ----------
    text : str
        The date as written in a data file.

    Returns
    -------
    tuple of (pandas.Timestamp, str)
        The *last* day of the span and its precision (``day``, ``month``, ``quarter`` or
        ``year``).

    Raises
    ------
    ValueError
        If the text is none of the four forms.
    """
    precision = next((kind for pattern, kind in _DATE_PATTERNS if pattern.match(text)), None)
    if precision is None:
        raise ValueError("expected YYYY-MM-DD, YYYY-MM, YYYY-Qn or YYYY")
    if precision == "day":
        return pd.Timestamp(text), precision
    if precision == "month":
        return pd.Period(text, freq="M").end_time.normalize(), precision
    if precision == "quarter":
        year, quarter = text.split("-Q")
        return pd.Period(f"{year}Q{quarter}", freq="Q").end_time.normalize(), precision
    return pd.Period(text, freq="Y").end_time.normalize(), precision


def _to_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError("not a finite number")
    return value


@dataclass
class ParsedFile:
    """The rows of one file that parsed cleanly, their line numbers and every row as text.

    ``raw`` keeps every well-formed row, bad ones included, so one bad catalogue cell does
    not also make each row naming that chip an error.
    """

    rows: list[dict[str, Any]]
    lines: list[int]
    raw: list[dict[str, str]] = field(default_factory=list)


def read_csv(path: Path, schema: FileSchema, issues: list[Issue]) -> ParsedFile:
    """Parse one file against its schema, appending every problem to ``issues``.

    Parameters
    ----------
    path : pathlib.Path
        The CSV file.
    schema : FileSchema
        Its schema.
    issues : list of Issue
        Problems found are appended here, each located by file name, line and column.

    Returns
    -------
    ParsedFile
        The clean rows (parsed values) with their lines, and every well-formed row as text.
    """
    name = path.name
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as exc:
        issues.append(Issue(name, None, None, f"cannot read file: {exc.strerror}"))
        return ParsedFile([], [])
    with handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration:
            issues.append(Issue(name, None, None, "file is empty (no header row)"))
            return ParsedFile([], [])
        except (csv.Error, UnicodeDecodeError) as exc:
            issues.append(Issue(name, 1, None, f"unreadable CSV: {exc}"))
            return ParsedFile([], [])
        if not _header_ok(header, schema, name, issues):
            return ParsedFile([], [])
        return _read_rows(reader, header, schema, name, issues)


def _header_ok(header: list[str], schema: FileSchema, name: str, issues: list[Issue]) -> bool:
    """Record missing and unknown columns; False when a column is missing."""
    expected = [column.name for column in schema.columns]
    missing = [column for column in expected if column not in header]
    unknown = [column for column in header if column not in expected]
    for column in missing:
        issues.append(Issue(name, 1, column, "required column is missing"))
    for column in unknown:
        issues.append(Issue(name, 1, column, "unknown column"))
    return not missing


def _read_rows(
    reader: Any, header: list[str], schema: FileSchema, name: str, issues: list[Issue]
) -> ParsedFile:
    """The data rows after the header (blank lines skipped)."""
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    raw_rows: list[dict[str, str]] = []
    line = reader.line_num
    try:
        for record in reader:
            start, line = line + 1, reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(header):
                message = f"expected {len(header)} fields, got {len(record)}"
                issues.append(Issue(name, start, None, message))
                continue
            raw = dict(zip(header, record, strict=True))
            raw_rows.append(raw)
            parsed = _parse_row(raw, schema, name, start, issues)
            if parsed is not None:
                rows.append(parsed)
                lines.append(start)
    except (csv.Error, UnicodeDecodeError) as exc:
        issues.append(Issue(name, line + 1, None, f"unreadable CSV: {exc}"))
    return ParsedFile(rows, lines, raw_rows)


def _parse_row(
    raw: dict[str, str], schema: FileSchema, name: str, line: int, issues: list[Issue]
) -> dict[str, Any] | None:
    """Parse and check one row; ``None`` when any field is bad (all its issues recorded)."""
    parsed: dict[str, Any] = {}
    ok = True
    for column in schema.columns:
        text = raw[column.name].strip()
        if not text:
            if column.required:
                what = "source is empty" if column.name == "source" else "value is required"
                issues.append(Issue(name, line, column.name, what))
                ok = False
            parsed[column.name] = None
            continue
        try:
            value = _parse_value(text, column)
        except ValueError as exc:
            issues.append(Issue(name, line, column.name, f"{exc}, got {text!r}"))
            ok = False
            continue
        problem = column.check(value) if column.check else None
        if problem:
            issues.append(Issue(name, line, column.name, problem))
            ok = False
            continue
        parsed[column.name] = value
    return parsed if ok else None


def _parse_value(text: str, column: Column) -> Any:
    if column.kind == "float":
        try:
            return _to_float(text)
        except ValueError:
            raise ValueError("not a number") from None
    if column.kind == "int":
        if not re.fullmatch(r"-?\d+", text):
            raise ValueError("not an integer")
        return int(text)
    if column.kind == "date":
        return parse_date(text)
    if column.kind == "choice" and text not in column.choices:
        raise ValueError(f"must be one of {', '.join(column.choices)}")
    return text
