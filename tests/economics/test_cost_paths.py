"""Tests of forecast.economics.cost_paths: vendor cost paths under scenario draws."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from chip_table import price_decay

from forecast.core.calendar import quarter_index
from forecast.core.errors import ForecastError
from forecast.economics.chip_costs import TCO_INPUTS, chip_capex, chip_specs, cost_per_pflop
from forecast.economics.cost_paths import (
    launch_prices,
    scenario_cost_paths,
)
from forecast.economics.vendors import share_vendors

T2_PRICE = "trainium2_price_usd_per_chip_hour"
T3_PRICE = "trainium3_price_usd_per_chip_hour"
#: The chips with one unit cost each and their scenario inputs (scenarios/base.toml).
UNIT_COSTS = {"Trainium1": "trainium1_unit_cost_usd",
              "Trainium2": "trainium2_unit_cost_usd",
              "Trainium3": "trainium3_unit_cost_usd"}


def priced(scenario, chip_prices):
    """The scenario's cost tables with another ``[chip_prices]``."""
    return {**scenario.cost_tables(), "chip_prices": chip_prices,
            "price_decay": price_decay(range(200))}


@pytest.fixture(scope="module")
def draws(scenario):
    return scenario.sample(200, seed=5)


def test_scenario_cost_paths_shape_and_trainium3(dataset, scenario, draws):
    quarters = [str(q) for q in pd.period_range("2025Q4", "2027Q4", freq="Q")]
    paths = scenario_cost_paths(dataset, draws, quarters, **scenario.cost_tables(),
                               price_decay=price_decay(draws))
    assert paths.shape == (200, len(quarters), len(share_vendors(dataset)))
    assert np.isfinite(paths.values).all() and (paths.values > 0).all()
    # Trainium3 (released 2025-12) lowers AWS's median cost once it has ramped.
    aws = paths.sel(vendor="aws").median("draw")
    assert float(aws.sel(quarter="2026Q3")) < float(aws.sel(quarter="2025Q4"))
    with pytest.raises(ForecastError, match="lack"):
        scenario_cost_paths(dataset, draws.drop(columns=["mfu_aws"]), quarters,
                            **scenario.cost_tables(), price_decay=price_decay(draws))


def _aws_offer_by_hand(dataset, draws, capex_of):
    """AWS's best offer at a quarter where every AWS catalogue chip has ramped, no roadmap
    generation has launched and (one forecast quarter) no price has eroded: the lowest owner
    TCO per effective PFLOP-hour of its catalogue chips, ``capex_of(chip)`` USD per chip
    (a number or one per draw). Returns the offer and the column of the chip behind it."""
    specs, capex = chip_specs(dataset), chip_capex(dataset, [2025])[2025]
    aws = [c for c in capex.index if specs.loc[c, "vendor_group"] == "aws"]
    ones = np.ones(len(draws))
    capex_draws = np.column_stack([capex_of(chip) * ones for chip in aws])
    col = {name: draws[name].to_numpy(float)[:, None] for name in TCO_INPUTS}
    mfu = draws["mfu_aws"].to_numpy(float)[:, None]
    cost = cost_per_pflop(capex_draws, specs.loc[aws, "tflops"].to_numpy(float),
                          specs.loc[aws, "tdp_w"].to_numpy(float)[None, :], mfu, col)
    return cost.min(axis=1), [aws[k] for k in cost.argmin(axis=1)]


def test_chip_prices_table_picks_the_input_that_prices_a_chip(dataset, scenario, draws):
    """One unit cost per chip: a chip with a unit-cost input (the Trainiums) is priced at its
    draws whatever ``[chip_prices]`` maps it to; a chip without one is priced from the input
    the table names: Trainium3's capex is then Trainium2's x that price / T2's."""
    quarter = "2026Q2"  # Trainium3 (2025Q4) fully ramped; Trainium4 only in some draws
    doubled = draws.assign(trainium3_alt=2.0 * draws[T3_PRICE])
    table = {**scenario.chip_prices, "Trainium3": "trainium3_alt"}
    before_t4 = doubled["trainium4_launch_quarter"].to_numpy() > quarter_index(quarter)
    assert before_t4.sum() > 50
    capex = chip_capex(dataset, [2025])[2025]

    # The scenario's draws have the unit-cost inputs: the table moves no vendor's path, and
    # AWS's offer is its cheapest catalogue chip, each Trainium at its unit-cost draw.
    base = scenario_cost_paths(dataset, doubled, [quarter], **scenario.cost_tables(),
                               price_decay=price_decay(doubled))
    alt = scenario_cost_paths(dataset, doubled, [quarter], **priced(scenario, table))
    np.testing.assert_array_equal(alt.values, base.values)
    expected, cheapest = _aws_offer_by_hand(
        dataset, doubled,
        lambda chip: doubled[UNIT_COSTS[chip]].to_numpy(float) if chip in UNIT_COSTS
        else float(capex[chip]))
    assert "Trainium3" in [c for c, b in zip(cheapest, before_t4, strict=True) if b]
    got = alt.sel(vendor="aws", quarter=quarter).values
    np.testing.assert_allclose(got[before_t4], expected[before_t4], rtol=1e-12)

    # Without them (a scenario that has none), the chips keep their unit prices and the
    # table's input prices Trainium3 relative to Trainium2, the group's first mapped chip.
    bare = doubled.drop(columns=list(UNIT_COSTS.values()))
    base = scenario_cost_paths(dataset, bare, [quarter], **scenario.cost_tables(),
                               price_decay=price_decay(bare))
    alt = scenario_cost_paths(dataset, bare, [quarter], **priced(scenario, table))
    for vendor in ("nvidia", "amd", "google"):
        np.testing.assert_array_equal(alt.sel(vendor=vendor), base.sel(vendor=vendor))
    t3_capex = float(capex["Trainium2"]) * bare["trainium3_alt"].to_numpy(float) / bare[
        T2_PRICE].to_numpy(float)
    expected, cheapest = _aws_offer_by_hand(
        dataset, bare, lambda chip: t3_capex if chip == "Trainium3" else float(capex[chip]))
    assert "Trainium3" in [c for c, b in zip(cheapest, before_t4, strict=True) if b]
    got = alt.sel(vendor="aws", quarter=quarter).values
    np.testing.assert_allclose(got[before_t4], expected[before_t4], rtol=1e-12)
    dearer = base.sel(vendor="aws", quarter=quarter).values
    assert (got >= dearer).all() and (got > dearer).any()


def test_chip_prices_outside_the_covered_vendors_are_ignored(dataset, scenario, draws):
    quarters = ["2026Q1"]
    base = scenario_cost_paths(dataset, draws, quarters, **scenario.cost_tables(),
                               price_decay=price_decay(draws))
    more = {**scenario.chip_prices, "Maia 100": T2_PRICE}  # Microsoft: not in the share model
    same = scenario_cost_paths(dataset, draws, quarters, **priced(scenario, more))
    np.testing.assert_array_equal(same.values, base.values)
    with pytest.raises(ForecastError, match="not in accelerators.csv"):
        scenario_cost_paths(dataset, draws, quarters, **priced(scenario, {"Trainium 3": T3_PRICE}))


def test_launch_prices_follow_the_table(scenario, draws):
    prices = launch_prices(scenario.chip_prices, draws)
    assert list(prices) == ["Trainium2", "Trainium3"]
    np.testing.assert_array_equal(prices["Trainium3"], draws[T3_PRICE].to_numpy(float))
    moved = launch_prices({"Trainium3": T2_PRICE}, draws)
    np.testing.assert_array_equal(moved["Trainium3"], draws[T2_PRICE].to_numpy(float))
    with pytest.raises(ForecastError, match="no input 'missing_price'"):
        launch_prices({"Trainium3": "missing_price"}, draws)


def test_on_the_five_group_axis_other_holds_the_groups_no_one_names(dataset, scenario,
                                                                   draws):
    """Meta's and Microsoft's chips (``other_custom`` in the data, a group no model covers)
    are ``other``'s on an axis with ``other`` (DESIGN section 4): the scenario's Maia 200
    builds on Maia 100, and the share model's own vendors' paths do not move."""
    from forecast.economics.chip_costs import chip_specs

    five = ("nvidia", "amd", "google", "aws", "other")
    specs = chip_specs(dataset, five)
    assert specs.loc[["Maia 100", "Gaudi3"], "vendor_group"].tolist() == ["other"] * 2
    assert set(chip_specs(dataset, ["other"])["vendor_group"]) == {"other"}  # no NVIDIA
    assert "Maia 100" not in chip_specs(dataset).index  # the share model's own four groups
    table = {**scenario.cost_tables(), "price_decay": price_decay(draws)}
    quarters = ["2026Q1", "2027Q4"]
    wide = scenario_cost_paths(dataset, draws, quarters, vendors=five, **table)
    assert np.isfinite(wide.sel(vendor="other").values).all()
    four = scenario_cost_paths(dataset, draws, quarters, **table)
    np.testing.assert_array_equal(wide.sel(vendor=list(five[:4])).values, four.values)


def test_chip_costs_are_on_the_basis_of_the_vendors_best_offer(dataset, scenario, draws):
    """A chip's own cost and a vendor's best offer come from one computation: without a ramp
    the best offer is the cheapest launched chip, each chip's own cost is NaN before its
    launch, and the vendor axis's paths do not change when chips are asked for."""
    from forecast.economics.cost_paths import scenario_chips, scenario_costs

    chips = scenario_chips(dataset, draws, chip_prices=scenario.chip_prices,
                           roadmap=scenario.roadmap)
    nvidia = [str(c) for c in chips["chip"].values[chips["vendor"].values == "nvidia"]]
    quarters = ["2025Q3", "2026Q1", "2026Q4", "2028Q2"]
    table = {**scenario.cost_tables(), "price_decay": price_decay(draws)}
    flat = scenario_costs(dataset, draws, quarters, ramp_quarters=0,
                          chips=[*nvidia, "Trainium3"], **table)
    own = flat["chip_cost"].sel(chip=nvidia).transpose("draw", "quarter", "chip").values
    np.testing.assert_allclose(flat["vendor_cost"].sel(vendor="nvidia").values,
                               np.nanmin(own, axis=2), rtol=1e-12)
    launch = chips["launch_quarter"].sel(chip=nvidia).values  # (draw, chip)
    index = np.array([quarter_index(q) for q in quarters])
    assert np.array_equal(np.isnan(own), launch[:, None, :] > index[None, :, None])
    trainium3 = flat["chip_cost"].sel(chip="Trainium3")
    assert np.isnan(trainium3.sel(quarter="2025Q3")).all()  # released 2025-12
    assert np.isfinite(trainium3.sel(quarter="2026Q1")).all()
    ramped = scenario_costs(dataset, draws, quarters, chips=["Trainium3"], **table)
    plain = scenario_cost_paths(dataset, draws, quarters, **table)
    np.testing.assert_array_equal(ramped["vendor_cost"].values, plain.values)
    # With a ramp, the best offer is never dearer than a fully ramped chip's own cost.
    h100 = scenario_costs(dataset, draws, quarters, chips=["H100 SXM5 80GB"], **table)
    assert (h100["vendor_cost"].sel(vendor="nvidia")
            <= h100["chip_cost"].sel(chip="H100 SXM5 80GB")).all()
    with pytest.raises(ForecastError, match="no cost path for"):
        scenario_costs(dataset, draws, quarters, chips=["H300"], **table)
