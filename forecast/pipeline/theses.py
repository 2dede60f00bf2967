"""Evaluate theses (predicates over forecast sample paths) into probabilities.

A thesis names a metric (a variable of the forecast paths), an optional vendor or a
numerator/denominator chip pair, a period (a quarter, a calendar year or a range of years), how
the period's quarters combine (sum, mean or last), a comparator, a threshold and how the period
is read: ``in`` that period, or ``by`` it (first reached in any year, or quarter, of the
forecast up to it). Each sample path either satisfies it or not; the probability is the
fraction that do, with a Monte Carlo standard error that counts the posterior's effective
sample size (:func:`monte_carlo_error`). Every thesis over a year or a quarter also reports
the distribution of the first year (or quarter) it is reached (:func:`first_reached`).

Pure numpy/xarray: no PyMC on this path.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.calendar import parse_period, period_quarters, quarter_index
from forecast.core.errors import ForecastError

_COMPARATORS = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


def metric_values(paths: xr.Dataset, thesis: Any) -> xr.DataArray:
    """The thesis metric as (draw, quarter): vendor selected, chip ratio taken, or AWS chips
    summed over their generations."""
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
    if "generation" in values.dims:  # AWS chips of every generation (shipments, fleet)
        values = values.sum("generation")
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


def period_steps(values: xr.DataArray, thesis: Any) -> tuple[list[str], np.ndarray]:
    """The thesis metric year by year (a year period) or quarter by quarter (a quarter period).

    Parameters
    ----------
    values
        The metric as (draw, quarter), from :func:`metric_values`.
    thesis
        The thesis; its ``aggregate`` combines each year's four quarters.

    Returns
    -------
    (list of str, numpy.ndarray)
        Labels of the forecast's complete calendar years (or of its quarters) and the
        (draw, step) values; no steps for a range period (one cumulative quantity).
    """
    values = values.transpose("draw", "quarter")
    labels = [str(q) for q in values["quarter"].values]
    kind = parse_period(thesis.period)[0]
    if kind == "quarter":
        return labels, np.asarray(values.values, dtype=float)
    if kind != "year":
        return [], np.empty((values.sizes["draw"], 0))
    years = [y for y in dict.fromkeys(label[:4] for label in labels)
             if all(f"{y}Q{k}" in labels for k in range(1, 5))]
    if not years:
        return [], np.empty((values.sizes["draw"], 0))
    steps = [aggregate_period(values, [f"{y}Q{k}" for k in range(1, 5)], thesis.aggregate)
             for y in years]
    return years, np.stack(steps, axis=1)


def _up_to(labels: list[str], period: str) -> list[int]:
    """Positions of the steps in or before ``period`` (its last quarter)."""
    last = parse_period(period)[2]
    return [i for i, label in enumerate(labels)
            if quarter_index(label if "Q" in label else f"{label}Q4") <= last]


def thesis_values(paths: xr.Dataset, thesis: Any) -> np.ndarray:
    """Per path, the value the thesis compares with its threshold.

    ``when = "in"``: the metric aggregated over the period. ``when = "by"``: the most
    favourable year (or quarter) of the forecast up to the period, the largest for ``>``
    and ``>=``, the smallest for ``<`` and ``<=``, so that the comparator holds on it exactly
    when the claim is reached in some step in or before the period.
    """
    values = metric_values(paths, thesis)
    quarters = period_quarters(thesis.period)
    window = aggregate_period(values, quarters, thesis.aggregate)  # checks the horizon
    if getattr(thesis, "when", "in") != "by":
        return window
    labels, steps = period_steps(values, thesis)
    steps = steps[:, _up_to(labels, thesis.period)]
    if steps.shape[1] == 0:
        return np.full(steps.shape[0], np.nan)
    pick = np.nanmax if thesis.comparator in (">", ">=") else np.nanmin
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
        return pick(steps, axis=1)


def evaluate_thesis(paths: xr.Dataset, thesis: Any,
                    posterior_ess: float | None = None) -> dict[str, Any]:
    """Probability, Monte Carlo error and the metric's quantiles for one thesis.

    ``posterior_ess``: the smallest bulk ESS of the fits behind the paths (see
    :func:`monte_carlo_error`); None treats the paths as independent draws. A thesis over a
    year or a quarter also gets when it is first reached (:func:`first_reached`).
    """
    quarters = period_quarters(thesis.period)
    first = str(paths["quarter"].values[0])
    if quarter_index(quarters[0]) < quarter_index(first):
        # The data have reached the period: it is history, not something to forecast.
        return _not_evaluable(thesis, f"period {thesis.period} starts before the forecast "
                                      f"({first}): the data cover it")
    if thesis.comparator not in _COMPARATORS:
        raise ForecastError(f"thesis {thesis.name}: unknown comparator {thesis.comparator!r}")
    values = thesis_values(paths, thesis)
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
        "when": getattr(thesis, "when", "in"),
    }
    result.update(first_reached(paths, thesis))
    return result


def _not_evaluable(thesis: Any, note: str) -> dict[str, Any]:
    """The row of a thesis the forecast cannot evaluate: no probability, and why."""
    missing = float("nan")
    return {"name": thesis.name, "statement": thesis.statement, "probability": missing,
            "mcse": missing, "draws": 0, "metric_p10": missing, "metric_p50": missing,
            "metric_p90": missing, "threshold": thesis.threshold,
            "comparator": thesis.comparator, "when": getattr(thesis, "when", "in"),
            "note": note}


def first_reached(paths: xr.Dataset, thesis: Any) -> dict[str, Any]:
    """When each path first meets the thesis: the distribution of the first year reached.

    The steps are the forecast's complete calendar years (a year period, each aggregated as
    the thesis says) or its quarters (a quarter period), over the whole horizon, not only up
    to the period. A range period gives nothing.

    Returns
    -------
    dict
        ``first_reached``: step label -> share of all paths that first meet the thesis in
        that step; ``never_within_horizon``: share that never do; ``first_reached_median``:
        the median first step among the paths that meet it (None if none does);
        ``first_year_median``: that median as a number for a year period (NaN otherwise).
        Empty for a range period.
    """
    labels, steps = period_steps(metric_values(paths, thesis), thesis)
    if not labels:
        return {}
    with np.errstate(invalid="ignore"):
        reached = _COMPARATORS[thesis.comparator](steps, thesis.threshold)  # NaN: not met
    ever = reached.any(axis=1)
    first = np.where(ever, reached.argmax(axis=1), -1)
    shares = {label: float(np.mean(first == i)) for i, label in enumerate(labels)}
    median = None
    if ever.any():
        # The lower median of the step positions: a step that exists.
        median = labels[int(np.sort(first[ever])[(int(ever.sum()) - 1) // 2])]
    year_period = parse_period(thesis.period)[0] == "year"
    return {
        "first_reached": shares,
        "first_reached_median": median,
        "first_year_median": float(median) if year_period and median else float("nan"),
        "never_within_horizon": float(1 - ever.mean()),
    }


def evaluate_theses(paths: xr.Dataset, theses: Iterable[Any],
                    posterior_ess: float | None = None) -> pd.DataFrame:
    """One row per thesis: statement, probability, Monte Carlo error and metric quantiles."""
    return pd.DataFrame([evaluate_thesis(paths, thesis, posterior_ess) for thesis in theses])
