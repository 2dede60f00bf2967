"""Sensitivity: the pure math on cases with known answers, output specs on synthetic paths,
and (slow) one-at-a-time runs and the CLI on the session's fit store."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats

from forecast.core.errors import ForecastError
from forecast.pipeline.results import Forecast
from forecast.reporting.sensitivity import (
    OutputSpec,
    _Memoised,
    fixed_inputs,
    global_ranking,
    input_ppfs,
    one_at_a_time,
    output_draws,
    output_value,
    parse_output,
    rank_correlations,
    spider,
    standardised_regression,
    tail_attribution,
    tornado,
    tornado_table,
)
from forecast.scenarios import ThesisSpec, load_scenario

ROOT = Path(__file__).resolve().parents[1]
Z90 = stats.norm.ppf(0.9)


def normal(sd: float = 1.0, mu: float = 0.0):
    return lambda u: float(stats.norm.ppf(u, loc=mu, scale=sd))


# --------------------------------------------------------------------------- tornado, spider


def test_tornado_ranks_a_first_for_3a_plus_b():
    table = tornado(lambda p: 3 * p["a"] + p["b"], {"b": normal(), "a": normal()})
    assert list(table["input"]) == ["a", "b"]
    assert list(table["rank"]) == [1, 2]
    a, b = table.iloc[0], table.iloc[1]
    assert a["low_value"] == pytest.approx(-Z90) and a["high_value"] == pytest.approx(Z90)
    assert a["output_at_low"] == pytest.approx(-3 * Z90)
    assert a["output_at_high"] == pytest.approx(3 * Z90)
    assert a["swing"] == pytest.approx(6 * Z90)
    assert b["swing"] == pytest.approx(2 * Z90)
    assert (table["baseline"] == 0).all()


def test_tornado_ranks_by_the_inputs_range_not_the_coefficient():
    # b's P10-P90 range is 4x a's: 1 x 4 beats 3 x 1.
    table = tornado(lambda p: 3 * p["a"] + p["b"], {"a": normal(), "b": normal(sd=4.0)})
    assert list(table["input"]) == ["b", "a"]


def test_tornado_swing_is_absolute_and_keeps_sign_in_outputs():
    table = tornado(lambda p: -5 * p["a"] + 0 * p["c"], {"a": normal(), "c": normal()})
    first = table.iloc[0]
    assert first["input"] == "a" and first["output_at_low"] > first["output_at_high"]
    assert first["swing"] == pytest.approx(10 * Z90)
    assert table.iloc[1]["swing"] == 0


def test_one_at_a_time_holds_the_other_inputs_at_their_medians():
    seen = []

    def evaluate(point):
        seen.append(dict(point))
        return 0.0

    ppfs = {"a": normal(mu=10.0), "b": normal(mu=-2.0, sd=3.0)}
    frame = one_at_a_time(evaluate, ppfs, (10, 90))
    assert len(frame) == 4 and len(seen) == 4
    for point, row in zip(seen, frame.itertuples(index=False), strict=True):
        other = "b" if row.input == "a" else "a"
        assert point[other] == pytest.approx({"a": 10.0, "b": -2.0}[other])
        assert point[row.input] == pytest.approx(row.input_value)
    with pytest.raises(ForecastError):
        one_at_a_time(evaluate, ppfs, (0, 90))


def test_tornado_table_ranks_nan_swings_last_and_keeps_ties_in_order():
    oat = pd.DataFrame({"input": ["x", "x", "y", "y", "z", "z"],
                        "percentile": [10.0, 90.0] * 3,
                        "input_value": [0.0, 1.0] * 3,
                        "output": [np.nan, 1.0, 0.0, 1.0, 2.0, 3.0]})
    table = tornado_table(oat, baseline=0.5)
    assert list(table["input"]) == ["y", "z", "x"]
    assert list(table["rank"]) == [1, 2, 3]


def test_spider_passes_through_the_baseline_at_the_median():
    table = spider(lambda p: p["a"] ** 3 + p["b"], {"a": normal(), "b": normal()},
                   percentiles=(10, 30, 50, 70, 90))
    a = table[table["input"] == "a"]
    assert list(a["percentile"]) == [10, 30, 50, 70, 90]
    assert np.all(np.diff(a["output"]) > 0)
    assert a.loc[a["percentile"] == 50, "change"].item() == pytest.approx(0.0)


# --------------------------------------------------------------------------- global ranking


@pytest.fixture(scope="module")
def draws() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 4000
    return pd.DataFrame({"a": rng.standard_normal(n), "b": rng.standard_normal(n),
                         "c": rng.standard_normal(n), "fixed": np.full(n, 2.0)})


def test_spearman_orders_inputs_by_influence(draws):
    y = 3 * draws["a"] + draws["b"] + 0.5 * np.random.default_rng(1).standard_normal(len(draws))
    rho = rank_correlations(draws, y.to_numpy())
    assert rho["a"] > rho["b"] > 0.2
    assert abs(rho["c"]) < 0.05
    assert np.isnan(rho["fixed"])


def test_standardised_regression_recovers_exact_linear_coefficients(draws):
    y = (3 * draws["a"] + draws["b"]).to_numpy()
    src, r2 = standardised_regression(draws, y)
    assert r2 == pytest.approx(1.0)
    for name, beta in (("a", 3.0), ("b", 1.0)):
        assert src[name] == pytest.approx(beta * draws[name].std(ddof=0) / y.std())
    assert src["c"] == pytest.approx(0.0, abs=1e-10)
    assert np.isnan(src["fixed"])


def test_rank_regression_captures_a_monotone_non_linear_output(draws):
    y = np.exp(3 * draws["a"]).to_numpy()
    _, r2_values = standardised_regression(draws, y)
    srrc, r2_ranks = standardised_regression(draws, y, ranks=True)
    assert r2_ranks == pytest.approx(1.0) and r2_values < 0.6
    assert srrc["a"] == pytest.approx(1.0)


def test_global_ranking_table(draws):
    y = (draws["b"] - 2 * draws["c"]).to_numpy()
    table = global_ranking(draws, y)
    assert list(table["input"][:2]) == ["c", "b"]
    assert table.iloc[0]["spearman"] < 0 and table.iloc[0]["src"] < 0
    assert table.iloc[-1]["input"] == "fixed"
    assert table.attrs["r2_src"] == pytest.approx(1.0)
    assert {"input", "spearman", "src", "srrc", "rank"} <= set(table.columns)


def test_non_finite_outputs_are_dropped_and_bad_shapes_refused(draws):
    y = draws["a"].to_numpy().copy()
    y[:10] = np.nan
    assert rank_correlations(draws, y)["a"] == pytest.approx(1.0)
    with pytest.raises(ForecastError):
        rank_correlations(draws, y[:-1])


# --------------------------------------------------------------------------- tails


def test_bottom_tail_is_attributed_to_the_input_that_drives_it(draws):
    y = (draws["a"] + 0.1 * draws["c"]).to_numpy()
    table = tail_attribution(draws, y, "bottom", 0.1)
    first = table.iloc[0]
    assert first["input"] == "a" and first["rank"] == 1
    assert first["mean_percentile"] < 10 and first["shift"] < -40
    assert first["tail_median"] < first["overall_median"]
    assert first["ks"] > 0.8
    b = table.set_index("input").loc["b"]
    assert abs(b["mean_percentile"] - 50) < 5 and b["ks"] < 0.1
    assert table.attrs["n_tail"] == pytest.approx(0.1 * len(draws), abs=1)
    assert table.attrs["threshold"] == pytest.approx(np.quantile(y, 0.1))


def test_top_tail_tilts_the_other_way(draws):
    y = (-draws["b"]).to_numpy()
    table = tail_attribution(draws, y, "top", 0.2).set_index("input")
    assert table.loc["b", "mean_percentile"] < 15
    assert table.loc["b", "rank"] == 1
    with pytest.raises(ForecastError):
        tail_attribution(draws, y, "middle")
    with pytest.raises(ForecastError):
        tail_attribution(draws, y, "top", 0.7)


# --------------------------------------------------------------------------- outputs


def synthetic_forecast(n: int = 500) -> Forecast:
    rng = np.random.default_rng(3)
    quarters = [f"{y}Q{q}" for y in (2029, 2030) for q in range(1, 5)]
    tam = rng.lognormal(np.log(50), 0.3, size=(n, len(quarters)))
    share = rng.dirichlet([8, 1, 1], size=(n, len(quarters)))
    data = xr.Dataset(
        {"tam": (("draw", "quarter"), tam),
         "share": (("draw", "quarter", "vendor"), share),
         "aws_revenue_topdown": (("draw", "quarter"), tam * share[:, :, 2])},
        coords={"draw": np.arange(n), "quarter": quarters,
                "vendor": ["nvidia", "google", "aws"]})
    thesis = ThesisSpec(name="big_tam", statement="TAM above 220 in 2030", metric="tam",
                        period="2030", comparator=">", threshold=220.0, aggregate="sum")
    return Forecast(data=data, scenario="synthetic", fit_id="none", seed=0,
                    theses_specs=[thesis])


def test_parse_output_forms_and_aliases():
    assert parse_output("aws_revenue:2030") == OutputSpec("aws_revenue_topdown", "2030")
    assert parse_output("custom_silicon:2030Q4", "p90") == OutputSpec(
        "custom_silicon_spend", "2030Q4", stat="p90")
    assert parse_output("share:aws:2030") == OutputSpec("share", "2030", key="aws")
    spec = parse_output("thesis:big_tam")
    assert spec.kind == "thesis" and spec.label == "thesis:big_tam (probability)"
    assert parse_output("aws_revenue:2030").label == "aws_revenue_topdown:2030 (median)"
    for bad in ("aws_revenue", "tam:20300", "thesis:", "a:b:c:d", "tam:2030Q5"):
        with pytest.raises(ForecastError):
            parse_output(bad)
    with pytest.raises(ForecastError):
        parse_output("tam:2030", stat="mode")


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


def test_memoised_model_caches_hashable_calls_and_returns_copies():
    class Model:
        calls = 0
        timeline = ("2025Q3",)

        def forecast(self, end, draws, seed):
            self.calls += 1
            return pd.DataFrame({"x": np.arange(draws) + seed})

        def other(self, values):
            self.calls += 1
            return values

    model = Model()
    wrapped = _Memoised(model, ["forecast", "other"])
    first = wrapped.forecast(end="2030Q4", draws=3, seed=1)
    first.loc[0, "x"] = 99
    second = wrapped.forecast(end="2030Q4", draws=3, seed=1)
    assert model.calls == 1 and second.loc[0, "x"] == 1
    wrapped.forecast(end="2030Q4", draws=3, seed=2)
    assert model.calls == 2
    wrapped.other([1, 2])
    wrapped.other([1, 2])  # unhashable: not cached
    assert model.calls == 4
    assert wrapped.timeline == ("2025Q3",)


# --------------------------------------------------------------------------- slow: real fits


@pytest.mark.slow
def test_one_at_a_time_runs_use_common_random_numbers(fit_store):
    from forecast.pipeline.runner import load_run, run_scenario
    from forecast.pipeline.simulate import simulate
    from forecast.reporting.sensitivity import SimulationSensitivity

    scenario, dataset, bundle = load_run("base", root=fit_store)
    # The hook: the scenario's own draws passed in give the very same paths.
    own = simulate(bundle, dataset, scenario, draws=150, seed=4,
                   inputs=scenario.sample(150, seed=4))
    reference = run_scenario("base", draws=150, seed=4, root=fit_store)
    xr.testing.assert_identical(own.data, reference.data)
    with pytest.raises(ForecastError):
        simulate(bundle, dataset, scenario, draws=10, seed=4, inputs=scenario.sample(9))

    runner = SimulationSensitivity(bundle, dataset, scenario, ["aws_revenue:2030",
                                                               "thesis:aws_revenue_50b_by_2030"],
                                   draws=200, seed=11)
    chosen = ["tam_ceiling_usd_billions", "ecosystem_shift_per_year", "mfu_aws"]
    table = runner.tornado("aws_revenue:2030", inputs=chosen)
    assert sorted(table["input"]) == sorted(chosen)
    assert runner.runs == 1 + 2 * len(chosen)
    # The TAM ceiling is a prior of the fit: with common random numbers it moves nothing.
    ceiling = table.set_index("input").loc["tam_ceiling_usd_billions"]
    assert ceiling["swing"] == 0 and ceiling["output_at_low"] == ceiling["baseline"]
    assert table["swing"].iloc[0] > 0
    runs = runner.runs
    thesis = runner.tornado("thesis:aws_revenue_50b_by_2030", inputs=chosen)
    assert runner.runs == runs  # both outputs read off the same runs
    assert thesis["output_at_low"].between(0, 1).all()
    # A fresh runner reproduces a swing exactly.
    again = SimulationSensitivity(bundle, dataset, scenario, ["aws_revenue:2030"], draws=200,
                                  seed=11)
    top = table.iloc[0]
    value = again.evaluator()({top["input"]: top["high_value"]})
    assert value == top["output_at_high"]


@pytest.mark.slow
def test_cli_sensitivity_prints_the_tornado(fit_store):
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(ROOT / "cli.py"), "sensitivity",
                               "--artifacts", str(fit_store), "--draws", "150", *args],
                              capture_output=True, text=True, cwd=ROOT, timeout=300)

    result = run("--scenario", "base", "--metric", "aws_revenue:2030")
    assert result.returncode == 0, result.stderr
    assert "aws_revenue_topdown:2030 (median)" in result.stdout
    assert "swing" in result.stdout and "spearman" in result.stdout
    scenario = load_scenario("base")
    for name in scenario.input_names:
        assert name in result.stdout
    # Names are checked against the first simulated forecast.
    bad = run("--metric", "revenue:2030")
    assert bad.returncode == 2, bad.stdout
    assert bad.stderr.strip().startswith("error: unknown metric 'revenue'")
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


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
