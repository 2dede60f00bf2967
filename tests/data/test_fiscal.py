"""Fiscal labels against their dates (forecast.data.fiscal): a label its date contradicts is
refused at its row, on the shipped data's own rows."""

from __future__ import annotations

import pytest
from data_files import edit_cell

from forecast.data.dataset import validate_data_dir
from forecast.data.fiscal import FISCAL_FILES

REVENUE = "vendor_quarterly_revenue.csv"
CAPEX = "hyperscaler_capex_quarterly.csv"


def test_every_file_with_a_fiscal_label_and_its_date_is_checked():
    assert set(FISCAL_FILES) == {REVENUE, CAPEX, "vendor_guidance.csv"}


def test_shipped_labels_agree_with_their_dates(data_copy):
    assert validate_data_dir(data_copy) == []


@pytest.mark.parametrize(("filename", "line", "label", "message"), [
    # NVIDIA FY2020Q2 (2019-07-28) relabelled twenty years early.
    (REVENUE, 3, "FY1999Q1", "names fiscal year 1999, more than a year from the calendar year"),
    # AMD reports calendar quarters: 2023Q3 ends 2023-09-30, not in 2024.
    (REVENUE, 61, "2024Q3", "is a calendar period, but not the one its date ends"),
    # A quarter off: NVIDIA's fiscal quarters are four after their calendar quarters.
    (REVENUE, 3, "FY2020Q3", "is 5 quarter(s) from its calendar quarter, but 53 other NVIDIA"),
    # Microsoft's capex, "FY22 Q3" written as FY23.
    (CAPEX, 2, "FY23 Q3", "is 6 quarter(s) from its calendar quarter"),
])
def test_a_label_its_date_contradicts_is_refused_at_its_row(data_copy, filename, line, label,
                                                           message):
    edit_cell(data_copy, filename, line, "fiscal_period", label)
    issues = [issue for issue in validate_data_dir(data_copy)
              if issue.column == "fiscal_period"]
    assert [(i.file, i.row) for i in issues] == [(filename, line)]
    assert message in issues[0].message and label in issues[0].message
