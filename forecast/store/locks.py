"""The fit store's two OS file locks, released by the kernel when their process dies.

- ``<artifacts>/refit.lock``: held by a refit (and by ``fits gc``) for its whole run. While a
  process holds it no other refit runs, so whatever a refit left in the store (its data
  staging, its temporary files, a registry row without an outcome) belongs to a dead run.
- ``<artifacts>/publish.lock``: held shared by every writer of a fit (a refit's or a
  forecast's first fit) while its hidden staging directory exists; taken exclusively by the
  clean-up, which therefore only removes staging directories no live writer owns.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from forecast.core.errors import FitError, RefitBusyError

REFIT_LOCK = "refit.lock"
PUBLISH_LOCK = "publish.lock"


def _open_lock(base: Path, name: str) -> tuple[Path, int]:
    path = base / name
    try:
        base.mkdir(parents=True, exist_ok=True)
        return path, os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise FitError(f"{path}: cannot open the lock ({exc.strerror or exc})") from None


@contextlib.contextmanager
def refit_lock(base: Path) -> Iterator[Path]:
    """Hold ``base/refit.lock``, recording the holder's pid in it.

    Parameters
    ----------
    base
        The artifacts root.

    Raises
    ------
    RefitBusyError
        When another process holds it.
    """
    path, handle = _open_lock(base, REFIT_LOCK)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(handle, 200, 0).decode(errors="replace").strip() or "unknown"
            raise RefitBusyError(f"another refit is running ({holder}); lock {path}: "
                                 "try again when it has finished") from None
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"pid {os.getpid()} since "
                  f"{datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ}".encode(), 0)
        yield path
    finally:
        os.close(handle)  # closing the descriptor releases the lock


@contextlib.contextmanager
def publish_lock(base: Path, exclusive: bool = False) -> Iterator[bool]:
    """Hold ``base/publish.lock``: shared (blocking) to write a fit, exclusive to clean up.

    Parameters
    ----------
    base
        The artifacts root.
    exclusive
        Take it exclusively without waiting: yields False (and holds nothing) while a
        writer holds it.

    Yields
    ------
    bool
        Whether the lock is held.
    """
    _, handle = _open_lock(base, PUBLISH_LOCK)
    try:
        if exclusive:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
        else:
            fcntl.flock(handle, fcntl.LOCK_SH)
        yield True
    finally:
        os.close(handle)
