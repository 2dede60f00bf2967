"""The data's manifest (forecast.data.manifest): data checked against one hold at least its
rows and dates; a drop writes one with the merged data; the shipped data carry one."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from forecast.data.dataset import DEFAULT_DATA_DIR, SCHEMAS, validate_data_dir
from forecast.data.manifest import MANIFEST_COLUMNS, MANIFEST_FILE, write_manifest

RENTAL = "gpu_rental_prices.csv"
REVENUE = "vendor_quarterly_revenue.csv"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A copy of the shipped data with their manifest."""
    target = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, target)
    return target


def _keep_lines(path: Path, keep) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(line for number, line in enumerate(lines, start=1)
                              if number == 1 or keep(number, len(lines))))


def test_shipped_manifest_covers_every_data_file_and_the_data_meet_it():
    with (DEFAULT_DATA_DIR / MANIFEST_FILE).open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == MANIFEST_COLUMNS
        assert [row["file"] for row in reader] == list(SCHEMAS)
    assert validate_data_dir(DEFAULT_DATA_DIR) == []


def test_a_file_cut_at_a_line_end_has_fewer_rows_than_recorded(data):
    _keep_lines(data / RENTAL, lambda number, total: number <= total // 2)
    (issue,) = validate_data_dir(data)
    assert (issue.file, issue.row) == (RENTAL, None)
    assert "106 data rows, but manifest.csv records 213" in issue.message


def test_lost_dates_are_refused_even_with_as_many_rows(data):
    path = data / REVENUE
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    earliest = min(row[4] for row in rows[1:])  # published_date, the file's as-of column
    kept = [row for row in rows if row[4] != earliest]
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(kept)
    # The manifest is told of the rows left, so that only the dates are compared.
    with (data / MANIFEST_FILE).open(newline="", encoding="utf-8") as handle:
        recorded = list(csv.DictReader(handle))
    for row in recorded:
        if row["file"] == REVENUE:
            row["rows"] = str(len(kept) - 1)
    with (data / MANIFEST_FILE).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=MANIFEST_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(recorded)
    issues = [issue for issue in validate_data_dir(data) if issue.file == REVENUE]
    assert len(issues) == 1 and issues[0].column == "published_date"
    assert f"records them from {earliest}: earlier rows are missing" in issues[0].message


def test_rows_removed_on_purpose_pass_once_the_manifest_is_written_again(data):
    _keep_lines(data / RENTAL, lambda number, total: number != total)
    assert validate_data_dir(data)
    write_manifest(data)
    assert validate_data_dir(data) == []


def test_a_broken_manifest_is_reported_at_its_line(data):
    (data / MANIFEST_FILE).write_text("file,rows,first,last\nnot_a_file.csv,3,,\n")
    (issue,) = validate_data_dir(data)
    assert (issue.file, issue.row, issue.column) == (MANIFEST_FILE, 2, "file")


def test_a_manifest_without_its_source_column_still_guards_the_rows(data):
    """Fits stored before the manifest named its source carry the four-column header."""
    path = data / MANIFEST_FILE
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=MANIFEST_COLUMNS[:-1], lineterminator="\n",
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    assert validate_data_dir(data) == []
    _keep_lines(data / RENTAL, lambda number, total: number <= total // 2)
    (issue,) = validate_data_dir(data)
    assert "106 data rows, but manifest.csv records 213" in issue.message
