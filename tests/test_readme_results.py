"""``benchmarks/readme_results.py``: its arguments, its Markdown, and its cheapest section
(``forecasts``) on the session's small-sampler fit store (no sampling of its own)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "readme_results.py"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("readme_results", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def test_arguments_default_to_every_section_and_the_readme_store(script):
    args = script.parse_args([])
    assert args.section == "all"
    assert args.artifacts == ROOT / "artifacts" / "readme"
    args = script.parse_args(["--section", "price", "--artifacts", "/tmp/store"])
    assert (args.section, args.artifacts) == ("price", Path("/tmp/store"))


def test_every_readme_section_can_be_asked_for_and_no_other(script, capsys):
    assert set(script.SECTIONS) == {"price", "market", "share", "forecasts", "aws"}
    for name in script.SECTIONS:
        assert script.parse_args(["--section", name]).section == name
    with pytest.raises(SystemExit):
        script.parse_args(["--section", "prices"])
    assert "invalid choice" in capsys.readouterr().err


def test_markdown_table_aligns_labels_left_and_numbers_right(script):
    frame = pd.DataFrame({"model": ["a", "b"], "crps": ["0.163", "0.140"]})
    assert script.markdown(frame).splitlines() == [
        "| model | crps |", "|---|---:|", "| a | 0.163 |", "| b | 0.140 |"]
    assert script.pct(0.0757) == "+7.6%"
    assert script.pct(0.7, 0, sign=False) == "70%"


def test_section_heading_names_its_command(script):
    text = script.render("price", [("decay", "| a |\n|---|")], 12.3)
    assert text.startswith('## price: README "M2 price erosion"')
    assert "`python benchmarks/readme_results.py --section price` (12 s)" in text
    assert "### decay" in text


@pytest.mark.slow
def test_forecasts_section_prints_the_tables_from_a_stored_fit(shipped_store):
    result = subprocess.run([sys.executable, str(SCRIPT), "--section", "forecasts",
                             "--artifacts", str(shipped_store)], capture_output=True, text=True,
                            cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("## forecasts: README")
    assert "sampling" not in result.stderr  # the stored fits are read, none is made
    tables = [line for line in out.splitlines() if line.startswith("| ")]
    assert "| year | P10 | P50 | P90 |" in tables
    years = [line.split(" | ")[0].strip("| ") for line in tables
             if line[2:6].isdigit() and line.count("|") == 5]
    assert years[:5] == ["2026", "2027", "2028", "2029", "2030"]
    for name in ("bull", "base", "bear"):
        assert f"| nvidia_share_2030_at_most_70pct | {name} | " in out
        assert f"| {name} | nvidia | " in out


@pytest.mark.slow
def test_aws_section_prints_each_quantity_year_and_scenario_with_its_unit(shipped_store):
    result = subprocess.run([sys.executable, str(SCRIPT), "--section", "aws",
                             "--artifacts", str(shipped_store)], capture_output=True, text=True,
                            cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('## aws: README "M5 AWS custom silicon"')
    assert "sampling" not in result.stderr  # the stored fits are read, none is made
    rows = [line.split(" | ") for line in result.stdout.splitlines()
            if line.startswith("| aws_") and not line.startswith("| aws_silicon")]
    cells = {(row[0].strip("| "), row[2], row[3]): row[1] for row in rows}
    for metric, unit in (("aws_spend_at_cost", "USD billions"),
                         ("aws_rental_revenue", "USD billions"),
                         ("aws_merchant_value", "USD billions"),
                         ("aws_custom_chips_run_rate", "USD billions per year")):
        for year in ("2026", "2030"):
            for name in ("bull", "base", "bear"):
                assert cells[(metric, year, name)] == unit
    assert len(rows) == 4 * 2 * 3
    for name in ("bull", "base", "bear"):
        assert f"| aws_silicon ({name}) | " in result.stdout
