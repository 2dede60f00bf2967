"""Tests of ``[readings]`` and ``[settings]``: a scenario's fixed assumptions, parsed, merged
through ``extends``, recorded and rejected in one line when malformed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from scenario_files import header, load_bad, write

from forecast.core.errors import ScenarioError
from forecast.scenarios import DEFAULT_SCENARIOS_DIR, Scenario, load_scenario

SEVERAL = """
[readings."several billion"]
lower = 2.0
upper = 9.0
unit = "USD billions per year"
rationale = "test"
"""
NUMBER = """
[readings.stated_number]
lower_factor = 0.8
upper_factor = 1.2
rationale = "test"
"""
RAMP = """
[settings.new_chip_ramp_quarters]
value = 2
unit = "quarters"
rationale = "test"
"""


def _child_of_base(tmp_path: Path, body: str) -> Scenario:
    """A scenario ``mine`` extending a copy of the shipped base, with ``body`` added."""
    shutil.copy(DEFAULT_SCENARIOS_DIR / "base.toml", tmp_path / "base.toml")
    write(tmp_path, "mine", header("mine", extends="base") + body)
    return load_scenario("mine", tmp_path)


def test_shipped_readings_and_settings(base: Scenario) -> None:
    several = base.readings["several billion"]
    assert (several.lower, several.upper, several.unit) == (2.0, 9.0, "USD billions per year")
    number = base.readings["stated_number"]
    assert (number.lower, number.upper, number.is_number) == (0.8, 1.2, True)
    assert base.setting("new_chip_ramp_quarters") == 2
    assert base.settings["new_chip_ramp_quarters"].unit == "quarters"
    for item in [*base.readings.values(), *base.settings.values()]:
        assert "ssumption" in item.rationale  # every one says it is an assumption
    for name in ("bull", "bear"):  # inherited unchanged
        scenario = load_scenario(name)
        assert scenario.readings == base.readings and scenario.settings == base.settings


def test_recorded_in_to_dict_digest_and_settings_table(base: Scenario, tmp_path: Path) -> None:
    data = base.to_dict()
    assert data["readings"]["several billion"] == {
        "lower": 2.0, "upper": 9.0, "unit": "USD billions per year",
        "rationale": base.readings["several billion"].rationale}
    assert data["readings"]["stated_number"]["lower_factor"] == 0.8
    assert data["settings"]["new_chip_ramp_quarters"]["value"] == 2
    table = base.settings_table().set_index("name")
    assert table.loc["several billion", "summary"] == "2-9 USD billions per year"
    assert table.loc["stated_number", "summary"] == "0.8x-1.2x the stated number"
    assert table.loc["new_chip_ramp_quarters", "summary"] == "2 quarters"
    assert list(table["kind"]) == ["reading", "reading", "setting"]
    # A child that only reads the statement differently is a different scenario.
    child = _child_of_base(tmp_path, SEVERAL.replace("2.0", "3.0").replace("9.0", "7.0"))
    assert child.digest() != base.digest()
    assert child.inputs == base.inputs


def test_a_child_overrides_a_reading_or_setting_by_key(tmp_path: Path) -> None:
    child = _child_of_base(tmp_path, SEVERAL.replace("2.0", "3.0").replace("9.0", "7.0")
                           + RAMP.replace("value = 2", "value = 0"))
    assert (child.readings["several billion"].lower,
            child.readings["several billion"].upper) == (3.0, 7.0)
    assert child.readings["stated_number"].upper == 1.2  # inherited
    assert child.setting("new_chip_ramp_quarters") == 0
    assert list(child.readings) == ["several billion", "stated_number"]


def test_a_phrase_of_the_data_may_be_added(tmp_path: Path) -> None:
    child = _child_of_base(tmp_path, SEVERAL.replace("several billion", "tens of billions")
                           .replace("2.0", "10.0").replace("9.0", "90.0"))
    assert child.readings["tens of billions"].upper == 90.0


@pytest.mark.parametrize(("body", "message"), [
    (SEVERAL.replace('rationale = "test"\n', ""),
     'readings."several billion".rationale: required key missing'),
    (NUMBER.replace('rationale = "test"\n', ""),
     "readings.stated_number.rationale: required key missing"),
    (RAMP.replace('rationale = "test"\n', ""),
     "settings.new_chip_ramp_quarters.rationale: required key missing"),
    (SEVERAL.replace('rationale = "test"', 'rationale = " "'),
     'readings."several billion".rationale: must be a non-empty string'),
    (SEVERAL.replace("2.0", "10.0"),
     'readings."several billion".lower: must not exceed upper: got lower 10 > upper 9'),
    (SEVERAL.replace("2.0", "-1.0"), 'readings."several billion".lower: must be >= 0'),
    (SEVERAL.replace("9.0", '"nine"'),
     "readings.\"several billion\".upper: must be a number, got 'nine'"),
    (SEVERAL.replace("USD billions per year", "USD millions per year"),
     'readings."several billion".unit: must be \'USD billions per year\''),
    (SEVERAL.replace('unit = "USD billions per year"\n', ""),
     'readings."several billion".unit: required key missing'),
    (SEVERAL.replace("lower =", "low ="), 'readings."several billion".low: unknown key'),
    (SEVERAL.replace('"several billion"', '" several billion"'),
     "a phrase must be written as the data write it"),
    (NUMBER.replace("0.8", "1.3"),
     "readings.stated_number.lower_factor: must not exceed upper_factor: got 1.3 > 1.2"),
    (NUMBER.replace("0.8", "0.0"), "readings.stated_number.lower_factor: must be in (0, 1]"),
    (NUMBER.replace("1.2", "0.9").replace("0.8", "0.5"),
     "readings.stated_number.upper_factor: must be >= 1"),
    (NUMBER.replace("lower_factor", "lower"), "readings.stated_number.lower: unknown key"),
    (RAMP.replace("value = 2", "value = -1"),
     "settings.new_chip_ramp_quarters.value: must be an integer in 0..40 quarters, got -1"),
    (RAMP.replace("value = 2", "value = 41"),
     "settings.new_chip_ramp_quarters.value: must be an integer in 0..40 quarters, got 41"),
    (RAMP.replace("value = 2", "value = 2.5"),
     "settings.new_chip_ramp_quarters.value: must be an integer, got 2.5"),
    (RAMP.replace('unit = "quarters"', 'unit = "months"'),
     "settings.new_chip_ramp_quarters.unit: must be 'quarters', got 'months'"),
    (RAMP.replace("new_chip_ramp_quarters", "new_chip_ramp_quarter"),
     "settings.new_chip_ramp_quarter: unknown setting (known: new_chip_ramp_quarters); did "
     "you mean 'new_chip_ramp_quarters'?"),
    ('readings = 3\n', "readings: must be a table, got int"),
    ('[readings]\nstated_number = 0.8\n', "readings.stated_number: must be a table, got float"),
])
def test_bad_tables_are_one_line_scenario_errors(tmp_path: Path, body: str,
                                                 message: str) -> None:
    if body.startswith("readings ="):
        (tmp_path / "bad.toml").write_text(body + header(), encoding="utf-8")
        with pytest.raises(ScenarioError) as info:
            load_scenario("bad", tmp_path, require_inputs=False)
        error = info.value
    else:
        error = load_bad(tmp_path, body)
    assert message in str(error)
    assert "bad.toml: " in str(error)  # the file, then the key path
    assert "\n" not in str(error)


def test_a_missing_setting_is_named(tmp_path: Path) -> None:
    write(tmp_path, "partial", header("partial") + SEVERAL + NUMBER)
    scenario = load_scenario("partial", tmp_path, require_inputs=False)
    with pytest.raises(ScenarioError, match=r"partial.toml: settings: new_chip_ramp_quarters: "
                                            r"not set \(set it here or in a scenario"):
        scenario.setting("new_chip_ramp_quarters")
