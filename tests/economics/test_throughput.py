"""Tests of forecast.economics.throughput: effective PFLOPS, cost per PFLOP-hour, precision."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from chip_table import NAN, UTIL
from numpy.testing import assert_allclose

from forecast.core.errors import ForecastError
from forecast.economics.checks import EconomicsInputError
from forecast.economics.tables import economics_table
from forecast.economics.throughput import (
    cost_per_effective_pflop_hour,
    dense_tflops_for,
    effective_pflops,
)

# ------------------------------------------------------------------ effective PFLOPS and cost


def test_effective_pflops_hand_value() -> None:
    assert_allclose(effective_pflops(1979.0, 0.4), 1.979 * 0.4)


def test_effective_pflops_broadcasts_draws_by_chips() -> None:
    tflops = np.array([1979.0, 1299.0])
    util = np.array([[0.3], [0.5], [0.4]])
    out = effective_pflops(tflops, util)
    assert out.shape == (3, 2)
    assert_allclose(out[1, 1], 1.299 * 0.5)


def test_cost_h100_hand_value() -> None:
    expected = 12.29 / (1.979 * 0.4)
    assert_allclose(cost_per_effective_pflop_hour(12.29, 1979.0, 0.4), expected)
    assert_allclose(expected, 15.5255, rtol=1e-4)


def test_cost_vectorised_matches_scalar_loop() -> None:
    rng = np.random.default_rng(0)
    draws, chips = 50, 4
    price = rng.uniform(0.5, 15.0, size=(draws, chips))
    tflops = rng.uniform(100.0, 3000.0, size=chips)
    util = rng.uniform(0.1, 0.9, size=(draws, 1))
    out = cost_per_effective_pflop_hour(price, tflops, util)
    expected = np.empty((draws, chips))
    for d in range(draws):
        for c in range(chips):
            expected[d, c] = float(
                cost_per_effective_pflop_hour(price[d, c], tflops[c], util[d, 0])
            )
            assert_allclose(expected[d, c], price[d, c] / (tflops[c] / 1000 * util[d, 0]))
    assert out.shape == (draws, chips)
    assert_allclose(out, expected)


def test_cost_nan_price_propagates() -> None:
    out = cost_per_effective_pflop_hour(np.array([12.29, NAN]), 1979.0, 0.4)
    assert np.isfinite(out[0])
    assert np.isnan(out[1])


def test_cost_nan_tflops_or_utilisation_is_nan_not_error() -> None:
    assert np.isnan(cost_per_effective_pflop_hour(1.0, NAN, 0.4))
    assert np.isnan(cost_per_effective_pflop_hour(1.0, 1000.0, NAN))


@pytest.mark.parametrize(
    ("price", "tflops", "util"),
    [
        (1.0, 0.0, 0.4),
        (1.0, -5.0, 0.4),
        (1.0, np.inf, 0.4),
        (1.0, 1000.0, 0.0),
        (1.0, 1000.0, 1.5),
        (-1.0, 1000.0, 0.4),
        (1.0, np.array([1000.0, 0.0]), 0.4),
    ],
)
def test_cost_rejects_impossible_inputs(price, tflops, util) -> None:
    with pytest.raises(ValueError):
        cost_per_effective_pflop_hour(price, tflops, util)
    with pytest.raises(ForecastError):
        cost_per_effective_pflop_hour(price, tflops, util)


def test_cost_rejects_shapes_that_do_not_broadcast() -> None:
    with pytest.raises(EconomicsInputError, match="broadcast"):
        cost_per_effective_pflop_hour(np.ones(3), np.ones(2) * 1000.0, 0.4)


# ------------------------------------------------------------------ precision


def test_precision_auto_picks_fp8_else_bf16(accelerators: pd.DataFrame) -> None:
    tflops, used = dense_tflops_for(accelerators, "auto")
    assert tflops["H100 SXM5 80GB"] == 1979.0
    assert used["H100 SXM5 80GB"] == "fp8"
    assert tflops["A100 SXM4 40GB"] == 312.0
    assert used["A100 SXM4 40GB"] == "bf16"
    assert list(tflops.index) == list(accelerators["chip"])


def test_precision_fp8_gives_nan_where_missing(accelerators: pd.DataFrame) -> None:
    tflops, used = dense_tflops_for(accelerators, "fp8")
    assert np.isnan(tflops["A100 SXM4 40GB"])
    assert used["A100 SXM4 40GB"] == "fp8"
    assert tflops["Trainium2"] == 1299.0


def test_precision_bf16(accelerators: pd.DataFrame) -> None:
    tflops, used = dense_tflops_for(accelerators, "bf16")
    assert tflops["H100 SXM5 80GB"] == 989.4
    assert set(used) == {"bf16"}


@pytest.mark.parametrize("bad", ["fp16", "", "sparse", None, 8])
def test_precision_invalid_raises(accelerators: pd.DataFrame, bad) -> None:
    with pytest.raises(ForecastError, match="precision"):
        dense_tflops_for(accelerators, bad)
    with pytest.raises(ForecastError, match="precision"):
        economics_table(accelerators, UTIL, precision=bad)


def test_duplicated_chip_rejected(accelerators: pd.DataFrame) -> None:
    doubled = pd.concat([accelerators, accelerators.iloc[[1]]], ignore_index=True)
    with pytest.raises(ForecastError, match="one row per chip"):
        dense_tflops_for(doubled)
