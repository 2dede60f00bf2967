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
again as a whole (chips resolve, no duplicates); problems in drop rows are reported against
the drop file's own lines. Nothing is written outside the staging directory given.
"""

from __future__ import annotations

import csv
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from forecast.core.errors import DataValidationError, Issue
from forecast.data.dataset import SCHEMAS, FileSchema, _read_csv, load_dataset

#: Columns that describe a row rather than state a figure: a change there is no revision.
_PROVENANCE = ("source", "confidence", "notes")

#: The date that says when an observation became known, per file (chip specifications are
#: exempt: the catalogue lists chips announced before they ship).
_OBSERVATION_DATE = {
    "vendor_quarterly_revenue.csv": "calendar_quarter_end",
    "gpu_rental_prices.csv": "date",
    "accelerator_unit_prices.csv": "date",
    "aws_custom_silicon.csv": "date",
    "epoch_chip_volume_estimates.csv": "end_date",
}

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
        with path.open(newline="", encoding="utf-8") as handle:
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
        schema = _schema_for(file_path, issues)
        if schema is None:
            continue
        found: list[Issue] = []
        parsed = _read_csv(file_path, schema, found)
        issues += [dataclasses.replace(issue, file=str(file_path)) for issue in found]
        date_column = _OBSERVATION_DATE.get(schema.filename)
        if as_of is not None and date_column is not None:
            for row, line in zip(parsed.rows, parsed.lines, strict=True):
                if row[date_column][0] > as_of:
                    issues.append(Issue(str(file_path), line, date_column,
                                        f"dated after the as-of date {as_of.date()}"))
        # ``raw`` holds every well-formed row and ``lines`` the valid ones: they line up one
        # to one when the file has no issue, the only case that is ever merged.
        files.append(DropFile(file_path, schema, list(parsed.raw), list(parsed.lines)))
    if issues:
        raise DataValidationError(issues)
    return files


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
    summary = MergeSummary()
    origins: dict[tuple[str, int], tuple[str, int]] = {}
    by_file: dict[str, list[DropFile]] = {}
    for item in drop:
        by_file.setdefault(item.schema.filename, []).append(item)
    revisions = _read_revisions(base)
    for name, schema in SCHEMAS.items():
        source = base / name
        with source.open(newline="", encoding="utf-8") as handle:
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
    try:
        load_dataset(target)
    except DataValidationError as exc:
        located = []
        for issue in exc.issues:
            origin = origins.get((issue.file, issue.row)) if issue.row else None
            located.append(Issue(origin[0], origin[1], issue.column, issue.message)
                           if origin else issue)
        raise DataValidationError(located) from None
    return summary


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
