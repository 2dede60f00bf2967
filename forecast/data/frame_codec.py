"""Data frames as plain arrays plus a JSON layout: a format that cannot run code when read.

The validated-dataset cache (:mod:`forecast.data.cache`) stores each table of a
:class:`~forecast.data.dataset.Dataset` this way, in an ``.npz`` read with
``allow_pickle=False``: numbers, booleans and datetimes as themselves, text as fixed-width
unicode with a mask of missing values, periods as their ordinals, categoricals as codes and
categories, nullable integers as values and a mask. A frame holding anything else is not
encoded (the cache then keeps nothing and the data are parsed again next time).

Decoding trusts nothing in the layout: dtypes are rebuilt from a short list of forms, and any
mismatch raises ``ValueError`` (or ``KeyError``/``TypeError``), which the cache treats as a
bad entry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["decode_frame", "encode_frame"]

Layout = dict[str, Any]
Arrays = dict[str, np.ndarray]

_PERIOD_DTYPE = re.compile(r"^period\[[A-Z]{1,3}(-[A-Z]{3})?\]$")
_MASKED_DTYPES = ("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64")
_TEXT_DTYPES = ("object", "str", "string")


def _is_text(value: object) -> bool:
    return (isinstance(value, str) or value is None or value is pd.NA
            or (isinstance(value, float) and value != value))


def _text_arrays(values: Any) -> dict[str, np.ndarray] | None:
    """Text values (str or missing) as fixed-width unicode plus a missing mask."""
    objects = np.asarray(values, dtype=object)
    if not all(map(_is_text, objects)):
        return None
    missing = np.array([not isinstance(value, str) for value in objects], dtype=bool)
    text = np.array(["" if gap else value for value, gap in zip(objects, missing, strict=True)],
                    dtype=str)
    return {"values": text, "missing": missing}


def _encode_column(column: pd.Series) -> tuple[dict[str, Any], Arrays] | None:
    """``(spec, arrays)`` of one column, or None for a type this format does not keep.

    Plain numpy columns and text columns are returned with the part names ``block`` (and
    ``missing``): :func:`encode_frame` stacks them into one 2-D array per dtype.
    """
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biufM":
        return {"kind": "array"}, {"block": column.to_numpy()}
    if isinstance(dtype, pd.PeriodDtype) and _PERIOD_DTYPE.match(str(dtype)):
        return {"kind": "period", "dtype": str(dtype)}, {"values": column.array.asi8.copy()}
    if isinstance(dtype, pd.CategoricalDtype):
        categories = _text_arrays(dtype.categories)
        if categories is None or categories["missing"].any():
            return None
        return ({"kind": "category", "ordered": bool(dtype.ordered)},
                {"codes": column.cat.codes.to_numpy(), "categories": categories["values"]})
    if str(dtype) in _MASKED_DTYPES:
        masked = column.array
        return ({"kind": "masked", "dtype": str(dtype)},
                {"values": np.asarray(masked._data), "missing": np.asarray(masked._mask)})
    if str(dtype) in _TEXT_DTYPES:
        arrays = _text_arrays(column.to_numpy(dtype=object))
        if arrays is None:
            return None
        return {"kind": "text", "dtype": str(dtype)}, {"block": arrays["values"],
                                                      "missing": arrays["missing"]}
    return None


def _block_column(spec: Mapping[str, Any], arrays: Mapping[str, np.ndarray],
                  part: str = "block") -> np.ndarray:
    """Column ``spec["column"]`` of the 2-D block the spec names."""
    block = arrays[f"{spec[part]}"]
    if block.ndim != 2:
        raise ValueError("a block must be 2-D")
    return np.ascontiguousarray(block[:, int(spec["column"])])


def _decode_column(spec: Mapping[str, Any], arrays: Mapping[str, np.ndarray],
                   position: int) -> Any:
    kind = spec["kind"]
    if kind == "array":
        values = _block_column(spec, arrays)
        if values.dtype.kind not in "biufM":
            raise ValueError(f"unexpected array dtype {values.dtype}")
        return values
    if kind == "text":
        values, missing = _block_column(spec, arrays), _block_column(spec, arrays, "missing")
        if spec["dtype"] not in _TEXT_DTYPES or values.dtype.kind != "U":
            raise ValueError("bad text column")
        if missing.dtype != np.bool_:
            raise ValueError("bad missing-value mask")
        objects = values.astype(object)
        objects[missing] = None
        return pd.array(objects, dtype=spec["dtype"])
    parts = {key[len(f"c{position}_"):]: value for key, value in arrays.items()
             if key.startswith(f"c{position}_")}
    if kind == "period":
        values = parts["values"]
        if not _PERIOD_DTYPE.match(str(spec["dtype"])) or values.dtype != np.int64:
            raise ValueError("bad period column")
        return pd.arrays.PeriodArray(values, dtype=pd.PeriodDtype(spec["dtype"][7:-1]))
    if kind == "category":
        codes, categories = parts["codes"], parts["categories"]
        if categories.dtype.kind != "U" or codes.dtype.kind not in "iu":
            raise ValueError("bad categorical column")
        return pd.Categorical.from_codes(codes, categories=categories.tolist(),
                                         ordered=bool(spec["ordered"]))
    if kind == "masked":
        values, missing = parts["values"], parts["missing"]
        if (spec["dtype"] not in _MASKED_DTYPES or values.dtype.kind not in "iu"
                or missing.dtype != np.bool_ or missing.shape != values.shape):
            raise ValueError("bad nullable integer column")
        result = pd.array(values, dtype=spec["dtype"])
        result[missing] = pd.NA
        return result
    raise ValueError(f"unknown column form {kind!r}")


def _stack(blocks: dict[str, list[np.ndarray]], specs: list[dict[str, Any]],
           pending: list[tuple[int, str, str]], arrays: Arrays) -> None:
    """Stack the block parts of the columns into 2-D arrays, naming them in the specs."""
    names: dict[str, str] = {}
    for position, part, group in pending:
        names.setdefault(group, f"b{len(names)}")
        specs[position][part] = names[group]
    for group, columns in blocks.items():
        arrays[names[group]] = np.stack(columns, axis=1)


def encode_frame(frame: pd.DataFrame) -> tuple[Layout, Arrays] | None:
    """A frame as a JSON-able layout and named arrays, or None if it cannot be kept exactly.

    Parameters
    ----------
    frame : pandas.DataFrame
        With a default ``RangeIndex`` and unique text column names.

    Returns
    -------
    (dict, dict of str to numpy.ndarray) or None
        The layout (columns, their forms, rows) and the arrays; None when a column's type is
        not one this format keeps, or decoding would not give back an equal frame.
    """
    columns = list(frame.columns)
    index = frame.index
    if (not isinstance(index, pd.RangeIndex) or index.start != 0 or index.step != 1
            or index.name is not None or len(set(columns)) != len(columns)
            or not all(isinstance(c, str) for c in columns)):
        return None
    specs: list[dict[str, Any]] = []
    arrays: Arrays = {}
    blocks: dict[str, list[np.ndarray]] = {}
    pending: list[tuple[int, str, str]] = []
    for position in range(len(columns)):
        encoded = _encode_column(frame.iloc[:, position])
        if encoded is None:
            return None
        spec, parts = encoded
        for part, value in parts.items():
            if "block" not in parts:
                arrays[f"c{position}_{part}"] = value
                continue
            # One block per form and dtype; text of any width stacks into one block.
            dtype = "U" if value.dtype.kind == "U" else value.dtype.str
            group = f"{spec['kind']}:{part}:{dtype}"
            spec["column"] = len(blocks.setdefault(group, []))
            blocks[group].append(value)
            pending.append((position, part, group))
        specs.append(spec)
    _stack(blocks, specs, pending, arrays)
    layout = {"columns": columns, "specs": specs, "rows": len(frame)}
    try:
        same = decode_frame(layout, arrays).equals(frame)
    except (KeyError, TypeError, ValueError):
        same = False
    return (layout, arrays) if same else None


def decode_frame(layout: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """The frame :func:`encode_frame` encoded.

    Raises
    ------
    KeyError, TypeError, ValueError
        When the layout or the arrays are not a valid encoding.
    """
    columns, specs, rows = layout["columns"], layout["specs"], layout["rows"]
    if (not isinstance(columns, list) or not isinstance(specs, list) or len(columns) != len(specs)
            or not all(isinstance(c, str) for c in columns) or not isinstance(rows, int)):
        raise ValueError("bad frame layout")
    data = {}
    for position, (name, spec) in enumerate(zip(columns, specs, strict=True)):
        values = _decode_column(spec, arrays, position)
        if len(values) != rows:
            raise ValueError("column length differs from the layout")
        data[name] = values
    frame = pd.DataFrame(data, columns=columns, index=pd.RangeIndex(rows))
    if len(frame) != rows:
        raise ValueError("row count differs from the layout")
    return frame
