"""Readings and settings: a scenario's fixed (not sampled) assumptions.

- ``[readings.<key>]`` say how the spend model reads Amazon's run-rate statements
  (``data/aws_custom_silicon.csv``). A phrase the data use instead of a number (``[readings.
  "several billion"]``) is read as ``lower``-``upper`` in
  :data:`~forecast.core.scenario_contract.READING_UNIT`; a stated number
  (``[readings.stated_number]``) as ``lower_factor``-``upper_factor`` times the number.
- ``[settings.<name>]`` are values the forecast reads as they are (``value``), such as the
  quarters a new chip takes to ramp to full supply. They are not inputs: a new sampled input
  would change every other input's draws.

Every reading and setting needs a ``rationale``; a file may override its parent's entries
key by key (:mod:`forecast.scenarios.inheritance`). The names a forecast needs are listed in
:mod:`forecast.core.scenario_contract` and checked on the merged scenario.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from forecast.core.scenario_contract import NUMBER_READING, READING_UNIT, SETTINGS
from forecast.scenarios.locations import (
    IDENTIFIER_PATTERN,
    MAX_NAME_LENGTH,
    Where,
    check_keys,
    expect_int,
    expect_name,
    expect_number,
    expect_str,
    expect_table,
    fmt,
)

__all__ = ["NUMBER_UNIT", "SETTING_LIMITS", "Reading", "Setting", "parse_readings",
           "parse_settings"]

#: The unit of the stated number's reading (its bounds are factors of the number).
NUMBER_UNIT = "x the stated number"
#: Largest value of a setting, by unit: a chip still ramping after ten years is not ramping.
SETTING_LIMITS: dict[str, int] = {"quarters": 40}

_PHRASE_KEYS = ("lower", "upper", "unit", "rationale")
_NUMBER_KEYS = ("lower_factor", "upper_factor", "unit", "rationale")
_NUMBER_REQUIRED = ("lower_factor", "upper_factor", "rationale")
_SETTING_KEYS = ("value", "unit", "rationale")


@dataclass(frozen=True)
class Reading:
    """How a statement is read: bounds on what it says.

    Parameters
    ----------
    name : str
        The phrase as the data write it (``"several billion"``), or
        :data:`~forecast.core.scenario_contract.NUMBER_READING` for a stated number.
    lower, upper : float
        The bounds: in ``unit`` for a phrase, factors of the number for a stated number.
    unit : str
        :data:`~forecast.core.scenario_contract.READING_UNIT` for a phrase,
        :data:`NUMBER_UNIT` for a stated number.
    rationale : str
        Why the statement is read so.
    """

    name: str
    lower: float
    upper: float
    unit: str
    rationale: str

    @property
    def is_number(self) -> bool:
        """Whether this reads a stated number (bounds are factors of it)."""
        return self.name == NUMBER_READING

    def summary(self) -> str:
        """The reading in words, e.g. ``"2-9 USD billions per year"``."""
        if self.is_number:
            return f"{self.lower:g}x-{self.upper:g}x the stated number"
        return f"{self.lower:g}-{self.upper:g} {self.unit}"

    def to_dict(self) -> dict[str, Any]:
        """The reading as a plain table (the form it takes in a scenario file)."""
        if self.is_number:
            return {"lower_factor": self.lower, "upper_factor": self.upper, "unit": self.unit,
                    "rationale": self.rationale}
        return {"lower": self.lower, "upper": self.upper, "unit": self.unit,
                "rationale": self.rationale}


@dataclass(frozen=True)
class Setting:
    """A value the forecast reads as it is (not sampled).

    Parameters
    ----------
    name : str
        One of :data:`~forecast.core.scenario_contract.SETTINGS`.
    value : int
        The value, in ``unit``.
    unit : str
        The setting's unit (the one the contract names).
    rationale : str
        Why this value.
    """

    name: str
    value: int
    unit: str
    rationale: str

    def summary(self) -> str:
        """The value with its unit, e.g. ``"2 quarters"``."""
        return f"{self.value} {self.unit}"

    def to_dict(self) -> dict[str, Any]:
        """The setting as a plain table (the form it takes in a scenario file)."""
        return {"value": self.value, "unit": self.unit, "rationale": self.rationale}


def parse_readings(value: Any, readings_where: Where) -> dict[str, Reading]:
    """The ``[readings.<key>]`` tables of one file, in file order.

    Raises
    ------
    ScenarioError
        For a table with an unknown or missing key (every reading needs a rationale), bounds
        that are not numbers, a lower bound above the upper, a phrase reading in another unit
        than :data:`~forecast.core.scenario_contract.READING_UNIT`, or factors of a stated
        number that do not bracket it.
    """
    readings: dict[str, Reading] = {}
    for key, table in expect_table(value, readings_where).items():
        where = readings_where.child(key)
        if key == NUMBER_READING:
            readings[key] = _number_reading(expect_table(table, where), where)
            continue
        if not key.strip() or key != key.strip() or len(key) > MAX_NAME_LENGTH:
            raise where.error("a phrase must be written as the data write it: non-blank, "
                              f"without surrounding spaces, at most {MAX_NAME_LENGTH} "
                              "characters")
        readings[key] = _phrase_reading(key, expect_table(table, where), where)
    return readings


def _phrase_reading(key: str, table: dict[str, Any], where: Where) -> Reading:
    """A phrase's bounds: ``0 <= lower <= upper`` in the one unit the spend model reads."""
    check_keys(table, _PHRASE_KEYS, _PHRASE_KEYS, where)
    lower = expect_number(table["lower"], where.child("lower"))
    upper = expect_number(table["upper"], where.child("upper"))
    unit = expect_str(table["unit"], where.child("unit"))
    rationale = expect_str(table["rationale"], where.child("rationale"))
    if lower < 0:
        raise where.child("lower").error(f"must be >= 0, got {fmt(lower)}")
    if lower > upper:
        raise where.child("lower").error(
            f"must not exceed upper: got lower {fmt(lower)} > upper {fmt(upper)}")
    if unit != READING_UNIT:
        raise where.child("unit").error(
            f"must be {READING_UNIT!r} (the spend model bounds a year's spend in it), "
            f"got {fmt(unit)}")
    return Reading(key, lower, upper, unit, rationale)


def _number_reading(table: dict[str, Any], where: Where) -> Reading:
    """A stated number's bounds as factors: ``0 < lower_factor <= 1 <= upper_factor``."""
    check_keys(table, _NUMBER_KEYS, _NUMBER_REQUIRED, where)
    lower = expect_number(table["lower_factor"], where.child("lower_factor"))
    upper = expect_number(table["upper_factor"], where.child("upper_factor"))
    rationale = expect_str(table["rationale"], where.child("rationale"))
    if "unit" in table:
        unit = expect_str(table["unit"], where.child("unit"))
        if unit != NUMBER_UNIT:
            raise where.child("unit").error(f"must be {NUMBER_UNIT!r}, got {fmt(unit)}")
    if lower > upper:
        raise where.child("lower_factor").error(
            f"must not exceed upper_factor: got {fmt(lower)} > {fmt(upper)}")
    if not 0 < lower <= 1:
        raise where.child("lower_factor").error(
            f"must be in (0, 1] (the bounds bracket the stated number), got {fmt(lower)}")
    if upper < 1:
        raise where.child("upper_factor").error(
            f"must be >= 1 (the bounds bracket the stated number), got {fmt(upper)}")
    return Reading(NUMBER_READING, lower, upper, NUMBER_UNIT, rationale)


def parse_settings(value: Any, settings_where: Where) -> dict[str, Setting]:
    """The ``[settings.<name>]`` tables of one file, in file order.

    Raises
    ------
    ScenarioError
        For a setting the forecast does not read (with a spelling hint), a missing key
        (every setting needs a rationale), a unit other than the contract's, or a value that
        is not an integer in ``0..SETTING_LIMITS[unit]``.
    """
    settings: dict[str, Setting] = {}
    for name, table in expect_table(value, settings_where).items():
        where = settings_where.child(name)
        expect_name(name, where, IDENTIFIER_PATTERN, "setting name")
        if name not in SETTINGS:
            hint = difflib.get_close_matches(name, list(SETTINGS), n=1)
            suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
            raise where.error(f"unknown setting (known: {', '.join(SETTINGS)}){suggestion}")
        table = expect_table(table, where)
        check_keys(table, _SETTING_KEYS, _SETTING_KEYS, where)
        number = expect_int(table["value"], where.child("value"))
        unit = expect_str(table["unit"], where.child("unit"))
        rationale = expect_str(table["rationale"], where.child("rationale"))
        if unit != SETTINGS[name]:
            raise where.child("unit").error(f"must be {SETTINGS[name]!r}, got {fmt(unit)}")
        limit = SETTING_LIMITS.get(unit)
        if number < 0 or (limit is not None and number > limit):
            bound = f"0..{limit}" if limit is not None else ">= 0"
            raise where.child("value").error(f"must be an integer in {bound} {unit}, "
                                             f"got {fmt(number)}")
        settings[name] = Setting(name, number, unit, rationale)
    return settings
