"""The prior predictive TAM of a far year, with and without M6's bounds, beside each bound.

The check of ``docs/models/bounds.md``: draw the joint spend model's free variables from
their priors (under a scenario's priors), forecast from each draw as from a posterior sample,
and read the year's TAM twice on the same paths, faded against the scenario's tightest bound
and as the trend carries it (``tam_demand``). The prior predictive ignores the model's
censored statements (``pm.Potential``), as PyMC's forward sampling does; it holds the last
fitted quarter's cost gaps, as a forecast without a scenario's cost paths does.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_index, quarter_labels
from forecast.economics.bounds import BOUND_INPUTS, bound_paths, quarter_years, tightest
from forecast.models.registry import model_class
from forecast.models.spend.fitted import FittedSpend

#: Quantiles every row of :func:`tails_frame` reports.
LEVELS = (0.1, 0.5, 0.9)


@dataclass(frozen=True)
class YearTails:
    """A far year's annual TAM and bounds per draw, USD bn: ``values`` maps a name
    (``tam``, ``tam_unbounded``, ``bound_<name>``) to its draws."""

    year: int
    values: dict[str, np.ndarray]


def prior_spend(dataset: Any, scenario: Any, draws: int = 1000, seed: int = 0) -> FittedSpend:
    """The joint spend model's prior under ``scenario``'s priors, as a fitted model whose
    "posterior" is ``draws`` prior draws (one chain): forecasts read it as they read a fit."""
    cls = model_class("spend")
    model = cls(priors=cls.scenario_priors(scenario))
    inputs = model.prepare_with(dataset, scenario, {})
    with warnings.catch_warnings():
        # The censored statements are Potentials, which forward sampling cannot draw from.
        warnings.filterwarnings("ignore", message="The effect of Potentials")
        idata = model.prior_predictive(inputs, draws=draws, seed=seed)
    keep = [name for name in idata.prior.data_vars if name not in model.auxiliary_vars]
    config = {"priors": model.priors, "sampler": {}, **model.fitted_config(inputs)}
    return FittedSpend(posterior=idata.prior[keep], data=model.fitted_frames(inputs),
                       config=config, summary_table=pd.DataFrame(),
                       meta=model.fitted_meta(inputs))


def year_tails(fitted: FittedSpend, scenario: Any, year: int = 2030, draws: int = 1000,
               seed: int = 0) -> YearTails:
    """``year``'s TAM from ``fitted`` (a posterior or :func:`prior_spend`) with the
    scenario's bounds and without, and each bound's path, on ``draws`` paths."""
    labels = quarter_labels(quarter_index(fitted.window[-1]) + 1, quarter_index(f"{year}Q4"))
    inputs = scenario.sample(draws, seed=seed)
    columns = {name: np.asarray(inputs[name], dtype=float)
               for names in BOUND_INPUTS.values() for name in names}
    bounds = bound_paths(columns, quarter_years(labels))
    paths = fitted.forecast(labels, draws=draws, seed=seed, bound=tightest(bounds)[0])
    in_year = [k for k, label in enumerate(labels) if label.startswith(str(year))]
    # Quarterly spend sums to the year; a bound is a yearly rate, averaged over the year.
    values = {"tam": paths["tam"].values[:, in_year].sum(axis=1),
              "tam_unbounded": paths["tam_demand"].values[:, in_year].sum(axis=1)}
    values.update({f"bound_{name}": path[:, in_year].mean(axis=1)
                   for name, path in bounds.items()})
    return YearTails(year, values)


def tails_frame(tails: dict[str, YearTails]) -> pd.DataFrame:
    """One row per (source, quantity): ``source`` (``prior``, ``posterior``), ``quantity``,
    ``q10``, ``q50``, ``q90`` and the 90th/10th ratio, USD bn a year."""
    rows = []
    for source, found in tails.items():
        for quantity, values in found.values.items():
            q10, q50, q90 = np.quantile(values, LEVELS)
            rows.append({"source": source, "year": found.year, "quantity": quantity,
                         "q10": q10, "q50": q50, "q90": q90, "ratio": q90 / q10})
    return pd.DataFrame(rows)

