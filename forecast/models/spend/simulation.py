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


def faded_step(step: np.ndarray, headroom: np.ndarray) -> np.ndarray:
    """One quarter's change of the log TAM under a bound, towards demand ``step`` away: a
    fall passes as it is; a rise of ``r`` with ``x`` of log headroom below the bound becomes
    ``r (1 - exp(-x / r))``, below both, so the TAM nears the bound without crossing it; far
    from the bound the rise passes whole. Above a bound that fell below it (negative
    headroom) the TAM falls to the bound, or further with demand."""
    rise = np.maximum(step, 0.0)
    room = np.maximum(headroom, 0.0)
    ratio = np.divide(room, rise, out=np.zeros_like(rise), where=rise > 0.0)
    # A faded rise is below the headroom already: the minimum acts only above the bound.
    return np.minimum(np.minimum(step, 0.0) - rise * np.expm1(-ratio), headroom)


def last_log_tam(log_spend: np.ndarray) -> np.ndarray:
    """Log TAM (draw,) of the last quarter of ``log_spend`` (draw, group, quarter): the
    start of :func:`bounded_level` and :func:`bound_lift`."""
    return np.log(np.exp(log_spend[:, :, -1]).sum(axis=1))


def bound_lift(start: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """What was spent was funded, powered and built: the factor (draw,) lifting a bound path
    whose first quarter sits below the TAM of the last fitted quarter (``start``, log USD bn
    a quarter) up to it, keeping its growth; 1 elsewhere."""
    return np.maximum(1.0, 4.0 * np.exp(start) / np.asarray(bound, dtype=float)[:, 0])


def bounded_level(level: np.ndarray, log_weight: np.ndarray, bound: np.ndarray,
                  start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The common level under M6's bound: each quarter the TAM moves towards the demand the
    trend carries, a rise faded by the headroom left below the bound (:func:`faded_step`),
    a fall below it followed. Where demand stays far below the bound the TAM is demand; where
    demand outgrows it the TAM's growth fades to the bound's and it stays just under it while
    demand stays above. The bound cuts no path, except where it falls below the TAM a path
    has reached (a bound that shrinks): the TAM then falls with it.

    Parameters
    ----------
    level
        NVIDIA's unconstrained log compute spend (draw, quarter).
    log_weight
        Log of the TAM over NVIDIA's spend (draw, quarter): log(1 + sum of exp(position)).
    bound
        The tightest bound, USD bn of accelerator spend a year (draw, quarter), lifted by
        :func:`bound_lift`.
    start
        Log TAM of the last fitted quarter, USD bn a quarter (draw,).

    Returns
    -------
    tuple
        The bounded level, and whether demand exceeded the bound (the bound binds).
    """
    demand = level + log_weight
    bound = np.asarray(bound, dtype=float)
    ceiling = np.log(bound * bound_lift(start, bound)[:, None] / 4.0)
    tam = np.empty_like(demand)
    previous = np.asarray(start, dtype=float)
    for h in range(demand.shape[1]):
        previous = previous + faded_step(demand[:, h] - previous, ceiling[:, h] - previous)
        tam[:, h] = previous
    return tam - log_weight, demand > ceiling


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


def held_positions(fitted: np.ndarray, horizon: int, rng: np.random.Generator,
                   last: np.ndarray | None = None) -> np.ndarray:
    """The rivals' positions held where their reports left them (draw, rival, window +
    horizon): the constant-shares baseline in the model's own space, the one an
    out-of-sample stack mixes with the model's paths.

    ``fitted`` (draw, rival, window): each path's in-sample positions. ``last`` (rival,):
    each rival's last window quarter that its own reports observe (None: the window's
    last). A rival's path is its fitted positions up to that quarter; after it, each
    quarter (in the window or after it) takes a normal step with the typical size of that
    path's quarterly changes up to it (:func:`robust_step_sd`), as constant shares spread
    by the reported ratios' changes. The window's quarters after a rival's last report are
    the model's own projection, which a baseline must not hold. Random numbers: one block
    of shocks (draw, rival, the longest held stretch).
    """
    n_draws, n_rivals, window = fitted.shape
    last = np.full(n_rivals, window - 1) if last is None else np.asarray(last, dtype=int)
    if last.shape != (n_rivals,) or last.min() < 0 or last.max() > window - 1:
        raise ValueError(f"last must be {n_rivals} window indices, got {last.tolist()}")
    shocks = rng.standard_normal((n_draws, n_rivals, window - 1 - int(last.min()) + horizon))
    out = np.concatenate([fitted, np.empty((n_draws, n_rivals, horizon))], axis=2)
    for rival, end in enumerate(last):
        sd = robust_step_sd(np.diff(fitted[:, rival, :end + 1], axis=1))
        stretch = window - 1 - end + horizon
        walk = np.cumsum(sd[:, None] * shocks[:, rival, :stretch], axis=1)
        out[:, rival, end + 1:] = fitted[:, rival, end:end + 1] + walk
    return out


def robust_step_sd(steps: np.ndarray) -> np.ndarray:
    """The sd of normal steps read from their median absolute deviation (x 1.4826), over the
    last axis; 0 with fewer than two steps.

    A rival's position is its spend over NVIDIA's, so NVIDIA's own one-quarter jumps (its
    2023Q2) sit in every rival's fitted changes as one-offs. The plain sd would spread
    every held quarter as if such a jump came each quarter; the median absolute deviation
    does not.
    """
    if steps.shape[-1] < 2:
        return np.zeros(steps.shape[:-1])
    centre = np.median(steps, axis=-1, keepdims=True)
    return 1.4826 * np.median(np.abs(steps - centre), axis=-1)


def hold_last(values: np.ndarray, horizon: int) -> np.ndarray:
    """``values`` (..., quarter) continued by its last quarter for ``horizon`` quarters."""
    return np.repeat(values[..., -1:], horizon, axis=-1)


