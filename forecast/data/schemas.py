"""The data files and their schemas: columns, types, required fields and plausible ranges.

Each CSV in ``data/`` has one :class:`FileSchema`: its columns (name, kind, whether a value is
required, the allowed choices and a range check), the column naming a catalogue chip (checked
against ``accelerators.csv`` and ``chip_aliases.csv``) and the key under which two rows are the
same observation. The vocabularies below are the categories the files use, not facts about the
world: the facts (which vendor belongs to which group, which groups design their own silicon)
are rows of ``vendor_groups.csv``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ALIAS_RELATIONS",
    "AWS_SILICON_UNITS",
    "CONFIDENCE_LEVELS",
    "DEFAULT_DATA_DIR",
    "PRICING_TYPES",
    "SCHEMAS",
    "SILICON_KINDS",
    "VALUE_QUALIFIERS",
    "VENDOR_COLUMNS",
    "Column",
    "FileSchema",
]

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "data"

#: Pricing types as recorded in ``gpu_rental_prices.csv``: an explicit category set, so a
#: typo is a validation error rather than a new category.
PRICING_TYPES = (
    "on-demand",
    "1-year commitment",
    "3-year commitment",
    "spot",
    "reserved (Capacity Block, short-term reservation)",
    "market",
    "market/resale",
    "on-demand/market",
    "index (contract)",
)

CONFIDENCE_LEVELS = ("verified", "recalled")
VALUE_QUALIFIERS = ("=", "~", "<", ">")
ALIAS_RELATIONS = ("same", "family", "variant")
AWS_SILICON_UNITS = ("chips", "USD/year (annualized)", "USD billions")
#: ``vendor_groups.csv`` ``silicon``: chips sold to all buyers, or designed by a cloud or
#: platform company for its own data centres (custom silicon, ASICs).
SILICON_KINDS = ("merchant", "custom")


@dataclass(frozen=True)
class Column:
    """One column of a file schema.

    Attributes
    ----------
    name : str
        Header name.
    kind : str
        ``str``, ``float``, ``int``, ``date`` or ``choice``.
    required : bool
        Whether an empty cell is an error.
    choices : tuple of str
        The allowed values of a ``choice`` column.
    check : callable, optional
        Extra predicate on the parsed value, returning an error message or ``None``.
    """

    name: str
    kind: str = "str"
    required: bool = True
    choices: tuple[str, ...] = ()
    check: Callable[[Any], str | None] | None = None


@dataclass(frozen=True)
class FileSchema:
    """Schema of one CSV: its columns, the chip column to resolve and the duplicate key."""

    filename: str
    columns: tuple[Column, ...]
    chip_column: str | None = None
    duplicate_key: tuple[str, ...] = ()


def _positive(value: float) -> str | None:
    return None if value > 0 else f"must be > 0, got {value:g}"


def _between(low: float, high: float, hint: str = "") -> Callable[[float], str | None]:
    def check(value: float) -> str | None:
        if low < value <= high:
            return None
        extra = f" ({hint})" if hint else ""
        return f"must be in ({low:g}, {high:g}], got {value:g}{extra}"

    return check


_price_per_chip_hour = _between(
    0, 50, "USD per chip-hour; an instance price must be divided by its chips"
)
_revenue_billions = _between(0, 1000, "USD billions; a value in millions is 1000x too large")
_tflops = _between(0, 100_000, "dense TFLOPS")
_SOURCE = Column("source")
_CONFIDENCE = Column("confidence", "choice", choices=CONFIDENCE_LEVELS)
_NOTES = Column("notes", required=False)

_ACCELERATORS = FileSchema(
    "accelerators.csv",
    (
        Column("vendor"),
        Column("chip"),
        Column("release_date", "date"),
        Column("process_nm", "float", required=False, check=_between(0, 100)),
        Column("fp8_dense_tflops", "float", required=False, check=_tflops),
        Column("bf16_dense_tflops", "float", check=_tflops),
        Column("fp4_dense_tflops", "float", required=False, check=_tflops),
        Column("hbm_gb", "float", required=False, check=_between(0, 10_000)),
        Column("hbm_bandwidth_tbs", "float", required=False, check=_between(0, 1000)),
        Column("tdp_w", "float", required=False, check=_between(0, 10_000)),
        Column("list_price_usd", "float", required=False, check=_between(0, 1e6)),
        Column(
            "cloud_on_demand_usd_per_chip_hour",
            "float",
            required=False,
            check=_price_per_chip_hour,
        ),
        _NOTES,
        _SOURCE,
        _CONFIDENCE,
    ),
    duplicate_key=("chip",),
)

_CHIP_ALIASES = FileSchema(
    "chip_aliases.csv",
    (
        Column("alias"),
        Column("chip"),
        Column("relation", "choice", choices=ALIAS_RELATIONS),
        _SOURCE,
        _CONFIDENCE,
        _NOTES,
    ),
    chip_column="chip",
    duplicate_key=("alias",),
)

_REVENUE = FileSchema(
    "vendor_quarterly_revenue.csv",
    (
        Column("company"),
        Column("segment"),
        Column("fiscal_period"),
        Column("calendar_quarter_end", "date"),
        Column("revenue_usd_billions", "float", check=_revenue_billions),
        Column("value_qualifier", "choice", choices=VALUE_QUALIFIERS),
        _SOURCE,
        _CONFIDENCE,
        _NOTES,
    ),
    duplicate_key=("company", "segment", "fiscal_period"),
)

_RENTAL_PRICES = FileSchema(
    "gpu_rental_prices.csv",
    (
        Column("date", "date"),
        Column("chip"),
        Column("provider_or_index"),
        Column("usd_per_chip_hour", "float", check=_price_per_chip_hour),
        Column("pricing_type", "choice", choices=PRICING_TYPES),
        _SOURCE,
        _CONFIDENCE,
        _NOTES,
    ),
    chip_column="chip",
    # Same provider, day and type can list several VM sizes at different prices:
    # only a row repeating the price too is a duplicate.
    duplicate_key=(
        "date",
        "chip",
        "provider_or_index",
        "pricing_type",
        "usd_per_chip_hour",
        "source",
    ),
)

_UNIT_PRICES = FileSchema(
    "accelerator_unit_prices.csv",
    (
        Column("date", "date"),
        Column("chip"),
        Column("price_usd_low", "float", check=_between(0, 1e6, "USD per chip")),
        Column("price_usd_high", "float", check=_between(0, 1e6, "USD per chip")),
        Column("price_type"),
        _SOURCE,
        _CONFIDENCE,
        _NOTES,
    ),
    chip_column="chip",
    duplicate_key=("date", "chip", "price_type", "price_usd_low", "price_usd_high", "source"),
)

_AWS_CUSTOM_SILICON = FileSchema(
    "aws_custom_silicon.csv",
    (
        Column("date", "date"),
        Column("metric"),
        Column("value", "float", required=False, check=_positive),
        # The 5th and 95th percentiles of a modelled estimate, in the unit of ``value``.
        Column("value_p5", "float", required=False, check=_positive),
        Column("value_p95", "float", required=False, check=_positive),
        Column("unit", "choice", choices=AWS_SILICON_UNITS),
        Column("value_qualifier"),
        _SOURCE,
        _CONFIDENCE,
        _NOTES,
    ),
    duplicate_key=("date", "metric"),
)

_VOLUMES = FileSchema(
    "epoch_chip_volume_estimates.csv",
    (
        Column("vendor"),
        Column("chip"),
        Column("period_label"),
        Column("start_date", "date"),
        Column("end_date", "date"),
        Column("units_median", "float", check=_positive),
        Column("units_p5", "float", check=_positive),
        Column("units_p95", "float", check=_positive),
        Column("h100e_median", "float", check=_positive),
        Column("h100e_p5", "float", check=_positive),
        Column("h100e_p95", "float", check=_positive),
        _SOURCE,
        _CONFIDENCE,
        _NOTES,
    ),
    chip_column="chip",
    duplicate_key=("chip", "start_date"),
)

_MARKET_ESTIMATES = FileSchema(
    "market_estimates.csv",
    (
        Column("publisher"),
        Column("year_published", "int", check=_between(1990, 2100)),
        Column("target_year", "int", check=_between(1990, 2100)),
        Column("market_definition"),
        Column("value_usd_billions", "float", required=False, check=_positive),
        Column("value_usd_billions_high", "float", required=False, check=_positive),
        Column("share_pct", "float", required=False, check=_between(0, 100)),
        _SOURCE,
        _CONFIDENCE,
        _NOTES,
    ),
    duplicate_key=("publisher", "year_published", "target_year", "market_definition"),
)

_VENDOR_GROUPS = FileSchema(
    "vendor_groups.csv",
    (
        Column("vendor"),
        Column("vendor_group"),
        Column("silicon", "choice", choices=SILICON_KINDS),
        # Position of the group in the share model (1 = the log-ratio reference); empty for
        # groups the share model does not cover.
        Column("share_model_order", "int", required=False, check=_between(0, 100)),
        _SOURCE,
        _CONFIDENCE,
        _NOTES,
    ),
    duplicate_key=("vendor",),
)

#: Every data file, in the order files are read, hashed and reported.
SCHEMAS: dict[str, FileSchema] = {
    schema.filename: schema
    for schema in (
        _ACCELERATORS,
        _CHIP_ALIASES,
        _REVENUE,
        _RENTAL_PRICES,
        _UNIT_PRICES,
        _AWS_CUSTOM_SILICON,
        _VOLUMES,
        _MARKET_ESTIMATES,
        _VENDOR_GROUPS,
    )
}

#: Files whose ``vendor`` column must name a vendor of ``vendor_groups.csv``.
VENDOR_COLUMNS: dict[str, str] = {
    "accelerators.csv": "vendor",
    "epoch_chip_volume_estimates.csv": "vendor",
}
