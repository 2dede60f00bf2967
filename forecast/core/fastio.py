"""Pickle-free ``.npz`` copies of a fitted model's posterior and data frames.

A saved fit keeps its archival files (NetCDF posterior, Parquet frames: ArviZ, pandas and
other tools read them). Next to them go plain-array copies that a warm forecast loads in
milliseconds: reading the NetCDF posteriors took about half a second, and the Parquet frames
about 70 ms (with 30 ms of pyarrow's dataset modules imported on the way) against the 2 s
a forecast has.

Every copy is optional: a loader returns None when a copy is missing, unreadable or holds
something it cannot represent, and the caller reads the archival file instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

POSTERIOR_ARRAYS = "posterior.npz"
POSTERIOR_LAYOUT = "posterior_layout.json"
FRAME_ARRAYS = "data.npz"
FRAME_LAYOUT = "data_layout.json"


def _text(values: np.ndarray) -> np.ndarray:
    # Labels are object arrays in memory; store them as fixed-width text (no pickle).
    return values.astype(str) if values.dtype == object else values


# --------------------------------------------------------------------------- posterior


def save_posterior(posterior: xr.Dataset, directory: Path) -> None:
    """Write ``posterior`` as one ``.npz`` plus its variables' dims and coords in JSON."""
    arrays = {f"var__{name}": _text(np.asarray(values.values))
              for name, values in posterior.items()}
    arrays.update({f"coord__{name}": _text(np.asarray(values.values))
                   for name, values in posterior.coords.items()})
    layout = {"vars": {name: list(map(str, values.dims)) for name, values in posterior.items()},
              "coords": {name: list(map(str, values.dims))
                         for name, values in posterior.coords.items()}}
    np.savez(directory / POSTERIOR_ARRAYS, **arrays)
    (directory / POSTERIOR_LAYOUT).write_text(json.dumps(layout))


def load_posterior(directory: Path) -> xr.Dataset | None:
    """The posterior written by :func:`save_posterior`, or None without a readable copy."""
    try:
        layout = json.loads((directory / POSTERIOR_LAYOUT).read_text())
        stored = np.load(directory / POSTERIOR_ARRAYS, allow_pickle=False)
    except (OSError, ValueError):
        return None
    try:
        with stored:
            coords = {name: (dims, stored[f"coord__{name}"])
                      for name, dims in layout["coords"].items()}
            data = {name: (dims, stored[f"var__{name}"])
                    for name, dims in layout["vars"].items()}
    except (KeyError, OSError, ValueError):
        return None
    return xr.Dataset(data, coords=coords)


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


def save_frames(frames: Mapping[str, pd.DataFrame], directory: Path) -> bool:
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
    np.savez(directory / FRAME_ARRAYS, **arrays)
    (directory / FRAME_LAYOUT).write_text(json.dumps(layout))
    return True


def load_frames(directory: Path, names: Iterable[str]) -> dict[str, pd.DataFrame] | None:
    """The frames written by :func:`save_frames`, or None without a readable copy of all."""
    try:
        layout = json.loads((directory / FRAME_LAYOUT).read_text())
        stored = np.load(directory / FRAME_ARRAYS, allow_pickle=False)
    except (OSError, ValueError):
        return None
    frames = {}
    try:
        with stored:
            for name in names:
                spec = layout[name]
                columns = {}
                for position, (column, kind) in enumerate(
                        zip(spec["columns"], spec["kinds"], strict=True)):
                    parts = {part: stored[f"{name}/{position}/{part}"]
                             for part in (("values", "missing") if kind == "text"
                                          else ("values",))}
                    columns[column] = _column_from_arrays(kind, parts)
                frame = pd.DataFrame(columns, columns=spec["columns"])
                if len(frame) != spec["rows"]:
                    return None
                frames[name] = frame
    except (KeyError, OSError, ValueError, TypeError):
        return None
    return frames
