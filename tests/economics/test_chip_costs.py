"""Tests of forecast.economics.chip_costs: the owner-TCO cost basis over history."""

from __future__ import annotations

import numpy as np

from forecast.economics.chip_costs import chip_capex, chip_specs, historical_costs


def test_historical_costs_follow_the_economics(dataset, scenario):
    costs = historical_costs(dataset, scenario, ["2022Q4", "2025Q3"], draws=800, seed=3)
    assert (costs.to_numpy() > 0).all()
    # Blackwell and Trainium2 make every vendor's effective compute cheaper over 2023-2025.
    assert (costs.loc["2025Q3"] < costs.loc["2022Q4"]).all()


def test_a_longer_ramp_delays_a_new_chips_effect(dataset, scenario):
    # Trainium2 launched 2024Q4: by 2025Q2 it is fully ramped with two quarters, not with four.
    quarters = ["2025Q2"]
    two = historical_costs(dataset, scenario, quarters, draws=400, seed=1)
    four = historical_costs(dataset, scenario, quarters, draws=400, seed=1, ramp_quarters=4)
    assert four.loc["2025Q2", "aws"] > two.loc["2025Q2", "aws"]
    assert four.loc["2025Q2", "google"] >= two.loc["2025Q2", "google"]


def test_capex_is_cached_per_dataset_object(dataset):
    first = chip_capex(dataset, [2025], draws=200, seed=2)
    first.iloc[0, 0] = -1.0  # callers get copies
    again = chip_capex(dataset, [2025], draws=200, seed=2)
    assert (again.to_numpy() > 0).all()


def test_chip_specs_impute_missing_tdp(dataset):
    specs = chip_specs(dataset)
    assert np.isfinite(specs["tdp_w"]).all()
    assert set(specs["vendor_group"]) == {"nvidia", "amd", "google", "aws"}
