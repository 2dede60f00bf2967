"""Properties of the CSV loaders (Hypothesis): whatever bytes a data file holds, loading ends in
a dataset or in one :class:`~forecast.core.errors.ForecastError`; and a file that validates
loads exactly the rows it validated."""

from __future__ import annotations

import csv
import io
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forecast.core.errors import DataValidationError, ForecastError
from forecast.data.dataset import (
    DEFAULT_DATA_DIR,
    PRICING_TYPES,
    SCHEMAS,
    load_dataset,
    validate_data_dir,
)

# Deterministic (CI runs the same examples every time) and no example database in the tree.
PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
NAMES = sorted(SCHEMAS)
ORIGINAL = {name: (DEFAULT_DATA_DIR / name).read_bytes() for name in NAMES}


@contextmanager
def data_with(name: str, content: bytes) -> Iterator[Path]:
    """A copy of the shipped data with ``name`` replaced by ``content``."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "data"
        shutil.copytree(DEFAULT_DATA_DIR, directory)
        (directory / name).write_bytes(content)
        yield directory


def load_outcome(directory: Path) -> object:
    """The dataset, or the ForecastError: any other exception fails the property."""
    try:
        return load_dataset(directory, cache_dir=directory.parent / "cache")
    except ForecastError as exc:
        return exc


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    """A data file with bytes cut, inserted or replaced somewhere (or wholly random)."""
    name = draw(st.sampled_from(NAMES))
    content = ORIGINAL[name]
    how = draw(st.sampled_from(["random", "cut", "insert", "replace", "truncate"]))
    if how == "random":
        return name, draw(st.binary(max_size=400))
    at = draw(st.integers(0, len(content)))
    if how == "truncate":
        return name, content[:at]
    piece = draw(st.one_of(st.binary(max_size=12), st.sampled_from(
        [b'"', b",", b"\n", b"\r\n", b"\xef\xbb\xbf", b"\x00", b"\xff", b"1e309", b"-"])))
    if how == "insert":
        return name, content[:at] + piece + content[at:]
    end = min(len(content), at + draw(st.integers(1, 40)))
    return name, content[:at] + (piece if how == "replace" else b"") + content[end:]


@PROPERTY
@given(mutated())
def test_any_bytes_in_a_data_file_end_in_a_dataset_or_one_forecast_error(case):
    name, content = case
    with data_with(name, content) as directory:
        issues = validate_data_dir(directory)
        outcome = load_outcome(directory)
    if issues:
        assert isinstance(outcome, DataValidationError)
        assert [str(i) for i in outcome.issues] == [str(i) for i in issues]
        assert all("\n" not in str(issue) and "\r" not in str(issue) for issue in issues)
    else:
        assert not isinstance(outcome, Exception), outcome


# --------------------------------------------------------------------------- rows round trip

RENTAL = "gpu_rental_prices.csv"
_ALIASES = pd.read_csv(DEFAULT_DATA_DIR / "chip_aliases.csv")["alias"].tolist()
_CHIPS = pd.read_csv(DEFAULT_DATA_DIR / "accelerators.csv")["chip"].tolist()
_PROVIDERS = pd.read_csv(DEFAULT_DATA_DIR / "providers.csv")["provider_or_index"].tolist()
_PADDING = st.sampled_from(["", " ", "  "])
_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                max_size=30)


@st.composite
def rental_rows(draw: st.DrawFn) -> list[dict[str, str]]:
    """Rows of gpu_rental_prices.csv with awkward text (quotes, commas, line breaks, padding):
    valid, except that a row now and then has one bad value."""
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        date = draw(st.dates(pd.Timestamp("2016-01-01").date(),
                             pd.Timestamp("2025-10-31").date()))
        row = {
            "date": draw(st.sampled_from([date.isoformat(), date.isoformat()[:7],
                                          str(date.year)])),
            "chip": draw(st.sampled_from([*_CHIPS, *_ALIASES])),
            # A provider must be classified in providers.csv (padding is stripped).
            "provider_or_index": draw(_PADDING) + draw(st.sampled_from(_PROVIDERS))
            + draw(_PADDING),
            "usd_per_chip_hour": repr(draw(st.floats(0.01, 50))),
            "pricing_type": draw(st.sampled_from(PRICING_TYPES)),
            "source": draw(_TEXT) + "s",
            "confidence": draw(st.sampled_from(["verified", "recalled"])),
            "notes": draw(_TEXT),
        }
        if draw(st.integers(0, 9)) == 0:  # one bad value
            column, value = draw(st.sampled_from([
                ("date", "2999-01-01"), ("date", "2026-01-15"), ("chip", "H900"),
                ("usd_per_chip_hour", "-1"), ("usd_per_chip_hour", "98.3"),
                ("pricing_type", "on demand"), ("source", " "), ("confidence", "sure"),
                ("provider_or_index", "p" + draw(_TEXT))]))
            row[column] = value
        rows.append(row)
    return rows


def _csv(rows: list[dict[str, str]], line_end: str) -> bytes:
    text = io.StringIO()
    columns = [column.name for column in SCHEMAS[RENTAL].columns]
    writer = csv.DictWriter(text, fieldnames=columns, lineterminator=line_end)
    writer.writeheader()
    writer.writerows(rows)
    return text.getvalue().encode("utf-8")


@PROPERTY
@given(rental_rows(), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_a_file_that_validates_loads_the_rows_it_validated(rows, line_end, bom):
    content = (b"\xef\xbb\xbf" if bom else b"") + _csv(rows, line_end)
    with data_with(RENTAL, content) as directory:
        issues = validate_data_dir(directory)
        outcome = load_outcome(directory)
    if issues:
        assert isinstance(outcome, DataValidationError)
        return
    loaded = outcome.rental_prices
    expected = sorted((row["chip"].strip(), row["provider_or_index"].strip(),
                       float(row["usd_per_chip_hour"]), row["pricing_type"],
                       row["source"].strip()) for row in rows)
    got = sorted(zip(loaded["chip_as_recorded"], loaded["provider_or_index"],
                     loaded["usd_per_chip_hour"], loaded["pricing_type"].astype(str),
                     loaded["source"], strict=True))
    assert got == expected


def test_the_shipped_file_round_trips_through_the_property_writer():
    """The writer of the property above writes the shipped rows so that they validate."""
    with (DEFAULT_DATA_DIR / RENTAL).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with data_with(RENTAL, _csv(rows, "\n")) as directory:
        assert validate_data_dir(directory) == []


@pytest.mark.parametrize("name", NAMES)
def test_every_file_cut_after_its_header_and_one_byte_is_one_error(name):
    header = ORIGINAL[name].split(b"\n")[0]
    with data_with(name, header + b"\n" + ORIGINAL[name].split(b"\n")[1][:1]) as directory:
        outcome = load_outcome(directory)
    assert isinstance(outcome, DataValidationError)
