"""Tests of the vendor roadmaps and price erosion in the cost paths (forecast.economics.roadmap)."""

from __future__ import annotations

import dataclasses
from collections import namedtuple

import numpy as np
import pytest
from chip_table import price_decay

from forecast.core.calendar import quarter_index, quarter_labels
from forecast.core.errors import ForecastError
from forecast.economics.chip_costs import TCO_INPUTS, chip_capex, chip_specs, cost_per_pflop
from forecast.economics.cost_paths import (
    frontier_tflops,
    scenario_chips,
    scenario_cost_paths,
)
from forecast.economics.roadmap import (
    ChipColumns,
    add_generations,
    eroded_capex,
    price_per_pflop,
)

#: A generation as the cost paths read it (``forecast.economics.roadmap.GenerationLike``).
Chip = namedtuple("Chip", "vendor name after launch performance price")
FIVE = ("nvidia", "amd", "google", "aws", "other")
YEARS = quarter_labels(quarter_index("2026Q1"), quarter_index("2030Q4"))


@pytest.fixture(scope="module")
def draws(scenario):
    return scenario.sample(400, seed=11)


def paths(data, scenario, inputs, quarters=YEARS, **kwargs):
    table = {**scenario.cost_tables(), "price_decay": price_decay(inputs), **kwargs}
    return scenario_cost_paths(data, inputs, quarters, **table)


def test_under_base_no_vendors_cost_is_constant_from_2026_to_2030(five_groups, scenario,
                                                                   draws):
    """The acceptance point: every vendor of the five gets cheaper, in every draw."""
    cost = paths(five_groups, scenario, draws)
    assert list(cost["vendor"].values) == list(FIVE)
    assert np.isfinite(cost.values).all() and (cost.values > 0).all()
    first, last = cost.sel(quarter="2026Q1"), cost.sel(quarter="2030Q4")
    for vendor in FIVE:
        assert (last.sel(vendor=vendor) < first.sel(vendor=vendor)).all(), vendor
        # More than erosion alone at its lower tail: the median falls by over a third.
        ratio = float((last / first).sel(vendor=vendor).median())
        assert ratio < 2 / 3, (vendor, ratio)
        # Never rises from one quarter to the next (a ramping newcomer is only ever blended
        # in below the older best, and prices only fall).
        steps = np.diff(cost.sel(vendor=vendor).values, axis=1)
        assert (steps <= 1e-12).all(), vendor


def _regrouped(data, vendor: str, group: str, order: float | None):
    """``data`` with ``vendor``'s chips in ``group`` at share-model position ``order``."""
    groups = data.vendor_groups.copy()
    groups.loc[groups["vendor"] == vendor, ["vendor_group", "share_model_order"]] = [group, order]
    chips = data.accelerators.copy()
    chips.loc[chips["vendor"] == vendor, "vendor_group"] = group
    return dataclasses.replace(data, vendor_groups=groups, accelerators=chips)


def test_the_share_models_vendors_are_the_default_axis(five_groups, scenario, draws):
    five = paths(five_groups, scenario, draws, quarters=["2027Q1"])
    assert list(five["vendor"].values) == list(FIVE)
    picked = paths(five_groups, scenario, draws, quarters=["2027Q1"], vendors=["aws", "other"])
    assert list(picked["vendor"].values) == ["aws", "other"]
    np.testing.assert_array_equal(picked.values, five.sel(vendor=["aws", "other"]).values)
    # Four groups (``other`` not covered, Microsoft's Maia apart): asking for ``other`` too
    # leaves the share model's vendors' paths as they were.
    four_data = five_groups
    for vendor in ("Intel", "Meta"):
        four_data = _regrouped(four_data, vendor, "other", None)
    four_data = _regrouped(four_data, "Microsoft", "other_custom", None)
    four = paths(four_data, scenario, draws, quarters=["2027Q1"])
    assert list(four["vendor"].values) == ["nvidia", "amd", "google", "aws"]
    roadmap = [g for g in scenario.roadmap if g.name != "Maia 200"]
    wider = paths(four_data, scenario, draws, quarters=["2027Q1"], roadmap=roadmap,
                  vendors=[*FIVE[:4], "other"])
    np.testing.assert_array_equal(wider.sel(vendor=list(FIVE[:4])).values, four.values)
    # Maia, in a group no model covers, is other's (DESIGN section 4): Maia 200 builds on it.
    alone = paths(four_data, scenario, draws, quarters=["2027Q1"], vendors=["other"])
    assert np.isfinite(alone.values).all()


def test_a_price_is_held_flat_only_where_the_scenario_says_so(five_groups, scenario, draws):
    """AMD's extra fall at -1 a year (M2's fall undone, capped at no change) and no AMD
    generation: its cost stays at its 2026Q1 level (MI355X has ramped), while every other
    vendor's path is untouched."""
    flat = draws.assign(amd_flat=-1.0)
    erosion = {**scenario.price_erosion, "amd": "amd_flat"}
    roadmap = [g for g in scenario.roadmap if g.vendor != "amd"]
    held = paths(five_groups, scenario, flat, price_erosion=erosion, roadmap=roadmap)
    amd = held.sel(vendor="amd").values
    np.testing.assert_allclose(amd, amd[:, :1] * np.ones_like(amd), rtol=1e-12)
    shipped = paths(five_groups, scenario, flat)
    others = [v for v in FIVE if v != "amd"]
    np.testing.assert_array_equal(held.sel(vendor=others).values,
                                  shipped.sel(vendor=others).values)
    with pytest.raises(ForecastError, match=r"\[price_erosion\] has no input for \['amd'\]"):
        paths(five_groups, scenario, flat, price_erosion={
            v: name for v, name in scenario.price_erosion.items() if v != "amd"})


def test_erosion_runs_from_launch_or_from_the_forecast_start():
    capex = np.array([[100.0, 100.0, 100.0]])
    release = np.array([[8090.0, 8102.0, 8110.0]])  # on sale, launching in 2 and 10 quarters
    rate = np.full((1, 3), np.log(0.9))
    got = eroded_capex(capex, release, rate, quarter=8106, start=8100)
    np.testing.assert_allclose(got, [[100.0 * 0.9 ** 1.5, 90.0, 100.0]])
    with pytest.raises(ForecastError, match="at most 0"):
        eroded_capex(capex, release, np.full((1, 3), 0.01), 8106, 8100)


def test_prices_fall_at_m2s_rate_less_the_scenarios_extra_fall(five_groups, scenario, draws):
    """Each draw's own H100 cost falls at that draw's M2 rate less its extra-fall input, the
    sum capped at 0: a TCO whose capex part scales by exp(rate x years), checked against the
    same TCO at the first quarter by hand."""
    from forecast.economics.cost_paths import scenario_costs

    rng = np.random.default_rng(2)
    decay = {group: rng.uniform(-0.3, 0.05, len(draws)) for group in price_decay(draws)}
    inputs = draws.assign(extra=rng.normal(0.0, 0.05, len(draws)))
    erosion = {**scenario.price_erosion, "nvidia": "extra"}
    chip, quarters = "H100 SXM5 80GB", ["2026Q1", "2028Q1"]
    costs = scenario_costs(five_groups, inputs, quarters, **{**scenario.cost_tables(),
                           "price_erosion": erosion}, price_decay=decay, chips=[chip])
    own = costs["chip_cost"].sel(chip=chip).values  # (draw, quarter)
    capex = costs["chip_unit_cost"].sel(chip=chip).values
    rate = np.minimum(decay["nvidia"] - inputs["extra"].to_numpy(), 0.0)
    assert (rate == 0.0).any() and (rate < 0.0).any()
    specs = chip_specs(five_groups, FIVE).loc[chip]
    tco = {name: inputs[name].to_numpy(float)[:, None] for name in TCO_INPUTS}
    mfu = inputs["mfu_nvidia"].to_numpy(float)[:, None]

    def by_hand(years):
        return cost_per_pflop((capex * np.exp(rate * years))[:, None],
                              np.array([specs["tflops"]]), np.array([[specs["tdp_w"]]]),
                              mfu, tco)[:, 0]

    np.testing.assert_allclose(own[:, 0], by_hand(0.0), rtol=1e-12)
    np.testing.assert_allclose(own[:, 1], by_hand(2.0), rtol=1e-12)  # two years on


def test_a_generation_is_its_predecessor_times_its_multiples(dataset, scenario, draws):
    """Rubin alone on NVIDIA's roadmap, no erosion: NVIDIA's offer once Rubin has ramped is
    the cheaper of its catalogue chips and GB300's capex x ratio for its FLOPS x multiple."""
    quarter = "2028Q1"
    inputs = draws.assign(no_fall=-1.0)  # M2's fall undone: capped at no change
    rubin = [g for g in scenario.roadmap if g.name == "Rubin"]
    still = {v: "no_fall" for v in scenario.price_erosion}
    got = paths(dataset, scenario, inputs, quarters=[quarter], roadmap=rubin,
                price_erosion=still).sel(vendor="nvidia", quarter=quarter).values
    specs, capex = chip_specs(dataset), chip_capex(dataset, [2025])[2025]
    nvidia = [c for c in capex.index if specs.loc[c, "vendor_group"] == "nvidia"]
    tco = {name: inputs[name].to_numpy(float)[:, None] for name in TCO_INPUTS}
    mfu = inputs["mfu_nvidia"].to_numpy(float)[:, None]
    catalogue = cost_per_pflop(np.outer(np.ones(len(inputs)), capex[nvidia].to_numpy(float)),
                               specs.loc[nvidia, "tflops"].to_numpy(float),
                               specs.loc[nvidia, "tdp_w"].to_numpy(float)[None, :], mfu, tco)
    gb300 = "GB300 (Blackwell Ultra, per GPU)"
    own = cost_per_pflop(
        (capex[gb300] * inputs[rubin[0].price].to_numpy(float))[:, None],
        specs.loc[gb300, "tflops"] * inputs[rubin[0].performance].to_numpy(float)[:, None],
        specs.loc[gb300, "tdp_w"], mfu, tco)[:, 0]
    ramped = inputs[rubin[0].launch].to_numpy() <= quarter_index(quarter) - 2
    assert ramped.mean() > 0.9
    expected = np.minimum(catalogue.min(axis=1), own)
    np.testing.assert_allclose(got[ramped], expected[ramped], rtol=1e-12)
    assert (own[ramped] < catalogue.min(axis=1)[ramped]).mean() > 0.9  # Rubin is the offer


def test_a_successor_never_launches_before_its_predecessor():
    columns = ChipColumns()
    ones = np.ones(3)
    columns.add("Old", "v", 10.0 * ones, 100.0 * ones, 8100.0 * ones, 500.0)
    chain = [Chip("v", "New", "Old", "l1", "p1", "r1"),
             Chip("v", "Newer", "New", "l2", "p2", "r2"),
             Chip("w", "Elsewhere", "Nothing", "l1", "p1", "r1")]
    col = {"l1": np.array([8104.0, 8110.0, 8099.0]), "l2": np.array([8106.0, 8108.0, 8100.0]),
           "p1": 2.0 * ones, "p2": 3.0 * ones, "r1": 1.5 * ones, "r2": 1.2 * ones}
    add_generations(columns, chain, ("v",), col)  # vendor w is off the axis: ignored
    assert columns.names == ["Old", "New", "Newer"]
    np.testing.assert_array_equal(columns.release[1], [8104.0, 8110.0, 8101.0])
    np.testing.assert_array_equal(columns.release[2], [8106.0, 8111.0, 8102.0])
    np.testing.assert_allclose(columns.tflops[2], 600.0)
    np.testing.assert_allclose(columns.capex[2], 18.0)
    assert columns.tdp == [500.0, 500.0, 500.0]


@pytest.mark.parametrize(("chip", "message"), [
    (Chip("v", "New", "Missing", "l1", "p1", "r1"), "follows 'Missing', which is"),
    (Chip("v", "New", "Theirs", "l1", "p1", "r1"), "a chip of vendor group 'w'"),
    (Chip("v", "Old", "Old", "l1", "p1", "r1"), "'Old' is already a chip"),
])
def test_unusable_generations_are_refused(chip, message):
    columns = ChipColumns()
    ones = np.ones(2)
    columns.add("Old", "v", ones, ones, 8100.0 * ones, 1.0)
    columns.add("Theirs", "w", ones, ones, 8100.0 * ones, 1.0)
    with pytest.raises(ForecastError, match=message):
        add_generations(columns, [chip], ("v", "w"), {"l1": ones, "p1": ones, "r1": ones})


def test_every_vendor_needs_its_utilisation(five_groups, scenario, draws):
    with pytest.raises(ForecastError, match="lack: mfu_other"):
        paths(five_groups, scenario, draws.drop(columns=["mfu_other"]), ["2027Q4"])


def test_scenario_chips_are_the_cost_paths_chips(five_groups, scenario, draws):
    chips = scenario_chips(five_groups, draws, chip_prices=scenario.chip_prices,
                           roadmap=scenario.roadmap, vendors=FIVE)
    names = list(chips["chip"].values)
    generations = [g.name for g in scenario.roadmap]
    assert names[-len(generations):] == generations
    assert list(chips["chip"].values[chips["roadmap"].values]) == generations
    capex = chip_capex(five_groups, [2025])[2025]
    gb300 = "GB300 (Blackwell Ultra, per GPU)"
    rubin = chips.sel(chip="Rubin")
    np.testing.assert_allclose(rubin["capex"].values,
                               capex[gb300] * draws["nvidia_next_price_ratio"].to_numpy())
    assert str(rubin["vendor"].values) == "nvidia"
    later = chips["launch_quarter"].sel(chip="Rubin Ultra") > rubin["launch_quarter"]
    assert bool(later.all())
    # The frontier: the catalogue's before any generation, never falling, Rubin's once out.
    frontier = frontier_tflops(chips, YEARS)
    assert list(frontier["vendor"].values) == list(FIVE)
    specs = chip_specs(five_groups, FIVE)
    first = frontier.sel(quarter="2026Q1")
    for vendor in FIVE:
        launched = specs[(specs["vendor_group"] == vendor)
                         & (specs["release_qidx"] <= quarter_index("2026Q1"))]
        catalogue = launched.loc[launched.index.isin(capex.index), "tflops"].max()
        early = chips["launch_quarter"].values[:, chips["vendor"].values == vendor].min(
            axis=1) > quarter_index("2026Q1")
        np.testing.assert_allclose(first.sel(vendor=vendor).values[early], catalogue)
    assert (np.diff(frontier.values, axis=1) >= 0).all()
    out = rubin["launch_quarter"].values <= quarter_index("2030Q4")
    assert (frontier.sel(quarter="2030Q4", vendor="nvidia").values[out]
            >= rubin["dense_tflops"].values[out]).all()


def test_price_per_pflop_is_each_vendors_cheapest_launched_chip() -> None:
    rng = np.random.default_rng(3)
    capex = rng.uniform(5_000, 50_000, (200, 4))
    tflops = np.array([[1_000.0, 4_500.0, 1_300.0, 9_000.0]]).repeat(200, axis=0)
    release = np.column_stack([np.full(200, 8090.0), np.full(200, 8096.0),
                               np.full(200, 8100.0), rng.choice([8101.0, 8110.0], 200)])
    codes = np.array([0, 0, 1, 0])
    got = price_per_pflop(capex, tflops, release, codes, 8104, n_vendors=3)
    per_pflop = capex / (tflops / 1000.0)
    launched_late = release[:, 3] <= 8104
    expected_nvidia = np.where(launched_late, per_pflop[:, [0, 1, 3]].min(axis=1),
                               per_pflop[:, [0, 1]].min(axis=1))
    np.testing.assert_allclose(got[:, 0], expected_nvidia)
    np.testing.assert_allclose(got[:, 1], per_pflop[:, 2])
    assert np.isnan(got[:, 2]).all()  # a vendor with no chip has no price
    assert np.isnan(price_per_pflop(capex, tflops, release, codes, 8095, 3)[:, 1]).all()
