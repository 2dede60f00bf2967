"""The one quarter calendar: labels, pandas periods and timestamps on one quarter index."""

from __future__ import annotations

import pandas as pd
import pytest

from forecast.core.calendar import period_index, quarter_label
from forecast.core.errors import ForecastError


def _via_pandas(label: str) -> int:
    month = pd.Period(label, freq="Q-DEC").asfreq("M", how="end")
    return month.year * 4 + (month.month - 1) // 3


def test_a_label_reads_as_pandas_reads_its_calendar_quarter() -> None:
    labels = [f"{year}Q{q}" for year in range(1990, 2041) for q in range(1, 5)]
    assert [period_index(label) for label in labels] == [_via_pandas(x) for x in labels]
    assert [quarter_label(period_index(label)) for label in labels] == labels
    assert period_index(" 2025Q3 ") == period_index("2025Q3")


def test_other_periods_land_on_the_calendar_quarter_they_end_in() -> None:
    assert period_index("2025-05") == period_index("2025Q2")
    # NVIDIA's fiscal quarter ending in January 2026 is calendar 2026Q1's index.
    assert period_index(pd.Period("2026Q4", freq="Q-JAN")) == period_index("2026Q1")
    assert period_index(pd.Timestamp("2025-12-31")) == period_index("2025Q4")


@pytest.mark.parametrize("bad", ["2025Q5", "soon", 2025, pd.NaT])
def test_what_is_not_a_quarter_is_one_error(bad) -> None:
    with pytest.raises(ForecastError):
        period_index(bad)
