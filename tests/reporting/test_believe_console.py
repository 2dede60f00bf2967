"""``cli.py believe`` and the report's "What would I have to believe?" section: text, JSON
and blocks on a synthetic forecast (fast), bad input (no fit needed) and, on the session's
fit store, the command end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.pipeline.believe import Belief, believe
from forecast.reporting.console.believe import belief_text, decided_text, shift_text
from forecast.reporting.report.believe_section import BELIEVE_ROWS, _thesis, belief_chart
from forecast.reporting.report.blocks import Image, ReportBuilder, Table
from forecast.scenarios.distributions import InputSpec
from forecast.scenarios.theses import ThesisSpec

ROOT = Path(__file__).resolve().parents[2]
N = 2000
SPECS = {f"x{k}": InputSpec.from_dict(f"x{k}", {"dist": "normal", "mu": 0.0, "sigma": 1.0,
                                                "unit": "units", "rationale": "test"})
         for k in range(10)}


def synthetic_belief(weight: float = 1.0, threshold: float = 1.0) -> Belief:
    """x0 alone decides ``weight * x0 + noise >= threshold``; x1..x9 are bystanders."""
    rng = np.random.default_rng(4)
    inputs = pd.DataFrame(rng.standard_normal((N, len(SPECS))), columns=list(SPECS))
    noise = rng.standard_normal(N) * 0.3

    def model(frame: pd.DataFrame) -> np.ndarray:
        return weight * frame["x0"].to_numpy() + noise

    thesis = ThesisSpec(name="synthetic", statement="x0 is large.", metric="tam",
                        period="2030", comparator=">=", threshold=threshold)
    belief = believe(inputs, model(inputs), thesis, SPECS, model, posterior_ess=500.0)
    belief.meta.update(scenario="demo", fit_id="F", seed=1, draws=N, horizon=2030,
                       posterior_ess=500.0, input_specs=SPECS)
    return belief


def test_the_table_ranks_the_decider_and_states_the_shift() -> None:
    belief = synthetic_belief()
    text = belief_text(belief)
    lines = text.splitlines()
    assert lines[0].startswith("thesis synthetic, scenario demo, fit F, 2000 paths, seed 1")
    assert f"P = {belief.probability:.3f} +- {belief.mcse:.3f}" in text
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "input"])
    assert lines[header + 1].split()[:2] == ["1", "x0"]
    assert "the rest is the fitted models' posterior" in text
    assert "smallest shift found that lifts P above 0.5" in text
    assert "x0: median 0 -> " in text
    assert "(0 more inputs" not in text  # all ten inputs fit in the table


def test_a_thesis_reading_the_past_says_no_input_moves_it() -> None:
    import dataclasses

    import xarray as xr

    from forecast.pipeline.believe_run import past_quarters

    paths = xr.Dataset(coords={"quarter": ["2025Q4", "2026Q1"]})
    gain = ThesisSpec(name="gain", statement="s", metric="share", vendor="aws", period="2030",
                      comparator=">=", threshold=0.03, change_from="2025")
    assert past_quarters(paths, gain) == ["2025Q1", "2025Q2", "2025Q3"]
    assert past_quarters(paths, dataclasses.replace(gain, change_from=None)) == []
    belief = synthetic_belief()
    belief.thesis = dataclasses.replace(belief.thesis, change_from="2025")
    belief.meta["in_sample_quarters"] = past_quarters(paths, gain)
    text = belief_text(belief)
    assert ">= 1 in 2030 less its value in 2025: P = " in text
    assert ("2025Q1..2025Q3 are the fitted posterior of quarters the data reached: no scenario "
            "input moves them") in text
    assert "fitted posterior of quarters" not in belief_text(synthetic_belief())
    # A thesis no path meets (the 2025 TAM at most USD 50 bn) has no 0/1 variance to explain.
    never = synthetic_belief(threshold=100.0)
    assert never.probability == 0.0
    assert "its 0/1 outcome is the same in every path" in decided_text(never)
    assert "nan" not in belief_text(never)


def test_json_has_every_input_and_no_nan() -> None:
    belief = synthetic_belief()
    summary = json.loads(belief_text(belief, "json"))
    assert summary["thesis"] == "synthetic" and summary["decided_by"] == "inputs"
    assert [row["input"] for row in summary["inputs"]][0] == "x0"
    assert len(summary["inputs"]) == len(SPECS) and summary["inputs"][0]["unit"] == "units"
    shift = summary["smallest_shift"]
    assert shift["reached"] and shift["probability"] > 0.5
    assert shift["moves"][0]["input"] == "x0"
    assert summary["probability"] == belief.probability
    assert "NaN" not in belief_text(belief, "json")


def test_a_thesis_the_posterior_decides_says_so() -> None:
    belief = synthetic_belief(weight=0.05, threshold=0.8)
    assert "the posterior of the fitted models, not the scenario's inputs" in decided_text(
        belief)
    lines = shift_text(belief)
    assert lines[0].startswith(("no shift within the inputs' ranges",
                                "no input goes with the thesis"))


def test_the_report_part_shows_the_table_the_chart_and_the_numbers() -> None:
    belief = synthetic_belief()
    b = ReportBuilder()
    _thesis(b, belief)
    tables = [block for block in b.blocks if isinstance(block, Table)]
    assert len(tables[0].rows) == BELIEVE_ROWS
    assert tables[0].rows[0][1].text == "x0"
    assert tables[1].rows[0][0].text == "x0"  # the move
    images = [block for block in b.blocks if isinstance(block, Image)]
    assert images[0].name == "believe_synthetic.png" and images[0].png.startswith(b"\x89PNG")
    assert b.numbers["believe:synthetic:probability"] == belief.probability
    assert b.numbers["believe:synthetic:x0:shift"] == belief.shifts["shift"].iloc[0]
    assert b.numbers["believe:synthetic:probability_after_shift"] > 0.5
    fig, (left, right) = belief_chart(belief)
    assert len(left.patches) == BELIEVE_ROWS and right.get_ylim() == (0.0, 1.0)


@pytest.mark.parametrize(("args", "message"), [
    (["believe", "no_such_thesis", "--scenario", "base"], "has no thesis 'no_such_thesis'"),
    (["believe", "trainium3_half_cost", "--scenario", "nope"], "no scenario named 'nope'"),
    (["believe", "trainium3_half_cost", "--draws", "0"], "--draws"),
    (["believe", "trainium3_half_cost", "--format", "xml"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, capsys, tmp_path) -> None:
    from cli import main

    # An empty store: each is refused before any fit would be made.
    assert main([*args, "--artifacts", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and len(err.strip().splitlines()) == 1
    assert message in err


@pytest.mark.slow
def test_cli_believe_on_the_fit_store_reproduces_the_api(run_cli, shipped_store) -> None:
    from forecast.pipeline.believe_run import belief_summary, run_believe

    command = ["believe", "trainium3_half_cost", "--scenario", "bear", "--draws", "400",
               "--seed", "3", "--artifacts", shipped_store]
    result = run_cli(*command, "--format", "json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    api = belief_summary(run_believe("trainium3_half_cost", "bear", draws=400, seed=3,
                                     root=shipped_store))
    assert shown == json.loads(json.dumps(api, default=str))
    # The thesis metric is a cost ratio: the scenario's prices and utilisations decide it.
    assert shown["decided_by"] == "inputs"
    table = run_cli(*command)
    assert table.returncode == 0, table.stderr
    assert f"P = {shown['probability']:.3f}" in table.stdout


@pytest.mark.slow
def test_the_report_section_shows_what_the_command_and_the_forecast_give(shipped_store) -> None:
    from forecast.pipeline.believe_run import run_believe
    from forecast.pipeline.runner import load_run, run_scenario
    from forecast.reporting.report.believe_section import believe as believe_section

    result = run_scenario("base", draws=300, root=shipped_store)
    scenario, dataset, bundle = load_run("base", root=shipped_store, fit_id=result.fit_id)
    b = ReportBuilder()
    believe_section(b, result, scenario, dataset, bundle, draws=300)
    theses = result.theses().set_index("name")
    for name in scenario.theses:
        if isinstance(theses.loc[name].get("note"), str):
            continue
        shown = b.numbers[f"believe:{name}:probability"]
        # The same paths as the forecast's, and what `cli.py believe` prints.
        assert shown == theses.loc[name, "probability"]
        command = run_believe(name, "base", draws=300, seed=result.seed, root=shipped_store)
        assert shown == command.probability
        assert (b.numbers[f"believe:{name}:probability_after_shift"]
                == command.search.probability)


@pytest.mark.slow
def test_a_by_thesis_and_a_past_period_from_a_stored_fit(shipped_store) -> None:
    from forecast.core.errors import ForecastError
    from forecast.pipeline.believe_run import believe_from_fit
    from forecast.pipeline.runner import load_run
    from forecast.pipeline.simulate import simulate
    from forecast.pipeline.theses import evaluate_thesis

    scenario, dataset, bundle = load_run("base", root=shipped_store)
    # Believe regresses the metric on every varying input: 4 paths per input and intercept
    # (312 for the base scenario's 77), with a little room for inputs to come.
    paths_asked = 400
    table = {"statement": "s", "metric": "tam", "aggregate": "sum", "comparator": ">=",
             "threshold": 300.0}
    by = ThesisSpec(name="tam_300_by_2029", period="2029", when="by", **table)
    belief = believe_from_fit(bundle, dataset, scenario, by, draws=paths_asked, seed=2)
    within = ThesisSpec(name="tam_300_in_2029", period="2029", **table)
    assert belief.probability >= believe_from_fit(bundle, dataset, scenario, within,
                                                  draws=paths_asked, seed=2).probability
    paths = simulate(bundle, dataset, scenario, draws=paths_asked, seed=2).data
    assert belief.probability == evaluate_thesis(paths, by)["probability"]
    # A past year of the TAM reads the fitted posterior: no input moves it.
    past = ThesisSpec(name="past", period="2024", **table)
    fitted = believe_from_fit(bundle, dataset, scenario, past, draws=paths_asked, seed=2)
    assert fitted.meta["in_sample_quarters"] == [f"2024Q{k}" for k in range(1, 5)]
    assert fitted.decided_by == "posterior"
    # A past year of a metric without in-sample paths is refused, with the reason.
    revenue = ThesisSpec(name="revenue", period="2024", **{**table, "metric":
                                                           "aws_rental_revenue"})
    with pytest.raises(ForecastError, match="no in-sample posterior of aws_rental_revenue"):
        believe_from_fit(bundle, dataset, scenario, revenue, draws=paths_asked, seed=2)
