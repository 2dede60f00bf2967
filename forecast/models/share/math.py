"""The share model's simplex math on numpy arrays: softmax, supply caps, log-ratios and
elasticities (the state space is :mod:`forecast.models.share.statespace`).

Pure numpy, no PyMC: the fitted model forecasts with these and the tests check them against
hand computations.
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
