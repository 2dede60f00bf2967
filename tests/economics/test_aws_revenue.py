"""Tests of forecast.economics.aws_revenue (M5): hand computations, shapes and units."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.economics.aws_revenue import (
    HOURS_PER_QUARTER,
    aws_revenue_bottomup,
    aws_revenue_topdown,
    epoch_trainium_start,
    trainium_fleet,
)


def test_topdown_is_tam_times_share():
    tam = np.array([[100.0, 120.0], [80.0, 90.0]])  # USD billions per quarter
    share = np.array([[0.05, 0.1], [0.02, 0.5]])
    np.testing.assert_allclose(aws_revenue_topdown(tam, share), tam * share)


def test_topdown_refuses_mismatched_shapes_and_bad_shares():
    with pytest.raises(ForecastError, match="shapes differ"):
        aws_revenue_topdown(np.ones((2, 3)), np.full((2, 1), 0.1))
    with pytest.raises(ForecastError, match="fractions"):
        aws_revenue_topdown(np.ones(3), np.array([0.1, 1.2, 0.3]))


def test_topdown_aligns_xarray_by_coordinates():
    coords = {"draw": [0, 1], "quarter": ["2026Q1", "2026Q2"]}
    tam = xr.DataArray([[10.0, 20.0], [30.0, 40.0]], dims=("draw", "quarter"), coords=coords)
    share = xr.DataArray([[0.1, 0.2], [0.3, 0.4]], dims=("quarter", "draw"),
                         coords=coords).transpose("quarter", "draw")
    result = aws_revenue_topdown(tam, share.T)
    assert result.attrs["unit"] == "USD billions per quarter"
    np.testing.assert_allclose(result.sel(draw=1, quarter="2026Q2"), 40.0 * 0.4)
    shifted = share.T.assign_coords(quarter=["2026Q2", "2026Q3"])
    with pytest.raises(ForecastError, match="align"):
        aws_revenue_topdown(tam, shifted)


def test_bottomup_against_hand_computation():
    chips = np.array([[1_000_000.0, 2_000_000.0]])  # chips
    revenue = aws_revenue_bottomup(chips, np.array([[4.8]]), 0.7)
    expected = chips * 4.8 * HOURS_PER_QUARTER * 0.7 / 1e9
    np.testing.assert_allclose(revenue, expected)
    # One million chips at $4.80 billed 70% of a quarter is about $7.4B.
    assert revenue[0, 0] == pytest.approx(7.36, abs=0.01)


def test_bottomup_rejects_broadcast_that_changes_shape_and_bad_inputs():
    with pytest.raises(ForecastError, match="change the shape"):
        aws_revenue_bottomup(np.ones(3), np.ones((2, 3)), 0.5)
    with pytest.raises(ForecastError, match="utilisation"):
        aws_revenue_bottomup(np.ones(3), 1.0, 1.5)
    with pytest.raises(ForecastError, match="chips"):
        aws_revenue_bottomup(-np.ones(3), 1.0, 0.5)


def test_fleet_compounds_yearly_growth_by_quarter():
    fleet = trainium_fleet(np.array([1000.0, 2000.0]), np.array([0.5, 1.0]), 8)
    assert fleet.shape == (2, 8)
    np.testing.assert_allclose(fleet[:, 3], [1500.0, 4000.0])  # four quarters: one year
    np.testing.assert_allclose(fleet[:, 7], [2250.0, 8000.0])
    assert np.all(np.diff(fleet, axis=1) > 0)


def test_fleet_with_labels_is_a_dataarray_of_chips():
    fleet = trainium_fleet(1000.0, 0.0, ["2025Q4", "2026Q1"])
    assert isinstance(fleet, xr.DataArray)
    assert fleet.dims == ("draw", "quarter") and fleet.attrs["unit"] == "chips"
    np.testing.assert_allclose(fleet.values, 1000.0)
    with pytest.raises(ForecastError):
        trainium_fleet(np.ones(3), np.ones(2), 4)
    with pytest.raises(ForecastError):
        trainium_fleet(1.0, -1.0, 4)


def test_epoch_start_reads_latest_cumulative_units():
    dataset = load_dataset()
    date, median = epoch_trainium_start(dataset)
    assert str(date.date()) == "2025-09-30"
    assert median[0] == pytest.approx(1_517_199)
    _, draws = epoch_trainium_start(dataset, draws=20_000, seed=1)
    assert np.median(draws) == pytest.approx(1_517_199, rel=0.02)
    # The band (value_p5, value_p95) is 1,237,506-2,078,956 chips; the fit roughly covers it.
    assert 1.1e6 < np.quantile(draws, 0.05) < 1.35e6
    assert 1.75e6 < np.quantile(draws, 0.95) < 2.2e6


def test_bottom_up_chain_keeps_units_and_dollars_apart():
    dataset = load_dataset()
    _, start = epoch_trainium_start(dataset, draws=100, seed=0)
    fleet = trainium_fleet(start, np.full(100, 0.5), 4)  # chips
    revenue = aws_revenue_bottomup(fleet, np.full((100, 1), 4.8), np.full((100, 1), 0.7))
    assert revenue.shape == fleet.shape
    # USD billions: a few billion a quarter, not chips.
    assert 1.0 < float(np.median(revenue)) < 100.0


def test_epoch_start_draws_from_the_band_columns():
    dataset = load_dataset()
    table = dataset.aws_custom_silicon
    epoch = table[table["metric"].str.startswith("Epoch AI estimate")]
    latest = epoch.sort_values("date").index[-1]
    assert (table.loc[latest, "value_p5"], table.loc[latest, "value_p95"]) == (1237506, 2078956)
    _, draws = epoch_trainium_start(dataset, draws=50, seed=4)
    sigma = (np.log(2078956.0) - np.log(1237506.0)) / (2.0 * 1.6448536269514722)
    expected = 1517199.0 * np.exp(sigma * np.random.default_rng(4).standard_normal(50))
    np.testing.assert_array_equal(draws, expected)

    narrow = table.copy()
    narrow.loc[latest, ["value_p5", "value_p95"]] = [1_500_000.0, 1_540_000.0]
    _, tight = epoch_trainium_start(dataclasses.replace(dataset, aws_custom_silicon=narrow),
                                    draws=50, seed=4)
    assert tight.std() < draws.std() / 10

    narrow.loc[latest, ["value_p5", "value_p95"]] = [np.nan, np.nan]
    with pytest.raises(ForecastError, match="no 5th-95th percentile band"):
        epoch_trainium_start(dataclasses.replace(dataset, aws_custom_silicon=narrow), draws=5)
    # Without draws the median alone is enough.
    date, median = epoch_trainium_start(dataclasses.replace(dataset, aws_custom_silicon=narrow))
    assert date == pd.Timestamp("2025-09-30") and median[0] == 1517199.0
