"""Tests for forecast.data.drop: drop files checked like data/, merged with revisions logged."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pandas as pd
import pytest

from forecast.core.errors import DataValidationError
from forecast.data.dataset import load_dataset
from forecast.data.drop import REVISIONS_FILE, merge_drop, read_drop
from forecast.data.manifest import write_manifest

DATA = Path(__file__).resolve().parents[2] / "data"
REVENUE = "vendor_quarterly_revenue.csv"
LATEST = pd.Timestamp("2025-07-31")


def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def _write(path: Path, header: list[str], rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture
def split(tmp_path) -> tuple[Path, Path]:
    """The shipped data without its newest revenue quarter, and that quarter as a drop.

    Every figure is a real, sourced row of the shipped data: the drop replays how the latest
    quarter arrived.
    """
    base = tmp_path / "base"
    shutil.copytree(DATA, base)
    header, rows = _rows(DATA / REVENUE)
    old = [r for r in rows if pd.Timestamp(r["calendar_quarter_end"]) <= LATEST]
    new = [r for r in rows if pd.Timestamp(r["calendar_quarter_end"]) > LATEST]
    assert new, "the shipped data should hold a quarter after the cut"
    _write(base / REVENUE, header, old)
    write_manifest(base)  # the data as they were before that quarter arrived
    drop = tmp_path / "drop"
    drop.mkdir()
    _write(drop / REVENUE, header, new)
    return base, drop


def test_new_quarter_is_appended_and_reproduces_the_shipped_data(split, tmp_path):
    base, drop = split
    staging = tmp_path / "merged"
    staging.mkdir()
    summary = merge_drop(base, read_drop(drop), staging)
    assert summary.n_added == len(_rows(drop / REVENUE)[1]) and not summary.revisions
    merged = load_dataset(staging).revenue
    shipped = load_dataset(DATA).revenue
    key = ["company", "segment", "fiscal_period"]
    pd.testing.assert_frame_equal(
        merged.sort_values(key).reset_index(drop=True)[key + ["revenue_usd_billions"]],
        shipped.sort_values(key).reset_index(drop=True)[key + ["revenue_usd_billions"]])


def test_resending_a_drop_changes_nothing(split, tmp_path):
    base, drop = split
    first = tmp_path / "first"
    first.mkdir()
    merge_drop(base, read_drop(drop), first)
    second = tmp_path / "second"
    second.mkdir()
    summary = merge_drop(first, read_drop(drop), second)
    assert summary.n_added == 0
    assert sum(summary.unchanged.values()) == len(_rows(drop / REVENUE)[1])
    assert (first / REVENUE).read_bytes() == (second / REVENUE).read_bytes()


def test_changed_figure_is_a_revision_with_both_sources(tmp_path):
    base = tmp_path / "base"
    shutil.copytree(DATA, base)
    header, rows = _rows(DATA / REVENUE)
    restated = dict(next(r for r in rows if r["fiscal_period"] == "FY2026Q2"
                         and r["segment"] == "Data Center"))
    old_value, old_source = restated["revenue_usd_billions"], restated["source"]
    restated["revenue_usd_billions"] = "41.2"
    restated["source"] = "https://example.org/restatement"
    drop = _write(tmp_path / "restated.csv", header, [restated])
    staging = tmp_path / "merged"
    staging.mkdir()
    summary = merge_drop(base, read_drop(drop), staging, pd.Timestamp("2026-02-01"))
    assert len(summary.revisions) == 1
    _, logged = _rows(staging / REVISIONS_FILE)
    (entry,) = logged
    assert entry["column"] == "revenue_usd_billions"
    assert (entry["old_value"], entry["new_value"]) == (old_value, "41.2")
    assert (entry["old_source"], entry["new_source"]) == (old_source,
                                                          "https://example.org/restatement")
    assert entry["recorded_as_of"] == "2026-02-01"
    revenue = load_dataset(staging).revenue
    value = revenue.loc[(revenue["fiscal_period"] == "FY2026Q2")
                        & (revenue["segment"] == "Data Center"), "revenue_usd_billions"]
    assert value.tolist() == [41.2]


def test_corrupt_row_names_drop_file_row_and_column(split, tmp_path):
    _, drop = split
    header, rows = _rows(drop / REVENUE)
    rows[1]["revenue_usd_billions"] = "lots"
    bad = _write(tmp_path / REVENUE, header, rows)
    with pytest.raises(DataValidationError) as caught:
        read_drop(bad)
    (issue,) = caught.value.issues
    assert (issue.file, issue.row, issue.column) == (str(bad), 3, "revenue_usd_billions")


def test_rows_after_the_as_of_date_are_rejected(split):
    _, drop = split
    with pytest.raises(DataValidationError) as caught:
        read_drop(drop, as_of=pd.Timestamp("2025-09-01"))
    # Checked on publication: Broadcom's quarter to 2025-08-03 was reported on 2025-09-04.
    assert {issue.column for issue in caught.value.issues} == {"published_date"}
    assert all("after the as-of date" in issue.message for issue in caught.value.issues)


def test_unknown_chip_is_located_in_the_drop(tmp_path):
    base = tmp_path / "base"
    shutil.copytree(DATA, base)
    header, rows = _rows(DATA / "gpu_rental_prices.csv")
    row = dict(rows[0], chip="Imaginary X1")
    drop = _write(tmp_path / "gpu_rental_prices.csv", header, [row])
    staging = tmp_path / "merged"
    staging.mkdir()
    with pytest.raises(DataValidationError) as caught:
        merge_drop(base, read_drop(drop), staging)
    (issue,) = caught.value.issues
    assert (issue.file, issue.row, issue.column) == (str(drop), 2, "chip")


def test_file_is_recognised_by_header_and_unknown_files_are_refused(split, tmp_path):
    _, drop = split
    renamed = tmp_path / "nvidia_q3.csv"
    shutil.copy(drop / REVENUE, renamed)
    (parsed,) = read_drop(renamed)
    assert parsed.schema.filename == REVENUE
    stray = tmp_path / "notes.csv"
    stray.write_text("a,b\n1,2\n")
    with pytest.raises(DataValidationError, match="not a data file"):
        read_drop(stray)
    with pytest.raises(DataValidationError, match="drop not found"):
        read_drop(tmp_path / "missing")


def test_merged_data_are_as_of_the_later_of_base_and_refit(split, tmp_path):
    base, drop = split
    later = tmp_path / "later"
    later.mkdir()
    merge_drop(base, read_drop(drop), later, pd.Timestamp("2026-02-01"))
    assert "2026-02-01" in (later / "as_of.csv").read_text()
    assert load_dataset(later, cache_dir=tmp_path / "cache").data_as_of == pd.Timestamp(
        "2026-02-01")
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    merge_drop(base, read_drop(drop), earlier, pd.Timestamp("2025-06-30"))
    assert (earlier / "as_of.csv").read_bytes() == (base / "as_of.csv").read_bytes()


def test_drop_cannot_set_the_as_of_date(split):
    _, drop = split
    (drop / "as_of.csv").write_text("as_of,source,notes\n2030-01-01,test,x\n")
    with pytest.raises(DataValidationError, match="cannot set the data's as-of date"):
        read_drop(drop)


def test_drop_file_with_byte_order_mark_is_recognised_by_its_header(split, tmp_path):
    _, drop = split
    renamed = tmp_path / "q3.csv"
    renamed.write_bytes(b"\xef\xbb\xbf" + (drop / REVENUE).read_bytes())
    (parsed,) = read_drop(renamed)
    assert parsed.schema.filename == REVENUE


def test_a_price_of_a_new_provider_needs_its_class_in_the_drop(tmp_path):
    base = tmp_path / "base"
    shutil.copytree(DATA, base)
    header, rows = _rows(DATA / "gpu_rental_prices.csv")
    row = dict(rows[0], provider_or_index="Nebius", usd_per_chip_hour="2.10")
    drop = tmp_path / "drop"
    drop.mkdir()
    _write(drop / "gpu_rental_prices.csv", header, [row])
    staging = tmp_path / "merged"
    staging.mkdir()
    with pytest.raises(DataValidationError) as caught:
        merge_drop(base, read_drop(drop), staging)
    (issue,) = caught.value.issues
    assert (issue.file, issue.row, issue.column) == (str(drop / "gpu_rental_prices.csv"), 2,
                                                     "provider_or_index")
    # With its providers.csv row in the same drop the price merges and is classified.
    provider_header, _ = _rows(DATA / "providers.csv")
    _write(drop / "providers.csv", provider_header, [{
        "provider_or_index": "Nebius", "provider_class": "neocloud", "company": "Nebius",
        "source": "https://nebius.com/prices", "confidence": "verified", "notes": "test row"}])
    staging = tmp_path / "merged2"
    staging.mkdir()
    summary = merge_drop(base, read_drop(drop), staging)
    assert summary.n_added == 2
    assert load_dataset(staging, cache_dir=None).provider_classes["Nebius"] == "neocloud"
