"""Throughput and price-performance: dense TFLOPS per chip, effective PFLOPS, cost per PFLOP-hour.

Units
-----
- Throughput: *dense* peak TFLOPS as stored in the data (never sparse headline figures);
  1 PFLOPS = 1000 TFLOPS.
- Utilisation: model-FLOP utilisation (MFU), a fraction in (0, 1]. It is a scenario input per
  vendor group because software maturity differs by vendor.
- Effective PFLOPS = dense PFLOPS x utilisation: the throughput a workload actually gets.
- Cost per effective PFLOP-hour: US dollars for one hour of one achieved PFLOP/s, i.e. the
  price of a chip-hour divided by the chip's effective PFLOPS.

Every array function broadcasts, so the same call works for one point estimate or for a
``(draws, chips)`` array of scenario draws.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.economics.checks import (
    FloatOrArray,
    as_float,
    broadcast_check,
    check_fraction,
    check_non_negative,
    check_positive,
    require_columns,
    require_unique_chips,
)

__all__ = [
    "PRECISIONS",
    "cost_per_effective_pflop_hour",
    "dense_tflops_for",
    "effective_pflops",
    "normalise_precision",
]

# A unit conversion.
_TFLOPS_PER_PFLOPS: Final = 1000.0

PRECISIONS: Final = ("auto", "fp8", "bf16")
_PRECISION_COLUMNS: Final = {"fp8": "fp8_dense_tflops", "bf16": "bf16_dense_tflops"}


def effective_pflops(dense_tflops: npt.ArrayLike, utilisation: npt.ArrayLike) -> FloatOrArray:
    """Effective throughput: dense PFLOPS times model-FLOP utilisation.

    Parameters
    ----------
    dense_tflops : array_like
        Dense peak TFLOPS (e.g. shape ``(chips,)``); NaN propagates.
    utilisation : array_like
        Model-FLOP utilisation in (0, 1] (e.g. shape ``(draws, chips)`` or ``(draws, 1)``).

    Returns
    -------
    numpy.ndarray or numpy.float64
        ``dense_tflops / 1000 * utilisation`` in PFLOPS, broadcast over the inputs.

    Raises
    ------
    EconomicsInputError
        If a non-NaN TFLOPS is not finite and positive, a non-NaN utilisation is outside
        (0, 1], or the shapes do not broadcast.
    """
    tflops = as_float("dense_tflops", dense_tflops)
    util = as_float("utilisation", utilisation)
    check_positive("dense_tflops", tflops)
    check_fraction("utilisation", util)
    broadcast_check(dense_tflops=tflops, utilisation=util)
    return tflops / _TFLOPS_PER_PFLOPS * util


def cost_per_effective_pflop_hour(
    price_usd_per_chip_hour: npt.ArrayLike,
    dense_tflops: npt.ArrayLike,
    utilisation: npt.ArrayLike,
) -> FloatOrArray:
    """Dollars per hour of one *achieved* PFLOP/s: price / (dense PFLOPS x utilisation).

    Parameters
    ----------
    price_usd_per_chip_hour : array_like
        Price of one chip-hour in USD; NaN (no price) propagates to a NaN cost.
    dense_tflops : array_like
        Dense peak TFLOPS at the precision compared; NaN propagates.
    utilisation : array_like
        Model-FLOP utilisation in (0, 1].

    Returns
    -------
    numpy.ndarray or numpy.float64
        Cost per effective PFLOP-hour, broadcast over the three inputs
        (e.g. ``(draws, chips)`` from prices ``(draws, chips)``, TFLOPS ``(chips,)`` and
        utilisation ``(draws, 1)``).

    Raises
    ------
    EconomicsInputError
        (a ``ValueError``) on a negative or infinite price, non-positive TFLOPS, utilisation
        outside (0, 1] (NaN values excepted), or shapes that do not broadcast.
    """
    price = as_float("price_usd_per_chip_hour", price_usd_per_chip_hour)
    check_non_negative("price_usd_per_chip_hour", price)
    throughput = np.asarray(effective_pflops(dense_tflops, utilisation))
    broadcast_check(price_usd_per_chip_hour=price, effective_pflops=throughput)
    return price / throughput


def normalise_precision(precision: str) -> str:
    """``precision`` lower-cased and checked against :data:`PRECISIONS`."""
    if not isinstance(precision, str) or precision.strip().lower() not in PRECISIONS:
        raise ForecastError(f"precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    return precision.strip().lower()


def dense_tflops_for(
    accelerators: pd.DataFrame, precision: str = "auto"
) -> tuple[pd.Series, pd.Series]:
    """Dense TFLOPS per chip at the requested precision.

    Parameters
    ----------
    accelerators : pandas.DataFrame
        One row per chip with ``chip``, ``fp8_dense_tflops`` and ``bf16_dense_tflops``
        (already dense figures).
    precision : {"auto", "fp8", "bf16"}
        ``"auto"``: FP8 where the chip has an FP8 figure, else BF16 (older chips without FP8
        units are still compared, at the rate they actually run). ``"fp8"``/``"bf16"``: that
        column only, NaN where the chip has no figure (the caller reports it).

    Returns
    -------
    tflops : pandas.Series
        Float TFLOPS indexed by chip, named ``dense_tflops``.
    precision_used : pandas.Series
        Indexed by chip, named ``precision_used``: the column each value was read from
        (``"fp8"`` or ``"bf16"``). Where ``tflops`` is NaN it names the column that was empty
        (under ``"auto"``, ``"bf16"``: neither figure exists).

    Raises
    ------
    ForecastError
        On an unknown precision, missing columns or duplicated chips.
    """
    mode = normalise_precision(precision)
    needed = list(_PRECISION_COLUMNS.values()) if mode == "auto" else [_PRECISION_COLUMNS[mode]]
    require_columns(accelerators, ["chip", *needed], "accelerators")
    require_unique_chips(accelerators)
    index = pd.Index(accelerators["chip"], name="chip")

    def column(name: str) -> npt.NDArray[np.float64]:
        return pd.to_numeric(accelerators[name], errors="coerce").to_numpy(dtype=float)

    if mode == "auto":
        fp8 = column(_PRECISION_COLUMNS["fp8"])
        bf16 = column(_PRECISION_COLUMNS["bf16"])
        has_fp8 = ~np.isnan(fp8)
        tflops = np.where(has_fp8, fp8, bf16)
        used = np.where(has_fp8, "fp8", "bf16").tolist()
    else:
        tflops = column(_PRECISION_COLUMNS[mode])
        used = [mode] * len(index)
    return (
        pd.Series(tflops, index=index, name="dense_tflops"),
        pd.Series(used, index=index, name="precision_used", dtype=object),
    )
