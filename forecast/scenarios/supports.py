"""What the forecast reads of a merged scenario's inputs, and whether it can use them.

An input is *read* when the forecast or a model reads it by name
(:data:`~forecast.core.scenario_contract.REQUIRED_INPUTS`,
:data:`~forecast.core.scenario_contract.MODEL_INPUTS`) or a scenario table gives it a part: a
``[roadmap]`` generation's launch, performance or price, a ``[chip_prices]`` price, a
``[price_erosion]`` yearly fall. Each part has a support
(:data:`~forecast.core.scenario_contract.INPUT_SUPPORT`,
:data:`~forecast.core.scenario_contract.ROLE_SUPPORT`; the rules are
:mod:`forecast.core.input_support`'s). An input no part reads changes nothing (a correlation
with it only reorders the draws of its partner): most often it is a misspelling of one that
is read, which then silently keeps the value of the scenario it extends, so it is an error.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from forecast.core.errors import ScenarioError
from forecast.core.input_support import (
    MAX_SPREAD_RATIO,
    QUARTER,
    SPREAD_QUANTILES,
    TAIL,
    Support,
)
from forecast.core.scenario_contract import (
    INPUT_SUPPORT,
    MODEL_INPUTS,
    REQUIRED_INPUTS,
    ROLE_SUPPORT,
)
from forecast.scenarios.distributions import InputSpec, beta_quantiles
from forecast.scenarios.scenario import Scenario

__all__ = ["Role", "check_draws", "check_supports", "check_unread", "input_roles",
           "support_problem"]


@dataclass(frozen=True)
class Role:
    """One part an input plays: who reads it (``the forecast``, ``roadmap.aws.Trainium4.
    launch``...) and the support that part needs."""

    reader: str
    support: Support


def input_roles(scenario: Scenario) -> dict[str, list[Role]]:
    """Every input the forecast reads, in the scenario's input order, with its parts.

    Parameters
    ----------
    scenario : Scenario
        A merged scenario (its tables already reference existing inputs).

    Returns
    -------
    dict of str to list of Role
    """
    roles: dict[str, list[Role]] = {}

    def add(name: str, reader: str, support: Support) -> None:
        roles.setdefault(name, []).append(Role(reader, support))

    for name in (*REQUIRED_INPUTS, *MODEL_INPUTS):
        add(name, "the forecast", INPUT_SUPPORT[name])
    for generation in scenario.roadmap:
        for key in ("launch", "performance", "price"):
            add(getattr(generation, key), f"roadmap.{generation.vendor}.{generation.name}.{key}",
                ROLE_SUPPORT[key])
    for chip, name in scenario.chip_prices.items():
        add(name, f"chip_prices.{chip}", ROLE_SUPPORT["chip_price"])
    for vendor, name in scenario.price_erosion.items():
        add(name, f"price_erosion.{vendor}", ROLE_SUPPORT["price_erosion"])
    return {name: roles[name] for name in scenario.inputs if name in roles}


def check_unread(scenario: Scenario) -> None:
    """Raise unless every input is read by the forecast, a model or a scenario table.

    Raises
    ------
    ScenarioError
        At ``inputs.<name>`` of the file that sets the first input nothing reads, with the
        read input it most resembles.
    """
    roles = input_roles(scenario)
    read = sorted({*roles, *REQUIRED_INPUTS, *MODEL_INPUTS})
    for name in scenario.inputs:
        if name not in roles:
            hint = difflib.get_close_matches(name, read, n=1, cutoff=0.75)
            suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
            raise scenario.error("inputs", name, message=(
                "no model or scenario table reads this input, so it would change nothing"
                f"{suggestion} (a [roadmap], [chip_prices] or [price_erosion] entry gives an "
                "input its part)"))


def check_supports(scenario: Scenario) -> None:
    """Raise unless every read input's distribution fits every part it plays.

    Raises
    ------
    ScenarioError
        At ``inputs.<name>`` of the file that sets the input: a distribution outside a
        part's support or beyond its sanity range (:mod:`forecast.core.input_support`).
    """
    roles = input_roles(scenario)
    _support_quantiles_of([scenario.inputs[name] for name in roles])
    for name, parts in roles.items():
        for role in parts:
            problem = support_problem(scenario.inputs[name], role.support)
            if problem:
                raise scenario.error("inputs", name, message=(
                    f"{role.reader} reads it as {role.support.name}, but {problem}"))


def support_problem(spec: InputSpec, support: Support) -> str | None:
    """Why ``spec``'s draws do not fit ``support`` (its values, then its sanity range), or
    None when they do. Launch quarters are only of their kind here."""
    if support is QUARTER:
        return None if spec.is_quarter else "it is a number, not a launch quarter"
    if spec.is_quarter:
        return "it is a launch quarter, not a number"
    return _distribution_problem(*_by_value(spec), support)


def _distribution_problem(dist: str, params: tuple[tuple[str, float], ...],
                          support: Support) -> str | None:
    """:func:`support_problem` of a numeric distribution."""
    lowest, low, spread_low, spread_high, high, highest = _support_quantiles(dist, params)
    spread = (spread_low, spread_high)
    if not support.covers(lowest, highest, dist == "fixed"):
        return (f"its distribution takes values from {_shown(lowest)} to {_shown(highest)}"
                if lowest != highest else f"it is fixed at {_shown(lowest)}")
    if not (support.contains(low) and support.contains(high)
            and support.sane_low <= low and high <= support.sane_high):
        return (f"it draws from {_shown(low)} to {_shown(high)} in practice (its {TAIL:g} and "
                f"1 - {TAIL:g} quantiles), beyond the sane range {_shown(support.sane_low)} "
                f"to {_shown(support.sane_high)} of its draws (forecast.core.input_support)")
    if support.ratio and spread[1] > MAX_SPREAD_RATIO * spread[0]:
        return (f"its spread is too wide: its 99.9% quantile is {spread[1] / spread[0]:.3g} "
                f"times its 0.1% quantile, more than {MAX_SPREAD_RATIO:g} (a lognormal sigma "
                "above 1.49; forecast.core.input_support)")
    return None


#: The quantiles a support check reads: the ends, the sane range's tails, the spread's.
_CHECKED_LEVELS = np.array([0.0, TAIL, *SPREAD_QUANTILES, 1.0 - TAIL, 1.0])
_QUANTILES: dict[tuple[str, tuple[tuple[str, float], ...]], tuple[float, ...]] = {}
#: Distributions kept at most; a sweep or fuzz run of many scenarios starts the table anew.
_MAX_KEPT = 4096


def _by_value(spec: InputSpec) -> tuple[str, tuple[tuple[str, float], ...]]:
    """A distribution as its kind and sorted parameters, the key its quantiles are kept by."""
    return spec.dist, tuple(sorted(spec.params.items()))


def _keep(key: tuple[str, tuple[tuple[str, float], ...]], quantiles: tuple[float, ...]) -> None:
    if len(_QUANTILES) >= _MAX_KEPT:
        _QUANTILES.clear()
    _QUANTILES[key] = quantiles


def _support_quantiles(dist: str, params: tuple[tuple[str, float], ...]) -> tuple[float, ...]:
    """A numeric distribution's quantiles at :data:`_CHECKED_LEVELS`, kept by value: a
    scenario loaded again (every command loads its chain, a sweep or test many times) costs
    its quantiles once."""
    key = (dist, params)
    found = _QUANTILES.get(key)
    if found is None:
        spec = InputSpec(name="", dist=dist, params=dict(params))
        with np.errstate(all="ignore"):
            found = tuple(map(float, spec.quantile(_CHECKED_LEVELS)))
        _keep(key, found)
    return found


def _support_quantiles_of(specs: list[InputSpec]) -> None:
    """:func:`_support_quantiles` of every beta and PERT input of ``specs``, in one
    :func:`~forecast.scenarios.distributions.beta_quantiles` call (each value the one a call
    of its own gives)."""
    todo = {_by_value(spec): spec for spec in specs if spec.beta_form is not None}
    todo = {key: spec for key, spec in todo.items() if key not in _QUANTILES}
    if not todo:
        return
    with np.errstate(all="ignore"):  # as for one input: extreme shapes overflow on the way
        quantiles = beta_quantiles(list(todo.values()),
                                   np.tile(_CHECKED_LEVELS, (len(todo), 1)))
    for row, key in enumerate(todo):
        _keep(key, tuple(map(float, quantiles[row])))


def _shown(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else str(value)


def check_draws(scenario: Scenario, inputs: pd.DataFrame,
                roles: Mapping[str, list[Role]] | None = None) -> None:
    """Raise unless every draw of a read input is in the support of every part it plays.

    For draws made elsewhere (a sensitivity run's quantiles, a sweep's held values, a frame
    a caller passes to ``simulate``): a value the cost paths, the spend model or the AWS
    silicon paths would refuse is named here, by input, before any of them runs.

    Raises
    ------
    ScenarioError
        Naming the scenario, the input, the first bad value and the part that reads it.
    """
    roles = input_roles(scenario) if roles is None else roles
    for name, parts in roles.items():
        if name not in inputs:
            continue
        values = inputs[name].to_numpy(float)
        for role in parts:
            support = role.support
            if support is QUARTER:
                continue
            with np.errstate(invalid="ignore"):
                above = values > support.low if support.low_open else values >= support.low
                below = values < support.high if support.high_open else values <= support.high
            bad = ~(np.isfinite(values) & above & below)
            if bad.any():
                raise ScenarioError(
                    f"scenario {scenario.name}: input {name!r} drew {_shown(values[bad][0])} "
                    f"({int(bad.sum())} of {len(values)} draws), but {role.reader} reads it "
                    f"as {support.name}")
