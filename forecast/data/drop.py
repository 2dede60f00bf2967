"""A quarterly data drop: validate new rows, merge them into the data, keep revisions.

A drop is a CSV file or a directory of CSV files. Each file holds rows of one of the data
files (``data/*.csv``): it is recognised by its name, or else by its header. The rows are
checked with the same rules as ``data/`` (every problem reported as ``file:row:column``),
then merged:

- a row whose key (the file's duplicate key, e.g. company, segment and fiscal period) is new
  is appended;
- a row equal to the recorded one is ignored (re-sending a drop is harmless);
- a row whose key is recorded with a different figure is a **revision**: the new figure
  replaces the old in the data, and both (values and sources) are logged in
  ``revisions.csv``, so nothing is ever overwritten silently.

Observations dated after the refit's as-of date are rejected. The merged data are validated
again as a whole (chips resolve, no duplicates, nothing dated after the merged data's as-of
date, every file at least the rows and dates of the base's manifest); problems in drop rows
are reported against the drop file's own lines. The merged data's ``as_of.csv`` holds the
later of the base data's as-of date and the refit's, and their ``manifest.csv`` their rows
and dates (:mod:`forecast.data.manifest`). Nothing is written outside the staging directory
given.
"""

from __future__ import annotations

import csv
import dataclasses
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.core.errors import DataValidationError, Issue
from forecast.data.dataset import SCHEMAS, FileSchema, _read_csv, validate_data_dir
from forecast.data.manifest import write_manifest
from forecast.data.schemas import AS_OF_FILE, AS_OF_SCHEMA

#: Columns that describe a row rather than state a figure: a change there is no revision.
_PROVENANCE = ("source", "confidence", "notes")

REVISIONS_FILE = "revisions.csv"
REVISION_COLUMNS = ("recorded_as_of", "file", "key", "column", "old_value", "new_value",
                    "old_source", "new_source")


@dataclass
class DropFile:
    """The rows of one drop file, matched to its data file."""

    path: Path
    schema: FileSchema
    rows: list[dict[str, str]]
    lines: list[int]


@dataclass
class MergeSummary:
    """What a merge did, per data file."""

    added: dict[str, int] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)
    revisions: list[dict[str, str]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def n_added(self) -> int:
        return sum(self.added.values())

    def describe(self) -> str:
        parts = [f"{self.n_added} new rows", f"{len(self.revisions)} revisions",
                 f"{sum(self.unchanged.values())} unchanged"]
        return ", ".join(parts) + (f" from {', '.join(self.files)}" if self.files else "")


def _schema_for(path: Path, issues: list[Issue]) -> FileSchema | None:
    if path.name in SCHEMAS:
        return SCHEMAS[path.name]
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        issues.append(Issue(str(path), None, None, f"cannot read file: {exc}"))
        return None
    matches = [s for s in SCHEMAS.values() if set(header) == {c.name for c in s.columns}]
    if len(matches) != 1:
        issues.append(Issue(str(path), 1, None, "not a data file: name it like one of "
                            f"{', '.join(SCHEMAS)} or use one's exact header"))
        return None
    return matches[0]


def read_drop(path: str | Path, as_of: pd.Timestamp | None = None) -> list[DropFile]:
    """Parse and check every file of a drop.

    Raises
    ------
    DataValidationError
        Every problem, each as ``file:row:column: message`` with the drop file's path.
    """
    source = Path(path)
    issues: list[Issue] = []
    if source.is_dir():
        paths = sorted(source.glob("*.csv"))
        if not paths:
            issues.append(Issue(str(source), None, None, "drop directory has no CSV file"))
    elif source.is_file():
        paths = [source]
    else:
        issues.append(Issue(str(source), None, None, "drop not found"))
        paths = []
    files = []
    for file_path in paths:
        if file_path.name == AS_OF_FILE:
            issues.append(Issue(str(file_path), None, None, "a drop cannot set the data's "
                                "as-of date (the refit's --as-of does): remove this file"))
            continue
        schema = _schema_for(file_path, issues)
        if schema is None:
            continue
        found: list[Issue] = []
        parsed = _read_csv(file_path, schema, found)
        issues += [dataclasses.replace(issue, file=str(file_path)) for issue in found]
        date_column = schema.observed
        if as_of is not None and date_column is not None:
            for row, line in zip(parsed.rows, parsed.lines, strict=True):
                if _after(row[date_column], as_of):
                    issues.append(Issue(str(file_path), line, date_column,
                                        f"dated after the as-of date {as_of.date()}"))
        # ``raw`` holds every well-formed row and ``lines`` the valid ones: they line up one
        # to one when the file has no issue, the only case that is ever merged.
        files.append(DropFile(file_path, schema, list(parsed.raw), list(parsed.lines)))
    if issues:
        raise DataValidationError(issues)
    return files


def _after(value: Any, as_of: pd.Timestamp) -> bool:
    """Whether a parsed observation date (or year) ends after ``as_of``."""
    if isinstance(value, int):
        return value > as_of.year
    return value[0] > as_of


def _key(row: dict[str, str], schema: FileSchema) -> tuple[str, ...]:
    return tuple(row[column].strip() for column in schema.duplicate_key)


def _same(a: str, b: str) -> bool:
    a, b = a.strip(), b.strip()
    if a == b:
        return True
    try:
        return float(a.replace(",", "")) == float(b.replace(",", ""))
    except ValueError:
        return False


def merge_drop(base_dir: str | Path, drop: list[DropFile], staging: str | Path,
               as_of: pd.Timestamp | None = None) -> MergeSummary:
    """Write base data + drop into ``staging`` (which must exist and be empty).

    Raises
    ------
    DataValidationError
        When the merged data fail validation; problems in drop rows name the drop file.
    """
    base, target = Path(base_dir), Path(staging)
    problems = validate_data_dir(base)
    if problems:
        raise DataValidationError(problems)
    summary = MergeSummary()
    origins: dict[tuple[str, int], tuple[str, int]] = {}
    by_file: dict[str, list[DropFile]] = {}
    for item in drop:
        by_file.setdefault(item.schema.filename, []).append(item)
    revisions = _read_revisions(base)
    for name, schema in SCHEMAS.items():
        source = base / name
        with source.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            header = list(reader.fieldnames or [])
            rows = [dict(row) for row in reader]
        if name in by_file:
            index = {_key(row, schema): position for position, row in enumerate(rows)}
            for item in by_file[name]:
                summary.files.append(item.path.name)
                for row, line in zip(item.rows, item.lines, strict=True):
                    row = {column: row.get(column, "") for column in header}
                    key = _key(row, schema)
                    if key not in index:
                        index[key] = len(rows)
                        rows.append(row)
                        summary.added[name] = summary.added.get(name, 0) + 1
                        origins[(name, index[key] + 2)] = (str(item.path), line)
                        continue
                    old = rows[index[key]]
                    changed = [c for c in header
                               if c not in _PROVENANCE and not _same(old[c], row[c])]
                    if not changed:
                        summary.unchanged[name] = summary.unchanged.get(name, 0) + 1
                        continue
                    for column in changed:
                        revisions.append({
                            "recorded_as_of": str(as_of.date()) if as_of is not None else "",
                            "file": name, "key": " | ".join(key), "column": column,
                            "old_value": old[column], "new_value": row[column],
                            "old_source": old["source"], "new_source": row["source"]})
                        summary.revisions.append(revisions[-1])
                    rows[index[key]] = row
                    origins[(name, index[key] + 2)] = (str(item.path), line)
        with (target / name).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=header, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    _write_revisions(target, revisions)
    _write_as_of(base, target, as_of)
    problems = validate_data_dir(target)
    if problems:
        located = []
        for issue in problems:
            origin = origins.get((issue.file, issue.row)) if issue.row else None
            located.append(Issue(origin[0], origin[1], issue.column, issue.message)
                           if origin else issue)
        raise DataValidationError(located)
    # The merged data's record: later data (the next drop's base) must hold at least this.
    write_manifest(target)
    return summary


def _write_as_of(base: Path, target: Path, as_of: pd.Timestamp | None) -> None:
    """The merged data's ``as_of.csv``: the later of the base data's and the refit's date."""
    source = base / AS_OF_FILE
    stated = None
    if source.exists():
        parsed = _read_csv(source, AS_OF_SCHEMA, [])
        stated = parsed.rows[0]["as_of"][0] if len(parsed.rows) == 1 else None
    if as_of is None or (stated is not None and stated >= as_of):
        if source.exists():
            shutil.copyfile(source, target / AS_OF_FILE)
        return
    note = f"as-of date of the refit that merged a data drop into data as of {stated.date()}" \
        if stated is not None else "as-of date of the refit that merged a data drop"
    with (target / AS_OF_FILE).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerows([[column.name for column in AS_OF_SCHEMA.columns],
                          [str(as_of.date()), "refit --as-of", note]])


def _read_revisions(directory: Path) -> list[dict[str, str]]:
    path = directory / REVISIONS_FILE
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        return [dict(row) for row in csv.DictReader(handle)]


def _write_revisions(directory: Path, revisions: list[dict[str, str]]) -> None:
    if not revisions:
        return
    with (directory / REVISIONS_FILE).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=REVISION_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(revisions)
