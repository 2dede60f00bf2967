"""Keep xarray from importing dask on the forecast path.

When dask is installed (the backtest and sweep commands run on it), xarray imports
``dask.array`` the first time it builds any array, only to check whether that array is a dask
array; dask pulls in SciPy on the way. The package never hands xarray a dask array (the Dask
layer ships numpy arrays and frames), so that check can be answered without the import:
xarray's cache of duck-array modules records dask's array type as absent, unless dask is
already loaded. A forecast then imports neither dask nor SciPy. xarray internals are private:
if they change, nothing breaks, the import just happens as before.
"""

from __future__ import annotations

import sys


def skip_dask_array_check() -> bool:
    """Record dask's array type as absent in xarray's cache; True when it was recorded."""
    if "dask" in sys.modules:
        return False
    try:
        from xarray.namedarray import pycompat
    except ImportError:  # pragma: no cover - another xarray layout
        return False
    cache = getattr(pycompat, "_cached_duck_array_modules", None)
    module_type = getattr(pycompat, "DuckArrayModule", None)
    if not isinstance(cache, dict) or module_type is None or "dask" in cache:
        return False
    absent = object.__new__(module_type)
    absent.module, absent.type, absent.available = None, (), False
    absent.version = pycompat.Version("0.0.0")
    cache["dask"] = absent
    _dask_free_collection_check()
    return True


def _dask_free_collection_check() -> None:
    """xarray's ``is_dask_collection`` imports ``dask.base`` whenever dask is installed; no
    object can be a dask collection while dask is not loaded, so answer that without it."""
    from xarray.namedarray import utils

    original = getattr(utils, "is_dask_collection", None)
    if original is None or getattr(original, "_forecast_wrapped", False):
        return

    def is_dask_collection(x: object) -> bool:
        return "dask" in sys.modules and original(x)

    is_dask_collection._forecast_wrapped = True  # type: ignore[attr-defined]
    utils.is_dask_collection = is_dask_collection
