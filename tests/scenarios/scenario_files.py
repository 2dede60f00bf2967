"""Helpers writing small scenario files for the tests of :mod:`forecast.scenarios`."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from forecast.core.errors import ScenarioError
from forecast.scenarios import load_scenario


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
vendor = "nvidia"
period = "2030"
comparator = "<="
threshold = 0.7
"""


def load_bad(tmp_path: Path, body: str, **meta: str) -> ScenarioError:
    """Write ``bad.toml`` (header options in ``meta``) and return the error loading it raises."""
    (tmp_path / "bad.toml").write_text(header(**meta) + body, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario("bad", tmp_path, require_inputs=False)
    return info.value
