"""Tests of the data layer: the shipped data load, and every validation error class is caught."""

from __future__ import annotations

import csv
import os
import shutil
from dataclasses import fields
from pathlib import Path

import pandas as pd
import pytest

import forecast.data.dataset as data_module
from forecast.core.calendar import fiscal_to_calendar_quarter
from forecast.core.errors import DataValidationError
from forecast.data.dataset import (
    DATA_CACHE_ENTRIES,
    DATA_CACHE_ENV,
    DEFAULT_DATA_DIR,
    PRICING_TYPES,
    load_dataset,
    parse_date,
    validate_data_dir,
)


@pytest.fixture(scope="module")
def dataset():
    return load_dataset()


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, target)
    return target


def edit_cell(directory: Path, filename: str, line: int, column: str, value: str) -> None:
    """Set one cell of a CSV; ``line`` is the file line number (header = 1)."""
    path = directory / filename
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    rows[line - 1][rows[0].index(column)] = value
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


def issue_strings(directory: Path) -> list[str]:
    return [str(issue) for issue in validate_data_dir(directory)]


# --------------------------------------------------------------------------- shipped data


def test_shipped_data_is_valid(dataset):
    assert validate_data_dir() == []
    assert len(dataset.accelerators) == 26
    assert dataset.accelerators["chip"].is_unique


def test_every_row_has_a_source_and_confidence(dataset):
    for name in ("accelerators", "revenue", "rental_prices", "unit_prices", "volumes"):
        frame = getattr(dataset, name)
        assert frame["source"].str.strip().str.len().gt(0).all(), name
        assert frame["confidence"].isin(["verified", "recalled"]).all(), name


def test_recalled_rows_are_flagged(dataset):
    revenue = dataset.revenue
    assert revenue["recalled"].sum() == (revenue["confidence"] == "recalled").sum() > 0
    nvidia_fy2020q1 = revenue[(revenue["company"] == "NVIDIA")
                              & (revenue["fiscal_period"] == "FY2020Q1")]
    assert nvidia_fy2020q1["recalled"].item()


def test_pricing_type_is_a_fixed_category(dataset):
    pricing = dataset.rental_prices["pricing_type"]
    assert isinstance(pricing.dtype, pd.CategoricalDtype)
    assert tuple(pricing.cat.categories) == PRICING_TYPES
    assert pricing.notna().all()


def test_chip_aliases_resolve_to_catalogue_names(dataset):
    catalogue = set(dataset.accelerators["chip"])
    assert set(dataset.rental_prices["chip"]) <= catalogue
    assert set(dataset.volumes["chip"]) <= catalogue
    h100 = dataset.rental_prices[dataset.rental_prices["chip_as_recorded"] == "H100 SXM 80GB"]
    assert (h100["chip"] == "H100 SXM5 80GB").all()


def test_units_are_normalised(dataset):
    # Trainium3's dense FP8 is 2,517 TFLOPS; the H100's dense FP8 is half its sparse headline.
    spec = dataset.accelerators.set_index("chip")
    assert spec.loc["H100 SXM5 80GB", "fp8_dense_tflops"] == pytest.approx(3958 / 2, rel=1e-3)
    assert spec.loc["Trainium3", "fp8_dense_tflops"] == 2517
    assert dataset.revenue["revenue_usd_billions"].between(0, 1000).all()
    assert dataset.rental_prices["usd_per_chip_hour"].between(0, 50).all()


@pytest.mark.parametrize(
    ("fiscal_end", "calendar_quarter"),
    [
        ("2025-10-26", "2025Q3"),  # NVIDIA FY2026Q3: Jul 28 - Oct 26
        ("2025-01-26", "2024Q4"),  # NVIDIA FY2025Q4: Oct 28 - Jan 26
        ("2025-09-30", "2025Q3"),  # Amazon, calendar quarter
        ("2025-08-03", "2025Q2"),  # Broadcom FY2025Q3: May 5 - Aug 3
        ("2025-09-27", "2025Q3"),  # AMD, last Saturday of September
    ],
)
def test_fiscal_quarters_map_to_calendar_quarters(fiscal_end, calendar_quarter):
    assert str(fiscal_to_calendar_quarter(pd.Timestamp(fiscal_end))) == calendar_quarter


def test_nvidia_series_has_one_row_per_calendar_quarter(dataset):
    series = dataset.revenue_series("NVIDIA", "Data Center")
    assert series["quarter"].is_unique
    assert series["quarter"].is_monotonic_increasing


@pytest.mark.parametrize(
    ("text", "end", "precision"),
    [
        ("2025-03-17", "2025-03-17", "day"),
        ("2025-09", "2025-09-30", "month"),
        ("2025-Q1", "2025-03-31", "quarter"),
        ("2024", "2024-12-31", "year"),
    ],
)
def test_coarse_dates_take_the_end_of_their_span(text, end, precision):
    assert parse_date(text) == (pd.Timestamp(end), precision)


def test_as_of_drops_later_observations(dataset):
    early = dataset.as_of("2024-07-01")
    assert early.rental_prices["date"].max() <= pd.Timestamp("2024-07-01")
    assert early.revenue["calendar_quarter_end"].max() <= pd.Timestamp("2024-07-01")
    assert len(early.accelerators) == len(dataset.accelerators)
    assert early.data_hash != dataset.data_hash


def test_dataset_is_immutable(dataset):
    with pytest.raises(AttributeError):
        dataset.revenue = None


# --------------------------------------------------------------------------- error classes


def test_negative_price_is_rejected(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 2, "usd_per_chip_hour", "-4.10")
    assert issue_strings(data_copy) == [
        "gpu_rental_prices.csv:2:usd_per_chip_hour: must be in (0, 50], got -4.1 "
        "(USD per chip-hour; an instance price must be divided by its chips)"
    ]


def test_zero_price_is_rejected(data_copy):
    edit_cell(data_copy, "accelerators.csv", 5, "cloud_on_demand_usd_per_chip_hour", "0")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.file, issue.row, issue.column) == (
        "accelerators.csv", 5, "cloud_on_demand_usd_per_chip_hour")


def test_instance_price_is_flagged_as_wrong_unit(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 3, "usd_per_chip_hour", "98.32")
    (issue,) = validate_data_dir(data_copy)
    assert "instance price" in issue.message


def test_revenue_in_millions_is_flagged(data_copy):
    edit_cell(data_copy, "vendor_quarterly_revenue.csv", 4, "revenue_usd_billions", "14514")
    (issue,) = validate_data_dir(data_copy)
    assert issue.column == "revenue_usd_billions" and "millions" in issue.message


def test_unknown_chip_is_rejected(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 10, "chip", "H900")
    assert issue_strings(data_copy) == [
        "gpu_rental_prices.csv:10:chip: chip 'H900' is not in accelerators.csv or "
        "chip_aliases.csv"
    ]


def test_bad_date_is_rejected(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 4, "date", "2024-13-45")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.row, issue.column) == (4, "date")
    assert "2024-13-45" in issue.message


def test_empty_source_is_rejected(data_copy):
    edit_cell(data_copy, "vendor_quarterly_revenue.csv", 7, "source", "  ")
    assert issue_strings(data_copy) == ["vendor_quarterly_revenue.csv:7:source: source is empty"]


def test_non_numeric_value_is_rejected(data_copy):
    edit_cell(data_copy, "accelerators.csv", 3, "bf16_dense_tflops", "fast")
    assert issue_strings(data_copy) == [
        "accelerators.csv:3:bf16_dense_tflops: not a number, got 'fast'"
    ]


def test_unknown_pricing_type_is_rejected(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 5, "pricing_type", "on demand")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.row, issue.column) == (5, "pricing_type")


def test_duplicate_observation_is_rejected(data_copy):
    path = data_copy / "gpu_rental_prices.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines + [lines[1]]), encoding="utf-8")
    (issue,) = validate_data_dir(data_copy)
    assert issue.row == len(lines) + 1
    assert "duplicate observation" in issue.message and "line 2" in issue.message


def test_missing_column_is_rejected(data_copy):
    path = data_copy / "market_estimates.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False).drop(columns=["target_year"])
    frame.to_csv(path, index=False)
    assert issue_strings(data_copy) == ["market_estimates.csv:1:target_year: required column is "
                                        "missing"]


def test_inconsistent_range_is_rejected(data_copy):
    edit_cell(data_copy, "accelerator_unit_prices.csv", 2, "price_usd_low", "25000")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.row, issue.column) == (2, "price_usd_low")


def test_all_errors_are_reported_at_once(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 2, "usd_per_chip_hour", "-1")
    edit_cell(data_copy, "gpu_rental_prices.csv", 10, "chip", "H900")
    edit_cell(data_copy, "gpu_rental_prices.csv", 4, "date", "yesterday")
    edit_cell(data_copy, "vendor_quarterly_revenue.csv", 7, "source", "")
    with pytest.raises(DataValidationError) as caught:
        load_dataset(data_copy)
    located = {(i.file, i.row, i.column) for i in caught.value.issues}
    assert located == {
        ("gpu_rental_prices.csv", 2, "usd_per_chip_hour"),
        ("gpu_rental_prices.csv", 10, "chip"),
        ("gpu_rental_prices.csv", 4, "date"),
        ("vendor_quarterly_revenue.csv", 7, "source"),
    }


def test_missing_directory_is_an_error(tmp_path):
    with pytest.raises(DataValidationError, match="data directory not found"):
        load_dataset(tmp_path / "nowhere")


# --------------------------------------------------------------------------- dataset cache


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv(DATA_CACHE_ENV, str(directory))
    return directory


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Directories actually parsed (cache misses), in order."""
    seen: list[Path] = []
    real = data_module._load_tables

    def spy(directory, issues):
        seen.append(directory)
        return real(directory, issues)

    monkeypatch.setattr(data_module, "_load_tables", spy)
    return seen


def assert_same_dataset(first, second) -> None:
    for item in fields(first):
        a, b = getattr(first, item.name), getattr(second, item.name)
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_exact=True)
        else:
            assert a == b, item.name


def uncached(directory: Path):
    previous = os.environ.get(DATA_CACHE_ENV)
    os.environ[DATA_CACHE_ENV] = "off"
    try:
        return load_dataset(directory)
    finally:
        if previous is None:
            del os.environ[DATA_CACHE_ENV]
        else:
            os.environ[DATA_CACHE_ENV] = previous


def test_cached_dataset_equals_a_fresh_parse(data_copy, cache_dir, parses):
    first = load_dataset(data_copy)
    assert len(list(cache_dir.glob("dataset-*.pickle"))) == 1
    second = load_dataset(data_copy)
    assert parses == [data_copy]  # the second load came from the cache
    assert_same_dataset(second, first)
    assert second.data_hash == first.data_hash
    assert_same_dataset(second, uncached(data_copy))


def test_cache_serves_the_same_files_in_another_directory(data_copy, cache_dir, parses):
    load_dataset(DEFAULT_DATA_DIR)
    copy = load_dataset(data_copy)
    assert parses == [DEFAULT_DATA_DIR]
    assert copy.data_dir == data_copy


def test_changed_csv_invalidates_the_cache(data_copy, cache_dir, parses):
    before = load_dataset(data_copy)
    path = data_copy / "gpu_rental_prices.csv"
    original = path.read_bytes()
    edit_cell(data_copy, "gpu_rental_prices.csv", 2, "usd_per_chip_hour", "4.25")
    changed = load_dataset(data_copy)
    assert len(parses) == 2 and changed.data_hash != before.data_hash
    assert 4.25 in set(changed.rental_prices["usd_per_chip_hour"])
    assert_same_dataset(changed, uncached(data_copy))

    # A bad edit is reported exactly as without a cache, file:row:column and all.
    edit_cell(data_copy, "gpu_rental_prices.csv", 2, "usd_per_chip_hour", "-4.10")
    with pytest.raises(DataValidationError) as caught:
        load_dataset(data_copy)
    assert [str(issue) for issue in caught.value.issues] == issue_strings(data_copy) == [
        "gpu_rental_prices.csv:2:usd_per_chip_hour: must be in (0, 50], got -4.1 "
        "(USD per chip-hour; an instance price must be divided by its chips)"
    ]

    path.write_bytes(original)  # back to the first contents: served from the cache again
    count = len(parses)
    assert_same_dataset(load_dataset(data_copy), before)
    assert len(parses) == count


def test_missing_file_bypasses_the_cache(data_copy, cache_dir):
    load_dataset(data_copy)
    (data_copy / "market_estimates.csv").unlink()
    with pytest.raises(DataValidationError, match="market_estimates.csv::: cannot read file"):
        load_dataset(data_copy)


def test_parsing_code_change_invalidates_the_cache(data_copy, cache_dir, parses, monkeypatch):
    load_dataset(data_copy)
    monkeypatch.setattr(data_module, "_CACHE_FORMAT", data_module._CACHE_FORMAT + 1)
    load_dataset(data_copy)
    assert len(parses) == 2


def test_unreadable_cache_entry_is_rebuilt(data_copy, cache_dir, parses):
    first = load_dataset(data_copy)
    (entry,) = cache_dir.glob("dataset-*.pickle")
    entry.write_bytes(b"not a pickle")
    assert_same_dataset(load_dataset(data_copy), first)
    assert len(parses) == 2
    assert_same_dataset(load_dataset(data_copy), first)  # rewritten, now a hit
    assert len(parses) == 2


def test_cache_can_be_switched_off(data_copy, tmp_path, monkeypatch, parses):
    monkeypatch.setenv(DATA_CACHE_ENV, "off")
    monkeypatch.setenv("FORECAST_ARTIFACTS", str(tmp_path / "artifacts"))
    load_dataset(data_copy)
    load_dataset(data_copy)
    assert len(parses) == 2
    assert not (tmp_path / "artifacts").exists()


def test_cache_keeps_only_the_most_recent_entries(data_copy, cache_dir):
    cache_dir.mkdir()
    for i in range(DATA_CACHE_ENTRIES + 3):
        old = cache_dir / f"dataset-{i:032d}.pickle"
        old.write_bytes(b"old")
        os.utime(old, (1_000_000 + i, 1_000_000 + i))
    load_dataset(data_copy)
    entries = sorted(cache_dir.glob("dataset-*.pickle"))
    assert len(entries) == DATA_CACHE_ENTRIES
    assert (cache_dir / f"dataset-{DATA_CACHE_ENTRIES + 2:032d}.pickle") in entries
    assert not (cache_dir / f"dataset-{0:032d}.pickle").exists()
