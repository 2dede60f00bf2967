"""Tests of thesis specs and the quarter periods they are stated over."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.core.calendar import parse_period, quarter_index, quarter_label
from forecast.core.errors import ScenarioError
from forecast.scenarios import ThesisSpec


def test_quarter_index_and_label_round_trip() -> None:
    assert quarter_index("2027Q1") == 2027 * 4
    assert quarter_index("2027Q4") == 2027 * 4 + 3
    for label in ("2025Q4", "2026Q1", "2030Q2"):
        assert quarter_label(quarter_index(label)) == label
    assert quarter_index("2026Q1") - quarter_index("2025Q4") == 1
    for bad in ("2027Q0", "2027Q5", "2027-Q1", "27Q1", 2027):
        with pytest.raises(ScenarioError, match="not a quarter label"):
            quarter_index(bad)  # type: ignore[arg-type]


def test_parse_period() -> None:
    assert parse_period("2030") == ("year", quarter_index("2030Q1"), quarter_index("2030Q4"))
    assert parse_period("2025Q4") == ("quarter", quarter_index("2025Q4"), quarter_index("2025Q4"))
    assert parse_period("2026..2030") == (
        "range",
        quarter_index("2026Q1"),
        quarter_index("2030Q4"),
    )
    for bad in ("2030Q5", "2026...2030", "2030..2026", "soon"):
        with pytest.raises(ScenarioError):
            parse_period(bad)


def test_thesis_spec_helpers() -> None:
    thesis = ThesisSpec(
        name="t",
        statement="s",
        metric="share",
        period="2029..2030",
        comparator="<=",
        threshold=0.7,
    )
    assert thesis.period_kind == "range"
    assert thesis.quarter_labels[0] == "2029Q1" and thesis.quarter_labels[-1] == "2030Q4"
    assert len(thesis.quarter_labels) == 8
    np.testing.assert_array_equal(thesis.holds([0.6, 0.7, 0.8]), [True, True, False])
    strict = ThesisSpec("u", "s", "spend", "2030", ">", 50.0)
    np.testing.assert_array_equal(strict.holds([50.0, 50.1]), [False, True])
