"""The command line as a user meets it: exit codes, one-line errors, no tracebacks."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from forecast.data.dataset import DEFAULT_DATA_DIR

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def edit_cell(path: Path, line: int, column: str, value: str) -> None:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    rows[line - 1][rows[0].index(column)] = value
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


def assert_clean_failure(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_data_validate_passes_on_shipped_data():
    result = run_cli("data", "validate")
    assert result.returncode == 0, result.stderr
    assert "all files valid" in result.stdout


def test_data_validate_reports_all_four_problems(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, data)
    edit_cell(data / "gpu_rental_prices.csv", 2, "usd_per_chip_hour", "-4.10")
    edit_cell(data / "gpu_rental_prices.csv", 10, "chip", "H900")
    edit_cell(data / "gpu_rental_prices.csv", 4, "date", "2024-13-45")
    edit_cell(data / "vendor_quarterly_revenue.csv", 7, "source", "")
    result = run_cli("data", "validate", "--data", str(data))
    assert_clean_failure(result)
    lines = result.stderr.strip().splitlines()
    located = sorted(line.split(": ")[0] for line in lines[:-1])
    assert located == [
        "gpu_rental_prices.csv:10:chip",
        "gpu_rental_prices.csv:2:usd_per_chip_hour",
        "gpu_rental_prices.csv:4:date",
        "vendor_quarterly_revenue.csv:7:source",
    ]
    assert lines[-1] == "4 problem(s) found"


def test_scenarios_list_and_show():
    listed = run_cli("scenarios", "list")
    assert listed.returncode == 0
    assert {"base", "bull", "bear"} <= {line.split()[0] for line in listed.stdout.splitlines()}
    shown = run_cli("scenarios", "show", "bull")
    assert shown.returncode == 0, shown.stderr
    for needle in ("mfu_aws: beta(", "trainium4_launch_quarter: quarter(", "rationale:",
                   "nvidia_share_2030_at_most_70pct"):
        assert needle in shown.stdout


def test_scenarios_validate_all_shipped():
    result = run_cli("scenarios", "validate")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(": valid") == 3


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[scenario]\nname = "bad"\ndescription = "x"\nhorizon = 2030\ndraws = 10\nseed = 1\n'
         'colour = "red"\n', "colour"),
        ('[scenario]\nname = "bad"\ndescription = "x"\nhorizon = 2030\ndraws = 10\nseed = 1\n'
         '[inputs.a]\ndist = "normal"\nmu = 0\nsigma = -1\nunit = "x"\nrationale = "y"\n',
         "sigma"),
        ('[scenario]\nname = "bad"\ndescription = "x"\nhorizon = 2030\ndraws = 10\nseed = 1\n'
         '[inputs.a]\ndist = "uniform"\nlower = 2\nupper = 1\nunit = "x"\nrationale = "y"\n',
         "lower"),
    ],
)
def test_scenarios_validate_rejects_a_bad_file_in_one_line(tmp_path, body, message):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    result = run_cli("scenarios", "validate", str(path))
    assert_clean_failure(result)
    assert len(result.stderr.strip().splitlines()) == 1
    assert message in result.stderr


def test_scenario_name_outside_the_directory_is_refused():
    result = run_cli("scenarios", "show", "../../etc/passwd")
    assert_clean_failure(result)
    assert len(result.stderr.strip().splitlines()) == 1


def test_economics_lists_the_key_chips_with_price_sources():
    result = run_cli("economics")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()[2:] if line.strip()}
    for chip in ("H100", "H200", "B200", "Instinct", "TPU", "Trainium2", "Trainium3"):
        assert any(name.startswith(chip) for name in rows), chip
    assert "scenario base: trainium2_price_usd_per_chip_hour" in rows["Trainium2"]
    assert "no price in data or scenario" in rows["B200"]
    assert "fp8" in rows["Trainium3"]


def test_economics_bf16_and_bad_precision():
    assert run_cli("economics", "--precision", "bf16").returncode == 0
    result = run_cli("economics", "--precision", "fp16")
    assert_clean_failure(result)
    assert len(result.stderr.strip().splitlines()) == 1


def test_unknown_command_is_one_line():
    result = run_cli("frobnicate")
    assert_clean_failure(result)
    assert len(result.stderr.strip().splitlines()) == 1


def test_diffusion_rejects_a_bad_csv_in_one_line(tmp_path):
    path = tmp_path / "units.csv"
    path.write_text("period,value\n2024Q1,5\n2024Q2,-1\n")
    result = run_cli("diffusion", str(path))
    assert_clean_failure(result)
    assert result.stderr.strip() == f"error: {path}:3:value: must be a positive number, got '-1'"


@pytest.mark.slow
def test_diffusion_fits_a_csv_and_prints_json(tmp_path):
    import json

    result = run_cli("diffusion", str(ROOT / "tests/fixtures/diffusion_units.csv"),
                     "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert {row["parameter"] for row in report["parameters"]} == {"p", "q", "m"}
    assert report["max_r_hat"] < 1.05 and report["divergences"] == 0


def test_garbage_collector_paused_only_for_the_command_itself() -> None:
    # Run as a command, cli.py pauses the collector for its imports, freezes what they
    # created and resumes it before the command runs; imported (by tests, notebooks) it
    # leaves the collector alone.
    probe = (
        "import gc, runpy, sys\n"
        "import cli\n"
        "assert gc.isenabled() and gc.get_freeze_count() == 0\n"
        "import forecast.scenarios as scenario\n"
        "original = scenario.list_scenarios\n"
        "def probe():\n"
        "    print(gc.isenabled(), gc.get_freeze_count() > 50_000)\n"
        "    return original()\n"
        "scenario.list_scenarios = probe\n"
        "sys.argv = ['cli.py', 'scenarios', 'list']\n"
        "runpy.run_path('cli.py', run_name='__main__')\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "True True"
    assert "base" in result.stdout
