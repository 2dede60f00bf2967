"""Tests of forecast.economics.share_inputs: what the share model is fitted to."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from forecast.core.errors import ForecastError
from forecast.data.hashing import content_digest
from forecast.economics.chip_costs import COST_BASIS
from forecast.economics.share_inputs import ShareData, observed_shares, share_inputs
from forecast.economics.vendors import share_vendors

DRAWS = 800


@pytest.fixture(scope="module")
def inputs(dataset, scenario):
    return share_inputs(dataset, scenario, draws=DRAWS, seed=3)


def test_share_inputs_shapes_and_coverage(inputs, dataset):
    t, k = len(inputs.quarters), len(inputs.vendors)
    assert inputs.vendors == share_vendors(dataset) and inputs.vendors[0] == "nvidia"
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


def test_cost_basis_names_the_ramp(dataset, scenario, inputs):
    assert inputs.cost_basis == COST_BASIS and COST_BASIS.endswith("ramp 2 quarters")
    slower = share_inputs(dataset, scenario, draws=DRAWS, seed=3, ramp_quarters=4)
    assert slower.cost_basis.endswith("ramp 4 quarters")
    np.testing.assert_array_equal(slower.alr_mean, inputs.alr_mean)  # dollars do not ramp
    assert not np.array_equal(slower.log_cost, inputs.log_cost)
    assert content_digest(slower) != content_digest(inputs)


def test_share_vendors_follow_the_vendor_groups_file(dataset, scenario, inputs):
    groups = dataset.vendor_groups.copy()
    groups["share_model_order"] = groups["share_model_order"].replace({2: 3, 3: 2})
    swapped = share_inputs(dataclasses.replace(dataset, vendor_groups=groups), scenario,
                           draws=DRAWS, seed=3)
    assert swapped.vendors == ("nvidia", "google", "amd", "aws")
    np.testing.assert_allclose(swapped.log_cost[:, 1], inputs.log_cost[:, 2])


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
    assert set(table["vendor"]) == set(share_vendors(dataset))
    nvidia = table[table["vendor"] == "nvidia"]["share_mean"]
    assert ((nvidia > 0.6) & (nvidia < 0.98)).all()
    partial = observed_shares(dataset, scenario, draws=DRAWS, seed=3, complete_only=False)
    assert partial["quarter"].min() < table["quarter"].min()


def test_share_data_requires_reference_observed(inputs):
    observed = inputs.observed.copy()
    observed[0, 0] = False
    with pytest.raises(ForecastError, match="reference"):
        ShareData(inputs.quarters, inputs.vendors, inputs.alr_mean, inputs.alr_cov, observed,
                  inputs.log_cost)
