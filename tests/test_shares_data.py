"""Tests of the dollar-share derivation and the historical cost covariate."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.economics.cost_paths import (
    SHARE_VENDORS,
    ShareData,
    historical_costs,
    observed_shares,
    price_key,
    pricing_rules,
    pricing_table,
    sample_vendor_dollars,
    scenario_cost_paths,
    share_inputs,
)
from forecast.scenarios import load_scenario

DRAWS = 800


@pytest.fixture(scope="module")
def dataset():
    return load_dataset()


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("base")


@pytest.fixture(scope="module")
def inputs(dataset, scenario):
    return share_inputs(dataset, scenario, draws=DRAWS, seed=3)


def test_every_volume_row_has_a_price_rule(dataset):
    rules = pricing_rules(dataset)
    volumes = dataset.volumes[dataset.volumes["vendor_group"].isin(SHARE_VENDORS)]
    for recorded, chip in zip(volumes["chip_as_recorded"], volumes["chip"], strict=True):
        assert price_key(recorded, chip, rules) in rules


def test_pricing_methods_follow_the_documented_hierarchy(dataset):
    rules = pricing_rules(dataset)
    assert rules["H100 SXM5 80GB"].method == "asp_range"
    assert rules["H20"].method == "asp_range"  # the variant's own ASP, not H100's
    assert rules["H100 SXM5 80GB"].range_for(2024) == (23000.0, 30000.0)
    assert rules["H100 SXM5 80GB"].range_for(2030) == rules["H100 SXM5 80GB"].range_for(2025)
    assert rules["B200"].method == "observed"
    assert rules["B300 (Blackwell Ultra, HGX)"].neighbour == "GB300 (Blackwell Ultra, per GPU)"
    # AWS has no priced chip: its chips borrow from custom silicon (Google's TPUs).
    assert rules["Trainium2"].method == "imputed"
    assert rules[rules["Trainium2"].neighbour].vendor_group == "google"
    # A single point price is widened; no imputation chains.
    low, high = rules["Instinct MI250X"].range_for(2024)
    assert low == pytest.approx(14500 * 0.75) and high == pytest.approx(14500 * 1.25)
    for rule in rules.values():
        if rule.method == "imputed":
            assert rules[rule.neighbour].method != "imputed"
    table = pricing_table(dataset)
    assert {"price_key", "method", "neighbour"} <= set(table.columns)


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


def test_share_inputs_shapes_and_coverage(inputs):
    t, k = len(inputs.quarters), len(inputs.vendors)
    assert inputs.vendors == SHARE_VENDORS and inputs.vendors[0] == "nvidia"
    assert inputs.quarters[0] == "2022Q4" and inputs.quarters[-1] == "2025Q3"
    assert inputs.alr_mean.shape == (t, k - 1) and inputs.alr_cov.shape == (t, k - 1, k - 1)
    assert inputs.observed[:, 0].all()
    # AMD and AWS volumes start in 2024Q1; Google in 2022Q4.
    assert not inputs.observed[inputs.quarters.index("2023Q4"), 1]
    assert inputs.observed[inputs.quarters.index("2024Q1"), 1:].all()
    assert np.isfinite(inputs.alr_mean[inputs.observed[:, 1:]]).all()
    assert np.isnan(inputs.alr_mean[~inputs.observed[:, 1:]]).all()
    for i in range(t):
        present = np.flatnonzero(inputs.observed[i, 1:])
        block = inputs.alr_cov[i][np.ix_(present, present)]
        assert np.all(np.linalg.eigvalsh(block) > 0)
    assert np.isfinite(inputs.log_cost).all()
    frame = inputs.to_frame()
    assert len(frame) == t * k
    assert inputs.window(last="2024Q4").quarters[-1] == "2024Q4"


def test_share_data_validates_shapes(inputs):
    with pytest.raises(ForecastError, match="shape"):
        dataclasses.replace(inputs, log_cost=inputs.log_cost[:, :2])


def test_observed_shares_are_a_simplex_with_intervals(dataset, scenario):
    table = observed_shares(dataset, scenario, draws=DRAWS, seed=3)
    assert set(table.columns) >= {"quarter", "vendor", "share_mean", "share_p10", "share_p90",
                                  "cost_per_pflop_hour"}
    totals = table.groupby("quarter")["share_mean"].sum()
    np.testing.assert_allclose(totals, 1.0, atol=1e-9)
    assert (table["share_p10"] <= table["share_mean"]).all()
    assert (table["share_mean"] <= table["share_p90"]).all()
    assert set(table["vendor"]) == set(SHARE_VENDORS)
    nvidia = table[table["vendor"] == "nvidia"]["share_mean"]
    assert ((nvidia > 0.6) & (nvidia < 0.98)).all()
    partial = observed_shares(dataset, scenario, draws=DRAWS, seed=3, complete_only=False)
    assert partial["quarter"].min() < table["quarter"].min()


def test_historical_costs_follow_the_economics(dataset, scenario):
    costs = historical_costs(dataset, scenario, ["2022Q4", "2025Q3"], draws=DRAWS, seed=3)
    assert (costs.to_numpy() > 0).all()
    # Blackwell and Trainium2 make every vendor's effective compute cheaper over 2023-2025.
    assert (costs.loc["2025Q3"] < costs.loc["2022Q4"]).all()


def test_scenario_cost_paths_shape_and_trainium3(dataset, scenario):
    draws = scenario.sample(200, seed=5)
    quarters = [str(q) for q in pd.period_range("2025Q4", "2027Q4", freq="Q")]
    paths = scenario_cost_paths(dataset, draws, quarters)
    assert paths.shape == (200, len(quarters), len(SHARE_VENDORS))
    assert np.isfinite(paths.values).all() and (paths.values > 0).all()
    # Trainium3 (released 2025-12) lowers AWS's median cost once it has ramped.
    aws = paths.sel(vendor="aws").median("draw")
    assert float(aws.sel(quarter="2026Q3")) < float(aws.sel(quarter="2025Q4"))
    with pytest.raises(ForecastError, match="lack"):
        scenario_cost_paths(dataset, draws.drop(columns=["mfu_aws"]), quarters)


def test_share_data_requires_reference_observed(inputs):
    observed = inputs.observed.copy()
    observed[0, 0] = False
    with pytest.raises(ForecastError, match="reference"):
        ShareData(inputs.quarters, inputs.vendors, inputs.alr_mean, inputs.alr_cov, observed,
                  inputs.log_cost)
