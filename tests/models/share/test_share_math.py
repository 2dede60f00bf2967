"""The share model's numpy math against hand computations."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.core.errors import ForecastError
from forecast.models.share import (
    apply_supply_caps,
    partial_adjustment,
    share_elasticities,
    share_paths,
    softmax,
    target_shares,
)
from forecast.models.share.math import additive_log_ratios, from_log_ratios


def test_softmax_of_large_utilities_matches_hand_values():
    # exp(1000) overflows; the shift by the maximum keeps the exact ratios 1 : e : e^2.
    shares = softmax(np.array([1000.0, 1001.0, 1002.0]))
    e = np.e
    np.testing.assert_allclose(shares, np.array([1.0, e, e * e]) / (1 + e + e * e))


def test_target_shares_match_hand_computation():
    a = np.array([2.0, 0.0, -1.0])
    log_cost = np.log(np.array([[2.0, 1.0, 0.5]]))
    # exp(a - log k) = e^2 / 2, 1, e^-1 / 0.5
    weights = np.array([np.e**2 / 2, 1.0, 2 / np.e])
    np.testing.assert_allclose(target_shares(a, np.array(1.0), log_cost)[0],
                               weights / weights.sum())


def test_price_coefficient_of_zero_ignores_costs():
    a = np.log(np.array([4.0, 1.0, 1.0, 2.0]))
    log_cost = np.log(np.array([[9.0, 0.1, 3.0, 1.0]]))
    np.testing.assert_allclose(target_shares(a, np.array(0.0), log_cost)[0],
                               [0.5, 0.125, 0.125, 0.25])


def test_partial_adjustment_closes_the_gap_geometrically():
    # Constant target: s(t) = target + (1 - lambda)^(t+1) (start - target).
    start = np.array([1.0, 0.0])
    targets = np.broadcast_to(np.array([0.2, 0.8]), (4, 2))
    paths = partial_adjustment(start, targets, np.array(0.5))
    np.testing.assert_allclose(paths[:, 0], [0.6, 0.4, 0.3, 0.25])
    np.testing.assert_allclose(paths[:, 1], [0.4, 0.6, 0.7, 0.75])
    # lambda = 1 jumps to the target, lambda = 0 never moves.
    np.testing.assert_allclose(partial_adjustment(start, targets, np.array(1.0)), targets)
    np.testing.assert_allclose(partial_adjustment(start, targets, np.array(0.0)),
                               np.broadcast_to(start, (4, 2)))


def test_partial_adjustment_follows_a_moving_target_per_draw():
    start = np.array([[0.5, 0.5], [1.0, 0.0]])
    targets = np.array([[[0.1, 0.9], [0.9, 0.1]], [[0.0, 1.0], [0.0, 1.0]]])
    paths = partial_adjustment(start, targets, np.array([0.5, 0.25]))
    np.testing.assert_allclose(paths[0], [[0.3, 0.7], [0.6, 0.4]])
    np.testing.assert_allclose(paths[1], [[0.75, 0.25], [0.5625, 0.4375]])


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
    a = np.array([2.0, 0.0, -0.5, 0.3])
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


def test_share_paths_cap_targets_and_keep_realised_shares_below_the_cap():
    log_cost = np.zeros((1, 3, 2))
    a = np.log(np.array([1.0, 4.0]))  # uncapped target (0.2, 0.8)
    targets, shares = share_paths(a, np.ones(1), np.full(1, 0.5), np.array([[0.9, 0.1]]),
                                  log_cost, np.array([np.inf, 0.5]))
    np.testing.assert_allclose(targets[0], np.broadcast_to([0.5, 0.5], (3, 2)))
    np.testing.assert_allclose(shares[0, :, 1], [0.3, 0.4, 0.45])


def test_log_ratios_round_trip():
    shares = np.array([[0.5, 0.25, 0.25], [0.2, 0.2, 0.6]])
    alr = additive_log_ratios(shares)
    np.testing.assert_allclose(alr, np.log([[0.5, 0.5], [1.0, 3.0]]))
    np.testing.assert_allclose(from_log_ratios(alr), shares)
