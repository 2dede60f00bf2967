"""Schemas of the files behind the long-horizon bounds: funding, power, supply and bookings.

Seven files copied from the shared turn-2 and turn-3 data (DESIGN section 4, M6; issue #35):
what buyers can fund (``buyer_cash_flow.csv``, ``hyperscaler_capex_annual_and_guidance.csv``,
``accelerator_share_of_capex.csv``), what can be powered (``ai_power_capacity.csv``,
``dollars_per_gw.csv``), what can be packaged (``packaging_hbm_supply.csv``) and what is
booked (``bookings_and_deals.csv``). Every row was published on or before the data's as-of
date: ``published`` (``published_date`` in the capex file) is each file's as-of column, a day
or, where the source gives only a month, ``YYYY-MM``, which counts from the month's last day
(:class:`~forecast.data.schema_types.FileSchema` ``observed``).

``period_start`` and ``period_end`` are this project's reading of each row's period label
(``period``, ``year``, ``start_period``/``end_period``), kept beside it as written in the
source: the span the figure covers, read as the first day of ``period_start`` and the last
day of ``period_end`` (``FY2026 (Jul-2025 to Jun-2026)`` is ``2025-07`` to ``2026-06``, a
year-end capacity ``2025 (end)`` is ``2025-12``; empty where the source states no period or
an open end such as ``2027+``).

No model reads these files yet: a header-only file validates (``needs_rows=False``). Ranges
catch a figure in the wrong unit; they are not facts about the world.
"""

from __future__ import annotations

from collections.abc import Callable

from forecast.data.schema_types import (
    CONFIDENCE,
    NOTES,
    SOURCE,
    Column,
    FileSchema,
    between,
    valid_date,
)

__all__ = [
    "BOOKING_UNITS",
    "BOUNDS_SCHEMAS",
    "CAPEX_METRICS",
    "CASH_FLOW_METRICS",
    "DEAL_VENDORS",
    "PACKAGING_UNITS",
    "POWER_UNITS",
    "base_unit",
]

#: ``buyer_cash_flow.csv`` ``metric``: cash flow statement lines and capex guidance, in
#: USD billions for the row's period (``total_debt``: at the period's end).
CASH_FLOW_METRICS = ("operating_cash_flow", "capex", "capex_cash_paid", "free_cash_flow",
                     "total_debt", "capex_guidance")
#: ``hyperscaler_capex_annual_and_guidance.csv`` ``metric``.
CAPEX_METRICS = ("actual annual capex", "capex guidance", "actual quarterly combined capex",
                 "data-center capex estimate (vendor view)")
#: ``bookings_and_deals.csv`` ``accelerator_vendor``: the accelerator vendor behind the
#: capacity as the source classes it. Not ``vendor_groups.csv``'s groups: ``other`` here is
#: Broadcom's custom accelerators and multi-vendor cloud contracts.
DEAL_VENDORS = ("nvidia", "amd", "google", "aws", "other")
#: Base units (the ``unit`` text before any bracketed qualifier such as "(more than)").
POWER_UNITS = ("TWh", "GW", "GW per week", "% of US electricity", "% of US power demand", "%",
               "USD billions", "x 2022 level")
PACKAGING_UNITS = ("wafers per month", "12-inch wafers per month", "DRAM wafers per month",
                   "wafers per year", "million units", "chips per wafer", "USD billions",
                   "billion Gb", "%", "% per year", "x prior year")
BOOKING_UNITS = ("USD billions", "GW", "million GPUs", "GB200 GPUs", "GB300 GPUs", "MI450 GPUs",
                 "TPUs", "Trainium2 chips")


def base_unit(unit: str) -> str:
    """A unit without its bracketed qualifier: ``GW (at least)`` -> ``GW``."""
    return unit.split(" (", 1)[0].strip()


def _unit_in(units: tuple[str, ...]) -> Callable[[str], str | None]:
    """A check that a ``unit`` names one of ``units`` (a qualifier in brackets may follow)."""

    def check(value: str) -> str | None:
        if base_unit(value) in units:
            return None
        return f"unit must be one of {', '.join(units)} (a qualifier may follow in brackets)"

    return check


# Plausible ranges: why a value outside each is wrong is part of its message.
_buyer_billions = between(
    -1000, 1000, "USD billions of one company and period; free cash flow may be negative; the "
    "largest figure is 136 (Microsoft's FY2025 operating cash flow), so 1,000 is a value in "
    "millions")
_capex_billions = between(
    0, 5000, "USD billions a year; the largest is NVIDIA's view of 600 for all hyperscalers "
    "in 2025, so 5,000 is a value in millions")
_share_pct = between(0, 100, "a percentage of capex; a fraction must be multiplied by 100")
_power_value = between(
    0, 10_000, "GW, TWh, % or USD billions by unit; the largest is 2,600 GW of US grid queue, "
    "so 10,000 is a value in MW or GWh")
_per_gw_billions = between(
    0, 500, "USD billions per GW of AI data-centre capacity; the figures run 13-60, so 500 is "
    "a value per MW in millions or a total not divided by GW")
_packaging_value = between(
    0, 1e7, "wafers, million units, USD billions or % by unit; the largest is 1,000,000 "
    "CoWoS wafers a year, so 10 million is a miscount (dies for wafers)")
_booking_quantity = between(
    0, 1e7, "USD billions, GW or chips by unit; the largest is 1,000,000 TPUs, so 10 million "
    "is a value in another unit (dollars for billions)")

#: The span a row's period label covers, as this project reads it (see the module doc).
_PERIOD = (Column("period_start", "date", required=False, check=valid_date),
           Column("period_end", "date", required=False, check=valid_date))
_PERIOD_ORDER = ("period_start", "period_end")

_BUYER_CASH_FLOW = FileSchema(
    "buyer_cash_flow.csv",
    (
        Column("published", "date", check=valid_date),
        Column("company"),
        Column("period"),
        *_PERIOD,
        Column("metric", "choice", choices=CASH_FLOW_METRICS),
        # Empty for a qualitative statement ("notably larger"), whose words are in notes.
        Column("value_usd_billions_low", "float", required=False, check=_buyer_billions),
        Column("value_usd_billions_high", "float", required=False, check=_buyer_billions),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("company", "period", "metric", "published"),
    observed="published",
    needs_rows=False,
    ordered=(("value_usd_billions_low", "value_usd_billions_high"), _PERIOD_ORDER),
)

_CAPEX_ANNUAL = FileSchema(
    "hyperscaler_capex_annual_and_guidance.csv",
    (
        Column("company"),
        Column("period"),
        *_PERIOD,
        Column("metric", "choice", choices=CAPEX_METRICS),
        # A guidance range's midpoint; the range is range_low..range_high.
        Column("value_usd_billions", "float", check=_capex_billions),
        Column("range_low", "float", required=False, check=_capex_billions),
        Column("range_high", "float", required=False, check=_capex_billions),
        # As the company reports it: cash or including finance leases, gross or net.
        Column("definition"),
        Column("published_date", "date", check=valid_date),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("company", "period", "metric", "definition", "published_date"),
    observed="published_date",
    needs_rows=False,
    ordered=(("range_low", "range_high"), _PERIOD_ORDER),
)

_ACCELERATOR_SHARE = FileSchema(
    "accelerator_share_of_capex.csv",
    (
        Column("published", "date", check=valid_date),
        Column("who"),
        # What the share is of (one AI site, all data-centre capex, a company's capex).
        Column("scope"),
        Column("component"),
        Column("share_pct_low", "float", check=_share_pct),
        # Empty for a one-sided statement ("more than").
        Column("share_pct_high", "float", required=False, check=_share_pct),
        Column("period"),
        *_PERIOD,
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("who", "scope", "component", "published"),
    observed="published",
    needs_rows=False,
    ordered=(("share_pct_low", "share_pct_high"), _PERIOD_ORDER),
)

_POWER = FileSchema(
    "ai_power_capacity.csv",
    (
        Column("published", "date", check=valid_date),
        Column("publisher"),
        # global, US, North America, company, company (single training site).
        Column("scope"),
        Column("metric"),
        # The year (or years) the figure is for, as the source gives it; may be empty.
        Column("year", required=False),
        *_PERIOD,
        Column("value_low", "float", check=_power_value),
        Column("value_high", "float", required=False, check=_power_value),
        Column("unit", check=_unit_in(POWER_UNITS)),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("publisher", "scope", "metric", "year", "published"),
    observed="published",
    needs_rows=False,
    ordered=(("value_low", "value_high"), _PERIOD_ORDER),
)

_DOLLARS_PER_GW = FileSchema(
    "dollars_per_gw.csv",
    (
        Column("published", "date", check=valid_date),
        Column("who"),
        # All-in capex per GW, and the accelerator (or vendor) part of it; either may be empty.
        Column("total_usd_billions_per_gw_low", "float", required=False, check=_per_gw_billions),
        Column("total_usd_billions_per_gw_high", "float", required=False,
               check=_per_gw_billions),
        Column("accelerator_usd_billions_per_gw_low", "float", required=False,
               check=_per_gw_billions),
        Column("accelerator_usd_billions_per_gw_high", "float", required=False,
               check=_per_gw_billions),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("who", "published"),
    observed="published",
    needs_rows=False,
    ordered=(("total_usd_billions_per_gw_low", "total_usd_billions_per_gw_high"),
             ("accelerator_usd_billions_per_gw_low", "accelerator_usd_billions_per_gw_high")),
)

_PACKAGING = FileSchema(
    "packaging_hbm_supply.csv",
    (
        Column("published", "date", check=valid_date),
        Column("publisher"),
        Column("metric"),
        Column("period"),
        *_PERIOD,
        Column("value_low", "float", check=_packaging_value),
        Column("value_high", "float", required=False, check=_packaging_value),
        Column("unit", check=_unit_in(PACKAGING_UNITS)),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("publisher", "metric", "period", "published"),
    observed="published",
    needs_rows=False,
    ordered=(("value_low", "value_high"), _PERIOD_ORDER),
)

_BOOKINGS = FileSchema(
    "bookings_and_deals.csv",
    (
        Column("published", "date", check=valid_date),
        Column("buyer"),
        Column("supplier"),
        Column("accelerator_vendor", "choice", choices=DEAL_VENDORS),
        Column("quantity", "float", check=_booking_quantity),
        Column("unit", check=_unit_in(BOOKING_UNITS)),
        # Delivery window as the source gives it ("2026-H2", "2027+"); may be empty.
        Column("start_period", required=False),
        Column("end_period", required=False),
        *_PERIOD,
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("buyer", "supplier", "unit", "published"),
    observed="published",
    needs_rows=False,
    ordered=(_PERIOD_ORDER,),
)

#: The bounds files, in the order they are read and reported.
BOUNDS_SCHEMAS: tuple[FileSchema, ...] = (
    _BUYER_CASH_FLOW, _CAPEX_ANNUAL, _ACCELERATOR_SHARE, _POWER, _DOLLARS_PER_GW, _PACKAGING,
    _BOOKINGS,
)
