"""Property of the drop ingest (Hypothesis): whatever bytes a drop file holds, reading and
merging it ends in merged data that load, or in one DataValidationError of one-line issues."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forecast.core.errors import DataValidationError, ForecastError
from forecast.data.dataset import DEFAULT_DATA_DIR, load_dataset
from forecast.data.drop import merge_drop, read_drop

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
REVENUE = "vendor_quarterly_revenue.csv"
#: A plausible drop: one new quarter of NVIDIA results after the shipped data.
DROP = (b"company,segment,fiscal_period,calendar_quarter_end,published_date,"
        b"revenue_usd_billions,value_qualifier,source,confidence,notes\n"
        b"NVIDIA,Data Center,FY2026Q4,2026-01-25,2026-02-25,56.0,=,made up for a test,"
        b"recalled,test\n")
AS_OF = pd.Timestamp("2026-04-30")


@st.composite
def mutated_drop(draw: st.DrawFn) -> bytes:
    how = draw(st.sampled_from(["random", "cut", "insert", "replace", "truncate"]))
    if how == "random":
        return draw(st.binary(max_size=300))
    at = draw(st.integers(0, len(DROP)))
    if how == "truncate":
        return DROP[:at]
    piece = draw(st.one_of(st.binary(max_size=10), st.sampled_from(
        [b'"', b",", b"\n", b"\xef\xbb\xbf", b"\xff", b"1e309", b"2999-01-01", b"-5"])))
    if how == "insert":
        return DROP[:at] + piece + DROP[at:]
    end = min(len(DROP), at + draw(st.integers(1, 30)))
    return DROP[:at] + (piece if how == "replace" else b"") + DROP[end:]


def _ingest(content: bytes) -> object:
    """The merged dataset, or the ForecastError: any other exception fails the property."""
    with tempfile.TemporaryDirectory() as tmp:
        drop = Path(tmp) / REVENUE
        drop.write_bytes(content)
        staging = Path(tmp) / "merged"
        staging.mkdir()
        try:
            merge_drop(DEFAULT_DATA_DIR, read_drop(drop, AS_OF), staging, AS_OF)
            return load_dataset(staging, cache_dir=Path(tmp) / "cache")
        except ForecastError as exc:
            return exc


def test_the_plausible_drop_merges() -> None:
    merged = _ingest(DROP)
    assert not isinstance(merged, Exception), merged
    nvidia = merged.revenue[(merged.revenue["company"] == "NVIDIA")
                            & (merged.revenue["segment"] == "Data Center")]
    assert nvidia["revenue_usd_billions"].iloc[-1] == 56.0


@PROPERTY
@given(mutated_drop())
def test_any_drop_ends_in_merged_data_or_one_validation_error(content: bytes) -> None:
    outcome = _ingest(content)
    if isinstance(outcome, Exception):
        assert isinstance(outcome, DataValidationError), repr(outcome)
        assert outcome.issues and all("\n" not in str(i) for i in outcome.issues)
