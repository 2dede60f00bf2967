"""Tests of forecast.data.cache: a clean parse is reused until a file or the code changes, the
cache holds nothing that runs code when read, and it lives under the caller's artifacts root."""

from __future__ import annotations

import json
import os
import pickle
import shutil
from dataclasses import fields
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from data_files import edit_cell, issue_strings

import forecast.data.cache as cache_module
import forecast.data.dataset as data_module
from forecast.core.errors import DataValidationError
from forecast.data.cache import MANIFEST, cache_key, data_cache_dir, entry_dir
from forecast.data.dataset import (
    DATA_CACHE_ENTRIES,
    DATA_CACHE_ENV,
    DEFAULT_DATA_DIR,
    load_dataset,
)
from forecast.data.manifest import MANIFEST_FILE

ROOT = Path(__file__).resolve().parents[2]

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


def entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.glob("dataset-*") if p.is_dir())


def test_cached_dataset_equals_a_fresh_parse(data_copy, cache_dir, parses):
    first = load_dataset(data_copy)
    (entry,) = entries(cache_dir)
    assert sorted(p.name for p in entry.iterdir()) == sorted(
        [MANIFEST, *(f"{name}.npz" for name in data_module.TABLES)])
    second = load_dataset(data_copy)
    assert parses == [data_copy]  # the second load came from the cache
    assert_same_dataset(second, first)
    assert second.data_hash == first.data_hash
    assert second.data_as_of == pd.Timestamp("2025-10-31")
    assert_same_dataset(second, uncached(data_copy))


def test_cache_serves_the_same_files_in_another_directory(data_copy, cache_dir, parses):
    shutil.copy(DEFAULT_DATA_DIR / MANIFEST_FILE, data_copy)  # the same files, all of them
    load_dataset(DEFAULT_DATA_DIR)
    copy = load_dataset(data_copy)
    assert parses == [DEFAULT_DATA_DIR]
    assert copy.data_dir == data_copy


def test_a_process_decodes_an_entry_once_while_it_is_unchanged(data_copy, cache_dir, parses,
                                                                monkeypatch):
    decoded = []
    read = cache_module.read_entry
    monkeypatch.setattr(data_module, "read_entry",
                        lambda *args: decoded.append(1) or read(*args))
    first = load_dataset(data_copy)
    again = load_dataset(data_copy)
    assert again is first and parses == [data_copy] and decoded == [1]
    # A new process's load: the entry decoded, equal to the one this process kept.
    data_module._LOADED.clear()
    assert_same_dataset(load_dataset(data_copy), first)
    assert decoded == [1, 1]
    # An entry replaced by another with valid checksums is read again, not trusted.
    (entry,) = entries(cache_dir)
    manifest = json.loads((entry / MANIFEST).read_text())
    manifest["meta"]["data_as_of"] = None
    (entry / MANIFEST).write_text(json.dumps(manifest))
    assert load_dataset(data_copy).data_as_of is None
    assert decoded == [1, 1, 1]


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


def test_changed_as_of_file_invalidates_the_cache(data_copy, cache_dir, parses):
    load_dataset(data_copy)
    (data_copy / "as_of.csv").write_text("as_of,source,notes\n2025-06-30,test,earlier\n")
    with pytest.raises(DataValidationError, match="after the data's as-of date 2025-06-30"):
        load_dataset(data_copy)
    assert len(parses) == 2


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


@pytest.mark.parametrize("damage", ["array", "manifest", "checksum", "missing", "key"])
def test_damaged_cache_entry_is_deleted_and_rebuilt(data_copy, cache_dir, parses, damage):
    first = load_dataset(data_copy)
    (entry,) = entries(cache_dir)
    manifest = json.loads((entry / MANIFEST).read_text())
    if damage == "array":
        (entry / "revenue.npz").write_bytes(b"not an npz")
    elif damage == "manifest":
        (entry / MANIFEST).write_text("{not json")
    elif damage == "checksum":
        manifest["files"]["revenue.npz"] = "0" * 64
        (entry / MANIFEST).write_text(json.dumps(manifest))
    elif damage == "missing":
        (entry / "unit_prices.npz").unlink()
    else:
        manifest["key"] = "another"
        (entry / MANIFEST).write_text(json.dumps(manifest))
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
        old = cache_dir / f"dataset-{i:032d}"
        old.mkdir()
        (old / MANIFEST).write_text("{}")
        os.utime(old / MANIFEST, (1_000_000 + i, 1_000_000 + i))
    legacy = cache_dir / f"dataset-{'f' * 32}.pickle"
    legacy.write_bytes(b"former format")
    load_dataset(data_copy)
    kept = entries(cache_dir)
    assert len(kept) == DATA_CACHE_ENTRIES
    assert (cache_dir / f"dataset-{DATA_CACHE_ENTRIES + 2:032d}") in kept
    assert not (cache_dir / f"dataset-{0:032d}").exists()
    assert not legacy.exists()


def test_key_covers_every_parsing_module(tmp_path, monkeypatch):
    """A change to any module that reads, checks or normalises the files changes the key."""
    import forecast.core.calendar
    import forecast.core.scenario_contract
    import forecast.data.csv_reader
    import forecast.data.fiscal
    import forecast.data.frame_codec
    import forecast.data.manifest
    import forecast.data.normalise
    import forecast.data.normalise_bounds
    import forecast.data.schema_types
    import forecast.data.schemas
    import forecast.data.schemas_bounds
    import forecast.data.tables
    import forecast.data.validation

    modules = (forecast.data.schema_types, forecast.data.schemas, forecast.data.schemas_bounds,
               forecast.data.csv_reader, forecast.data.validation, forecast.data.fiscal,
               forecast.data.manifest, forecast.data.normalise, forecast.data.normalise_bounds,
               data_module, forecast.data.tables, cache_module, forecast.data.frame_codec,
               forecast.core.calendar, forecast.core.scenario_contract)
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


# --------------------------------------------------------------------------- no code runs


class _Planted:
    """An object whose unpickling creates a marker file: proof that a pickle was loaded."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _current_key(directory: Path) -> str:
    hashes = cache_module.file_hashes(directory, data_module.SCHEMAS)
    return cache_key((*hashes, data_module._as_of_identity(directory)))


def test_planted_pickle_is_never_unpickled(data_copy, cache_dir, tmp_path, parses):
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Planted(marker))
    key = _current_key(data_copy)
    cache_dir.mkdir()
    # Where the former format kept its entry, and inside the new format's entry.
    (cache_dir / f"dataset-{key[:32]}.pickle").write_bytes(payload)
    entry = entry_dir(cache_dir, key)
    entry.mkdir()
    for name in (MANIFEST, *(f"{table}.npz" for table in data_module.TABLES)):
        (entry / name).write_bytes(payload)
    dataset = load_dataset(data_copy)
    assert not marker.exists()
    assert parses == [data_copy] and len(dataset.revenue) > 0
    assert json.loads((entry / MANIFEST).read_text())["key"] == key  # replaced by a real one


def test_planted_object_array_is_refused(data_copy, cache_dir, tmp_path, parses):
    """An entry with a consistent manifest but a pickled object array is not loaded."""
    marker = tmp_path / "pwned"
    load_dataset(data_copy)
    (entry,) = entries(cache_dir)
    evil = np.empty(1, dtype=object)
    evil[0] = _Planted(marker)
    np.savez(entry / "revenue.npz", b0=evil)
    manifest = json.loads((entry / MANIFEST).read_text())
    manifest["files"]["revenue.npz"] = cache_module._sha256(entry / "revenue.npz")
    (entry / MANIFEST).write_text(json.dumps(manifest))
    load_dataset(data_copy)
    assert not marker.exists()
    assert len(parses) == 2  # the entry was refused and rebuilt


# --------------------------------------------------------------------------- where it lives


def test_cache_follows_the_artifacts_root(data_copy, tmp_path, monkeypatch):
    monkeypatch.delenv(DATA_CACHE_ENV, raising=False)
    monkeypatch.delenv("FORECAST_ARTIFACTS", raising=False)
    before = set((ROOT / "artifacts" / "cache").glob("*")) if (
        ROOT / "artifacts" / "cache").exists() else set()
    cache = data_cache_dir(tmp_path / "artifacts")
    assert cache == tmp_path / "artifacts" / "cache"
    edit_cell(data_copy, "gpu_rental_prices.csv", 2, "usd_per_chip_hour", "4.26")  # a new key
    load_dataset(data_copy, cache_dir=cache)
    assert len(entries(cache)) == 1
    after = set((ROOT / "artifacts" / "cache").glob("*")) if (
        ROOT / "artifacts" / "cache").exists() else set()
    assert after == before  # nothing written under the repository


def test_cache_dir_defaults_and_overrides(tmp_path, monkeypatch):
    monkeypatch.delenv(DATA_CACHE_ENV, raising=False)
    monkeypatch.setenv("FORECAST_ARTIFACTS", str(tmp_path / "env"))
    assert data_cache_dir() == tmp_path / "env" / "cache"
    assert data_cache_dir(tmp_path / "arg") == tmp_path / "arg" / "cache"
    monkeypatch.setenv(DATA_CACHE_ENV, str(tmp_path / "own"))
    assert data_cache_dir(tmp_path / "arg") == tmp_path / "own"
    monkeypatch.setenv(DATA_CACHE_ENV, "off")
    assert data_cache_dir(tmp_path / "arg") is None


def test_runner_passes_the_artifacts_root_to_the_cache(data_copy, tmp_path, monkeypatch):
    from forecast.pipeline.runner import fit_dataset

    monkeypatch.delenv(DATA_CACHE_ENV, raising=False)
    monkeypatch.delenv("FORECAST_ARTIFACTS", raising=False)
    edit_cell(data_copy, "gpu_rental_prices.csv", 2, "usd_per_chip_hour", "4.27")
    fit_dataset(data_copy, None, root=tmp_path / "artifacts")
    assert len(entries(tmp_path / "artifacts" / "cache")) == 1
