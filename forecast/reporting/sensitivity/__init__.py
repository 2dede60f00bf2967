"""Which scenario inputs move a forecast output: tornado, spider, global ranking, tails.

Four modules, by idea:

- :mod:`~forecast.reporting.sensitivity.measures`: the pure math over callables, arrays and
  DataFrames (no simulation, no I/O): one-at-a-time runs (:func:`tornado`, :func:`spider`),
  the global ranking over Monte Carlo draws (Spearman, standardised regression coefficients
  on values and on ranks) and :func:`tail_attribution` (which inputs produce the bear tail).
- :mod:`~forecast.reporting.sensitivity.outputs`: :class:`OutputSpec` names an output
  (``aws_rental_revenue:2030``, ``share:aws:2030``, ``thesis:aws_rental_run_rate_50b_by_2030``) and
  :func:`output_draws` / :func:`output_value` read it off a
  :class:`~forecast.pipeline.results.Forecast`.
- :mod:`~forecast.reporting.sensitivity.simulation`: :class:`SimulationSensitivity` re-runs
  :func:`~forecast.pipeline.simulate.simulate` from one loaded fit with the scenario inputs
  held at quantiles, always with the same seed and number of draws (common random numbers:
  a swing is the effect of the input, not Monte Carlo noise); :func:`run_sensitivity` is the
  one call behind ``cli.py sensitivity``.
- :mod:`~forecast.reporting.sensitivity.display`: the command line's tables.

What one-at-a-time swings mean here: with every input held at a single value, the spread
left in the output is the models' posterior uncertainty; the swing is the change in a
statistic of the output (its median by default, or a thesis probability) as one input
moves from its P10 to its P90. Correlations between inputs are ignored in these runs (they
are not in the global ranking and tail attribution). An input that acts only as a prior at
fitting time (the TAM ceiling) has no effect while the fit is held fixed, and shows a swing
of exactly zero.

Numpy, pandas, scipy and xarray only: no PyMC.
"""

from forecast.core.presentation import METRIC_ALIASES
from forecast.reporting.sensitivity.display import display_tornado, sensitivity_text
from forecast.reporting.sensitivity.measures import (
    SPIDER_PERCENTILES,
    global_ranking,
    one_at_a_time,
    rank_correlations,
    spider,
    spider_table,
    standardised_regression,
    tail_attribution,
    tornado,
    tornado_table,
)
from forecast.reporting.sensitivity.outputs import (
    STATISTICS,
    OutputSpec,
    check_output,
    output_draws,
    output_value,
    parse_output,
)
from forecast.reporting.sensitivity.simulation import (
    DEFAULT_DRAWS,
    SensitivityResult,
    SimulationSensitivity,
    fixed_inputs,
    forecast_inputs,
    input_ppfs,
    run_sensitivity,
)

__all__ = [
    "DEFAULT_DRAWS",
    "METRIC_ALIASES",
    "SPIDER_PERCENTILES",
    "STATISTICS",
    "OutputSpec",
    "SensitivityResult",
    "SimulationSensitivity",
    "check_output",
    "display_tornado",
    "fixed_inputs",
    "forecast_inputs",
    "global_ranking",
    "input_ppfs",
    "one_at_a_time",
    "output_draws",
    "output_value",
    "parse_output",
    "rank_correlations",
    "run_sensitivity",
    "sensitivity_text",
    "spider",
    "spider_table",
    "standardised_regression",
    "tail_attribution",
    "tornado",
    "tornado_table",
]
