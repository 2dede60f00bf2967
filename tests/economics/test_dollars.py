"""Tests of forecast.economics.dollars: units x price per unit, per vendor and quarter."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from forecast.economics.dollars import sample_vendor_dollars


def _toy_dataset(dataset):
    """Two vendors, one quarter, deterministic units and prices."""
    base = dataset.volumes.iloc[:1].copy()
    rows = []
    for group, chip, units in (("nvidia", "H100 SXM5 80GB", 1000.0),
                               ("google", "TPU v6e (Trillium)", 4000.0)):
        row = base.iloc[0].copy()
        row["vendor_group"], row["chip"], row["chip_as_recorded"] = group, chip, chip
        row["units_median"] = row["units_p5"] = row["units_p95"] = units
        row["quarter"] = pd.Period("2024Q2", freq="Q")
        rows.append(row)
    volumes = pd.DataFrame(rows).reset_index(drop=True)
    volumes["quarter"] = volumes["quarter"].astype("period[Q-DEC]")
    prices = dataset.unit_prices
    keep = prices[(prices["chip"] == "TPU v6e (Trillium)")
                  | ((prices["chip_as_recorded"] == "H100")
                     & prices["price_type"].str.contains("average"))]
    return dataclasses.replace(dataset, volumes=volumes, unit_prices=keep.reset_index(drop=True))


def test_dollars_are_units_times_price(dataset):
    toy = _toy_dataset(dataset)
    dollars = sample_vendor_dollars(toy, draws=4000, seed=0, point_spread=0.0)
    assert dollars.attrs["unit"] == "USD billions per quarter"
    nvidia = dollars.sel(quarter="2024Q2", vendor="nvidia").values
    google = dollars.sel(quarter="2024Q2", vendor="google").values
    # H100 2024 ASP uniform on 23-30k, 1000 chips; TPU v6e a point 6,518, 4000 chips.
    assert nvidia.min() >= 1000 * 23000 / 1e9 and nvidia.max() <= 1000 * 30000 / 1e9
    assert nvidia.mean() == pytest.approx(1000 * 26500 / 1e9, rel=0.01)
    np.testing.assert_allclose(google, 4000 * 6518 / 1e9)
    assert np.isnan(dollars.sel(vendor="aws").values).all()  # not observed is NaN, not 0
    assert list(dollars["vendor"].values) == ["nvidia", "amd", "google", "aws"]

