"""A scenario against the data (forecast.economics.scenario_checks): chips of the catalogue,
roadmap predecessors the cost paths can chain, no launch before the data or a predecessor."""

from __future__ import annotations

import dataclasses

import pytest

from forecast.core.errors import ScenarioError
from forecast.economics.scenario_checks import check_scenario_data, data_start
from forecast.scenarios import InputSpec, list_scenarios


def test_shipped_scenarios_fit_the_shipped_data(dataset):
    assert data_start(dataset) == 2016 * 4 + 1  # the first revenue quarter, 2016Q2
    for scenario in list_scenarios():
        check_scenario_data(scenario, dataset)


def _launch(values: list[str]) -> InputSpec:
    return InputSpec.from_dict("trainium4_launch_quarter", {
        "dist": "quarter", "values": values, "probs": [1 / len(values)] * len(values)})


@pytest.mark.parametrize(("values", "message"), [
    (["1990Q1", "2027Q1"], "can be 1990Q1, before Trainium3 was released (2025Q4)"),
    (["2025Q3"], "can be 2025Q3, before Trainium3 was released (2025Q4)"),
])
def test_a_launch_before_its_predecessor_or_the_data_is_refused(scenario, dataset, values,
                                                                message):
    changed = dataclasses.replace(scenario, inputs={
        **scenario.inputs, "trainium4_launch_quarter": _launch(values)})
    with pytest.raises(ScenarioError, match="inputs.trainium4_launch_quarter: a launch quarter "
                       + message.replace("(", r"\(").replace(")", r"\)")):
        check_scenario_data(changed, dataset)


def test_a_quarter_input_without_a_catalogue_predecessor_is_held_to_the_data_start(scenario,
                                                                                  dataset):
    # Rubin Ultra follows Rubin, a generation: only the data's start bounds it.
    changed = dataclasses.replace(scenario, inputs={
        **scenario.inputs,
        "nvidia_rubin_ultra_launch_quarter": _launch(["2015Q1", "2028Q1"])})
    with pytest.raises(ScenarioError, match=r"can be 2015Q1, before the data start \(2016Q2\)"):
        check_scenario_data(changed, dataset)


def test_a_price_of_a_chip_not_in_the_catalogue_is_refused(scenario, dataset):
    changed = dataclasses.replace(scenario, chip_prices={
        **scenario.chip_prices, "Trainium 3": "trainium3_price_usd_per_chip_hour"})
    with pytest.raises(ScenarioError, match=r'chip_prices."Trainium 3": .* did you mean'):
        check_scenario_data(changed, dataset)


@pytest.mark.parametrize(("after", "message"), [
    ("Trainium9", "'Trainium9' is neither a catalogue chip"),
    ("B200", "'B200' is a chip of vendor group 'nvidia', not 'aws'"),
])
def test_a_generation_must_follow_a_chip_of_its_group(scenario, dataset, after, message):
    roadmap = tuple(dataclasses.replace(g, after=after) if g.name == "Trainium4" else g
                    for g in scenario.roadmap)
    with pytest.raises(ScenarioError, match=f"roadmap.aws.Trainium4.after: {message}"):
        check_scenario_data(dataclasses.replace(scenario, roadmap=roadmap), dataset)
