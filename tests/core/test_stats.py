"""Tests for forecast.core.stats: band to log-sd and the AR(1) simulator against references."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from forecast.core.errors import ForecastError
from forecast.core.stats import lognormal_sigma_from_band, simulate_ar1


@pytest.mark.parametrize("coverage", [0.5, 0.8, 0.9, 0.95])
def test_band_to_sigma_recovers_a_lognormal(coverage: float) -> None:
    sigma = 0.37
    dist = stats.lognorm(s=sigma, scale=np.exp(1.2))
    lower, upper = dist.ppf((1 - coverage) / 2), dist.ppf((1 + coverage) / 2)
    assert lognormal_sigma_from_band(lower, upper, coverage) == pytest.approx(sigma, rel=1e-12)


def test_band_to_sigma_rejects_a_bad_coverage() -> None:
    with pytest.raises(ForecastError, match="coverage"):
        lognormal_sigma_from_band(1.0, 2.0, 1.0)


def test_ar1_matches_a_plain_loop_and_its_stationary_variance() -> None:
    rho, sigma = np.array([0.5, 0.9]), np.array([1.0, 0.2])
    paths = simulate_ar1(rho, sigma, np.array([1.0, -2.0]), 3, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    expected, current = [], np.array([1.0, -2.0])
    for _ in range(3):
        current = rho * current + sigma * rng.standard_normal(2)
        expected.append(current)
    np.testing.assert_array_equal(paths, np.stack(expected, axis=1))
    long = simulate_ar1(0.8, 0.6, np.zeros(20000), 60, np.random.default_rng(1))[:, -1]
    assert long.var() == pytest.approx(0.36 / (1 - 0.64), rel=0.05)
