"""Fiscal period labels against the dates they are filed under.

A row of vendor revenue, guidance or capex names its period twice: the company's label
(``FY2026Q2``, ``2025Q3``, ``FY25 Q4``, ``FY2024``) and the date the period ends
(``calendar_quarter_end``). The models read the date (the calendar quarter holding most of the
period's days, :func:`~forecast.core.calendar.fiscal_to_calendar_quarter`); a label that
contradicts it is a copying error that the date alone would hide. Two rules:

- a calendar label (no ``FY``) is the calendar quarter (or year) of its date;
- a fiscal year is within a year of the calendar year its quarter falls in (companies end
  their fiscal years in any month, never more than twelve months from the calendar year),
  and a company's fiscal quarters sit the same number of quarters from their calendar
  quarters in every row of a file (a company's fiscal calendar is fixed): a row that
  disagrees with the company's other rows is refused.

Labels of another form are left alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

from forecast.core.calendar import fiscal_to_calendar_quarter
from forecast.core.errors import Issue
from forecast.data.csv_reader import ParsedFile
from forecast.data.schemas import SCHEMAS

__all__ = ["FISCAL_FILES", "check_fiscal_labels"]

_LABEL = re.compile(r"^(?P<fy>FY)?\s*(?P<year>\d{4}|\d{2})\s*(?:Q(?P<q>[1-4]))?$",
                    re.IGNORECASE)
#: Files whose rows give a fiscal period label and the date it ends.
FISCAL_FILES = tuple(name for name, schema in SCHEMAS.items()
                     if {"fiscal_period", "calendar_quarter_end"}
                     <= {column.name for column in schema.columns})


def _label(text: str) -> tuple[bool, int, int | None] | None:
    """(fiscal, year, quarter or None) of a label, or None for a form not checked."""
    match = _LABEL.match(text.strip())
    if match is None:
        return None
    year = int(match["year"])
    return (match["fy"] is not None, year + 2000 if year < 100 else year,
            int(match["q"]) if match["q"] else None)


def check_fiscal_labels(parsed: Mapping[str, ParsedFile], issues: list[Issue]) -> None:
    """Append an issue for every fiscal label its date contradicts (see the module doc)."""
    for name in FISCAL_FILES:
        table = parsed.get(name)
        if table is None:
            continue
        offsets: dict[str, Counter[int]] = {}
        rows = []
        for row, line in zip(table.rows, table.lines, strict=True):
            label = _label(str(row["fiscal_period"]))
            if label is None:
                continue
            fiscal, year, quarter = label
            calendar = fiscal_to_calendar_quarter(row["calendar_quarter_end"][0])
            problem = _row_problem(fiscal, year, quarter, calendar)
            if problem:
                issues.append(Issue(name, line, "fiscal_period",
                                    f"{row['fiscal_period']} {problem} (its calendar_quarter_end "
                                    f"{row['calendar_quarter_end'][0].date()} is in {calendar})"))
            elif fiscal and quarter is not None:
                offset = year * 4 + quarter - 1 - (calendar.year * 4 + calendar.quarter - 1)
                offsets.setdefault(str(row["company"]), Counter())[offset] += 1
                rows.append((row, line, offset))
        _check_offsets(name, rows, offsets, issues)


def _row_problem(fiscal: bool, year: int, quarter: int | None, calendar) -> str | None:
    """Why a label contradicts the calendar quarter of its date, or None."""
    if not fiscal:
        if year != calendar.year or (quarter is not None and quarter != calendar.quarter):
            return "is a calendar period, but not the one its date ends"
        return None
    if abs(year - calendar.year) > 1:
        return (f"names fiscal year {year}, more than a year from the calendar year its "
                "date falls in")
    return None


def _check_offsets(name: str, rows: list, offsets: dict[str, Counter[int]],
                   issues: list[Issue]) -> None:
    """Rows whose fiscal quarter sits another distance from its calendar quarter than the
    company's other rows of the file (only where most rows agree)."""
    for row, line, offset in rows:
        counts = offsets[str(row["company"])]
        (usual, seen), *rest = counts.most_common()
        if offset == usual or (rest and rest[0][1] == seen):
            continue
        issues.append(Issue(name, line, "fiscal_period",
                            f"{row['fiscal_period']} is {offset} quarter(s) from its calendar "
                            f"quarter, but {seen} other {row['company']} row(s) of this file "
                            f"are {usual}: a fiscal label or its calendar_quarter_end is wrong"))
