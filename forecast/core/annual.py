"""The one annual aggregation: calendar-year values of quarterly sample paths."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np


def annual_values(array: np.ndarray, labels: Sequence[str],
                  how: str = "sum") -> tuple[list[str], np.ndarray]:
    """Calendar-year values of ``(draw, quarter, ...)`` paths: ``(draw, year, ...)``.

    Only years with all four quarters count; ``how`` is "sum" (NaN counts as 0, as in
    xarray's ``sum``), "mean" (NaN skipped) or "last" (the fourth quarter's value: a stock
    at the year's end, or a run rate). Returns the year labels and the values.
    """
    if how not in ("sum", "mean", "last"):
        raise ValueError(f"how must be 'sum', 'mean' or 'last', got {how!r}")
    position = {str(label): i for i, label in enumerate(labels)}
    years = sorted({str(label)[:4] for label in labels})
    complete = [y for y in years if all(f"{y}Q{k}" in position for k in range(1, 5))]
    pieces = []
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
        for year in complete:
            window = array[:, [position[f"{year}Q{k}"] for k in range(1, 5)]]
            if how == "last":
                pieces.append(window[:, -1])
            else:
                pieces.append(np.nansum(window, axis=1) if how == "sum"
                              else np.nanmean(window, axis=1))
    if not pieces:
        return [], array[:, :0]
    return complete, np.stack(pieces, axis=1)
