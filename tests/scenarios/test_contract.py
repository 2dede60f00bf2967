"""Tests of the scenario/forecast contract (forecast.core.scenario_contract and
forecast.scenarios.contract): ``scenarios validate`` rejects what ``forecast`` would reject, and
each list of names equals the code that uses it."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

from forecast.core.errors import ScenarioError
from forecast.core.scenario_contract import (
    DATA_VENDOR_GROUPS,
    FORECAST_METRICS,
    INPUT_SUPPORT,
    METRIC_DIMS,
    MODEL_INPUTS,
    MODEL_PRIORS,
    NUMBER_READING,
    PRICED_CHIPS,
    PRIOR_DISTRIBUTIONS,
    QUARTER_INPUTS,
    RATIO_METRICS,
    READING_UNIT,
    REQUIRED_INPUTS,
    REQUIRED_READINGS,
    SETTINGS,
    THESIS_METRICS,
    VENDOR_GROUPS,
    VENDOR_METRICS,
)
from forecast.scenarios import DEFAULT_SCENARIOS_DIR, list_scenarios, load_scenario_file

ROOT = Path(__file__).resolve().parents[2]
SIMULATE = ROOT / "forecast" / "pipeline" / "simulate.py"


# --------------------------------------------------------------------------- the lists


def _simulate_tree() -> ast.Module:
    return ast.parse(SIMULATE.read_text())


def test_forecast_metrics_are_the_variables_simulate_returns():
    names = set()
    for node in ast.walk(_simulate_tree()):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "Dataset" and node.args
                and isinstance(node.args[0], ast.Dict)):
            names |= {key.value for key in node.args[0].keys if isinstance(key, ast.Constant)}
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                        and target.value.id == "data"
                        and isinstance(target.slice, ast.Constant)):
                    names.add(target.slice.value)
    assert names == set(FORECAST_METRICS)


def test_ratio_metrics_are_derived_by_the_thesis_evaluator():
    from forecast.pipeline import theses

    source = inspect.getsource(theses.metric_values)
    assert all(f'"{metric}"' in source for metric in RATIO_METRICS)
    # A thesis selects a vendor and sums generations; one path per chip it cannot pick.
    assert '"vendor" in values.dims' in inspect.getsource(theses._select)
    assert '"generation" in values.dims' in inspect.getsource(theses._select)
    assert set(METRIC_DIMS) == set(FORECAST_METRICS)
    readable = {m for m in FORECAST_METRICS if set(METRIC_DIMS[m]) <= {"vendor", "generation"}}
    assert set(THESIS_METRICS) == readable | set(RATIO_METRICS)
    assert {"price", "cost_per_pflop_hour", "vendor_cost"}.isdisjoint(THESIS_METRICS)


def test_vendor_groups_are_the_models_vendor_axis():
    from forecast.models.market import data as market_data

    from forecast.models.price import data as price_data

    assert market_data.VENDORS == VENDOR_GROUPS
    # The price model keeps the custom part of "other" apart; every forecast path folds it in.
    assert set(price_data.VENDORS) == set(DATA_VENDOR_GROUPS)
    assert VENDOR_METRICS == ("share", "spend")


def test_every_read_input_has_its_support():
    from forecast.models.market.model import CEILING_INPUT

    from forecast.core.input_support import FRACTION, QUARTER

    assert MODEL_INPUTS == (CEILING_INPUT,)
    assert set(INPUT_SUPPORT) == set(REQUIRED_INPUTS) | set(MODEL_INPUTS)
    assert {name for name, support in INPUT_SUPPORT.items() if support is QUARTER} == set(
        QUARTER_INPUTS)
    assert all(INPUT_SUPPORT[f"mfu_{group}"] is FRACTION for group in VENDOR_GROUPS)


def test_in_sample_metrics_are_the_history_simulate_keeps():
    import numpy as np
    import xarray as xr

    from forecast.core.scenario_contract import IN_SAMPLE_METRICS
    from forecast.pipeline.simulate import in_sample_paths

    vendors = ["nvidia", "amd", "google", "aws", "other"]
    rng = np.random.default_rng(0)
    spend = rng.lognormal(1.0, 0.5, size=(6, 3, 5))
    history = xr.Dataset({"spend": (("draw", "quarter", "vendor"), spend),
                          "total": (("draw", "quarter"), spend.sum(axis=2)),
                          "custom_other": (("draw", "quarter"), 0.5 * spend[:, :, 4])},
                         coords={"quarter": ["2025Q1", "2025Q2", "2025Q3"], "vendor": vendors})
    data = in_sample_paths(history, vendors)
    assert tuple(data.data_vars) == IN_SAMPLE_METRICS
    assert set(IN_SAMPLE_METRICS) <= set(FORECAST_METRICS)
    np.testing.assert_allclose(data["share"].sum("vendor"), 1.0)
    np.testing.assert_allclose(data["custom_silicon_spend"],
                               spend[:, :, 2] + spend[:, :, 3] + 0.5 * spend[:, :, 4])


def test_simulate_prices_the_contract_chips():
    from forecast.pipeline import simulate

    assert simulate.PRICED_CHIPS is PRICED_CHIPS


def test_model_priors_are_each_models_default_priors():
    from forecast.models.registry import MODELS

    assert set(MODEL_PRIORS) == set(MODELS)
    for name, model in MODELS.items():
        assert MODEL_PRIORS[name] == tuple(model.default_priors), name


def test_prior_distributions_are_those_the_prior_builder_knows():
    from forecast.models import priors

    assert tuple(priors._PRIOR_FORMS) == PRIOR_DISTRIBUTIONS


def test_required_inputs_are_every_input_the_forecast_reads():
    from forecast.economics.chip_costs import TCO_INPUTS
    from forecast.economics.cost_paths import SHIPPED_PRICE_EROSION, SHIPPED_ROADMAP
    from forecast.economics.roadmap import roadmap_inputs

    read = set()
    for node in ast.walk(_simulate_tree()):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_column":
            name = node.args[1]
            if isinstance(name, ast.Constant):
                read.add(name.value)
            else:  # f"mfu_{group}" over the vendor groups
                assert ast.unparse(name) == "f'mfu_{group}'"
    # The cost paths of the forecast run over the share model's vendors: the market
    # model's five groups (test_vendor_groups_are_the_models_vendor_axis).
    assert "vendors=share.vendors" in SIMULATE.read_text()
    groups = VENDOR_GROUPS
    read |= {f"mfu_{group}" for group in groups}
    read |= set(TCO_INPUTS) | {SHIPPED_PRICE_EROSION[group] for group in groups}
    # The roadmaps' inputs are required through the scenario's own [roadmap] table (checked
    # on loading); the contract keeps the ones every scenario had before roadmaps existed.
    roadmap = set(roadmap_inputs(SHIPPED_ROADMAP, groups))
    erosion = {SHIPPED_PRICE_EROSION[group] for group in groups}
    assert set(REQUIRED_INPUTS) <= read | roadmap
    assert read - set(REQUIRED_INPUTS) <= erosion
    assert set(QUARTER_INPUTS) <= {chip.launch for chip in SHIPPED_ROADMAP}
    # The list prices' utilisation: the groups of the priced chips (no "other" chip).
    assert re.search(r"for group in \("
                     + r",\s*".join(f'"{g}"' for g in groups[:4]) + r"\)", SIMULATE.read_text())


def test_required_readings_are_the_number_and_every_phrase_of_the_data():
    from forecast.models.market import data as market_data

    from forecast.data.dataset import load_dataset

    silicon = load_dataset(cache_dir=None).aws_custom_silicon
    statements = silicon[silicon["metric"].str.startswith("Trainium business size")
                         & (silicon["unit"] == "USD/year (annualized)")]
    phrases = {str(q).strip() for q, v in zip(statements["value_qualifier"],
                                              statements["value"], strict=True) if v != v}
    assert set(REQUIRED_READINGS) == phrases | {NUMBER_READING}
    # The market model reads the contract's key; the scenario layer holds phrases to its unit.
    assert market_data.NUMBER_READING is NUMBER_READING
    assert all(reading.unit == READING_UNIT for name, reading in
               list_scenarios()[0].readings.items() if name != NUMBER_READING)
    assert set(market_data.QUALITATIVE_BILLIONS) == phrases  # its no-scenario default


def test_settings_are_those_the_forecast_reads():
    from forecast.economics.offers import RAMP_SETTING

    assert SETTINGS == {RAMP_SETTING: "quarters"}
    # simulate passes the scenario's ramp to the cost paths.
    assert f'ramp_quarters=scenario.setting("{RAMP_SETTING}")' in SIMULATE.read_text()


def test_shipped_scenarios_meet_the_contract():
    assert [s.name for s in list_scenarios()] == ["base", "bear", "bull"]
    for scenario in list_scenarios():
        assert set(REQUIRED_READINGS) <= set(scenario.readings)
        assert set(SETTINGS) <= set(scenario.settings)


# --------------------------------------------------------------------------- validation


def _mine(tmp_path: Path, change) -> Path:
    """A copy of base.toml named ``mine``, changed by ``change(text) -> text``."""
    text = (DEFAULT_SCENARIOS_DIR / "base.toml").read_text(encoding="utf-8")
    text = text.replace('name = "base"', 'name = "mine"', 1)
    path = tmp_path / "mine.toml"
    path.write_text(change(text), encoding="utf-8")
    return path


def _without_input(text: str, name: str, table: str = "inputs") -> str:
    start = text.index(f"[{table}.{name}]")
    end = text.index("\n[", start + 1)
    return text[:start] + text[end + 1:]


def test_copy_of_base_validates(tmp_path):
    assert load_scenario_file(_mine(tmp_path, lambda t: t)).name == "mine"


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.replace('metric = "tam"', 'metric = "profit"', 1)
     if 'metric = "tam"' in t else t.replace('metric = "share"', 'metric = "profit"', 1),
     "unknown metric 'profit': the forecast produces tam, share"),
    (lambda t: t.replace("[priors.share]\n", "[priors.share]\nelasticity = "
                         '{ dist = "normal", mu = 0, sigma = 1 }\n', 1),
     "priors.share.elasticity: unknown prior of the share model"),
    (lambda t: t.replace("[priors.share]\n", "[priors.share]\nobs_sd = "
                         '{ dist = "pert", lower = 0, mode = 1, upper = 2 }\n', 1),
     "priors.share.obs_sd.dist: pert is not a prior the models can build"),
    (lambda t: _without_input(t, "overhead_fraction"),
     "inputs: missing input(s) the forecast reads: overhead_fraction"),
    (lambda t: _without_input(_without_input(t, "pue"), "mfu_google"),
     "missing input(s) the forecast reads: mfu_google, pue"),
    (lambda t: t.replace("[inputs.trainium4_launch_quarter]\n",
                         "[inputs.trainium4_launch_quarter_old]\n", 1).replace(
        "[inputs.mfu_nvidia]", '[inputs.trainium4_launch_quarter]\ndist = "normal"\nmu = 8100'
        '\nsigma = 2\nunit = "quarter index"\nrationale = "test"\n\n[inputs.mfu_nvidia]', 1),
     "roadmap.aws.Trainium4.launch: input 'trainium4_launch_quarter' must be a launch "
     "quarter"),
    (lambda t: t.replace('amd = "amd_price_erosion"\n', "", 1),
     "price_erosion: no price-erosion input for amd: the forecast erodes every vendor's price"),
    (lambda t: _without_input(t, "amd_price_erosion"),
     "price_erosion.amd: unknown input 'amd_price_erosion' for vendor 'amd'"),
    (lambda t: _without_input(t, "google_tpu_next_fp8_multiplier"),
     "roadmap.google.\"TPU v7 successor\".performance: unknown input "
     "'google_tpu_next_fp8_multiplier'"),
    (lambda t: _without_input(t, '"several billion"', "readings"),
     "readings: missing reading(s) the forecast uses: several billion"),
    (lambda t: _without_input(t, "stated_number", "readings"),
     "readings: missing reading(s) the forecast uses: stated_number"),
    (lambda t: _without_input(t, "new_chip_ramp_quarters", "settings"),
     "settings: missing setting(s) the forecast reads: new_chip_ramp_quarters"),
])
def test_validation_rejects_what_forecast_would_reject(tmp_path, change, message):
    path = _mine(tmp_path, change)
    with pytest.raises(ScenarioError) as caught:
        load_scenario_file(path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


THESIS = """
[theses.extra]
statement = "a claim"
period = "2030"
comparator = "<="
threshold = 0.7
"""


@pytest.mark.parametrize(("extra", "message"), [
    ('metric = "share"\n', "theses.extra.vendor: metric 'share' has one path per vendor"),
    ('metric = "spend"\n', "theses.extra.vendor: metric 'spend' has one path per vendor"),
    ('metric = "cost_per_pflop_hour_ratio"\n',
     "theses.extra.numerator: metric 'cost_per_pflop_hour_ratio' is a ratio"),
    ('metric = "cost_per_pflop_hour_ratio"\nnumerator = "TPU v7 (Ironwood)"\n'
     'denominator = "B200"\n', "theses.extra.numerator: the forecast prices only"),
    ('metric = "tma"\n', "did you mean 'tam'?"),
])
def test_thesis_the_forecast_cannot_evaluate_is_rejected(tmp_path, extra, message):
    path = _mine(tmp_path, lambda t: t + THESIS + extra)
    with pytest.raises(ScenarioError, match=re.escape(message)):
        load_scenario_file(path)


def test_every_thesis_metric_with_what_it_needs_validates(tmp_path):
    extra = ""
    for metric in THESIS_METRICS:
        extra += THESIS.replace("extra", f"t_{metric}") + f'metric = "{metric}"\n'
        if metric in ("share", "spend"):
            extra += 'vendor = "aws"\n'
        if metric in RATIO_METRICS:
            extra += 'numerator = "Trainium3"\ndenominator = "B200"\n'
    scenario = load_scenario_file(_mine(tmp_path, lambda t: t + extra))
    assert {t.metric for t in scenario.theses.values()} == set(THESIS_METRICS)


def test_cli_validate_rejects_the_file_in_one_line_with_exit_2(tmp_path):
    path = _mine(tmp_path, lambda t: _without_input(t, "pue"))
    result = subprocess.run([sys.executable, "cli.py", "scenarios", "validate", str(path)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "missing input(s) the forecast reads: pue" in result.stderr
    assert "Traceback" not in result.stderr
