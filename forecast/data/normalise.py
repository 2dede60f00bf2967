"""Normalisation done once, so models never repeat it: parsed rows become typed frames.

- revenue stays in USD billions, prices in USD per chip-hour, compute in dense TFLOPS (the
  files are already in these units; the schemas reject values that look like another unit);
- chip names used by the price files are resolved to catalogue names through
  ``chip_aliases.csv`` (the name as recorded is kept in ``chip_as_recorded``);
- each vendor gets its ``vendor_group`` from ``vendor_groups.csv``;
- vendor and hyperscaler fiscal quarters are mapped to the calendar quarter holding most of
  their days (the calendar quarter of the fiscal quarter's midpoint);
- dates given as a year, a month or a quarter become the *end* of that span, so an
  observation is never dated before it could have been made (this keeps ``as_of`` honest);
- pricing types are a pandas Categorical with a fixed set of categories;
- rows with ``confidence == "recalled"`` carry ``recalled = True``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from forecast.core.calendar import fiscal_to_calendar_quarter
from forecast.data.schemas import PRICING_TYPES

__all__ = [
    "accelerators_frame",
    "capex_frame",
    "dated_frame",
    "plain_frame",
    "rental_frame",
    "revenue_frame",
    "silicon_frame",
    "vendor_groups_frame",
]

Rows = list[dict[str, Any]]


def plain_frame(rows: Rows, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """The rows as a frame, with ``recalled`` where the file has a confidence column.

    ``columns`` (the schema's) give a file without rows its columns all the same.
    """
    frame = pd.DataFrame.from_records(rows, columns=list(columns) if columns else None)
    if "confidence" in frame:
        frame["recalled"] = frame["confidence"] == "recalled"
    return frame


def _split_date(frame: pd.DataFrame, column: str) -> None:
    frame[f"{column}_precision"] = [value[1] for value in frame[column]]
    frame[column] = pd.to_datetime([value[0] for value in frame[column]])


def _resolve_chips(frame: pd.DataFrame, aliases: Mapping[str, str]) -> None:
    frame["chip_as_recorded"] = frame["chip"]
    frame["chip"] = [aliases.get(chip, chip) for chip in frame["chip"]]


def accelerators_frame(rows: Rows, vendor_groups: Mapping[str, str]) -> pd.DataFrame:
    """The chip catalogue: launch month, release quarter, vendor group, float specs.

    ``status`` says whether ``release_date`` is a launch (``released``) or the availability
    window a vendor announced (``announced``: dated at the window's last month).
    """
    frame = plain_frame(rows)
    # Release dates are months: keep the first of the month (the launch), not the month end.
    frame["release_date"] = pd.to_datetime(
        [value[0].to_period("M").start_time for value in frame["release_date"]]
    )
    frame["release_quarter"] = frame["release_date"].dt.to_period("Q")
    frame["published"] = pd.to_datetime([value[0] for value in frame["published"]])
    frame.insert(1, "vendor_group", frame["vendor"].map(vendor_groups))
    numeric = [c for c in frame.columns if c.endswith(("_tflops", "_gb", "_tbs", "_w", "_usd"))]
    numeric += ["process_nm", "cloud_on_demand_usd_per_chip_hour"]
    frame[numeric] = frame[numeric].astype(float)
    return frame


def revenue_frame(rows: Rows) -> pd.DataFrame:
    """Segment revenue with its calendar ``quarter`` and ``period_kind`` (quarter or year)."""
    frame = plain_frame(rows)
    for column in ("calendar_quarter_end", "published_date"):
        frame[column] = pd.to_datetime([value[0] for value in frame[column]])
    frame["period_kind"] = [
        "year" if "(full year)" in segment else "quarter" for segment in frame["segment"]
    ]
    frame["quarter"] = [
        fiscal_to_calendar_quarter(end) if kind == "quarter" else pd.NaT
        for end, kind in zip(frame["calendar_quarter_end"], frame["period_kind"], strict=True)
    ]
    frame["quarter"] = frame["quarter"].astype("period[Q-DEC]")
    frame["revenue_usd_billions"] = frame["revenue_usd_billions"].astype(float)
    return frame


def capex_frame(rows: Rows, columns: Sequence[str]) -> pd.DataFrame:
    """Hyperscaler capex with its calendar ``quarter``; dates as timestamps, capex a float.

    ``columns`` (the schema's) give a file without rows its columns all the same.
    """
    frame = plain_frame(rows, columns)
    for column in ("calendar_quarter_end", "published_date"):
        frame[column] = pd.to_datetime([value[0] for value in frame[column]])
    frame["quarter"] = pd.Series(
        [fiscal_to_calendar_quarter(end) for end in frame["calendar_quarter_end"]],
        index=frame.index, dtype="period[Q-DEC]")
    frame["capex_usd_billions"] = frame["capex_usd_billions"].astype(float)
    return frame


def dated_frame(
    rows: Rows, column: str, aliases: Mapping[str, str] | None = None,
    columns: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Rows dated by ``column`` (with its precision), chips resolved when ``aliases`` given.

    ``columns`` (the schema's) give a file without rows its columns all the same.
    """
    frame = plain_frame(rows, columns)
    _split_date(frame, column)
    if aliases is not None:
        _resolve_chips(frame, aliases)
    return frame


def silicon_frame(rows: Rows) -> pd.DataFrame:
    """Amazon's Trainium statements: ``value`` and its band (if any) as floats."""
    frame = dated_frame(rows, "date")
    for column in ("value", "value_p5", "value_p95"):
        frame[column] = frame[column].astype(float)
    return frame


def rental_frame(rows: Rows, aliases: Mapping[str, str]) -> pd.DataFrame:
    """Rental prices sorted by chip and date, ``pricing_type`` a fixed Categorical."""
    frame = dated_frame(rows, "date", aliases)
    frame["pricing_type"] = pd.Categorical(frame["pricing_type"], categories=PRICING_TYPES)
    frame["usd_per_chip_hour"] = frame["usd_per_chip_hour"].astype(float)
    return frame.sort_values(["chip", "date"], kind="stable").reset_index(drop=True)


def vendor_groups_frame(rows: Rows) -> pd.DataFrame:
    """Vendor -> group, silicon kind and share-model position (nullable integer)."""
    frame = plain_frame(rows)
    frame["share_model_order"] = frame["share_model_order"].astype("Int64")
    return frame
