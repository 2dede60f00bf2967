"""Forecast inputs of the share model checked and aligned: cost paths, quarters, per-draw
scenario levers and supply caps (numpy and xarray only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from forecast.core.calendar import period_index, quarter_index, quarter_label, quarters_from
from forecast.core.errors import ForecastError


def requested_quarters(quarters: int | Sequence[str], last_fitted: str) -> list[str]:
    """Labels of the requested quarters: the h after ``last_fitted``, or as given."""
    if isinstance(quarters, int | np.integer):
        if quarters <= 0:
            raise ForecastError(f"quarters must be > 0, got {quarters}")
        return quarters_from(quarter_label(quarter_index(last_fitted) + 1), int(quarters))
    if isinstance(quarters, str):
        raise ForecastError(f"quarters must be an int or a sequence of labels, got "
                            f"{quarters!r}")
    labels = [quarter_label(period_index(q)) for q in quarters]
    numbers = [quarter_index(q) for q in labels]
    if not labels or any(b - a != 1 for a, b in zip(numbers, numbers[1:], strict=False)):
        raise ForecastError("forecast quarters must be consecutive")
    return labels


def align_costs(cost_paths: Any, model_vendors: Sequence[str], draws: int,
                labels: Sequence[str], vendors: Sequence[str] | None) -> np.ndarray:
    """Costs ``(draws, quarter, vendor)`` of ``labels`` in model vendor order.

    ``cost_paths`` is an xarray DataArray (draw, quarter, vendor) with labels, or a numpy
    array with exactly ``labels`` and ``vendors``; its draw axis has length 1 or ``draws``.
    """
    model_vendors = list(model_vendors)
    if isinstance(cost_paths, xr.DataArray):
        missing = sorted(set(model_vendors) - {str(v) for v in cost_paths["vendor"].values})
        if missing:
            raise ForecastError(f"cost_paths lack vendors {missing}")
        ordered = cost_paths.sel(vendor=model_vendors).transpose("draw", "quarter", "vendor")
        have = [str(q) for q in ordered["quarter"].values]
        absent = [q for q in labels if q not in have]
        if absent:
            raise ForecastError(f"cost_paths lack quarters {absent}")
        values = ordered.values.astype(float)[:, [have.index(q) for q in labels]]
    else:
        values = np.asarray(cost_paths, dtype=float)
        if vendors is None:
            raise ForecastError("a numpy cost_paths needs quarters= and vendors=")
        if values.ndim != 3 or values.shape[1:] != (len(labels), len(vendors)):
            raise ForecastError(f"cost_paths must have shape (draw, {len(labels)}, "
                                f"{len(vendors)}), got {values.shape}")
        missing = sorted(set(model_vendors) - set(vendors))
        if missing:
            raise ForecastError(f"cost_paths lack vendors {missing}")
        values = values[:, :, [list(vendors).index(v) for v in model_vendors]]
    if values.shape[0] not in (1, draws):
        raise ForecastError(f"cost_paths has {values.shape[0]} draws; need 1 or {draws}")
    if not np.all(np.isfinite(values) & (values > 0)):
        raise ForecastError("cost_paths must be finite and > 0 for every vendor and quarter")
    return np.broadcast_to(values, (draws,) + values.shape[1:])


def per_draw(value: Any, draws: int, name: str) -> np.ndarray:
    """A scalar or a ``(draws,)`` array as a ``(draws,)`` float array."""
    array = np.asarray(value, dtype=float)
    if array.ndim == 0:
        return np.full(draws, float(array))
    if array.shape != (draws,):
        raise ForecastError(f"{name} must be a scalar or have shape ({draws},), got "
                            f"{array.shape}")
    return array


def cap_matrix(supply_caps: Mapping[str, Any] | None, vendors: Sequence[str],
               draws: int) -> np.ndarray | None:
    """Supply caps as ``(draws, 1, K)`` maximum target shares (``inf``: no cap), or None."""
    if not supply_caps:
        return None
    unknown = sorted(set(supply_caps) - set(vendors))
    if unknown:
        raise ForecastError(f"supply caps for unknown vendors: {unknown}")
    caps = np.full((draws, len(vendors)), np.inf)
    for vendor, value in supply_caps.items():
        caps[:, list(vendors).index(vendor)] = per_draw(value, draws, "supply cap")
    return caps[:, None, :]


def start_ratios(start: Any, draws: int, rivals: int) -> np.ndarray:
    """Given log-ratios of the quarter before the forecast as ``(draws, rivals)``."""
    values = np.asarray(start, dtype=float)
    if values.shape not in ((rivals,), (draws, rivals)):
        raise ForecastError(f"start_log_ratios must have shape ({rivals},) or "
                            f"({draws}, {rivals}), got {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ForecastError("start_log_ratios must be finite")
    return np.broadcast_to(values, (draws, rivals)).copy()
