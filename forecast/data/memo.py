"""Values derived from a dataset, kept per dataset object.

A forecast derives the same tables from the data on every call (the covered catalogue, the
chips' specs and capex, the vendor groups); sensitivity runs, ``believe`` and reports call it
hundreds of times on one dataset. A :class:`~forecast.data.tables.Dataset` is immutable
(its methods return new objects), so a value computed from one is kept under the object's
identity, with a weak reference proving that the identity still names that object (an id
is reused once its object is gone). Callers copy a mutable value before changing it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["MAX_ENTRIES", "per_dataset"]

#: Entries kept before the memo is emptied (a few datasets' worth of keys).
MAX_ENTRIES = 64

_MEMO: dict[tuple[Hashable, ...], tuple[weakref.ref, Any]] = {}

T = TypeVar("T")


def per_dataset(dataset: Any, key: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
    """``compute()`` for ``dataset`` and ``key``, computed once per dataset object.

    Parameters
    ----------
    dataset
        The dataset the value derives from (any object that takes a weak reference).
    key
        What else the value depends on: the function's name and its other arguments.
    compute
        Computes the value; called when this dataset object has none for ``key``.
    """
    full = (id(dataset), *key)
    cached = _MEMO.get(full)
    if cached is not None and cached[0]() is dataset:
        return cached[1]
    value = compute()
    if len(_MEMO) >= MAX_ENTRIES:
        _MEMO.clear()
    _MEMO[full] = (weakref.ref(dataset), value)
    return value
