"""The validated-dataset cache: a clean parse is kept under the hash of its inputs.

Parsing and validating every file takes about 0.1 s, a twentieth of a warm forecast's
budget. A dataset that validated cleanly is therefore pickled under a key made of the SHA-256
of every data file, of the source of every module that parses them (:data:`PARSING_SOURCES`)
and of the library versions: any change to a data file (or to the code that parses it)
changes the key, so the files are validated again and problems are reported exactly as
without the cache. Only clean datasets are cached. The pickle is the package's own output in
its own artifacts directory; anything unreadable there is ignored and rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import platform
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.data.schemas import DEFAULT_DATA_DIR

__all__ = [
    "CACHE_FORMAT",
    "DATA_CACHE_ENTRIES",
    "DATA_CACHE_ENV",
    "PARSING_SOURCES",
    "cache_key",
    "data_cache_dir",
    "file_hashes",
    "read_entry",
    "write_entry",
]

#: Environment variable for the validated-dataset cache: a directory to keep it in, or "off".
#: Default: ``cache/`` under the artifacts root (``$FORECAST_ARTIFACTS`` or ``artifacts/``).
DATA_CACHE_ENV = "FORECAST_DATA_CACHE"
#: Cached datasets kept (least recently used ones are removed beyond this).
DATA_CACHE_ENTRIES = 8
#: Bumped when the pickled layout changes in a way the source hashes would not show.
CACHE_FORMAT = 1

_PACKAGE = Path(__file__).resolve().parents[1]
#: Every module whose code decides what a parsed dataset holds: the data layer's reading,
#: checking and normalising modules and the quarter calendar they map fiscal quarters with.
PARSING_SOURCES: tuple[Path, ...] = (
    _PACKAGE / "data" / "schemas.py",
    _PACKAGE / "data" / "csv_reader.py",
    _PACKAGE / "data" / "validation.py",
    _PACKAGE / "data" / "normalise.py",
    _PACKAGE / "data" / "dataset.py",
    _PACKAGE / "data" / "cache.py",
    _PACKAGE / "core" / "calendar.py",
)


def data_cache_dir() -> Path | None:
    """Directory of the dataset cache, or None when ``$FORECAST_DATA_CACHE`` is "off"."""
    setting = os.environ.get(DATA_CACHE_ENV, "").strip()
    if setting.lower() == "off":
        return None
    if setting:
        return Path(setting)
    artifacts = os.environ.get("FORECAST_ARTIFACTS") or DEFAULT_DATA_DIR.parent / "artifacts"
    return Path(artifacts) / "cache"


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
        ``(file name, SHA-256)`` of every data file, as :func:`file_hashes` returns.

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


def _entry_path(cache: Path, key: str) -> Path:
    return cache / f"dataset-{key[:32]}.pickle"


def read_entry(key: str) -> Any | None:
    """The object stored under ``key``, or None (no cache, no entry, or not readable)."""
    cache = data_cache_dir()
    if cache is None:
        return None
    path = _entry_path(cache, key)
    try:
        with path.open("rb") as handle:
            stored_key, value = pickle.load(handle)
    except Exception:  # noqa: BLE001 - missing, partial or foreign: rebuild it
        return None
    if stored_key != key:
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # most recently used: pruned last
    return value


def write_entry(key: str, value: Any) -> None:
    """Store ``value`` under ``key`` atomically; failures only cost the next load its speed."""
    cache = data_cache_dir()
    if cache is None:
        return
    temporary = None
    try:
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=cache, prefix=".dataset-", suffix=".tmp",
                                         delete=False) as handle:
            temporary = Path(handle.name)
            pickle.dump((key, value), handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, _entry_path(cache, key))
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
