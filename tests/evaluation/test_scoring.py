"""Tests for forecast.evaluation.scoring: CRPS against the closed-form Gaussian CRPS and
hand-made cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import norm

from forecast.evaluation.scoring import (
    DEFAULT_QUANTILES,
    central_interval,
    coverage,
    crps_samples,
    interval_score,
    pinball_loss,
)


def gaussian_crps(mu: float, sigma: float, y: np.ndarray) -> np.ndarray:
    """Closed form (Gneiting and Raftery 2007)."""
    z = (np.asarray(y) - mu) / sigma
    return sigma * (z * (2 * norm.cdf(z) - 1) + 2 * norm.pdf(z) - 1 / math.sqrt(math.pi))


def test_crps_matches_gaussian_closed_form() -> None:
    rng = np.random.default_rng(1)
    samples = rng.normal(2.0, 3.0, size=200_000)
    ys = np.array([-4.0, 0.0, 2.0, 3.5, 11.0])
    got = crps_samples(samples[:, None].repeat(len(ys), axis=1), ys)
    assert_allclose(got, gaussian_crps(2.0, 3.0, ys), rtol=0.01)


def test_crps_equals_pairwise_definition_on_small_sample() -> None:
    x = np.array([0.3, -1.0, 2.5, 0.0, 4.0])
    y = 1.1
    pairwise = np.abs(x - y).mean() - 0.5 * np.abs(x[:, None] - x[None, :]).mean()
    assert crps_samples(x, y) == pytest.approx(pairwise)


def test_crps_of_point_forecast_is_absolute_error() -> None:
    assert crps_samples(np.full(10, 3.0), 5.0) == pytest.approx(2.0)
    assert crps_samples(np.full(10, 3.0), 3.0) == pytest.approx(0.0)


def test_crps_broadcasts_over_horizons() -> None:
    paths = np.tile(np.arange(1.0, 4.0), (50, 1))  # every draw = [1, 2, 3]
    assert_allclose(crps_samples(paths, np.array([1.0, 0.0, 5.0])), [0.0, 2.0, 2.0])


def test_pinball_hand_made() -> None:
    samples = np.arange(101.0)  # quantile q is 100 q exactly
    loss = pinball_loss(samples, 30.0, quantiles=(0.1, 0.5, 0.9))
    # q=0.1 -> 10: under-forecast by 20, loss 0.1*20; q=0.5 -> 50: over by 20, loss 0.5*20;
    # q=0.9 -> 90: over by 60, loss 0.1*60.
    assert_allclose(loss, [2.0, 10.0, 6.0])


def test_pinball_rejects_bad_levels() -> None:
    with pytest.raises(ValueError):
        pinball_loss(np.arange(5.0), 1.0, quantiles=(0.0, 0.5))


def test_default_quantiles_are_symmetric() -> None:
    q = np.array(DEFAULT_QUANTILES)
    assert_allclose(q + q[::-1], 1.0)


def test_coverage_hand_made() -> None:
    samples = np.arange(101.0)
    lower, upper = central_interval(samples, 0.8)
    assert (lower, upper) == pytest.approx((10.0, 90.0))
    assert_allclose(coverage(samples[:, None].repeat(4, axis=1),
                             np.array([5.0, 10.0, 50.0, 95.0]), 0.8), [0, 1, 1, 0])


def test_coverage_is_nominal_for_calibrated_forecasts() -> None:
    rng = np.random.default_rng(2)
    samples = rng.standard_normal((4000, 2000))
    ys = rng.standard_normal(2000)
    assert coverage(samples, ys, 0.8).mean() == pytest.approx(0.8, abs=0.03)


def test_interval_score_hand_made() -> None:
    samples = np.arange(101.0)  # 80% interval [10, 90], alpha 0.2
    assert interval_score(samples, 50.0, 0.8) == pytest.approx(80.0)
    assert interval_score(samples, 0.0, 0.8) == pytest.approx(80.0 + 2 / 0.2 * 10.0)
    assert interval_score(samples, 100.0, 0.8) == pytest.approx(80.0 + 2 / 0.2 * 10.0)
