"""Figures of the spend card read from the shipped fit's samples rather than its summary
table: each rival's fitted step in the quarter of NVIDIA's largest jump and the spread it
would give the held twin, how much the held paths' ramps lift the rivals by a year, and how
the fit splits AMD's Data Center revenue quarter by quarter.

Written into the card by :mod:`forecast.reporting.results` (blocks ``held-steps``,
``held-ramps`` and ``amd-path``), so that a reshipped fit rewrites them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from forecast.core.calendar import quarter_index
from forecast.models.spend.math import RIVALS
from forecast.models.spend.simulation import robust_step_sd

#: Samples read and their seed: the blocks must be the same on every run.
DRAWS = 4000
SEED = 0


def _fmt(values: np.ndarray) -> str:
    low, mid, high = np.quantile(values, [0.1, 0.5, 0.9])
    return f"{mid:.2f} ({low:.2f} to {high:.2f})"


def jump_quarter(fitted: Any) -> str:
    """The window quarter in which NVIDIA's log compute spend rose most (median path)."""
    return fitted.window[1 + _jump_step(fitted)]


def _jump_step(fitted: Any) -> int:
    """Index, among the window's quarterly changes, of NVIDIA's largest rise."""
    level = np.median(fitted.stacked("log_spend")[:, 0, :], axis=0)  # NVIDIA: group 0
    return int(np.argmax(np.diff(level)))


def held_steps_table(fitted: Any) -> str:
    """Per rival: its fitted step in NVIDIA's jump quarter, its typical step elsewhere, and
    the held twin's quarterly spread by the steps' sd and by their median absolute deviation
    (:func:`~forecast.models.spend.simulation.robust_step_sd`), each the median over paths.
    The steps are those of the part of the position the ramps do not explain (what a held
    path holds)."""
    pick = fitted.draw_index(DRAWS, np.random.default_rng(SEED))
    steps = np.diff(fitted.unramped_positions(pick), axis=2)          # (draw, rival, step)
    at = _jump_step(fitted)
    others = np.delete(steps, at, axis=2)
    lines = [f"| rival | step in {fitted.window[1 + at]} | typical size of its other steps "
             "| held spread by sd | held spread by median absolute deviation |",
             "|---|---|---|---|---|"]
    sd = np.median(steps.std(axis=2, ddof=1), axis=0)
    robust = np.median(robust_step_sd(steps), axis=0)
    for k, rival in enumerate(RIVALS):
        lines.append(f"| {rival} | {np.median(steps[:, k, at]):.2f} | "
                     f"{np.median(np.abs(others[:, k, :])):.2f} | {sd[k]:.2f} | "
                     f"{robust[k]:.2f} |")
    return "\n".join(lines)


def held_ramps_table(fitted: Any, year: int = 2030) -> str:
    """Per rival: the log lift the ramps add after the window by ``year``'s last quarter on
    a held path, and NVIDIA's share of that quarter's spend on held paths with those lifts
    and with the ramps stopped at the window's end; median (10-90%)."""
    pick = fitted.draw_index(DRAWS, np.random.default_rng(SEED))
    end = quarter_index(fitted.window[-1])
    t = np.arange(1, quarter_index(f"{year}Q4") - end + 1, dtype=float) + end
    held = fitted.held_paths(pick, t, np.random.default_rng(SEED + 1))[:, :, -1]
    lifts = fitted.ramp_lifts_at(pick, t[-1:])[:, :, 0]
    frozen = fitted.ramp_lifts_at(pick, np.array([float(end)]))[:, :, 0]
    added = lifts - frozen

    def nvidia_share(position: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(position).sum(axis=1))

    lines = [f"| rival | lift the ramps add by {year}Q4 (log) |", "|---|---|"]
    lines += [f"| {rival} | {_fmt(added[:, k])} |" for k, rival in enumerate(RIVALS)]
    lines += ["", f"| held paths | NVIDIA's share of {year}Q4 spend |", "|---|---|",
              f"| with the ramps | {_fmt(nvidia_share(held))} |",
              f"| ramps stopped at {fitted.window[-1]} | {_fmt(nvidia_share(held - added))} |"]
    return "\n".join(lines)


def amd_path_table(fitted: Any) -> str:
    """AMD's quarters in the fit: its reported Data Center revenue, the fitted EPYC curve
    and accelerator spend (USD bn), its position against NVIDIA and the cost-driven target
    it moves towards (log ratio), with NVIDIA's compute spend beside them; medians over
    the samples."""
    obs = fitted.data["observations"]
    reported = obs[obs["series"] == "amd_data_center"].groupby("quarter")["value"].first()
    spend = np.exp(fitted.stacked("log_spend"))
    k = RIVALS.index("amd")  # its row among the rivals; its group is k + 1 (NVIDIA's 0)
    cpu = (np.median(fitted.stacked("amd_cpu"), axis=0) if "amd_cpu" in fitted.posterior
           else np.full(len(fitted.window), np.nan))
    position = np.median(fitted.stacked("position")[:, k, :], axis=0)
    target = np.median(fitted.stacked("target")[:, k, :], axis=0)
    lines = ["| quarter | AMD Data Center, reported | EPYC curve | AMD accelerators | "
             "NVIDIA compute | AMD position | its target |", "|---|---|---|---|---|---|---|"]
    for j, quarter in enumerate(fitted.window):
        value = reported.get(quarter)
        shown = "" if value is None else f"{float(value):.2f}"
        lines.append(f"| {quarter} | {shown} | {cpu[j]:.2f} | "
                     f"{np.median(spend[:, k + 1, j]):.2f} | {np.median(spend[:, 0, j]):.2f} | "
                     f"{position[j]:.2f} | {target[j]:.2f} |")
    return "\n".join(lines)
