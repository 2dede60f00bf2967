"""The spend card's figures read from a fit's samples (forecast.reporting.spend_figures),
against numpy on planted positions."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.core.calendar import quarter_index
from forecast.models.spend.math import RIVALS
from forecast.models.spend.simulation import held_positions
from forecast.reporting.spend_figures import held_ramps_table, held_steps_table, jump_quarter

WINDOW = ["2022Q4", "2023Q1", "2023Q2", "2023Q3", "2023Q4", "2024Q1", "2024Q2", "2024Q3",
          "2024Q4"]


class PlantedFit:
    """The few members of FittedSpend the figures read, over planted samples."""

    def __init__(self, seed: int = 0, samples: int = 6000):
        rng = np.random.default_rng(seed)
        self.window = WINDOW
        n = len(WINDOW)
        # NVIDIA rises 0.1 a quarter except a 0.9 jump into 2023Q3.
        self.nvidia = np.cumsum(np.r_[0.0, np.full(n - 1, 0.1)])
        self.nvidia[3:] += 0.8
        steps = rng.normal(0.0, 0.05, (samples, len(RIVALS), n - 1))
        steps[:, 0, 2] = -0.8  # the first rival's position falls by NVIDIA's jump
        self.positions = -2.0 + np.concatenate([np.zeros((samples, len(RIVALS), 1)),
                                                np.cumsum(steps, axis=2)], axis=2)
        self.heights = np.linspace(0.0, 0.6, len(RIVALS))  # a lift per rival, for good

    def draw_index(self, draws: int, rng: np.random.Generator) -> np.ndarray:
        return rng.choice(self.positions.shape[0], size=draws, replace=False)

    def stacked(self, name: str, pick: np.ndarray | None = None) -> np.ndarray:
        assert name == "log_spend"
        pick = np.arange(self.positions.shape[0]) if pick is None else pick
        level = np.broadcast_to(self.nvidia, (len(pick), 1, len(self.window)))
        return np.concatenate([level, level + self.positions[pick]], axis=1)

    def unramped_positions(self, pick: np.ndarray) -> np.ndarray:
        return self.positions[pick]

    def held_paths(self, pick: np.ndarray, t: np.ndarray, rng: np.random.Generator
                   ) -> np.ndarray:
        # FittedSpend's contract: the window's quarters, then ``t``.
        every = np.r_[np.arange(len(WINDOW)) + quarter_index(WINDOW[0]), t]
        return (held_positions(self.positions[pick], len(t), rng)
                + self.ramp_lifts_at(pick, every))

    def ramp_lifts_at(self, pick: np.ndarray, t: np.ndarray) -> np.ndarray:
        # Ramps complete linearly over the year after the window.
        done = np.clip((np.asarray(t) - quarter_index(WINDOW[-1])) / 4.0, 0.0, 1.0)
        return np.broadcast_to(self.heights[None, :, None] * done[None, None, :],
                               (len(pick), len(RIVALS), len(t))).copy()


def _rows(table: str) -> dict[str, list[float]]:
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] in RIVALS:
            rows[cells[0]] = [float(c.split()[0]) for c in cells[1:]]
    return rows


def test_the_jump_quarter_is_nvidias_largest_rise() -> None:
    assert jump_quarter(PlantedFit()) == "2023Q3"


def test_held_steps_report_the_jump_and_both_spreads() -> None:
    fit = PlantedFit()
    table = held_steps_table(fit)
    assert "step in 2023Q3" in table
    rows = _rows(table)
    # The jumped rival: its planted step, normal steps elsewhere (median |step| of a normal
    # of sd 0.05 is 0.674 x 0.05), an sd blown up by the one jump and a robust spread near 0.05.
    step, typical, by_sd, robust = rows[RIVALS[0]]
    assert step == pytest.approx(-0.8, abs=0.01)
    assert typical == pytest.approx(0.674 * 0.05, abs=0.01)
    steps = np.diff(fit.positions[:, 0, :], axis=1)
    assert by_sd == pytest.approx(np.median(steps.std(axis=1, ddof=1)), abs=0.006)
    assert by_sd > 0.2
    assert robust == pytest.approx(0.05, abs=0.01)
    # A rival without the jump: both spreads near its steps' sd (the robust one's median
    # over paths of eight steps runs about a tenth low).
    assert rows[RIVALS[1]][2] == pytest.approx(0.05, abs=0.006)
    assert rows[RIVALS[1]][3] == pytest.approx(0.05, abs=0.012)


def test_held_ramps_add_their_lift_and_lower_nvidias_share() -> None:
    fit = PlantedFit()
    table = held_ramps_table(fit, year=2027)
    lifts = _rows(table)
    for k, rival in enumerate(RIVALS):
        assert lifts[rival][0] == pytest.approx(fit.heights[k], abs=0.005)
    shares = {line.split("|")[1].strip(): float(line.split("|")[2].split()[0])
              for line in table.splitlines() if line.startswith("| with") or
              line.startswith("| ramps")}
    # Every rival's position held about where it ended (-2, the jumped one -2.8; spread a
    # little), the ramps adding their heights.
    held = np.full(len(RIVALS), -2.0) - 0.8 * (np.arange(len(RIVALS)) == 0)
    without = 1.0 / (1.0 + np.exp(held).sum())
    with_ramps = 1.0 / (1.0 + np.exp(held + fit.heights).sum())
    assert with_ramps < without - 0.05
    assert shares["ramps stopped at 2024Q4"] == pytest.approx(without, abs=0.02)
    assert shares["with the ramps"] == pytest.approx(with_ramps, abs=0.02)


def test_amds_path_splits_its_reported_revenue_as_the_samples_do() -> None:
    import pandas as pd

    from forecast.reporting.spend_figures import amd_path_table

    rng = np.random.default_rng(2)
    samples, window = 3001, WINDOW[:4]
    k = RIVALS.index("amd")
    log_spend = rng.normal(0.0, 0.3, (samples, 1 + len(RIVALS), len(window)))
    position = log_spend[:, 1:, :] - log_spend[:, :1, :]
    values = {"log_spend": log_spend, "position": position, "target": position - 0.5,
              "amd_cpu": rng.lognormal(0.0, 0.2, (samples, len(window)))}

    class Fit:
        posterior = values
        data = {"observations": pd.DataFrame({
            "series": ["amd_data_center", "amd_data_center", "broadcom_ai"],
            "quarter": [window[1], window[2], window[1]], "value": [1.25, 1.5, 9.0]})}

        def __init__(self):
            self.window = window

        def stacked(self, name, pick=None):
            return values[name]

    rows = [line.strip("|").split("|") for line in amd_path_table(Fit()).splitlines()[2:]]
    assert [row[0].strip() for row in rows] == window
    # Reported where AMD reported (Broadcom's row is not AMD's), blank elsewhere.
    assert [row[1].strip() for row in rows] == ["", "1.25", "1.50", ""]
    j = 2
    expected = [np.median(values["amd_cpu"][:, j]), np.median(np.exp(log_spend[:, 1 + k, j])),
                np.median(np.exp(log_spend[:, 0, j])), np.median(position[:, k, j]),
                np.median(position[:, k, j] - 0.5)]
    np.testing.assert_allclose([float(c) for c in rows[j][2:]], expected, atol=0.006)
