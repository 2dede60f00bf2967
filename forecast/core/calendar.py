"""The one quarter calendar of the package.

Time is the calendar quarter. A quarter has a label (``"2027Q1"``) and an integer index
``year * 4 + quarter - 1``, so consecutive quarters differ by one. Vendor fiscal quarters
map to the calendar quarter holding most of their days; fiscal labels (``"FY2026Q3"``)
continue in their own numbering. Thesis periods are a year (``"2030"``), a quarter
(``"2030Q4"``) or a cumulative range of years (``"2026..2030"``).
"""

from __future__ import annotations

import re

import pandas as pd

from forecast.core.errors import ForecastError, ScenarioError

QUARTER_PATTERN = re.compile(r"^(\d{4})Q([1-4])$")
YEAR_PATTERN = re.compile(r"^\d{4}$")
RANGE_PATTERN = re.compile(r"^(\d{4})\.\.(\d{4})$")
_FISCAL = re.compile(r"^(?P<prefix>FY)?(?P<year>\d{4})Q(?P<q>[1-4])$")


def quarter_index(label: str) -> int:
    """Return the integer index ``year * 4 + (q - 1)`` of a quarter label.

    Parameters
    ----------
    label : str
        A calendar quarter such as ``"2027Q1"``.

    Returns
    -------
    int
        The quarter index; consecutive quarters differ by one.

    Raises
    ------
    ScenarioError
        If ``label`` is not of the form ``YYYYQn`` with ``n`` in 1..4.
    """
    match = QUARTER_PATTERN.match(label) if isinstance(label, str) else None
    if match is None:
        raise ScenarioError(f"not a quarter label like '2027Q1': {label!r}")
    return int(match.group(1)) * 4 + int(match.group(2)) - 1


def period_index(period: str | pd.Period | pd.Timestamp) -> int:
    """Quarter index of a label, a pandas Period of any frequency, or a timestamp.

    A period of another frequency (monthly, fiscal quarter...) maps to the calendar quarter
    containing its last month; a timestamp to the quarter it falls in.
    """
    if isinstance(period, pd.Timestamp):
        if pd.isna(period):
            raise ForecastError("quarter must be a date, got NaT")
        return period.year * 4 + (period.month - 1) // 3
    if isinstance(period, str):
        # A calendar label (the common case) needs no pandas parse.
        match = QUARTER_PATTERN.match(period.strip())
        if match is not None:
            return int(match.group(1)) * 4 + int(match.group(2)) - 1
        try:
            period = pd.Period(period.strip(), freq="Q-DEC")
        except ValueError:
            raise ForecastError(f"not a quarter: {period!r} (expected e.g. '2025Q4')") from None
    if not isinstance(period, pd.Period):
        raise ForecastError(f"quarter must be a string or pandas.Period, got {period!r}")
    # Via the last month, so fiscal quarters land on the calendar quarter they end in.
    month = period.asfreq("M", how="end")
    return month.year * 4 + (month.month - 1) // 3


def quarter_label(index: int | pd.Period) -> str:
    """The ``YYYYQn`` label of a quarter index or of a quarterly pandas Period."""
    if isinstance(index, pd.Period):
        return f"{index.year}Q{index.quarter}"
    value = int(index)
    return f"{value // 4}Q{value % 4 + 1}"


def quarter_labels(first: int, last: int) -> list[str]:
    """Labels of the quarter indices ``first..last``, both included."""
    return [quarter_label(index) for index in range(first, last + 1)]


def quarters_from(start: str, count: int) -> list[str]:
    """``count`` consecutive quarter labels starting at ``start``."""
    first = quarter_index(start)
    return quarter_labels(first, first + count - 1)


def parse_period(text: str) -> tuple[str, int, int]:
    """Parse a thesis period into its kind and inclusive quarter-index bounds.

    Parameters
    ----------
    text : str
        ``"2030"`` (a calendar year), ``"2030Q4"`` (one quarter) or ``"2026..2030"``
        (a cumulative range of calendar years, both ends included).

    Returns
    -------
    tuple of (str, int, int)
        ``(kind, first_quarter, last_quarter)`` with kind ``"year"``, ``"quarter"`` or
        ``"range"`` and quarter indices as in :func:`quarter_index`.

    Raises
    ------
    ScenarioError
        If the text is none of the three forms, or a range runs backwards.
    """
    if not isinstance(text, str):
        raise ScenarioError(f"period must be a string, got {text!r}")
    if YEAR_PATTERN.match(text):
        year = int(text)
        return "year", year * 4, year * 4 + 3
    if QUARTER_PATTERN.match(text):
        index = quarter_index(text)
        return "quarter", index, index
    match = RANGE_PATTERN.match(text)
    if match:
        start, end = int(match.group(1)), int(match.group(2))
        if start > end:
            raise ScenarioError(f"period range runs backwards: {text!r}")
        return "range", start * 4, end * 4 + 3
    raise ScenarioError(f"period must look like '2030', '2030Q4' or '2026..2030', got {text!r}")


def period_quarters(period: str) -> list[str]:
    """Quarter labels of a thesis period: ``"2030"``, ``"2030Q4"`` or ``"2026..2030"``."""
    _, first, last = parse_period(period.strip())
    return quarter_labels(first, last)


def year_of(label: str) -> int:
    """Calendar year of a quarter label."""
    return quarter_index(label) // 4


def fiscal_to_calendar_quarter(period_end: pd.Timestamp, days: int = 91) -> pd.Period:
    """Calendar quarter holding most days of a fiscal quarter that ends on ``period_end``."""
    midpoint = period_end - pd.Timedelta(days=days // 2)
    return midpoint.to_period("Q")


def next_fiscal_labels(label: str, n: int) -> list[str]:
    """The ``n`` fiscal-period labels after ``label`` (``FY2026Q3`` -> ``FY2026Q4``, ...)."""
    match = _FISCAL.match(label)
    if not match:
        raise ForecastError(f"cannot continue fiscal period label {label!r}")
    prefix, year, q = match["prefix"] or "", int(match["year"]), int(match["q"])
    labels = []
    for _ in range(n):
        q += 1
        if q == 5:
            year, q = year + 1, 1
        labels.append(f"{prefix}{year}Q{q}")
    return labels


