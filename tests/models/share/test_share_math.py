"""The share model's numpy math against hand computations."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.core.errors import ForecastError
from forecast.models.share import (
    apply_supply_caps,
    share_elasticities,
    softmax,
    target_log_ratios,
)
from forecast.models.share.math import additive_log_ratios, from_log_ratios


def target_shares(a: np.ndarray, b: np.ndarray, log_cost: np.ndarray) -> np.ndarray:
    """Target shares over every vendor: softmax of NVIDIA's 0 and the rivals' targets, with
    ``a`` the rivals' ecosystem terms relative to NVIDIA."""
    return from_log_ratios(target_log_ratios(a, b, log_cost))


def test_softmax_of_large_utilities_matches_hand_values():
    # exp(1000) overflows; the shift by the maximum keeps the exact ratios 1 : e : e^2.
    shares = softmax(np.array([1000.0, 1001.0, 1002.0]))
    e = np.e
    np.testing.assert_allclose(shares, np.array([1.0, e, e * e]) / (1 + e + e * e))


def test_target_shares_match_hand_computation():
    a = np.array([-2.0, -3.0])
    log_cost = np.log(np.array([[2.0, 1.0, 0.5]]))
    # Weights relative to NVIDIA: 1, e^-2 (2 / 1), e^-3 (2 / 0.5).
    weights = np.array([1.0, np.exp(-2.0) * 2.0, np.exp(-3.0) * 4.0])
    np.testing.assert_allclose(target_shares(a, np.array(1.0), log_cost)[0],
                               weights / weights.sum())


def test_price_coefficient_of_zero_ignores_costs():
    a = np.log(np.array([0.25, 0.25, 0.5]))
    log_cost = np.log(np.array([[9.0, 0.1, 3.0, 1.0]]))
    np.testing.assert_allclose(target_shares(a, np.array(0.0), log_cost)[0],
                               [0.5, 0.125, 0.125, 0.25])


def test_supply_cap_binds_and_redistributes_proportionally():
    shares = np.array([0.5, 0.1, 0.1, 0.3])
    capped = apply_supply_caps(shares, np.array([np.inf, np.inf, np.inf, 0.1]))
    # The excess 0.2 goes to the others in proportion 5:1:1.
    np.testing.assert_allclose(capped, [0.5 + 0.2 * 5 / 7, 0.1 + 0.2 / 7, 0.1 + 0.2 / 7, 0.1])


def test_supply_caps_iterate_when_a_redistribution_overshoots():
    shares = np.array([0.6, 0.25, 0.15])
    capped = apply_supply_caps(shares, np.array([0.3, 0.3, np.inf]))
    np.testing.assert_allclose(capped, [0.3, 0.3, 0.4])
    with pytest.raises(ForecastError, match="sum to less than 1"):
        apply_supply_caps(shares, np.array([0.3, 0.3, 0.3]))


def test_excess_is_shared_equally_when_the_uncapped_vendors_hold_nothing():
    capped = apply_supply_caps(np.array([0.9, 0.1, 0.0, 0.0]),
                               np.array([0.5, np.inf, np.inf, np.inf]))
    np.testing.assert_allclose(capped, [0.5, 0.5, 0.0, 0.0])
    capped = apply_supply_caps(np.array([1.0, 0.0, 0.0]), np.array([0.4, np.inf, np.inf]))
    np.testing.assert_allclose(capped, [0.4, 0.3, 0.3])


def test_elasticities_match_finite_differences():
    a = np.array([-2.0, -2.5, -1.7])
    b = np.array(0.8)
    log_cost = np.log(np.array([[1.0, 0.8, 0.9, 0.6]]))
    base = target_shares(a, b, log_cost)[0]
    analytic = share_elasticities(b, base)
    step = 1e-6
    for j in range(4):
        bumped = log_cost.copy()
        bumped[0, j] += step
        numeric = (np.log(target_shares(a, b, bumped)[0]) - np.log(base)) / step
        np.testing.assert_allclose(analytic[:, j], numeric, atol=1e-5)


def test_elasticities_at_hand_shares():
    e = share_elasticities(np.array(2.0), np.array([0.75, 0.25]))
    np.testing.assert_allclose(e, [[-0.5, 0.5], [1.5, -1.5]])


def test_log_ratios_round_trip():
    shares = np.array([[0.5, 0.25, 0.25], [0.2, 0.2, 0.6]])
    alr = additive_log_ratios(shares)
    np.testing.assert_allclose(alr, np.log([[0.5, 0.5], [1.0, 3.0]]))
    np.testing.assert_allclose(from_log_ratios(alr), shares)
