"""The share model's math on numpy arrays: softmax targets, supply caps, partial adjustment.

Pure numpy, no PyMC: the fitted model forecasts with these, the tests check them against
hand computations, and :mod:`forecast.models.share.builder` writes the same recursions in
PyTensor.
"""

from __future__ import annotations

import numpy as np

from forecast.core.errors import ForecastError
from forecast.core.shortaxis import short_max, short_sum


def softmax(utility: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``."""
    u = np.asarray(utility, dtype=float)
    z = np.exp(u - short_max(u, axis, keepdims=True))
    z /= short_sum(z, axis, keepdims=True)
    return z


def target_shares(ecosystem: np.ndarray, price_coefficient: np.ndarray,
                  log_cost: np.ndarray) -> np.ndarray:
    """Target shares ``softmax(a + b log(1/k))``.

    Parameters
    ----------
    ecosystem
        ``a``, shape ``(..., K)`` or ``(..., T, K)``.
    price_coefficient
        ``b``, shape ``(...)``.
    log_cost
        ``log k``, shape ``(..., T, K)``.

    Returns
    -------
    numpy.ndarray
        ``(..., T, K)`` shares summing to 1 over the last axis.
    """
    a = np.asarray(ecosystem, dtype=float)
    b = np.asarray(price_coefficient, dtype=float)
    lc = np.asarray(log_cost, dtype=float)
    if a.ndim == lc.ndim - 1:
        a = a[..., None, :]
    return softmax(a - b[..., None, None] * lc)


def apply_supply_caps(shares: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Cap shares and hand each excess to the uncapped vendors in proportion to their shares.

    Repeats until no vendor exceeds its cap (a vendor pushed over its own cap by a
    redistribution is capped in the next round).

    Parameters
    ----------
    shares
        ``(..., K)`` shares on the simplex.
    caps
        ``(..., K)`` (broadcastable) maximum shares; ``inf`` (or >= 1) for no cap.

    Returns
    -------
    numpy.ndarray
        Capped shares, still summing to 1.

    Raises
    ------
    ForecastError
        If the caps sum to less than 1 (no allocation can respect them).
    """
    s = np.array(shares, dtype=float, copy=True)
    cap = np.broadcast_to(np.asarray(caps, dtype=float), s.shape)
    if np.any(short_sum(np.minimum(cap, 1.0)) < 1.0 - 1e-12):
        raise ForecastError("supply caps sum to less than 1: no share allocation respects them")
    fixed = np.zeros(s.shape, dtype=bool)
    for _ in range(s.shape[-1]):
        over = (s > cap) & ~fixed
        if not over.any():
            break
        s = np.where(over, cap, s)
        fixed |= over
        excess = 1.0 - short_sum(s, keepdims=True)
        free = np.where(fixed, 0.0, s)
        free_mass = short_sum(free, keepdims=True)
        # Proportional hand-out; if the free vendors hold nothing, share it equally among them.
        n_free = short_sum((~fixed).astype(np.int64), keepdims=True)
        weights = np.where(free_mass > 0, free / np.where(free_mass > 0, free_mass, 1.0),
                           np.where(fixed, 0.0, 1.0) / np.maximum(n_free, 1))
        s = s + excess * weights
    return s


def partial_adjustment(start: np.ndarray, targets: np.ndarray,
                       speed: np.ndarray) -> np.ndarray:
    """Shares ``s(t) = s(t-1) + lambda (s*(t) - s(t-1))`` from ``s(-1) = start``.

    Parameters
    ----------
    start
        ``(..., K)`` shares before the first target quarter.
    targets
        ``(..., T, K)`` target shares.
    speed
        ``lambda``, shape ``(...)``, in [0, 1].

    Returns
    -------
    numpy.ndarray
        ``(..., T, K)`` share paths (on the simplex when start and targets are).
    """
    lam = np.asarray(speed, dtype=float)[..., None]
    current = np.asarray(start, dtype=float)
    tgt = np.asarray(targets, dtype=float)
    out = np.empty(np.broadcast_shapes(tgt.shape, current[..., None, :].shape))
    for t in range(tgt.shape[-2]):
        current = current + lam * (tgt[..., t, :] - current)
        out[..., t, :] = current
    return out


def share_paths(
    ecosystem: np.ndarray,
    price_coefficient: np.ndarray,
    speed: np.ndarray,
    start: np.ndarray,
    log_cost: np.ndarray,
    caps: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Target and realised share paths (draws x quarters x vendors).

    ``ecosystem`` may vary by quarter (``(..., T, K)``) to carry an ecosystem shift; ``caps``
    (``(..., K)`` or ``(..., T, K)``) cap the targets. Returns ``(targets, shares)``.
    """
    targets = target_shares(ecosystem, price_coefficient, log_cost)
    if caps is not None:
        targets = apply_supply_caps(targets, caps)
    return targets, partial_adjustment(start, targets, speed)


def share_elasticities(price_coefficient: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """``E[..., i, j] = d log s*_i / d log k_j = -b (delta_ij - s_j)``.

    ``price_coefficient`` has shape ``(...)``, ``shares`` ``(..., K)``; returns ``(..., K, K)``.
    """
    b = np.asarray(price_coefficient, dtype=float)[..., None, None]
    s = np.asarray(shares, dtype=float)
    eye = np.eye(s.shape[-1])
    return -b * (eye - s[..., None, :])


def additive_log_ratios(shares: np.ndarray) -> np.ndarray:
    """``log(s_v / s_0)`` for the vendors after the first: ``(..., K)`` -> ``(..., K-1)``."""
    logs = np.log(shares)
    return logs[..., 1:] - logs[..., :1]


def from_log_ratios(alr: np.ndarray) -> np.ndarray:
    """Shares from additive log-ratios to the first vendor (the inverse of
    :func:`additive_log_ratios`)."""
    return softmax(np.concatenate([np.zeros(alr.shape[:-1] + (1,)), alr], axis=-1))
