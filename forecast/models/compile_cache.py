"""Compiled model code kept across processes, in a directory of the fit store.

PyTensor compiles a model's C code, and nutpie's numba backend its numba code, the first
time a process fits it; both libraries can keep what they compiled on disk (PyTensor's
``base_compiledir``, under which PyTensor's numba backend keeps numba's cache) and a later
process, a Dask worker or the next refit, then loads it instead of compiling again. By
default that directory is in the user's home; :func:`use_compile_cache` points it at
``<fit store>/cache/compiled`` so that the compiled code lives, and is cleared, with the fits
it serves (a container whose home is not kept still keeps its store).

Both caches index their entries with Python's pickle, so the directory must be writable by
this user alone: it is created private (mode 0700) and refused, with the user's home
default kept, when it is not (group- or world-writable, or owned by someone else).
PyTensor reads the setting when it is first imported: a process that has already imported
it (a notebook that fitted before) keeps its own, as does a user whose ``PYTENSOR_FLAGS``
name a ``base_compiledir``.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

#: The folder of the compiled code under a fit store.
CACHE_FOLDER = ("cache", "compiled")


def private_directory(directory: Path) -> bool:
    """Whether ``directory`` exists, belongs to this user and only this user may write it."""
    try:
        info = directory.stat()
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return False
    return not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def use_compile_cache(store: str | Path) -> Path | None:
    """Keep compiled model code under ``store/cache/compiled`` for this process and the
    processes it starts.

    Parameters
    ----------
    store
        The fit store's root directory.

    Returns
    -------
    pathlib.Path or None
        The directory in use, or None when PyTensor is already imported, the user's
        ``PYTENSOR_FLAGS`` choose one, or the directory cannot be made private.
    """
    flags = os.environ.get("PYTENSOR_FLAGS", "")
    if "pytensor" in sys.modules or "base_compiledir" in flags:
        return None
    directory = Path(store).joinpath(*CACHE_FOLDER).resolve()
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    if not private_directory(directory):
        return None
    os.environ["PYTENSOR_FLAGS"] = ",".join(filter(None, [flags,
                                                          f"base_compiledir={directory}"]))
    return directory
