"""How forecast numbers are named and shown: units, the headline, metric keys, number format.

One place for what the command line, the HTML/Markdown report, the sensitivity tables and the
revision report of a refit share:

- :data:`UNITS`: the unit of each forecast metric;
- :data:`HEADLINE` and :data:`HEADLINE_VENDORS`: the metrics (and vendor rows) of the headline
  quantile tables; :func:`headline_quantities`: the handful of single numbers the revision
  report follows from fit to fit;
- :class:`MetricKey` and :func:`parse_metric_key`: the one grammar naming a metric, a
  metric of one vendor or chip, a period of either, or a thesis (``tam``, ``share:aws``,
  ``aws_revenue:2030``, ``share:aws:2030``, ``thesis:NAME``);
- :func:`format_number`: a number as people read it, by unit.

It sits in ``core`` because both the pipeline (the revision report) and the reporting layer
use it. Standard library only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from forecast.core.errors import ForecastError

#: Unit of each forecast metric (metrics not listed have none), as its calendar-year tables
#: show it: money flows are the year's sum (a path is per quarter), the AWS run rate
#: (Trainium rental x 4 + Graviton) and the fleet are their fourth quarter's value.
UNITS = {
    "tam": "USD billions",
    "spend": "USD billions",
    "custom_silicon_spend": "USD billions",
    "aws_spend_at_cost": "USD billions",
    "aws_rental_revenue": "USD billions",
    "aws_merchant_value": "USD billions",
    "aws_custom_chips_run_rate": "USD billions per year",
    "aws_shipments": "chips",
    "aws_fleet": "chips in service",
    "share": "fraction of spend",
    "price": "USD per chip-hour",
    "cost_per_pflop_hour": "USD per effective PFLOP-hour",
    "vendor_cost": "USD per effective PFLOP-hour (owner TCO basis)",
    "owner_cost_per_pflop_hour": "USD per effective PFLOP-hour (owner TCO basis)",
}

#: Unit of a thesis output: its probability.
PROBABILITY = "probability"

#: Metrics of the headline quantile tables (command line, report), in order.
HEADLINE = ("tam", "share", "aws_spend_at_cost", "aws_rental_revenue", "aws_merchant_value",
            "aws_custom_chips_run_rate", "custom_silicon_spend")

#: Rows of the command line's headline table: metrics without a vendor (``""``) and these
#: vendors.
HEADLINE_VENDORS = ("", "nvidia", "amd", "google", "aws", "other")

#: Short names accepted for forecast metrics.
METRIC_ALIASES = {
    "aws_revenue": "aws_rental_revenue",
    "custom_silicon": "custom_silicon_spend",
}

#: Shown for a missing (NaN, infinite or None) number.
MISSING = "\u2013"

_PERIOD = re.compile(r"^\d{4}(Q[1-4])?$")

_EXPECTED = "metric, metric:period, metric:vendor, metric:vendor:period or thesis:NAME"
_EXPECTED_PERIOD = "metric:period, metric:vendor:period or thesis:NAME"
_EXPECTED_PERIOD_EXAMPLE = ("metric:period (e.g. aws_revenue:2030), metric:vendor:period or "
                            "thesis:NAME")


def unit_of(metric: str) -> str:
    """The unit of a forecast metric, ``""`` when it has none."""
    return UNITS.get(metric, "")


def format_number(value: float | None, unit: str = "", *, missing: str = MISSING,
                  thousands: bool = True) -> str:
    """A number as the tables show it.

    Parameters
    ----------
    value
        The number; ``None``, NaN and infinities are missing.
    unit
        Its unit: fractions (``"fraction of spend"``) and probabilities get 3 decimals, USD
        billions (also per year) 1 decimal, anything else 4 significant digits.
    missing
        Text of a missing number (an en dash by default).
    thousands
        Group the thousands of USD billions with commas (``1,234.5``); the command line's
        fixed-width tables do not (``1234.5``).

    Returns
    -------
    str
        The formatted number.

    Examples
    --------
    >>> format_number(0.12345, "fraction of spend"), format_number(1234.56, "USD billions")
    ('0.123', '1,234.6')
    >>> format_number(float("nan"), missing="-"), format_number(1.00123)
    ('-', '1.001')
    """
    if value is None or not math.isfinite(value):
        return missing
    if unit.startswith("fraction") or unit == PROBABILITY:
        return f"{value:.3f}"
    if unit.startswith("USD billions"):
        return f"{value:,.1f}" if thousands else f"{value:.1f}"
    return f"{value:.4g}"


@dataclass(frozen=True)
class MetricKey:
    """A forecast metric, optionally of one vendor or chip and one period; or a thesis.

    Attributes
    ----------
    metric
        A forecast metric (``tam``, ``share``, ``aws_rental_revenue``...), or the thesis
        name when ``kind`` is ``"thesis"``.
    period
        A calendar year (``"2030"``) or quarter (``"2030Q4"``); None for the whole path and
        for theses (they carry their own period).
    key
        Vendor or chip, for metrics that have one (``share``, ``price``...).
    kind
        ``"metric"`` or ``"thesis"``.
    """

    metric: str
    period: str | None = None
    key: str | None = None
    kind: str = "metric"

    @property
    def text(self) -> str:
        """The key as typed: ``metric[:key][:period]`` or ``thesis:name``.

        :func:`parse_metric_key` reads it back.
        """
        if self.kind == "thesis":
            return f"thesis:{self.metric}"
        return ":".join(part for part in (self.metric, self.key, self.period) if part)

    @property
    def row_name(self) -> str:
        """``metric[:period][:key]``: the period first, as the report's ``data-key``
        attributes and the revision report's rows name a quantity; ``thesis:name`` for a
        thesis."""
        if self.kind == "thesis":
            return f"thesis:{self.metric}"
        return ":".join(part for part in (self.metric, self.period, self.key) if part)

    @property
    def unit(self) -> str:
        """The metric's unit; a thesis is a probability."""
        return PROBABILITY if self.kind == "thesis" else unit_of(self.metric)


def parse_metric_key(text: str, *, need_period: bool = False) -> MetricKey:
    """Read a metric key: ``metric``, ``metric:period``, ``metric:key``,
    ``metric:key:period`` or ``thesis:NAME``.

    A period is a year (``2030``) or a quarter (``2030Q4``); a part shaped like one is the
    period, any other the vendor or chip, so ``share:2030:aws`` (:attr:`MetricKey.row_name`)
    reads as ``share:aws:2030`` (:attr:`MetricKey.text`). The aliases ``aws_revenue`` and
    ``custom_silicon`` (:data:`METRIC_ALIASES`) stand for ``aws_rental_revenue`` and
    ``custom_silicon_spend``. Whether the names exist is for a forecast to say.

    Parameters
    ----------
    text
        The key as typed.
    need_period
        Accept only the typed form of a single output, ``metric[:key]:period`` or
        ``thesis:NAME``: the period is required and comes last (the ``--metric`` of the
        sensitivity command).

    Returns
    -------
    MetricKey
        The parsed key.

    Raises
    ------
    ForecastError
        On an empty part, too many or too few parts, or a malformed period.
    """
    parts = [part.strip() for part in str(text).split(":")]
    if not all(parts):
        expected = _EXPECTED_PERIOD if need_period else _EXPECTED
        raise ForecastError(f"bad metric {text!r}: expected {expected}")
    if parts[0] == "thesis":
        if len(parts) != 2:
            raise ForecastError(f"bad metric {text!r}: expected thesis:NAME")
        return MetricKey(metric=parts[1], kind="thesis")
    metric = METRIC_ALIASES.get(parts[0], parts[0])
    rest = parts[1:]
    if len(rest) > 2 or (need_period and not rest):
        expected = _EXPECTED_PERIOD_EXAMPLE if need_period else _EXPECTED
        raise ForecastError(f"bad metric {text!r}: expected {expected}")
    key = period = None
    if need_period:
        period, key = rest[-1], (rest[0] if len(rest) == 2 else None)
    elif len(rest) == 2:
        key, period = rest
        if _PERIOD.match(key) and not _PERIOD.match(period):
            key, period = period, key  # metric:period:key
    elif rest:
        # A lone part is the period when shaped like one, else the vendor or chip.
        period, key = (rest[0], None) if _PERIOD.match(rest[0]) else (None, rest[0])
    if period is not None and not _PERIOD.match(period):
        raise ForecastError(f"bad period {period!r} in {text!r}: expected YYYY or YYYYQn")
    return MetricKey(metric=metric, period=period, key=key)


def headline_quantities(first_year: int | str, horizon: int | str) -> tuple[MetricKey, ...]:
    """The single numbers a refit's revision report follows from fit to fit.

    TAM in the first full forecast year and in the horizon year; NVIDIA's and AWS's shares and
    AWS's Trainium rental revenue in the horizon year.

    Parameters
    ----------
    first_year
        The first calendar year the forecast covers in full.
    horizon
        The scenario's last calendar year.

    Returns
    -------
    tuple of MetricKey
        In the order of the report's rows (TAM once when the two years coincide).
    """
    first, last = str(first_year), str(horizon)
    return tuple(dict.fromkeys((
        MetricKey("tam", first),
        MetricKey("tam", last),
        MetricKey("share", last, "nvidia"),
        MetricKey("share", last, "aws"),
        MetricKey("aws_rental_revenue", last),
    )))
