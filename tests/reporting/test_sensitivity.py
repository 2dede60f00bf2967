"""Sensitivity outputs on synthetic paths, the simulation plumbing, and (slow) one-at-a-time
runs and the CLI on the session's fit store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.core.presentation import MetricKey
from forecast.pipeline.results import Forecast
from forecast.reporting.sensitivity import (
    OutputSpec,
    fixed_inputs,
    input_ppfs,
    output_draws,
    output_value,
    parse_output,
)
from forecast.reporting.sensitivity.display import (
    display_tornado,
    sensitivity_text,
    timing_text,
)
from forecast.reporting.sensitivity.simulation import SensitivityResult
from forecast.scenarios import ThesisSpec, load_scenario

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- outputs


def synthetic_forecast(n: int = 500) -> Forecast:
    rng = np.random.default_rng(3)
    quarters = [f"{y}Q{q}" for y in (2029, 2030) for q in range(1, 5)]
    tam = rng.lognormal(np.log(50), 0.3, size=(n, len(quarters)))
    share = rng.dirichlet([8, 1, 1], size=(n, len(quarters)))
    data = xr.Dataset(
        {"tam": (("draw", "quarter"), tam),
         "share": (("draw", "quarter", "vendor"), share),
         "aws_rental_revenue": (("draw", "quarter"), tam * share[:, :, 2])},
        coords={"draw": np.arange(n), "quarter": quarters,
                "vendor": ["nvidia", "google", "aws"]})
    thesis = ThesisSpec(name="big_tam", statement="TAM above 220 in 2030", metric="tam",
                        period="2030", comparator=">", threshold=220.0, aggregate="sum")
    return Forecast(data=data, scenario="synthetic", fit_id="none", seed=0,
                    theses_specs=[thesis])


def test_parse_output_forms_and_aliases():
    assert parse_output("aws_revenue:2030") == OutputSpec("aws_rental_revenue", "2030")
    assert parse_output("custom_silicon:2030Q4", "p90") == OutputSpec(
        "custom_silicon_spend", "2030Q4", stat="p90")
    assert parse_output("share:aws:2030") == OutputSpec("share", "2030", key="aws")
    spec = parse_output("thesis:big_tam")
    assert spec.kind == "thesis" and spec.label == "thesis:big_tam (probability)"
    assert parse_output("aws_revenue:2030").label == "aws_rental_revenue:2030 (median)"
    for bad in ("aws_revenue", "tam:20300", "thesis:", "a:b:c:d", "tam:2030Q5"):
        with pytest.raises(ForecastError):
            parse_output(bad)
    with pytest.raises(ForecastError):
        parse_output("tam:2030", stat="mode")


def test_an_output_is_a_metric_key_with_a_statistic():
    spec = parse_output("share:aws:2030", "p10")
    assert isinstance(spec, MetricKey) and spec.text == "share:aws:2030"
    assert spec.unit == "fraction of spend" and spec.label == "share:aws:2030 (p10)"
    assert parse_output("thesis:x", "p90") == OutputSpec("x", kind="thesis")
    assert parse_output("thesis:x").unit == "probability"


def test_output_values_match_the_forecast_api():
    result = synthetic_forecast()
    annual = result.annual("tam").sel(period="2030").values
    draws_ = output_draws(result, parse_output("tam:2030"))
    np.testing.assert_array_equal(draws_, annual)
    assert output_value(result, parse_output("tam:2030")) == pytest.approx(np.median(annual))
    assert output_value(result, parse_output("tam:2030", "p10")) == pytest.approx(
        np.quantile(annual, 0.1))
    share = output_draws(result, parse_output("share:aws:2029Q3"))
    np.testing.assert_array_equal(share, result.data["share"].sel(
        vendor="aws", quarter="2029Q3").values)
    probability = output_value(result, parse_output("thesis:big_tam"))
    assert probability == pytest.approx(result.theses()["probability"].item())
    np.testing.assert_allclose(output_draws(result, parse_output("thesis:big_tam")), annual)


@pytest.mark.parametrize("text", ["nope:2030", "tam:2031", "tam:2028Q1", "share:2030",
                                  "share:intel:2030", "tam:aws:2030", "thesis:nope"])
def test_bad_outputs_are_one_line_errors(text):
    with pytest.raises(ForecastError) as info:
        output_draws(synthetic_forecast(50), parse_output(text))
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------- display


def test_sensitivity_text_shows_the_tornado_and_the_ranking():
    scenario = load_scenario("base")
    tornado = pd.DataFrame({
        "input": ["mfu_aws", "mfu_nvidia"], "low_value": [0.2, 0.3], "high_value": [0.4, 0.5],
        "output_at_low": [10.0, 12.0], "output_at_high": [20.12345, 12.0 + 1e-12],
        "baseline": 15.0, "swing": [10.12345, 1e-12], "rank": [1, 2]})
    ranking = pd.DataFrame({"input": ["mfu_aws"], "spearman": [0.51234], "src": [0.4],
                            "srrc": [0.45], "rank": [1]})
    ranking.attrs.update(r2_src=0.5, r2_srrc=0.6)
    result = SensitivityResult(output=parse_output("aws_revenue:2030"), scenario=scenario,
                               fit_id="F", draws=100, seed=1, tornado=tornado,
                               ranking=ranking, runs=5, seconds=1.26)
    shown = display_tornado(tornado, scenario)
    assert shown["swing"].tolist() == ["10.12", "0"]  # rounding noise shows as 0
    assert shown["output_at_high"].tolist() == ["20.12", "12"]
    lines = sensitivity_text(result).splitlines()
    assert lines[0] == ("scenario base, fit F, output aws_rental_revenue:2030 (median) "
                        "[USD billions], 100 paths per run, seed 1")
    assert lines[1].endswith("(all at medians: 15)")
    assert ("global ranking over 100 Monte Carlo paths (all inputs varying; R^2 of SRC 0.50, "
            "of SRRC 0.60)") in lines
    assert any("0.512" in line for line in lines)
    assert timing_text(result) == "5 simulation runs in 1.3 s"


# --------------------------------------------------------------------------- simulation plumbing


def test_fixed_inputs_hold_each_input_at_one_value():
    scenario = load_scenario("base")
    frame = fixed_inputs(scenario, {"mfu_aws": 0.5}, 5)
    assert list(frame.columns) == scenario.input_names and len(frame) == 5
    assert (frame["mfu_aws"] == 0.5).all()
    for name, spec in scenario.inputs.items():
        assert frame[name].nunique() == 1
        if name != "mfu_aws":
            assert frame[name].iloc[0] == pytest.approx(spec.median())
        expected = np.int64 if spec.is_quarter else np.float64
        assert frame[name].dtype == expected
    with pytest.raises(ForecastError):
        fixed_inputs(scenario, {"nope": 1.0}, 5)
    ppfs = input_ppfs(scenario, ["mfu_aws"])
    assert ppfs["mfu_aws"](0.9) == pytest.approx(scenario.inputs["mfu_aws"].quantile(0.9))


def test_one_at_a_time_runs_use_common_random_numbers(shipped_store, monkeypatch):
    from forecast.pipeline.runner import load_run, run_scenario
    from forecast.pipeline.simulate import simulate
    from forecast.reporting.sensitivity import SimulationSensitivity

    scenario, dataset, bundle = load_run("base", root=shipped_store)
    # The hook: the scenario's own draws passed in give the very same paths.
    own = simulate(bundle, dataset, scenario, draws=150, seed=4,
                   inputs=scenario.sample(150, seed=4))
    reference = run_scenario("base", draws=150, seed=4, root=shipped_store)
    xr.testing.assert_identical(own.data, reference.data)
    with pytest.raises(ForecastError):
        simulate(bundle, dataset, scenario, draws=10, seed=4, inputs=scenario.sample(9))

    # The model's own positions (no stack): there the scenario's inputs move the shares.
    monkeypatch.setattr("forecast.pipeline.simulate.published_stack_weight", lambda: None)
    runner = SimulationSensitivity(bundle, dataset, scenario,
                                   ["aws_revenue:2030", "thesis:aws_rental_run_rate_50b_by_2030"],
                                   draws=200, seed=11)
    chosen = ["accelerator_usd_billions_per_gw", "chip_life_years", "mfu_aws"]
    table = runner.tornado("aws_revenue:2030", inputs=chosen)
    assert sorted(table["input"]) == sorted(chosen)
    assert runner.runs == 1 + 2 * len(chosen)
    # AWS's MFU sets Trainium's cost per useful FLOP, hence AWS's target position.
    assert table.set_index("input").loc["mfu_aws", "swing"] > 0
    assert table["swing"].iloc[0] > 0
    runs = runner.runs
    thesis = runner.tornado("thesis:aws_rental_run_rate_50b_by_2030", inputs=chosen)
    assert runner.runs == runs  # both outputs read off the same runs
    assert thesis["output_at_low"].between(0, 1).all()
    # A fresh runner reproduces a swing exactly.
    again = SimulationSensitivity(bundle, dataset, scenario, ["aws_revenue:2030"], draws=200,
                                  seed=11)
    top = table.iloc[0]
    value = again.evaluator()({top["input"]: top["high_value"]})
    assert value == top["output_at_high"]


@pytest.mark.slow
def test_cli_sensitivity_prints_the_tornado(shipped_store, capsys):
    from cli import main

    # Serial (--workers 0): the runs on a cluster give these numbers too
    # (tests/reporting/test_sweep_outputs.py), and a local cluster started beside the test
    # workers would only compete with them for the cores.
    def run(*args: str) -> tuple[int, str, str]:
        code = main(["sensitivity", "--artifacts", str(shipped_store), "--draws", "150",
                     *args])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, err = run("--scenario", "base", "--metric", "aws_revenue:2030", "--workers", "0")
    assert code == 0, err
    assert "aws_rental_revenue:2030 (median)" in out
    assert "swing" in out and "spearman" in out
    scenario = load_scenario("base")
    for name in scenario.input_names:
        assert name in out
    # Names are checked against the first simulated forecast.
    code, out, err = run("--metric", "revenue:2030")
    assert code == 2, out
    assert err.strip().startswith("error: unknown metric 'revenue'")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [
    ["sensitivity", "--scenario", "nope", "--metric", "tam:2030"],
    ["sensitivity", "--metric", "aws_revenue"],
    ["sensitivity", "--metric", "tam:2030", "--stat", "mode"],
    ["sensitivity", "--metric", "tam:2030", "--draws", "-1"],
    ["sensitivity"],
])
def test_cli_sensitivity_bad_input_fails_fast(args, capsys):
    from cli import main

    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and len(err.strip().splitlines()) == 1
