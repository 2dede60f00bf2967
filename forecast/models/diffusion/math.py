"""The diffusion models' math (docs/models/diffusion.md): Bass, generalised Bass
and Norton-Bass curves.

The ``..._expr`` helpers are written once for numpy and PyTensor (``xp`` is the ``numpy`` or
``pytensor.tensor`` module): the likelihood and the numpy forecasts cannot drift apart. The
public functions are their numpy forms, vectorised over posterior draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from forecast.core.errors import ForecastError

# --------------------------------------------------------------------------- shared expressions


def cdf_expr(t: Any, p: Any, q: Any, xp: ModuleType) -> Any:
    """Bass ``F(t)`` for numpy or PyTensor ``xp``; 0 for ``t <= 0``."""
    t = xp.maximum(t, 0.0)
    decay = xp.exp(-(p + q) * t)
    return (1.0 - decay) / (1.0 + (q / p) * decay)


def effective_increments_expr(log_change: Any, beta: Any, xp: ModuleType) -> Any:
    """Generalised-Bass ``x_k = max(1 + beta * log change, 0)`` for numpy or PyTensor."""
    return xp.maximum(1.0 + beta * log_change, 0.0)


def norton_bass_expr(
    cdfs: Sequence[Any], m: Sequence[Any], xp: ModuleType
) -> tuple[list[Any], list[Any], list[Any]]:
    """Cumulative demand ``D_g``, installed base ``S_g`` and gross sales per generation.

    ``cdfs[g]`` is ``F_g`` at period ends 0..n along the last axis; ``m[g]`` broadcasts
    against it. Gross sales are per period (length n along the last axis). ``xp`` is unused
    (slicing and arithmetic only) but kept so every shared expression reads alike.
    """
    demand: list[Any] = []
    for g, cdf in enumerate(cdfs):
        demand.append(cdf * m[g] if g == 0 else cdf * (m[g] + demand[g - 1]))
    base, gross = [], []
    for g, cumulative in enumerate(demand):
        later = cdfs[g + 1] if g + 1 < len(cdfs) else None
        base.append(cumulative if later is None else cumulative * (1.0 - later))
        inflow = cumulative[..., 1:] - cumulative[..., :-1]
        gross.append(inflow if later is None else inflow * (1.0 - later[..., 1:]))
    return demand, base, gross


def _as_params(*values: Any) -> list[np.ndarray]:
    return [np.asarray(value, dtype=float) for value in values]


# --------------------------------------------------------------------------- Bass


def bass_cdf(t: Any, p: Any, q: Any) -> np.ndarray:
    """Cumulative Bass adoption fraction ``F(t)`` (0 for ``t <= 0``); numpy broadcasting.

    Parameters
    ----------
    t
        Periods since launch (launch is the start of period 1).
    p, q
        Innovation and imitation coefficients per period, ``p > 0``, ``q >= 0``.
    """
    t, p, q = _as_params(t, p, q)
    return cdf_expr(t, p, q, np)


def bass_pdf(t: Any, p: Any, q: Any) -> np.ndarray:
    """Bass adoption density ``f(t) = dF/dt`` (0 for ``t < 0``); numpy broadcasting."""
    t, p, q = _as_params(t, p, q)
    decay = np.exp(-(p + q) * np.maximum(t, 0.0))
    density = (p + q) ** 2 / p * decay / (1.0 + (q / p) * decay) ** 2
    return np.where(t < 0, 0.0, density)


def bass_peak_time(p: Any, q: Any) -> np.ndarray:
    """Time of peak adoptions ``ln(q / p) / (p + q)`` in periods; 0 when ``q <= p``."""
    p, q = _as_params(p, q)
    return np.maximum(np.log(q / p) / (p + q), 0.0)


def bass_adoptions(n_periods: int, p: Any, q: Any, m: Any) -> np.ndarray:
    """Adoptions per period ``m (F(k) - F(k-1))`` for k = 1..n_periods.

    Parameters are vectorised: ``p``, ``q``, ``m`` broadcast against each other (e.g. arrays
    of posterior draws); the result has their broadcast shape plus a last axis of length
    ``n_periods``.
    """
    p, q, m = _as_params(p, q, m)
    t = np.arange(n_periods + 1, dtype=float)
    cdf = cdf_expr(t, p[..., None], q[..., None], np)
    return m[..., None] * np.diff(cdf, axis=-1)


# --------------------------------------------------------------------------- generalised Bass


def effective_time(covariate: Any, beta: Any) -> np.ndarray:
    """Generalised-Bass effective time ``X(k) = x_1 + ... + x_k`` at the end of each period.

    ``covariate`` holds positive levels, one per period (last axis); ``x_1 = 1`` and
    ``x_k = max(1 + beta (log c_k - log c_{k-1}), 0)``. ``beta`` broadcasts against the
    leading axes of ``covariate``.
    """
    covariate = np.asarray(covariate, dtype=float)
    if np.any(~(covariate > 0)):
        raise ForecastError("generalised Bass covariate must be positive (its log is taken)")
    beta = np.asarray(beta, dtype=float)[..., None]
    log_level = np.log(covariate)
    change = np.diff(log_level, axis=-1, prepend=log_level[..., :1])
    return np.cumsum(effective_increments_expr(change, beta, np), axis=-1)


def gbass_adoptions(covariate: Any, p: Any, q: Any, m: Any, beta: Any) -> np.ndarray:
    """Generalised-Bass adoptions per period ``m (F(X(k)) - F(X(k-1)))``, ``X(0) = 0``.

    ``covariate``: positive levels, one per period (length = number of periods). ``p``,
    ``q``, ``m``, ``beta`` broadcast as in :func:`bass_adoptions`.
    """
    p, q, m, beta = _as_params(p, q, m, beta)
    shape = np.broadcast_shapes(p.shape, q.shape, m.shape, beta.shape)
    elapsed = effective_time(covariate, np.broadcast_to(beta, shape))
    elapsed = np.concatenate([np.zeros(elapsed.shape[:-1] + (1,)), elapsed], axis=-1)
    cdf = cdf_expr(elapsed, p[..., None], q[..., None], np)
    return m[..., None] * np.diff(cdf, axis=-1)


def gbass_paths(log_change: np.ndarray, p: np.ndarray, q: np.ndarray, m: np.ndarray,
                beta: np.ndarray) -> np.ndarray:
    """Generalised-Bass adoptions per draw and period from per-period log changes.

    ``log_change`` (1-d, one per period from launch) is shared by every draw; ``p``, ``q``,
    ``m``, ``beta`` are 1-d arrays of draws. Returns (draw, period).
    """
    steps = effective_increments_expr(log_change[None, :], beta[:, None], np)
    elapsed = np.concatenate([np.zeros((len(beta), 1)), np.cumsum(steps, axis=1)], axis=1)
    cdf = cdf_expr(elapsed, p[:, None], q[:, None], np)
    return m[:, None] * np.diff(cdf, axis=1)


# --------------------------------------------------------------------------- Norton-Bass


def _generation_cdfs(t: np.ndarray, launch_periods: Any, p: np.ndarray,
                     q: np.ndarray) -> list[np.ndarray]:
    taus = np.atleast_1d(np.asarray(launch_periods, dtype=float))
    return [cdf_expr(t - tau, p[..., None], q[..., None], np) for tau in taus]


def norton_bass_cumulative(t: Any, launch_periods: Any, p: Any, q: Any, m: Any) -> np.ndarray:
    """Norton-Bass cumulative demand (installed base) ``S_g(t)`` per generation.

    Parameters
    ----------
    t
        1-d array of times (periods since generation 1's launch).
    launch_periods
        ``tau_g`` per generation, periods after generation 1's launch (``tau_1 = 0``).
    p, q
        Shared coefficients per period (arrays of draws broadcast).
    m
        Market potential per generation; last axis of length G.

    Returns
    -------
    Array of shape ``broadcast(p, q, m[..., 0]) + (len(t), G)``.
    """
    p, q, m = _as_params(p, q, m)
    t = np.asarray(t, dtype=float)
    cdfs = _generation_cdfs(t, launch_periods, p, q)
    _, base, _ = norton_bass_expr(cdfs, [m[..., g, None] for g in range(m.shape[-1])], np)
    return np.stack(np.broadcast_arrays(*base), axis=-1)


def norton_bass_adoptions(n_periods: int, launch_periods: Any, p: Any, q: Any, m: Any,
                          sales: str = "gross") -> np.ndarray:
    """Norton-Bass sales per period and generation for periods k = 1..n_periods.

    Parameters
    ----------
    n_periods
        Number of periods after generation 1's launch.
    launch_periods
        ``tau_g`` per generation in periods after generation 1's launch (``tau_1 = 0``);
        generation g sells from period ``tau_g + 1`` on.
    p, q, m
        As in :func:`norton_bass_cumulative`.
    sales
        ``"gross"`` (default): units sold, ``(D_g(k) - D_g(k-1)) (1 - F_{g+1}(k))``, never
        negative; ``"net"``: change of the installed base ``S_g(k) - S_g(k-1)``, negative for
        an old generation whose users upgrade (docs/models/diffusion.md).

    Returns
    -------
    Array of shape ``broadcast(p, q, m[..., 0]) + (n_periods, G)``.
    """
    if sales not in ("gross", "net"):
        raise ForecastError(f"sales must be 'gross' or 'net', got {sales!r}")
    p, q, m = _as_params(p, q, m)
    t = np.arange(n_periods + 1, dtype=float)
    cdfs = _generation_cdfs(t, launch_periods, p, q)
    _, base, gross = norton_bass_expr(
        cdfs, [m[..., g, None] for g in range(m.shape[-1])], np)
    per_period = gross if sales == "gross" else [np.diff(s, axis=-1) for s in base]
    return np.stack(np.broadcast_arrays(*per_period), axis=-1)
