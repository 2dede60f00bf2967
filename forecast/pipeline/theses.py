"""Evaluate theses (predicates over forecast sample paths) into probabilities.

A thesis names a metric (a variable of the forecast paths), an optional vendor or a
numerator/denominator pair, a period (a quarter, a calendar year or a range of years), how the
period's quarters combine (sum, mean, last or a yearly run rate), a comparator, a threshold and
how the period is read: ``in`` that period, or ``by`` it (first reached in any year, or
quarter, of the forecast up to it). With ``change_from`` the value is a change: the aggregate
over the period minus the aggregate over that earlier period, path by path. Each sample path
either satisfies it or not; the probability is the fraction that do, with a Monte Carlo
standard error that counts the posterior's effective sample size (:func:`monte_carlo_error`).
Every thesis over a year or a quarter also reports the distribution of the first year (or
quarter) it is reached (:func:`first_reached`).

A period (or ``change_from``) the data have reached reads the fitted posterior of the
in-sample quarters (``history``: ``Forecast.in_sample``, the same posterior draws as the
paths) where the forecast has it (:data:`~forecast.core.scenario_contract.IN_SAMPLE_METRICS`);
for any other metric such a thesis is not evaluable, and says why. The steps of ``by`` and of
the first year reached are the forecast's own years (or quarters): a claim already true in
the fitted past is not "first reached" there.

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
from forecast.core.scenario_contract import FRONTIER_PREFIX

_COMPARATORS = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}
#: How a period's quarters combine (``run_rate``: 4 x their mean, a yearly rate).
_AGGREGATES = ("sum", "mean", "last", "run_rate")


def metric_values(paths: xr.Dataset, thesis: Any,
                  history: xr.Dataset | None = None) -> xr.DataArray:
    """The thesis metric as (draw, quarter): vendor selected, chip ratio taken, or AWS chips
    summed over their generations.

    With ``history`` (the in-sample posterior, ``Forecast.in_sample``) holding the metric,
    its quarters before the forecast's first come first: the period of a thesis may then
    start in the past. Ratio metrics have no in-sample paths.
    """
    metric = thesis.metric
    if metric == "cost_per_pflop_hour_ratio":  # hyperscaler list prices
        return (_chip(paths, thesis, "cost_per_pflop_hour", thesis.numerator)
                / _chip(paths, thesis, "cost_per_pflop_hour", thesis.denominator))
    if metric == "owner_cost_ratio":  # owner TCO, a chip or a vendor's best offer
        return (_owner_side(paths, thesis, thesis.numerator)
                / _owner_side(paths, thesis, thesis.denominator))
    values = _select(paths, thesis)
    if history is None or metric not in history:
        return values
    past = _select(history, thesis).transpose("draw", "quarter")
    first = quarter_index(str(values["quarter"].values[0]))
    keep = [i for i, q in enumerate(past["quarter"].values) if quarter_index(str(q)) < first]
    if not keep:
        return values
    values = values.transpose("draw", "quarter")
    labels = [str(q) for q in past["quarter"].values[keep]] + [
        str(q) for q in values["quarter"].values]
    joined = np.concatenate([past.values[:, keep], values.values], axis=1)
    return xr.DataArray(joined, dims=("draw", "quarter"),
                        coords={"draw": values["draw"].values, "quarter": labels})


def _select(paths: xr.Dataset, thesis: Any) -> xr.DataArray:
    """The metric's paths, of the thesis's vendor, summed over AWS generations."""
    metric = thesis.metric
    if metric not in paths:
        known = ", ".join(sorted(str(name) for name in paths.data_vars))
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


def _chip(paths: xr.Dataset, thesis: Any, variable: str, chip: str | None) -> xr.DataArray:
    """One chip's cost per effective PFLOP-hour from ``variable`` (draw, quarter, chip)."""
    if variable not in paths:
        raise ForecastError(f"thesis {thesis.name}: no {variable} in the paths")
    cost = paths[variable]
    if chip is None or chip not in cost["chip"].values:
        raise ForecastError(f"thesis {thesis.name}: chip {chip!r} not in the forecast")
    return cost.sel(chip=chip, drop=True)


def _owner_side(paths: xr.Dataset, thesis: Any, side: str | None) -> xr.DataArray:
    """A side of ``owner_cost_ratio``: a chip's own owner-TCO cost, or ``frontier:<group>``,
    that group's best offer of the quarter (its ``vendor_cost`` path, the same basis)."""
    if side is None or not side.startswith(FRONTIER_PREFIX):
        return _chip(paths, thesis, "owner_cost_per_pflop_hour", side)
    group = side[len(FRONTIER_PREFIX):]
    if "vendor_cost" not in paths:
        raise ForecastError(f"thesis {thesis.name}: no vendor_cost in the paths")
    cost = paths["vendor_cost"]
    if group not in cost["cost_vendor"].values:
        known = ", ".join(str(v) for v in cost["cost_vendor"].values)
        raise ForecastError(f"thesis {thesis.name}: unknown vendor group {group!r} in "
                            f"{side!r} (known: {known})")
    return cost.sel(cost_vendor=group, drop=True)


def _combine(window: np.ndarray, how: str, axis: int) -> np.ndarray:
    """Sum, mean, last or run rate (4 x the mean) of ``window`` along ``axis``."""
    if how == "sum":
        return np.nansum(window, axis=axis)
    if how == "last":
        return np.take(window, -1, axis=axis)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
        mean = np.nanmean(window, axis=axis)
    return 4.0 * mean if how == "run_rate" else mean


def aggregate_period(values: xr.DataArray, quarters: list[str], how: str) -> np.ndarray:
    """Combine the period's quarters per draw: sum, mean, last or run rate (4 x the mean);
    all quarters must exist."""
    position = {str(label): i for i, label in enumerate(values["quarter"].values)}
    missing = [q for q in quarters if q not in position]
    if missing:
        raise ForecastError(f"period quarters {missing[0]}..{missing[-1]} are outside the "
                            "forecast horizon")
    if how not in _AGGREGATES:
        raise ForecastError(f"unknown aggregate {how!r} (sum, mean, last or run_rate)")
    # numpy on the path array: the same arithmetic as xarray's sel/sum/mean (NaN counts as 0
    # in a sum and is skipped in a mean), without its indexing cost.
    axis = values.dims.index("quarter")
    window = np.take(values.values, [position[q] for q in quarters], axis=axis)
    return _combine(window, how, axis)


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
        The metric as (draw, quarter), from :func:`metric_values` (without history: the
        steps are the forecast's).
    thesis
        The thesis; its ``aggregate`` combines each year's four quarters (and is applied to
        each quarter alone for a quarter period: a run rate is 4 x the quarter).

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
        array = np.asarray(values.values, dtype=float)
        return labels, _combine(array[:, :, None], thesis.aggregate, axis=2)
    if kind != "year":
        return [], np.empty((values.sizes["draw"], 0))
    years = [y for y in dict.fromkeys(label[:4] for label in labels)
             if all(f"{y}Q{k}" in labels for k in range(1, 5))]
    if not years:
        return [], np.empty((values.sizes["draw"], 0))
    steps = [aggregate_period(values, [f"{y}Q{k}" for k in range(1, 5)], thesis.aggregate)
             for y in years]
    return years, np.stack(steps, axis=1)


def _step_quarters(label: str) -> tuple[int, int]:
    """First and last quarter index of a step (a year or a quarter label)."""
    return parse_period(label)[1:]


def _steps(paths: xr.Dataset, thesis: Any, base: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The forecast's steps (:func:`period_steps`) after ``change_from`` ends, less ``base``."""
    labels, steps = period_steps(metric_values(paths, thesis), thesis)
    change_from = getattr(thesis, "change_from", None)
    if change_from is None:
        return labels, steps
    after = parse_period(change_from)[2]
    keep = [i for i, label in enumerate(labels) if _step_quarters(label)[0] > after]
    return [labels[i] for i in keep], steps[:, keep] - base[:, None]


def _baseline(values: xr.DataArray, thesis: Any) -> np.ndarray:
    """The aggregate over ``change_from`` per path (0 without one)."""
    change_from = getattr(thesis, "change_from", None)
    if change_from is None:
        return np.zeros(values.sizes["draw"])
    return aggregate_period(values, period_quarters(change_from), thesis.aggregate)


def thesis_values(paths: xr.Dataset, thesis: Any,
                  history: xr.Dataset | None = None) -> np.ndarray:
    """Per path, the value the thesis compares with its threshold.

    ``when = "in"``: the metric aggregated over the period (less its aggregate over
    ``change_from``, if given). ``when = "by"``: the most favourable of the period itself and
    the forecast's years (or quarters) up to it (after ``change_from``), the largest for
    ``>`` and ``>=``, the smallest for ``<`` and ``<=``, so that the comparator holds on it
    exactly when the claim is reached in some step in or before the period. ``history``:
    the in-sample posterior (``Forecast.in_sample``) for quarters before the forecast.
    """
    values = metric_values(paths, thesis, history)
    base = _baseline(values, thesis)
    window = aggregate_period(values, period_quarters(thesis.period), thesis.aggregate) - base
    if getattr(thesis, "when", "in") != "by":
        return window
    labels, steps = _steps(paths, thesis, base)
    last = parse_period(thesis.period)[2]
    steps = steps[:, [i for i, label in enumerate(labels) if _step_quarters(label)[1] <= last]]
    candidates = np.column_stack([window, steps])
    pick = np.nanmax if thesis.comparator in (">", ">=") else np.nanmin
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
        return pick(candidates, axis=1)


def unreached_note(paths: xr.Dataset, thesis: Any,
                   history: xr.Dataset | None = None) -> str | None:
    """Why a thesis reaching before the forecast cannot be evaluated, or None if it can.

    Its period (or ``change_from``) may start before the forecast's first quarter only for a
    metric whose in-sample posterior ``history`` holds, and only back to its first quarter.
    """
    first = str(paths["quarter"].values[0])
    for key in ("period", "change_from"):
        period = getattr(thesis, key, None)
        if period is None or parse_period(period)[1] >= quarter_index(first):
            continue
        what = "period" if key == "period" else "change_from"
        if history is None or thesis.metric not in history:
            held = ", ".join(str(n) for n in history.data_vars) if history is not None else ""
            return (f"{what} {period} starts before the forecast ({first}) and the paths "
                    f"hold no in-sample posterior of {thesis.metric}"
                    + (f" (only of {held})" if held else ""))
        start = str(history["quarter"].values[0])
        if parse_period(period)[1] < quarter_index(start):
            return (f"{what} {period} starts before the fitted history of {thesis.metric} "
                    f"({start})")
    return None


def evaluate_thesis(paths: xr.Dataset, thesis: Any, posterior_ess: float | None = None,
                    history: xr.Dataset | None = None) -> dict[str, Any]:
    """Probability, Monte Carlo error and the metric's quantiles for one thesis.

    ``posterior_ess``: the smallest bulk ESS of the fits behind the paths (see
    :func:`monte_carlo_error`); None treats the paths as independent draws. ``history``: the
    in-sample posterior (``Forecast.in_sample``), read for quarters before the forecast
    (:func:`unreached_note`). A thesis over a year or a quarter of the forecast also gets
    when it is first reached (:func:`first_reached`); one over a period the data have
    reached does not.
    """
    note = unreached_note(paths, thesis, history)
    if note:
        return _not_evaluable(thesis, note)
    if thesis.comparator not in _COMPARATORS:
        raise ForecastError(f"thesis {thesis.name}: unknown comparator {thesis.comparator!r}")
    values = thesis_values(paths, thesis, history)
    finite = np.isfinite(values)
    holds = _COMPARATORS[thesis.comparator](values[finite], thesis.threshold)
    n = int(finite.sum())
    probability = float(holds.mean()) if n else float("nan")
    result = {
        **_identity(thesis),
        "probability": probability,
        "mcse": monte_carlo_error(probability, n, posterior_ess),
        "draws": n,
        "metric_q10": float(np.quantile(values[finite], 0.1)) if n else float("nan"),
        "metric_q50": float(np.quantile(values[finite], 0.5)) if n else float("nan"),
        "metric_q90": float(np.quantile(values[finite], 0.9)) if n else float("nan"),
    }
    if parse_period(thesis.period)[1] >= quarter_index(str(paths["quarter"].values[0])):
        # A claim about a period the data reached (partly) is not "first reached" later.
        result.update(first_reached(paths, thesis, history))
    return result


def _identity(thesis: Any) -> dict[str, Any]:
    """The columns that say what a thesis is."""
    return {"name": thesis.name, "statement": thesis.statement,
            "threshold": thesis.threshold, "comparator": thesis.comparator,
            "when": getattr(thesis, "when", "in"),
            "change_from": getattr(thesis, "change_from", None),
            "unit": getattr(thesis, "unit", None)}


def _not_evaluable(thesis: Any, note: str) -> dict[str, Any]:
    """The row of a thesis the forecast cannot evaluate: no probability, and why."""
    missing = float("nan")
    return {**_identity(thesis), "probability": missing, "mcse": missing, "draws": 0,
            "metric_q10": missing, "metric_q50": missing, "metric_q90": missing,
            "note": note}


def first_reached(paths: xr.Dataset, thesis: Any,
                  history: xr.Dataset | None = None) -> dict[str, Any]:
    """When each path first meets the thesis: the distribution of the first year reached.

    The steps are the forecast's complete calendar years (a year period, each aggregated as
    the thesis says) or its quarters (a quarter period), over the whole horizon, not only up
    to the period (and only after ``change_from``, each less its aggregate there, read from
    ``history`` if the data have reached it). A range period gives nothing.

    Returns
    -------
    dict
        ``first_reached``: step label -> share of all paths that first meet the thesis in
        that step; ``first_reached_years``: the same by calendar year (a quarter period's
        quarters summed); ``never_within_horizon``: share that never do;
        ``first_reached_median``: the median first step among the paths that meet it (None
        if none does); ``first_year_median``: the calendar year of that step as a number
        (NaN if none). Empty for a range period.
    """
    base = (_baseline(metric_values(paths, thesis, history), thesis)
            if getattr(thesis, "change_from", None) else np.zeros(paths.sizes["draw"]))
    labels, steps = _steps(paths, thesis, base)
    if not labels:
        return {}
    with np.errstate(invalid="ignore"):
        reached = _COMPARATORS[thesis.comparator](steps, thesis.threshold)  # NaN: not met
    ever = reached.any(axis=1)
    first = np.where(ever, reached.argmax(axis=1), -1)
    shares = {label: float(np.mean(first == i)) for i, label in enumerate(labels)}
    years: dict[str, float] = {}
    for label, share in shares.items():
        years[label[:4]] = years.get(label[:4], 0.0) + share
    median = None
    if ever.any():
        # The lower median of the step positions: a step that exists.
        median = labels[int(np.sort(first[ever])[(int(ever.sum()) - 1) // 2])]
    return {
        "first_reached": shares,
        "first_reached_years": years,
        "first_reached_median": median,
        "first_year_median": float(median[:4]) if median else float("nan"),
        "never_within_horizon": float(1 - ever.mean()),
    }


def evaluate_theses(paths: xr.Dataset, theses: Iterable[Any],
                    posterior_ess: float | None = None,
                    history: xr.Dataset | None = None) -> pd.DataFrame:
    """One row per thesis: statement, probability, Monte Carlo error and metric quantiles
    (``history``: the in-sample posterior, see :func:`evaluate_thesis`)."""
    return pd.DataFrame([evaluate_thesis(paths, thesis, posterior_ess, history)
                         for thesis in theses])
