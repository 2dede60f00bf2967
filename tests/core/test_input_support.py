"""The supports of scenario inputs and their sanity range (forecast.core.input_support)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from forecast.core.input_support import (
    FRACTION,
    MAX_SPREAD_RATIO,
    POSITIVE,
    RATE,
    SPREAD_QUANTILES,
    Support,
)

#: A support closed below and open above, as a fractional fall per year would be.
YEARLY_FALL = Support("a fractional fall per year in [0, 1)", 0.0, 1.0, False, True, 0.0, 1.0)


@pytest.mark.parametrize(("support", "value", "inside"), [
    (FRACTION, 0.0, False), (FRACTION, 1e-12, True), (FRACTION, 1.0, True),
    (FRACTION, 1.0000001, False), (YEARLY_FALL, 0.0, True), (YEARLY_FALL, 1.0, False),
    (POSITIVE, 0.0, False), (POSITIVE, math.inf, False), (RATE, -3.0, True),
    (RATE, math.nan, False),
])
def test_contains_respects_open_and_closed_bounds(support, value, inside):
    assert support.contains(value) is inside


@pytest.mark.parametrize(("support", "lowest", "highest", "constant", "covered"), [
    (FRACTION, 0.0, 1.0, False, True),    # a beta: reaches 0 only as the edge of its support
    (FRACTION, 0.0, 0.0, True, False),    # fixed at 0: every draw is 0
    (FRACTION, 0.5, 5.0, False, False),   # drawn from 0.5 to 5
    (YEARLY_FALL, 0.0, 1.0, False, True),
    (YEARLY_FALL, 1.0, 1.0, True, False),
    (POSITIVE, 0.0, math.inf, False, True),  # a lognormal
    (RATE, -math.inf, math.inf, False, True),
    (POSITIVE, math.nan, 1.0, False, False),
])
def test_covers_takes_an_open_bound_only_as_the_edge_of_a_continuous_distribution(
        support, lowest, highest, constant, covered):
    assert support.covers(lowest, highest, constant) is covered


def test_the_shipped_scenarios_sit_well_inside_the_spread_sanity_range():
    from forecast.scenarios import list_scenarios
    from forecast.scenarios.supports import input_roles

    widest = 0.0
    for scenario in list_scenarios():
        for name, roles in input_roles(scenario).items():
            spec = scenario.inputs[name]
            if not spec.is_quarter and any(role.support.ratio for role in roles):
                low, high = spec.quantile(np.array(SPREAD_QUANTILES))
                widest = max(widest, high / low)
    assert 30 < widest < 50 < MAX_SPREAD_RATIO  # as the module docstring says
