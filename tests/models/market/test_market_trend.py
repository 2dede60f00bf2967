"""forecast.models.market.trend: the damped trend's filters against a dense multivariate
normal written out entry by entry (scipy), against each other, and the PyTensor scan
against numpy; forward simulation against its closed-form mean."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import multivariate_normal

from forecast.models.market.trend import (
    TrendParams,
    damped_trend_filter,
    expected_level,
    growth_filter,
    simulate_trend,
)

PARAMS = TrendParams(phi=0.85, growth_longrun=0.03, sigma_level=0.05, sigma_growth=0.04,
                     growth_init=0.12)


def _series(n: int = 14, seed: int = 0) -> np.ndarray:
    return np.cumsum(np.random.default_rng(seed).normal(0.1, 0.1, n))


def _dense_logp(dy: np.ndarray, extra_var: np.ndarray, params: TrendParams,
                scales: np.ndarray | None = None) -> float:
    """log density of the level changes from their covariance written out entry by entry:
    g_t - g* = phi^t (g_0 - g*) + sum_s phi^(t-s) sqrt(lambda_s) eta_s."""
    m = len(dy)
    lam = np.ones(m) if scales is None else np.asarray(scales)
    mean = np.array([params.growth_longrun + params.phi ** (t + 1)
                     * (params.growth_init - params.growth_longrun) for t in range(m)])
    cov = np.zeros((m, m))
    for t in range(1, m + 1):
        for u in range(1, m + 1):
            cov[t - 1, u - 1] = params.sigma_growth**2 * sum(
                lam[s - 1] * params.phi ** (t - s) * params.phi ** (u - s)
                for s in range(1, min(t, u) + 1))
    cov += np.diag(params.sigma_level**2 * lam + extra_var)
    return float(multivariate_normal(mean, cov).logpdf(dy))


def test_kalman_filter_and_growth_filter_give_the_dense_likelihood() -> None:
    y = _series()
    guide, guide_sd = y[-1] + 0.2, 0.06
    dy = np.append(np.diff(y), guide - y[-1])
    extra = np.append(np.zeros(len(y) - 1), guide_sd**2)
    dense = _dense_logp(dy, extra, PARAMS)
    # Two-dimensional filter with (almost) exact reported levels, then the guide's step.
    full = damped_trend_filter(list(y) + [guide], [1e-7] * len(y) + [guide_sd], PARAMS)
    one = growth_filter(list(dy), list(extra), PARAMS)
    assert full.logp == pytest.approx(dense, rel=1e-8)
    assert one.logp == pytest.approx(dense, rel=1e-10)
    # The same last state: level change and growth, their variances and covariance.
    assert y[-1] + one.level == pytest.approx(full.level, rel=1e-8)
    for mine, theirs in [(one.growth, full.growth), (one.var_level, full.var_level),
                         (one.cov_level_growth, full.cov_level_growth),
                         (one.var_growth, full.var_growth)]:
        assert mine == pytest.approx(theirs, rel=1e-6)


def test_shock_scales_enter_every_filter_as_in_the_dense_likelihood() -> None:
    # Quarter-specific variance scales (the Student-t mixture): a scale of 30 in the third
    # change makes that quarter's jump cheap; every filter must agree with the dense form.
    y = _series(12, seed=2)
    dy = np.diff(y)
    scales = np.ones(len(dy))
    scales[2], scales[7] = 30.0, 0.4
    dense = _dense_logp(dy, np.zeros(len(dy)), PARAMS, scales)
    full = damped_trend_filter(list(y), [1e-7] * len(y), PARAMS, scales=scales)
    one = growth_filter(list(dy), [0.0] * len(dy), PARAMS, scales=list(scales))
    assert full.logp == pytest.approx(dense, rel=1e-8)
    assert one.logp == pytest.approx(dense, rel=1e-10)
    assert one.logp != pytest.approx(_dense_logp(dy, np.zeros(len(dy)), PARAMS), rel=1e-3)


def test_scan_filter_with_scales_matches_the_numpy_filter() -> None:
    pytensor = pytest.importorskip("pytensor")
    pt = pytest.importorskip("pytensor.tensor")
    from forecast.models.market.trend import growth_filter_scan

    dy = np.diff(_series(10, seed=5))
    scales = np.linspace(0.5, 3.0, len(dy))
    reference = growth_filter(list(dy), [0.0] * len(dy), PARAMS, scales=list(scales))
    lam = pt.vector("lam")
    symbolic = growth_filter_scan(dy, PARAMS, lam)
    values = pytensor.function([lam], list(symbolic))(scales)
    assert_allclose(values, [reference.logp, reference.growth, reference.var_growth],
                    rtol=1e-10)


def test_shock_scales_make_student_t_shocks() -> None:
    # lambda ~ InverseGamma(2, 2) times a standard normal is Student-t with 4 dof: compare
    # quantiles of the scaled shocks with scipy's t (the tails are what the mixture is for).
    from scipy.stats import t as student_t

    from forecast.models.market.trend import SHOCK_DOF, draw_shock_scales

    rng = np.random.default_rng(3)
    shocks = np.sqrt(draw_shock_scales(rng, (200_000,))) * rng.standard_normal(200_000)
    levels = [0.01, 0.05, 0.25, 0.75, 0.95, 0.99]
    # Relative tolerance 4%: about three Monte Carlo sds of the 1% quantile at this size.
    assert_allclose(np.quantile(shocks, levels), student_t(SHOCK_DOF).ppf(levels), rtol=0.04)
    # A normal with the same variance (2) would put the 1% quantile at -3.29, not -3.75.
    assert np.quantile(shocks, 0.01) < -3.5


def test_simulation_with_scales_widens_only_its_quarter() -> None:
    rng_a, rng_b = np.random.default_rng(4), np.random.default_rng(4)
    draws = 20000
    params = TrendParams(np.full(draws, 0.8), np.full(draws, 0.02), np.full(draws, 0.03),
                         np.full(draws, 0.02), np.zeros(draws))
    scales = np.ones((draws, 3))
    scales[:, 1] = 9.0
    plain = simulate_trend(np.zeros(draws), np.zeros(draws), params, 3, rng_a)
    wide = simulate_trend(np.zeros(draws), np.zeros(draws), params, 3, rng_b, scales)
    # Same random numbers: quarter 1 unchanged, quarter 2's own shocks three times larger.
    assert_allclose(wide[:, 0], plain[:, 0])
    step_plain, step_wide = np.diff(plain, axis=1)[:, 0], np.diff(wide, axis=1)[:, 0]
    assert np.std(step_wide) > 2.5 * np.std(step_plain)


def test_scan_filter_matches_the_numpy_filter() -> None:
    pytensor = pytest.importorskip("pytensor")
    pt = pytest.importorskip("pytensor.tensor")
    from forecast.models.market.trend import growth_filter_scan

    dy = np.diff(_series(10, seed=4))
    reference = growth_filter(list(dy), [0.0] * len(dy), PARAMS)
    phi = pt.scalar("phi")
    symbolic = growth_filter_scan(dy, TrendParams(phi, 0.03, 0.05, 0.04, 0.12))
    values = pytensor.function([phi], list(symbolic))(0.85)
    assert_allclose(values, [reference.logp, reference.growth, reference.var_growth],
                    rtol=1e-10)


def test_simulation_mean_is_the_expected_level() -> None:
    rng = np.random.default_rng(1)
    draws = 40000
    params = TrendParams(np.full(draws, 0.8), np.full(draws, 0.02), np.full(draws, 0.03),
                         np.full(draws, 0.02), np.zeros(draws))
    paths = simulate_trend(np.full(draws, 4.0), np.full(draws, 0.15), params, 8, rng)
    expected = [expected_level(4.0, 0.15, 0.8, 0.02, h) for h in range(1, 9)]
    assert_allclose(paths.mean(axis=0), expected, atol=4 * paths.std(axis=0).max()
                    / np.sqrt(draws))
    # Momentum: the first step grows by g* + phi (g - g*) = 0.126, not by g* alone.
    assert paths[:, 0].mean() == pytest.approx(4.126, abs=0.002)
