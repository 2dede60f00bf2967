"""Tests of the ``[roadmap]`` and ``[price_erosion]`` tables (forecast.scenarios.roadmap)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from scenario_files import QUARTER_INPUT, header, load_bad, normal_input, write

from forecast.data.dataset import load_dataset
from forecast.scenarios import list_scenarios, load_scenario


def generation(vendor: str = "v", name: str = "G2", after: str = "G1", launch: str = "q",
               performance: str = "a", price: str = "b",
               announced: str = "2025-03-18") -> str:
    return (f'[roadmap.{vendor}."{name}"]\nafter = "{after}"\nlaunch = "{launch}"\n'
            f'performance = "{performance}"\nprice = "{price}"\nannounced = {announced}\n'
            'source = "a keynote"\n')


INPUTS = normal_input("a") + normal_input("b") + normal_input("e") + QUARTER_INPUT


def test_roadmap_and_erosion_load_in_predecessor_order(tmp_path: Path) -> None:
    # The successor is written first: the scenario still lists its predecessor before it.
    body = (INPUTS + generation(name="G3", after="G2") + generation(name="G2", after="G1")
            + '[price_erosion]\nv = "e"\n')
    write(tmp_path, "ok", header("ok") + body)
    scenario = load_scenario("ok", tmp_path, require_inputs=False)
    assert [g.name for g in scenario.roadmap] == ["G2", "G3"]
    first = scenario.roadmap[0]
    assert (first.vendor, first.after, first.launch, first.performance, first.price) == (
        "v", "G1", "q", "a", "b")
    assert first.announced == dt.date(2025, 3, 18)
    assert scenario.price_erosion == {"v": "e"}
    assert scenario.cost_tables()["roadmap"] == scenario.roadmap
    recorded = scenario.to_dict()
    assert recorded["roadmap"][0]["announced"] == "2025-03-18"
    assert recorded["price_erosion"] == {"v": "e"}


BAD = [
    (generation().replace('price = "b"\n', ""), 'roadmap.v.G2.price: required key missing'),
    (generation() + 'colour = "red"\n', "roadmap.v.G2.colour: unknown key"),
    (generation(announced='"2025-03-18"'), "roadmap.v.G2.announced: must be a date"),
    (generation(announced="2025-03-18T10:00:00"), "roadmap.v.G2.announced: must be a date"),
    (generation(launch="a"), "roadmap.v.G2.launch: input 'a' must be a launch quarter"),
    (generation(performance="q"), "roadmap.v.G2.performance: input 'q' must be a number"),
    (generation(price="nope"), "roadmap.v.G2.price: unknown input 'nope'"),
    (generation(after="G2"), "roadmap.v.G2.after: a generation cannot follow itself"),
    (generation(name="G2", after="G3") + generation(name="G3", after="G2"),
     "after: predecessors loop back to 'G2'"),
    (generation(after=" "), "roadmap.v.G2.after: must be a non-empty string"),
    ('[price_erosion]\nv = "nope"\n', "price_erosion.v: unknown input 'nope' for vendor 'v'"),
    ('[price_erosion]\nv = "q"\n', "price_erosion.v: input 'q' is a launch quarter"),
    ('[price_erosion]\nv = 0.1\n', "price_erosion.v: input must match"),
]


@pytest.mark.parametrize(("body", "message"), BAD)
def test_bad_roadmaps_fail_at_their_key(tmp_path: Path, body: str, message: str) -> None:
    error = load_bad(tmp_path, INPUTS + body)
    assert message in str(error)


def test_a_child_replaces_a_generation_and_an_erosion_input(tmp_path: Path) -> None:
    write(tmp_path, "parent", header("parent") + INPUTS + generation()
          + '[price_erosion]\nv = "e"\n')
    write(tmp_path, "child", header("child", extends="parent") + normal_input("c")
          + generation(performance="c") + '[price_erosion]\nv = "c"\n')
    child = load_scenario("child", tmp_path, require_inputs=False)
    assert [g.performance for g in child.roadmap] == ["c"]
    assert child.price_erosion == {"v": "c"}
    assert load_scenario("parent", tmp_path, require_inputs=False).roadmap[0].performance == "a"


def test_shipped_roadmaps_cite_announcements_of_the_data() -> None:
    """Every generation rests on rows of data/accelerator_roadmap.csv dated by the as-of date,
    its ``announced`` date among them, or says it is an assumption continuing its
    predecessor's cadence and carries its predecessor's date; every row's generation is one
    of the scenario's."""
    data = load_dataset(cache_dir=None)
    rows = data.roadmap
    assert data.data_as_of is not None
    assert (rows["announced_date"] <= data.data_as_of).all()
    for scenario in list_scenarios():
        named = {(g.vendor, g.name): g for g in scenario.roadmap}
        assert set(rows["generation"].dropna()) <= {name for _, name in named}, scenario.name
        assumed = 0
        for g in scenario.roadmap:
            dates = set(rows.loc[rows["generation"] == g.name, "announced_date"].dt.date)
            if not dates:
                assert g.source.startswith("Assumption: no announcement names it"), g.name
                assert g.announced == named[g.vendor, g.after].announced, g.name
                assumed += 1
            else:
                assert g.announced in dates, g.name
            assert g.announced <= data.data_as_of.date()
        # One per vendor at most: the roadmaps are the announcements, extended to the horizon.
        assert assumed <= len({g.vendor for g in scenario.roadmap})


def test_shipped_scenarios_erode_every_vendor_with_a_rationale() -> None:
    """Every vendor group with a roadmap or an MFU input has an erosion input with a rationale:
    a shift of M2's rate, 0 in base (M2's posterior as it is), by at most 5 points a year at
    its median elsewhere (a scenario tilts the data's rate, it does not replace it)."""
    for scenario in list_scenarios():
        vendors = {g.vendor for g in scenario.roadmap}
        vendors |= {name.removeprefix("mfu_") for name in scenario.inputs
                    if name.startswith("mfu_")}
        assert vendors == set(scenario.price_erosion), scenario.name
        for vendor, name in scenario.price_erosion.items():
            spec = scenario.inputs[name]
            assert spec.rationale and spec.unit
            if scenario.name == "base":
                assert spec.is_fixed and spec.median() == 0.0, vendor
            assert abs(spec.median()) <= 0.05, (scenario.name, vendor)
