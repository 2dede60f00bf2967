"""Tests of finding and loading scenario files: names never reach outside their directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from scenario_files import header, normal_input, write

from forecast.core.errors import ScenarioError
from forecast.scenarios import DEFAULT_SCENARIOS_DIR, load_scenario, load_scenario_file


@pytest.mark.parametrize(
    "name",
    ["../../etc/passwd", "/etc/passwd", "..", "base.toml", "sub/base", "", "a b", "~root"],
)
def test_names_cannot_reach_outside_the_directory(tmp_path: Path, name: str) -> None:
    write(tmp_path, "base", header("base") + normal_input())
    with pytest.raises(ScenarioError, match="is not a scenario name") as info:
        load_scenario(name, tmp_path, require_inputs=False)
    assert "\n" not in str(info.value)


def test_path_object_is_refused_by_load_scenario(tmp_path: Path) -> None:
    path = write(tmp_path, "base", header("base") + normal_input())
    with pytest.raises(ScenarioError, match="load_scenario_file"):
        load_scenario(path, tmp_path)  # type: ignore[arg-type]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlink_escaping_the_directory_is_refused(tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    target = write(tmp_path, "evil", header("evil") + normal_input())
    (inner / "evil.toml").symlink_to(target)
    with pytest.raises(ScenarioError, match="resolves outside"):
        load_scenario("evil", inner, require_inputs=False)


def test_unknown_name_lists_available(tmp_path: Path) -> None:
    write(tmp_path, "base", header("base") + normal_input())
    with pytest.raises(ScenarioError, match=r"no scenario named 'bul' .*available: base"):
        load_scenario("bul", tmp_path, require_inputs=False)


def test_load_scenario_file_resolves_extends_in_its_directory(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    write(user, "mine", header("mine") + normal_input() + normal_input("b"))
    child = write(user, "child", header("child", extends="mine") + normal_input("b", mu="5.0"))
    scenario = load_scenario_file(child, require_inputs=False)
    assert scenario.lineage == ("mine",)
    assert scenario.inputs["b"].params["mu"] == 5.0
    assert load_scenario_file(DEFAULT_SCENARIOS_DIR / "bull.toml").extends == "base"
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario_file(user / "absent.toml")
    with pytest.raises(ScenarioError, match=r"\.toml suffix"):
        load_scenario_file(user / "mine.txt")


@pytest.mark.parametrize("length", [101, 5000])
def test_overlong_scenario_name_is_one_short_error(tmp_path: Path, length: int) -> None:
    name = "a" * length
    with pytest.raises(ScenarioError) as caught:
        load_scenario(name, tmp_path)
    message = str(caught.value)
    assert "at most 100 characters" in message
    assert "\n" not in message and len(message) < 400


def test_overlong_file_name_is_one_short_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario_file(tmp_path / f"{'a' * 5000}.toml")
    assert "at most 100 characters" in str(caught.value) and len(str(caught.value)) < 700


def test_hundred_character_name_loads(tmp_path: Path) -> None:
    name = "a" * 100
    (tmp_path / f"{name}.toml").write_text(
        f'[scenario]\nname = "{name}"\ndescription = "d"\nhorizon = 2030\ndraws = 10\n'
        "seed = 1\n", encoding="utf-8")
    assert load_scenario(name, tmp_path, require_inputs=False).name == name


def test_cli_refuses_a_5000_character_name_in_one_line() -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "cli.py", "scenarios", "show", "x" * 5000],
                            capture_output=True, text=True, cwd=root, timeout=120)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "at most 100 characters" in result.stderr and "Traceback" not in result.stderr
