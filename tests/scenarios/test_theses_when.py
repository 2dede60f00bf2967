"""Thesis specs say whether their period is read "in" (that period only) or "by" (first
reached in or before it); the default keeps older scenario files meaning what they meant."""

from __future__ import annotations

import pytest

from forecast.core.errors import ScenarioError
from forecast.scenarios import load_scenario
from forecast.scenarios.locations import Where
from forecast.scenarios.theses import WHEN, ThesisSpec, parse_thesis

TABLE = {"statement": "s", "metric": "tam", "period": "2030", "aggregate": "sum",
         "comparator": ">=", "threshold": 50.0}


def test_when_defaults_to_in_and_stays_out_of_the_table() -> None:
    thesis = parse_thesis("t", dict(TABLE), Where("f.toml", "theses.t"))
    assert thesis.when == "in"
    assert "when" not in thesis.to_dict()  # older scenario digests do not move


def test_by_is_parsed_and_round_trips() -> None:
    thesis = parse_thesis("t", {**TABLE, "when": "by"}, Where("f.toml", "theses.t"))
    assert thesis.when == "by"
    again = parse_thesis("t", thesis.to_dict(), Where("f.toml", "theses.t"))
    assert again == thesis
    quarter = parse_thesis("q", {**TABLE, "period": "2029Q4", "when": "by"},
                           Where("f.toml", "theses.q"))
    assert quarter.when == "by"


def test_an_unknown_reading_is_one_line_naming_the_key() -> None:
    with pytest.raises(ScenarioError, match=r"theses\.t\.when: must be one of in, by") as exc:
        parse_thesis("t", {**TABLE, "when": "before"}, Where("f.toml", "theses.t"))
    assert "\n" not in str(exc.value)


def test_by_over_a_range_is_refused() -> None:
    with pytest.raises(ScenarioError, match="needs a year or a quarter"):
        parse_thesis("t", {**TABLE, "period": "2026..2030", "when": "by"},
                     Where("f.toml", "theses.t"))


def test_the_shipped_scenarios_still_load_with_a_reading_for_every_thesis() -> None:
    for name in ("base", "bull", "bear"):
        scenario = load_scenario(name)
        assert scenario.theses
        assert all(thesis.when in WHEN for thesis in scenario.theses.values())


def test_the_dataclass_default_is_in() -> None:
    assert ThesisSpec("t", "s", "tam", "2030", ">=", 1.0).when == "in"
