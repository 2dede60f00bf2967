"""forecast.models.diffusion.units_io: unit series from CSV files, one-line errors naming
file, row and column, and fitting a file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from diffusion_fits import FIXTURE, SMALL

from forecast.core.errors import ForecastError
from forecast.models.diffusion import (
    diffusion_report,
    fit_units_csv,
    prepare_diffusion_data,
    read_units_csv,
)


def _write(tmp_path: Path, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / "units.csv"
    path.write_bytes(text.encode(encoding))
    return path


GOOD_ROWS = "".join(f"{k},{100 * k}\n" for k in range(1, 8))


@pytest.mark.parametrize(("text", "kind", "row", "column", "message"), [
    ("period,units\n" + GOOD_ROWS, "bass", 1, "value", "required column is missing"),
    ("period,value\n" + GOOD_ROWS + "8,abc\n", "bass", 9, "value", "not a number"),
    ("period,value\n" + GOOD_ROWS + "8,-5\n", "bass", 9, "value", "positive"),
    ("period,value\n" + GOOD_ROWS + "8,0\n", "bass", 9, "value", "positive"),
    ("period,value\n" + GOOD_ROWS + "8,inf\n", "bass", 9, "value", "positive"),
    ("period,value\n" + GOOD_ROWS + "8,\n", "bass", 9, "value", "value is required"),
    ("period,value\n" + GOOD_ROWS + ",5\n", "bass", 9, "period", "value is required"),
    ("period,value\n" + GOOD_ROWS + "3,40\n", "bass", 9, "period", "duplicate period '3'"),
    ("period,value\n1,1\n2,2\n3,3\n4,4\n5,5\n", "bass", 6, "value", "need at least 6"),
    ("period,value\n" + GOOD_ROWS + "2025Q1,7\n", "bass", 9, "period", "mixes"),
    ("period,value\n" + GOOD_ROWS + "soon,7\n", "bass", 9, "period", "quarter like 2024Q1"),
    ("period,value\n" + GOOD_ROWS, "gbass", 1, "covariate", "required column is missing"),
    ("period,value,covariate\n1,5,1\n2,5,x\n", "gbass", 3, "covariate", "not a number"),
    ("period,generation,value\n1,a,5\n1,a,6\n", "norton-bass", 3, "period",
     "duplicate period and generation"),
    ("period,generation,value\n1,a,5\n2,,6\n", "norton-bass", 3, "generation",
     "value is required"),
    ("period,value\n" + GOOD_ROWS, "norton-bass", 1, "generation", "required column"),
])
def test_csv_errors_name_file_row_and_column(tmp_path, text, kind, row, column, message):
    path = _write(tmp_path, text)
    with pytest.raises(ForecastError) as info:
        read_units_csv(path, kind)
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(f"{path}:{row}:{column}: ")
    assert message in text


def test_csv_row_of_the_wrong_width_names_its_line(tmp_path):
    path = _write(tmp_path, "period,value\n1,5\n\n2,5,9\n")
    with pytest.raises(ForecastError) as info:
        read_units_csv(path)
    assert str(info.value) == f"{path}:4:: expected 2 fields, got 3"


def test_csv_undecodable_bytes_name_the_line(tmp_path):
    path = _write(tmp_path, "period,value\n1,5\n2,5\n3,caf\u00e9\n", encoding="latin-1")
    with pytest.raises(ForecastError) as info:
        read_units_csv(path)
    assert str(info.value).startswith(f"{path}:") and "unreadable CSV" in str(info.value)
    assert "\n" not in str(info.value)


def test_csv_empty_file_and_unknown_kind(tmp_path):
    path = _write(tmp_path, "")
    with pytest.raises(ForecastError, match="file is empty"):
        read_units_csv(path)
    with pytest.raises(ForecastError, match="kind must be one of"):
        read_units_csv(FIXTURE, "logistic")


def test_csv_missing_file_is_one_line(tmp_path):
    path = tmp_path / "nope.csv"
    with pytest.raises(ForecastError) as info:
        fit_units_csv(path)
    assert str(info.value) == f"{path}::: file not found"


def test_csv_fixture_reads_as_quarters_with_covariate():
    series, covariate = read_units_csv(FIXTURE, "gbass")
    assert isinstance(series.index, pd.PeriodIndex) and len(series) == 12
    assert str(series.index[0]) == "2023Q1" and series.iloc[0] == 22139.0
    assert covariate is not None and covariate.index.equals(series.index)
    assert list(covariate.iloc[:4]) == [1.0, 1.055, 1.27, 1.51]
    series, covariate = read_units_csv(FIXTURE, "bass")
    assert covariate is None and series.name == "units"


def test_csv_blank_rows_and_unsorted_periods(tmp_path):
    rows = "period,value,note\n" + "".join(f"{k},{10 * k},x\n\n" for k in (3, 1, 2, 6, 5, 4))
    series, _ = read_units_csv(_write(tmp_path, rows))
    assert list(series.index) == [1, 2, 3, 4, 5, 6]
    assert list(series) == [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]


def test_csv_long_format_becomes_generation_columns(tmp_path):
    rows = ["period,generation,value"]
    rows += [f"{k},old,{10 * k}" for k in range(1, 7)]
    rows += [f"{k},new,{5 * k}" for k in range(4, 9)]
    series, _ = read_units_csv(_write(tmp_path, "\n".join(rows) + "\n"), "norton-bass")
    assert list(series.columns) == ["old", "new"]
    assert series.loc[8, "new"] == 40 and np.isnan(series.loc[8, "old"])
    assert prepare_diffusion_data(series, "norton-bass").launch_periods == (0, 3)


@pytest.mark.slow
def test_fit_units_csv_and_report():
    fitted = fit_units_csv(FIXTURE, "bass", sampler=SMALL)
    report = diffusion_report(fitted)
    assert [row["parameter"] for row in report["parameters"]] == ["p", "q", "m"]
    # Plumbing check with few draws: a 12-quarter series near its peak leaves m loose.
    assert report["divergences"] == 0 and report["max_r_hat"] < 1.05
    assert report["n_observations"] == 12 and fitted.config["kind"] == "bass"
    json.dumps(report)
    paths = fitted.forecast(4, draws=50)
    assert list(paths["period"].values) == ["2026Q1", "2026Q2", "2026Q3", "2026Q4"]
    assert paths["units"].shape == (50, 4) and np.all(paths["units"].values > 0)
