"""xarray answers its dask checks without importing dask on the forecast path, and normally
once a command has loaded dask itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("dask")


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_xarray_work_imports_no_dask() -> None:
    out = _run(
        "import sys, numpy as np, forecast.core, xarray as xr\n"
        "d = xr.Dataset({'a': (('x',), np.arange(4.0))})\n"
        "q = d.quantile([0.1, 0.9], dim='x').sel(quantile=0.9)['a'].item()\n"
        "print(q, sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'scipy'}))\n")
    assert out == "2.7 []"


def test_dask_arrays_still_work_once_dask_is_loaded() -> None:
    out = _run(
        "import forecast.core, dask.array as da, xarray as xr\n"
        "from xarray.namedarray.utils import is_dask_collection\n"
        "a = xr.DataArray(da.ones(4, chunks=2), dims='x')\n"
        "print(is_dask_collection(a.data), float(a.sum().compute()))\n")
    assert out == "True 4.0"
