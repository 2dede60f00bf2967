"""Tests of forecast.data validation: every class of error is caught and located."""

from __future__ import annotations

import csv

import pandas as pd
import pytest
from data_files import edit_cell, issue_strings

from forecast.core.errors import DataValidationError
from forecast.data.dataset import SCHEMAS, load_dataset, validate_data_dir

# --------------------------------------------------------------------------- error classes


def test_negative_price_is_rejected(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 2, "usd_per_chip_hour", "-4.10")
    assert issue_strings(data_copy) == [
        "gpu_rental_prices.csv:2:usd_per_chip_hour: must be in (0, 50], got -4.1 "
        "(USD per chip-hour; an instance price must be divided by its chips)"
    ]


def test_zero_price_is_rejected(data_copy):
    edit_cell(data_copy, "accelerators.csv", 5, "cloud_on_demand_usd_per_chip_hour", "0")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.file, issue.row, issue.column) == (
        "accelerators.csv", 5, "cloud_on_demand_usd_per_chip_hour")


def test_instance_price_is_flagged_as_wrong_unit(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 3, "usd_per_chip_hour", "98.32")
    (issue,) = validate_data_dir(data_copy)
    assert "instance price" in issue.message


def test_revenue_in_millions_is_flagged(data_copy):
    edit_cell(data_copy, "vendor_quarterly_revenue.csv", 4, "revenue_usd_billions", "14514")
    (issue,) = validate_data_dir(data_copy)
    assert issue.column == "revenue_usd_billions" and "millions" in issue.message


def test_unknown_chip_is_rejected(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 10, "chip", "H900")
    assert issue_strings(data_copy) == [
        "gpu_rental_prices.csv:10:chip: chip 'H900' is not in accelerators.csv or "
        "chip_aliases.csv"
    ]


def test_bad_date_is_rejected(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 4, "date", "2024-13-45")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.row, issue.column) == (4, "date")
    assert "2024-13-45" in issue.message


def test_empty_source_is_rejected(data_copy):
    edit_cell(data_copy, "vendor_quarterly_revenue.csv", 7, "source", "  ")
    assert issue_strings(data_copy) == ["vendor_quarterly_revenue.csv:7:source: source is empty"]


def test_non_numeric_value_is_rejected(data_copy):
    edit_cell(data_copy, "accelerators.csv", 3, "bf16_dense_tflops", "fast")
    assert issue_strings(data_copy) == [
        "accelerators.csv:3:bf16_dense_tflops: not a number, got 'fast'"
    ]


def test_unknown_pricing_type_is_rejected(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 5, "pricing_type", "on demand")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.row, issue.column) == (5, "pricing_type")


def test_duplicate_observation_is_rejected(data_copy):
    path = data_copy / "gpu_rental_prices.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines + [lines[1]]), encoding="utf-8")
    (issue,) = validate_data_dir(data_copy)
    assert issue.row == len(lines) + 1
    assert "duplicate observation" in issue.message and "line 2" in issue.message


def test_missing_column_is_rejected(data_copy):
    path = data_copy / "market_estimates.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False).drop(columns=["target_year"])
    frame.to_csv(path, index=False)
    assert issue_strings(data_copy) == ["market_estimates.csv:1:target_year: required column is "
                                        "missing"]


def test_inconsistent_range_is_rejected(data_copy):
    edit_cell(data_copy, "accelerator_unit_prices.csv", 2, "price_usd_low", "25000")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.row, issue.column) == (2, "price_usd_low")


def test_all_errors_are_reported_at_once(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 2, "usd_per_chip_hour", "-1")
    edit_cell(data_copy, "gpu_rental_prices.csv", 10, "chip", "H900")
    edit_cell(data_copy, "gpu_rental_prices.csv", 4, "date", "yesterday")
    edit_cell(data_copy, "vendor_quarterly_revenue.csv", 7, "source", "")
    with pytest.raises(DataValidationError) as caught:
        load_dataset(data_copy)
    located = {(i.file, i.row, i.column) for i in caught.value.issues}
    assert located == {
        ("gpu_rental_prices.csv", 2, "usd_per_chip_hour"),
        ("gpu_rental_prices.csv", 10, "chip"),
        ("gpu_rental_prices.csv", 4, "date"),
        ("vendor_quarterly_revenue.csv", 7, "source"),
    }


def test_missing_directory_is_an_error(tmp_path):
    with pytest.raises(DataValidationError, match="data directory not found"):
        load_dataset(tmp_path / "nowhere")


# --------------------------------------------------------------------------- bands and vendors

SILICON = "aws_custom_silicon.csv"
VENDORS = "vendor_groups.csv"


def test_malformed_band_is_located(data_copy):
    edit_cell(data_copy, SILICON, 3, "value_p5", "450000")  # Project Rainier: a band added
    edit_cell(data_copy, SILICON, 3, "value_p95", "2,078,956")
    assert issue_strings(data_copy) == [
        "aws_custom_silicon.csv:3:value_p95: not a number, got '2,078,956'"
    ]
    with pytest.raises(DataValidationError, match="aws_custom_silicon.csv:3:value_p95"):
        load_dataset(data_copy)


def test_band_needs_both_ends_and_brackets_its_median(data_copy):
    edit_cell(data_copy, SILICON, 3, "value_p5", "400000")  # Project Rainier: a band added
    edit_cell(data_copy, SILICON, 3, "value_p95", "450000")  # ... that misses its value
    assert issue_strings(data_copy) == [
        "aws_custom_silicon.csv:3:value: must satisfy value_p5 <= value <= value_p95, got "
        "400000 <= 500000 <= 450000",
    ]
    edit_cell(data_copy, SILICON, 3, "value_p95", "")
    assert issue_strings(data_copy) == [
        "aws_custom_silicon.csv:3:value_p95: a band needs both value_p5 and value_p95",
    ]


def test_band_without_a_median_is_rejected(data_copy):
    edit_cell(data_copy, SILICON, 2, "value_p5", "1")
    edit_cell(data_copy, SILICON, 2, "value_p95", "2")
    assert issue_strings(data_copy) == [
        "aws_custom_silicon.csv:2:value: a band needs its median in value"
    ]


def test_vendor_must_be_in_vendor_groups(data_copy):
    edit_cell(data_copy, "accelerators.csv", 2, "vendor", "Nvidia")
    assert issue_strings(data_copy) == [
        "accelerators.csv:2:vendor: vendor 'Nvidia' is not in vendor_groups.csv"
    ]


def test_vendor_group_is_described_once(data_copy):
    edit_cell(data_copy, VENDORS, 7, "silicon", "merchant")  # Microsoft, other_custom
    assert issue_strings(data_copy) == [
        "vendor_groups.csv:7:silicon: group 'other_custom' has silicon 'custom' at line 6; "
        "a group is described once"
    ]


def test_a_vendor_group_the_models_do_not_know_is_refused_at_its_row(data_copy):
    edit_cell(data_copy, VENDORS, 2, "vendor_group", "nvidiaa")  # NVIDIA's group renamed
    assert issue_strings(data_copy) == [
        "vendor_groups.csv:2:vendor_group: group 'nvidiaa' is not one the models know "
        "(nvidia, amd, google, aws, other, other_custom); did you mean 'nvidia'?"
    ]


def test_every_group_of_the_models_needs_a_vendor(data_copy):
    path = data_copy / VENDORS
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith("Intel,")),
                    encoding="utf-8")
    assert ("vendor_groups.csv::vendor_group: no vendor of the models' group(s) other: every "
            "model covers the five groups") in issue_strings(data_copy)


def test_share_model_positions_run_from_one(data_copy):
    edit_cell(data_copy, VENDORS, 3, "share_model_order", "7")
    assert issue_strings(data_copy) == [
        "vendor_groups.csv::share_model_order: the groups' positions must run 1..4 once each, "
        "got [1, 3, 4, 7]"
    ]


# --------------------------------------------------------------------------- providers

PROVIDERS = "providers.csv"


def _provider_line(directory, name: str) -> int:
    """The file line (header = 1) of ``name`` in providers.csv."""
    with (directory / PROVIDERS).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return next(i + 1 for i, row in enumerate(rows) if row[0] == name)


def test_unclassified_provider_is_one_line_naming_file_row_and_field(data_copy):
    edit_cell(data_copy, "gpu_rental_prices.csv", 2, "provider_or_index", "Nebius")
    assert issue_strings(data_copy) == [
        "gpu_rental_prices.csv:2:provider_or_index: provider 'Nebius' is not in "
        "providers.csv (every provider needs a provider_class there)"
    ]
    with pytest.raises(DataValidationError, match="gpu_rental_prices.csv:2:provider_or_index"):
        load_dataset(data_copy, cache_dir=None)


def test_provider_dropped_from_providers_csv_is_reported_at_each_price(data_copy):
    path = data_copy / PROVIDERS
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    line = _provider_line(data_copy, "Oracle Cloud")
    path.write_text("".join(lines[:line - 1] + lines[line:]), encoding="utf-8")
    issues = validate_data_dir(data_copy)
    assert len(issues) == 3  # the three Oracle Cloud prices
    assert {(i.file, i.column) for i in issues} == {("gpu_rental_prices.csv",
                                                      "provider_or_index")}
    assert all("'Oracle Cloud' is not in providers.csv" in i.message for i in issues)


def test_provider_class_is_a_fixed_vocabulary_and_a_provider_is_listed_once(data_copy):
    line = _provider_line(data_copy, "RunPod")
    edit_cell(data_copy, PROVIDERS, line, "provider_class", "gpu cloud")
    edit_cell(data_copy, PROVIDERS, line + 1, "provider_or_index", "Paperspace")
    strings = issue_strings(data_copy)
    assert strings[0] == (f"providers.csv:{line}:provider_class: must be one of hyperscaler, "
                          "neocloud, marketplace, index, got 'gpu cloud'")
    assert strings[1].startswith(f"providers.csv:{line + 1}:provider_or_index: duplicate "
                                 "observation (same provider_or_index as line")


# --------------------------------------------------------------------------- dates and as-of

RENTAL = "gpu_rental_prices.csv"


def test_rental_price_dated_2999_is_rejected(data_copy):
    edit_cell(data_copy, RENTAL, 5, "date", "2999-01-01")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.file, issue.row, issue.column) == (RENTAL, 5, "date")
    assert "year must be in 2000..2100" in issue.message


def test_observation_after_the_as_of_date_is_rejected(data_copy):
    edit_cell(data_copy, RENTAL, 5, "date", "2025-11-03")
    assert issue_strings(data_copy) == [
        "gpu_rental_prices.csv:5:date: dated after the data's as-of date 2025-10-31 "
        "(as_of.csv): known on 2025-11-03"
    ]


def test_coarse_date_counts_from_the_last_day_of_its_span(data_copy):
    edit_cell(data_copy, RENTAL, 4, "date", "2025-10")  # surely known by 2025-10-31
    edit_cell(data_copy, RENTAL, 5, "date", "2025-Q4")  # may have been seen in December
    edit_cell(data_copy, RENTAL, 6, "date", "2025")
    issues = validate_data_dir(data_copy)
    assert [(i.row, i.column) for i in issues] == [(5, "date"), (6, "date")]
    assert issues[0].message.endswith("known on 2025-12-31 (a coarse date counts from the "
                                      "last day of its span)")


#: Every file with dated facts and the column dating them (FileSchema.observed).
OBSERVED = sorted((name, schema.observed) for name, schema in SCHEMAS.items()
                  if schema.observed is not None)


def test_every_file_of_facts_names_the_column_dating_them():
    """Only the definitions (aliases, vendor groups, providers) are undated."""
    undated = {name for name, schema in SCHEMAS.items() if schema.observed is None}
    assert undated == {"chip_aliases.csv", "vendor_groups.csv", "providers.csv"}


@pytest.mark.parametrize(("name", "column"), OBSERVED)
@pytest.mark.parametrize("value", ["2025-11-01", "2025-11", "2025-Q4"])
def test_a_row_dated_after_the_as_of_date_is_refused_in_one_line(data_copy, name, column,
                                                                  value):
    """The day after the as-of date, or a month or quarter that ends after it, in the first
    row of every dated file: one issue naming the file, the row and the column."""
    edit_cell(data_copy, name, 2, column, value)
    known = {"2025-11-01": "2025-11-01", "2025-11": "2025-11-30", "2025-Q4": "2025-12-31"}
    coarse = "" if value == "2025-11-01" else (" (a coarse date counts from the last day "
                                               "of its span)")
    assert issue_strings(data_copy) == [
        f"{name}:2:{column}: dated after the data's as-of date 2025-10-31 (as_of.csv): "
        f"known on {known[value]}{coarse}"]


@pytest.mark.parametrize(("name", "column"), OBSERVED)
def test_a_row_dated_on_the_as_of_date_passes(data_copy, name, column):
    edit_cell(data_copy, name, 2, column, "2025-10-31")
    assert validate_data_dir(data_copy) == []


def test_announced_chip_may_ship_after_the_as_of_date(data_copy):
    """An announced chip's release_date is the window its vendor announced (Trainium3's
    "late 2025"): it may lie after the as-of date, its announcement may not."""
    line = _catalogue_line(data_copy, "Trainium3")
    edit_cell(data_copy, "accelerators.csv", line, "release_date", "2027-06")
    assert validate_data_dir(data_copy) == []
    edit_cell(data_copy, "accelerators.csv", line, "published", "2025-12-02")
    assert issue_strings(data_copy) == [
        f"accelerators.csv:{line}:published: dated after the data's as-of date 2025-10-31 "
        "(as_of.csv): known on 2025-12-02"]


def test_released_chip_is_released_by_its_published_date(data_copy):
    """Marking a chip released whose release came later (Trainium3, 2025-12) is refused."""
    line = _catalogue_line(data_copy, "Trainium3")
    edit_cell(data_copy, "accelerators.csv", line, "status", "released")
    edit_cell(data_copy, "accelerators.csv", line, "release_date", "2025-12")
    (issue,) = validate_data_dir(data_copy)
    assert (issue.file, issue.row, issue.column) == ("accelerators.csv", line, "release_date")
    assert "ends after its published date 2024-12-03" in issue.message


def _catalogue_line(directory, chip: str) -> int:
    with (directory / "accelerators.csv").open(newline="", encoding="utf-8") as handle:
        chips = [row["chip"] for row in csv.DictReader(handle)]
    return chips.index(chip) + 2


def test_as_of_date_comes_from_as_of_csv(data_copy):
    dataset = load_dataset(data_copy, cache_dir=data_copy.parent / "cache")
    assert dataset.data_as_of == pd.Timestamp("2025-10-31")
    assert dataset.last_observation <= pd.Timestamp("2025-12-31")  # a year "2025" ends then


def test_data_without_as_of_csv_are_refused_even_when_once_cached(data_copy):
    cache = data_copy.parent / "cache"
    load_dataset(data_copy, cache_dir=cache)  # the intact data, cached
    (data_copy / "as_of.csv").unlink()
    (issue,) = validate_data_dir(data_copy)
    assert (issue.file, issue.row, issue.column) == ("as_of.csv", None, None)
    assert issue.message.startswith("file is missing")
    with pytest.raises(DataValidationError, match="as_of.csv::: file is missing"):
        load_dataset(data_copy, cache_dir=cache)


@pytest.mark.parametrize(("text", "message"), [
    ("as_of,source,notes\n", "as_of.csv::: no data rows: the file has only its header"),
    ("as_of,source,notes\n2025-10-31,s,a\n2025-11-30,s,b\n", "must hold exactly one row"),
    ("as_of,source,notes\n2099-12-31,s,future\n", "as_of.csv:2:as_of: 2099-12-31 is after today"),
    ("as_of,source,notes\nlast october,s,x\n", "as_of.csv:2:as_of: expected YYYY-MM-DD"),
    ("date,notes\n2025-10-31,x\n", "as_of.csv:1:as_of: required column is missing"),
])
def test_bad_as_of_file_is_reported(data_copy, text, message):
    (data_copy / "as_of.csv").write_text(text)
    issues = issue_strings(data_copy)
    assert any(message in issue for issue in issues), issues


# --------------------------------------------------------------------------- plausible ranges


def test_aws_value_is_checked_against_its_unit(data_copy):
    edit_cell(data_copy, SILICON, 3, "value", "5e9")  # chips
    assert issue_strings(data_copy) == [
        "aws_custom_silicon.csv:3:value: must be in (0, 1e+09] for unit 'chips', got 5e+09 "
        "(a chip count; a billion is over 400x the largest figure in the data)"
    ]


# --------------------------------------------------------------------------- hyperscaler capex

CAPEX = "hyperscaler_capex_quarterly.csv"


@pytest.mark.parametrize(("column", "value", "message"), [
    ("capex_usd_billions", "-5.3",
     "must be in (0, 1000], got -5.3 (USD billions a quarter; a value in millions is 1000x "
     "too large)"),
    ("capex_usd_billions", "5340", "must be in (0, 1000], got 5340 (USD billions a quarter; "
     "a value in millions is 1000x too large)"),
    ("capex_usd_billions", "n/a", "not a number, got 'n/a'"),
    ("source", " ", "source is empty"),
    ("confidence", "likely", "must be one of verified, recalled, got 'likely'"),
    ("series", "headline", "must be one of main, alternative, got 'headline'"),
    ("calendar_quarter_end", "2022-03-32", "no such date, got '2022-03-32'"),
    ("published_date", "2022-03-15", "2022-03-15 is before the quarter ends (2022-03-31)"),
])
def test_bad_capex_row_is_one_line_naming_file_row_and_field(data_copy, column, value, message):
    edit_cell(data_copy, CAPEX, 2, column, value)
    assert issue_strings(data_copy) == [f"{CAPEX}:2:{column}: {message}"]


def test_capex_main_series_is_one_definition_a_company(data_copy):
    """Microsoft's headline capex (including finance leases) is not its main series: marked
    main, it is a second definition and a second row of its quarter, at its own line."""
    edit_cell(data_copy, CAPEX, 17, "series", "main")
    assert issue_strings(data_copy) == [
        f"{CAPEX}:17:definition: Microsoft's main series has another definition at line 2; "
        "mark this row series 'alternative'",
        f"{CAPEX}:17:series: Microsoft has a main-series row of this quarter at line 15",
    ]


def test_capex_row_repeated_is_a_duplicate(data_copy):
    edit_cell(data_copy, CAPEX, 3, "fiscal_period", "FY22 Q3")
    issues = issue_strings(data_copy)
    assert issues[0].startswith(f"{CAPEX}:3:company: duplicate observation")
