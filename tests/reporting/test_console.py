"""What the command line prints for forecasts, and the files a forecast writes, on synthetic
paths (the same text on stored fits is checked end to end in tests/test_forecast_cli.py)."""

from __future__ import annotations

import errno
import json

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.pipeline.results import Forecast
from forecast.reporting.console.forecasts import (
    comparison_text,
    forecast_text,
    headline_text,
    theses_text,
)
from forecast.reporting.console.table import table_text
from forecast.reporting.outputs import check_out_dir, write_forecast_files
from forecast.scenarios import ThesisSpec

QUARTERS = [f"{y}Q{q}" for y in (2029, 2030) for q in range(1, 5)]


def synthetic(name: str = "demo", scale: float = 1.0, n: int = 200) -> Forecast:
    rng = np.random.default_rng(5)
    tam = scale * rng.lognormal(np.log(300), 0.2, size=(n, len(QUARTERS)))
    share = rng.dirichlet([8, 1, 1, 1], size=(n, len(QUARTERS)))
    aws = tam * share[:, :, 3]
    data = xr.Dataset(
        {"tam": (("draw", "quarter"), tam),
         "share": (("draw", "quarter", "vendor"), share),
         "aws_spend_at_cost": (("draw", "quarter"), aws),
         "aws_rental_revenue": (("draw", "quarter"), 0.3 * aws),
         "aws_merchant_value": (("draw", "quarter"), 2.0 * aws),
         "aws_custom_chips_run_rate": (("draw", "quarter"), 1.2 * aws + 10.0)},
        coords={"draw": np.arange(n), "quarter": QUARTERS,
                "vendor": ["nvidia", "amd", "intel", "aws"]})
    thesis = ThesisSpec(name="big_tam", statement="TAM above 1200 in 2030", metric="tam",
                        period="2030", comparator=">", threshold=1200.0, aggregate="sum")
    return Forecast(data=data, scenario=name, fit_id="F1", seed=3, theses_specs=[thesis],
                    meta={"horizon": 2030, "data_end": "2028Q4"})


def test_headline_blocks_per_metric_without_thousands_separators():
    result = synthetic()
    lines = headline_text(result).splitlines()
    assert lines[0] == "tam (USD billions), calendar year: 10% / 50% / 90%"
    median = float(np.quantile(result.annual("tam").sel(period="2030").values, 0.5))
    assert median > 1000
    row = lines[2]
    assert row.split()[0] == "2030" and row.split()[2] == f"{median:.1f}"
    assert "," not in row
    # Vendors outside the headline's list (intel) are left out; fractions have 3 decimals.
    assert any(line.startswith("  2029 aws ") for line in lines)
    assert not any("intel" in line for line in lines)
    share = next(line for line in lines if line.startswith("  2030 nvidia"))
    assert all(len(value.split(".")[1]) == 3 for value in share.split()[2:])
    # The AWS quantities, each titled with its unit; the run rate is a yearly rate at Q4.
    for title in ("aws_spend_at_cost (USD billions)", "aws_rental_revenue (USD billions)",
                  "aws_merchant_value (USD billions)",
                  "aws_custom_chips_run_rate (USD billions per year)"):
        assert f"{title}, calendar year: 10% / 50% / 90%" in lines
    start = lines.index("aws_custom_chips_run_rate (USD billions per year), calendar year: "
                        "10% / 50% / 90%")
    q4 = result.paths("aws_custom_chips_run_rate").sel(quarter="2030Q4").values
    assert lines[start + 2].split() == ["2030", *(f"{v:.1f}" for v in
                                                  np.quantile(q4, [0.1, 0.5, 0.9]))]


def test_theses_lines():
    text = theses_text(synthetic())
    probability = synthetic().theses()["probability"].item()
    assert text.splitlines()[:3] == [
        "theses (probability +- Monte Carlo standard error):",
        f"  big_tam: P = {probability:.3f} +- "
        f"{synthetic().theses()['mcse'].item():.3f}",
        "      TAM above 1200 in 2030"]


def test_forecast_text_in_each_format():
    result = synthetic()
    table = forecast_text([result])
    assert table.startswith("scenario demo, fit F1, 200 draws, seed 3, data to 2028Q4\n")
    assert "\n\ntheses (probability" in table
    csv = forecast_text([result], "csv")
    assert csv.splitlines()[0] == "metric,period,key,q10,q50,q90,unit"
    assert not csv.endswith("\n")
    assert json.loads(forecast_text([result], "json"))["fit_id"] == "F1"
    with pytest.raises(ForecastError):
        forecast_text([result], "yaml")


def test_comparison_puts_scenarios_in_the_order_given():
    results = [synthetic("bull", 1.2), synthetic("base"), synthetic("bear", 0.8)]
    text = comparison_text(results)
    lines = text.splitlines()
    assert lines[0] == "median in 2030 by scenario"
    header = lines[1]
    assert header.index("bull") < header.index("base") < header.index("bear")
    assert "thesis probabilities by scenario" in lines
    assert forecast_text(results, "csv", compare=True) == text
    assert len(json.loads(forecast_text(results, "json", compare=True))) == 3


def test_table_text_prints_every_row_without_the_index():
    frame = pd.DataFrame({"a": range(100), "b": ["x" * 80] * 100})
    lines = table_text(frame).splitlines()
    assert len(lines) == 101 and lines[0].split() == ["a", "b"]
    assert lines[-1].split() == ["99", "x" * 80]


def test_forecast_files_all_or_nothing(tmp_path):
    out = check_out_dir(tmp_path / "new" / "dir")
    written = write_forecast_files(synthetic("bull"), out)
    assert [p.name for p in written] == sorted([
        "forecast_bull_quantiles.csv", "forecast_bull_paths.parquet",
        "forecast_bull_summary.json", "forecast_bull_tam.png",
        "forecast_bull_share_nvidia.png", "forecast_bull_share_aws.png",
        "forecast_bull_aws_spend_at_cost.png", "forecast_bull_aws_rental_revenue.png",
        "forecast_bull_aws_merchant_value.png"])
    assert sorted(out.iterdir()) == written  # no staging left behind
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ForecastError, match="not writable"):
        check_out_dir(blocker / "sub")


def test_forecast_files_on_a_full_disk_leave_nothing(tmp_path, monkeypatch):
    def full(self, path):
        path.write_bytes(b"partial")
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(Forecast, "to_parquet", full)
    with pytest.raises(OSError, match="forecast files not written") as raised:
        write_forecast_files(synthetic("bull"), tmp_path)
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_cli_forecast_files_on_a_full_disk_are_one_line_and_exit_6(tmp_path, monkeypatch,
                                                                  capsys):
    import cli

    def full(self, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.delenv("FORECAST_DEBUG", raising=False)
    monkeypatch.setattr("forecast.pipeline.runner.run_scenario",
                        lambda name, **kwargs: synthetic(name))
    monkeypatch.setattr(Forecast, "to_parquet", full)
    assert cli.main(["forecast", "--scenario", "bull", "--out", str(tmp_path)]) == 6
    captured = capsys.readouterr()
    assert captured.out.startswith("scenario bull, fit F1")  # the table was printed
    assert captured.err == (f"error: {tmp_path}: forecast files not written (No space left "
                            "on device)\n")
    assert list(tmp_path.iterdir()) == []
