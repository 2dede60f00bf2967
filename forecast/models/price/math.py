"""The price model's math, for numpy arrays and PyTensor tensors alike."""

from __future__ import annotations

from typing import Any

import numpy as np

NOISE_DOF = 4.0


def ar1_loading_matrix(rho: Any, n: int) -> Any:
    """Matrix L with ``z = sigma * L @ eps`` a stationary AR(1) path for standard normal eps.

    ``L[t, s] = rho**(t - s)`` for ``s <= t`` (0 above the diagonal), with the first column
    divided by ``sqrt(1 - rho**2)`` so that ``z_0`` starts from the stationary distribution.
    Works on numpy arrays and PyTensor tensors alike (only arithmetic is used).
    """
    t = np.arange(n)[:, None]
    s = np.arange(n)[None, :]
    lag = np.maximum(t - s, 0)
    lower = (t >= s).astype(float)
    first = np.zeros((1, n))
    first[0, 0] = 1.0
    powers = rho**lag * lower
    scale = 1.0 + first * ((1.0 - rho**2) ** -0.5 - 1.0)
    return powers * scale


def detrend_matrix(n: int) -> np.ndarray:
    """Projection removing a constant and a linear trend from a length-``n`` series."""
    design = np.column_stack([np.ones(n), np.arange(n) - (n - 1) / 2])
    return np.eye(n) - design @ np.linalg.solve(design.T @ design, design.T)


def log_price_mean(
    launch_log_price: np.ndarray,
    type_offset: np.ndarray,
    slope: np.ndarray,
    age_years: np.ndarray,
    cycle_loading: np.ndarray,
    cycle: np.ndarray,
) -> np.ndarray:
    """Mean log price: ``alpha + offset + slope * age + loading * z`` (broadcasting)."""
    return launch_log_price + type_offset + slope * age_years + cycle_loading * cycle


def annual_change(decay: np.ndarray) -> np.ndarray:
    """Fractional change per year of a log-price slope: ``exp(d) - 1`` (-0.26 for d=-0.30)."""
    return np.expm1(decay)


