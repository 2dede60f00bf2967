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


#: Per-draw values the forecast keeps beside its paths (no quarter: nothing a thesis reads):
#: each chip's unit cost, each AWS generation's, the fleet's quarterly survival.
PER_DRAW = {"chip_unit_cost", "aws_unit_cost", "aws_survival", "aws_pflops"}


def _assigned(tree: ast.AST, containers: set[str]) -> set[str]:
    """Names assigned as ``container["name"]`` (or ``container[f"..."]``, unparsed) or as
    keywords of an ``.assign(...)`` call (``**{f"...": ...}`` unparsed, ``**helper(...)`` the
    keys of the dict the helper returns)."""
    names = set()
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "assign":
            for keyword in node.keywords:
                if keyword.arg is not None:
                    names.add(keyword.arg)
                elif isinstance(keyword.value, ast.DictComp):
                    names.add(ast.unparse(keyword.value.key))
                elif isinstance(keyword.value, ast.Call):  # **helper(...): its dict's keys
                    helper = functions[keyword.value.func.id]
                    returned = [n.value for n in ast.walk(helper)
                                if isinstance(n, ast.Return) and isinstance(n.value, ast.Dict)]
                    names |= {key.value for key in returned[-1].keys}
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            for item in target.elts if isinstance(target, ast.Tuple) else [target]:
                if (isinstance(item, ast.Subscript) and isinstance(item.value, ast.Name)
                        and item.value.id in containers):
                    key = item.slice
                    names.add(key.value if isinstance(key, ast.Constant) else ast.unparse(key))
    return names


def _spend_forecast_variables() -> set[str]:
    """The variables the spend model's forecast returns: its Dataset's (built in ``forecast``
    or ``_spend_dataset``) and AWS's paths."""
    tree = ast.parse((ROOT / "forecast" / "models" / "spend" / "fitted.py").read_text())
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    names = set()
    dataset_nodes = [*ast.walk(functions["forecast"]), *ast.walk(functions["_spend_dataset"])]
    for node in dataset_nodes:
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "Dataset"
                and node.args and isinstance(node.args[0], ast.Dict)):
            names |= {key.value for key in node.args[0].keys if isinstance(key, ast.Constant)}
    returned = [node.value for node in ast.walk(functions["_aws_paths"])
                if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict)]
    names |= {key.value for key in returned[-1].keys}
    return names - {"generation"}  # a coordinate, popped before the variables are set


def test_forecast_metrics_are_the_variables_simulate_returns():
    import numpy as np

    from forecast.economics.bounds import BOUND_INPUTS, bound_paths

    source = SIMULATE.read_text()
    names = _assigned(_simulate_tree(), {"data", "paths"}) | _spend_forecast_variables()
    # The custom part of "other" is folded into custom_silicon_spend and dropped.
    assert '.drop_vars("custom_other")' in source
    names.discard("custom_other")
    # One path per bound: bound_funding, bound_power, bound_supply.
    assert "f'bound_{name}'" in names and "for name, values in bounds.items()" in source
    bounds = bound_paths({name: np.ones(2) for names in BOUND_INPUTS.values() for name in names},
                         np.array([2026.125]))
    names = (names - {"f'bound_{name}'"}) | {f"bound_{name}" for name in bounds}
    assert names == set(FORECAST_METRICS) | PER_DRAW
    assert PER_DRAW.isdisjoint(METRIC_DIMS)


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
    from forecast.models.price import data as price_data
    from forecast.models.spend import math as spend_math

    assert spend_math.VENDORS == VENDOR_GROUPS
    # The price model keeps the custom part of "other" apart; every forecast path folds it in.
    assert set(price_data.VENDORS) == set(DATA_VENDOR_GROUPS)
    assert VENDOR_METRICS == ("share", "spend")


def test_every_read_input_has_its_support():
    from forecast.core.input_support import FRACTION, POSITIVE, QUARTER
    from forecast.economics.chip_costs import UNIT_COST_INPUTS

    # No model reads an input beyond the required ones: the spend model's unit-cost priors
    # are matched to required inputs (SpendModel.scenario_priors).
    assert MODEL_INPUTS == ()
    assert set(UNIT_COST_INPUTS.values()) <= set(REQUIRED_INPUTS)
    assert all(INPUT_SUPPORT[name] is POSITIVE for name in UNIT_COST_INPUTS.values())
    assert set(INPUT_SUPPORT) == set(REQUIRED_INPUTS) | set(MODEL_INPUTS)
    assert {name for name, support in INPUT_SUPPORT.items() if support is QUARTER} == set(
        QUARTER_INPUTS)
    assert all(INPUT_SUPPORT[f"mfu_{group}"] is FRACTION for group in VENDOR_GROUPS)


def test_in_sample_metrics_are_the_history_simulate_keeps():
    import numpy as np
    import pandas as pd
    import xarray as xr

    from forecast.core.scenario_contract import IN_SAMPLE_METRICS
    from forecast.pipeline import simulate

    vendors = list(VENDOR_GROUPS)
    rng = np.random.default_rng(0)
    spend = rng.lognormal(1.0, 0.5, size=(6, 3, 5))
    custom_other = 0.5 * spend[:, :, 4]

    class Spend:  # the spend model's forecast, as simulate's _spend_paths calls it
        generations = pd.DataFrame({"generation": ["Trainium2"], "ramp_midpoint": [0.0],
                                    "fp8_dense_tflops": [1299.0]})

        def forecast(self, quarters, **kwargs):
            assert kwargs["include_history"]
            return xr.Dataset({"spend": (("draw", "quarter", "vendor"), spend),
                               "tam": (("draw", "quarter"), spend.sum(axis=2)),
                               "custom_other": (("draw", "quarter"), custom_other)},
                              coords={"quarter": quarters, "vendor": vendors})

    class Scenario:
        roadmap = ()

    inputs = pd.DataFrame({"mfu_aws": [0.4] * 6, "mfu_nvidia": [0.5] * 6,
                           "aws_rental_revenue_ceiling_usd_billions": [50.0] * 6})
    quarters = ["2025Q1", "2025Q2", "2025Q3"]
    ones = xr.DataArray(np.ones((6, 3, 5)), dims=("draw", "quarter", "vendor"),
                        coords={"quarter": quarters, "vendor": vendors})
    costs = xr.Dataset({"vendor_cost": ones, "price_per_pflop": 7000.0 * ones})
    paths = simulate._spend_paths(Spend(), Scenario(), inputs, costs, quarters, 6, 0, None,
                                  None, np.zeros(6))
    assert set(IN_SAMPLE_METRICS) <= set(paths.data_vars) and "custom_other" not in paths
    assert set(IN_SAMPLE_METRICS) <= set(FORECAST_METRICS)
    np.testing.assert_allclose(paths["share"].sum("vendor"), 1.0)
    np.testing.assert_allclose(paths["custom_silicon_spend"],
                               spend[:, :, 2] + spend[:, :, 3] + custom_other)
    # The forecast keeps exactly these over the spend model's window.
    assert ("in_sample=xr.Dataset({name: history[name] for name in IN_SAMPLE_METRICS})"
            in SIMULATE.read_text())


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
    from forecast.economics.bounds import BOUND_INPUTS
    from forecast.economics.chip_costs import TCO_INPUTS, UNIT_COST_INPUTS
    from forecast.economics.roadmap import roadmap_inputs
    from forecast.scenarios import load_scenario

    base = load_scenario("base")

    read = set()
    for node in ast.walk(_simulate_tree()):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_column":
            name = node.args[1]
            if isinstance(name, ast.Constant):
                read.add(name.value)
            else:  # f"mfu_{group}" over the vendor groups, each bound's inputs, AWS's
                # [price_erosion] input (the fleet's price fall)
                assert ast.unparse(name) in ("f'mfu_{group}'", "name",
                                             "scenario.price_erosion['aws']")
    source = SIMULATE.read_text()
    assert "for names in BOUND_INPUTS.values()" in source  # bound_paths' inputs
    read |= {name for names in BOUND_INPUTS.values() for name in names}
    # The cost paths of the forecast run over the spend model's vendors: the five groups
    # (test_vendor_groups_are_the_models_vendor_axis).
    assert "vendors=VENDORS" in source
    groups = VENDOR_GROUPS
    read |= {f"mfu_{group}" for group in groups}
    read |= set(TCO_INPUTS) | {base.price_erosion[group] for group in groups}
    # The spend model's unit-cost priors and the cost paths' unit costs.
    read |= set(UNIT_COST_INPUTS.values())
    # The roadmaps' inputs are required through the scenario's own [roadmap] table (checked
    # on loading); the contract keeps the ones every scenario had before roadmaps existed.
    roadmap = set(roadmap_inputs(base.roadmap, groups))
    erosion = {base.price_erosion[group] for group in groups}
    assert set(REQUIRED_INPUTS) <= read | roadmap
    assert read - set(REQUIRED_INPUTS) <= erosion
    assert set(QUARTER_INPUTS) <= {chip.launch for chip in base.roadmap}
    # The list prices' utilisation: the groups of the priced chips (no "other" chip).
    assert re.search(r"for group in \("
                     + r",\s*".join(f'"{g}"' for g in groups[:4]) + r"\)", source)


def test_required_readings_are_the_number_and_every_phrase_of_the_data():
    from forecast.data.dataset import load_dataset
    from forecast.models.spend import statements as spend_statements

    stated = load_dataset(cache_dir=None).aws_statements
    run_rates = stated[stated["observes"] == "rental_run_rate"]
    phrases = {str(q).strip() for q, v in zip(run_rates["value_qualifier"],
                                              run_rates["value"], strict=True) if v != v}
    assert phrases and set(REQUIRED_READINGS) == phrases | {NUMBER_READING}
    # The spend model reads the contract's key; the scenario layer holds phrases to its unit.
    assert spend_statements.NUMBER_READING is NUMBER_READING
    assert all(reading.unit == READING_UNIT for name, reading in
               list_scenarios()[0].readings.items() if name != NUMBER_READING)
    assert set(spend_statements.RUN_RATE_READINGS) == phrases  # its no-scenario default
    # A phrase without a reading is skipped: the readings a scenario gives are what it reads.
    base = {name: (r.lower, r.upper) for name, r in list_scenarios()[0].readings.items()}
    rows = spend_statements.statement_rows(run_rates, base)
    assert len(rows) == len(run_rates)
    assert spend_statements.statement_rows(
        run_rates, {NUMBER_READING: base[NUMBER_READING]}).empty


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
     "unknown metric 'profit': the forecast produces tam, tam_demand, share, spend"),
    (lambda t: t.replace("[priors.spend]\n", "[priors.spend]\nelasticity = "
                         '{ dist = "normal", mu = 0, sigma = 1 }\n', 1),
     "priors.spend.elasticity: unknown prior of the spend model"),
    (lambda t: t.replace("[priors.spend]\n", "[priors.spend]\ndeviation_sd = "
                         '{ dist = "pert", lower = 0, mode = 1, upper = 2 }\n', 1),
     "priors.spend.deviation_sd.dist: pert is not a prior the models can build"),
    # The share and market models are gone: their priors are refused, not ignored.
    (lambda t: t + '\n[priors.share]\nadjustment_speed = { dist = "beta", alpha = 2, '
                   'beta = 2 }\n', "priors.share: unknown key (allowed: price, spend, diffusion)"),
    (lambda t: t + '\n[priors.market]\nsigma_level = { dist = "halfnormal", sigma = 1 }\n',
     "priors.market: unknown key (allowed: price, spend, diffusion)"),
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
