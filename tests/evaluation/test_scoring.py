"""Tests for forecast.evaluation.scoring: scores against closed forms, hand computations and
seeded calibrated samples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import kstest, norm

from forecast.core.errors import ForecastError
from forecast.evaluation.scoring import (
    DEFAULT_QUANTILES,
    central_interval,
    coverage,
    crps_samples,
    interval_score,
    pinball_loss,
    pit,
    pit_histogram,
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
    with pytest.raises(ForecastError):
        pinball_loss(np.arange(5.0), 1.0, quantiles=(0.0, 0.5))


def test_default_quantiles_are_symmetric() -> None:
    q = np.array(DEFAULT_QUANTILES)
    assert_allclose(q + q[::-1], 1.0)


def test_crps_is_twice_the_pinball_loss_integrated_over_levels() -> None:
    # CRPS = 2 * integral over tau of the pinball loss of the tau-quantile.
    rng = np.random.default_rng(4)
    samples = rng.gamma(2.0, 1.5, size=20_000)
    levels = (np.arange(2000) + 0.5) / 2000
    for y in (0.5, 3.0, 9.0):
        integral = 2 * pinball_loss(samples, y, levels).mean()
        assert integral == pytest.approx(float(crps_samples(samples, y)), rel=5e-3)


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
    # Binomial sd of the mean of 2000 indicators: 0.009 at 80%, 0.005 at 95%.
    assert coverage(samples, ys, 0.8).mean() == pytest.approx(0.8, abs=0.03)
    assert coverage(samples, ys, 0.95).mean() == pytest.approx(0.95, abs=0.015)


def test_coverage_of_too_narrow_forecasts_is_below_nominal() -> None:
    rng = np.random.default_rng(3)
    samples = 0.5 * rng.standard_normal((2000, 2000))  # half the true spread
    ys = rng.standard_normal(2000)
    # P(|Z| <= 0.5 * 1.2816) = 0.48.
    expected = 2 * norm.cdf(0.5 * norm.ppf(0.9)) - 1
    assert coverage(samples, ys, 0.8).mean() == pytest.approx(expected, abs=0.03)


def test_interval_score_hand_made() -> None:
    samples = np.arange(101.0)  # 80% interval [10, 90], alpha 0.2
    assert interval_score(samples, 50.0, 0.8) == pytest.approx(80.0)
    assert interval_score(samples, 0.0, 0.8) == pytest.approx(80.0 + 2 / 0.2 * 10.0)
    assert interval_score(samples, 100.0, 0.8) == pytest.approx(80.0 + 2 / 0.2 * 10.0)


def test_pit_hand_made() -> None:
    samples = np.arange(10.0)  # 0..9
    assert_allclose(pit(samples[:, None].repeat(4, axis=1), np.array([-1.0, 4.5, 4.0, 20.0])),
                    [0.0, 0.5, 0.45, 1.0])  # 4.0: four below, one equal -> 0.4 + 0.05


def test_pit_of_a_point_forecast_equal_to_the_outcome_is_one_half() -> None:
    assert pit(np.full(7, 2.5), 2.5) == pytest.approx(0.5)


def test_pit_of_calibrated_forecasts_is_uniform() -> None:
    rng = np.random.default_rng(5)
    mu, sigma = rng.normal(0, 3, 3000), rng.uniform(0.5, 2.0, 3000)
    samples = mu + sigma * rng.standard_normal((1000, 3000))
    ys = mu + sigma * rng.standard_normal(3000)
    values = pit(samples, ys)
    assert values.mean() == pytest.approx(0.5, abs=0.02)
    assert kstest(values, "uniform").pvalue > 0.01
    counts = pit_histogram(values)
    assert counts.sum() == 3000 and np.all(np.abs(counts - 300) < 60)  # sd of a bin: 16


def test_pit_of_too_narrow_forecasts_is_u_shaped() -> None:
    rng = np.random.default_rng(6)
    samples = 0.5 * rng.standard_normal((1000, 3000))
    ys = rng.standard_normal(3000)
    counts = pit_histogram(pit(samples, ys))
    # PIT < 0.1 when y is below the forecast's 10% quantile 0.5 * z_0.1: probability
    # Phi(0.5 * z_0.1) = 0.26 against 0.1 for a calibrated forecast.
    expected_tail = norm.cdf(0.5 * norm.ppf(0.1))
    assert counts[0] / 3000 == pytest.approx(expected_tail, abs=0.03)
    assert counts[0] > 2 * counts[4] and counts[-1] > 2 * counts[5]


def test_pit_histogram_bins() -> None:
    counts = pit_histogram([0.0, 0.05, 0.1, 0.55, 0.999, 1.0, np.nan], bins=10)
    assert counts.tolist() == [2, 1, 0, 0, 0, 1, 0, 0, 0, 2]
