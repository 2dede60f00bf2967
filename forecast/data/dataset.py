"""Load and validate the sourced data files into one immutable :class:`Dataset`.

Each CSV in ``data/`` has a schema (:mod:`forecast.data.schemas`). :func:`load_dataset` reads
every file against its schema (:mod:`forecast.data.csv_reader`), checks rows and files against
each other and against the data's as-of date (:mod:`forecast.data.validation`), collects
*all* problems (each located as ``file:row:column``) and raises one
:class:`~forecast.core.errors.DataValidationError`; only clean data becomes a ``Dataset``,
normalised once (:mod:`forecast.data.normalise`) and cached (:mod:`forecast.data.cache`).

The as-of date is the one row of ``as_of.csv`` (2025-10-31 for the shipped data). The file
is required: without it the as-of date would silently become the day the data are read, and
the data would keep the hash of the intact data.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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
    sound_manifest,
    write_entry,
)
from forecast.data.csv_reader import ParsedFile, parse_date
from forecast.data.csv_reader import read_csv as _read_csv
from forecast.data.manifest import MANIFEST_FILE, check_manifest
from forecast.data.normalise_bounds import bounds_tables
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
from forecast.data.tables import TABLES, Dataset
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
        key = cache_key((*dataset.file_hashes, as_of_identity))
        if write_entry(cache, key, {name: getattr(dataset, name) for name in TABLES}, meta):
            _remember(cache, directory, key, dataset)
    return dataset


def _today() -> pd.Timestamp:
    return pd.Timestamp(datetime.now(UTC).date())


def _as_of_identity(directory: Path) -> tuple[str, str] | None:
    """What the checks against the data's own records depend on: ``as_of.csv``'s SHA-256 and
    the manifest's (if any); None without an as-of file (such data are refused, never served
    from the cache)."""
    if not (directory / AS_OF_FILE).exists():
        return None
    names = (AS_OF_FILE, MANIFEST_FILE) if (directory / MANIFEST_FILE).exists() else (
        AS_OF_FILE,)
    found = file_hashes(directory, names)
    return None if found is None else ("|".join(n for n, _ in found),
                                       "|".join(h for _, h in found))


def _cached_dataset(directory: Path, cache: Path | None) -> Dataset | None:
    """The cached dataset of ``directory``'s current files, or None (no cache, or stale)."""
    if cache is None or not directory.is_dir():
        return None
    hashes = file_hashes(directory, SCHEMAS)
    as_of_identity = _as_of_identity(directory)
    if hashes is None or as_of_identity is None:
        return None
    key = cache_key((*hashes, as_of_identity))
    # The entry is still checked, not decoded again: the dataset this process decoded from
    # the same files serves; a damaged or replaced entry is read (and refused) as before.
    loaded = _LOADED.get((str(directory), key))
    if loaded is not None and loaded[1] == sound_manifest(cache, key):
        return loaded[0]
    entry = read_entry(cache, key)
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
    return _remember(cache, directory, key, Dataset(
        **tables, data_dir=directory, file_hashes=hashes, data_as_of=data_as_of))


#: Datasets this process loaded from the cache, by directory and cache key (the files'
#: SHA-256, the parsing code's and the libraries'), with the cache entry's manifest. A
#: Dataset is immutable (its frames copy on write), so one object serves every later load
#: of byte-identical files while their entry is unchanged, and its per-dataset memos
#: (:mod:`forecast.data.memo`) with it: notebooks, sweeps and tests load the data per call.
_LOADED: dict[tuple[str, str], tuple[Dataset, dict[str, Any]]] = {}
#: Datasets kept (a few data directories' worth).
_LOADED_MAX = 8


def _remember(cache: Path | None, directory: Path, key: str, dataset: Dataset) -> Dataset:
    manifest = sound_manifest(cache, key)
    if manifest is not None:
        if len(_LOADED) >= _LOADED_MAX:
            _LOADED.clear()
        _LOADED[(str(directory), key)] = (dataset, manifest)
    return dataset


def _read_as_of(directory: Path, issues: list[Issue]) -> tuple[pd.Timestamp | None, str, bool]:
    """The as-of bound of the observations, where it comes from, and whether a file gave it.

    The bound is ``as_of.csv``'s one date (the last day of its span); None (the problem
    recorded) when the file is missing or not valid.
    """
    today = _today()
    path = directory / AS_OF_FILE
    if not path.exists():
        issues.append(Issue(AS_OF_FILE, None, None,
                            "file is missing: the data need their as-of date (one row: as_of,"
                            "source,notes), or the observations could not be checked against "
                            "it and the date would silently become today"))
        return None, AS_OF_FILE, False
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
    check_manifest(directory, parsed, issues)
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
        **bounds_tables(parsed),
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
    """Amazon's statements for the spend model's AWS part (M5): dated, numeric columns as floats."""
    frame = normalise.dated_frame(rows, "date")
    for column in ("value", "chips_per_instance"):
        frame[column] = frame[column].astype(float)
    return frame
