"""Content digests of model inputs: equal digests, equal inputs (frames, arrays, values)."""

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
            hasher.update(pd.util.hash_pandas_object(item, index=True).to_numpy().tobytes())
        elif isinstance(item, pd.Series | pd.Index):
            hasher.update(pd.util.hash_pandas_object(pd.Series(item), index=False)
                          .to_numpy().tobytes())
        elif isinstance(item, np.ndarray):
            hasher.update(repr((item.shape, item.dtype.str)).encode())
            hasher.update(np.ascontiguousarray(item).tobytes())
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
