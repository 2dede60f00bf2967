"""Scalar outputs of a forecast: which number a sensitivity analysis follows.

:class:`OutputSpec` names an output in the metric-key grammar of
:mod:`forecast.core.presentation` (``aws_rental_revenue:2030``, ``share:aws:2030``,
``thesis:aws_rental_run_rate_50b_by_2030``) with the statistic of its draws;
:func:`output_draws` and :func:`output_value` read it off a
:class:`~forecast.pipeline.results.Forecast`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from forecast.core.errors import ForecastError
from forecast.core.presentation import METRIC_ALIASES, MetricKey, parse_metric_key
from forecast.pipeline.results import Forecast
from forecast.pipeline.theses import evaluate_thesis, thesis_values, unreached_note

#: Statistics of a metric's draws that an output can summarise.
STATISTICS = ("median", "mean", "p10", "p90")


@dataclass(frozen=True)
class OutputSpec(MetricKey):
    """A scalar output of a forecast: a metric key and a statistic of its draws.

    Attributes
    ----------
    metric, period, key, kind
        As in :class:`~forecast.core.presentation.MetricKey`; a metric's period is a
        calendar year (``"2030"``: the year's sum for money, mean for levels) or a quarter
        (``"2030Q4"``).
    stat
        For metrics, the statistic over draws: median, mean, p10 or p90. A thesis output is
        its probability.
    """

    stat: str = "median"

    @property
    def label(self) -> str:
        """Readable name with the statistic, e.g. ``aws_rental_revenue:2030 (median)``."""
        what = "probability" if self.kind == "thesis" else self.stat
        return f"{self.text} ({what})"


def parse_output(text: str, stat: str = "median") -> OutputSpec:
    """Parse ``metric:period``, ``metric:key:period`` or ``thesis:name``.

    The metric-key grammar of :func:`~forecast.core.presentation.parse_metric_key` with the
    period required and last; ``aws_revenue`` means ``aws_rental_revenue`` and
    ``custom_silicon`` means ``custom_silicon_spend`` (:data:`METRIC_ALIASES`). Names are
    checked against a forecast by :func:`check_output`.

    Parameters
    ----------
    text
        The output as typed.
    stat
        Statistic of a metric's draws (one of :data:`STATISTICS`; ignored for a thesis).

    Returns
    -------
    OutputSpec
        The output.

    Raises
    ------
    ForecastError
        On an unknown statistic or a malformed key.
    """
    if stat not in STATISTICS:
        raise ForecastError(f"unknown statistic {stat!r} (known: {', '.join(STATISTICS)})")
    key = parse_metric_key(text, need_period=True)
    if key.kind == "thesis":
        return OutputSpec(metric=key.metric, kind="thesis")
    return OutputSpec(metric=key.metric, period=key.period, key=key.key, stat=stat)


def _thesis(forecast: Forecast, name: str) -> Any:
    for thesis in forecast.theses_specs:
        if thesis.name == name:
            return thesis
    known = ", ".join(t.name for t in forecast.theses_specs) or "none"
    raise ForecastError(f"unknown thesis {name!r} in scenario {forecast.scenario} "
                        f"(known: {known})")


def check_output(forecast: Forecast, spec: OutputSpec) -> None:
    """Raise :class:`ForecastError` unless ``spec`` names an output of ``forecast``."""
    output_draws(forecast, spec)


def output_draws(forecast: Forecast, spec: OutputSpec) -> np.ndarray:
    """The output's value in every draw.

    For a thesis, the value it compares with its threshold, read as the thesis evaluator
    reads it (:func:`~forecast.pipeline.theses.thesis_values`: ``by`` as the most favourable
    step up to the period, ``change_from`` as a change, in-sample quarters from the
    posterior), so that rankings and tails see a continuous value.

    Raises
    ------
    ForecastError
        For a thesis the forecast cannot evaluate (its period is in the past of a metric
        without in-sample paths), with the reason.
    """
    if spec.kind == "thesis":
        thesis = _thesis(forecast, spec.metric)
        note = unreached_note(forecast.data, thesis, forecast.in_sample)
        if note:
            raise ForecastError(f"thesis {thesis.name}: {note}")
        return np.asarray(thesis_values(forecast.data, thesis, forecast.in_sample),
                          dtype=float)
    if spec.metric not in forecast.data:
        known = sorted([*forecast.metrics, *METRIC_ALIASES, "thesis:NAME"])
        raise ForecastError(f"unknown metric {spec.metric!r} (known: {', '.join(known)})")
    assert spec.period is not None
    if "Q" in spec.period:
        values = forecast.paths(spec.metric)
        if spec.period not in values["quarter"].values:
            raise ForecastError(f"{spec.text}: quarter {spec.period} is outside the forecast "
                                f"({values['quarter'].values[0]}..{values['quarter'].values[-1]})")
        values = values.sel(quarter=spec.period)
    else:
        values = forecast.annual(spec.metric)
        if spec.period not in values["period"].values:
            years = [str(y) for y in values["period"].values]
            raise ForecastError(f"{spec.text}: year {spec.period} is outside the forecast "
                                f"({years[0]}..{years[-1]})")
        values = values.sel(period=spec.period)
    extra = [str(d) for d in values.dims if d != "draw"]
    if extra:
        keys = [str(k) for k in values[extra[0]].values]
        if spec.key is None:
            raise ForecastError(f"metric {spec.metric} needs a {extra[0]}: "
                                f"{spec.metric}:KEY:{spec.period} with KEY one of "
                                f"{', '.join(keys)}")
        if spec.key not in keys:
            raise ForecastError(f"unknown {extra[0]} {spec.key!r} for {spec.metric} "
                                f"(known: {', '.join(keys)})")
        values = values.sel({extra[0]: spec.key})
    elif spec.key is not None:
        raise ForecastError(f"metric {spec.metric} has no vendor or chip; "
                            f"use {spec.metric}:{spec.period}")
    return np.asarray(values.transpose("draw").values, dtype=float)


def output_value(forecast: Forecast, spec: OutputSpec) -> float:
    """The output: a statistic of the metric's draws, or a thesis probability."""
    if spec.kind == "thesis":
        return float(evaluate_thesis(forecast.data, _thesis(forecast, spec.metric),
                                     history=forecast.in_sample)["probability"])
    values = output_draws(forecast, spec)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return float("nan")
    if spec.stat == "mean":
        return float(values.mean())
    level = {"median": 0.5, "p10": 0.1, "p90": 0.9}[spec.stat]
    return float(np.quantile(values, level))
