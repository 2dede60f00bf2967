"""forecast.models.spend.trend: the common level's filters against a dense multivariate normal
written out entry by entry (scipy) and against each other; forward simulation against the
closed-form expected level."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import multivariate_normal

from forecast.models.spend.trend import (
    TrendParams,
    damped_trend_filter,
    growth_filter,
    simulate_trend,
)

PARAMS = TrendParams(phi=0.85, growth_longrun=0.03, sigma_level=0.05, sigma_growth=0.04,
                     growth_init=0.12)


def _series(n: int, seed: int) -> np.ndarray:
    return np.cumsum(np.random.default_rng(seed).normal(0.1, 0.1, n))


def _dense_logp(dy: np.ndarray, extra_var: np.ndarray, scales: np.ndarray) -> float:
    """Log density of the level changes from their covariance entry by entry:
    g_t - g* = phi^t (g_0 - g*) + sum_s phi^(t-s) sqrt(lambda_s) eta_s."""
    phi, g_star = PARAMS.phi, PARAMS.growth_longrun
    m = len(dy)
    mean = g_star + phi ** np.arange(1, m + 1) * (PARAMS.growth_init - g_star)
    cov = np.zeros((m, m))
    for t in range(1, m + 1):
        for u in range(1, m + 1):
            cov[t - 1, u - 1] = PARAMS.sigma_growth**2 * sum(
                scales[s - 1] * phi ** (t - s) * phi ** (u - s) for s in range(1, min(t, u) + 1))
    cov += np.diag(PARAMS.sigma_level**2 * scales + extra_var)
    return float(multivariate_normal(mean, cov).logpdf(dy))


@pytest.mark.parametrize("jumps", [False, True])
def test_both_filters_give_the_dense_likelihood_and_the_same_last_state(jumps: bool) -> None:
    # Reported levels, then a guide's reading one quarter on with its own noise; with
    # jumps, quarter-specific shock scales (the Student-t mixture) that every form must use.
    y = _series(13, seed=2)
    guide, guide_sd = y[-1] + 0.2, 0.06
    dy = np.append(np.diff(y), guide - y[-1])
    extra = np.append(np.zeros(len(y) - 1), guide_sd**2)
    scales = np.ones(len(dy))
    if jumps:
        scales[2], scales[7] = 30.0, 0.4
    dense = _dense_logp(dy, extra, scales)
    full = damped_trend_filter(list(y) + [guide], [1e-7] * len(y) + [guide_sd], PARAMS,
                               scales=list(scales))
    one = growth_filter(list(dy), list(extra), PARAMS, scales=list(scales))
    assert full.logp == pytest.approx(dense, rel=1e-8)
    assert one.logp == pytest.approx(dense, rel=1e-10)
    if jumps:  # the scales matter: without them the density is another one
        assert dense != pytest.approx(_dense_logp(dy, extra, np.ones(len(dy))), rel=1e-3)
    # The same last state: level (one.level is the last step's change), growth, variances.
    assert y[-1] + one.level == pytest.approx(full.level, rel=1e-8)
    for mine, theirs in [(one.growth, full.growth), (one.var_level, full.var_level),
                         (one.cov_level_growth, full.cov_level_growth),
                         (one.var_growth, full.var_growth)]:
        assert mine == pytest.approx(theirs, rel=1e-6)


def expected_level(level: float, growth: float, phi: float, g_star: float,
                   horizon: int) -> float:
    """The reference: expected log level ``horizon`` quarters after a state (level, growth).

    ``L + H g* + (g - g*) phi (1 - phi^H) / (1 - phi)``: the growth gap decays geometrically.
    """
    return level + horizon * g_star + (growth - g_star) * phi * (1.0 - phi**horizon) / (1.0 - phi)


def test_the_simulated_mean_is_the_expected_level() -> None:
    rng = np.random.default_rng(1)
    draws = 40_000
    params = TrendParams(np.full(draws, 0.8), np.full(draws, 0.02), np.full(draws, 0.03),
                         np.full(draws, 0.02), np.zeros(draws))
    paths = simulate_trend(np.full(draws, 4.0), np.full(draws, 0.15), params, 8, rng)
    expected = [expected_level(4.0, 0.15, 0.8, 0.02, h) for h in range(1, 9)]
    assert_allclose(paths.mean(axis=0), expected,
                    atol=4 * paths.std(axis=0).max() / np.sqrt(draws))
    # Momentum: the first step grows by g* + phi (g - g*) = 0.126, not by g* alone.
    assert paths[:, 0].mean() == pytest.approx(4.126, abs=0.002)
