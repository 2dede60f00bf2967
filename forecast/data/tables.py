"""The immutable :class:`Dataset`: every data table, validated and normalised.

:mod:`forecast.data.dataset` reads and checks the files and builds a ``Dataset``; this module
holds the class, its tables and the as-of cut, apart from the loading code so that neither
module grows past what one reader can hold.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import pandas as pd

from forecast.data.normalise_bounds import BOUNDS_TABLES
from forecast.data.schemas import DEFAULT_DATA_DIR

__all__ = ["CUT_ON", "TABLES", "Dataset"]

#: The tables of a :class:`Dataset`, in the order of its fields.
TABLES = ("accelerators", "chip_aliases", "revenue", "rental_prices", "unit_prices",
          "aws_custom_silicon", "market_estimates", "vendor_groups", "providers",
          "aws_statements", "roadmap", "guidance", "hyperscaler_capex", *BOUNDS_TABLES)

#: Each observation table and the column :meth:`Dataset.as_of` cuts it on: the date its rows
#: became known (a coarse date is already the last day of its span). The other tables are
#: specifications and definitions (the chip catalogue, aliases, groups, providers) and stay.
CUT_ON: dict[str, str] = {
    "revenue": "published_date",
    "rental_prices": "date",
    "unit_prices": "date",
    "aws_custom_silicon": "date",
    "market_estimates": "published",
    "aws_statements": "date",
    "roadmap": "announced_date",
    "guidance": "given_date",
    "hyperscaler_capex": "published_date",
    **{name: published for name, (_, published) in BOUNDS_TABLES.items()},
}


@dataclass(frozen=True)
class Dataset:
    """Every data table, validated and normalised. Immutable: methods return new objects.

    Attributes
    ----------
    accelerators
        One row per chip: specs (dense TFLOPS), prices, ``vendor_group``, ``release_quarter``.
    chip_aliases
        Names used in other files -> catalogue chip, with the relation (same/family/variant).
    revenue
        Vendor segment revenue in USD billions with ``quarter`` (calendar), ``period_kind``
        and ``published_date`` (the earnings release that made it public).
    rental_prices
        Observed USD per chip-hour with ``pricing_type`` (Categorical) and ``date_precision``.
    unit_prices
        Purchase-price observations and ASP ranges in USD per chip.
    aws_custom_silicon
        Amazon's statements on Trainium, with the 5-95% band of an estimate in ``value_p5``
        and ``value_p95`` (NaN where none).
    market_estimates
        Published market-size and share estimates (not comparable across definitions),
        dated by ``published`` (a month or year as the last day of its span).
    vendor_groups
        One row per vendor: its ``vendor_group``, ``silicon`` (merchant or custom) and
        ``share_model_order`` (position in the spend model, NA for groups it does not cover).
    providers
        One row per ``provider_or_index`` of the rental prices: its ``provider_class``
        (hyperscaler, neocloud, marketplace or index) and ``company``; see
        :attr:`provider_classes` and :attr:`provider_companies`.
    aws_statements
        Amazon's dated statements the spend model's AWS part (M5) is calibrated to: which quantity
        each ``observes``, ``value`` as a float (NaN for a qualitative statement, whose phrase
        is ``value_qualifier``) and ``chips_per_instance`` (NaN where none).
    roadmap
        Announced chip generations (``accelerator_roadmap.csv``): the dated claims the
        scenarios' ``[roadmap]`` generations rely on, ``generation`` naming the one a row
        supports (empty for context).
    guidance
        Vendors' next-quarter revenue guidance (``vendor_guidance.csv``): the guided
        ``fiscal_period`` of a revenue ``segment``, the ``basis_fiscal_period`` released with
        it and ``given_date`` (released with that quarter's results, so a cut keeps a guide
        exactly when it keeps its basis quarter).
    hyperscaler_capex
        Quarterly capex of Microsoft, Alphabet, Amazon, Meta and Oracle
        (``hyperscaler_capex_quarterly.csv``) in USD billions, with the calendar ``quarter``
        of each fiscal quarter; only ``series == "main"`` rows of different companies may be
        summed (the others are other definitions or a segment). Cut on ``published_date``,
        when the figure was released.
    buyer_cash_flow
        What the buyers can fund (``buyer_cash_flow.csv``): operating cash flow, capex (by
        each company's definition), cash paid for capex, free cash flow, total debt and capex
        guidance of Microsoft, Alphabet, Amazon, Meta and Oracle, in USD billions
        (``value_usd_billions_low``/``_high``; NaN for a qualitative guide), with the span
        ``period_start``..``period_end`` and ``published``.
    capex_annual
        Annual capex actuals and guidance of the five and two aggregates
        (``hyperscaler_capex_annual_and_guidance.csv``), USD billions: ``value_usd_billions``
        (a range's midpoint), ``range_low``/``range_high``, ``value_usd_billions_low``/
        ``_high``, ``definition``, ``published_date``. Never sum across definitions.
    accelerator_share
        Published shares of AI data-centre capex by component (``share_pct_low``/``_high``,
        percent) with their ``scope``: the step from capex to accelerator spend.
    power_capacity
        Data-centre power and energy outlooks and builders' capacity plans
        (``value_low``/``value_high`` in ``unit``, ``unit_base`` GW, TWh, %...).
    dollars_per_gw
        Capex per GW of AI capacity, total and the accelerator part
        (``total_usd_billions_per_gw_low``/``_high``,
        ``accelerator_usd_billions_per_gw_low``/``_high``).
    packaging_supply
        CoWoS capacity and demand, HBM market and supply, chips per wafer
        (``value_low``/``value_high`` in ``unit``/``unit_base``).
    bookings
        Announced demand commitments (``quantity`` in ``unit``/``unit_base``, buyer,
        supplier, ``accelerator_vendor``, delivery ``period_start``..``period_end``). They
        overlap: never sum rows (``data/README.md``).
    data_dir, file_hashes
        Where the data came from and the SHA-256 of each data file, for fit provenance
        (``as_of.csv`` is not among them: the observations alone are the data's identity).
    as_of_date
        The cut of :meth:`as_of`, or None for all observations.
    data_as_of
        The data's own as-of date (``as_of.csv``): no observation is dated after it. None
        when the directory has no ``as_of.csv`` (observations were then checked against the
        day they were read).
    """

    accelerators: pd.DataFrame
    chip_aliases: pd.DataFrame
    revenue: pd.DataFrame
    rental_prices: pd.DataFrame
    unit_prices: pd.DataFrame
    aws_custom_silicon: pd.DataFrame
    market_estimates: pd.DataFrame
    vendor_groups: pd.DataFrame
    providers: pd.DataFrame
    aws_statements: pd.DataFrame
    roadmap: pd.DataFrame
    guidance: pd.DataFrame
    hyperscaler_capex: pd.DataFrame
    buyer_cash_flow: pd.DataFrame
    capex_annual: pd.DataFrame
    accelerator_share: pd.DataFrame
    power_capacity: pd.DataFrame
    dollars_per_gw: pd.DataFrame
    packaging_supply: pd.DataFrame
    bookings: pd.DataFrame
    data_dir: Path = field(default=DEFAULT_DATA_DIR)
    file_hashes: tuple[tuple[str, str], ...] = ()
    as_of_date: pd.Timestamp | None = None
    data_as_of: pd.Timestamp | None = None

    @property
    def data_hash(self) -> str:
        """One SHA-256 over all file hashes and the as-of date: the identity of this data."""
        digest = hashlib.sha256()
        for filename, file_hash in self.file_hashes:
            digest.update(f"{filename}:{file_hash}\n".encode())
        digest.update(f"as_of:{self.as_of_date}".encode())
        return digest.hexdigest()

    @property
    def provider_classes(self) -> dict[str, str]:
        """Rental-price provider name -> its ``provider_class`` (``providers.csv``)."""
        return dict(zip(self.providers["provider_or_index"].astype(str),
                        self.providers["provider_class"].astype(str), strict=True))

    @property
    def provider_companies(self) -> dict[str, str]:
        """Rental-price provider name -> the ``company`` behind it (``providers.csv``)."""
        return dict(zip(self.providers["provider_or_index"].astype(str),
                        self.providers["company"].astype(str), strict=True))

    @property
    def last_observation(self) -> pd.Timestamp:
        """Date of the latest dated observation (revenue quarters, rental prices)."""
        return max(self.revenue["calendar_quarter_end"].max(), self.rental_prices["date"].max())

    def as_of(self, date: str | pd.Timestamp) -> Dataset:
        """Only the observations known on or before ``date``.

        Each observation table is cut on the column of :data:`CUT_ON`, the date its rows
        became known: a quarter's revenue is in a cut once its results were released (weeks
        after the quarter ends), with the guide released with them. Chip specifications,
        vendor groups and provider classes stay (a chip announced later simply has a later
        release date).
        """
        cutoff = pd.Timestamp(date)
        tables = {name: getattr(self, name)[getattr(self, name)[column] <= cutoff]
                  for name, column in CUT_ON.items()}
        tables = {key: frame.reset_index(drop=True) for key, frame in tables.items()}
        return replace(self, as_of_date=cutoff, **tables)

    def revenue_series(self, company: str, segment: str) -> pd.DataFrame:
        """Quarterly rows of one company segment, sorted by calendar quarter end."""
        mask = (
            (self.revenue["company"] == company)
            & (self.revenue["segment"] == segment)
            & (self.revenue["period_kind"] == "quarter")
        )
        return self.revenue[mask].sort_values("calendar_quarter_end").reset_index(drop=True)

    def summary(self) -> pd.DataFrame:
        """Rows, recalled rows and date range of each table (dated by its as-of column)."""
        records = []
        for item in fields(self):
            frame = getattr(self, item.name)
            if not isinstance(frame, pd.DataFrame):
                continue
            date_column = {**CUT_ON, "accelerators": "release_date"}.get(item.name)
            records.append(
                {
                    "table": item.name,
                    "rows": len(frame),
                    "recalled_rows": int(frame["recalled"].sum()) if "recalled" in frame else 0,
                    "first": frame[date_column].min() if date_column else None,
                    "last": frame[date_column].max() if date_column else None,
                }
            )
        return pd.DataFrame.from_records(records)
