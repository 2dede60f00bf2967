"""Tests of scenario file validation: every problem is one line naming the file and key."""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario_files import (
    FIXED_INPUT,
    QUARTER_INPUT,
    THESIS,
    header,
    load_bad,
    normal_input,
    write,
)

from forecast.core.errors import ForecastError, ScenarioError
from forecast.scenarios import load_scenario


def test_valid_minimal_scenario_loads(tmp_path: Path) -> None:
    write(tmp_path, "ok", header("ok") + normal_input() + QUARTER_INPUT + FIXED_INPUT + THESIS)
    scenario = load_scenario("ok", tmp_path, require_inputs=False)
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
        "priors.pricing: unknown key (allowed: price, spend, diffusion); did you mean 'price'?",
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
        load_scenario("bad", tmp_path, require_inputs=False)


def test_missing_metadata_is_reported_on_the_loaded_file(tmp_path: Path) -> None:
    text = header().replace("horizon = 2030\n", "") + normal_input()
    (tmp_path / "bad.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"scenario\.horizon: required key missing"):
        load_scenario("bad", tmp_path, require_inputs=False)


def test_error_message_example_from_design(tmp_path: Path) -> None:
    body = (
        '[inputs.mfu_aws]\ndist = "normal"\nmu = 0.3\nsigma = -0.1\nunit = "x"\nrationale = "r"\n'
    )
    error = load_bad(tmp_path, body)
    assert str(error).endswith("bad.toml: inputs.mfu_aws.sigma: must be > 0, got -0.1")


# --------------------------------------------------------------------------- hostile files


@pytest.mark.parametrize("depth", [12, 500, 5000])
def test_deeply_nested_toml_is_one_scenario_error(tmp_path, depth):
    text = header("bad") + "[inputs.a]\nvalues = " + "[" * depth + "]" * depth + "\n"
    (tmp_path / "bad.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_scenario("bad", tmp_path, require_inputs=False)
    message = str(caught.value)
    assert "nested deeper than 10 levels" in message and "\n" not in message


def test_deeply_nested_inline_tables_are_one_scenario_error(tmp_path):
    text = header("bad") + "x = " + "{a = " * 500 + "1" + "}" * 500 + "\n"
    (tmp_path / "bad.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match="nested deeper than 10 levels"):
        load_scenario("bad", tmp_path, require_inputs=False)


@pytest.mark.parametrize("value", ["1" + "0" * 5000, "1" + "0" * 400, "1e400", "nan"])
def test_huge_or_odd_numbers_are_one_scenario_error(tmp_path, value):
    error = load_bad(tmp_path, normal_input(mu=value))
    assert "\n" not in str(error) and len(str(error)) < 400


def test_oversized_file_is_refused(tmp_path):
    text = header("bad") + "# " + "x" * 1_100_000 + "\n"
    (tmp_path / "bad.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match="larger than 1,000,000 bytes"):
        load_scenario("bad", tmp_path, require_inputs=False)


def test_long_identifiers_are_refused(tmp_path):
    error = load_bad(tmp_path, normal_input(name="a" * 101))
    assert "input name must match" in str(error) and len(str(error)) < 400


def test_byte_order_mark_and_crlf_are_accepted(tmp_path):
    text = header("ok") + normal_input()
    (tmp_path / "ok.toml").write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    assert load_scenario("ok", tmp_path, require_inputs=False).inputs["a"].params["mu"] == 0.0
