"""Tests of forecast.data.schemas: every numeric column and date has a plausible range, wide
enough for every shipped row, and every bound says why a value outside it is wrong."""

from __future__ import annotations

import csv

import pytest
from data_files import edit_cell

from forecast.data.dataset import DEFAULT_DATA_DIR, validate_data_dir
from forecast.data.schemas import AS_OF_SCHEMA, DATE_YEARS, SCHEMAS

NUMERIC = [(name, column.name) for name, schema in SCHEMAS.items()
           for column in schema.columns if column.kind in ("float", "int", "date")]


def test_every_numeric_and_date_column_has_a_range_check():
    unchecked = [(name, column.name) for name, schema in {**SCHEMAS, "as_of": AS_OF_SCHEMA}.items()
                 for column in schema.columns
                 if column.kind in ("float", "int", "date") and column.check is None]
    assert unchecked == []


def _first_line(name: str) -> int:
    with (DEFAULT_DATA_DIR / name).open(newline="", encoding="utf-8") as handle:
        assert sum(1 for _ in csv.reader(handle)) > 1
    return 2


@pytest.mark.parametrize(("name", "column"), NUMERIC)
def test_far_out_of_range_value_is_rejected_with_a_reason(data_copy, name, column):
    kind = next(c.kind for c in SCHEMAS[name].columns if c.name == column)
    value = {"float": "1e15", "int": "99999", "date": f"{DATE_YEARS[1] + 1}-01-01"}[kind]
    line = _first_line(name)
    edit_cell(data_copy, name, line, column, value)
    issues = [i for i in validate_data_dir(data_copy) if (i.file, i.row) == (name, line)]
    assert [i.column for i in issues] == [column], issues
    assert "(" in issues[0].message  # the reason, in brackets


#: Figures that may be negative: a company's free cash flow (Oracle's was, in FY2025).
SIGNED = {("buyer_cash_flow.csv", "value_usd_billions_low"),
          ("buyer_cash_flow.csv", "value_usd_billions_high")}


@pytest.mark.parametrize(("name", "column"),
                         [(n, c) for n, c in NUMERIC if not c.endswith(("date", "_end"))
                          and c != "target_year" and (n, c) not in SIGNED])
def test_negative_value_is_rejected(data_copy, name, column):
    edit_cell(data_copy, name, 2, column, "-1")
    issues = [i for i in validate_data_dir(data_copy) if (i.file, i.row) == (name, 2)]
    assert column in {i.column for i in issues}


@pytest.mark.parametrize(("name", "column"), sorted(SIGNED))
def test_signed_figure_takes_a_loss_but_not_one_in_millions(data_copy, name, column):
    edit_cell(data_copy, name, 2, "value_usd_billions_low", "-0.394")
    edit_cell(data_copy, name, 2, "value_usd_billions_high", "-0.394")
    assert validate_data_dir(data_copy) == []
    edit_cell(data_copy, name, 2, column, "-1394")
    issues = validate_data_dir(data_copy)
    assert [(i.row, i.column) for i in issues] == [(2, column)]
    assert "a value in millions" in issues[0].message


def test_year_before_2000_is_rejected(data_copy):
    edit_cell(data_copy, "market_estimates.csv", 2, "target_year", "1999")
    (issue,) = validate_data_dir(data_copy)
    assert issue.column == "target_year" and "2000..2100" in issue.message
