"""The validated-dataset cache: a clean parse is kept under the hash of its inputs.

Parsing and validating every file is a noticeable part of a warm forecast's time
budget. A dataset that validated cleanly is therefore kept under a key made of the SHA-256
of every data file (and of the as-of file), of the source of every module that parses them
(:data:`PARSING_SOURCES`) and of the library versions: any change to a data file (or to the
code that parses it) changes the key, so the files are validated again and problems are
reported exactly as without the cache. Only clean datasets are cached.

An entry is a directory ``dataset-<key>/`` of one ``.npz`` per table (plain arrays, read with
``allow_pickle=False``: see :mod:`forecast.data.frame_codec`) and ``manifest.json`` holding
the key, the SHA-256 of every ``.npz`` and the tables' layouts. Nothing in an entry can run
code when read. An entry whose manifest, checksums or arrays do not check out is deleted and
the data are parsed again. Files of the former pickle format are never read, and are removed
when an entry is written.

The cache lives in ``cache/`` under the artifacts root the caller passes
(:func:`data_cache_dir`), or where ``$FORECAST_DATA_CACHE`` says ("off" turns it off).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import shutil
import tempfile
import time
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.data.frame_codec import decode_frame, encode_frame
from forecast.data.schemas import DEFAULT_DATA_DIR

__all__ = [
    "CACHE_FORMAT",
    "DATA_CACHE_ENTRIES",
    "DATA_CACHE_ENV",
    "MANIFEST",
    "PARSING_SOURCES",
    "cache_key",
    "data_cache_dir",
    "entry_dir",
    "file_hashes",
    "read_entry",
    "write_entry",
]

#: Environment variable for the validated-dataset cache: a directory to keep it in, or "off".
#: Default: ``cache/`` under the artifacts root (the caller's, else ``$FORECAST_ARTIFACTS``,
#: else ``artifacts/``).
DATA_CACHE_ENV = "FORECAST_DATA_CACHE"
#: Cached datasets kept (least recently used ones are removed beyond this).
DATA_CACHE_ENTRIES = 8
#: Bumped when the stored layout changes in a way the source hashes would not show.
CACHE_FORMAT = 2
#: The manifest of an entry.
MANIFEST = "manifest.json"
#: Largest manifest and largest total of decompressed arrays read (an entry of the shipped
#: data is about 0.3 MB): anything bigger is not an entry this package wrote.
_MAX_MANIFEST_BYTES = 1 << 20
_MAX_ARRAY_BYTES = 256 << 20
#: Temporary directories of interrupted writes older than this are removed.
_STALE_SECONDS = 3600

_PACKAGE = Path(__file__).resolve().parents[1]
#: Every module whose code decides what a parsed dataset holds: the data layer's reading,
#: checking, normalising and storing modules and the quarter calendar they map quarters with.
PARSING_SOURCES: tuple[Path, ...] = (
    _PACKAGE / "data" / "schema_types.py",
    _PACKAGE / "data" / "schemas.py",
    _PACKAGE / "data" / "schemas_bounds.py",
    _PACKAGE / "data" / "csv_reader.py",
    _PACKAGE / "data" / "validation.py",
    _PACKAGE / "data" / "fiscal.py",
    _PACKAGE / "data" / "manifest.py",
    _PACKAGE / "data" / "normalise.py",
    _PACKAGE / "data" / "normalise_bounds.py",
    _PACKAGE / "data" / "dataset.py",
    _PACKAGE / "data" / "tables.py",
    _PACKAGE / "data" / "cache.py",
    _PACKAGE / "data" / "frame_codec.py",
    _PACKAGE / "core" / "calendar.py",
    _PACKAGE / "core" / "scenario_contract.py",
)


def data_cache_dir(artifacts: str | Path | None = None) -> Path | None:
    """Directory of the dataset cache of an artifacts root; None when the cache is off.

    Parameters
    ----------
    artifacts : str or pathlib.Path, optional
        The artifacts root (``--artifacts``); default ``$FORECAST_ARTIFACTS``, else the
        project's ``artifacts/``.

    Returns
    -------
    pathlib.Path or None
        ``$FORECAST_DATA_CACHE`` when set to a directory, None when it is "off", else
        ``<artifacts>/cache``.
    """
    setting = os.environ.get(DATA_CACHE_ENV, "").strip()
    if setting.lower() == "off":
        return None
    if setting:
        return Path(setting)
    root = artifacts or os.environ.get("FORECAST_ARTIFACTS")
    return Path(root or DEFAULT_DATA_DIR.parent / "artifacts") / "cache"


def file_hashes(directory: Path, names: Iterable[str]) -> tuple[tuple[str, str], ...] | None:
    """SHA-256 of every named file of ``directory``, in order; None if one is unreadable."""
    try:
        return tuple((name, hashlib.sha256((directory / name).read_bytes()).hexdigest())
                     for name in names)
    except OSError:
        return None


def _code_digest() -> str:
    digest = hashlib.sha256()
    for path in PARSING_SOURCES:
        digest.update(f"{path.parent.name}/{path.name}\n".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def cache_key(hashes: tuple[tuple[str, str], ...]) -> str:
    """Identity of a parsed dataset: the data files, the parsing code and the libraries.

    Parameters
    ----------
    hashes : tuple of (str, str)
        ``(file name, SHA-256)`` of every input of the parse, as :func:`file_hashes` returns
        (plus any other ``(name, identity)`` pair the parse depends on).

    Returns
    -------
    str
        A SHA-256 hex digest.
    """
    parts = {
        "format": CACHE_FORMAT,
        "code": _code_digest(),
        "python": platform.python_version(),
        "pandas": pd.__version__,
        "numpy": np.__version__,
        "files": [list(pair) for pair in hashes],
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def entry_dir(cache: Path, key: str) -> Path:
    """The directory of the entry stored under ``key``."""
    return cache / f"dataset-{key[:32]}"


def _discard(path: Path) -> None:
    """Remove an entry (a directory, or a file or link planted in its place)."""
    with contextlib.suppress(OSError):
        if path.is_symlink() or not path.is_dir():
            path.unlink(missing_ok=True)
        else:
            shutil.rmtree(path, ignore_errors=True)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _load_arrays(path: Path) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` of bounded size, never unpickling anything."""
    with zipfile.ZipFile(path) as archive:
        if sum(info.file_size for info in archive.infolist()) > _MAX_ARRAY_BYTES:
            raise ValueError("arrays too large for a cache entry")
    with np.load(path, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def _checked_manifest(entry: Path, key: str) -> dict[str, Any]:
    """An entry's manifest, its files checked against it; raises on any mismatch."""
    manifest_path = entry / MANIFEST
    if manifest_path.is_symlink() or manifest_path.stat().st_size > _MAX_MANIFEST_BYTES:
        raise ValueError("not a manifest of this cache")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if manifest.get("format") != CACHE_FORMAT or manifest.get("key") != key:
        raise ValueError("manifest of another key or format")
    checksums = manifest["files"]
    if set(checksums) != {f"{name}.npz" for name in manifest["tables"]}:
        raise ValueError("manifest lists other files than its tables")
    for name in manifest["tables"]:
        path = entry / f"{name}.npz"
        if path.is_symlink() or _sha256(path) != checksums[f"{name}.npz"]:
            raise ValueError(f"checksum of {name}.npz differs from the manifest")
    return manifest


def _read_checked(entry: Path, key: str) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """The tables and metadata of an entry; raises on any mismatch with its manifest."""
    manifest = _checked_manifest(entry, key)
    tables = {name: decode_frame(layout, _load_arrays(entry / f"{name}.npz"))
              for name, layout in manifest["tables"].items()}
    return tables, manifest["meta"]


def _entry(cache: Path | None, key: str) -> Path | None:
    if cache is None:
        return None
    entry = entry_dir(cache, key)
    return entry if entry.exists() or entry.is_symlink() else None


def sound_manifest(cache: Path | None, key: str) -> dict[str, Any] | None:
    """The manifest of ``key``'s entry when the entry exists and passes every check of
    :func:`read_entry` but the decoding of its tables; None otherwise (an entry that fails
    is deleted, as there)."""
    entry = _entry(cache, key)
    if entry is None:
        return None
    try:
        manifest = _checked_manifest(entry, key)
    except Exception:  # noqa: BLE001 - partial, corrupt or foreign: delete and rebuild it
        _discard(entry)
        return None
    with contextlib.suppress(OSError):
        os.utime(entry / MANIFEST)  # most recently used: pruned last
    return manifest


def read_entry(cache: Path | None, key: str) -> tuple[dict[str, pd.DataFrame], dict] | None:
    """The tables and metadata stored under ``key``, or None.

    Parameters
    ----------
    cache : pathlib.Path or None
        The cache directory (None: no cache).
    key : str
        The entry's key (:func:`cache_key`).

    Returns
    -------
    (dict of str to pandas.DataFrame, dict) or None
        None when there is no entry, or it failed a check (it is then deleted).
    """
    entry = _entry(cache, key)
    if entry is None:
        return None
    try:
        tables, meta = _read_checked(entry, key)
    except Exception:  # noqa: BLE001 - partial, corrupt or foreign: delete and rebuild it
        _discard(entry)
        return None
    with contextlib.suppress(OSError):
        os.utime(entry / MANIFEST)  # most recently used: pruned last
    return tables, meta


def write_entry(cache: Path | None, key: str, tables: Mapping[str, pd.DataFrame],
                meta: Mapping[str, Any]) -> bool:
    """Store ``tables`` and JSON-able ``meta`` under ``key``, atomically.

    Returns False, keeping nothing, when a table cannot be encoded exactly or the directory
    cannot be written: a failure only costs the next load its speed.
    """
    if cache is None:
        return False
    encoded = {name: encode_frame(frame) for name, frame in tables.items()}
    if any(value is None for value in encoded.values()):
        return False
    temporary = None
    try:
        cache.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(dir=cache, prefix=".dataset-", suffix=".tmp"))
        checksums = {}
        for name, (_, arrays) in encoded.items():
            np.savez(temporary / f"{name}.npz", **arrays)
            checksums[f"{name}.npz"] = _sha256(temporary / f"{name}.npz")
        manifest = {"format": CACHE_FORMAT, "key": key, "files": checksums, "meta": dict(meta),
                    "tables": {name: layout for name, (layout, _) in encoded.items()}}
        (temporary / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        final = entry_dir(cache, key)
        _discard(final)
        os.replace(temporary, final)
        temporary = None
        _prune(cache)
        return True
    except (OSError, TypeError, ValueError):
        return False
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


def _prune(cache: Path) -> None:
    """Keep the most recently used entries; remove former-format files and stale writes."""
    for legacy in cache.glob("dataset-*.pickle"):
        _discard(legacy)
    now = time.time()
    for stale in cache.glob(".dataset-*.tmp"):
        with contextlib.suppress(OSError):
            if now - stale.stat().st_mtime > _STALE_SECONDS:
                _discard(stale)

    def used(entry: Path) -> float:
        try:
            return (entry / MANIFEST).stat().st_mtime
        except OSError:
            return 0.0

    entries = sorted((p for p in cache.glob("dataset-*") if p.is_dir()), key=used, reverse=True)
    for old in entries[DATA_CACHE_ENTRIES:]:
        _discard(old)
