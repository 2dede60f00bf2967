"""forecast.models.market.math: each formula against a hand or scipy reference, and the
PyTensor form (what the builder uses) against the numpy form."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from forecast.core.errors import ForecastError
from forecast.models.market import (
    bridge_walk,
    measurement_log_mean,
    vendor_log_shares,
)


def test_bridge_walk_is_the_random_walk_with_its_rise_split_off() -> None:
    rng = np.random.default_rng(3)
    z = rng.standard_normal((4, 12))
    start, step = -3.0, 0.25
    walk = start + step * np.cumsum(z, axis=-1)
    # Same z, rise equal to the walk's own total: the same path exactly.
    rise = step * z.sum(axis=-1, keepdims=True)
    assert_allclose(bridge_walk(start, rise, step, z), walk)
    # The rise alone moves the path linearly; the bridge part ends at zero.
    assert_allclose(bridge_walk(0.0, 1.2, step, np.zeros(12)), 1.2 * np.arange(1, 13) / 12)
    assert_allclose(bridge_walk(0.0, 0.0, step, z)[:, -1], np.zeros(4), atol=1e-12)


def test_bridge_walk_prior_covariance_equals_random_walk() -> None:
    # (rise, z) -> path is linear; with rise ~ N(0, step^2 n), z ~ N(0, I) the covariance
    # must be the random walk's step^2 min(i, j) (i, j counted from 1).
    n, step = 9, 0.3
    columns = [bridge_walk(0.0, 1.0, step, np.zeros(n))]
    columns += [bridge_walk(0.0, 0.0, step, np.eye(n)[k]) for k in range(n)]
    design = np.column_stack(columns)
    scales = np.diag([step**2 * n] + [1.0] * n)
    index = np.arange(1, n + 1)
    expected = step**2 * np.minimum.outer(index, index)
    assert_allclose(design @ scales @ design.T, expected, atol=1e-12)


def test_vendor_log_shares_is_softmax_with_reference() -> None:
    eta = np.array([[-1.0, 0.5], [-2.0, 0.0], [0.3, -3.0]])
    full = np.vstack([np.zeros(2), eta])
    expected = np.log(np.exp(full) / np.exp(full).sum(axis=0))
    assert_allclose(vendor_log_shares(eta), expected)
    # Large log-ratios stay finite (the max is subtracted first).
    big = vendor_log_shares(np.array([[800.0], [-5.0], [0.0]]))
    assert_allclose(big[:, 0], [-800.0, 0.0, -805.0, -800.0])


def test_vendor_log_shares_batch_axis_matches_one_draw_at_a_time() -> None:
    rng = np.random.default_rng(5)
    eta = rng.normal(-1.0, 1.5, size=(7, 3, 10))                       # draws x groups x T
    batched = vendor_log_shares(eta, axis=1)
    assert_allclose(batched, np.stack([vendor_log_shares(e) for e in eta]))


def test_measurement_links() -> None:
    params = {"nvidia_compute_fraction": 0.8, "broadcom_custom_fraction": 0.6}
    log_a = math.log(40.0)
    assert math.exp(measurement_log_mean("nvidia_data_center", log_a, params)) == \
        pytest.approx(50.0)
    assert math.exp(measurement_log_mean("nvidia_networking", log_a, params)) == \
        pytest.approx(10.0)
    assert math.exp(measurement_log_mean("nvidia_compute", log_a, params)) == pytest.approx(40.0)
    assert math.exp(measurement_log_mean("amd_data_center", math.log(2.0), params, cpu=3.0)) \
        == pytest.approx(5.0)
    assert math.exp(measurement_log_mean("broadcom_ai", math.log(3.0), params)) == \
        pytest.approx(5.0)
    with pytest.raises(ForecastError, match="unknown series"):
        measurement_log_mean("nope", log_a, params)


def test_pytensor_forms_match_numpy() -> None:
    pytensor = pytest.importorskip("pytensor")
    pt = pytest.importorskip("pytensor.tensor")
    rng = np.random.default_rng(2)
    z = rng.standard_normal(12)
    eta = rng.normal(-2.0, 1.0, size=(3, 12))
    cases = [
        (bridge_walk(-1.0, 0.4, 0.2, z), bridge_walk(-1.0, 0.4, 0.2, pt.as_tensor(z), xp=pt)),
        (vendor_log_shares(eta), vendor_log_shares(pt.as_tensor(eta), xp=pt)),
        (measurement_log_mean("amd_data_center", eta[0], {}, cpu=np.full(12, 0.3)),
         measurement_log_mean("amd_data_center", pt.as_tensor(eta[0]), {},
                              cpu=np.full(12, 0.3), xp=pt)),
    ]
    # One compiled function for all the cases (compiling is most of the cost).
    values = pytensor.function([], [symbolic for _, symbolic in cases])()
    for (expected, _), value in zip(cases, values, strict=True):
        assert_allclose(value, expected, rtol=1e-12)
