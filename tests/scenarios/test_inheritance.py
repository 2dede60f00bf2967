"""Tests of ``extends``: following the chain and merging a child over its parents."""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario_files import header, normal_input, write

from forecast.core.errors import ScenarioError
from forecast.scenarios import load_scenario


def test_cyclic_extends_names_the_cycle(tmp_path: Path) -> None:
    write(tmp_path, "a", header("a", extends="b") + normal_input())
    write(tmp_path, "b", header("b", extends="c") + normal_input())
    write(tmp_path, "c", header("c", extends="a") + normal_input())
    with pytest.raises(ScenarioError, match=r"cyclic extends: a -> b -> c -> a"):
        load_scenario("a", tmp_path, require_inputs=False)


def test_self_extends_is_a_cycle(tmp_path: Path) -> None:
    write(tmp_path, "a", header("a", extends="a") + normal_input())
    with pytest.raises(ScenarioError, match=r"scenario\.extends: cyclic extends: a -> a"):
        load_scenario("a", tmp_path, require_inputs=False)


def test_extends_unknown_parent(tmp_path: Path) -> None:
    write(tmp_path, "a", header("a", extends="nothere") + normal_input())
    with pytest.raises(ScenarioError, match=r"no scenario named 'nothere'.*available: a"):
        load_scenario("a", tmp_path, require_inputs=False)


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
        load_scenario("a", inner, require_inputs=False)


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
decay_mu = { dist = "normal", mu = 0, sigma = 1 }
decay_tau = { dist = "normal", mu = 1, sigma = 1 }

[theses.t1]
statement = "one"
metric = "share"
vendor = "nvidia"
period = "2030"
comparator = "<="
threshold = 0.7

[theses.t2]
statement = "two"
metric = "spend"
vendor = "aws"
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
decay_tau = { dist = "normal", mu = 2, sigma = 3 }

[priors.spend]
adjustment_speed = { dist = "beta", alpha = 2, beta = 2 }

[theses.t2]
statement = "two, revised"
metric = "spend"
vendor = "aws"
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
    child = load_scenario("child", tmp_path, require_inputs=False)
    assert child.extends == "parent" and child.lineage == ("parent",)
    assert child.description == "test scenario" and child.horizon == 2030 and child.draws == 77
    assert list(child.inputs) == ["a", "b", "c", "d"]
    assert child.inputs["a"].params["mu"] == 9.0
    assert child.chip_prices == {"Chip1": "a", "Chip2": "d"}
    assert child.correlations == {("a", "b"): -0.3, ("a", "c"): 0.2}
    assert child.correlation_names == ("a", "b", "c")
    assert child.correlation_matrix[0, 1] == -0.3
    assert child.priors["price"]["decay_mu"].params["mu"] == 0.0
    assert child.priors["price"]["decay_tau"].params == {"mu": 2.0, "sigma": 3.0}
    assert child.priors["spend"]["adjustment_speed"].dist == "beta"
    assert list(child.theses) == ["t1", "t2", "t3"]
    assert child.theses["t2"].statement == "two, revised"
    assert child.theses["t2"].aggregate == "sum"
    grandchild = load_scenario("grandchild", tmp_path, require_inputs=False)
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
    spec = load_scenario("child", tmp_path, require_inputs=False).inputs["a"]
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
    load_scenario("parent", tmp_path, require_inputs=False)
    with pytest.raises(ScenarioError, match=r"child\.toml: correlations: .*positive semi-definite"):
        load_scenario("child", tmp_path, require_inputs=False)
