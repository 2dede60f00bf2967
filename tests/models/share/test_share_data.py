"""forecast.models.share.data: the share model's measurements from a market fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from numpy.testing import assert_allclose

from forecast.core.errors import ForecastError
from forecast.models.share import measured_cells, share_data_from_market

VENDORS = ["nvidia", "amd", "google", "aws", "other"]
QUARTERS = ["2024Q1", "2024Q2", "2024Q3", "2024Q4", "2025Q1"]


class FakeMarket:
    """What the share model reads of a fitted market: in-sample spend draws and its data."""

    def __init__(self, spend: np.ndarray, data: dict[str, pd.DataFrame]):
        self.spend, self.data = spend, data

    def forecast(self, quarters, include_history=False):
        assert list(quarters) == [] and include_history
        return xr.Dataset({"spend": (("draw", "quarter", "vendor"), self.spend)},
                          coords={"quarter": QUARTERS, "vendor": VENDORS})


def _market(seed: int = 0) -> FakeMarket:
    rng = np.random.default_rng(seed)
    spend = np.exp(rng.normal(0.0, 0.1, (400, 5, 5)) + np.log([20.0, 1.0, 2.0, 0.5, 1.5]))
    data = {"observations": pd.DataFrame({
                "series": ["amd_data_center"] * 3 + ["broadcom_ai"] * 2 + ["nvidia_data_center"],
                "quarter": ["2024Q2", "2024Q3", "2025Q1", "2024Q3", "2024Q4", "2024Q1"]}),
            "volumes": pd.DataFrame({"quarter": ["2024Q4", "2025Q1"], "units": [1.0, 2.0]})}
    return FakeMarket(spend, data)


def _costs() -> pd.DataFrame:
    return pd.DataFrame(np.log(np.full((5, 5), 2.0)), index=QUARTERS, columns=VENDORS)


def test_measurements_are_the_market_posterior_where_evidence_exists() -> None:
    market = _market()
    data = share_data_from_market(market, _costs(), "basis")
    # The window starts at the first quarter a rival is measured (AMD, 2024Q2).
    assert data.quarters == tuple(QUARTERS[1:])
    assert data.vendors == tuple(VENDORS)
    ratios = np.log(market.spend[..., 1:]) - np.log(market.spend[..., :1])
    observed = data.observed
    assert observed[:, 0].all()
    assert observed[:, 1].tolist() == [True, True, False, True]       # AMD
    assert observed[:, 2].tolist() == [False, True, True, False]      # Google: Broadcom
    assert observed[:, 4].tolist() == observed[:, 2].tolist()         # other: Broadcom
    assert observed[:, 3].tolist() == [False, False, True, True]      # AWS: volumes
    assert_allclose(data.alr_mean[0, 0], ratios[:, 1, 0].mean())
    assert_allclose(data.alr_cov[0, 0, 0], ratios[:, 1, 0].var())
    assert np.isnan(data.alr_mean[0, 1]) and np.isnan(data.alr_cov[0, 1, 1])
    y, seen = measured_cells(data)
    assert seen.sum() == observed[:, 1:].sum() and np.all(y[seen == 0] == 0.0)


def test_costs_must_cover_the_window_and_every_vendor() -> None:
    costs = _costs()
    with pytest.raises(ForecastError, match="lacks quarters"):
        share_data_from_market(_market(), costs.drop(index="2024Q3"), "basis")
    with pytest.raises(ForecastError, match="vendors"):
        share_data_from_market(_market(), costs.drop(columns="other"), "basis")
    costs.loc["2024Q4", "aws"] = np.nan
    with pytest.raises(ForecastError, match="no cost"):
        share_data_from_market(_market(), costs, "basis")


def test_too_few_measured_quarters_are_refused() -> None:
    market = _market()
    market.data = {"observations": market.data["observations"].iloc[:1],
                   "volumes": market.data["volumes"].iloc[:0]}
    with pytest.raises(ForecastError, match="fewer than three"):
        share_data_from_market(market, _costs(), "basis")
