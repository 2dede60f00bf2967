"""Forward simulation of the spend model from posterior samples (numpy only).

The common level continues its damped trend from a draw of the filtered last state; each
rival's adjusted position and deviation continue their recursions towards the targets of the
forecast quarters (the cost gaps the caller gives, e.g. the scenario's cost paths); the ramps
add each generation's lift by its installed fraction. Forecasting from a stored fit never
imports PyMC.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from forecast.models.spend.math import targets
from forecast.models.spend.trend import (
    FilteredState,
    TrendParams,
    draw_shock_scales,
    sample_state,
    simulate_trend,
)


@dataclass(frozen=True)
class PositionState:
    """One posterior sample per path of what the rivals' positions continue from.

    ``adjusted`` and ``deviation`` (draw, rival) at the last quarter; ``ecosystem`` and
    ``deviation_sd`` (draw, rival); ``erosion``, ``price_coefficient``, ``speed`` and
    ``persistence`` (draw,).
    """

    adjusted: np.ndarray
    deviation: np.ndarray
    ecosystem: np.ndarray
    deviation_sd: np.ndarray
    erosion: np.ndarray
    price_coefficient: np.ndarray
    speed: np.ndarray
    persistence: np.ndarray


#: Softness of the bound (log scale): where the unconstrained TAM meets the bound the TAM is
#: the bound x 2 ** -0.15 (0.90 of it); far above, the TAM follows the bound; far below, its
#: own path.
BOUND_SOFTNESS = 0.15


def soft_minimum(a: np.ndarray, b: np.ndarray, softness: float = BOUND_SOFTNESS) -> np.ndarray:
    """A smooth minimum of two log levels: ``-w log(exp(-a / w) + exp(-b / w))``, below
    both, within ``w log 2`` of the smaller."""
    low = np.minimum(a, b)
    return low - softness * np.log1p(np.exp(-np.abs(a - b) / softness))


def simulate_level(s: Mapping[str, np.ndarray], horizon: int, rng: np.random.Generator
                   ) -> np.ndarray:
    """NVIDIA's log compute spend over the next ``horizon`` quarters (draw, horizon),
    unconstrained: the demand the damped trend carries.

    ``s`` holds per path the trend's parameters and filtered state (``level_last``,
    ``growth_last``, ``state_var_*``). Random numbers, in order: the state draw, the shock
    scales, the trend's shocks.
    """
    trend = TrendParams(s["growth_persistence"], s["growth_longrun"], s["sigma_level"],
                        s["sigma_growth"], s["growth_init"])
    state = FilteredState(s["level_last"], s["growth_last"], s["state_var_level"],
                          s["state_cov"], s["state_var_growth"], None)
    level, growth = sample_state(state, rng)
    scales = draw_shock_scales(rng, (len(level), horizon))
    return simulate_trend(level, growth, trend, horizon, rng, scales)


def bounded_level(level: np.ndarray, log_weight: np.ndarray, bound: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The common level under M6's bound: the TAM is the soft minimum of the demand the
    trend carries and the bound, so its growth fades to the bound's as demand outgrows it.

    Parameters
    ----------
    level
        NVIDIA's unconstrained log compute spend (draw, quarter).
    log_weight
        Log of the TAM over NVIDIA's spend (draw, quarter): log(1 + sum of exp(position)).
    bound
        The tightest bound, USD bn of accelerator spend a year (draw, quarter).

    Returns
    -------
    tuple
        The bounded level, and whether demand exceeded the bound (the bound binds).
    """
    demand = level + log_weight
    ceiling = np.log(np.asarray(bound, dtype=float) / 4.0)
    return soft_minimum(demand, ceiling) - log_weight, demand > ceiling


def simulate_positions(state: PositionState, cost_gap: np.ndarray, years: np.ndarray,
                       rng: np.random.Generator) -> np.ndarray:
    """The rivals' adjusted positions over the forecast quarters (draw, rival, horizon).

    ``cost_gap`` (draw, rival, horizon): log cost gaps to NVIDIA; ``years`` (horizon,) from
    the fit window's first quarter (the erosion's origin). Each quarter the deviation takes
    a new shock, the adjusted path closes ``lambda`` of its gap to the target, and the
    position is their sum.
    """
    target = targets(state.ecosystem, state.erosion, state.price_coefficient, cost_gap, years)
    n_draws, n_rivals, horizon = target.shape
    shocks = rng.standard_normal((n_draws, n_rivals, horizon))
    speed = state.speed[:, None]
    persistence = state.persistence[:, None]
    adjusted, deviation = state.adjusted.copy(), state.deviation.copy()
    out = np.empty_like(target)
    for h in range(horizon):
        deviation = persistence * deviation + state.deviation_sd * shocks[:, :, h]
        adjusted = (1.0 - speed) * adjusted + speed * target[:, :, h]
        out[:, :, h] = adjusted + deviation
    return out


def hold_last(values: np.ndarray, horizon: int) -> np.ndarray:
    """``values`` (..., quarter) continued by its last quarter for ``horizon`` quarters."""
    return np.repeat(values[..., -1:], horizon, axis=-1)


def per_path(stacked: Any, pick: np.ndarray) -> np.ndarray:
    """Posterior samples ``stacked`` (sample, ...) at the paths' samples ``pick``."""
    return np.asarray(stacked)[pick]
