"""What a forecast needs of a merged scenario: every input it reads, of the right kind.

Parsing checks what one file says on its own (thesis metrics, prior names); the inputs a
forecast reads can come from any file of an ``extends`` chain, so they are checked on the
merged :class:`~forecast.scenarios.scenario.Scenario`, and so are the readings and settings it
needs and a price-erosion input for every vendor it prices. The names are
:data:`forecast.core.scenario_contract.REQUIRED_INPUTS`,
:data:`~forecast.core.scenario_contract.REQUIRED_READINGS` and
:data:`~forecast.core.scenario_contract.SETTINGS`.
"""

from __future__ import annotations

import difflib

from forecast.core.scenario_contract import (
    QUARTER_INPUTS,
    REQUIRED_INPUTS,
    REQUIRED_READINGS,
    SETTINGS,
)
from forecast.scenarios.locations import Where, display
from forecast.scenarios.scenario import Scenario
from forecast.scenarios.supports import check_supports, check_unread

__all__ = ["check_forecast_inputs"]


def check_forecast_inputs(scenario: Scenario) -> None:
    """Raise unless the scenario has every input a forecast reads, each of its kind, and every
    reading and setting it needs.

    Parameters
    ----------
    scenario : Scenario
        A merged scenario.

    Raises
    ------
    ScenarioError
        Naming an input nothing reads (:func:`~forecast.scenarios.supports.check_unread`),
        the missing inputs, readings or settings, an input whose kind (launch quarter or
        number) is not the one the forecast reads, or a distribution outside the support of
        a part it plays (:func:`~forecast.scenarios.supports.check_supports`).
    """
    where = Where(display(scenario.path)).child("inputs")
    missing = [name for name in REQUIRED_INPUTS if name not in scenario.inputs]
    if missing:
        others = [name for name in scenario.inputs if name not in REQUIRED_INPUTS]
        hints = [f"{found!r} for {name}?" for name in missing
                 for found in difflib.get_close_matches(name, others, n=1, cutoff=0.75)]
        typo = f"; a misspelling, {' '.join(hints)}" if hints else ""
        raise where.error(
            f"missing input(s) the forecast reads: {', '.join(missing)} (set them here or in "
            f"a scenario this one extends){typo}")
    for name in REQUIRED_INPUTS:
        is_quarter = scenario.inputs[name].is_quarter
        if name in QUARTER_INPUTS and not is_quarter:
            raise where.child(name).error("the forecast reads a launch quarter here: use "
                                          'dist = "quarter" with quarter labels')
        if name not in QUARTER_INPUTS and is_quarter:
            raise where.child(name).error("the forecast reads a number here, not a quarter")
    _check_erosion(scenario)
    _check_fixed(scenario)
    check_unread(scenario)
    check_supports(scenario)


def _check_erosion(scenario: Scenario) -> None:
    """Every vendor the forecast prices (an ``mfu_<vendor>`` input it reads, or a roadmap
    generation) has a ``[price_erosion]`` input: the cost paths erode every vendor's price."""
    vendors = {name.removeprefix("mfu_") for name in REQUIRED_INPUTS if name.startswith("mfu_")}
    vendors |= {generation.vendor for generation in scenario.roadmap}
    missing = sorted(v for v in vendors if v not in scenario.price_erosion)
    if missing:
        raise Where(display(scenario.path)).child("price_erosion").error(
            f"no price-erosion input for {', '.join(missing)}: the forecast erodes every "
            "vendor's price (an input fixed at 0, with its rationale, holds one flat)")


def _check_fixed(scenario: Scenario) -> None:
    """Every reading and setting the forecast needs is set somewhere in the chain."""
    root = Where(display(scenario.path))
    missing = [name for name in REQUIRED_READINGS if name not in scenario.readings]
    if missing:
        raise root.child("readings").error(
            f"missing reading(s) the forecast uses: {', '.join(missing)} (set them here or in "
            "a scenario this one extends)")
    missing = [name for name in SETTINGS if name not in scenario.settings]
    if missing:
        raise root.child("settings").error(
            f"missing setting(s) the forecast reads: {', '.join(missing)} (set them here or "
            "in a scenario this one extends)")
