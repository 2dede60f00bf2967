"""Checks across rows and files: duplicates, names that must resolve, consistent ranges.

:func:`~forecast.data.csv_reader.read_csv` checks each cell on its own; the checks here need
more than one cell: a row repeating another's key, a chip or vendor named in one file that
another file must define (a chip, a vendor, a price provider), a low above its high, a vendor
group described two ways or unknown to the models, a fiscal label its date contradicts
(:mod:`forecast.data.fiscal`), a value
outside the range of its row's unit, an observation dated after the data's as-of date, a
company's capex main series with two definitions or two rows of one quarter, a low end above
its high end (``FileSchema.ordered``), a released chip released after its row was published.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

import pandas as pd

from forecast.core.errors import Issue
from forecast.core.scenario_contract import DATA_VENDOR_GROUPS, VENDOR_GROUPS
from forecast.data.csv_reader import ParsedFile, shown, span_end, span_start
from forecast.data.fiscal import check_fiscal_labels
from forecast.data.schemas import (
    AS_OF_FILE,
    AWS_VALUE_RANGES,
    PROVIDER_COLUMNS,
    SCHEMAS,
    VENDOR_COLUMNS,
    FileSchema,
)

__all__ = ["alias_map", "catalogue_chips", "check_as_of", "check_tables", "known_providers",
           "known_vendors"]

_VENDOR_FILE = "vendor_groups.csv"
_PROVIDER_FILE = "providers.csv"
_AWS_FILE = "aws_custom_silicon.csv"
_CAPEX_FILE = "hyperscaler_capex_quarterly.csv"


def catalogue_chips(parsed: Mapping[str, ParsedFile]) -> set[str]:
    """Chip names of the catalogue, from every well-formed row (bad cells included)."""
    return {row["chip"].strip() for row in parsed["accelerators.csv"].raw}


def alias_map(parsed: Mapping[str, ParsedFile]) -> dict[str, str]:
    """Alias -> catalogue chip, from every well-formed row of ``chip_aliases.csv``."""
    return {row["alias"].strip(): row["chip"].strip() for row in parsed["chip_aliases.csv"].raw}


def known_vendors(parsed: Mapping[str, ParsedFile]) -> set[str]:
    """Vendors of ``vendor_groups.csv``, from every well-formed row."""
    return {row["vendor"].strip() for row in parsed[_VENDOR_FILE].raw}


def known_providers(parsed: Mapping[str, ParsedFile]) -> set[str]:
    """Providers of ``providers.csv``, from every well-formed row."""
    return {row["provider_or_index"].strip() for row in parsed[_PROVIDER_FILE].raw}


def check_tables(parsed: Mapping[str, ParsedFile], issues: list[Issue],
                 as_of: pd.Timestamp | None = None, as_of_source: str = AS_OF_FILE) -> None:
    """Every check across rows and files, appending problems to ``issues``.

    Parameters
    ----------
    parsed : Mapping of str to ParsedFile
        Every schema file as read by :func:`~forecast.data.csv_reader.read_csv`.
    issues : list of Issue
        Problems found are appended here.
    as_of : pandas.Timestamp, optional
        The data's as-of date: an observation whose date span starts after it is an error.
    as_of_source : str
        Where ``as_of`` comes from, for the message.
    """
    for name, schema in SCHEMAS.items():
        _check_duplicates(name, schema, parsed[name], issues)
        _check_ordered(name, schema, parsed[name], issues)
    _check_chips(parsed, issues)
    _check_vendors(parsed, issues)
    _check_providers(parsed, issues)
    _check_vendor_groups(parsed[_VENDOR_FILE], issues)
    _check_row_consistency(parsed, issues)
    _check_capex(parsed[_CAPEX_FILE], issues)
    check_fiscal_labels(parsed, issues)
    _check_released(parsed["accelerators.csv"], issues)
    if as_of is not None:
        check_as_of(parsed, as_of, as_of_source, issues)


def check_as_of(parsed: Mapping[str, ParsedFile], as_of: pd.Timestamp, source: str,
                issues: list[Issue]) -> None:
    """No observation dated after the as-of date (``FileSchema.observed`` of each file).

    A coarse date (a month, quarter or year) counts from the last day of its span: a figure
    published "2025-Q4" may have been published in December, so it is not known by
    2025-10-31 (as :func:`~forecast.data.drop.read_drop` and ``Dataset.as_of`` read it).
    """
    for name, schema in SCHEMAS.items():
        column = schema.observed
        if column is None or name not in parsed:
            continue
        table = parsed[name]
        for row, line in zip(table.rows, table.lines, strict=True):
            known = span_end(row[column])
            if known > as_of:
                coarse = isinstance(row[column], int) or row[column][1] != "day"
                why = " (a coarse date counts from the last day of its span)" if coarse else ""
                issues.append(Issue(name, line, column,
                                    f"dated after the data's as-of date {as_of.date()} "
                                    f"({source}): known on {known.date()}{why}"))


def _check_ordered(name: str, schema: FileSchema, table: ParsedFile,
                   issues: list[Issue]) -> None:
    """``FileSchema.ordered``: a row's lower column does not exceed its upper one."""
    for lower, upper in schema.ordered:
        for row, line in zip(table.rows, table.lines, strict=True):
            low, high = row[lower], row[upper]
            if low is None or high is None:
                continue
            if isinstance(low, tuple):  # dates: the lower's span starts by the upper's end
                first, last = span_start(low), span_end(high)
                if first > last:
                    issues.append(Issue(name, line, lower, f"{lower} {first.date()} is after "
                                                           f"{upper} {last.date()}"))
            elif low > high:
                issues.append(Issue(name, line, lower, f"{lower} {low:g} > {upper} {high:g}"))


def _check_duplicates(
    name: str, schema: FileSchema, table: ParsedFile, issues: list[Issue]
) -> None:
    seen: dict[tuple, int] = {}
    for row, line in zip(table.rows, table.lines, strict=True):
        key = tuple(str(row[column]) for column in schema.duplicate_key)
        if key in seen:
            issues.append(
                Issue(name, line, schema.duplicate_key[0],
                      f"duplicate observation (same {', '.join(schema.duplicate_key)} "
                      f"as line {seen[key]})")
            )
        else:
            seen[key] = line


def _check_chips(parsed: Mapping[str, ParsedFile], issues: list[Issue]) -> None:
    """Every chip named resolves to the catalogue (directly or through an alias)."""
    catalogue = catalogue_chips(parsed)
    aliases = alias_map(parsed)
    for name, schema in SCHEMAS.items():
        if schema.chip_column is None:
            continue
        table = parsed[name]
        for row, line in zip(table.rows, table.lines, strict=True):
            chip = row[schema.chip_column]
            if name == "chip_aliases.csv":
                ok = chip in catalogue
            else:
                ok = chip in catalogue or chip in aliases
            if not ok:
                issues.append(
                    Issue(name, line, schema.chip_column,
                          f"chip {chip!r} is not in accelerators.csv or chip_aliases.csv")
                )


def _check_vendors(parsed: Mapping[str, ParsedFile], issues: list[Issue]) -> None:
    """Every vendor named by the catalogue and the roadmap is in ``vendor_groups.csv``."""
    vendors = known_vendors(parsed)
    for name, column in VENDOR_COLUMNS.items():
        table = parsed[name]
        for row, line in zip(table.rows, table.lines, strict=True):
            if row[column] not in vendors:
                issues.append(Issue(name, line, column,
                                    f"vendor {row[column]!r} is not in {_VENDOR_FILE}"))


def _check_providers(parsed: Mapping[str, ParsedFile], issues: list[Issue]) -> None:
    """Every provider of the rental prices is classified in ``providers.csv``."""
    providers = known_providers(parsed)
    for name, column in PROVIDER_COLUMNS.items():
        table = parsed[name]
        for row, line in zip(table.rows, table.lines, strict=True):
            if row[column] not in providers:
                issues.append(Issue(name, line, column,
                                    f"provider {shown(row[column])} is not in {_PROVIDER_FILE} "
                                    "(every provider needs a provider_class there)"))


def _check_vendor_groups(table: ParsedFile, issues: list[Issue]) -> None:
    """Every group one the models know, each of theirs present; one description per group;
    share-model positions run 1..K once each."""
    first: dict[str, tuple[dict, int]] = {}
    unknown = False
    for row, line in zip(table.rows, table.lines, strict=True):
        group = row["vendor_group"]
        if group not in DATA_VENDOR_GROUPS:
            hint = difflib.get_close_matches(group, DATA_VENDOR_GROUPS, n=1)
            issues.append(Issue(_VENDOR_FILE, line, "vendor_group",
                                f"group {shown(group)} is not one the models know "
                                f"({', '.join(DATA_VENDOR_GROUPS)})"
                                + (f"; did you mean {hint[0]!r}?" if hint else "")))
            unknown = True
        if group not in first:
            first[group] = (row, line)
            continue
        earlier, earlier_line = first[group]
        for column in ("silicon", "share_model_order"):
            if row[column] != earlier[column]:
                issues.append(Issue(_VENDOR_FILE, line, column,
                                    f"group {group!r} has {column} {earlier[column]!r} at line "
                                    f"{earlier_line}; a group is described once"))
    missing = [group for group in VENDOR_GROUPS if group not in first]
    if missing and not unknown and table.rows:  # a renamed group is reported at its row
        issues.append(Issue(_VENDOR_FILE, None, "vendor_group",
                            f"no vendor of the models' group(s) {', '.join(missing)}: every "
                            "model covers the five groups"))
    positions = sorted(row["share_model_order"] for row, _ in first.values()
                       if row["share_model_order"] is not None)
    if positions != list(range(1, len(positions) + 1)):
        issues.append(Issue(_VENDOR_FILE, None, "share_model_order",
                            f"the groups' positions must run 1..{len(positions)} once each, "
                            f"got {positions}"))


def _check_row_consistency(parsed: Mapping[str, ParsedFile], issues: list[Issue]) -> None:
    """Checks across columns of one row: low <= high, p5 <= value <= p95."""
    table = parsed["accelerator_unit_prices.csv"]
    for row, line in zip(table.rows, table.lines, strict=True):
        if row["price_usd_low"] > row["price_usd_high"]:
            issues.append(Issue("accelerator_unit_prices.csv", line, "price_usd_low",
                                f"low {row['price_usd_low']:g} > high {row['price_usd_high']:g}"))
    table = parsed[_AWS_FILE]
    for row, line in zip(table.rows, table.lines, strict=True):
        _check_unit_range(row, line, issues)
        _check_band(row, line, issues)


def _check_unit_range(row: dict, line: int, issues: list[Issue]) -> None:
    """``value`` and its band within the plausible range of the row's unit."""
    low, high, why = AWS_VALUE_RANGES[row["unit"]]
    for column in ("value", "value_p5", "value_p95"):
        number = row[column]
        if number is not None and not low < number <= high:
            issues.append(Issue(_AWS_FILE, line, column,
                                f"must be in ({low:g}, {high:g}] for unit {row['unit']!r}, "
                                f"got {number:g} ({why})"))


def _check_band(row: dict, line: int, issues: list[Issue]) -> None:
    """A 5-95% band has both ends and brackets its median (``value``)."""
    low, high, value = row["value_p5"], row["value_p95"], row["value"]
    if low is None and high is None:
        return
    if low is None or high is None:
        missing = "value_p5" if low is None else "value_p95"
        issues.append(Issue(_AWS_FILE, line, missing,
                            "a band needs both value_p5 and value_p95"))
    elif value is None:
        issues.append(Issue(_AWS_FILE, line, "value", "a band needs its median in value"))
    elif not low <= value <= high:
        issues.append(Issue(_AWS_FILE, line, "value",
                            f"must satisfy value_p5 <= value <= value_p95, got "
                            f"{low:g} <= {value:g} <= {high:g}"))


def _check_released(table: ParsedFile, issues: list[Issue]) -> None:
    """A released chip's release is part of what its row publishes: not after ``published``
    (an announced chip's ``release_date`` is a window ahead, and may be)."""
    for row, line in zip(table.rows, table.lines, strict=True):
        if row["status"] == "released" and span_end(row["release_date"]) > span_end(
                row["published"]):
            issues.append(Issue("accelerators.csv", line, "release_date",
                                f"a released chip's release_date ends after its published "
                                f"date {span_end(row['published']).date()}; a chip not yet "
                                "released by then is 'announced'"))


def _check_capex(table: ParsedFile, issues: list[Issue]) -> None:
    """Capex: published after its quarter ended; a company's main series is one definition
    with at most one row a quarter (so a total across companies never adds two definitions)."""
    definitions: dict[str, tuple[str, int]] = {}
    quarters: dict[tuple[str, object], int] = {}
    for row, line in zip(table.rows, table.lines, strict=True):
        if row["published_date"][0] < row["calendar_quarter_end"][0]:
            issues.append(Issue(_CAPEX_FILE, line, "published_date",
                                f"{row['published_date'][0].date()} is before the quarter ends "
                                f"({row['calendar_quarter_end'][0].date()})"))
        if row["series"] != "main":
            continue
        company = row["company"]
        first = definitions.setdefault(company, (row["definition"], line))
        if first[0] != row["definition"]:
            issues.append(Issue(_CAPEX_FILE, line, "definition",
                                f"{company}'s main series has another definition at line "
                                f"{first[1]}; mark this row series 'alternative'"))
        key = (company, row["calendar_quarter_end"][0])
        if key in quarters:
            issues.append(Issue(_CAPEX_FILE, line, "series",
                                f"{company} has a main-series row of this quarter at line "
                                f"{quarters[key]}"))
        else:
            quarters[key] = line
