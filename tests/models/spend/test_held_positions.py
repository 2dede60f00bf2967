"""The rivals' positions held where their reports left them: the baseline of the forecast's
stack (forecast.models.spend.simulation.held_positions and FittedSpend.simulate's ``held``)."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.core.calendar import quarter_index
from forecast.models.spend.data import RAMP_WIDTH, lift_layout
from forecast.models.spend.math import RIVALS
from forecast.models.spend.simulation import held_positions, robust_step_sd


def test_held_positions_start_at_the_last_and_spread_like_the_fitted_changes() -> None:
    rng = np.random.default_rng(3)
    draws, window = 20_000, 12
    # Two rivals: one whose fitted position moved by sd 0.1 a quarter, one that never moved.
    moving = np.cumsum(rng.normal(0.0, 0.1, (draws, window)), axis=1) - 3.0
    still = np.full((draws, window), -2.0)
    fitted = np.stack([moving, still], axis=1)
    steps = np.diff(moving, axis=1)
    sd = 1.4826 * np.median(np.abs(steps - np.median(steps, axis=1, keepdims=True)), axis=1)
    full = held_positions(fitted, 6, np.random.default_rng(4))
    assert full.shape == (draws, 2, window + 6)
    np.testing.assert_array_equal(full[:, :, :window], fitted)
    paths = full[:, :, window:]
    # Centred on each path's last fitted position, with a random walk's sqrt(h) spread.
    shift = paths[:, 0, :] - moving[:, -1:]
    assert np.abs(np.median(shift, axis=0)).max() < 0.01
    ratio = shift / sd[:, None]
    np.testing.assert_allclose(ratio.std(axis=0), np.sqrt(np.arange(1, 7)), rtol=0.03)
    np.testing.assert_array_equal(paths[:, 1, :], -2.0)  # no fitted change, no spread


def test_a_rival_is_held_from_its_last_report_not_from_the_models_projection() -> None:
    rng = np.random.default_rng(5)
    draws, window, reported = 20_000, 12, 9
    steps = rng.normal(0.0, 0.1, (draws, window - 1))
    # After the rival's last report (window index 9) the model projects it up by 0.5 a
    # quarter: a held path must neither start from nor spread like that projection.
    steps[:, reported:] = 0.5
    fitted = np.concatenate([np.full((draws, 1), -3.0), -3.0 + np.cumsum(steps, axis=1)],
                            axis=1)[:, None, :]
    sd = 1.4826 * np.median(np.abs(steps[:, :reported] - np.median(
        steps[:, :reported], axis=1, keepdims=True)), axis=1)
    full = held_positions(fitted, 4, np.random.default_rng(6), last=np.array([reported]))
    assert full.shape == (draws, 1, window + 4)
    np.testing.assert_array_equal(full[:, 0, :reported + 1], fitted[:, 0, :reported + 1])
    shift = full[:, 0, reported + 1:] - fitted[:, 0, reported:reported + 1]
    assert np.abs(np.median(shift, axis=0)).max() < 0.01
    # Six held steps: two window quarters after the report, then the four ahead.
    np.testing.assert_allclose((shift / sd[:, None]).std(axis=0), np.sqrt(np.arange(1, 7)),
                               rtol=0.03)
    with pytest.raises(ValueError, match="window indices"):
        held_positions(fitted, 4, np.random.default_rng(6), last=np.array([window]))


def test_one_jump_of_nvidia_does_not_set_the_held_spread() -> None:
    rng = np.random.default_rng(8)
    steps = rng.normal(0.0, 0.1, (50_000, 11))
    # Normal steps: the robust sd estimates their sd (its median over paths is about 10%
    # low with 11 steps).
    plain_normal = np.median(robust_step_sd(steps))
    assert plain_normal == pytest.approx(0.1, rel=0.15)
    # One quarter's -0.8 (the custom group's fitted step when NVIDIA jumped in 2023Q2)
    # more than doubles the plain sd; the robust one moves by about a tenth.
    jumped = steps.copy()
    jumped[:, 2] = -0.8
    assert np.median(jumped.std(axis=1, ddof=1)) > 2.5 * 0.1
    assert np.median(robust_step_sd(jumped)) == pytest.approx(plain_normal, rel=0.2)
    assert robust_step_sd(steps[:, :1]).tolist() == [0.0] * 50_000


def test_held_paths_hold_each_rival_from_its_last_report_the_others_are_the_models(spend
                                                                                   ) -> None:
    draws, horizon, window = 2000, 8, len(spend.window)
    pick = spend.draw_index(draws, np.random.default_rng(0))
    model, _ = spend.simulate(horizon, pick, np.random.default_rng(1))
    held = np.arange(draws) % 2 == 0
    mixed, _ = spend.simulate(horizon, pick, np.random.default_rng(1), held=held)

    def positions(log_latent):
        return log_latent[:, 1:, :] - log_latent[:, :1, :]

    # The held draws come after every other random number: the rest are the model's paths.
    np.testing.assert_array_equal(mixed[~held], model[~held])
    np.testing.assert_array_equal(mixed[:, 0, :window], model[:, 0, :window])  # NVIDIA's
    last = spend.last_reported()
    # AMD's last report (2025Q2) is a quarter before the window's end (NVIDIA's guide).
    assert last[RIVALS.index("amd")] == window - 2
    t0 = quarter_index(spend.window[0])
    every = np.arange(window + horizon) + t0
    heights = np.concatenate([spend.stacked(name, pick[held]) for name in (
        "ramp_lift", "ramp_lift_ahead") if name in spend.posterior], axis=1)
    lifts = lift_layout(spend.data["ramps"])
    curves = 1.0 / (1.0 + np.exp(-(every[None, :] - lifts["midpoint"][:, None]) / RAMP_WIDTH))
    held_model, held_mixed = positions(model)[held], positions(mixed)[held]
    for rival, end in enumerate(last):
        # Up to its last report, a rival's fitted positions; after it, held there while
        # the ramps go on: numpy's logistic curves, each generation's height to its owner.
        np.testing.assert_array_equal(held_mixed[:, rival, :end + 1],
                                      held_model[:, rival, :end + 1])
        ramp = sum(heights[:, g, None] * (curves[g, end + 1:] - curves[g, end])[None, :]
                   for g in np.flatnonzero(lifts["owner"] == rival))
        shift = held_mixed[:, rival, end + 1:] - held_model[:, rival, end:end + 1] - ramp
        # Centred on the last reported position plus the ramps' growth: each median within
        # 4 of its Monte Carlo errors.
        error = 1.2533 * shift.std(axis=0) / np.sqrt(len(shift))
        assert np.all(np.abs(np.median(shift, axis=0)) < 4 * error + 1e-12)
    aws = RIVALS.index("aws")
    assert np.median((heights[:, lifts["owner"] == aws] * (curves[lifts["owner"] == aws, -1]
                      - curves[lifts["owner"] == aws, window - 1])).sum(axis=1)) > 0.1
    # The model moves some rival's median position by far more than that over two years.
    moved = np.median(positions(model)[~held][:, :, -1] - positions(model)[~held][:, :,
                                                                                window - 1],
                      axis=0)
    assert np.abs(moved).max() > 0.1
