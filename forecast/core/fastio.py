"""Pickle-free ``.npz`` copies of a fitted model's posterior and data frames.

A saved fit keeps its archival files (NetCDF posterior, Parquet frames: ArviZ, pandas and
other tools read them). Next to them go plain-array copies that a warm forecast loads
without the NetCDF engine, Parquet or pyarrow's dataset modules, whose import and reading
would take a large part of a forecast's time budget.

Every copy is optional: a loader returns None when a copy is missing, unreadable, fails its
checksum or holds something it cannot represent, and the caller reads the archival file
instead (which must then pass its own checksum: :func:`read_verified`). A copy failing its
checksum is named in a warning on the ``forecast.core.fastio`` logger.

Checksums are SHA-256 hex digests of whole files (:func:`sha256_file`), recorded by the fit
store when a fit is published and passed to the loaders as ``{file name: digest}``; without
them (fits stored before checksums were recorded) nothing is verified.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.errors import FitError

POSTERIOR_ARRAYS = "posterior.npz"
POSTERIOR_LAYOUT = "posterior_layout.json"
FRAME_ARRAYS = "data.npz"
FRAME_LAYOUT = "data_layout.json"

#: What reading a damaged or foreign file can raise, whichever library parses it.
UNREADABLE: tuple[type[BaseException], ...] = (
    OSError, ValueError, KeyError, TypeError, IndexError, EOFError, zipfile.BadZipFile,
    zlib.error)

_log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- checksums


def sha256_bytes(raw: bytes) -> str:
    """SHA-256 hex digest of ``raw``."""
    return hashlib.sha256(raw).hexdigest()


def sha256_file(path: Path) -> str:
    """SHA-256 hex digest of a file's bytes, read in blocks.

    Raises
    ------
    OSError
        When the file cannot be read.
    """
    with Path(path).open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def damaged(path: Path, why: str) -> FitError:
    """The error refusing a stored fit because of one of its files."""
    return FitError(f"{path}: {why}: the stored fit is damaged (restore the file, or move "
                    "the fit's directory out of the store)")


def verify_file(path: Path, expected: str | None) -> None:
    """Check a file against its recorded digest (nothing to check when ``expected`` is None).

    Raises
    ------
    FitError
        Naming the file, when it is missing, unreadable or its digest differs.
    """
    if expected is None:
        return
    try:
        digest = sha256_file(path)
    except FileNotFoundError:
        raise damaged(path, "missing") from None
    except OSError as exc:
        raise damaged(path, f"unreadable ({exc.strerror or exc})") from None
    if digest != expected:
        raise damaged(path, "checksum mismatch")


def _checked_bytes(path: Path, expected: str | None) -> tuple[bytes | None, str]:
    """``(bytes, "")``, or ``(None, why)`` when the file is missing, unreadable or differs."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return None, "missing"
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})"
    if expected is not None and sha256_bytes(raw) != expected:
        return None, "checksum mismatch"
    return raw, ""


def read_verified(path: Path, expected: str | None) -> bytes:
    """A file's bytes, checked against its recorded digest when there is one.

    Raises
    ------
    FitError
        Naming the file, when it is missing, unreadable or its digest differs.
    """
    raw, why = _checked_bytes(path, expected)
    if raw is None:
        raise damaged(path, why)
    return raw


def _read_copy(directory: Path, names: Iterable[str],
               checksums: Mapping[str, str] | None) -> dict[str, bytes] | None:
    """The bytes of every file of one fast copy, or None (warning when it is damaged).

    With ``checksums``, a copy they do not list was not written (silently None), and a copy
    they list that is missing or differs is damaged: named in a warning, then None.
    """
    contents = {}
    for name in names:
        if checksums is not None and name not in checksums:
            return None
        raw, why = _checked_bytes(directory / name, None if checksums is None
                                  else checksums[name])
        if raw is None:
            if checksums is not None:
                _log.warning("warning: %s: %s; reading the archival copy instead",
                             directory / name, why)
            return None
        contents[name] = raw
    return contents


def _text(values: np.ndarray) -> np.ndarray:
    # Labels are object arrays in memory; store them as fixed-width text (no pickle).
    return values.astype(str) if values.dtype == object else values


# --------------------------------------------------------------------------- posterior


def save_posterior(posterior: xr.Dataset, directory: Path, stem: str = "posterior",
                   compress: bool = False) -> None:
    """Write ``posterior`` as ``<stem>.npz`` plus its variables' dims and coords in
    ``<stem>_layout.json``.

    ``compress`` (the shipped fit): zip-deflated, each floating-point array stored as its
    byte planes (every value's first byte, then every second byte...): the sign and exponent
    bytes of posterior draws repeat, so the planes deflate to about a sixth less.
    """
    arrays = {f"var__{name}": _text(np.asarray(values.values))
              for name, values in posterior.items()}
    arrays.update({f"coord__{name}": _text(np.asarray(values.values))
                   for name, values in posterior.coords.items()})
    layout: dict[str, Any] = {
        "vars": {name: list(map(str, values.dims)) for name, values in posterior.items()},
        "coords": {name: list(map(str, values.dims))
                   for name, values in posterior.coords.items()}}
    if compress:
        planes = {key: value for key, value in arrays.items() if value.dtype.kind == "f"}
        layout["planes"] = {key: [value.dtype.str, list(value.shape)]
                            for key, value in planes.items()}
        arrays.update({key: _byte_planes(value) for key, value in planes.items()})
    (np.savez_compressed if compress else np.savez)(directory / f"{stem}.npz", **arrays)
    (directory / f"{stem}_layout.json").write_text(json.dumps(layout))


def _byte_planes(values: np.ndarray) -> np.ndarray:
    """``values``' bytes as (itemsize, size) planes: byte k of every value in row k."""
    flat = np.ascontiguousarray(values).reshape(-1)
    return flat.view(np.uint8).reshape(-1, values.dtype.itemsize).T.copy()


def _from_planes(planes: np.ndarray, dtype: str, shape: list[int]) -> np.ndarray:
    """The array :func:`_byte_planes` split."""
    return np.ascontiguousarray(planes.T).view(np.dtype(dtype)).reshape(shape)


def load_posterior(directory: Path, checksums: Mapping[str, str] | None = None,
                   stem: str = "posterior") -> xr.Dataset | None:
    """The posterior written by :func:`save_posterior`, or None without a sound copy.

    ``checksums`` (file name to digest, see the module docstring) are checked first. Draws
    stored as float32 (the shipped fit's) come back as float64, so that forecasts compute
    at one precision whatever the file holds.
    """
    names = (f"{stem}_layout.json", f"{stem}.npz")
    raw = _read_copy(directory, names, checksums)
    if raw is None:
        return None
    key = _decoded_key(names, checksums)
    if key in _DECODED:
        return _DECODED[key].copy(deep=False)
    posterior = _decode_posterior(raw, names)
    if posterior is not None and key is not None:
        for variable in posterior.variables.values():
            variable.values.flags.writeable = False  # shared by every later load
        _remember(key, posterior)
        return posterior.copy(deep=False)
    return posterior


def _decode_posterior(raw: Mapping[str, bytes], names: tuple[str, str]) -> xr.Dataset | None:
    try:
        layout = json.loads(raw[names[0]])
        planes = layout.get("planes", {})
        with np.load(io.BytesIO(raw[names[1]]), allow_pickle=False) as stored:

            def read(key: str) -> np.ndarray:
                if key in planes:
                    return _from_planes(stored[key], *planes[key])
                return stored[key]

            coords = {name: (dims, read(f"coord__{name}"))
                      for name, dims in layout["coords"].items()}
            data = {name: (dims, _widened(read(f"var__{name}")))
                    for name, dims in layout["vars"].items()}
        return xr.Dataset(data, coords=coords)
    except UNREADABLE:
        return None


def _widened(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float64) if values.dtype == np.float32 else values


# --------------------------------------------------------------------------- data frames


def _text_or_missing(value: object) -> bool:
    return (isinstance(value, str) or value is None or value is pd.NA
            or (isinstance(value, float) and value != value))


def _column_arrays(column: pd.Series) -> tuple[str, dict[str, np.ndarray]] | None:
    """A column as ``(kind, arrays)``, or None for a type this format does not keep."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biufM":
        return "array", {"values": column.to_numpy()}
    if isinstance(dtype, pd.PeriodDtype):
        return str(dtype), {"values": column.array.asi8.copy()}  # "period[Q-DEC]"
    text = isinstance(dtype, pd.StringDtype) or (
        isinstance(dtype, np.dtype) and dtype.kind == "O"
        and all(map(_text_or_missing, column.to_numpy())))
    if not text:
        return None
    missing = column.isna().to_numpy()
    values = column.to_numpy(dtype=object, na_value="")
    return "text", {"values": np.asarray(values, dtype=str), "missing": missing}


def _column_from_arrays(kind: str, arrays: Mapping[str, np.ndarray]) -> object:
    if kind == "array":
        return arrays["values"]
    if kind.startswith("period["):
        return pd.arrays.PeriodArray(arrays["values"], dtype=pd.api.types.pandas_dtype(kind))
    values = arrays["values"].astype(object)
    values[arrays["missing"]] = None
    # The text dtype pandas infers, as reading Parquet gives (str in pandas 3, else object).
    return pd.Series(values, dtype=pd.Series(["text"]).dtype).array


def save_frames(frames: Mapping[str, pd.DataFrame], directory: Path,
                compress: bool = False) -> bool:
    """Write ``frames`` (name to frame) as one ``.npz`` plus a JSON layout.

    Only frames with a default ``RangeIndex``, unique text column names and numeric, boolean,
    datetime, period or text columns are representable; with any other frame nothing is
    written and the result is False (the Parquet copies then serve alone).
    """
    arrays: dict[str, np.ndarray] = {}
    layout: dict[str, dict[str, object]] = {}
    for name, frame in frames.items():
        columns = list(frame.columns)
        if (not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0
                or frame.index.step != 1 or frame.index.name is not None
                or len(set(columns)) != len(columns)
                or not all(isinstance(c, str) for c in columns)):
            return False
        kinds = []
        for position in range(len(columns)):
            stored = _column_arrays(frame.iloc[:, position])
            if stored is None:
                return False
            kind, parts = stored
            kinds.append(kind)
            arrays.update({f"{name}/{position}/{part}": value for part, value in parts.items()})
        layout[name] = {"columns": columns, "kinds": kinds, "rows": len(frame)}
    (np.savez_compressed if compress else np.savez)(directory / FRAME_ARRAYS, **arrays)
    (directory / FRAME_LAYOUT).write_text(json.dumps(layout))
    return True


def load_frames(directory: Path, names: Iterable[str],
                checksums: Mapping[str, str] | None = None) -> dict[str, pd.DataFrame] | None:
    """The frames written by :func:`save_frames`, or None without a sound copy of all.

    ``checksums`` (file name to digest, see the module docstring) are checked first.
    """
    files = (FRAME_LAYOUT, FRAME_ARRAYS)
    raw = _read_copy(directory, files, checksums)
    if raw is None:
        return None
    names = list(names)
    key = _decoded_key(files, checksums, names)
    if key not in _DECODED:
        try:
            layout = json.loads(raw[FRAME_LAYOUT])
            with np.load(io.BytesIO(raw[FRAME_ARRAYS]), allow_pickle=False) as stored:
                frames = {name: _frame(stored, name, layout[name]) for name in names}
        except UNREADABLE:
            return None
        if any(frame is None for frame in frames.values()):
            return None
        if key is None:
            return frames
        _remember(key, frames)
    # Copies on write (pandas 3): a caller's change never reaches another load's frames.
    return {name: frame.copy(deep=False) for name, frame in _DECODED[key].items()}


#: Decoded fast copies by the digests of their checked files: a process that loads one fit
#: several times (notebooks, sweeps, tests) reads and checks its files each time but decodes
#: them once. Shared: posterior arrays are read-only, frames copy on write.
_DECODED: dict[tuple[Any, ...], Any] = {}
#: Decoded copies kept (a few fits' models).
_DECODED_MAX = 32


def _decoded_key(files: Iterable[str], checksums: Mapping[str, str] | None,
                 names: Iterable[str] = ()) -> tuple[Any, ...] | None:
    """What a decoded copy depends on; None (not kept) for files no checksums vouch for."""
    if checksums is None:
        return None
    return (*((name, checksums[name]) for name in files), *names)


def _remember(key: tuple[Any, ...], decoded: Any) -> None:
    if len(_DECODED) >= _DECODED_MAX:
        _DECODED.clear()
    _DECODED[key] = decoded


def _frame(stored: Any, name: str, spec: Mapping[str, Any]) -> pd.DataFrame | None:
    """One frame of an open ``data.npz``; None when its row count disagrees with the layout."""
    columns = {}
    for position, (column, kind) in enumerate(zip(spec["columns"], spec["kinds"], strict=True)):
        parts = {part: stored[f"{name}/{position}/{part}"]
                 for part in (("values", "missing") if kind == "text" else ("values",))}
        columns[column] = _column_from_arrays(kind, parts)
    frame = pd.DataFrame(columns, columns=spec["columns"])
    return frame if len(frame) == spec["rows"] else None
