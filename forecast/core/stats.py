"""Small statistical helpers shared by every layer: band to log-sd, AR(1) paths.

Pure numpy (and, where noted, PyTensor through the same arithmetic).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from forecast.core.errors import ForecastError
from forecast.core.special import ndtri


def lognormal_sigma_from_band(lower: Any, upper: Any, coverage: float) -> Any:
    """Log-sd of a lognormal whose central ``coverage`` interval is ``[lower, upper]``.

    ``(log upper - log lower) / (2 z)`` with ``z`` the standard normal quantile of
    ``(1 + coverage) / 2``: a 5-95% band is ``coverage = 0.9`` (z = 1.645), a 10-90% band
    ``coverage = 0.8`` (z = 1.2816). Works elementwise on arrays.
    """
    if not 0.0 < coverage < 1.0:
        raise ForecastError(f"coverage must be in (0, 1), got {coverage}")
    z = float(ndtri(0.5 + coverage / 2.0))
    return (np.log(upper) - np.log(lower)) / (2.0 * z)


def simulate_ar1(rho: np.ndarray, sigma: np.ndarray, start: np.ndarray, steps: int,
                 rng: np.random.Generator) -> np.ndarray:
    """AR(1) paths ``x_t = rho x_{t-1} + sigma e_t`` continuing from ``start``.

    ``rho``, ``sigma`` and ``start`` are per path (shape ``(draws,)``, or scalars for rho and
    sigma); returns ``(draws, steps)``. One standard normal vector per step, drawn in step
    order, so a path's noise does not depend on the horizon asked for.
    """
    draws = np.asarray(start).shape[0]
    paths = np.empty((draws, steps))
    current = np.asarray(start, dtype=float)
    for step in range(steps):
        current = rho * current + sigma * rng.standard_normal(draws)
        paths[:, step] = current
    return paths
