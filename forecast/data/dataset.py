"""Load and validate the sourced data files into one immutable :class:`Dataset`.

Each CSV in ``data/`` has a schema below: its columns, their types, which are required and
the ranges a value may take. :func:`load_dataset` checks every file against its schema,
collects *all* problems (each located as ``file:row:column``) and raises one
:class:`~forecast.core.errors.DataValidationError`; only clean data becomes a ``Dataset``.

Normalisation done here, once, so models never repeat it:

- revenue stays in USD billions, prices in USD per chip-hour, compute in dense TFLOPS (the
  files are already in these units; the schema rejects values that look like another unit);
- chip names used by the price and volume files are resolved to catalogue names through
  ``chip_aliases.csv`` (the name as recorded is kept in ``chip_as_recorded``);
- vendor fiscal quarters are mapped to the calendar quarter holding most of their days
  (the calendar quarter of the fiscal quarter's midpoint);
- dates given as a year, a month or a quarter become the *end* of that span, so an
  observation is never dated before it could have been made (this keeps ``as_of`` honest);
- pricing types are a pandas Categorical with a fixed set of categories;
- rows with ``confidence == "recalled"`` carry ``recalled = True``.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
import pickle
import platform
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import fiscal_to_calendar_quarter
from forecast.core.errors import DataValidationError, Issue

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "data"

#: Environment variable for the validated-dataset cache: a directory to keep it in, or "off".
#: Default: ``cache/`` under the artifacts root (``$FORECAST_ARTIFACTS`` or ``artifacts/``).
DATA_CACHE_ENV = "FORECAST_DATA_CACHE"
#: Cached datasets kept (least recently used ones are removed beyond this).
DATA_CACHE_ENTRIES = 8
_CACHE_FORMAT = 1

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

#: Vendor (as in the catalogue) -> the vendor group the market and share models use.
VENDOR_GROUPS = {
    "NVIDIA": "nvidia",
    "AMD": "amd",
    "Google": "google",
    "AWS": "aws",
    "Meta": "other_custom",
    "Microsoft": "other_custom",
    "Intel": "other",
}

CONFIDENCE_LEVELS = ("verified", "recalled")
VALUE_QUALIFIERS = ("=", "~", "<", ">")
ALIAS_RELATIONS = ("same", "family", "variant")
AWS_SILICON_UNITS = ("chips", "USD/year (annualized)", "USD billions")

_DATE_PATTERNS = (
    (re.compile(r"^\d{4}-\d{2}-\d{2}$"), "day"),
    (re.compile(r"^\d{4}-\d{2}$"), "month"),
    (re.compile(r"^\d{4}-Q[1-4]$"), "quarter"),
    (re.compile(r"^\d{4}$"), "year"),
)


# --------------------------------------------------------------------------- parsing helpers


def parse_date(text: str) -> tuple[pd.Timestamp, str]:
    """Parse a day, month (``2025-09``), quarter (``2025-Q1``) or year (``2025``) date.

    Returns the *last* day of the span and its precision; raises ``ValueError`` otherwise.
    """
    precision = next((kind for pattern, kind in _DATE_PATTERNS if pattern.match(text)), None)
    if precision is None:
        raise ValueError("expected YYYY-MM-DD, YYYY-MM, YYYY-Qn or YYYY")
    if precision == "day":
        return pd.Timestamp(text), precision
    if precision == "month":
        return pd.Period(text, freq="M").end_time.normalize(), precision
    if precision == "quarter":
        year, quarter = text.split("-Q")
        return pd.Period(f"{year}Q{quarter}", freq="Q").end_time.normalize(), precision
    return pd.Period(text, freq="Y").end_time.normalize(), precision


def _to_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError("not a finite number")
    return value


# --------------------------------------------------------------------------- schemas


@dataclass(frozen=True)
class Column:
    """One column of a file schema.

    ``kind`` is ``str``, ``float``, ``int``, ``date`` or ``choice``; ``check`` is an extra
    predicate on the parsed value returning an error message or ``None``.
    """

    name: str
    kind: str = "str"
    required: bool = True
    choices: tuple[str, ...] = ()
    check: Callable[[Any], str | None] | None = None


@dataclass(frozen=True)
class FileSchema:
    """Schema of one CSV: its columns, the chip columns to resolve and the duplicate key."""

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

SCHEMAS: dict[str, FileSchema] = {
    schema.filename: schema
    for schema in (
        FileSchema(
            "accelerators.csv",
            (
                Column("vendor", "choice", choices=tuple(VENDOR_GROUPS)),
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
        ),
        FileSchema(
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
        ),
        FileSchema(
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
        ),
        FileSchema(
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
        ),
        FileSchema(
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
            duplicate_key=(
                "date", "chip", "price_type", "price_usd_low", "price_usd_high", "source"
            ),
        ),
        FileSchema(
            "aws_custom_silicon.csv",
            (
                Column("date", "date"),
                Column("metric"),
                Column("value", "float", required=False, check=_positive),
                Column("unit", "choice", choices=AWS_SILICON_UNITS),
                Column("value_qualifier"),
                _SOURCE,
                _CONFIDENCE,
                _NOTES,
            ),
            duplicate_key=("date", "metric"),
        ),
        FileSchema(
            "epoch_chip_volume_estimates.csv",
            (
                Column("vendor", "choice", choices=tuple(VENDOR_GROUPS)),
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
        ),
        FileSchema(
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
        ),
    )
}


# --------------------------------------------------------------------------- row validation


@dataclass
class _ParsedFile:
    rows: list[dict[str, Any]]
    lines: list[int]
    # Every row as text, bad ones included, so one bad catalogue cell does not also make
    # each row naming that chip an error.
    raw: list[dict[str, str]] = field(default_factory=list)


def _read_csv(path: Path, schema: FileSchema, issues: list[Issue]) -> _ParsedFile:
    """Parse one file against its schema, appending every problem to ``issues``."""
    name = path.name
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as exc:
        issues.append(Issue(name, None, None, f"cannot read file: {exc.strerror}"))
        return _ParsedFile([], [])
    with handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration:
            issues.append(Issue(name, None, None, "file is empty (no header row)"))
            return _ParsedFile([], [])
        except (csv.Error, UnicodeDecodeError) as exc:
            issues.append(Issue(name, 1, None, f"unreadable CSV: {exc}"))
            return _ParsedFile([], [])
        expected = [column.name for column in schema.columns]
        missing = [column for column in expected if column not in header]
        unknown = [column for column in header if column not in expected]
        for column in missing:
            issues.append(Issue(name, 1, column, "required column is missing"))
        for column in unknown:
            issues.append(Issue(name, 1, column, "unknown column"))
        if missing:
            return _ParsedFile([], [])
        rows: list[dict[str, Any]] = []
        lines: list[int] = []
        raw_rows: list[dict[str, str]] = []
        line = reader.line_num
        try:
            for record in reader:
                start, line = line + 1, reader.line_num
                if not any(cell.strip() for cell in record):
                    continue
                if len(record) != len(header):
                    message = f"expected {len(header)} fields, got {len(record)}"
                    issues.append(Issue(name, start, None, message))
                    continue
                raw = dict(zip(header, record, strict=True))
                raw_rows.append(raw)
                parsed = _parse_row(raw, schema, name, start, issues)
                if parsed is not None:
                    rows.append(parsed)
                    lines.append(start)
        except (csv.Error, UnicodeDecodeError) as exc:
            issues.append(Issue(name, line + 1, None, f"unreadable CSV: {exc}"))
    return _ParsedFile(rows, lines, raw_rows)


def _parse_row(
    raw: dict[str, str], schema: FileSchema, name: str, line: int, issues: list[Issue]
) -> dict[str, Any] | None:
    """Parse and check one row; ``None`` when any field is bad (all its issues recorded)."""
    parsed: dict[str, Any] = {}
    ok = True
    for column in schema.columns:
        text = raw[column.name].strip()
        if not text:
            if column.required:
                what = "source is empty" if column.name == "source" else "value is required"
                issues.append(Issue(name, line, column.name, what))
                ok = False
            parsed[column.name] = None
            continue
        try:
            value = _parse_value(text, column)
        except ValueError as exc:
            issues.append(Issue(name, line, column.name, f"{exc}, got {text!r}"))
            ok = False
            continue
        problem = column.check(value) if column.check else None
        if problem:
            issues.append(Issue(name, line, column.name, problem))
            ok = False
            continue
        parsed[column.name] = value
    return parsed if ok else None


def _parse_value(text: str, column: Column) -> Any:
    if column.kind == "float":
        try:
            return _to_float(text)
        except ValueError:
            raise ValueError("not a number") from None
    if column.kind == "int":
        if not re.fullmatch(r"-?\d+", text):
            raise ValueError("not an integer")
        return int(text)
    if column.kind == "date":
        return parse_date(text)
    if column.kind == "choice" and text not in column.choices:
        raise ValueError(f"must be one of {', '.join(column.choices)}")
    return text


# --------------------------------------------------------------------------- the Dataset


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
        Amazon's Trainium statements and Epoch's modelled cumulative Trainium units.
    volumes
        Epoch's modelled unit shipments per chip and calendar quarter.
    market_estimates
        Published market-size and share estimates (not comparable across definitions).
    data_dir, file_hashes
        Where the data came from and the SHA-256 of each file, for fit provenance.
    """

    accelerators: pd.DataFrame
    chip_aliases: pd.DataFrame
    revenue: pd.DataFrame
    rental_prices: pd.DataFrame
    unit_prices: pd.DataFrame
    aws_custom_silicon: pd.DataFrame
    volumes: pd.DataFrame
    market_estimates: pd.DataFrame
    data_dir: Path = field(default=DEFAULT_DATA_DIR)
    file_hashes: tuple[tuple[str, str], ...] = ()
    as_of_date: pd.Timestamp | None = None

    @property
    def data_hash(self) -> str:
        """One SHA-256 over all file hashes and the as-of date: the identity of this data."""
        digest = hashlib.sha256()
        for filename, file_hash in self.file_hashes:
            digest.update(f"{filename}:{file_hash}\n".encode())
        digest.update(f"as_of:{self.as_of_date}".encode())
        return digest.hexdigest()

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

        Chip specifications stay (a chip announced later simply has a later release date);
        observations are cut on the date at which they became known.
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
            "market_estimates": self.market_estimates[
                self.market_estimates["year_published"] <= cutoff.year
            ],
        }
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
        """Rows, recalled rows and date range of each table."""
        records = []
        for item in fields(self):
            frame = getattr(self, item.name)
            if not isinstance(frame, pd.DataFrame):
                continue
            date_column = next(
                (c for c in ("date", "calendar_quarter_end", "end_date", "release_date")
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
    """Every validation problem in a data directory; empty when the data are clean."""
    issues: list[Issue] = []
    _load_tables(Path(data_dir) if data_dir else DEFAULT_DATA_DIR, issues)
    return issues


def load_dataset(data_dir: str | Path | None = None) -> Dataset:
    """Validate and load every data file of ``data_dir`` (default: the project's ``data/``).

    Raises
    ------
    DataValidationError
        With every problem found, each as ``file:row:column: message``.

    Notes
    -----
    A dataset that validated is cached (see ``$FORECAST_DATA_CACHE``) under the SHA-256 of
    every file and of the parsing code: files byte-identical to ones already validated are
    not parsed again, and any change to them is validated in full.
    """
    directory = Path(data_dir) if data_dir else DEFAULT_DATA_DIR
    cached = _cached_dataset(directory)
    if cached is not None:
        return cached
    issues: list[Issue] = []
    dataset = _load_tables(directory, issues)
    if issues or dataset is None:
        raise DataValidationError(issues)
    _cache_dataset(dataset)
    return dataset


# --------------------------------------------------------------------------- dataset cache
#
# Parsing and validating every file takes about 0.1 s, a twentieth of a warm forecast's
# budget. A dataset that validated cleanly is therefore pickled under a key made of the
# SHA-256 of every data file, of this module's source and of the library versions: any
# change to a data file (or to the code that parses it) changes the key, so the files are
# validated again and problems are reported exactly as without the cache. Only clean
# datasets are cached. The pickle is the package's own output in its own artifacts directory;
# anything unreadable there is ignored and rebuilt.


def _data_cache_dir() -> Path | None:
    """Directory of the dataset cache, or None when ``$FORECAST_DATA_CACHE`` is "off"."""
    setting = os.environ.get(DATA_CACHE_ENV, "").strip()
    if setting.lower() == "off":
        return None
    if setting:
        return Path(setting)
    artifacts = os.environ.get("FORECAST_ARTIFACTS") or DEFAULT_DATA_DIR.parent / "artifacts"
    return Path(artifacts) / "cache"


def _file_hashes(directory: Path) -> tuple[tuple[str, str], ...] | None:
    """SHA-256 of every schema file, as ``Dataset.file_hashes``; None if one is unreadable."""
    try:
        return tuple((name, hashlib.sha256((directory / name).read_bytes()).hexdigest())
                     for name in SCHEMAS)
    except OSError:
        return None


def _cache_key(file_hashes: tuple[tuple[str, str], ...]) -> str:
    """Identity of a parsed dataset: the data files, the parsing code and the libraries."""
    parts = {
        "format": _CACHE_FORMAT,
        "code": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        "python": platform.python_version(),
        "pandas": pd.__version__,
        "numpy": np.__version__,
        "files": [list(pair) for pair in file_hashes],
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _cached_dataset(directory: Path) -> Dataset | None:
    """The cached dataset of ``directory``'s current files, or None (no cache, or stale)."""
    cache = _data_cache_dir()
    if cache is None or not directory.is_dir():
        return None
    hashes = _file_hashes(directory)
    if hashes is None:
        return None
    key = _cache_key(hashes)
    path = cache / f"dataset-{key[:32]}.pickle"
    try:
        with path.open("rb") as handle:
            stored_key, dataset = pickle.load(handle)
    except Exception:  # noqa: BLE001 - missing, partial or foreign: rebuild it
        return None
    if stored_key != key or not isinstance(dataset, Dataset) or dataset.file_hashes != hashes:
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # most recently used: pruned last
    return replace(dataset, data_dir=directory)


def _cache_dataset(dataset: Dataset) -> None:
    """Store a validated dataset (atomically); failures only cost the next load its speed."""
    cache = _data_cache_dir()
    if cache is None:
        return
    key = _cache_key(dataset.file_hashes)
    temporary = None
    try:
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=cache, prefix=".dataset-", suffix=".tmp",
                                         delete=False) as handle:
            temporary = Path(handle.name)
            pickle.dump((key, dataset), handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, cache / f"dataset-{key[:32]}.pickle")
        temporary = None
        entries = sorted(cache.glob("dataset-*.pickle"), key=lambda p: p.stat().st_mtime,
                         reverse=True)
        for stale in entries[DATA_CACHE_ENTRIES:]:
            stale.unlink(missing_ok=True)
    except (OSError, pickle.PickleError):
        pass
    finally:
        if temporary is not None:
            temporary.unlink(missing_ok=True)


def _load_tables(directory: Path, issues: list[Issue]) -> Dataset | None:
    if not directory.is_dir():
        issues.append(Issue(str(directory), None, None, "data directory not found"))
        return None
    parsed = {name: _read_csv(directory / name, schema, issues) for name, schema in SCHEMAS.items()}
    for name, schema in SCHEMAS.items():
        _check_duplicates(name, schema, parsed[name], issues)

    catalogue = {row["chip"].strip() for row in parsed["accelerators.csv"].raw}
    aliases = {
        row["alias"].strip(): row["chip"].strip() for row in parsed["chip_aliases.csv"].raw
    }
    for name, schema in SCHEMAS.items():
        if schema.chip_column is None:
            continue
        table = parsed[name]
        for row, line in zip(table.rows, table.lines, strict=True):
            chip = row[schema.chip_column]
            if name == "chip_aliases.csv":
                ok = chip in catalogue
            else:
                ok = chip in catalogue or chip in aliases
            if not ok:
                issues.append(
                    Issue(name, line, schema.chip_column,
                          f"chip {chip!r} is not in accelerators.csv or chip_aliases.csv")
                )
    _check_row_consistency(parsed, issues)
    if issues:
        return None

    hashes = tuple(
        (name, hashlib.sha256((directory / name).read_bytes()).hexdigest()) for name in SCHEMAS
    )
    return Dataset(
        accelerators=_accelerators_frame(parsed["accelerators.csv"].rows),
        chip_aliases=_frame(parsed["chip_aliases.csv"].rows),
        revenue=_revenue_frame(parsed["vendor_quarterly_revenue.csv"].rows),
        rental_prices=_rental_frame(parsed["gpu_rental_prices.csv"].rows, aliases),
        unit_prices=_dated_frame(parsed["accelerator_unit_prices.csv"].rows, "date", aliases),
        aws_custom_silicon=_dated_frame(parsed["aws_custom_silicon.csv"].rows, "date"),
        volumes=_volumes_frame(parsed["epoch_chip_volume_estimates.csv"].rows, aliases),
        market_estimates=_frame(parsed["market_estimates.csv"].rows),
        data_dir=directory,
        file_hashes=hashes,
    )


def _check_duplicates(name: str, schema: FileSchema, table: _ParsedFile, issues: list[Issue]):
    seen: dict[tuple, int] = {}
    for row, line in zip(table.rows, table.lines, strict=True):
        key = tuple(str(row[column]) for column in schema.duplicate_key)
        if key in seen:
            issues.append(
                Issue(name, line, schema.duplicate_key[0],
                      f"duplicate observation (same {', '.join(schema.duplicate_key)} "
                      f"as line {seen[key]})")
            )
        else:
            seen[key] = line


def _check_row_consistency(parsed: dict[str, _ParsedFile], issues: list[Issue]) -> None:
    """Checks across columns of one row: low <= high, p5 <= median <= p95, start <= end."""
    table = parsed["accelerator_unit_prices.csv"]
    for row, line in zip(table.rows, table.lines, strict=True):
        if row["price_usd_low"] > row["price_usd_high"]:
            issues.append(Issue("accelerator_unit_prices.csv", line, "price_usd_low",
                                f"low {row['price_usd_low']:g} > high {row['price_usd_high']:g}"))
    table = parsed["epoch_chip_volume_estimates.csv"]
    for row, line in zip(table.rows, table.lines, strict=True):
        if not row["units_p5"] <= row["units_median"] <= row["units_p95"]:
            issues.append(Issue("epoch_chip_volume_estimates.csv", line, "units_median",
                                "units must satisfy p5 <= median <= p95"))
        if row["start_date"][0] > row["end_date"][0]:
            issues.append(Issue("epoch_chip_volume_estimates.csv", line, "end_date",
                                "end_date is before start_date"))


# --------------------------------------------------------------------------- frames


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(rows)
    if "confidence" in frame:
        frame["recalled"] = frame["confidence"] == "recalled"
    return frame


def _split_date(frame: pd.DataFrame, column: str) -> None:
    frame[f"{column}_precision"] = [value[1] for value in frame[column]]
    frame[column] = pd.to_datetime([value[0] for value in frame[column]])


def _resolve_chips(frame: pd.DataFrame, aliases: dict[str, str]) -> None:
    frame["chip_as_recorded"] = frame["chip"]
    frame["chip"] = [aliases.get(chip, chip) for chip in frame["chip"]]


def _accelerators_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = _frame(rows)
    # Release dates are months: keep the first of the month (the launch), not the month end.
    frame["release_date"] = pd.to_datetime(
        [value[0].to_period("M").start_time for value in frame["release_date"]]
    )
    frame["release_quarter"] = frame["release_date"].dt.to_period("Q")
    frame.insert(1, "vendor_group", frame["vendor"].map(VENDOR_GROUPS))
    numeric = [c for c in frame.columns if c.endswith(("_tflops", "_gb", "_tbs", "_w", "_usd"))]
    numeric += ["process_nm", "cloud_on_demand_usd_per_chip_hour"]
    frame[numeric] = frame[numeric].astype(float)
    return frame


def _revenue_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = _frame(rows)
    frame["calendar_quarter_end"] = pd.to_datetime([v[0] for v in frame["calendar_quarter_end"]])
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


def _dated_frame(
    rows: list[dict[str, Any]], column: str, aliases: dict[str, str] | None = None
) -> pd.DataFrame:
    frame = _frame(rows)
    _split_date(frame, column)
    if aliases is not None:
        _resolve_chips(frame, aliases)
    return frame


def _rental_frame(rows: list[dict[str, Any]], aliases: dict[str, str]) -> pd.DataFrame:
    frame = _dated_frame(rows, "date", aliases)
    frame["pricing_type"] = pd.Categorical(frame["pricing_type"], categories=PRICING_TYPES)
    frame["usd_per_chip_hour"] = frame["usd_per_chip_hour"].astype(float)
    return frame.sort_values(["chip", "date"], kind="stable").reset_index(drop=True)


def _volumes_frame(rows: list[dict[str, Any]], aliases: dict[str, str]) -> pd.DataFrame:
    frame = _frame(rows)
    frame["start_date"] = pd.to_datetime([v[0] for v in frame["start_date"]])
    frame["end_date"] = pd.to_datetime([v[0] for v in frame["end_date"]])
    frame["quarter"] = [
        fiscal_to_calendar_quarter(end, days=(end - start).days + 1)
        for start, end in zip(frame["start_date"], frame["end_date"], strict=True)
    ]
    frame["quarter"] = frame["quarter"].astype("period[Q-DEC]")
    frame.insert(1, "vendor_group", frame["vendor"].map(VENDOR_GROUPS))
    _resolve_chips(frame, aliases)
    return frame
