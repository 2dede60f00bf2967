"""Tests of forecast.data.cache: a clean parse is reused until a file or the code changes."""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path

import pandas as pd
import pytest
from data_files import edit_cell, issue_strings

import forecast.data.cache as cache_module
import forecast.data.dataset as data_module
from forecast.core.errors import DataValidationError
from forecast.data.dataset import (
    DATA_CACHE_ENTRIES,
    DATA_CACHE_ENV,
    DEFAULT_DATA_DIR,
    load_dataset,
)

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
    monkeypatch.setattr(cache_module, "CACHE_FORMAT", cache_module.CACHE_FORMAT + 1)
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


def test_key_covers_every_parsing_module(tmp_path, monkeypatch):
    """A change to any module that reads, checks or normalises the files changes the key."""
    import forecast.core.calendar
    import forecast.data.csv_reader
    import forecast.data.normalise
    import forecast.data.schemas
    import forecast.data.validation

    modules = (forecast.data.schemas, forecast.data.csv_reader, forecast.data.validation,
               forecast.data.normalise, data_module, cache_module, forecast.core.calendar)
    assert {Path(m.__file__).resolve() for m in modules} == set(cache_module.PARSING_SOURCES)
    hashes = (("accelerators.csv", "0" * 64),)
    copies = []
    for path in cache_module.PARSING_SOURCES:
        copy = tmp_path / path.parent.name / path.name
        copy.parent.mkdir(exist_ok=True)
        copy.write_bytes(path.read_bytes())
        copies.append(copy)
    monkeypatch.setattr(cache_module, "PARSING_SOURCES", tuple(copies))
    key = cache_module.cache_key(hashes)
    for copy in copies:
        original = copy.read_bytes()
        copy.write_bytes(original + b"\n# edited\n")
        assert cache_module.cache_key(hashes) != key, copy.name
        copy.write_bytes(original)
    assert cache_module.cache_key(hashes) == key
