"""The data's manifest: how many rows each file held, and which dates, when it was written.

Its ``source`` column names where each row's figures come from: the data file itself, counted
by this module (no outside source).

Data only grow: a quarterly drop adds rows or revises them (:mod:`forecast.data.drop`), it
never removes one. ``manifest.csv`` records, for every data file, its rows and the dates its
observations run from and to (the earliest end and the latest start of their date spans), as
they were when the data were last merged (a drop writes
it with the merged data, so every fit's copy of its data carries one; ``data/`` ships one).
Data checked against a manifest must still hold at least those rows and cover those dates: a
file cut short at a line end, which reads as valid rows, is refused as fewer rows than
recorded. A file with problems of its own is not compared (its rows were not all read).

Removing rows on purpose (a row found wrong) is done by writing the manifest again
(:func:`write_manifest`), in the same change.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.core.errors import DataValidationError, Issue
from forecast.data.csv_reader import ParsedFile, read_csv, span_start
from forecast.data.schemas import SCHEMAS

__all__ = ["MANIFEST_COLUMNS", "MANIFEST_FILE", "check_manifest", "manifest_rows",
           "write_manifest"]

MANIFEST_FILE = "manifest.csv"
MANIFEST_COLUMNS = ("file", "rows", "first", "last", "source")
#: The header of manifests written before they named their source (fits stored then).
_EARLIER_COLUMNS = MANIFEST_COLUMNS[:-1]


def _span(value: Any) -> tuple[pd.Timestamp, pd.Timestamp]:
    """First and last day of a parsed observation date (a year for an integer)."""
    if isinstance(value, int):
        return span_start(value), pd.Timestamp(year=value, month=12, day=31)
    return span_start(value), value[0]


def manifest_rows(parsed: Mapping[str, ParsedFile]) -> list[dict[str, str]]:
    """One manifest row per data file: its rows and the first and last day observed."""
    rows = []
    for name, schema in SCHEMAS.items():
        table = parsed[name]
        first = last = ""
        if schema.observed is not None and table.rows:
            # The earliest end and the latest start: a revision that makes a date more
            # precise ("2025" to "2025-03") moves neither the wrong way.
            spans = [_span(row[schema.observed]) for row in table.rows]
            first = str(min(end for _, end in spans).date())
            last = str(max(start for start, _ in spans).date())
        rows.append({"file": name, "rows": str(len(table.raw)), "first": first, "last": last,
                     "source": f"counted from {name} by forecast.data.manifest"})
    return rows


def write_manifest(directory: str | Path) -> Path:
    """Write ``manifest.csv`` of the data in ``directory`` (which must validate).

    Raises
    ------
    DataValidationError
        When a file has problems: a manifest records valid data only.
    """
    directory = Path(directory)
    issues: list[Issue] = []
    parsed = {name: read_csv(directory / name, schema, issues)
              for name, schema in SCHEMAS.items()}
    if issues:
        raise DataValidationError(issues)
    path = directory / MANIFEST_FILE
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=MANIFEST_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(manifest_rows(parsed))
    return path


def _recorded(path: Path, issues: list[Issue]) -> dict[str, tuple[int, str, str]]:
    """The manifest's rows by file; problems with the manifest itself are issues."""
    recorded: dict[str, tuple[int, str, str]] = {}
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            if tuple(reader.fieldnames or ()) not in (MANIFEST_COLUMNS, _EARLIER_COLUMNS):
                issues.append(Issue(MANIFEST_FILE, 1, None,
                                    f"header must be {','.join(MANIFEST_COLUMNS)}"))
                return {}
            for line, row in enumerate(reader, start=2):
                name, rows = row["file"], row["rows"] or ""
                if name not in SCHEMAS or not rows.isdigit():
                    issues.append(Issue(MANIFEST_FILE, line, "file" if name not in SCHEMAS
                                        else "rows", "not a data file and its row count"))
                    continue
                recorded[name] = (int(rows), row["first"] or "", row["last"] or "")
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        issues.append(Issue(MANIFEST_FILE, None, None, f"cannot read file: {exc}"))
    return recorded


def check_manifest(directory: Path, parsed: Mapping[str, ParsedFile],
                   issues: list[Issue]) -> None:
    """Every file holds at least the rows and the dates its manifest records, if any."""
    path = directory / MANIFEST_FILE
    if not path.exists():
        return
    recorded = _recorded(path, issues)
    troubled = {issue.file for issue in issues}
    now = {row["file"]: row for row in manifest_rows(parsed)}
    for name, (rows, first, last) in recorded.items():
        if name in troubled:
            continue
        found = now[name]
        column = SCHEMAS[name].observed
        if int(found["rows"]) < rows:
            issues.append(Issue(name, None, None,
                                f"{found['rows']} data rows, but {MANIFEST_FILE} records {rows} "
                                "when the data were last merged: a drop never removes rows, so "
                                "the file lost some (cut short?)"))
        elif first and found["first"] and found["first"] > first:
            issues.append(Issue(name, None, column,
                                f"observations start {found['first']}, but {MANIFEST_FILE} "
                                f"records them from {first}: earlier rows are missing"))
        elif last and found["last"] and found["last"] < last:
            issues.append(Issue(name, None, column,
                                f"observations end {found['last']}, but {MANIFEST_FILE} "
                                f"records them to {last}: later rows are missing"))

