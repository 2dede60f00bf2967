"""Scenarios layer: input distributions, prior overrides, correlations and theses.

A scenario is a TOML file in ``scenarios/`` (read with :mod:`tomllib`). It names the
assumptions a forecast runs under: one distribution per uncertain input (with a unit and a
rationale), prior overrides for the Bayesian models, rank correlations between inputs, the
mapping from catalogue chips to the input that prices them, each vendor's roadmap of announced
generations and the input of its price erosion, and the theses to evaluate.
Every problem is raised as a :class:`~forecast.core.errors.ScenarioError` with a one-line
message ``<file>: <key path>: <what is wrong>``.

Modules, one idea each:

- :mod:`~forecast.scenarios.locations`: error locations and the small value validators;
- :mod:`~forecast.scenarios.parameters`: the distribution catalogue and parameter checks;
- :mod:`~forecast.scenarios.distributions`: :class:`InputSpec` (quantiles, CDF, mean);
- :mod:`~forecast.scenarios.copula`: correlated normal scores (Gaussian copula, Iman-Conover);
- :mod:`~forecast.scenarios.theses`: :class:`ThesisSpec`;
- :mod:`~forecast.scenarios.roadmap`: the ``[roadmap]`` generations and ``[price_erosion]``;
- :mod:`~forecast.scenarios.parsing`: one file's TOML, validated into a layer;
- :mod:`~forecast.scenarios.inheritance`: the ``extends`` chain and its merge rules;
- :mod:`~forecast.scenarios.scenario`: the merged :class:`Scenario` and its sampling;
- :mod:`~forecast.scenarios.contract`: what a forecast needs of a merged scenario;
- :mod:`~forecast.scenarios.supports`: which inputs it reads, in which part, and whether
  each distribution (and each draw) fits that part;
- :mod:`~forecast.scenarios.loading`: finding, listing and loading files.
"""

from forecast.core.calendar import parse_period, quarter_index, quarter_label
from forecast.scenarios.copula import SAMPLING_METHODS, spearman_to_pearson
from forecast.scenarios.distributions import InputSpec, inputs_at_normals
from forecast.scenarios.loading import (
    DEFAULT_SCENARIOS_DIR,
    list_scenarios,
    load_scenario,
    load_scenario_file,
    scenario_names,
)
from forecast.scenarios.parameters import DISTRIBUTIONS
from forecast.scenarios.parsing import PRIOR_MODELS
from forecast.scenarios.scenario import Scenario
from forecast.scenarios.theses import AGGREGATES, COMPARATORS, ThesisSpec

__all__ = [
    "AGGREGATES",
    "COMPARATORS",
    "DEFAULT_SCENARIOS_DIR",
    "DISTRIBUTIONS",
    "PRIOR_MODELS",
    "SAMPLING_METHODS",
    "InputSpec",
    "Scenario",
    "ThesisSpec",
    "inputs_at_normals",
    "list_scenarios",
    "load_scenario",
    "load_scenario_file",
    "parse_period",
    "quarter_index",
    "quarter_label",
    "scenario_names",
    "spearman_to_pearson",
]
