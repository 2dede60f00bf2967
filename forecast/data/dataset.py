"""Load and validate the sourced data files into one immutable :class:`Dataset`.

Each CSV in ``data/`` has a schema (:mod:`forecast.data.schemas`). :func:`load_dataset` reads
every file against its schema (:mod:`forecast.data.csv_reader`), checks rows and files against
each other and against the data's as-of date (:mod:`forecast.data.validation`), collects
*all* problems (each located as ``file:row:column``) and raises one
:class:`~forecast.core.errors.DataValidationError`; only clean data becomes a ``Dataset``,
normalised once (:mod:`forecast.data.normalise`) and cached (:mod:`forecast.data.cache`).

The as-of date is the one row of ``as_of.csv`` (2025-10-31 for the shipped data); a
directory without that file (a fit's copy of older data) is checked against the day it is
read instead.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from forecast.core.errors import DataValidationError, Issue
from forecast.data import normalise
from forecast.data.cache import (
    DATA_CACHE_ENTRIES,
    DATA_CACHE_ENV,
    cache_key,
    data_cache_dir,
    file_hashes,
    read_entry,
    write_entry,
)
from forecast.data.csv_reader import ParsedFile, parse_date
from forecast.data.csv_reader import read_csv as _read_csv
from forecast.data.schemas import (
    ALIAS_RELATIONS,
    AS_OF_FILE,
    AS_OF_SCHEMA,
    AWS_SILICON_UNITS,
    CONFIDENCE_LEVELS,
    DEFAULT_DATA_DIR,
    PRICING_TYPES,
    SCHEMAS,
    VALUE_QUALIFIERS,
    Column,
    FileSchema,
)
from forecast.data.validation import alias_map, check_tables

__all__ = [
    "ALIAS_RELATIONS",
    "AS_OF_FILE",
    "AWS_SILICON_UNITS",
    "CONFIDENCE_LEVELS",
    "DATA_CACHE_ENTRIES",
    "DATA_CACHE_ENV",
    "DEFAULT_DATA_DIR",
    "PRICING_TYPES",
    "SCHEMAS",
    "TABLES",
    "VALUE_QUALIFIERS",
    "Column",
    "Dataset",
    "FileSchema",
    "data_cache_dir",
    "load_dataset",
    "parse_date",
    "validate_data_dir",
]

#: The tables of a :class:`Dataset`, in the order of its fields.
TABLES = ("accelerators", "chip_aliases", "revenue", "rental_prices", "unit_prices",
          "aws_custom_silicon", "volumes", "market_estimates", "vendor_groups", "providers",
          "aws_statements", "roadmap", "guidance", "hyperscaler_capex")


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
        Vendor segment revenue in USD billions with ``quarter`` (calendar) and ``period_kind``.
    rental_prices
        Observed USD per chip-hour with ``pricing_type`` (Categorical) and ``date_precision``.
    unit_prices
        Purchase-price observations and ASP ranges in USD per chip.
    aws_custom_silicon
        Amazon's Trainium statements and Epoch's modelled cumulative Trainium units, with the
        5-95% band of an estimate in ``value_p5`` and ``value_p95`` (NaN where none).
    volumes
        Epoch's modelled unit shipments per chip and calendar quarter.
    market_estimates
        Published market-size and share estimates (not comparable across definitions),
        dated by ``published`` (a month or year as the last day of its span).
    vendor_groups
        One row per vendor: its ``vendor_group``, ``silicon`` (merchant or custom) and
        ``share_model_order`` (position in the share model, NA for groups it does not cover).
    providers
        One row per ``provider_or_index`` of the rental prices: its ``provider_class``
        (hyperscaler, neocloud, marketplace or index) and ``company``; see
        :attr:`provider_classes` and :attr:`provider_companies`.
    aws_statements
        Amazon's dated statements the AWS silicon model is calibrated to: which quantity
        each ``observes``, ``value`` as a float (NaN for a qualitative statement, whose phrase
        is ``value_qualifier``) and ``chips_per_instance`` (NaN where none).
    roadmap
        Announced chip generations (``accelerator_roadmap.csv``): the dated claims the
        scenarios' ``[roadmap]`` generations rely on, ``generation`` naming the one a row
        supports (empty for context).
    guidance
        Vendors' next-quarter revenue guidance (``vendor_guidance.csv``): the guided
        ``fiscal_period`` of a revenue ``segment``, the ``basis_fiscal_period`` released with
        it and ``given_date``; a cut keeps the guides whose basis quarter it keeps.
    hyperscaler_capex
        Quarterly capex of Microsoft, Alphabet, Amazon, Meta and Oracle
        (``hyperscaler_capex_quarterly.csv``) in USD billions, with the calendar ``quarter``
        of each fiscal quarter; only ``series == "main"`` rows of different companies may be
        summed (the others are other definitions or a segment). Cut like revenue, on the
        quarter's end; ``published_date`` is when the figure was released.
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
    volumes: pd.DataFrame
    market_estimates: pd.DataFrame
    vendor_groups: pd.DataFrame
    providers: pd.DataFrame
    aws_statements: pd.DataFrame
    roadmap: pd.DataFrame
    guidance: pd.DataFrame
    hyperscaler_capex: pd.DataFrame
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
        """Date of the latest dated observation (revenue, prices, volumes)."""
        return max(
            self.revenue["calendar_quarter_end"].max(),
            self.rental_prices["date"].max(),
            self.volumes["end_date"].max(),
        )

    def as_of(self, date: str | pd.Timestamp) -> Dataset:
        """Only the observations dated on or before ``date``.

        Chip specifications, vendor groups and provider classes stay (a chip announced later
        simply has a later release date); observations are cut on the date at which they
        became known.
        """
        cutoff = pd.Timestamp(date)
        tables = {
            "revenue": self.revenue[self.revenue["calendar_quarter_end"] <= cutoff],
            "rental_prices": self.rental_prices[self.rental_prices["date"] <= cutoff],
            "unit_prices": self.unit_prices[self.unit_prices["date"] <= cutoff],
            "aws_custom_silicon": self.aws_custom_silicon[
                self.aws_custom_silicon["date"] <= cutoff
            ],
            "volumes": self.volumes[self.volumes["end_date"] <= cutoff],
            "aws_statements": self.aws_statements[self.aws_statements["date"] <= cutoff],
            "roadmap": self.roadmap[self.roadmap["announced_date"] <= cutoff],
            "guidance": self.guidance[self._guides_known(cutoff)],
            # A quarter's results count as known at its end, as the revenue table's do.
            "hyperscaler_capex": self.hyperscaler_capex[
                self.hyperscaler_capex["calendar_quarter_end"] <= cutoff
            ],
            "market_estimates": self.market_estimates[
                self.market_estimates["published"] <= cutoff
            ],
        }
        tables = {key: frame.reset_index(drop=True) for key, frame in tables.items()}
        return replace(self, as_of_date=cutoff, **tables)

    def _guides_known(self, cutoff: pd.Timestamp) -> pd.Series:
        """Guides released with a quarter the cut keeps (revenue is cut on the quarter's end,
        so a guide counts as known with the results it came with)."""
        ends = self.revenue.set_index(["company", "fiscal_period"])["calendar_quarter_end"]
        ends = ends[~ends.index.duplicated()]
        keys = list(zip(self.guidance["company"], self.guidance["basis_fiscal_period"],
                        strict=True))
        basis = pd.Series([ends.get(key, pd.NaT) for key in keys], index=self.guidance.index,
                          dtype="datetime64[ns]")
        # A guide without its basis quarter on file is dated by when it was given.
        basis = basis.fillna(self.guidance["given_date"])
        return basis <= cutoff

    def revenue_series(self, company: str, segment: str) -> pd.DataFrame:
        """Quarterly rows of one company segment, sorted by calendar quarter end."""
        mask = (
            (self.revenue["company"] == company)
            & (self.revenue["segment"] == segment)
            & (self.revenue["period_kind"] == "quarter")
        )
        return self.revenue[mask].sort_values("calendar_quarter_end").reset_index(drop=True)

    def summary(self) -> pd.DataFrame:
        """Rows, recalled rows and date range of each table."""
        records = []
        for item in fields(self):
            frame = getattr(self, item.name)
            if not isinstance(frame, pd.DataFrame):
                continue
            date_column = next(
                (c for c in ("date", "calendar_quarter_end", "end_date", "release_date",
                             "announced_date")
                 if c in frame),
                None,
            )
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


def validate_data_dir(data_dir: str | Path | None = None) -> list[Issue]:
    """Every validation problem in a data directory; empty when the data are clean.

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        The data directory (default: the project's ``data/``).

    Returns
    -------
    list of Issue
        Each located as ``file:row:column``; the cache is neither read nor written.
    """
    issues: list[Issue] = []
    _load_tables(Path(data_dir) if data_dir else DEFAULT_DATA_DIR, issues)
    return issues


def load_dataset(data_dir: str | Path | None = None, *,
                 cache_dir: str | Path | None = None) -> Dataset:
    """Validate and load every data file of ``data_dir`` (default: the project's ``data/``).

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        The data directory.
    cache_dir : str or pathlib.Path, optional
        Directory of the validated-dataset cache: the artifacts root's, as
        :func:`~forecast.data.cache.data_cache_dir` gives it for ``--artifacts``. Default:
        ``data_cache_dir()`` (``$FORECAST_DATA_CACHE``, else ``cache/`` under
        ``$FORECAST_ARTIFACTS`` or the project's ``artifacts/``; "off" turns it off).

    Returns
    -------
    Dataset
        The validated, normalised tables.

    Raises
    ------
    DataValidationError
        With every problem found, each as ``file:row:column: message``.

    Notes
    -----
    A dataset that validated is cached under the SHA-256 of every file and of the parsing
    code: files byte-identical to ones already validated are not parsed again, and any change
    to them is validated in full. The cache holds arrays and JSON only, checked against their
    SHA-256 on every read (:mod:`forecast.data.cache`).
    """
    directory = Path(data_dir) if data_dir else DEFAULT_DATA_DIR
    cache = Path(cache_dir) if cache_dir is not None else data_cache_dir()
    cached = _cached_dataset(directory, cache)
    if cached is not None:
        return cached
    issues: list[Issue] = []
    dataset = _load_tables(directory, issues)
    if issues or dataset is None:
        raise DataValidationError(issues)
    as_of_identity = _as_of_identity(directory)
    if cache is not None and as_of_identity is not None:
        meta = {"file_hashes": [list(pair) for pair in dataset.file_hashes],
                "data_as_of": None if dataset.data_as_of is None
                else dataset.data_as_of.isoformat()}
        write_entry(cache, cache_key((*dataset.file_hashes, as_of_identity)),
                    {name: getattr(dataset, name) for name in TABLES}, meta)
    return dataset


def _today() -> pd.Timestamp:
    return pd.Timestamp(datetime.now(UTC).date())


def _as_of_identity(directory: Path) -> tuple[str, str] | None:
    """What the as-of check depends on: ``as_of.csv``'s SHA-256, else today's date."""
    if not (directory / AS_OF_FILE).exists():
        return (AS_OF_FILE, f"absent; checked against {_today().date()}")
    found = file_hashes(directory, (AS_OF_FILE,))
    return None if found is None else found[0]


def _cached_dataset(directory: Path, cache: Path | None) -> Dataset | None:
    """The cached dataset of ``directory``'s current files, or None (no cache, or stale)."""
    if cache is None or not directory.is_dir():
        return None
    hashes = file_hashes(directory, SCHEMAS)
    as_of_identity = _as_of_identity(directory)
    if hashes is None or as_of_identity is None:
        return None
    entry = read_entry(cache, cache_key((*hashes, as_of_identity)))
    if entry is None:
        return None
    tables, meta = entry
    try:
        stored = tuple((str(name), str(digest)) for name, digest in meta["file_hashes"])
        as_of = meta["data_as_of"]
        data_as_of = None if as_of is None else pd.Timestamp(str(as_of))
    except (KeyError, TypeError, ValueError):
        return None
    if stored != hashes or set(tables) != set(TABLES):
        return None
    return Dataset(**tables, data_dir=directory, file_hashes=hashes, data_as_of=data_as_of)


def _read_as_of(directory: Path, issues: list[Issue]) -> tuple[pd.Timestamp | None, str, bool]:
    """The as-of bound of the observations, where it comes from, and whether a file gave it.

    The bound is ``as_of.csv``'s one date (the last day of its span), else today (UTC).
    None (the problem recorded) when the file is there but not valid.
    """
    today = _today()
    path = directory / AS_OF_FILE
    if not path.exists():
        return today, f"today: the data have no {AS_OF_FILE}", False
    found: list[Issue] = []
    parsed = _read_csv(path, AS_OF_SCHEMA, found)
    if not found and len(parsed.raw) != 1:
        found.append(Issue(AS_OF_FILE, None, None,
                           f"must hold exactly one row (the as-of date), got {len(parsed.raw)}"))
    issues.extend(found)
    if found:
        return None, AS_OF_FILE, True
    as_of = parsed.rows[0]["as_of"][0]
    # One day of slack: a date written east of UTC may be a day ahead of UTC's.
    if as_of > today + pd.Timedelta(days=1):
        issues.append(Issue(AS_OF_FILE, parsed.lines[0], "as_of",
                            f"{as_of.date()} is after today ({today.date()}): the data cannot "
                            "record observations not yet made"))
        return None, AS_OF_FILE, True
    return as_of, AS_OF_FILE, True


def _load_tables(directory: Path, issues: list[Issue]) -> Dataset | None:
    """Read, check and normalise every file; None (problems in ``issues``) unless clean."""
    if not directory.is_dir():
        issues.append(Issue(str(directory), None, None, "data directory not found"))
        return None
    as_of, source, stated = _read_as_of(directory, issues)
    parsed = {name: _read_csv(directory / name, schema, issues) for name, schema in SCHEMAS.items()}
    check_tables(parsed, issues, as_of, source)
    if issues:
        return None
    hashes = file_hashes(directory, SCHEMAS)
    if hashes is None:  # a file vanished since it was read
        issues.append(Issue(str(directory), None, None, "a data file changed while loading"))
        return None
    return _build(parsed, directory, hashes, as_of if stated else None)


def _build(parsed: dict[str, ParsedFile], directory: Path,
           hashes: tuple[tuple[str, str], ...], data_as_of: pd.Timestamp | None) -> Dataset:
    """The normalised tables of clean parsed files."""
    aliases = alias_map(parsed)
    groups = {row["vendor"]: row["vendor_group"] for row in parsed["vendor_groups.csv"].rows}

    def columns(name: str) -> list[str]:
        return [column.name for column in SCHEMAS[name].columns]

    return Dataset(
        accelerators=normalise.accelerators_frame(parsed["accelerators.csv"].rows, groups),
        chip_aliases=normalise.plain_frame(parsed["chip_aliases.csv"].rows,
                                           columns("chip_aliases.csv")),
        revenue=normalise.revenue_frame(parsed["vendor_quarterly_revenue.csv"].rows),
        rental_prices=normalise.rental_frame(parsed["gpu_rental_prices.csv"].rows, aliases),
        unit_prices=normalise.dated_frame(parsed["accelerator_unit_prices.csv"].rows, "date",
                                          aliases),
        aws_custom_silicon=normalise.silicon_frame(parsed["aws_custom_silicon.csv"].rows),
        volumes=normalise.volumes_frame(parsed["epoch_chip_volume_estimates.csv"].rows, aliases,
                                        groups),
        market_estimates=normalise.dated_frame(parsed["market_estimates.csv"].rows,
                                               "published",
                                               columns=columns("market_estimates.csv")),
        vendor_groups=normalise.vendor_groups_frame(parsed["vendor_groups.csv"].rows),
        providers=normalise.plain_frame(parsed["providers.csv"].rows, columns("providers.csv")),
        aws_statements=_statements_frame(parsed["aws_statements.csv"].rows),
        roadmap=normalise.dated_frame(parsed["accelerator_roadmap.csv"].rows, "announced_date"),
        guidance=_guidance_frame(parsed["vendor_guidance.csv"].rows),
        hyperscaler_capex=normalise.capex_frame(
            parsed["hyperscaler_capex_quarterly.csv"].rows,
            columns("hyperscaler_capex_quarterly.csv")),
        data_dir=directory,
        file_hashes=hashes,
        data_as_of=data_as_of,
    )


def _guidance_frame(rows: normalise.Rows) -> pd.DataFrame:
    """Vendors' guidance: dates as timestamps, the guided figures as floats."""
    if not rows:  # a header-only file: an empty table with the file's columns
        columns = [column.name for column in SCHEMAS["vendor_guidance.csv"].columns]
        frame = pd.DataFrame({name: pd.Series(dtype=object) for name in columns})
        for name in ("calendar_quarter_end", "given_date"):
            frame[name] = pd.to_datetime(frame[name])
        return frame.astype({c: float for c in ("guided_usd_billions", "range_low",
                                                "range_high")})
    frame = normalise.dated_frame(rows, "given_date")
    frame["calendar_quarter_end"] = pd.to_datetime(
        [value[0] for value in frame["calendar_quarter_end"]])
    for column in ("guided_usd_billions", "range_low", "range_high"):
        frame[column] = frame[column].astype(float)
    return frame


def _statements_frame(rows: normalise.Rows) -> pd.DataFrame:
    """Amazon's statements for the AWS silicon model: dated, numeric columns as floats."""
    frame = normalise.dated_frame(rows, "date")
    for column in ("value", "chips_per_instance"):
        frame[column] = frame[column].astype(float)
    return frame
