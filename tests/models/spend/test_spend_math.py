"""The spend model's math against plain loops, numpy against PyTensor, and its identities."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.models.spend.math import (
    adjusted_positions,
    deviations,
    log_shares,
    power_matrix,
    ramp_curves,
    ramp_lifts,
    targets,
    vendor_spend,
)

RNG = np.random.default_rng(7)


def _loop(target, eps, start, speed, rho, sigma):
    """The recursions written as loops: d = rho d + sigma eps, x = (1 - l) x + l target + d."""
    d = np.zeros(target.shape[0])
    x = np.asarray(start, dtype=float).copy()
    out_x, out_d = np.empty_like(target), np.empty_like(target)
    for t in range(target.shape[1]):
        d = rho * d + sigma * eps[:, t]
        x = (1.0 - speed) * x + speed * target[:, t]
        out_x[:, t], out_d[:, t] = x, d
    return out_x, out_d


def test_matrix_recursions_equal_the_loops() -> None:
    target = RNG.normal(-2.0, 0.5, size=(4, 9))
    eps = RNG.standard_normal((4, 9))
    start, sigma = RNG.normal(-3.0, 1.0, size=4), np.array([0.1, 0.2, 0.05, 0.3])
    x, d = _loop(target, eps, start, 0.35, 0.6, sigma)
    dev = deviations(eps, 0.6, sigma)
    np.testing.assert_allclose(dev, d, rtol=1e-12)
    np.testing.assert_allclose(adjusted_positions(target, start, 0.35), x, rtol=1e-12)


def test_batched_draws_equal_one_draw_at_a_time() -> None:
    target = RNG.normal(size=(3, 4, 6))
    start, speed = RNG.normal(size=(3, 4)), np.array([0.2, 0.5, 0.9])
    batch = adjusted_positions(target, start, speed)
    for k in range(3):
        np.testing.assert_allclose(batch[k], adjusted_positions(target[k], start[k], speed[k]))


def test_pytensor_graphs_equal_numpy() -> None:
    pytensor = pytest.importorskip("pytensor")
    pt = pytest.importorskip("pytensor.tensor")
    target = RNG.normal(size=(4, 7))
    eps = RNG.standard_normal((4, 7))
    start, sigma = RNG.normal(size=4), np.full(4, 0.2)
    sym = pt.dmatrix("eps")
    dev = deviations(sym, pt.constant(0.5), pt.constant(sigma), xp=pt, length=7)
    x = adjusted_positions(pt.constant(target), pt.constant(start), pt.constant(0.3),
                           xp=pt, length=7)
    fn = pytensor.function([sym], [dev, x])
    got_d, got_x = fn(eps)
    want_d = deviations(eps, 0.5, sigma)
    np.testing.assert_allclose(got_d, want_d, rtol=1e-10)
    np.testing.assert_allclose(got_x, adjusted_positions(target, start, 0.3), rtol=1e-10)


def test_power_matrix_is_lower_triangular_powers() -> None:
    m = power_matrix(0.5, 4)
    np.testing.assert_allclose(m, [[1, 0, 0, 0], [0.5, 1, 0, 0], [0.25, 0.5, 1, 0],
                                   [0.125, 0.25, 0.5, 1]])


def test_a_ramp_lifts_its_own_rival_by_its_height_for_good() -> None:
    t = np.arange(8000, 8020, dtype=float)
    curves = ramp_curves(t, np.array([8005.0, 8012.0]), 1.0)
    lifts = ramp_lifts(np.array([1.5, -0.4]), curves, np.array([2, 0]), 4)
    assert np.allclose(lifts[[1, 3]], 0.0)
    assert lifts[2, 0] < 0.02 and abs(lifts[2, -1] - 1.5) < 1e-3
    assert abs(lifts[2, 5] - 0.75) < 1e-9  # half the lift at the ramp's midpoint
    assert np.all(np.diff(lifts[2]) > 0) and np.all(np.diff(lifts[0]) < 0)


def test_targets_move_with_erosion_and_against_cost() -> None:
    gap = np.zeros((4, 3))
    gap[1] = [0.0, 0.5, 1.0]
    out = targets(np.array([-2.0, -3.0, -1.0, -2.5]), 0.1, 2.0, gap, np.array([0.0, 1.0, 2.0]))
    np.testing.assert_allclose(out[0], [-2.0, -1.9, -1.8])
    np.testing.assert_allclose(out[1], [-3.0, -3.0 + 0.1 - 1.0, -3.0 + 0.2 - 2.0])


def test_the_five_groups_count_every_latent_dollar_once() -> None:
    latent = np.exp(RNG.normal(size=(50, 5, 6)))
    split = vendor_spend(latent, RNG.uniform(size=50), RNG.uniform(size=50))
    np.testing.assert_allclose(split["spend"].sum(axis=1), latent.sum(axis=1), rtol=1e-12)
    other = split["spend"][:, 4]
    assert np.all(split["custom_other"] <= other + 1e-12)
    shares = np.exp(log_shares(np.log(latent), axis=1))
    np.testing.assert_allclose(shares.sum(axis=1), 1.0, rtol=1e-12)
