"""What the forecast reads of a scenario and whether it can use it
(forecast.scenarios.supports): every input read, each distribution inside the support of its
parts and its sanity range, every draw checked by input."""

from __future__ import annotations

import pandas as pd
import pytest

from forecast.core.errors import ScenarioError
from forecast.core.input_support import FRACTION, POSITIVE, QUARTER, RATE, Support
from forecast.scenarios import InputSpec, load_scenario, supports
from forecast.scenarios.supports import check_draws, input_roles, support_problem

#: A support closed below and open above, as a fractional fall per year would be.
YEARLY_FALL = Support("a fractional fall per year in [0, 1)", 0.0, 1.0, False, True, 0.0, 1.0)


def spec(**table: object) -> InputSpec:
    return InputSpec.from_dict("x", table)


def test_every_input_of_base_has_its_part_and_no_other_is_read():
    base = load_scenario("base")
    roles = input_roles(base)
    assert set(roles) == set(base.inputs)
    assert [r.reader for r in roles["trainium4_launch_quarter"]] == [
        "the forecast", "roadmap.aws.Trainium4.launch"]
    assert {r.support for r in roles["nvidia_price_response"]} == {RATE}
    assert [r.reader for r in roles["trainium3_price_usd_per_chip_hour"]] == [
        "chip_prices.Trainium3"]


@pytest.mark.parametrize(("table", "support", "problem"), [
    ({"dist": "beta", "alpha": 7, "beta": 13}, FRACTION, None),
    ({"dist": "uniform", "lower": 0.0, "upper": 0.5}, FRACTION, None),
    ({"dist": "uniform", "lower": 0.5, "upper": 5.0}, FRACTION, "takes values from 0.5 to 5"),
    ({"dist": "fixed", "value": 0.0}, FRACTION, "it is fixed at 0"),
    ({"dist": "beta", "alpha": 0.01, "beta": 1}, FRACTION, "beyond the sane range"),
    ({"dist": "beta", "alpha": 0.2, "beta": 1}, FRACTION, "from 1e-45 to 1 in practice"),
    ({"dist": "lognormal", "median": 4.8, "sigma": 1e300}, POSITIVE, "from 0 to inf in practice"),
    ({"dist": "lognormal", "median": 4.8, "sigma": 1.4}, POSITIVE, None),
    ({"dist": "lognormal", "median": 4.8, "sigma": 1.6}, POSITIVE, "its spread is too wide"),
    ({"dist": "fixed", "value": 1e12}, POSITIVE, "beyond the sane range"),
    ({"dist": "truncnormal", "mu": 0.1, "sigma": 0.05, "lower": 0, "upper": 0.3}, YEARLY_FALL,
     None),
    ({"dist": "uniform", "lower": 0.0, "upper": 1.0}, YEARLY_FALL, None),
    ({"dist": "fixed", "value": 1.0}, YEARLY_FALL, "it is fixed at 1"),
    ({"dist": "normal", "mu": 0.2, "sigma": 0.1}, RATE, None),
    ({"dist": "normal", "mu": 0.2, "sigma": 2.0}, RATE, "beyond the sane range -5 to 5"),
    ({"dist": "normal", "mu": 1e308, "sigma": 0.1}, FRACTION, "from -inf to inf"),
    ({"dist": "normal", "mu": 1.0, "sigma": 0.1}, QUARTER, "a number, not a launch quarter"),
])
def test_support_problem(table, support, problem):
    found = support_problem(spec(**table), support)
    assert (found is None) if problem is None else (problem in found), found


def test_draws_outside_a_part_are_named_by_input():
    base = load_scenario("base")
    draws = base.sample(10, seed=3)
    check_draws(base, draws)
    draws["pue"] = pd.Series([1.2] * 9 + [0.9])
    with pytest.raises(ScenarioError, match="input 'pue' drew 0.9 .* a ratio of at least 1"):
        check_draws(base, draws)


def test_an_unread_input_in_a_child_names_the_child(tmp_path):
    base = load_scenario("base")
    (tmp_path / "base.toml").write_bytes(base.path.read_bytes())
    (tmp_path / "mine.toml").write_text(
        '[scenario]\nname = "mine"\nextends = "base"\n\n[inputs.electricty_usd_per_kwh]\n'
        'dist = "fixed"\nvalue = 0.1\nunit = "USD per kWh"\nrationale = "typo"\n')
    with pytest.raises(ScenarioError) as caught:
        load_scenario("mine", tmp_path)
    assert str(caught.value).startswith(f"{tmp_path / 'mine.toml'}: inputs.electricty_usd")
    assert "did you mean 'electricity_usd_per_kwh'?" in str(caught.value)


def test_a_scenarios_beta_inputs_are_checked_as_each_alone(tmp_path, monkeypatch):
    # Loading checks every beta and PERT input's quantiles in one batch; the verdict must be
    # the one checking that input alone gives (a sane one passes, a bad one is named). Each
    # check starts without the quantiles kept from earlier ones.
    base = load_scenario("base")
    (tmp_path / "base.toml").write_bytes(base.path.read_bytes())
    bad = {"dist": "beta", "alpha": 0.01, "beta": 1.0}
    (tmp_path / "mine.toml").write_text(
        '[scenario]\nname = "mine"\nextends = "base"\n\n[inputs.mfu_amd]\n'
        'dist = "beta"\nalpha = 0.01\nbeta = 1.0\nunit = "fraction"\nrationale = "odd"\n')
    monkeypatch.setattr(supports, "_QUANTILES", {})
    with pytest.raises(ScenarioError) as caught:
        load_scenario("mine", tmp_path)
    monkeypatch.setattr(supports, "_QUANTILES", {})
    alone = support_problem(spec(**bad), FRACTION)
    assert alone is not None and "beyond the sane range" in alone
    assert str(caught.value).startswith(f"{tmp_path / 'mine.toml'}: inputs.mfu_amd")
    assert str(caught.value).endswith(alone)
