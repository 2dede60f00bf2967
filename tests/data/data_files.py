"""Helpers editing copies of the data files for the tests of :mod:`forecast.data`."""

from __future__ import annotations

import csv
from pathlib import Path

from forecast.data.dataset import validate_data_dir


def edit_cell(directory: Path, filename: str, line: int, column: str, value: str) -> None:
    """Set one cell of a CSV; ``line`` is the file line number (header = 1)."""
    path = directory / filename
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    rows[line - 1][rows[0].index(column)] = value
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


def issue_strings(directory: Path) -> list[str]:
    """Every validation problem of a data directory, as ``file:row:column: message``."""
    return [str(issue) for issue in validate_data_dir(directory)]
