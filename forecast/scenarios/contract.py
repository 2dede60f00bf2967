"""What a forecast needs of a merged scenario: every input it reads, of the right kind.

Parsing checks what one file says on its own (thesis metrics, prior names); the inputs a
forecast reads can come from any file of an ``extends`` chain, so they are checked on the
merged :class:`~forecast.scenarios.scenario.Scenario`. The names are
:data:`forecast.core.scenario_contract.REQUIRED_INPUTS`.
"""

from __future__ import annotations

from forecast.core.scenario_contract import QUARTER_INPUTS, REQUIRED_INPUTS
from forecast.scenarios.locations import Where, display
from forecast.scenarios.scenario import Scenario

__all__ = ["check_forecast_inputs"]


def check_forecast_inputs(scenario: Scenario) -> None:
    """Raise unless the scenario has every input a forecast reads, each of its kind.

    Parameters
    ----------
    scenario : Scenario
        A merged scenario.

    Raises
    ------
    ScenarioError
        Naming the missing inputs, or an input whose kind (launch quarter or number) is not
        the one the forecast reads, at the scenario's file.
    """
    where = Where(display(scenario.path)).child("inputs")
    missing = [name for name in REQUIRED_INPUTS if name not in scenario.inputs]
    if missing:
        raise where.error(
            f"missing input(s) the forecast reads: {', '.join(missing)} (set them here or in "
            "a scenario this one extends)")
    for name in REQUIRED_INPUTS:
        is_quarter = scenario.inputs[name].is_quarter
        if name in QUARTER_INPUTS and not is_quarter:
            raise where.child(name).error("the forecast reads a launch quarter here: use "
                                          'dist = "quarter" with quarter labels')
        if name not in QUARTER_INPUTS and is_quarter:
            raise where.child(name).error("the forecast reads a number here, not a quarter")
