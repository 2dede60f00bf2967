"""The price model's math, for numpy arrays and PyTensor tensors alike (no PyMC here)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

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


def log_price_mean(
    launch_log_price: Any,
    type_offset: Any,
    slope: Any,
    age_years: Any,
    cycle_loading: Any,
    cycle: Any,
    vintage_effect: Any = 0.0,
    vintage_gap: Any = 0.0,
) -> Any:
    """Mean log price: ``alpha + offset + slope * age + loading * z + vintage * gap``.

    Broadcasting; ``vintage_gap`` is :func:`vintage_gap` (0 for a vendor's frontier chip), so
    ``vintage_effect`` is the change in log price per log unit the chip falls behind.
    """
    return (launch_log_price + type_offset + slope * age_years + cycle_loading * cycle
            + vintage_effect * vintage_gap)


def annual_change(decay: np.ndarray) -> np.ndarray:
    """Fractional change per year of a log-price slope: ``exp(d) - 1`` (-0.26 for d=-0.30)."""
    return np.expm1(decay)


def frontier_log_tflops(catalogue: pd.DataFrame, vendor_groups: Any, dates: Any) -> np.ndarray:
    """Log dense BF16 TFLOPS of each vendor's frontier chip (its fastest released) at a date.

    Parameters
    ----------
    catalogue
        Rows with ``vendor_group``, ``release_date`` and ``bf16_dense_tflops`` (BF16 because
        every chip has it; FP8 is missing for the older generations).
    vendor_groups, dates
        One vendor group and one date per row asked for (equal lengths).

    Returns
    -------
    numpy.ndarray
        Per row, the log TFLOPS of the vendor's fastest chip released on or before the date;
        NaN when the vendor had released none.
    """
    groups = np.asarray(vendor_groups, dtype=object)
    when = pd.to_datetime(pd.Series(np.asarray(dates))).to_numpy()
    result = np.full(len(groups), np.nan)
    for group in set(groups):
        chips = catalogue[catalogue["vendor_group"] == group]
        release = pd.to_datetime(chips["release_date"]).to_numpy()
        tflops = np.log(chips["bf16_dense_tflops"].to_numpy(float))
        rows = np.flatnonzero(groups == group)
        released = release[None, :] <= when[rows][:, None]
        best = np.where(released, tflops[None, :], -np.inf).max(axis=1, initial=-np.inf)
        result[rows] = np.where(np.isfinite(best), best, np.nan)
    return result


def vintage_gap(frontier_log: np.ndarray, chip_log_tflops: np.ndarray) -> np.ndarray:
    """How far a chip sits behind its vendor's frontier: ``log(frontier / chip)``, >= 0.

    A chip is never behind itself: before its own release (or with no frontier known) the
    gap is 0.
    """
    gap = np.asarray(frontier_log, dtype=float) - np.asarray(chip_log_tflops, dtype=float)
    return np.where(np.isfinite(gap), np.maximum(gap, 0.0), 0.0)


def chip_frontiers(periods: pd.PeriodIndex, chips: list[str], catalogue: pd.DataFrame
                   ) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Each chip's vendor frontier (:func:`frontier_log_tflops`) at every quarter's midpoint
    and, in the last row, at the chip's launch: ``(quarters + 1, chips)``; with the chips'
    vendor groups and their own log dense BF16 TFLOPS."""
    middle = periods.start_time + (periods.end_time - periods.start_time) / 2
    dates = list(middle)
    table = catalogue.reset_index()
    columns, groups, own = [], [], []
    for chip in chips:
        row = catalogue.loc[chip]
        group = row["vendor_group"]
        launch = pd.Timestamp(row["release_date"])
        columns.append(frontier_log_tflops(table, [group] * (len(dates) + 1), dates + [launch]))
        groups.append(group)
        own.append(np.log(float(row["bf16_dense_tflops"])))
    return (np.stack(columns, axis=1) if columns else np.zeros((len(dates) + 1, 0)),
            groups, np.array(own))
