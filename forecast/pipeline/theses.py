"""Evaluate theses (predicates over forecast sample paths) into probabilities.

A thesis names a metric (a variable of the forecast paths), an optional vendor or a
numerator/denominator chip pair, a period (a quarter, a calendar year or a range of years), how
the period's quarters combine (sum, mean or last), a comparator and a threshold. Each sample
path either satisfies it or not; the probability is the fraction that do, with its Monte Carlo
standard error sqrt(p (1 - p) / n) (paths are independent draws).

Pure numpy/xarray: no PyMC on this path.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.annual import annual_values
from forecast.core.calendar import period_quarters, quarter_index
from forecast.core.errors import ForecastError

_COMPARATORS = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


def metric_values(paths: xr.Dataset, thesis: Any) -> xr.DataArray:
    """The thesis metric as (draw, quarter), with vendor/chip selected or a chip ratio taken."""
    metric = thesis.metric
    if metric == "cost_per_pflop_hour_ratio":
        if "cost_per_pflop_hour" not in paths:
            raise ForecastError(f"thesis {thesis.name}: no cost_per_pflop_hour in the paths")
        cost = paths["cost_per_pflop_hour"]
        for chip in (thesis.numerator, thesis.denominator):
            if chip is None or chip not in cost["chip"].values:
                raise ForecastError(f"thesis {thesis.name}: chip {chip!r} not in the forecast")
        return cost.sel(chip=thesis.numerator) / cost.sel(chip=thesis.denominator)
    if metric not in paths:
        known = ", ".join(sorted(paths.data_vars))
        raise ForecastError(f"thesis {thesis.name}: unknown metric {metric!r} (known: {known})")
    values = paths[metric]
    if "vendor" in values.dims:
        if thesis.vendor is None:
            raise ForecastError(f"thesis {thesis.name}: metric {metric!r} needs a vendor")
        if thesis.vendor not in values["vendor"].values:
            raise ForecastError(f"thesis {thesis.name}: unknown vendor {thesis.vendor!r}")
        values = values.sel(vendor=thesis.vendor)
    return values


def aggregate_period(values: xr.DataArray, quarters: list[str], how: str) -> np.ndarray:
    """Combine the period's quarters per draw: sum, mean or last; all quarters must exist."""
    position = {str(label): i for i, label in enumerate(values["quarter"].values)}
    missing = [q for q in quarters if q not in position]
    if missing:
        raise ForecastError(f"period quarters {missing[0]}..{missing[-1]} are outside the "
                            "forecast horizon")
    if how not in ("sum", "mean", "last"):
        raise ForecastError(f"unknown aggregate {how!r} (sum, mean or last)")
    # numpy on the path array: the same arithmetic as xarray's sel/sum/mean (NaN counts as 0
    # in a sum and is skipped in a mean), without its indexing cost (3 ms a call).
    axis = values.dims.index("quarter")
    window = np.take(values.values, [position[q] for q in quarters], axis=axis)
    if how == "sum":
        return np.nansum(window, axis=axis)
    if how == "last":
        return np.take(window, -1, axis=axis)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
        return np.nanmean(window, axis=axis)


def monte_carlo_error(probability: float, paths: int, posterior_ess: float | None) -> float:
    """Standard error of a probability estimated from ``paths`` joint paths.

    The paths pair independent scenario-input draws with posterior samples re-used from
    fits whose effective sample size is ``posterior_ess``: the posterior part of the
    variance is known to ``posterior_ess`` samples at best, not to ``paths``. Without a
    split of the variance between inputs and posterior, the bound that assumes the
    posterior decides the thesis is used: ``p (1 - p) (1 / paths + 1 / ess)``. It never
    understates the error; when the inputs decide the thesis it overstates it.
    """
    if paths <= 0:
        return float("nan")
    inverse = 1.0 / paths
    if posterior_ess is not None and posterior_ess > 0:
        inverse += 1.0 / posterior_ess
    return float(np.sqrt(probability * (1.0 - probability) * inverse))


def evaluate_thesis(paths: xr.Dataset, thesis: Any,
                    posterior_ess: float | None = None) -> dict[str, Any]:
    """Probability, Monte Carlo error and the metric's quantiles for one thesis.

    ``posterior_ess``: the smallest bulk ESS of the fits behind the paths (see
    :func:`monte_carlo_error`); None treats the paths as independent draws.
    """
    quarters = period_quarters(thesis.period)
    first = str(paths["quarter"].values[0])
    if quarter_index(quarters[0]) < quarter_index(first):
        # The data have reached the period: it is history, not something to forecast.
        return _not_evaluable(thesis, f"period {thesis.period} starts before the forecast "
                                      f"({first}): the data cover it")
    values = aggregate_period(metric_values(paths, thesis), quarters, thesis.aggregate)
    if thesis.comparator not in _COMPARATORS:
        raise ForecastError(f"thesis {thesis.name}: unknown comparator {thesis.comparator!r}")
    finite = np.isfinite(values)
    holds = _COMPARATORS[thesis.comparator](values[finite], thesis.threshold)
    n = int(finite.sum())
    probability = float(holds.mean()) if n else float("nan")
    result = {
        "name": thesis.name,
        "statement": thesis.statement,
        "probability": probability,
        "mcse": monte_carlo_error(probability, n, posterior_ess),
        "draws": n,
        "metric_p10": float(np.quantile(values[finite], 0.1)) if n else float("nan"),
        "metric_p50": float(np.quantile(values[finite], 0.5)) if n else float("nan"),
        "metric_p90": float(np.quantile(values[finite], 0.9)) if n else float("nan"),
        "threshold": thesis.threshold,
        "comparator": thesis.comparator,
    }
    if thesis.aggregate == "sum" and thesis.comparator in (">", ">="):
        result.update(first_year_reached(paths, thesis))
    return result


def _not_evaluable(thesis: Any, note: str) -> dict[str, Any]:
    """The row of a thesis the forecast cannot evaluate: no probability, and why."""
    missing = float("nan")
    return {"name": thesis.name, "statement": thesis.statement, "probability": missing,
            "mcse": missing, "draws": 0, "metric_p10": missing, "metric_p50": missing,
            "metric_p90": missing, "threshold": thesis.threshold,
            "comparator": thesis.comparator, "note": note}


def first_year_reached(paths: xr.Dataset, thesis: Any) -> dict[str, Any]:
    """For an annual-sum threshold thesis: the first calendar year each path reaches it.

    Returns the median first year among paths that reach it within the horizon, and the
    share of paths that never do.
    """
    values = metric_values(paths, thesis).transpose("draw", "quarter")
    labels, annual = annual_values(values.values, [str(q) for q in values["quarter"].values])
    if not labels:
        return {}
    years = [int(label) for label in labels]
    reached = _COMPARATORS[thesis.comparator](annual, thesis.threshold)
    ever = reached.any(axis=1)
    first = np.where(ever, np.array(years)[reached.argmax(axis=1)], np.nan)
    return {
        "first_year_median": float(np.nanmedian(first)) if ever.any() else float("nan"),
        "never_within_horizon": float(1 - ever.mean()),
    }


def evaluate_theses(paths: xr.Dataset, theses: Iterable[Any],
                    posterior_ess: float | None = None) -> pd.DataFrame:
    """One row per thesis: statement, probability, Monte Carlo error and metric quantiles."""
    return pd.DataFrame([evaluate_thesis(paths, thesis, posterior_ess) for thesis in theses])
