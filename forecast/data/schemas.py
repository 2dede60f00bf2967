"""The data files and their schemas: columns, types, required fields and plausible ranges.

Each CSV in ``data/`` has one :class:`FileSchema`: its columns (name, kind, whether a value is
required, the allowed choices and a range check), the column naming a catalogue chip (checked
against ``accelerators.csv`` and ``chip_aliases.csv``), the key under which two rows are the
same observation and the column dating when an observation became known (checked against the
data's as-of date, :data:`AS_OF_FILE`). The vocabularies below are the categories the files
use, not facts about the world: the facts (which vendor belongs to which group, which groups
design their own silicon, which price providers are hyperscalers) are rows of
``vendor_groups.csv`` and ``providers.csv``.

Every numeric column has a plausible range, named below with why a value outside it is wrong:
the ranges catch a value in the wrong unit or with a slipped digit, and are wide enough for
every shipped row. They are not facts about chips or markets. The building blocks (a column,
a file schema, a range check, the source and confidence columns) are in
:mod:`forecast.data.schema_types`.
"""

from __future__ import annotations

from pathlib import Path

from forecast.data.schema_types import (
    CONFIDENCE,
    CONFIDENCE_LEVELS,
    DATE_YEARS,
    NOTES,
    SOURCE,
    Column,
    FileSchema,
    between,
    valid_date,
    valid_year,
)
from forecast.data.schemas_bounds import BOUNDS_SCHEMAS

__all__ = [
    "ALIAS_RELATIONS",
    "AS_OF_FILE",
    "AS_OF_SCHEMA",
    "AWS_SILICON_UNITS",
    "AWS_STATEMENT_OBSERVES",
    "AWS_STATEMENT_UNITS",
    "AWS_VALUE_RANGES",
    "CAPEX_SERIES",
    "CHIP_STATUSES",
    "CONFIDENCE_LEVELS",
    "DATE_YEARS",
    "DEFAULT_DATA_DIR",
    "PRICING_TYPES",
    "PROVIDER_CLASSES",
    "PROVIDER_COLUMNS",
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

VALUE_QUALIFIERS = ("=", "~", "<", ">")
ALIAS_RELATIONS = ("same", "family", "variant")
AWS_SILICON_UNITS = ("chips", "USD/year (annualized)", "USD billions")
#: ``aws_statements.csv`` ``observes``: the quantity of the spend model's AWS part (M5)
#: (:mod:`forecast.models.aws_silicon`) a dated Amazon statement is an observation of.
AWS_STATEMENT_OBSERVES = ("rental_run_rate", "trainium2_fleet", "billed_utilisation",
                          "trainium1_list_price")
AWS_STATEMENT_UNITS = ("USD/year (annualized)", "chips", "text", "USD per instance-hour")
#: ``vendor_groups.csv`` ``silicon``: chips sold to all buyers, or designed by a cloud or
#: platform company for its own data centres (custom silicon, ASICs).
SILICON_KINDS = ("merchant", "custom")
#: ``providers.csv`` ``provider_class``: one of the large general-purpose clouds (whose GPU
#: prices are a published list), another GPU cloud, a platform on which third parties rent
#: out GPUs, or not one provider at all (an index or a reported market-wide price).
PROVIDER_CLASSES = ("hyperscaler", "neocloud", "marketplace", "index")


# Plausible ranges: why a value outside each is wrong is part of its message.
_price_per_chip_hour = between(
    0, 50, "USD per chip-hour; an instance price must be divided by its chips"
)
_revenue_billions = between(0, 1000, "USD billions; a value in millions is 1000x too large")
_tflops = between(0, 100_000, "dense TFLOPS; 100,000 is 6x the highest FP4 figure in the data")
_chip_usd = between(0, 1e6, "USD per chip; a server's or a cluster's price is not a chip's")
_process_nm = between(0, 100, "process node in nm; a value in angstroms or pm is too large")
_hbm_gb = between(0, 10_000, "GB of HBM per chip; a value in MB is 1000x too large")
_hbm_tbs = between(0, 1000, "TB/s of HBM bandwidth per chip; a value in GB/s is 1000x too large")
_tdp_w = between(0, 10_000, "watts per chip; a rack's or a server's power is not a chip's")
_market_billions = between(0, 100_000, "USD billions; a value in millions is 1000x too large")
_percent = between(0, 100, "a percentage; a fraction in [0, 1] must be multiplied by 100")
_position = between(0, 100, "a position in the spend model: 1, 2, 3...")

#: ``aws_custom_silicon.csv`` ``value``, ``value_p5`` and ``value_p95`` by ``unit``:
#: ``(low, high, why)``, a value in ``(low, high]``.
AWS_VALUE_RANGES: dict[str, tuple[float, float, str]] = {
    "chips": (0, 1e9, "a chip count; a billion is over 400x the largest figure in the data"),
    "USD/year (annualized)": (0, 1e13, "USD a year; ten trillion is no accelerator business"),
    "USD billions": (0, 10_000, "USD billions; a value in millions is 1000x too large"),
}
_aws_value = between(0, max(high for _, high, _ in AWS_VALUE_RANGES.values()),
                     "see AWS_VALUE_RANGES for the range of each unit")

#: ``accelerators.csv`` ``status``: on sale (or in service) by the data's as-of date, with
#: its release month and its vendor's specifications; or announced by then and not yet
#: released, with the announced specifications (figures the announcement does not give are
#: derived in ``notes`` or left empty) and, as ``release_date``, the availability window the
#: vendor announced (a quarter or a year), never a release observed later.
CHIP_STATUSES = ("released", "announced")

_ACCELERATORS = FileSchema(
    "accelerators.csv",
    (
        Column("vendor"),
        Column("chip"),
        # Released: the launch month. Announced: the announced window (not an observation).
        Column("release_date", "date", check=valid_date),
        Column("status", "choice", choices=CHIP_STATUSES),
        # When the row's figures were public: the release month of a released chip (its
        # specifications were published by launch at the latest), the announcement's date
        # (or the latest presentation whose figure the row uses) for an announced one.
        Column("published", "date", check=valid_date),
        Column("process_nm", "float", required=False, check=_process_nm),
        Column("fp8_dense_tflops", "float", required=False, check=_tflops),
        Column("bf16_dense_tflops", "float", check=_tflops),
        Column("fp4_dense_tflops", "float", required=False, check=_tflops),
        Column("hbm_gb", "float", required=False, check=_hbm_gb),
        Column("hbm_bandwidth_tbs", "float", required=False, check=_hbm_tbs),
        Column("tdp_w", "float", required=False, check=_tdp_w),
        Column("list_price_usd", "float", required=False, check=_chip_usd),
        Column(
            "cloud_on_demand_usd_per_chip_hour",
            "float",
            required=False,
            check=_price_per_chip_hour,
        ),
        NOTES,
        SOURCE,
        CONFIDENCE,
    ),
    duplicate_key=("chip",),
    observed="published",
)

_CHIP_ALIASES = FileSchema(
    "chip_aliases.csv",
    (
        Column("alias"),
        Column("chip"),
        Column("relation", "choice", choices=ALIAS_RELATIONS),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    chip_column="chip",
    duplicate_key=("alias",),
    # Data naming every chip as the catalogue does need no alias.
    needs_rows=False,
)

_REVENUE = FileSchema(
    "vendor_quarterly_revenue.csv",
    (
        Column("company"),
        Column("segment"),
        Column("fiscal_period"),
        Column("calendar_quarter_end", "date", check=valid_date),
        # When the figure was public: the earnings release of its quarter (or the statement's
        # day). Usually weeks after the quarter ends; a "less than" statement about a year
        # (Intel's Gaudi) may precede the year's end, so the two are not ordered here.
        Column("published_date", "date", check=valid_date),
        Column("revenue_usd_billions", "float", check=_revenue_billions),
        Column("value_qualifier", "choice", choices=VALUE_QUALIFIERS),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("company", "segment", "fiscal_period"),
    observed="published_date",
)

_RENTAL_PRICES = FileSchema(
    "gpu_rental_prices.csv",
    (
        Column("date", "date", check=valid_date),
        Column("chip"),
        Column("provider_or_index"),
        Column("usd_per_chip_hour", "float", check=_price_per_chip_hour),
        Column("pricing_type", "choice", choices=PRICING_TYPES),
        SOURCE,
        CONFIDENCE,
        NOTES,
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
    observed="date",
)

_UNIT_PRICES = FileSchema(
    "accelerator_unit_prices.csv",
    (
        Column("date", "date", check=valid_date),
        Column("chip"),
        Column("price_usd_low", "float", check=_chip_usd),
        Column("price_usd_high", "float", check=_chip_usd),
        Column("price_type"),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    chip_column="chip",
    duplicate_key=("date", "chip", "price_type", "price_usd_low", "price_usd_high", "source"),
    observed="date",
)

_AWS_CUSTOM_SILICON = FileSchema(
    "aws_custom_silicon.csv",
    (
        Column("date", "date", check=valid_date),
        Column("metric"),
        # Checked against the range of the row's unit (AWS_VALUE_RANGES) across the row.
        Column("value", "float", required=False, check=_aws_value),
        # The 5th and 95th percentiles of a modelled estimate, in the unit of ``value``.
        Column("value_p5", "float", required=False, check=_aws_value),
        Column("value_p95", "float", required=False, check=_aws_value),
        Column("unit", "choice", choices=AWS_SILICON_UNITS),
        Column("value_qualifier"),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("date", "metric"),
    observed="date",
)

_AWS_STATEMENTS = FileSchema(
    "aws_statements.csv",
    (
        Column("date", "date", check=valid_date),
        Column("metric"),
        Column("observes", "choice", choices=AWS_STATEMENT_OBSERVES),
        # Empty for a qualitative statement (its phrase is the value_qualifier).
        Column("value", "float", required=False, check=between(
            0, 1e13, "chips, USD a year or USD per instance-hour; ten trillion is no figure "
            "of this file")),
        Column("unit", "choice", choices=AWS_STATEMENT_UNITS),
        Column("chips_per_instance", "int", required=False, check=between(
            0, 1024, "accelerators in one instance; an instance has at most a few dozen")),
        # ``=``, ``~``, ``<``, ``>`` or the phrase of a qualitative statement.
        Column("value_qualifier"),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("date", "metric"),
    observed="date",
)

_MARKET_ESTIMATES = FileSchema(
    "market_estimates.csv",
    (
        Column("publisher"),
        # When the estimate was published: a day, or the month or year the source gives.
        Column("published", "date", check=valid_date),
        Column("target_year", "int", check=valid_year),
        Column("market_definition"),
        Column("value_usd_billions", "float", required=False, check=_market_billions),
        Column("value_usd_billions_high", "float", required=False, check=_market_billions),
        Column("share_pct", "float", required=False, check=_percent),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("publisher", "published", "target_year", "market_definition"),
    observed="published",
    # Context for priors and reports; no computation needs a row.
    needs_rows=False,
)

_VENDOR_GROUPS = FileSchema(
    "vendor_groups.csv",
    (
        Column("vendor"),
        Column("vendor_group"),
        Column("silicon", "choice", choices=SILICON_KINDS),
        # Position of the group in the spend model (1 = the log-ratio reference); empty for
        # groups the spend model does not cover.
        Column("share_model_order", "int", required=False, check=_position),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("vendor",),
)

_PROVIDERS = FileSchema(
    "providers.csv",
    (
        # The name exactly as ``gpu_rental_prices.csv`` records it.
        Column("provider_or_index"),
        Column("provider_class", "choice", choices=PROVIDER_CLASSES),
        # The firm behind the name: regions and instance types of one cloud share it.
        Column("company"),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("provider_or_index",),
)

_ROADMAP = FileSchema(
    "accelerator_roadmap.csv",
    (
        Column("vendor"),
        # The scenario ``[roadmap]`` generation the row supports (empty: context only).
        Column("generation", required=False),
        # As announced (a rack, a package, a family): not a catalogue chip.
        Column("chip"),
        Column("announced_date", "date", check=valid_date),
        Column("expected_availability"),
        Column("claimed_metric"),
        # A number, a year or a phrase, as the announcement gives it; read with ``unit``.
        Column("claimed_value"),
        Column("unit"),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("chip", "announced_date", "claimed_metric", "source"),
    observed="announced_date",
)

_GUIDANCE = FileSchema(
    "vendor_guidance.csv",
    (
        Column("company"),
        # The segment of vendor_quarterly_revenue.csv the guide is for.
        Column("segment"),
        Column("fiscal_period"),
        # End of the guided quarter: after the as-of date for the last guide (a forecast).
        Column("calendar_quarter_end", "date", check=valid_date),
        # The fiscal quarter whose results were released with the guide.
        Column("basis_fiscal_period"),
        Column("guided_usd_billions", "float", check=_revenue_billions),
        Column("range_low", "float", required=False, check=_revenue_billions),
        Column("range_high", "float", required=False, check=_revenue_billions),
        Column("value_qualifier", "choice", choices=VALUE_QUALIFIERS),
        Column("given_date", "date", check=valid_date),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("company", "segment", "fiscal_period", "given_date"),
    observed="given_date",
    # The spend model fits without guidance (it sharpens the next quarter).
    needs_rows=False,
)

#: ``hyperscaler_capex_quarterly.csv`` ``series``: the company's one consistent definition
#: (at most one row a quarter; what a total across companies sums), or another definition or
#: a segment of the same quarter, which is context and never added to it.
CAPEX_SERIES = ("main", "alternative")

_CAPEX = FileSchema(
    "hyperscaler_capex_quarterly.csv",
    (
        Column("company"),
        Column("fiscal_period"),
        Column("calendar_quarter_end", "date", check=valid_date),
        Column("capex_usd_billions", "float", check=between(
            0, 1000, "USD billions a quarter; a value in millions is 1000x too large")),
        # As the company reports it: cash or including finance leases, gross or net.
        Column("definition"),
        Column("series", "choice", choices=CAPEX_SERIES),
        Column("published_date", "date", check=valid_date),
        SOURCE,
        CONFIDENCE,
        NOTES,
    ),
    duplicate_key=("company", "fiscal_period", "definition"),
    observed="published_date",
    # Evidence for the spend model's inputs (benchmarks/capex_lead.py); no model reads it.
    needs_rows=False,
)

#: Every data file, in the order files are read, hashed and reported (the bounds files of
#: :mod:`forecast.data.schemas_bounds` last).
SCHEMAS: dict[str, FileSchema] = {
    schema.filename: schema
    for schema in (
        _ACCELERATORS,
        _CHIP_ALIASES,
        _REVENUE,
        _RENTAL_PRICES,
        _UNIT_PRICES,
        _AWS_CUSTOM_SILICON,
        _MARKET_ESTIMATES,
        _VENDOR_GROUPS,
        _PROVIDERS,
        _AWS_STATEMENTS,
        _ROADMAP,
        _GUIDANCE,
        _CAPEX,
        *BOUNDS_SCHEMAS,
    )
}

#: Files whose ``vendor`` column must name a vendor of ``vendor_groups.csv``.
VENDOR_COLUMNS: dict[str, str] = {
    "accelerators.csv": "vendor",
    "accelerator_roadmap.csv": "vendor",
}

#: Files whose provider column must name a provider of ``providers.csv``.
PROVIDER_COLUMNS: dict[str, str] = {
    "gpu_rental_prices.csv": "provider_or_index",
}

#: The data's as-of date: one row, the last day whose observations the files record. No
#: observation may be dated after it (see ``FileSchema.observed``). Optional: a directory
#: without it (a fit's copy made before it existed) is checked against the day it is read.
AS_OF_FILE = "as_of.csv"
AS_OF_SCHEMA = FileSchema(AS_OF_FILE, (Column("as_of", "date", check=valid_date), SOURCE, NOTES))
