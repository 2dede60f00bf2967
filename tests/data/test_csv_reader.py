"""Tests of forecast.data.csv_reader: damaged files end in located, one-line issues.

Each case was tried against the loader as an attacker would (a header-only file, a file cut
inside a quoted field, a quote that swallows the rest of the file, a byte-order mark...).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from data_files import issue_strings

from forecast.core.errors import DataValidationError
from forecast.data.csv_reader import read_csv, shown, span_start
from forecast.data.dataset import SCHEMAS, load_dataset, parse_date, validate_data_dir

REVENUE = "vendor_quarterly_revenue.csv"
RENTAL = "gpu_rental_prices.csv"


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def assert_one_line_each(issues: list) -> None:
    assert issues
    for issue in issues:
        assert "\n" not in str(issue) and "\r" not in str(issue), str(issue)


# --------------------------------------------------------------------------- header only


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_header_only_file_ends_in_one_data_validation_error(data_copy, name):
    path = data_copy / name
    path.write_bytes(lines_of(path)[0] + b"\n")
    issues = validate_data_dir(data_copy)
    if SCHEMAS[name].needs_rows:
        assert str(issues[0]) == f"{name}::: no data rows: the file has only its header"
    else:
        # A file without rows is allowed; rows elsewhere may still need its rows.
        assert all(issue.file != name for issue in issues)
    if issues:
        assert_one_line_each(issues)
        with pytest.raises(DataValidationError):
            load_dataset(data_copy, cache_dir=data_copy.parent / "cache")


def test_header_only_optional_file_loads_as_an_empty_table_with_its_columns(data_copy):
    path = data_copy / "market_estimates.csv"
    path.write_bytes(lines_of(path)[0] + b"\n")
    dataset = load_dataset(data_copy, cache_dir=data_copy.parent / "cache")
    assert len(dataset.market_estimates) == 0
    assert {"publisher", "target_year", "recalled"} <= set(dataset.market_estimates.columns)


def test_header_only_capex_file_loads_as_an_empty_table_with_its_columns(data_copy):
    path = data_copy / "hyperscaler_capex_quarterly.csv"
    path.write_bytes(lines_of(path)[0] + b"\n")
    dataset = load_dataset(data_copy, cache_dir=data_copy.parent / "cache")
    capex = dataset.hyperscaler_capex
    assert len(capex) == 0
    assert {"company", "series", "capex_usd_billions", "quarter", "recalled"} <= set(capex)
    assert str(capex["quarter"].dtype) == "period[Q-DEC]"
    assert dataset.as_of("2024-12-31").hyperscaler_capex.empty


def test_every_data_file_header_only_is_still_one_error(data_copy):
    for name in SCHEMAS:
        path = data_copy / name
        path.write_bytes(lines_of(path)[0] + b"\n")
    with pytest.raises(DataValidationError) as caught:
        load_dataset(data_copy, cache_dir=data_copy.parent / "cache")
    named = {issue.file for issue in caught.value.issues}
    assert named == {name for name, schema in SCHEMAS.items() if schema.needs_rows}


def test_empty_file_is_reported(data_copy):
    (data_copy / REVENUE).write_bytes(b"")
    assert issue_strings(data_copy) == [f"{REVENUE}::: file is empty (no header row)"]


# --------------------------------------------------------------------------- quoting


def test_file_cut_inside_a_quoted_field_is_an_error_at_that_row(data_copy):
    """Cut after 60 of 102 rows, inside a quoted field: no longer "all files valid"."""
    path = data_copy / REVENUE
    lines = lines_of(path)
    row = lines[60]  # line 61
    assert b'"' in row
    cut = row.index(b'"') + 10
    path.write_bytes(b"\n".join(lines[:60]) + b"\n" + row[:cut])
    (issue,) = validate_data_dir(data_copy)
    assert (issue.file, issue.row, issue.column) == (REVENUE, 61, None)
    assert "unterminated quote" in issue.message


def test_file_cut_outside_quotes_with_every_field_is_an_error_at_its_last_line(data_copy):
    """Cut in half inside the last field: every row still has its fields, one is shortened."""
    path = data_copy / RENTAL
    data = path.read_bytes()
    cut = data[:len(data) // 2]
    assert cut.count(b'"') % 2 == 0 and not cut.endswith(b"\n")
    path.write_bytes(cut)
    (issue,) = validate_data_dir(data_copy)
    assert (issue.file, issue.row, issue.column) == (RENTAL, cut.count(b"\n") + 1, None)
    assert "the file ends inside this line, without a line end: it looks cut off" in (
        issue.message)


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
def test_a_whole_file_ends_with_a_line_end_of_either_kind(data_copy, ending):
    path = data_copy / RENTAL
    path.write_bytes(path.read_bytes().replace(b"\n", ending))
    assert validate_data_dir(data_copy) == []


def test_unterminated_quote_swallowing_the_rest_reports_where_it_opened(data_copy):
    """A quote opened on line 3 and never closed would swallow every row after it."""
    path = data_copy / RENTAL
    lines = [line.replace(b'"', b"") for line in lines_of(path)]  # no quote closes it
    head, _, notes = lines[2].rpartition(b",")
    lines[2] = head + b',"' + notes
    path.write_bytes(b"\n".join(lines))
    (issue,) = [i for i in validate_data_dir(data_copy) if i.file == RENTAL]
    assert issue.row == 3 and "unterminated quote" in issue.message
    last = len([line for line in lines if line])  # the header, this row and all the rest
    assert f"lines 3-{last}" in issue.message


def test_missing_closing_quote_closed_by_a_later_quote_reports_where_it_opened(data_copy):
    path = data_copy / RENTAL
    lines = lines_of(path)
    head, _, notes = lines[2].rpartition(b",")
    lines[2] = head + b',"' + notes.replace(b'"', b"")
    path.write_bytes(b"\n".join(lines))
    issues = [i for i in validate_data_dir(data_copy) if i.file == RENTAL]
    assert [i.row for i in issues] == [3]
    assert "closing quote missing" in issues[0].message


def test_row_running_over_lines_with_wrong_field_count_says_so(tmp_path):
    path = tmp_path / "market_estimates.csv"
    schema = SCHEMAS["market_estimates.csv"]
    header = ",".join(column.name for column in schema.columns)
    path.write_text(f'{header}\nAMD,2023,2027,"def\nmore,150,,,src,verified,n\n')
    issues: list = []
    read_csv(path, schema, issues)
    (issue,) = issues
    assert issue.row == 2 and "lines 2-3" in issue.message


# --------------------------------------------------------------------------- encodings


def test_byte_order_mark_is_accepted(data_copy):
    path = data_copy / REVENUE
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert validate_data_dir(data_copy) == []
    dataset = load_dataset(data_copy, cache_dir=data_copy.parent / "cache")
    assert "company" in dataset.revenue.columns


def test_crlf_line_ends_are_accepted(data_copy):
    path = data_copy / RENTAL
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert validate_data_dir(data_copy) == []


def test_invalid_utf8_is_located_by_line(data_copy):
    path = data_copy / RENTAL
    lines = lines_of(path)
    lines[6] = lines[6] + b"\xff\xfe"
    path.write_bytes(b"\n".join(lines))
    (issue,) = validate_data_dir(data_copy)
    assert (issue.file, issue.row) == (RENTAL, 7) and "not UTF-8" in issue.message


# --------------------------------------------------------------------------- headers


def test_repeated_column_is_reported(data_copy):
    path = data_copy / REVENUE
    lines = lines_of(path)
    lines[0] = lines[0] + b",notes"
    lines[1:] = [line + b",x" if line else line for line in lines[1:]]
    path.write_bytes(b"\n".join(lines))
    assert issue_strings(data_copy) == [f"{REVENUE}:1:'notes': column appears more than once"]


def test_odd_header_names_stay_on_one_line(data_copy):
    path = data_copy / REVENUE
    path.write_bytes(path.read_bytes().replace(b"company", b'"com\npany"', 1))
    issues = validate_data_dir(data_copy)
    assert_one_line_each(issues)
    assert any(issue.message == "unknown column" and "\\n" in str(issue.column)
               for issue in issues)


def test_long_cell_text_is_shortened_in_messages():
    assert len(shown("x" * 5000)) < 100
    assert shown("a\nb") == "'a\\nb'"


# --------------------------------------------------------------------------- dates


@pytest.mark.parametrize(("text", "start"), [
    ("2025-10-30", "2025-10-30"), ("2025-10", "2025-10-01"), ("2025-Q4", "2025-10-01"),
    ("2025", "2025-01-01")])
def test_span_start_is_the_first_day_of_a_coarse_date(text, start):
    assert span_start(parse_date(text)) == pd.Timestamp(start)


def test_span_start_of_a_year_number():
    assert span_start(2024) == pd.Timestamp("2024-01-01")


@pytest.mark.parametrize("text", ["2024-02-30", "2024-00", "2024-13", "2024-Q5"])
def test_impossible_dates_are_value_errors(text):
    with pytest.raises(ValueError):
        parse_date(text)
