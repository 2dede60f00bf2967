"""The building blocks of a data file's schema: columns, file schemas and range checks.

:mod:`forecast.data.schemas` describes each data file with these; they are apart so that the
files' schemas can be spread over modules without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CONFIDENCE",
    "CONFIDENCE_LEVELS",
    "DATE_YEARS",
    "NOTES",
    "SOURCE",
    "Column",
    "FileSchema",
    "between",
    "valid_date",
    "valid_year",
]

#: ``confidence`` of a sourced row: the figure was read in its source, or is recalled.
CONFIDENCE_LEVELS = ("verified", "recalled")


@dataclass(frozen=True)
class Column:
    """One column of a file schema.

    Attributes
    ----------
    name : str
        Header name.
    kind : str
        ``str``, ``float``, ``int``, ``date`` or ``choice``.
    required : bool
        Whether an empty cell is an error.
    choices : tuple of str
        The allowed values of a ``choice`` column.
    check : callable, optional
        Extra predicate on the parsed value, returning an error message or ``None``.
    """

    name: str
    kind: str = "str"
    required: bool = True
    choices: tuple[str, ...] = ()
    check: Callable[[Any], str | None] | None = None


@dataclass(frozen=True)
class FileSchema:
    """Schema of one CSV.

    Attributes
    ----------
    filename : str
        The file's name in the data directory.
    columns : tuple of Column
        Every column.
    chip_column : str, optional
        The column naming a catalogue chip (resolved through ``chip_aliases.csv``).
    duplicate_key : tuple of str
        Columns whose values together identify one observation.
    observed : str, optional
        The column dating when an observation became known: its publication (an earnings
        release, an announcement, a report) or, for a price, the day it was seen. It may not
        be after the data's as-of date, and :meth:`~forecast.data.dataset.Dataset.as_of` cuts
        on it. A coarse date (``2025-10``, ``2025-Q4``, ``2025``) counts from the *last* day
        of its span, the first day by which the figure was surely public: ``2025-10`` passes
        an as-of date of 2025-10-31, ``2025-Q4`` does not. None only for a file of
        specifications or definitions.
    needs_rows : bool
        Whether a file with no data rows is an error: the forecast cannot run without them.
    ordered : tuple of (str, str)
        Pairs ``(lower, upper)`` of columns of one row: where both hold a value, ``lower`` may
        not exceed ``upper`` (a range's low and high end; a period's start and end). Dates:
        the lower's span may not start after the upper's ends (``2025`` to ``2025-06`` is a
        period; ``2026`` to ``2025-12`` is not).
    """

    filename: str
    columns: tuple[Column, ...]
    chip_column: str | None = None
    duplicate_key: tuple[str, ...] = ()
    observed: str | None = None
    needs_rows: bool = True
    ordered: tuple[tuple[str, str], ...] = ()


def between(low: float, high: float, hint: str = "") -> Callable[[float], str | None]:
    """A check that a value lies in ``(low, high]``; ``hint`` (why) ends the message."""

    def check(value: float) -> str | None:
        if low < value <= high:
            return None
        extra = f" ({hint})" if hint else ""
        return f"must be in ({low:g}, {high:g}], got {value:g}{extra}"

    return check


#: Calendar years a date or a year of the data may fall in. The files record the
#: data-center accelerator era (the earliest row is from 2016) and published targets up to
#: 2035; a year outside is a typo (``2999``, ``1025``), not an observation.
DATE_YEARS = (2000, 2100)


def valid_year(value: int) -> str | None:
    """Check of a year (or a date's year): within :data:`DATE_YEARS`."""
    low, high = DATE_YEARS
    if low <= value <= high:
        return None
    return f"year must be in {low}..{high}, got {value} (a typo: the data cover {low}-{high})"


def valid_date(value: tuple[Any, str]) -> str | None:
    """Check of a parsed date ``(last day of its span, precision)``: its year in range."""
    return valid_year(value[0].year)


#: The columns of every sourced file: where a figure comes from, how sure it is, and notes.
SOURCE = Column("source")
CONFIDENCE = Column("confidence", "choice", choices=CONFIDENCE_LEVELS)
NOTES = Column("notes", required=False)
