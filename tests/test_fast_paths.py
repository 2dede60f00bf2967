"""The warm forecast's fast paths compute exactly what the slower code they replace did."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.models.base import FittedModel
from forecast.models.market import vendor_log_shares


def _fitted(posterior: xr.Dataset) -> FittedModel:
    return FittedModel(posterior=posterior, data={}, config={}, summary_table=pd.DataFrame())


def test_stacked_equals_xarray_stack() -> None:
    rng = np.random.default_rng(0)
    posterior = xr.Dataset(
        {
            "scalar": (("chain", "draw"), rng.normal(size=(3, 7))),
            "vector": (("chain", "draw", "vendor"), rng.normal(size=(3, 7, 4))),
            # Stored in another dim order: chain and draw must still come first.
            "matrix": (("quarter", "chain", "draw", "vendor"), rng.normal(size=(5, 3, 7, 4))),
        },
        coords={"chain": [0, 1, 2], "draw": np.arange(7), "vendor": list("abcd"),
                "quarter": [f"2025Q{k}" for k in range(1, 5)] + ["2026Q1"]},
    )
    fitted = _fitted(posterior)
    for name in posterior.data_vars:
        expected = (posterior[name].stack(sample=("chain", "draw"))
                    .transpose("sample", ...).values)
        got = fitted.stacked(name)
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
        got[...] = 0.0  # a copy: callers may write into it
    assert float(np.abs(posterior["vector"]).sum()) > 0


@pytest.mark.parametrize("draws", [1, 5, 400])
def test_batched_vendor_log_shares_equal_the_per_draw_loop(draws: int) -> None:
    eta = np.random.default_rng(draws).normal(scale=3.0, size=(draws, 3, 21))
    expected = np.stack([vendor_log_shares(eta[i]) for i in range(draws)])
    np.testing.assert_array_equal(vendor_log_shares(eta, axis=1), expected)
