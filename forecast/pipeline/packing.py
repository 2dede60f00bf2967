"""Items taken apart and cut into chunks for sending to Dask workers (see
:mod:`forecast.pipeline.execution`, which sends them).

An item that is a dataclass is sent field by field; a field value that several items share
(the same object) becomes a :class:`_Slot`, sent once and passed to each chunk separately.
The items are cut into contiguous chunks, each one task running ``fn`` over its items in
order (:func:`run_chunk`). Nothing here imports Dask.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Chunks per worker: enough that a worker done early takes another chunk while tasks of
#: unequal length finish, few enough that Dask's cost per task stays small.
CHUNKS_PER_WORKER = 4
#: Least work (estimated) a chunk is cut to hold when items are timed: Dask's cost per task
#: (a scheduler round trip and the pickles, milliseconds) is then about 1% of it or less; items
#: this long or longer go one per chunk, the finest balance.
MIN_CHUNK_SECONDS = 1.0

#: Values never worth scattering, however many items share them.
_SCALARS = (numbers.Number, str, bytes, type(None), datetime.date, datetime.timedelta)


@dataclass(frozen=True)
class _Packed:
    """An item taken apart for sending: its class and field values, shared ones as slots."""

    cls: type | None
    names: tuple[str, ...]
    values: tuple[Any, ...]


@dataclass(frozen=True)
class _Slot:
    """Stands for the ``index``-th shared value, passed to the task separately."""

    index: int


def _fields(item: Any) -> tuple[type | None, tuple[str, ...], tuple[Any, ...]]:
    """An item's class, field names and values; ``(None, (), (item,))`` when it is not a
    dataclass instance that can be rebuilt from its fields alone."""
    if not dataclasses.is_dataclass(item) or isinstance(item, type):
        return None, (), (item,)
    fields = dataclasses.fields(item)
    names = tuple(f.name for f in fields)
    state = getattr(item, "__dict__", None)
    if state is not None and set(state) != set(names):
        return None, (), (item,)
    return type(item), names, tuple(getattr(item, name) for name in names)


def _rebuild(packed: _Packed, shared: tuple[Any, ...]) -> Any:
    """The item again, as unpickling would make it (no ``__init__`` call)."""
    values = [shared[v.index] if isinstance(v, _Slot) else v for v in packed.values]
    if packed.cls is None:
        return values[0]
    item = object.__new__(packed.cls)
    for name, value in zip(packed.names, values, strict=True):
        object.__setattr__(item, name, value)
    return item


def pack_items(items: list[Any]) -> tuple[list[_Packed], list[Any]]:
    """Take items apart; values shared by several items (by identity) become slots.

    Returns the packed items and the shared values, in slot order.
    """
    parts = [_fields(item) for item in items]
    counts: dict[int, int] = {}
    for _, _, values in parts:
        for value in {id(v): v for v in values if not isinstance(v, _SCALARS)}.values():
            counts[id(value)] = counts.get(id(value), 0) + 1
    slots: dict[int, _Slot] = {}
    shared: list[Any] = []
    packed = []
    for cls, names, values in parts:
        out = []
        for value in values:
            if counts.get(id(value), 0) > 1:
                if id(value) not in slots:
                    slots[id(value)] = _Slot(len(shared))
                    shared.append(value)
                out.append(slots[id(value)])
            else:
                out.append(value)
        packed.append(_Packed(cls, names, tuple(out)))
    return packed, shared


def run_chunk(fn: Callable[[Any], Any], chunk: list[_Packed], *shared: Any) -> list[Any]:
    """Task body on a worker: rebuild each item of the chunk and call ``fn`` on it, in order."""
    return [fn(_rebuild(packed, shared)) for packed in chunk]


def chunk_count(total: int, workers: int, item_seconds: float | None = None) -> int:
    """How many chunks to cut ``total`` items into for ``workers`` workers.

    :data:`CHUNKS_PER_WORKER` per worker; more when the items, at ``item_seconds`` each
    (when timed), hold more than :data:`MIN_CHUNK_SECONDS` a chunk that way; never more
    chunks than items.
    """
    count = max(1, workers) * CHUNKS_PER_WORKER
    if item_seconds is not None and item_seconds > 0:
        count = max(count, math.floor(total * item_seconds / MIN_CHUNK_SECONDS))
    return max(1, min(total, count))


def chunk_bounds(total: int, chunks: int) -> list[tuple[int, int]]:
    """``[start, stop)`` of ``chunks`` contiguous chunks covering ``range(total)``, in order,
    their sizes differing by one at most (the larger first)."""
    chunks = max(1, min(total, chunks))
    size, extra = divmod(total, chunks)
    bounds, start = [], 0
    for index in range(chunks):
        stop = start + size + (index < extra)
        bounds.append((start, stop))
        start = stop
    return bounds if total else []
