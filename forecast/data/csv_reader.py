"""Reading one CSV against its schema: every cell parsed and checked, every problem located.

A problem is recorded as an :class:`~forecast.core.errors.Issue` (``file:row:column``, where
row is the line in the file and the header is line 1) and reading goes on, so one pass over
the data reports everything that is wrong with it. Every message is one line, whatever the
file holds (cell text is quoted and shortened).

Files are UTF-8, with or without a byte-order mark, with LF or CRLF line ends. Quoting is
strict: a quote that is never closed (a file truncated inside a quoted field, or a missing
closing quote swallowing the rows after it) is an error at the row where the quote opened,
never a silently shortened file.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.core.errors import Issue
from forecast.data.schemas import Column, FileSchema

__all__ = ["MAX_FILE_BYTES", "ParsedFile", "parse_date", "read_csv", "shown", "span_end",
           "span_start"]

_DATE_PATTERNS = (
    (re.compile(r"^\d{4}-\d{2}-\d{2}$"), "day"),
    (re.compile(r"^\d{4}-\d{2}$"), "month"),
    (re.compile(r"^\d{4}-Q[1-4]$"), "quarter"),
    (re.compile(r"^\d{4}$"), "year"),
)
#: Largest data file read (the largest shipped file is under 100 kB).
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Longest cell text quoted in a message.
_SHOWN_CHARACTERS = 60
_SPAN_FREQUENCY = {"month": "M", "quarter": "Q", "year": "Y"}


def shown(text: str, limit: int = _SHOWN_CHARACTERS) -> str:
    """``text`` quoted for a one-line message: escapes for line breaks, long text cut."""
    if len(text) > limit:
        return repr(text[:limit]) + f"... ({len(text)} characters)"
    return repr(text)


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
        If the text is none of the four forms, or no such day exists.
    """
    precision = next((kind for pattern, kind in _DATE_PATTERNS if pattern.match(text)), None)
    if precision is None:
        raise ValueError("expected YYYY-MM-DD, YYYY-MM, YYYY-Qn or YYYY")
    try:
        if precision == "day":
            return pd.Timestamp(text), precision
        if precision == "month":
            return pd.Period(text, freq="M").end_time.normalize(), precision
        if precision == "quarter":
            year, quarter = text.split("-Q")
            return pd.Period(f"{year}Q{quarter}", freq="Q").end_time.normalize(), precision
        return pd.Period(text, freq="Y").end_time.normalize(), precision
    except (ValueError, OverflowError):
        raise ValueError("no such date") from None


def span_start(value: tuple[pd.Timestamp, str] | int) -> pd.Timestamp:
    """First day of a parsed date's span (a year for an integer): when it could be known."""
    if isinstance(value, int):
        return pd.Timestamp(year=value, month=1, day=1)
    end, precision = value
    if precision == "day":
        return end
    return end.to_period(_SPAN_FREQUENCY[precision]).start_time.normalize()


def span_end(value: tuple[pd.Timestamp, str] | int) -> pd.Timestamp:
    """Last day of a parsed date's span (a year for an integer): when it is surely known."""
    if isinstance(value, int):
        return pd.Timestamp(year=value, month=12, day=31)
    return value[0]


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
    text = _decoded_text(path, name, issues)
    if text is None:
        return ParsedFile([], [])
    text = _whole_lines(text, name, issues)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        issues.append(Issue(name, None, None, "file is empty (no header row)"))
        return ParsedFile([], [])
    except csv.Error as exc:
        issues.append(Issue(name, 1, None, _unreadable(exc, 1, reader.line_num)))
        return ParsedFile([], [])
    if not _header_ok(header, schema, name, issues):
        return ParsedFile([], [])
    parsed = _read_rows(reader, header, schema, name, issues)
    if schema.needs_rows and not parsed.raw and not any(i.file == name for i in issues):
        issues.append(Issue(name, None, None, "no data rows: the file has only its header"))
    return parsed


def _decoded_text(path: Path, name: str, issues: list[Issue]) -> str | None:
    """The file's text (a UTF-8 byte-order mark dropped), or None with the problem recorded."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            issues.append(Issue(name, None, None, f"file is larger than {MAX_FILE_BYTES:,} "
                                "bytes: not one of this project's data files"))
            return None
        data = path.read_bytes()
    except OSError as exc:
        issues.append(Issue(name, None, None, f"cannot read file: {exc.strerror or exc}"))
        return None
    try:
        # utf-8-sig: a byte-order mark (as some spreadsheets write) is not part of the header.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        issues.append(Issue(name, line, None, f"not UTF-8 text ({exc.reason})"))
        return None


def _whole_lines(text: str, name: str, issues: list[Issue]) -> str:
    """The text up to its last line end; a file whose last line has none was cut off.

    Every writer of CSV (this package's, spreadsheets', ``csv`` and pandas) ends each row
    with a line end, the last one too. A file that stops inside a line was truncated (a copy
    cut short, a disk full): its last row may still have every field, with a shortened
    value, so it is refused rather than read.
    """
    if not text or text.endswith(("\n", "\r")) or text.count('"') % 2:
        return text  # whole, or cut inside a quoted field (reported where the quote opened)
    last_line = text.count("\n") + 1
    issues.append(Issue(name, last_line, None, "the file ends inside this line, without a line "
                        "end: it looks cut off (a whole file ends every row, the last one "
                        "too, with a line end)"))
    return text[:text.rfind("\n") + 1]


def _unreadable(exc: Exception, start: int, end: int) -> str:
    """One-line message for a record the CSV reader gave up on, from line ``start``."""
    text = str(exc)
    if "unexpected end of data" in text:
        return ("unterminated quote: a quoted field opened in the row starting here is never "
                f"closed (lines {start}-{end}, to the end of the file, would be one field)")
    if "expected after" in text:
        return (f"malformed quoting ({' '.join(text.split())}): a quote opened in the row "
                f"starting here closes at line {end}; is a closing quote missing?")
    return f"unreadable CSV: {' '.join(text.split())}"


def _header_ok(header: list[str], schema: FileSchema, name: str, issues: list[Issue]) -> bool:
    """Record missing, unknown and repeated columns; False when the rows cannot be read."""
    expected = [column.name for column in schema.columns]
    missing = [column for column in expected if column not in header]
    unknown = [column for column in header if column not in expected]
    repeated = sorted({column for column in header if header.count(column) > 1})
    for column in missing:
        issues.append(Issue(name, 1, column, "required column is missing"))
    for column in unknown:
        label = column if column.isprintable() and len(column) <= 60 else shown(column)
        issues.append(Issue(name, 1, label, "unknown column"))
    for column in repeated:
        issues.append(Issue(name, 1, shown(column), "column appears more than once"))
    return not missing and not repeated


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
                if line > start:  # a quoted field ran over several lines
                    message += (f" (the row runs over lines {start}-{line}: "
                                "is a closing quote missing?)")
                issues.append(Issue(name, start, None, message))
                continue
            raw = dict(zip(header, record, strict=True))
            raw_rows.append(raw)
            parsed = _parse_row(raw, schema, name, start, issues)
            if parsed is not None:
                rows.append(parsed)
                lines.append(start)
    except csv.Error as exc:
        issues.append(Issue(name, line + 1, None, _unreadable(exc, line + 1, reader.line_num)))
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
            issues.append(Issue(name, line, column.name, f"{exc}, got {shown(text)}"))
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
        if not re.fullmatch(r"-?\d{1,18}", text):
            raise ValueError("not an integer")
        return int(text)
    if column.kind == "date":
        return parse_date(text)
    if column.kind == "choice" and text not in column.choices:
        raise ValueError(f"must be one of {', '.join(column.choices)}")
    return text
