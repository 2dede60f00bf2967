"""Theses: named claims about the forecast, checked against its draws.

A thesis reads ``aggregate(metric over period) comparator threshold``, e.g. "the mean NVIDIA
share over 2030 is at most 0.7". ``when`` says how the period is read: ``"in"`` (the default)
tests that period only; ``"by"`` tests whether the claim is first reached in or before it
(any year, or quarter, of the forecast up to the period), the usual reading of "by 2030".
``change_from`` turns the value into a change: the aggregate over the period minus the
aggregate over an earlier period, path by path ("AWS's share in 2030 minus its 2025 share").
This module defines :class:`ThesisSpec` and validates the ``[theses.<name>]`` tables of a
scenario file; the evaluator lives with the forecasts.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

import numpy as np

from forecast.core.calendar import parse_period, quarter_label
from forecast.core.errors import ScenarioError
from forecast.core.scenario_contract import (
    FORECAST_METRICS,
    FRACTION_METRICS,
    FRONTIER_PREFIX,
    METRIC_DIMS,
    PRICED_CHIPS,
    RATIO_METRICS,
    THESIS_METRICS,
    VENDOR_GROUPS,
    VENDOR_METRICS,
)
from forecast.scenarios.locations import (
    IDENTIFIER_PATTERN,
    NAME_PATTERN,
    Where,
    check_keys,
    expect_name,
    expect_number,
    expect_str,
    expect_table,
    fmt,
)

COMPARATORS: tuple[str, ...] = ("<", "<=", ">", ">=")
#: How a period's quarters combine: their mean, their sum, the last one, or a yearly run rate
#: (4 x their mean: a quarterly flow as a rate per year; over one quarter, 4 x that quarter).
AGGREGATES: tuple[str, ...] = ("mean", "sum", "last", "run_rate")
#: How a thesis reads its period: that period only, or first reached in or before it.
WHEN: tuple[str, ...] = ("in", "by")
_THESIS_REQUIRED = ("statement", "metric", "period", "comparator", "threshold")
_THESIS_OPTIONAL = ("vendor", "aggregate", "numerator", "denominator", "unit", "when",
                    "change_from")


@dataclass(frozen=True)
class ThesisSpec:
    """A named claim: ``aggregate(metric over period) comparator threshold``.

    Parameters
    ----------
    name : str
        Thesis identifier.
    statement : str
        The claim in words.
    metric : str
        A forecast output name (``share``, ``spend``, ``tam``, ``aws_rental_revenue``,
        ``aws_custom_chips_run_rate``, ``custom_silicon_spend``,
        ``cost_per_pflop_hour_ratio``...):
        one of :data:`~forecast.core.scenario_contract.THESIS_METRICS`.
    period : str
        ``"2030"``, ``"2030Q4"`` or ``"2026..2030"`` (see :func:`parse_period`).
    comparator : str
        One of ``<``, ``<=``, ``>``, ``>=``.
    threshold : float
        Value compared against, in the metric's unit.
    vendor : str or None
        Vendor selector (``nvidia``, ``aws``...), required by the per-vendor metrics
        (:data:`~forecast.core.scenario_contract.VENDOR_METRICS`).
    aggregate : str, default "mean"
        How the quarters of the period combine: ``mean``, ``sum``, ``last`` or ``run_rate``
        (4 x the mean: a yearly rate of a quarterly flow).
    numerator, denominator : str or None
        Required by the ratio metrics: chips the forecast prices
        (:data:`~forecast.core.scenario_contract.PRICED_CHIPS`); for ``owner_cost_ratio``
        also ``frontier:<vendor group>`` (that group's best offer of the quarter,
        :data:`~forecast.core.scenario_contract.FRONTIER_PREFIX`).
    unit : str or None
        Optional unit of the threshold, for people.
    when : str, default "in"
        ``"in"``: the aggregate over the period itself is compared. ``"by"``: the thesis
        holds if some calendar year (for a year period) or quarter (for a quarter period) of
        the forecast, up to and including the period, meets it, each aggregated as
        ``aggregate`` says: "first reached in or before". Not for a range of years (a range
        is one cumulative quantity).
    change_from : str or None
        An earlier period (ending before ``period`` starts): the value compared is the
        aggregate over ``period`` minus the aggregate over ``change_from``, per path (with
        ``when = "by"``, each year or quarter's aggregate minus it).
    """

    name: str
    statement: str
    metric: str
    period: str
    comparator: str
    threshold: float
    vendor: str | None = None
    aggregate: str = "mean"
    numerator: str | None = None
    denominator: str | None = None
    unit: str | None = None
    when: str = "in"
    change_from: str | None = None

    @property
    def period_kind(self) -> str:
        """``"year"``, ``"quarter"`` or ``"range"``."""
        return parse_period(self.period)[0]

    @property
    def first_quarter(self) -> int:
        """Quarter index of the period's first quarter."""
        return parse_period(self.period)[1]

    @property
    def last_quarter(self) -> int:
        """Quarter index of the period's last quarter (inclusive)."""
        return parse_period(self.period)[2]

    @property
    def quarter_labels(self) -> list[str]:
        """Labels of every quarter in the period, in order."""
        return [quarter_label(i) for i in range(self.first_quarter, self.last_quarter + 1)]

    def holds(self, values: np.ndarray | float) -> np.ndarray:
        """Apply the comparator: which aggregated values satisfy the thesis.

        Parameters
        ----------
        values : array_like
            The aggregated metric, one value per draw.

        Returns
        -------
        numpy.ndarray of bool
        """
        values = np.asarray(values, dtype=float)
        match self.comparator:
            case "<":
                return values < self.threshold
            case "<=":
                return values <= self.threshold
            case ">":
                return values > self.threshold
            case ">=":
                return values >= self.threshold
        raise AssertionError(f"unhandled comparator {self.comparator}")  # pragma: no cover

    def to_dict(self) -> dict[str, Any]:
        """The thesis as a plain table (the form it takes in a scenario file)."""
        table: dict[str, Any] = {
            key: getattr(self, key) for key in (*_THESIS_REQUIRED, "aggregate")
        }
        for key in ("vendor", "numerator", "denominator", "unit"):
            if getattr(self, key) is not None:
                table[key] = getattr(self, key)
        if self.when != "in":  # the default stays out: older scenarios keep their digest
            table["when"] = self.when
        if self.change_from is not None:
            table["change_from"] = self.change_from
        return table


def parse_thesis(name: str, table: Any, where: Where) -> ThesisSpec:
    """Validate one ``[theses.<name>]`` table and build its :class:`ThesisSpec`.

    Parameters
    ----------
    name : str
        The thesis name (already checked to be an identifier).
    table : Any
        The value found in the file (checked to be a table).
    where : Where
        Location of the table, for error messages.

    Returns
    -------
    ThesisSpec

    Raises
    ------
    ScenarioError
        On an unknown or missing key, a metric the forecast does not produce, a bad period,
        comparator, aggregate or ``when`` (``by`` over a range of years), a ``change_from``
        that does not end before the period, a per-vendor metric without a vendor, or a
        ratio metric without two chips it can compare.
    """
    table = expect_table(table, where)
    check_keys(table, (*_THESIS_REQUIRED, *_THESIS_OPTIONAL), _THESIS_REQUIRED, where)
    statement = expect_str(table["statement"], where.child("statement"))
    metric = expect_name(table["metric"], where.child("metric"), IDENTIFIER_PATTERN, "metric")
    _check_metric(metric, where.child("metric"))
    period = table["period"]
    try:
        parse_period(period)
    except ScenarioError as exc:
        raise where.child("period").error(str(exc)) from None
    comparator = table["comparator"]
    if comparator not in COMPARATORS:
        raise where.child("comparator").error(
            f"must be one of {', '.join(COMPARATORS)}, got {fmt(comparator)}"
        )
    threshold = expect_number(table["threshold"], where.child("threshold"))
    _check_threshold(metric, threshold, table.get("change_from") is not None,
                     where.child("threshold"))
    aggregate = table.get("aggregate", "mean")
    if aggregate not in AGGREGATES:
        raise where.child("aggregate").error(
            f"must be one of {', '.join(AGGREGATES)}, got {fmt(aggregate)}"
        )
    vendor = table.get("vendor")
    _check_vendor(metric, vendor, where.child("vendor"))
    numerator, denominator = _ratio_sides(table, metric, where)
    unit = table.get("unit")
    if unit is not None:
        expect_str(unit, where.child("unit"))
    when = _check_when(table.get("when", "in"), period, where.child("when"))
    change_from = table.get("change_from")
    if change_from is not None:
        _check_change_from(change_from, period, where.child("change_from"))
    return ThesisSpec(
        name=name,
        statement=statement,
        metric=metric,
        period=period,
        comparator=comparator,
        threshold=threshold,
        vendor=vendor,
        aggregate=aggregate,
        numerator=numerator,
        denominator=denominator,
        unit=unit,
        when=when,
        change_from=change_from,
    )


def _ratio_sides(table: dict[str, Any], metric: str, where: Where) -> tuple[Any, Any]:
    """``numerator`` and ``denominator``: both or neither, strings, and for a ratio metric
    two sides it can compare (:func:`_check_ratio_chips`)."""
    numerator = table.get("numerator")
    denominator = table.get("denominator")
    if (numerator is None) != (denominator is None):
        missing = "denominator" if denominator is None else "numerator"
        raise where.child(missing).error("numerator and denominator must be given together")
    if numerator is not None:
        expect_str(numerator, where.child("numerator"))
        expect_str(denominator, where.child("denominator"))
    if metric in RATIO_METRICS:
        _check_ratio_chips(metric, numerator, denominator, where)
    return numerator, denominator


def _check_when(when: Any, period: str, where: Where) -> str:
    """``in`` or ``by``; ``by`` needs a year or a quarter (a range is one cumulative sum)."""
    if when not in WHEN:
        raise where.error(f"must be one of {', '.join(WHEN)}, got {fmt(when)}")
    if when == "by" and parse_period(period)[0] == "range":
        raise where.error(f"\"by\" needs a year or a quarter, not the range {period!r}: "
                          "a range is one cumulative quantity")
    return when


def _check_change_from(change_from: Any, period: str, where: Where) -> None:
    """A period (year, quarter or range) that ends before ``period`` starts."""
    expect_str(change_from, where)
    try:
        last = parse_period(change_from)[2]
    except ScenarioError as exc:
        raise where.error(str(exc)) from None
    if last >= parse_period(period)[1]:
        raise where.error(f"{change_from!r} must end before the period {period!r} starts: "
                          "the value is the change from it to the period")


def _check_vendor(metric: str, vendor: Any, where: Where) -> None:
    """A vendor group the models cover, on a per-vendor metric only (and required there)."""
    if vendor is None:
        if metric in VENDOR_METRICS:
            raise where.error(f"metric {metric!r} has one path per vendor: name the vendor "
                              f"({', '.join(VENDOR_GROUPS)})")
        return
    expect_name(vendor, where, NAME_PATTERN, "vendor")
    if metric not in VENDOR_METRICS:
        raise where.error(f"metric {metric!r} has no vendor dimension (one path for the "
                          "quantity as a whole), so a vendor would be ignored: remove it, or "
                          f"use a per-vendor metric ({', '.join(VENDOR_METRICS)})")
    _check_group(vendor, where, "vendor")


def _check_group(group: str, where: Where, what: str) -> None:
    """``group`` is a vendor group the models cover, with a spelling hint if not."""
    if group in VENDOR_GROUPS:
        return
    hint = difflib.get_close_matches(group, VENDOR_GROUPS, n=1)
    suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
    raise where.error(f"unknown {what} {group!r}: the models cover "
                      f"{', '.join(VENDOR_GROUPS)}{suggestion}")


def _check_threshold(metric: str, threshold: float, change: bool, where: Where) -> None:
    """A threshold the metric can reach: a share in [0, 1] (a change of one in [-1, 1]), any
    other level non-negative. Outside, the probability is 0 or 1 whatever the forecast."""
    if metric in FRACTION_METRICS:
        low = -1.0 if change else 0.0
        if not low <= threshold <= 1.0:
            kind = "a change of a fraction" if change else "a fraction"
            raise where.error(f"metric {metric!r} is {kind}, in [{low:g}, 1], so a threshold "
                              f"of {fmt(threshold)} decides the thesis whatever the forecast "
                              "(write 70% as 0.7)")
    elif not change and threshold < 0:
        raise where.error(f"metric {metric!r} is never negative, so a threshold of "
                          f"{fmt(threshold)} decides the thesis whatever the forecast")


def _check_metric(metric: str, where: Where) -> None:
    """``metric`` is one the forecast produces and a thesis can read, with a spelling hint
    if not."""
    if metric in THESIS_METRICS:
        return
    if metric in FORECAST_METRICS:
        dims = " and ".join(METRIC_DIMS[metric])
        raise where.error(f"metric {metric!r} has one path per {dims}, which a thesis cannot "
                          "pick; compare chips, or a chip and a vendor's best offer, with "
                          f"{' or '.join(RATIO_METRICS)}")
    hint = difflib.get_close_matches(metric, THESIS_METRICS, n=1)
    suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
    raise where.error(f"unknown metric {metric!r}: the forecast produces "
                      f"{', '.join(THESIS_METRICS)}{suggestion}")


def _check_ratio_chips(metric: str, numerator: Any, denominator: Any, where: Where) -> None:
    """A ratio metric compares two chips the forecast prices; on the owner-TCO basis
    (``owner_cost_ratio``) either side may also be a vendor group's best offer."""
    if numerator is None:
        raise where.child("numerator").error(
            f"metric {metric!r} is a ratio: give numerator and denominator chips")
    frontier = metric == "owner_cost_ratio"
    for key, chip in (("numerator", numerator), ("denominator", denominator)):
        if frontier and chip.startswith(FRONTIER_PREFIX):
            expect_name(chip[len(FRONTIER_PREFIX):], where.child(key), NAME_PATTERN,
                        "vendor group")
            _check_group(chip[len(FRONTIER_PREFIX):], where.child(key), "vendor group")
        elif chip not in PRICED_CHIPS:
            also = f", or {FRONTIER_PREFIX}<vendor group>" if frontier else ""
            raise where.child(key).error(
                f"the forecast prices only {', '.join(PRICED_CHIPS)}{also}; got {fmt(chip)}")
