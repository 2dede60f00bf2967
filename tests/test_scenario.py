"""Tests of scenario files: validation, inheritance, distributions and correlated sampling."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from forecast.core.calendar import parse_period, quarter_index, quarter_label
from forecast.core.errors import ForecastError, ScenarioError
from forecast.scenarios.scenario import (
    DEFAULT_SCENARIOS_DIR,
    InputSpec,
    Scenario,
    ThesisSpec,
    inverse_cdfs,
    list_scenarios,
    load_scenario,
    load_scenario_file,
    scenario_names,
)

REQUIRED_INPUTS = [
    "mfu_nvidia",
    "mfu_amd",
    "mfu_google",
    "mfu_aws",
    "trainium2_price_usd_per_chip_hour",
    "trainium3_price_usd_per_chip_hour",
    "trainium4_launch_quarter",
    "trainium4_fp8_multiplier",
    "trainium4_price_ratio",
    "nvidia_next_launch_quarter",
    "nvidia_next_fp8_multiplier",
    "nvidia_next_price_ratio",
    "nvidia_price_response",
    "electricity_usd_per_kwh",
    "pue",
    "chip_life_years",
    "owner_utilisation",
    "overhead_fraction",
    "tam_ceiling_usd_billions",
    "switching_speed_multiplier",
    "aws_supply_cap_share",
    "ecosystem_shift_per_year",
    "trainium_fleet_growth_per_year",
    "trainium_utilisation",
]

DEFAULT_THESES = {
    "nvidia_share_2030_at_most_70pct",
    "trainium3_half_cost",
    "custom_silicon_50b_by_2027",
    "custom_silicon_50b_by_2030",
    "aws_revenue_50b_by_2030",
}


# --------------------------------------------------------------------------- helpers


def write(directory: Path, name: str, text: str) -> Path:
    """Write a scenario file ``directory/name.toml`` from indented text."""
    path = directory / f"{name}.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def header(
    name: str = "bad",
    extra: str = "",
    extends: str | None = None,
    draws: str = "10",
    seed: str = "1",
) -> str:
    parent = f'extends = "{extends}"\n' if extends else ""
    return (
        f'[scenario]\nname = "{name}"\n{parent}description = "test scenario"\n'
        f"horizon = 2030\ndraws = {draws}\nseed = {seed}\n{extra}\n"
    )


def normal_input(name: str = "a", mu: str = "0.0", sigma: str = "1.0") -> str:
    return (
        f'[inputs.{name}]\ndist = "normal"\nmu = {mu}\nsigma = {sigma}\n'
        f'unit = "x"\nrationale = "test"\n'
    )


QUARTER_INPUT = """
[inputs.q]
dist = "quarter"
values = ["2027Q1", "2027Q2", "2027Q3"]
probs = [0.2, 0.5, 0.3]
unit = "quarter"
rationale = "test"
"""

FIXED_INPUT = """
[inputs.f]
dist = "fixed"
value = 3.0
unit = "x"
rationale = "test"
"""

THESIS = """
[theses.t]
statement = "a claim"
metric = "share"
period = "2030"
comparator = "<="
threshold = 0.7
"""


def load_bad(tmp_path: Path, body: str, **meta: str) -> ScenarioError:
    """Write ``bad.toml`` (header options in ``meta``) and return the error loading it raises."""
    (tmp_path / "bad.toml").write_text(header(**meta) + body, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario("bad", tmp_path)
    return info.value


@pytest.fixture(scope="module")
def base() -> Scenario:
    return load_scenario("base")


# --------------------------------------------------------------------------- shipped files


def test_shipped_scenarios_load_and_define_required_inputs() -> None:
    names = scenario_names()
    assert {"base", "bull", "bear"} <= set(names)
    for scenario in list_scenarios():
        missing = [name for name in REQUIRED_INPUTS if name not in scenario.inputs]
        assert not missing, f"{scenario.name} lacks {missing}"
        for spec in scenario.inputs.values():
            assert spec.unit and spec.rationale, spec.name
        assert set(scenario.theses) >= DEFAULT_THESES
        assert scenario.chip_prices["Trainium2"] == "trainium2_price_usd_per_chip_hour"
        assert scenario.chip_prices["Trainium3"] == "trainium3_price_usd_per_chip_hour"


def test_bull_and_bear_inherit_from_base(base: Scenario) -> None:
    bull, bear = load_scenario("bull"), load_scenario("bear")
    for child in (bull, bear):
        assert child.extends == "base"
        assert child.lineage == ("base",)
        assert list(child.inputs) == list(base.inputs)  # overrides keep the parent's order
        assert child.inputs["pue"] == base.inputs["pue"]
        assert child.theses == base.theses
        assert child.priors == base.priors
        assert (child.horizon, child.draws, child.seed) == (base.horizon, base.draws, base.seed)
        assert child.digest() != base.digest()
    # Bull favours AWS, bear the opposite.
    for name in ("mfu_aws", "switching_speed_multiplier", "aws_supply_cap_share"):
        assert bear.inputs[name].median() < base.inputs[name].median() < bull.inputs[name].median()
    launch = "trainium4_launch_quarter"
    assert (
        bull.inputs[launch].median() < base.inputs[launch].median() < bear.inputs[launch].median()
    )


def test_base_priors_and_theses(base: Scenario) -> None:
    decay = base.prior("price", "decay_mu")
    assert decay is not None and decay.dist == "normal"
    assert decay.params["mu"] == pytest.approx(-0.30)
    assert set(base.priors["share"]) == {"price_coefficient", "ecosystem_nvidia"}
    assert base.prior("share", "missing") is None
    half = base.theses["trainium3_half_cost"]
    assert (half.metric, half.comparator, half.threshold) == (
        "cost_per_pflop_hour_ratio",
        "<=",
        0.5,
    )
    assert (half.numerator, half.denominator) == ("Trainium3", "H100 SXM5 80GB")
    share = base.theses["nvidia_share_2030_at_most_70pct"]
    assert (share.vendor, share.period_kind, share.aggregate) == ("nvidia", "year", "mean")
    revenue = base.theses["aws_revenue_50b_by_2030"]
    assert (revenue.aggregate, revenue.comparator, revenue.threshold) == ("sum", ">=", 50.0)


def test_digest_is_stable(base: Scenario) -> None:
    assert load_scenario("base").digest() == base.digest()


def test_to_table(base: Scenario) -> None:
    table = base.to_table()
    assert list(table["input"]) == list(base.inputs)
    expected = {"input", "dist", "params", "unit", "median", "p10", "p90", "summary", "rationale"}
    assert expected <= set(table.columns)
    row = table.set_index("input").loc["mfu_aws"]
    assert row["median"] == pytest.approx(base.inputs["mfu_aws"].median())
    assert row["p10"] < row["median"] < row["p90"]
    assert row["params"] == "alpha=4.5, beta=10.5"
    launch = table.set_index("input").loc["trainium4_launch_quarter"]
    assert launch["summary"].startswith(quarter_label(int(launch["median"])))
    assert table["rationale"].str.len().min() > 20


# --------------------------------------------------------------------------- validation


def test_valid_minimal_scenario_loads(tmp_path: Path) -> None:
    write(tmp_path, "ok", header("ok") + normal_input() + QUARTER_INPUT + FIXED_INPUT + THESIS)
    scenario = load_scenario("ok", tmp_path)
    assert list(scenario.inputs) == ["a", "q", "f"]
    assert scenario.theses["t"].aggregate == "mean"  # the default
    assert scenario.correlation_names == ()


BAD_CASES = [
    # (case id, header options, body, expected "key path: message" fragment)
    ("unknown-top-level", {}, normal_input() + "[extra]\nfoo = 1\n", "extra: unknown key"),
    (
        "unknown-scenario-key",
        {"extra": 'colour = "red"'},
        normal_input(),
        "scenario.colour: unknown key",
    ),
    (
        "unknown-input-key",
        {},
        normal_input().replace("sigma =", "sigmaa ="),
        "inputs.a.sigmaa: unknown key (allowed: dist, mu, sigma, unit, rationale); "
        "did you mean 'sigma'?",
    ),
    (
        "unknown-dist",
        {},
        normal_input().replace('"normal"', '"gauss"'),
        "inputs.a.dist: unknown distribution 'gauss'",
    ),
    (
        "missing-unit",
        {},
        normal_input().replace('unit = "x"\n', ""),
        "inputs.a.unit: required key missing",
    ),
    (
        "missing-rationale",
        {},
        normal_input().replace('rationale = "test"\n', ""),
        "inputs.a.rationale: required key missing",
    ),
    (
        "missing-param",
        {},
        normal_input().replace("sigma = 1.0\n", ""),
        "inputs.a.sigma: required key missing",
    ),
    ("negative-sd", {}, normal_input(sigma="-0.1"), "inputs.a.sigma: must be > 0, got -0.1"),
    ("zero-sd", {}, normal_input(sigma="0"), "inputs.a.sigma: must be > 0, got 0"),
    ("not-a-number", {}, normal_input(mu='"high"'), "inputs.a.mu: must be a number, got 'high'"),
    ("nan", {}, normal_input(mu="nan"), "inputs.a.mu: must be a finite number"),
    (
        "lower-above-upper",
        {},
        '[inputs.u]\ndist = "uniform"\nlower = 5.0\nupper = 3.0\nunit = "x"\nrationale = "r"\n',
        "inputs.u.lower: must be < upper, got lower=5, upper=3",
    ),
    (
        "lower-equals-upper",
        {},
        '[inputs.u]\ndist = "truncnormal"\nmu = 0.0\nsigma = 1.0\nlower = 1.0\nupper = 1.0\n'
        'unit = "x"\nrationale = "r"\n',
        "inputs.u.lower: must be < upper",
    ),
    (
        "mode-outside",
        {},
        '[inputs.t]\ndist = "triangular"\nlower = 1.0\nmode = 5.0\nupper = 3.0\n'
        'unit = "x"\nrationale = "r"\n',
        "inputs.t.mode: must lie in [lower, upper] = [1, 3], got 5",
    ),
    (
        "pert-bad-lambda",
        {},
        '[inputs.p]\ndist = "pert"\nlower = 1.0\nmode = 2.0\nupper = 3.0\nlambda = -1.0\n'
        'unit = "x"\nrationale = "r"\n',
        "inputs.p.lambda: must be > 0",
    ),
    (
        "beta-alpha-zero",
        {},
        '[inputs.b]\ndist = "beta"\nalpha = 0.0\nbeta = 2.0\nunit = "x"\nrationale = "r"\n',
        "inputs.b.alpha: must be > 0, got 0",
    ),
    (
        "lognormal-negative-median",
        {},
        '[inputs.l]\ndist = "lognormal"\nmedian = -2.0\nsigma = 0.3\nunit = "x"\nrationale = "r"\n',
        "inputs.l.median: must be > 0, got -2",
    ),
    (
        "truncnormal-no-mass",
        {},
        '[inputs.u]\ndist = "truncnormal"\nmu = 0.0\nsigma = 0.01\nlower = 5.0\nupper = 6.0\n'
        'unit = "x"\nrationale = "r"\n',
        "inputs.u.lower: the interval [lower, upper] holds almost no probability",
    ),
    (
        "bad-quarter-label",
        {},
        QUARTER_INPUT.replace('"2027Q2"', '"2027Q5"'),
        "inputs.q.values[1]: not a quarter label like '2027Q1', got '2027Q5'",
    ),
    (
        "unsorted-quarters",
        {},
        QUARTER_INPUT.replace('["2027Q1", "2027Q2"', '["2027Q2", "2027Q1"'),
        "inputs.q.values: must be sorted ascending",
    ),
    (
        "probs-not-summing",
        {},
        QUARTER_INPUT.replace("0.3]", "0.2]"),
        "inputs.q.probs: must sum to 1 (within 1e-6), got 0.9",
    ),
    (
        "negative-prob",
        {},
        QUARTER_INPUT.replace("[0.2, 0.5, 0.3]", "[-0.2, 0.9, 0.3]"),
        "inputs.q.probs[0]: must be >= 0, got -0.2",
    ),
    (
        "probs-length",
        {},
        QUARTER_INPUT.replace("[0.2, 0.5, 0.3]", "[0.5, 0.5]"),
        "inputs.q.probs: must give one probability per value (got 3 values, 2 probs)",
    ),
    (
        "bad-input-name",
        {},
        normal_input(name='"2fast"'),
        "inputs.2fast: input name must match",
    ),
    ("draws-zero", {"draws": "0"}, normal_input(), "scenario.draws: must be in 1..10000000, got 0"),
    ("seed-negative", {"seed": "-5"}, normal_input(), "scenario.seed: must be >= 0, got -5"),
    (
        "draws-bool",
        {"draws": "true"},
        normal_input(),
        "scenario.draws: must be an integer, got True",
    ),
    (
        "unknown-thesis-key",
        {},
        normal_input() + THESIS + 'colour = "red"\n',
        "theses.t.colour: unknown key",
    ),
    (
        "thesis-missing-statement",
        {},
        normal_input() + THESIS.replace('statement = "a claim"\n', ""),
        "theses.t.statement: required key missing",
    ),
    (
        "thesis-bad-comparator",
        {},
        normal_input() + THESIS.replace('"<="', '"=="'),
        "theses.t.comparator: must be one of <, <=, >, >=, got '=='",
    ),
    (
        "thesis-bad-period",
        {},
        normal_input() + THESIS.replace('period = "2030"', 'period = "2030Q5"'),
        "theses.t.period: period must look like",
    ),
    (
        "thesis-backwards-range",
        {},
        normal_input() + THESIS.replace('period = "2030"', 'period = "2030..2026"'),
        "theses.t.period: period range runs backwards",
    ),
    (
        "thesis-after-horizon",
        {},
        normal_input() + THESIS.replace('period = "2030"', 'period = "2031"'),
        "theses.t.period: 2031 ends after the scenario horizon 2030",
    ),
    (
        "thesis-bad-aggregate",
        {},
        normal_input() + THESIS + 'aggregate = "median"\n',
        "theses.t.aggregate: must be one of mean, sum, last",
    ),
    (
        "thesis-half-ratio",
        {},
        normal_input() + THESIS + 'numerator = "Trainium3"\n',
        "theses.t.denominator: numerator and denominator must be given together",
    ),
    (
        "correlation-unknown-input",
        {},
        normal_input() + '[[correlations]]\ninputs = ["a", "zzz"]\nrho = 0.3\n',
        "correlations[0].inputs: unknown input 'zzz'",
    ),
    (
        "correlation-rho-range",
        {},
        normal_input() + normal_input("b") + '[[correlations]]\ninputs = ["a", "b"]\nrho = 1.5\n',
        "correlations[0].rho: must lie in [-1, 1], got 1.5",
    ),
    (
        "correlation-self",
        {},
        normal_input() + '[[correlations]]\ninputs = ["a", "a"]\nrho = 0.5\n',
        "correlations[0].inputs: an input cannot correlate with itself",
    ),
    (
        "correlation-duplicate",
        {},
        normal_input()
        + normal_input("b")
        + '[[correlations]]\ninputs = ["a", "b"]\nrho = 0.5\n'
        + '[[correlations]]\ninputs = ["b", "a"]\nrho = 0.2\n',
        "correlations[1].inputs: pair a ~ b is already correlated at correlations[0].inputs",
    ),
    (
        "correlation-fixed",
        {},
        normal_input() + FIXED_INPUT + '[[correlations]]\ninputs = ["a", "f"]\nrho = 0.5\n',
        "correlations[0].inputs: input 'f' is fixed",
    ),
    (
        "correlation-not-psd",
        {},
        normal_input()
        + normal_input("b")
        + normal_input("c")
        + '[[correlations]]\ninputs = ["a", "b"]\nrho = 0.9\n'
        + '[[correlations]]\ninputs = ["a", "c"]\nrho = 0.9\n'
        + '[[correlations]]\ninputs = ["b", "c"]\nrho = -0.9\n',
        "correlations: the implied correlation matrix is not positive semi-definite",
    ),
    (
        "chip-price-unknown-input",
        {},
        normal_input() + '[chip_prices]\n"Trainium2" = "nope"\n',
        "chip_prices.Trainium2: unknown input 'nope' for chip 'Trainium2'",
    ),
    (
        "chip-price-quarter",
        {},
        normal_input() + QUARTER_INPUT + '[chip_prices]\n"Trainium2" = "q"\n',
        "chip_prices.Trainium2: input 'q' is a launch quarter, not a price",
    ),
    (
        "prior-unknown-model",
        {},
        normal_input() + '[priors.pricing]\nx = { dist = "normal", mu = 0, sigma = 1 }\n',
        "priors.pricing: unknown key (allowed: price, market, share, diffusion)",
    ),
    (
        "prior-bad-spec",
        {},
        normal_input() + '[priors.price]\ndecay_mu = { dist = "normal", mu = -0.3, sigma = -1 }\n',
        "priors.price.decay_mu.sigma: must be > 0, got -1",
    ),
    (
        "prior-unknown-key",
        {},
        normal_input() + '[priors.price]\ndecay_mu = { dist = "normal", mu = 0, sd = 1 }\n',
        "priors.price.decay_mu.sd: unknown key",
    ),
    ("toml-syntax", {}, normal_input() + "[inputs.b\n", "invalid TOML"),
]


@pytest.mark.parametrize(
    ("meta", "body", "expected"),
    [case[1:] for case in BAD_CASES],
    ids=[case[0] for case in BAD_CASES],
)
def test_validation_errors_name_file_and_key(
    tmp_path: Path, meta: dict[str, str], body: str, expected: str
) -> None:
    error = load_bad(tmp_path, body, **meta)
    message = str(error)
    assert "\n" not in message
    assert message.startswith(str(tmp_path / "bad.toml") + ": ")
    assert expected in message
    assert isinstance(error, ForecastError)


def test_name_must_equal_file_stem(tmp_path: Path) -> None:
    write(tmp_path, "bad", header("other") + normal_input())
    with pytest.raises(ScenarioError, match=r"bad\.toml: scenario\.name: must equal the file"):
        load_scenario("bad", tmp_path)


def test_missing_metadata_is_reported_on_the_loaded_file(tmp_path: Path) -> None:
    text = header().replace("horizon = 2030\n", "") + normal_input()
    (tmp_path / "bad.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"scenario\.horizon: required key missing"):
        load_scenario("bad", tmp_path)


def test_error_message_example_from_design(tmp_path: Path) -> None:
    body = (
        '[inputs.mfu_aws]\ndist = "normal"\nmu = 0.3\nsigma = -0.1\nunit = "x"\nrationale = "r"\n'
    )
    error = load_bad(tmp_path, body)
    assert str(error).endswith("bad.toml: inputs.mfu_aws.sigma: must be > 0, got -0.1")


def test_cyclic_extends_names_the_cycle(tmp_path: Path) -> None:
    write(tmp_path, "a", header("a", extends="b") + normal_input())
    write(tmp_path, "b", header("b", extends="c") + normal_input())
    write(tmp_path, "c", header("c", extends="a") + normal_input())
    with pytest.raises(ScenarioError, match=r"cyclic extends: a -> b -> c -> a"):
        load_scenario("a", tmp_path)


def test_self_extends_is_a_cycle(tmp_path: Path) -> None:
    write(tmp_path, "a", header("a", extends="a") + normal_input())
    with pytest.raises(ScenarioError, match=r"scenario\.extends: cyclic extends: a -> a"):
        load_scenario("a", tmp_path)


def test_extends_unknown_parent(tmp_path: Path) -> None:
    write(tmp_path, "a", header("a", extends="nothere") + normal_input())
    with pytest.raises(ScenarioError, match=r"no scenario named 'nothere'.*available: a"):
        load_scenario("a", tmp_path)


@pytest.mark.parametrize(
    "name",
    ["../../etc/passwd", "/etc/passwd", "..", "base.toml", "sub/base", "", "a b", "~root"],
)
def test_names_cannot_reach_outside_the_directory(tmp_path: Path, name: str) -> None:
    write(tmp_path, "base", header("base") + normal_input())
    with pytest.raises(ScenarioError, match="is not a scenario name") as info:
        load_scenario(name, tmp_path)
    assert "\n" not in str(info.value)


def test_path_object_is_refused_by_load_scenario(tmp_path: Path) -> None:
    path = write(tmp_path, "base", header("base") + normal_input())
    with pytest.raises(ScenarioError, match="load_scenario_file"):
        load_scenario(path, tmp_path)  # type: ignore[arg-type]


def test_extends_cannot_traverse(tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    write(tmp_path, "outside", header("outside") + normal_input())
    (inner / "a.toml").write_text(
        header("a").replace('name = "a"\n', 'name = "a"\nextends = "../outside"\n')
        + normal_input(),
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError, match=r"scenario\.extends: extends must match"):
        load_scenario("a", inner)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlink_escaping_the_directory_is_refused(tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    target = write(tmp_path, "evil", header("evil") + normal_input())
    (inner / "evil.toml").symlink_to(target)
    with pytest.raises(ScenarioError, match="resolves outside"):
        load_scenario("evil", inner)


def test_unknown_name_lists_available(tmp_path: Path) -> None:
    write(tmp_path, "base", header("base") + normal_input())
    with pytest.raises(ScenarioError, match=r"no scenario named 'bul' .*available: base"):
        load_scenario("bul", tmp_path)


def test_load_scenario_file_resolves_extends_in_its_directory(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    write(user, "mine", header("mine") + normal_input() + normal_input("b"))
    child = write(user, "child", header("child", extends="mine") + normal_input("b", mu="5.0"))
    scenario = load_scenario_file(child)
    assert scenario.lineage == ("mine",)
    assert scenario.inputs["b"].params["mu"] == 5.0
    assert load_scenario_file(DEFAULT_SCENARIOS_DIR / "bull.toml").extends == "base"
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario_file(user / "absent.toml")
    with pytest.raises(ScenarioError, match=r"\.toml suffix"):
        load_scenario_file(user / "mine.txt")


# --------------------------------------------------------------------------- inheritance


def test_extends_merge_rules(tmp_path: Path) -> None:
    write(
        tmp_path,
        "parent",
        header("parent")
        + normal_input("a")
        + normal_input("b")
        + normal_input("c")
        + """
[chip_prices]
"Chip1" = "a"

[[correlations]]
inputs = ["a", "b"]
rho = 0.5

[[correlations]]
inputs = ["a", "c"]
rho = 0.2

[priors.price]
x = { dist = "normal", mu = 0, sigma = 1 }
y = { dist = "normal", mu = 1, sigma = 1 }

[theses.t1]
statement = "one"
metric = "share"
period = "2030"
comparator = "<="
threshold = 0.7

[theses.t2]
statement = "two"
metric = "spend"
period = "2026..2030"
comparator = ">="
threshold = 100
""",
    )
    write(
        tmp_path,
        "child",
        '[scenario]\nname = "child"\nextends = "parent"\ndraws = 77\n'
        + normal_input("a", mu="9.0")
        + normal_input("d")
        + """
[chip_prices]
"Chip2" = "d"

[[correlations]]
inputs = ["b", "a"]
rho = -0.3

[priors.price]
y = { dist = "normal", mu = 2, sigma = 3 }

[priors.share]
z = { dist = "beta", alpha = 2, beta = 2 }

[theses.t2]
statement = "two, revised"
metric = "spend"
period = "2028"
aggregate = "sum"
comparator = ">="
threshold = 50

[theses.t3]
statement = "three"
metric = "tam"
period = "2029Q4"
comparator = ">"
threshold = 1
""",
    )
    write(tmp_path, "grandchild", '[scenario]\nname = "grandchild"\nextends = "child"\n')
    child = load_scenario("child", tmp_path)
    assert child.extends == "parent" and child.lineage == ("parent",)
    assert child.description == "test scenario" and child.horizon == 2030 and child.draws == 77
    assert list(child.inputs) == ["a", "b", "c", "d"]
    assert child.inputs["a"].params["mu"] == 9.0
    assert child.chip_prices == {"Chip1": "a", "Chip2": "d"}
    assert child.correlations == {("a", "b"): -0.3, ("a", "c"): 0.2}
    assert child.correlation_names == ("a", "b", "c")
    assert child.correlation_matrix[0, 1] == -0.3
    assert child.priors["price"]["x"].params["mu"] == 0.0
    assert child.priors["price"]["y"].params == {"mu": 2.0, "sigma": 3.0}
    assert child.priors["share"]["z"].dist == "beta"
    assert list(child.theses) == ["t1", "t2", "t3"]
    assert child.theses["t2"].statement == "two, revised"
    assert child.theses["t2"].aggregate == "sum"
    grandchild = load_scenario("grandchild", tmp_path)
    assert grandchild.lineage == ("child", "parent")
    assert grandchild.inputs == child.inputs


def test_child_input_replaces_parent_input_wholesale(tmp_path: Path) -> None:
    write(tmp_path, "parent", header("parent") + normal_input("a"))
    write(
        tmp_path,
        "child",
        '[scenario]\nname = "child"\nextends = "parent"\n'
        '[inputs.a]\ndist = "uniform"\nlower = 0.0\nupper = 1.0\nunit = "y"\nrationale = "new"\n',
    )
    spec = load_scenario("child", tmp_path).inputs["a"]
    assert (spec.dist, spec.params, spec.unit) == ("uniform", {"lower": 0.0, "upper": 1.0}, "y")


def test_child_correlation_making_matrix_not_psd_is_reported_on_the_child(tmp_path: Path) -> None:
    write(
        tmp_path,
        "parent",
        header("parent")
        + normal_input("a")
        + normal_input("b")
        + normal_input("c")
        + '[[correlations]]\ninputs = ["a", "b"]\nrho = 0.6\n'
        + '[[correlations]]\ninputs = ["a", "c"]\nrho = 0.6\n',
    )
    write(
        tmp_path,
        "child",
        '[scenario]\nname = "child"\nextends = "parent"\n'
        '[[correlations]]\ninputs = ["b", "c"]\nrho = -0.6\n',
    )
    load_scenario("parent", tmp_path)
    with pytest.raises(ScenarioError, match=r"child\.toml: correlations: .*positive semi-definite"):
        load_scenario("child", tmp_path)


# --------------------------------------------------------------------------- sampling


@pytest.mark.parametrize("method", ["mc", "lhs"])
def test_sampling_is_reproducible(base: Scenario, method: str) -> None:
    first = base.sample(n=500, seed=7, method=method)
    again = base.sample(n=500, seed=7, method=method)
    other = base.sample(n=500, seed=8, method=method)
    pd.testing.assert_frame_equal(first, again)
    assert not first.equals(other)
    assert (first.to_numpy() != other.to_numpy()).mean() > 0.9
    assert list(first.columns) == list(base.inputs)
    assert len(first) == 500 and first.index.name == "draw"


def test_sampling_defaults_to_scenario_draws_and_seed(base: Scenario) -> None:
    frame = base.sample()
    assert len(frame) == base.draws
    pd.testing.assert_frame_equal(frame, base.sample(seed=base.seed))


def test_sample_dtypes_and_quarter_support(base: Scenario) -> None:
    frame = base.sample(n=2000, seed=3)
    spec = base.inputs["trainium4_launch_quarter"]
    column = frame["trainium4_launch_quarter"]
    assert column.dtype == np.int64
    allowed = {quarter_index(label) for label in spec.params["values"]}
    assert set(column.unique()) <= allowed
    assert frame["mfu_aws"].dtype == np.float64
    assert frame["mfu_aws"].between(0, 1).all()
    assert np.isfinite(frame.to_numpy(dtype=float)).all()


@pytest.mark.parametrize(
    ("n", "seed", "method", "match"),
    [
        (0, 1, "mc", "n must be a positive integer"),
        (2.5, 1, "mc", "n must be a positive integer"),
        (10, -1, "mc", "seed must be a non-negative integer"),
        (10, 1, "sobol", "method must be one of mc, lhs"),
    ],
)
def test_sample_rejects_bad_arguments(
    base: Scenario, n: object, seed: object, method: str, match: str
) -> None:
    with pytest.raises(ScenarioError, match=match):
        base.sample(n=n, seed=seed, method=method)  # type: ignore[arg-type]


def _assert_rank_correlations(scenario: Scenario, frame: pd.DataFrame) -> None:
    for (first, second), rho in scenario.correlations.items():
        realised = stats.spearmanr(frame[first], frame[second]).statistic
        assert realised == pytest.approx(rho, abs=0.05), (first, second, realised)


@pytest.mark.parametrize("method", ["mc", "lhs"])
def test_rank_correlations_honoured_in_base(base: Scenario, method: str) -> None:
    assert len(base.correlations) >= 5
    assert not any(base.inputs[name].is_quarter for name in base.correlation_names)
    _assert_rank_correlations(base, base.sample(n=20_000, seed=11, method=method))


@pytest.mark.parametrize("method", ["mc", "lhs"])
def test_strong_and_negative_rank_correlations_honoured(tmp_path: Path, method: str) -> None:
    write(
        tmp_path,
        "corr",
        header("corr")
        + normal_input("a")
        + '[inputs.b]\ndist = "lognormal"\nmedian = 2.0\nsigma = 0.8\nunit = "x"\nrationale = "r"\n'
        + '[inputs.c]\ndist = "beta"\nalpha = 2.0\nbeta = 5.0\nunit = "x"\nrationale = "r"\n'
        + '[inputs.d]\ndist = "pert"\nlower = 0.0\nmode = 1.0\nupper = 4.0\nunit = "x"\n'
        + 'rationale = "r"\n'
        + '[[correlations]]\ninputs = ["a", "b"]\nrho = 0.8\n'
        + '[[correlations]]\ninputs = ["a", "c"]\nrho = -0.6\n'
        + '[[correlations]]\ninputs = ["b", "c"]\nrho = -0.4\n',
    )
    scenario = load_scenario("corr", tmp_path)
    frame = scenario.sample(n=20_000, seed=5, method=method)
    _assert_rank_correlations(scenario, frame)
    # An input outside every correlation stays independent.
    assert abs(stats.spearmanr(frame["a"], frame["d"]).statistic) < 0.05


def test_perfect_correlation_uses_a_singular_factor(tmp_path: Path) -> None:
    write(
        tmp_path,
        "perfect",
        header("perfect")
        + normal_input("a")
        + normal_input("b")
        + '[[correlations]]\ninputs = ["a", "b"]\nrho = 1.0\n',
    )
    scenario = load_scenario("perfect", tmp_path)
    for method in ("mc", "lhs"):
        frame = scenario.sample(n=5000, seed=2, method=method)
        assert stats.spearmanr(frame["a"], frame["b"]).statistic > 0.999


def test_correlation_with_quarter_input_is_allowed(tmp_path: Path) -> None:
    write(
        tmp_path,
        "withq",
        header("withq")
        + normal_input("a")
        + QUARTER_INPUT
        + '[[correlations]]\ninputs = ["a", "q"]\nrho = -0.6\n',
    )
    scenario = load_scenario("withq", tmp_path)
    frame = scenario.sample(n=20_000, seed=4)
    realised = stats.spearmanr(frame["a"], frame["q"]).statistic
    # Ties among three quarters shrink the realised rank correlation toward zero.
    assert -0.6 < realised < -0.3
    shares = frame["q"].value_counts(normalize=True).sort_index().to_numpy()
    np.testing.assert_allclose(shares, [0.2, 0.5, 0.3], atol=0.015)


def test_zero_correlation_is_dropped_from_the_copula(tmp_path: Path) -> None:
    write(
        tmp_path,
        "zero",
        header("zero")
        + normal_input("a")
        + normal_input("b")
        + '[[correlations]]\ninputs = ["a", "b"]\nrho = 0.0\n',
    )
    scenario = load_scenario("zero", tmp_path)
    assert scenario.correlations == {("a", "b"): 0.0}
    assert scenario.correlation_names == ()


# --------------------------------------------------------------------------- Latin hypercube


def test_lhs_marginals_match_their_distributions(base: Scenario) -> None:
    n = 2000
    frame = base.sample(n=n, seed=21, method="lhs")
    for name, spec in base.inputs.items():
        if spec.is_quarter or spec.is_fixed:
            continue
        result = stats.kstest(frame[name].to_numpy(), spec.cdf)
        # Stratified uniforms put the empirical CDF within one stratum of the true CDF.
        assert result.statistic <= 1.0 / n + 1e-9, name
        assert result.pvalue > 0.99, name


@pytest.mark.parametrize("name", ["pue", "mfu_aws", "tam_ceiling_usd_billions"])
def test_lhs_hits_each_stratum_exactly_once(base: Scenario, name: str) -> None:
    # pue is uncorrelated; the other two are reordered by Iman-Conover, which must not
    # disturb stratification.
    n = 1000
    frame = base.sample(n=n, seed=13, method="lhs")
    strata = np.floor(base.inputs[name].cdf(frame[name].to_numpy()) * n).astype(int)
    np.testing.assert_array_equal(np.sort(strata), np.arange(n))


def test_mc_is_not_stratified(base: Scenario) -> None:
    n = 1000
    frame = base.sample(n=n, seed=13, method="mc")
    strata = np.floor(base.inputs["pue"].cdf(frame["pue"].to_numpy()) * n).astype(int)
    assert len(np.unique(strata)) < n


# --------------------------------------------------------------------------- distributions


def _pert_reference(lower: float, mode: float, upper: float, lam: float = 4.0):
    width = upper - lower
    a = 1 + lam * (mode - lower) / width
    b = 1 + lam * (upper - mode) / width
    return stats.beta(a, b, loc=lower, scale=width)


DIST_CASES = [
    ({"dist": "normal", "mu": 1.0, "sigma": 2.0}, stats.norm(1.0, 2.0)),
    ({"dist": "lognormal", "median": 3.0, "sigma": 0.5}, stats.lognorm(s=0.5, scale=3.0)),
    (
        {"dist": "truncnormal", "mu": 0.05, "sigma": 0.05, "lower": 0.0, "upper": 0.3},
        stats.truncnorm(-1.0, 5.0, loc=0.05, scale=0.05),
    ),
    ({"dist": "beta", "alpha": 6.0, "beta": 10.0}, stats.beta(6.0, 10.0)),
    ({"dist": "uniform", "lower": 2.0, "upper": 5.0}, stats.uniform(2.0, 3.0)),
    (
        {"dist": "triangular", "lower": 1.0, "mode": 2.0, "upper": 4.0},
        stats.triang(c=1.0 / 3.0, loc=1.0, scale=3.0),
    ),
    (
        {"dist": "triangular", "lower": 0.0, "mode": 0.0, "upper": 1.0},
        stats.triang(c=0.0, loc=0.0, scale=1.0),
    ),
    ({"dist": "pert", "lower": 1.5, "mode": 3.0, "upper": 3.3}, _pert_reference(1.5, 3.0, 3.3)),
    (
        {"dist": "PERT", "lower": 0.0, "mode": 1.0, "upper": 4.0, "lambda": 6},
        _pert_reference(0.0, 1.0, 4.0, 6.0),
    ),
    ({"dist": "halfnormal", "sigma": 0.15}, stats.halfnorm(scale=0.15)),
    ({"dist": "gamma", "alpha": 2.0, "beta": 4.0}, stats.gamma(2.0, scale=0.25)),
    ({"dist": "exponential", "lam": 3.0}, stats.expon(scale=1.0 / 3.0)),
    ({"dist": "studentt", "nu": 4.0, "mu": 1.0, "sigma": 0.5}, stats.t(4.0, loc=1.0, scale=0.5)),
]


@pytest.mark.parametrize(
    ("table", "reference"),
    DIST_CASES,
    ids=[f"{c[0]['dist']}-{i}" for i, c in enumerate(DIST_CASES)],
)
def test_ppf_cdf_mean_match_scipy(table: dict, reference) -> None:
    spec = InputSpec.from_dict("x", table)
    grid = np.linspace(0.001, 0.999, 999)
    np.testing.assert_allclose(spec.ppf(grid), reference.ppf(grid), rtol=1e-9, atol=1e-12)
    points = reference.ppf(grid)
    np.testing.assert_allclose(spec.cdf(points), reference.cdf(points), rtol=1e-9, atol=1e-12)
    assert spec.mean() == pytest.approx(reference.mean(), rel=1e-9)
    assert spec.median() == pytest.approx(reference.median(), rel=1e-9)
    assert spec.quantile(0.1) == pytest.approx(reference.ppf(0.1), rel=1e-9)
    assert spec.ppf(grid.reshape(3, 333)).shape == (3, 333)


def test_batched_inverse_cdfs_equal_each_inputs_own_ppf() -> None:
    specs = [InputSpec.from_dict(f"x{i}", table) for i, (table, _) in enumerate(DIST_CASES)]
    uniforms = np.random.default_rng(5).uniform(size=(700, len(specs)))
    uniforms[:3] = [[0.0], [1.0], [0.5]]
    columns = inverse_cdfs(specs, uniforms)
    assert sum(spec.beta_form is not None for spec in specs) == 3
    for j, spec in enumerate(specs):
        np.testing.assert_array_equal(columns[j], spec.ppf(uniforms[:, j]), err_msg=spec.name)


def test_sampling_a_scenario_does_not_import_scipy() -> None:
    # scipy.special takes 0.3-0.5 s to import, scipy.stats a second more: forecasting must not
    # pay for them (Latin hypercube sampling, not used by forecasts, still imports qmc).
    code = (
        "import sys\n"
        "from forecast.scenarios.scenario import load_scenario\n"
        "scenario = load_scenario('bull')\n"
        "frame = scenario.sample(200, seed=1)\n"
        "medians = [spec.median() for spec in scenario.inputs.values()]\n"
        "loaded = [m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])


def test_lognormal_cdf_is_zero_below_zero() -> None:
    spec = InputSpec.from_dict("x", {"dist": "lognormal", "median": 1.0, "sigma": 0.5})
    np.testing.assert_array_equal(spec.cdf(np.array([-1.0, 0.0])), [0.0, 0.0])


def test_fixed_distribution() -> None:
    spec = InputSpec.from_dict("x", {"dist": "fixed", "value": 2.5})
    np.testing.assert_array_equal(spec.ppf(np.array([0.0, 0.3, 1.0])), [2.5, 2.5, 2.5])
    np.testing.assert_array_equal(spec.cdf(np.array([2.0, 2.5, 3.0])), [0.0, 1.0, 1.0])
    assert spec.mean() == spec.median() == 2.5


def test_quarter_distribution_frequencies_match_probs() -> None:
    values = ["2026Q4", "2027Q1", "2027Q2", "2027Q3", "2028Q1"]
    probs = [0.1, 0.0, 0.25, 0.4, 0.25]
    spec = InputSpec.from_dict("q", {"dist": "quarter", "values": values, "probs": probs})
    draws = spec.ppf(np.random.default_rng(0).random(200_000))
    assert draws.dtype == np.int64
    indices = [quarter_index(v) for v in values]
    shares = [(draws == index).mean() for index in indices]
    np.testing.assert_allclose(shares, probs, atol=0.005)
    assert shares[1] == 0.0  # a zero-probability quarter never appears
    np.testing.assert_allclose(spec.cdf(np.array(indices)), np.cumsum(probs))
    assert spec.cdf(indices[0] - 1) == 0.0
    assert spec.median() == quarter_index("2027Q3")
    assert spec.mean() == pytest.approx(float(np.dot(indices, probs)))
    assert spec.ppf(np.array([0.0, 1.0])).tolist() == [indices[0], indices[-1]]


def test_dist_name_is_case_insensitive_and_normalised() -> None:
    spec = InputSpec.from_dict("x", {"dist": "Beta", "alpha": 2, "beta": 3})
    assert spec.dist == "beta"
    assert spec.params == {"alpha": 2.0, "beta": 3.0}
    pert = InputSpec.from_dict("p", {"dist": "pert", "lower": 0, "mode": 1, "upper": 2})
    assert pert.params["lambda"] == 4.0


def test_input_spec_from_dict_validates() -> None:
    with pytest.raises(ScenarioError, match=r"<dict>: x\.unit: required key missing"):
        InputSpec.from_dict("x", {"dist": "normal", "mu": 0, "sigma": 1}, require_meta=True)
    with pytest.raises(ScenarioError, match=r"x\.sigma: must be > 0"):
        InputSpec.from_dict("x", {"dist": "normal", "mu": 0, "sigma": 0})
    with pytest.raises(ScenarioError, match=r"x\.dist: required key missing"):
        InputSpec.from_dict("x", {"mu": 0, "sigma": 1})


def test_spec_round_trips_through_to_dict(base: Scenario) -> None:
    for name, spec in base.inputs.items():
        assert InputSpec.from_dict(name, spec.to_dict(), require_meta=True) == spec


# --------------------------------------------------------------------------- quarters, theses


def test_quarter_index_and_label_round_trip() -> None:
    assert quarter_index("2027Q1") == 2027 * 4
    assert quarter_index("2027Q4") == 2027 * 4 + 3
    for label in ("2025Q4", "2026Q1", "2030Q2"):
        assert quarter_label(quarter_index(label)) == label
    assert quarter_index("2026Q1") - quarter_index("2025Q4") == 1
    for bad in ("2027Q0", "2027Q5", "2027-Q1", "27Q1", 2027):
        with pytest.raises(ScenarioError, match="not a quarter label"):
            quarter_index(bad)  # type: ignore[arg-type]


def test_parse_period() -> None:
    assert parse_period("2030") == ("year", quarter_index("2030Q1"), quarter_index("2030Q4"))
    assert parse_period("2025Q4") == ("quarter", quarter_index("2025Q4"), quarter_index("2025Q4"))
    assert parse_period("2026..2030") == (
        "range",
        quarter_index("2026Q1"),
        quarter_index("2030Q4"),
    )
    for bad in ("2030Q5", "2026...2030", "2030..2026", "soon"):
        with pytest.raises(ScenarioError):
            parse_period(bad)


def test_thesis_spec_helpers() -> None:
    thesis = ThesisSpec(
        name="t",
        statement="s",
        metric="share",
        period="2029..2030",
        comparator="<=",
        threshold=0.7,
    )
    assert thesis.period_kind == "range"
    assert thesis.quarter_labels[0] == "2029Q1" and thesis.quarter_labels[-1] == "2030Q4"
    assert len(thesis.quarter_labels) == 8
    np.testing.assert_array_equal(thesis.holds([0.6, 0.7, 0.8]), [True, True, False])
    strict = ThesisSpec("u", "s", "spend", "2030", ">", 50.0)
    np.testing.assert_array_equal(strict.holds([50.0, 50.1]), [False, True])


def test_shipped_rationales_cite_or_assume() -> None:
    # Every rationale either cites data/ or a named source, or calls itself an assumption.
    for scenario in list_scenarios():
        for spec in scenario.inputs.values():
            text = spec.rationale or ""
            cites = "data/" in text or "seed" in text or "(20" in text
            assert cites or "ssumption" in text, (scenario.name, spec.name)
            assert not math.isnan(spec.mean())
