"""House rules that keep the package readable: small modules, short functions, and the layer
contracts of pyproject.toml (checked by import-linter in CI as well)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def _sources() -> list[Path]:
    return sorted((ROOT / "forecast").rglob("*.py")) + [ROOT / "cli.py"]


def test_no_module_over_500_lines() -> None:
    long = {str(path.relative_to(ROOT)): n for path in _sources()
            if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_over_80_lines() -> None:
    long = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length})")
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_every_layer_is_a_folder_with_its_contract() -> None:
    layers = {"core", "data", "scenarios", "economics", "models", "evaluation", "store",
              "pipeline", "reporting"}
    assert layers <= {p.name for p in (ROOT / "forecast").iterdir() if p.is_dir()}
    loose = [p.name for p in (ROOT / "forecast").glob("*.py") if p.name != "__init__.py"]
    assert not loose, f"modules outside the layers: {loose}"
    text = (ROOT / "pyproject.toml").read_text()
    for layer in layers - {"core"}:
        assert f"forecast.{layer}" in text, f"no import contract names forecast.{layer}"
