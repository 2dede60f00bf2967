"""The bounds files (:mod:`forecast.data.schemas_bounds`) as typed tables of a Dataset.

Each table keeps its file's columns, with:

- the publication column (``published``, ``published_date`` in the capex file) a timestamp,
  a month as its last day (the day the figure was surely public; ``Dataset.as_of`` cuts on
  it), and its precision in ``<column>_precision``;
- ``period_start`` the *first* day and ``period_end`` the *last* day of the span they name
  (NaT where the file leaves them empty: no period, or an open end);
- every figure a float (NaN where empty: a one-sided "more than" has no high end);
- ``unit_base``: the ``unit`` without its bracketed qualifier (``GW (at least)`` -> ``GW``),
  for files with a unit;
- in ``capex_annual``, ``value_usd_billions_low`` and ``_high``: the guidance range where
  one is given, else the value (high NaN for a "more than" guide, as its ``definition``
  says), so every funding table has the same two columns;
- ``recalled``, as every table has.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from forecast.data.csv_reader import ParsedFile, span_end, span_start
from forecast.data.normalise import plain_frame
from forecast.data.schemas_bounds import BOUNDS_SCHEMAS, base_unit

__all__ = ["BOUNDS_TABLES", "bounds_tables"]

#: Table name -> (file, publication column), in the order of :data:`BOUNDS_SCHEMAS`.
BOUNDS_TABLES: dict[str, tuple[str, str]] = {
    "buyer_cash_flow": ("buyer_cash_flow.csv", "published"),
    "capex_annual": ("hyperscaler_capex_annual_and_guidance.csv", "published_date"),
    "accelerator_share": ("accelerator_share_of_capex.csv", "published"),
    "power_capacity": ("ai_power_capacity.csv", "published"),
    "dollars_per_gw": ("dollars_per_gw.csv", "published"),
    "packaging_supply": ("packaging_hbm_supply.csv", "published"),
    "bookings": ("bookings_and_deals.csv", "published"),
}


def _dates(values: Any, first_day: bool) -> pd.DatetimeIndex:
    """Parsed dates as timestamps: each span's first or last day, NaT for an empty cell."""
    pick = span_start if first_day else span_end
    return pd.to_datetime([pd.NaT if value is None else pick(value) for value in values])


def _table(parsed: ParsedFile, filename: str, published: str) -> pd.DataFrame:
    schema = next(schema for schema in BOUNDS_SCHEMAS if schema.filename == filename)
    frame = plain_frame(parsed.rows, [column.name for column in schema.columns])
    frame[f"{published}_precision"] = [value[1] for value in frame[published]]
    frame[published] = _dates(frame[published], first_day=False)
    for column in schema.columns:
        if column.name == "period_start":
            frame[column.name] = _dates(frame[column.name], first_day=True)
        elif column.name == "period_end":
            frame[column.name] = _dates(frame[column.name], first_day=False)
        elif column.kind == "float":
            frame[column.name] = pd.to_numeric(frame[column.name], errors="raise").astype(float)
    if "unit" in frame:
        frame["unit_base"] = [base_unit(str(unit)) for unit in frame["unit"]]
    return frame


def bounds_tables(parsed: Mapping[str, ParsedFile]) -> dict[str, pd.DataFrame]:
    """Every bounds table of clean parsed files, by table name (:data:`BOUNDS_TABLES`)."""
    tables = {name: _table(parsed[filename], filename, published)
              for name, (filename, published) in BOUNDS_TABLES.items()}
    capex = tables["capex_annual"]
    # A guide's range where given, else its value: the funding tables share low/high columns.
    capex["value_usd_billions_low"] = np.where(capex["range_low"].notna(), capex["range_low"],
                                               capex["value_usd_billions"])
    capex["value_usd_billions_high"] = np.where(capex["range_high"].notna(),
                                                capex["range_high"], capex["value_usd_billions"])
    # A "more than" guide (its definition says so) bounds capex from below only.
    one_sided = capex["definition"].str.contains("more than", case=False)
    capex.loc[one_sided & capex["range_high"].isna(), "value_usd_billions_high"] = np.nan
    return tables
