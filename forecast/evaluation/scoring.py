"""Proper scores of probabilistic forecasts given as samples (pure numpy).

Every function takes ``samples`` with the draws on the first axis and an observation ``y``
broadcastable to ``samples.shape[1:]``, so one call scores a whole (draws x horizon) path
matrix against the realised values.

- :func:`crps_samples`: continuous ranked probability score of the empirical distribution of the
  samples, ``E|X - y| - 0.5 E|X - X'|`` (Gneiting and Raftery 2007), computed from the sorted
  samples in O(n log n);
- :func:`pinball_loss`: quantile (pinball) loss at given quantile levels;
- :func:`coverage`: whether ``y`` falls in the central interval of a given level;
- :func:`interval_score`: width plus ``2 / alpha`` times the miss distance (lower is better);
- :func:`pit` and :func:`pit_histogram`: probability integral transform (mid-rank) and its
  histogram, for calibration.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from forecast.core.errors import ForecastError

#: Quantile levels scored by the backtest (the 1%, 5%, 33%, 50%, 67%, 90%, 99% central
#: intervals and the median).
DEFAULT_QUANTILES: tuple[float, ...] = (
    0.005, 0.025, 0.165, 0.25, 0.5, 0.75, 0.835, 0.975, 0.995,
)


def _prepare(samples: np.ndarray, y: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(samples, dtype=float)
    if x.ndim == 0 or x.shape[0] < 1:
        raise ForecastError("samples need a first (draw) axis with at least one draw")
    obs = np.broadcast_to(np.asarray(y, dtype=float), x.shape[1:])
    return x, obs


def crps_samples(samples: np.ndarray, y: np.ndarray | float) -> np.ndarray:
    """CRPS of the empirical distribution of ``samples`` at observation ``y``.

    Parameters
    ----------
    samples
        Array (draws, ...) of forecast samples.
    y
        Observation(s), broadcastable to ``samples.shape[1:]``.

    Returns
    -------
    numpy.ndarray
        CRPS per observation (shape ``samples.shape[1:]``), in the units of ``y``.

    Notes
    -----
    ``E|X - X'|`` over all ordered pairs equals ``2 / n**2 * sum_i (2 i - n - 1) x_(i)`` for
    sorted samples ``x_(1) <= ... <= x_(n)``: no n x n matrix is needed.
    """
    x, obs = _prepare(samples, y)
    n = x.shape[0]
    term1 = np.abs(x - obs).mean(axis=0)
    ordered = np.sort(x, axis=0)
    weights = (2.0 * np.arange(1, n + 1) - n - 1).reshape((n,) + (1,) * (x.ndim - 1))
    term2 = (weights * ordered).sum(axis=0) / n**2
    return term1 - term2


def pinball_loss(
    samples: np.ndarray, y: np.ndarray | float, quantiles: Sequence[float] = DEFAULT_QUANTILES
) -> np.ndarray:
    """Pinball loss of the sample quantiles at each level in ``quantiles``.

    Returns an array (len(quantiles), ...) with ``max(tau (y - q), (tau - 1) (y - q))``.
    """
    x, obs = _prepare(samples, y)
    levels = np.asarray(quantiles, dtype=float)
    if np.any((levels <= 0) | (levels >= 1)):
        raise ForecastError("quantile levels must be in (0, 1)")
    q = np.quantile(x, levels, axis=0)
    tau = levels.reshape((-1,) + (1,) * (q.ndim - 1))
    diff = obs - q
    return np.maximum(tau * diff, (tau - 1.0) * diff)


def central_interval(samples: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the central ``level`` interval of the samples."""
    if not 0 < level < 1:
        raise ForecastError("level must be in (0, 1)")
    x = np.asarray(samples, dtype=float)
    alpha = 1.0 - level
    lower, upper = np.quantile(x, [alpha / 2, 1 - alpha / 2], axis=0)
    return lower, upper


def coverage(samples: np.ndarray, y: np.ndarray | float, level: float) -> np.ndarray:
    """1.0 where ``y`` lies inside the central ``level`` interval (bounds included), else 0.0."""
    x, obs = _prepare(samples, y)
    lower, upper = central_interval(x, level)
    return ((obs >= lower) & (obs <= upper)).astype(float)


def interval_score(samples: np.ndarray, y: np.ndarray | float, level: float) -> np.ndarray:
    """Interval score of the central ``level`` interval (Gneiting and Raftery 2007, eq. 43).

    ``(u - l) + 2 / alpha * (l - y) * 1{y < l} + 2 / alpha * (y - u) * 1{y > u}`` with
    ``alpha = 1 - level``; lower is better.
    """
    x, obs = _prepare(samples, y)
    lower, upper = central_interval(x, level)
    alpha = 1.0 - level
    below = np.where(obs < lower, lower - obs, 0.0)
    above = np.where(obs > upper, obs - upper, 0.0)
    return (upper - lower) + 2.0 / alpha * (below + above)



def pit(samples: np.ndarray, y: np.ndarray | float) -> np.ndarray:
    """Probability integral transform of ``y`` under the empirical distribution of the samples.

    The mid-rank ``P(X < y) + 0.5 P(X = y)``: deterministic, 0.5 for a point forecast that
    equals the outcome, and uniform on (0, 1) (up to the 1 / draws grid) for calibrated
    forecasts.

    Parameters
    ----------
    samples
        Array (draws, ...) of forecast samples.
    y
        Observation(s), broadcastable to ``samples.shape[1:]``.

    Returns
    -------
    numpy.ndarray
        PIT values in [0, 1], shape ``samples.shape[1:]``.
    """
    x, obs = _prepare(samples, y)
    below = (x < obs).mean(axis=0)
    equal = (x == obs).mean(axis=0)
    return below + 0.5 * equal


def pit_histogram(values: np.ndarray | Sequence[float], bins: int = 10) -> np.ndarray:
    """Counts of PIT values in ``bins`` equal bins of [0, 1] (the last bin holds 1.0).

    Non-finite values are left out. A flat histogram is the sign of calibration; a U shape
    of intervals too narrow, a hump of intervals too wide.
    """
    pits = np.asarray(values, dtype=float).ravel()
    pits = pits[np.isfinite(pits)]
    counts, _ = np.histogram(pits, bins=bins, range=(0.0, 1.0))
    return counts
