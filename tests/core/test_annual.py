"""The one annual aggregation against a plain loop."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.core.annual import annual_values


def test_complete_years_summed_or_averaged_like_a_loop() -> None:
    labels = ["2025Q3", "2025Q4", "2026Q1", "2026Q2", "2026Q3", "2026Q4", "2027Q1"]
    rng = np.random.default_rng(2)
    paths = rng.random((5, len(labels)))
    paths[0, 3] = np.nan
    years, sums = annual_values(paths, labels, "sum")
    assert years == ["2026"]
    np.testing.assert_allclose(sums[:, 0], np.nansum(paths[:, 2:6], axis=1))
    _, means = annual_values(paths, labels, "mean")
    assert means[0, 0] == pytest.approx(np.mean(paths[0, [2, 4, 5]]))
    # A stock or a run rate: the year's value is its fourth quarter's (2026Q4).
    _, last = annual_values(paths, labels, "last")
    np.testing.assert_array_equal(last[:, 0], paths[:, 5])


def test_no_complete_year_and_a_bad_aggregate() -> None:
    years, values = annual_values(np.ones((3, 2)), ["2026Q1", "2026Q2"])
    assert years == [] and values.shape == (3, 0)
    with pytest.raises(ValueError, match="sum"):
        annual_values(np.ones((3, 4)), ["2026Q1"], "first")
