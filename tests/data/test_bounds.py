"""Tests of the bounds files (funding, power, supply, bookings): validated, typed and cut."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest
from data_files import edit_cell, issue_strings

from forecast.data.dataset import load_dataset, validate_data_dir
from forecast.data.normalise_bounds import BOUNDS_TABLES
from forecast.data.schemas_bounds import base_unit

#: Rows copied from ../shared/data (turn3: 156 rows; turn2's annual capex file: 38).
ROWS = {"buyer_cash_flow": 43, "capex_annual": 38, "accelerator_share": 18,
        "power_capacity": 30, "dollars_per_gw": 11, "packaging_supply": 26, "bookings": 28}


def test_every_bounds_table_loads_with_its_rows(dataset):
    assert set(ROWS) == set(BOUNDS_TABLES)
    for name, (_, published) in BOUNDS_TABLES.items():
        table = getattr(dataset, name)
        assert len(table) == ROWS[name], name
        assert (table[published] <= pd.Timestamp("2025-10-31")).all(), name
        assert table["source"].str.strip().str.len().gt(0).all(), name
        assert (table["confidence"] == "verified").all(), name


def test_figures_are_floats_and_periods_are_spans(dataset):
    cash = dataset.buyer_cash_flow
    assert cash["value_usd_billions_low"].dtype == float
    microsoft = cash[(cash["company"] == "Microsoft") & (cash["period"].str.startswith(
        "FY2026 (")) & (cash["metric"] == "capex_guidance")].iloc[0]
    # A qualitative guide ("higher than FY25") has no figure; its year runs July to June.
    assert pd.isna(microsoft["value_usd_billions_low"])
    assert (microsoft["period_start"], microsoft["period_end"]) == (
        pd.Timestamp("2025-07-01"), pd.Timestamp("2026-06-30"))
    packaging = dataset.packaging_supply
    row = packaging[(packaging["publisher"] == "Morgan Stanley")
                    & (packaging["period"] == "2026 (end)")].iloc[0]
    assert row["period_start"] == pd.Timestamp("2026-12-01")
    assert row["unit_base"] == "wafers per month" and row["value_low"] == 93000.0
    open_ended = dataset.bookings[dataset.bookings["end_period"] == "2027+"]
    assert len(open_ended) > 0 and open_ended["period_end"].isna().all()


def test_one_sided_figures_have_no_high_end(dataset):
    power = dataset.power_capacity
    anthropic = power[power["unit"] == "GW (at least)"].iloc[0]
    assert anthropic["value_low"] == 50.0 and pd.isna(anthropic["value_high"])
    assert base_unit("GW (at least)") == "GW"
    capex = dataset.capex_annual.set_index(["company", "published_date"])
    meta = capex.loc[("Meta", pd.Timestamp("2025-10-29"))]
    assert (meta["value_usd_billions_low"], meta["value_usd_billions_high"]) == (70.0, 72.0)
    oracle = capex.loc[("Oracle", pd.Timestamp("2025-06-11"))]
    oracle = oracle[oracle["metric"] == "capex guidance"].iloc[0]
    assert oracle["value_usd_billions_low"] == 25.0  # "more than $25B"
    assert pd.isna(oracle["value_usd_billions_high"])


def test_as_of_cuts_each_bounds_table_on_its_publication(dataset):
    """A source dated only by its month (Bernstein's "2025-10") counts from the month's last
    day: out of a cut on 2025-10-30, in one on 2025-10-31."""
    before, on = dataset.as_of("2025-10-30"), dataset.as_of("2025-10-31")
    bernstein = on.dollars_per_gw["who"].str.startswith("Bernstein")
    assert bernstein.any() and not before.dollars_per_gw["who"].str.startswith(
        "Bernstein").any()
    for name, (_, published) in BOUNDS_TABLES.items():
        assert len(getattr(on, name)) == ROWS[name]
        assert (getattr(before, name)[published] <= pd.Timestamp("2025-10-30")).all()
    assert dataset.as_of("2023-12-31").bookings.empty


@pytest.mark.parametrize(("filename", "low", "high"), [
    ("buyer_cash_flow.csv", "value_usd_billions_low", "value_usd_billions_high"),
    ("ai_power_capacity.csv", "value_low", "value_high"),
    ("accelerator_share_of_capex.csv", "share_pct_low", "share_pct_high"),
    ("dollars_per_gw.csv", "total_usd_billions_per_gw_low", "total_usd_billions_per_gw_high"),
])
def test_a_low_above_its_high_is_refused(data_copy, filename, low, high):
    edit_cell(data_copy, filename, 2, low, "99")
    edit_cell(data_copy, filename, 2, high, "9")
    assert issue_strings(data_copy) == [f"{filename}:2:{low}: {low} 99 > {high} 9"]


def test_a_period_that_ends_before_it_starts_is_refused(data_copy):
    edit_cell(data_copy, "ai_power_capacity.csv", 2, "period_start", "2031")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.file, issue.row, issue.column) == ("ai_power_capacity.csv", 2,
                                                     "period_start")
    assert "period_start 2031-01-01 is after period_end 2024-12-31" in issue.message


@pytest.mark.parametrize(("filename", "value", "column"), [
    ("ai_power_capacity.csv", "MW", "unit"),
    ("packaging_hbm_supply.csv", "wafer starts (more than)", "unit"),
    ("bookings_and_deals.csv", "EUR billions", "unit"),
    ("bookings_and_deals.csv", "nvidia", "buyer"),  # any buyer name is fine
])
def test_units_outside_the_vocabulary_are_refused(data_copy, filename, value, column):
    edit_cell(data_copy, filename, 2, column, value)
    issues = validate_data_dir(data_copy)
    if column == "buyer":
        assert issues == []
    else:
        (issue,) = issues
        assert (issue.file, issue.row, issue.column) == (filename, 2, "unit")
        assert "unit must be one of" in issue.message


def test_a_buyer_figure_in_millions_is_refused(data_copy):
    edit_cell(data_copy, "buyer_cash_flow.csv", 2, "value_usd_billions_low", "118548")
    edit_cell(data_copy, "buyer_cash_flow.csv", 2, "value_usd_billions_high", "118548")
    issues = validate_data_dir(data_copy)
    assert {(i.row, i.column) for i in issues} == {(2, "value_usd_billions_low"),
                                                   (2, "value_usd_billions_high")}
    assert all("a value in millions" in i.message for i in issues)


@pytest.mark.parametrize("name", sorted(BOUNDS_TABLES))
def test_a_header_only_bounds_file_validates_to_an_empty_table(data_copy, name):
    """No model reads these files yet: a file with only its header is not an error."""
    path = Path(data_copy) / BOUNDS_TABLES[name][0]
    with path.open(newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    path.write_text(",".join(header) + "\n", encoding="utf-8")
    assert validate_data_dir(data_copy) == []
    table = getattr(load_dataset(data_copy, cache_dir=None), name)
    assert table.empty and set(header) <= set(table.columns)
