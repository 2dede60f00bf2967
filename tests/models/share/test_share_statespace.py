"""forecast.models.share.statespace: the filter against a dense multivariate normal built
from the state equations, the PyTensor scan against numpy, and forward simulation against
its closed-form mean."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import multivariate_normal

from forecast.models.share.statespace import (
    FilterState,
    StateParams,
    sample_state,
    share_filter,
    simulate_states,
    target_log_ratios,
)

PARAMS = StateParams(speed=0.3, persistence=0.6, deviation_sd=np.array([0.1, 0.2]),
                     obs_sd=np.array([0.05, 0.08]), start_sd=1.5)


def _dense(target: np.ndarray, seen: np.ndarray, vendor: int, params: StateParams
           ) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of one vendor's measurements, from x_t = F x_{t-1} + c_t + w_t
    written out: no filter involved."""
    lam, rho = params.speed, params.persistence
    q = params.deviation_sd[vendor] ** 2
    f = np.array([[1.0 - lam, rho], [0.0, rho]])
    big_q = q * np.ones((2, 2))
    n = len(target)
    mean = np.zeros((n, 2))
    cov = np.zeros((n, n, 2, 2))
    x = np.array([target[0, vendor], 0.0])
    p = np.diag([params.start_sd**2, q / (1.0 - rho**2)])
    for t in range(n):
        x = f @ x + np.array([lam * target[t, vendor], 0.0])
        p = f @ p @ f.T + big_q
        mean[t] = x
        cov[t, t] = p
        for s in range(t):
            cov[t, s] = f @ cov[t - 1, s]
            cov[s, t] = cov[t, s].T
    rows = np.flatnonzero(seen[:, vendor])
    m = mean[rows, 0]
    c = cov[np.ix_(rows, rows)][:, :, 0, 0] + params.obs_sd[vendor] ** 2 * np.eye(len(rows))
    return m, c


def _example(n: int = 9, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    target = np.cumsum(rng.normal(0.0, 0.3, (n, 2)), axis=0) - 2.0
    y = target + rng.normal(0.0, 0.4, (n, 2))
    seen = np.ones((n, 2))
    seen[:3, 1] = 0.0  # the second vendor measured from the fourth quarter
    seen[5, 0] = 0.0   # a gap
    return y, seen, target


def test_filter_gives_the_dense_likelihood_with_gaps() -> None:
    y, seen, target = _example()
    state = share_filter(y, seen, target, PARAMS)
    dense = 0.0
    for v in range(2):
        mean, cov = _dense(target, seen, v, PARAMS)
        dense += multivariate_normal(mean, cov).logpdf(y[seen[:, v] > 0, v])
    assert state.logp == pytest.approx(dense, rel=1e-9)


def test_one_step_predictions_factorise_the_likelihood() -> None:
    y, seen, target = _example(seed=2)
    state = share_filter(y, seen, target, PARAMS)
    pieces = seen * (-0.5 * np.log(2 * np.pi * state.pred_var)
                     - 0.5 * (y - state.pred_mean) ** 2 / state.pred_var)
    assert pieces.sum() == pytest.approx(state.logp, rel=1e-12)


def test_scan_matches_the_numpy_filter() -> None:
    pytensor = pytest.importorskip("pytensor")
    pt = pytest.importorskip("pytensor.tensor")
    from forecast.models.share.statespace import share_filter_scan

    y, seen, target = _example(seed=3)
    reference = share_filter(y, seen, target, PARAMS)
    lam = pt.scalar("lam")
    symbolic = share_filter_scan(pt.as_tensor_variable(y), seen, pt.as_tensor_variable(target),
                                 StateParams(lam, 0.6, PARAMS.deviation_sd, PARAMS.obs_sd, 1.5))
    names = ("m", "d", "p_mm", "p_md", "p_dd", "logp", "pred_mean", "pred_var")
    values = pytensor.function([lam], [getattr(symbolic, n) for n in names])(0.3)
    for name, value in zip(names, values, strict=True):
        assert_allclose(value, getattr(reference, name), rtol=1e-10, err_msg=name)


def test_targets_follow_the_cost_gap_to_nvidia() -> None:
    log_cost = np.log(np.array([[2.0, 1.0, 4.0], [2.0, 2.0, 2.0]]))
    target = target_log_ratios(np.array([-1.0, -2.0]), np.array(0.5), log_cost)
    # Half as costly as NVIDIA: +0.5 log 2 above the ecosystem term; twice as costly: below.
    assert_allclose(target, [[-1.0 + 0.5 * np.log(2), -2.0 - 0.5 * np.log(2)],
                             [-1.0, -2.0]])


def test_simulation_mean_closes_the_gap_and_carries_the_deviation() -> None:
    rng = np.random.default_rng(1)
    draws, horizon = 40000, 6
    params = StateParams(np.array(0.25), np.array(0.5), np.array([0.1]), np.array([0.0]), 0.0)
    target = np.full((draws, horizon, 1), -1.0)
    paths = simulate_states(np.full((draws, 1), -2.0), np.full((draws, 1), 0.2), target,
                            params, rng)
    # E[d_h] = 0.2 * 0.5^h; E[m_h] = m + 0.25 (target - m) + E[d_h], by recursion.
    m, d, expected = -2.0, 0.2, []
    for _ in range(horizon):
        d = 0.5 * d
        m = m + 0.25 * (-1.0 - m) + d
        expected.append(m)
    sd = paths.std(axis=0)[:, 0]
    assert_allclose(paths.mean(axis=0)[:, 0], expected, atol=float(5 * sd.max() / np.sqrt(draws)))
    # With the shocks on, the spread grows with the horizon.
    assert np.all(np.diff(sd) > 0)
    quiet = simulate_states(np.full((1, 1), -2.0), np.full((1, 1), 0.2), target[:1], params,
                            rng, noise=False)
    assert_allclose(quiet[0, :, 0], expected)


def test_state_draws_have_the_filtered_covariance() -> None:
    n = 100000
    state = FilterState(np.full(n, 1.0), np.full(n, -0.5), np.full(n, 0.04), np.full(n, 0.01),
                        np.full(n, 0.09), None)
    m, d = sample_state(state, np.random.default_rng(4))
    assert_allclose([m.mean(), d.mean()], [1.0, -0.5], atol=0.005)
    assert_allclose(np.cov(m, d), [[0.04, 0.01], [0.01, 0.09]], atol=0.002)
