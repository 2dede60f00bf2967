"""The per-chip price-performance table: one row per chip, cost per effective PFLOP-hour.

Prices come from the data (``accelerators.csv`` on-demand cloud price) or from a scenario,
labelled with their source; a missing price is never invented.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.economics.checks import EconomicsInputError, require_columns
from forecast.economics.throughput import (
    cost_per_effective_pflop_hour,
    dense_tflops_for,
    effective_pflops,
    normalise_precision,
)

__all__ = ["DATA_PRICE_SOURCE", "economics_table"]

DATA_PRICE_SOURCE: Final = "data: accelerators.csv cloud_on_demand_usd_per_chip_hour"
_NO_PRICE_SOURCE: Final = "none"
_DATA_PRICE_COLUMN: Final = "cloud_on_demand_usd_per_chip_hour"

_TABLE_COLUMNS: Final = [
    "chip",
    "vendor",
    "vendor_group",
    "release_date",
    "precision_used",
    "dense_tflops",
    "utilisation",
    "effective_pflops",
    "price_usd_per_chip_hour",
    "price_source",
    "cost_per_effective_pflop_hour",
    "note",
]


def _validated_utilisation(utilisation_by_group: Mapping[str, float]) -> dict[str, float]:
    out: dict[str, float] = {}
    for group, value in utilisation_by_group.items():
        try:
            u = float(value)
        except (TypeError, ValueError):
            raise EconomicsInputError(
                f"utilisation for group {group!r} must be a number, got {value!r}"
            ) from None
        if not 0.0 < u <= 1.0:
            raise EconomicsInputError(f"utilisation for group {group!r} must be in (0, 1], got {u}")
        out[str(group)] = u
    return out


def _validated_prices(
    prices: Mapping[str, tuple[float, str]] | None, chips: set[str]
) -> dict[str, tuple[float, str]]:
    if prices is None:
        return {}
    out: dict[str, tuple[float, str]] = {}
    for chip, entry in prices.items():
        # A typo in a chip name would otherwise silently leave the data price in place.
        if chip not in chips:
            raise ForecastError(f"price given for unknown chip {chip!r}; known: {sorted(chips)}")
        try:
            value, label = entry
            price = float(value)
        except (TypeError, ValueError):
            raise ForecastError(
                f"price for {chip!r} must be a (USD per chip-hour, source label) pair, "
                f"got {entry!r}"
            ) from None
        if not np.isfinite(price) or price < 0:
            raise EconomicsInputError(f"price for {chip!r} must be finite and >= 0, got {price}")
        if not isinstance(label, str) or not label.strip():
            raise ForecastError(f"price for {chip!r} needs a non-empty source label")
        out[chip] = (price, label)
    return out


def economics_table(
    accelerators: pd.DataFrame,
    utilisation_by_group: Mapping[str, float],
    prices: Mapping[str, tuple[float, str]] | None = None,
    precision: str = "auto",
) -> pd.DataFrame:
    """Price-performance of every chip: one row per chip, cost per effective PFLOP-hour.

    Parameters
    ----------
    accelerators : pandas.DataFrame
        The data layer's accelerator table (one row per chip): needs ``chip``, ``vendor``,
        ``vendor_group``, ``release_date``, the dense TFLOPS columns and
        ``cloud_on_demand_usd_per_chip_hour``; ``recalled`` is used when present.
    utilisation_by_group : Mapping[str, float]
        Model-FLOP utilisation per ``vendor_group`` (a scenario input), each in (0, 1].
        A group absent from the mapping gets NaN cost and a note, never a default.
    prices : Mapping[str, tuple[float, str]], optional
        Per-chip ``(USD per chip-hour, source label)`` that fill or override the data price,
        e.g. ``{"Trainium2": (p, "scenario base: trainium2_price_usd_per_chip_hour
        (median)")}``. The label is copied to ``price_source``.
    precision : {"auto", "fp8", "bf16"}
        See :func:`~forecast.economics.throughput.dense_tflops_for`.

    Returns
    -------
    pandas.DataFrame
        Columns ``chip, vendor, vendor_group, release_date, precision_used, dense_tflops,
        utilisation, effective_pflops, price_usd_per_chip_hour, price_source,
        cost_per_effective_pflop_hour, note``, sorted by vendor then release date (then chip).
        ``note`` explains every NaN ("no price in data or scenario", "no FP8 figure",
        "no utilisation for group X") and flags BF16 fallbacks, price overrides and recalled
        rows; it is ``""`` when there is nothing to say. A missing price is never invented.

    Raises
    ------
    ForecastError
        On missing columns, duplicated chips, a price for an unknown chip, an unknown
        precision, or an out-of-range utilisation, price or TFLOPS figure.
    """
    mode = normalise_precision(precision)
    require_columns(
        accelerators,
        ["chip", "vendor", "vendor_group", "release_date", _DATA_PRICE_COLUMN],
        "accelerators",
    )
    tflops, used = dense_tflops_for(accelerators, mode)
    util_map = _validated_utilisation(utilisation_by_group)
    chips = accelerators["chip"].tolist()
    price_map = _validated_prices(prices, set(chips))
    data_prices = pd.to_numeric(accelerators[_DATA_PRICE_COLUMN], errors="coerce").to_numpy(float)
    groups = accelerators["vendor_group"].tolist()
    recalled = (
        accelerators["recalled"].fillna(False).astype(bool).tolist()
        if "recalled" in accelerators.columns
        else [False] * len(chips)
    )

    n = len(chips)
    price = np.full(n, np.nan)
    util = np.full(n, np.nan)
    sources: list[str] = []
    notes: list[str] = []
    # A per-row loop is fine here: the table has tens of rows; draws go through the array API.
    for i, chip in enumerate(chips):
        note = _throughput_notes(chip, tflops.iloc[i], used.iloc[i], mode)
        if groups[i] in util_map:
            util[i] = util_map[groups[i]]
        else:
            note.append(f"no utilisation for group {groups[i]}")
        price[i], source, price_note = _price_of(chip, data_prices[i], price_map)
        sources.append(source)
        note += price_note
        if recalled[i]:
            note.append("recalled figures: check before relying")
        notes.append("; ".join(note))
    return _table(accelerators, chips, groups, tflops, used, util, price, sources, notes)


def _throughput_notes(chip: str, tflops: float, used: str, mode: str) -> list[str]:
    """Notes on a chip's TFLOPS figure (missing, BF16 fallback); raises on an impossible one."""
    if np.isnan(tflops):
        return ["no FP8 or BF16 figure" if mode == "auto" else f"no {mode.upper()} figure"]
    if tflops <= 0 or not np.isfinite(tflops):
        raise EconomicsInputError(f"{chip}: dense {used} TFLOPS must be > 0, got {tflops}")
    if mode == "auto" and used == "bf16":
        return ["no FP8 figure: BF16 used"]
    return []


def _price_of(
    chip: str, data_price: float, price_map: Mapping[str, tuple[float, str]]
) -> tuple[float, str, list[str]]:
    """A chip's price per chip-hour, its source label and the notes it needs."""
    if chip in price_map:
        value, label = price_map[chip]
        notes = [] if np.isnan(data_price) else [f"replaces data price {data_price:g}"]
        return value, label, notes
    if not np.isnan(data_price):
        if data_price < 0 or not np.isfinite(data_price):
            raise EconomicsInputError(f"{chip}: data price must be >= 0, got {data_price}")
        return data_price, DATA_PRICE_SOURCE, []
    return np.nan, _NO_PRICE_SOURCE, ["no price in data or scenario"]


def _table(
    accelerators: pd.DataFrame,
    chips: list[str],
    groups: list[str],
    tflops: pd.Series,
    used: pd.Series,
    util: np.ndarray,
    price: np.ndarray,
    sources: list[str],
    notes: list[str],
) -> pd.DataFrame:
    """The table's frame, sorted by vendor, release date and chip."""
    tflops_values = tflops.to_numpy(dtype=float)
    throughput = np.asarray(effective_pflops(tflops_values, util), dtype=float)
    cost = np.asarray(cost_per_effective_pflop_hour(price, tflops_values, util), dtype=float)
    table = pd.DataFrame(
        {
            "chip": chips,
            "vendor": accelerators["vendor"].tolist(),
            "vendor_group": groups,
            "release_date": accelerators["release_date"].to_numpy(),
            "precision_used": used.tolist(),
            "dense_tflops": tflops_values,
            "utilisation": util,
            "effective_pflops": throughput,
            "price_usd_per_chip_hour": price,
            "price_source": sources,
            "cost_per_effective_pflop_hour": cost,
            "note": notes,
        },
        columns=_TABLE_COLUMNS,
    )
    return table.sort_values(
        ["vendor", "release_date", "chip"], kind="mergesort", na_position="last"
    ).reset_index(drop=True)
