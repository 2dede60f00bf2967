"""Content digests of model inputs: equal digests, equal inputs (frames, arrays, values).

Floating-point values are hashed at single precision. Inputs derived with ``log`` or ``exp``
can differ in their last bits between CPUs (numpy picks SIMD kernels by CPU, e.g.
AVX-512 or AVX2), so a digest of the double-precision bits would give the same data another
model key on another machine, and a store or the shipped fit would never be reused there.
Values that agree to single precision (a relative 6e-8) give the same posterior far inside
its Monte Carlo error.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np
import pandas as pd


def content_digest(value: Any) -> str:
    """SHA-256 of a model's inputs: frames, arrays, dataclasses, mappings and scalars."""
    hasher = hashlib.sha256()

    def feed(item: Any) -> None:
        if isinstance(item, pd.DataFrame):
            hasher.update(repr((list(item.columns), item.shape)).encode())
            hasher.update(pd.util.hash_pandas_object(_single_frame(item), index=True)
                          .to_numpy().tobytes())
        elif isinstance(item, pd.Series | pd.Index):
            hasher.update(pd.util.hash_pandas_object(_single(pd.Series(item)), index=False)
                          .to_numpy().tobytes())
        elif isinstance(item, np.ndarray):
            hasher.update(repr((item.shape, item.dtype.str)).encode())
            hasher.update(np.ascontiguousarray(_single(item)).tobytes())
        elif isinstance(item, float | np.floating):
            hasher.update(repr(float(_single(np.float64(item)))).encode())
        elif is_dataclass(item) and not isinstance(item, type):
            for entry in fields(item):
                hasher.update(entry.name.encode())
                feed(getattr(item, entry.name))
        elif isinstance(item, Mapping):
            for key in sorted(item, key=str):
                hasher.update(str(key).encode())
                feed(item[key])
        elif isinstance(item, list | tuple):
            hasher.update(f"seq{len(item)}".encode())
            for element in item:
                feed(element)
        else:
            hasher.update(repr(item).encode())

    feed(value)
    return hasher.hexdigest()


def _single(values: Any) -> Any:
    """Floating-point ``values`` (array, Series or scalar) at single precision, others as
    they are."""
    dtype = getattr(values, "dtype", None)
    if dtype is None or not (isinstance(dtype, np.dtype) and dtype.kind == "f"):
        return values
    with np.errstate(over="ignore"):  # beyond float32's range: inf, still one key
        return values.astype(np.float32)


def _single_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its floating-point columns at single precision."""
    floats = [name for name, dtype in frame.dtypes.items()
              if isinstance(dtype, np.dtype) and dtype.kind == "f"]
    return frame.astype(dict.fromkeys(floats, np.float32)) if floats else frame
