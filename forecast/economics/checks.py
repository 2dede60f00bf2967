"""Argument checks shared by the economics functions.

NaN means "missing" throughout the economics layer: it propagates to a NaN result instead of
raising. Every other impossible value raises :class:`EconomicsInputError`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from forecast.core.errors import ForecastError

__all__ = [
    "EconomicsInputError",
    "FloatOrArray",
    "as_float",
    "broadcast_check",
    "check_fraction",
    "check_non_negative",
    "check_positive",
    "require",
    "require_columns",
    "require_unique_chips",
]

FloatOrArray = npt.NDArray[np.float64] | np.float64


class EconomicsInputError(ForecastError, ValueError):
    """Raised on impossible economic inputs (non-positive TFLOPS, utilisation outside (0, 1]...).

    It is both a :class:`ForecastError` (so the CLI prints it as one line) and a
    :class:`ValueError` (what numpy users expect from a bad argument).
    """


def as_float(name: str, value: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``value`` as a float array; :class:`EconomicsInputError` naming ``name`` otherwise."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise EconomicsInputError(f"{name} must be numeric: {exc}") from None


def require(
    name: str, values: npt.NDArray[np.float64], ok: npt.NDArray[np.bool_], rule: str
) -> None:
    """Raise unless ``ok`` holds wherever ``values`` is not NaN (NaN means "missing" and
    propagates instead of raising)."""
    bad = ~np.isnan(values) & ~ok
    if np.any(bad):
        offenders = values[bad]
        raise EconomicsInputError(
            f"{name} must be {rule}; got {offenders.flat[0]!r} "
            f"({offenders.size} bad value{'s' if offenders.size > 1 else ''})"
        )


def check_positive(name: str, values: npt.NDArray[np.float64]) -> None:
    """Finite and > 0 (NaN allowed)."""
    require(name, values, np.isfinite(values) & (values > 0), "finite and > 0")


def check_non_negative(name: str, values: npt.NDArray[np.float64]) -> None:
    """Finite and >= 0 (NaN allowed)."""
    require(name, values, np.isfinite(values) & (values >= 0), "finite and >= 0")


def check_fraction(name: str, values: npt.NDArray[np.float64]) -> None:
    """In (0, 1] (NaN allowed)."""
    # A utilisation is a share of peak: 0 would make every cost infinite, > 1 is impossible.
    require(name, values, (values > 0) & (values <= 1), "in (0, 1]")


def broadcast_check(**arrays: npt.NDArray[np.float64]) -> None:
    """Raise unless the arrays' shapes broadcast together."""
    try:
        np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k}{v.shape}" for k, v in arrays.items())
        raise EconomicsInputError(f"shapes do not broadcast: {shapes}") from None


def require_columns(frame: pd.DataFrame, columns: list[str], what: str) -> None:
    """Raise unless ``frame`` has every one of ``columns``."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ForecastError(f"{what} is missing column(s): {', '.join(missing)}")


def require_unique_chips(accelerators: pd.DataFrame) -> None:
    """Raise unless the catalogue has one row per chip."""
    duplicated = accelerators["chip"][accelerators["chip"].duplicated()].unique().tolist()
    if duplicated:
        raise ForecastError(f"accelerators must have one row per chip; duplicated: {duplicated}")
