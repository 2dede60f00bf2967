"""The command line as a user meets it: exit codes, one-line errors, no tracebacks.

Commands run in this process (``cli.main``, the ``run_cli`` fixture); a subprocess only where
the process itself is under test (its imports, its exit on an internal error, its output
streams)."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import cli
from forecast.data.dataset import DEFAULT_DATA_DIR

ROOT = Path(__file__).resolve().parents[1]


def edit_cell(path: Path, line: int, column: str, value: str) -> None:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    rows[line - 1][rows[0].index(column)] = value
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


def assert_clean_failure(result: Any) -> None:
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_data_validate_passes_on_shipped_data(run_cli):
    result = run_cli("data", "validate")
    assert result.returncode == 0, result.stderr
    assert "all files valid" in result.stdout


def test_data_validate_reports_all_four_problems(run_cli, tmp_path):
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


def test_scenarios_list_and_show(run_cli):
    listed = run_cli("scenarios", "list")
    assert listed.returncode == 0
    assert {"base", "bull", "bear"} <= {line.split()[0] for line in listed.stdout.splitlines()}
    shown = run_cli("scenarios", "show", "bull")
    assert shown.returncode == 0, shown.stderr
    for needle in ("mfu_aws: beta(", "trainium4_launch_quarter: quarter(", "rationale:",
                   "nvidia_share_2030_at_most_70pct", "several billion: 2-9 USD billions per year",
                   "new_chip_ramp_quarters: 2 quarters",
                   "holds if: mean share[aws] in 2030 - in 2025 >= 0.03",
                   "holds if: run_rate aws_rental_revenue first reached by 2030Q4 >= 50"):
        assert needle in shown.stdout


def test_scenarios_validate_all_shipped(run_cli):
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
def test_scenarios_validate_rejects_a_bad_file_in_one_line(run_cli, tmp_path, body, message):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    result = run_cli("scenarios", "validate", str(path))
    assert_clean_failure(result)
    assert len(result.stderr.strip().splitlines()) == 1
    assert message in result.stderr


def test_scenario_name_outside_the_directory_is_refused(run_cli):
    result = run_cli("scenarios", "show", "../../etc/passwd")
    assert_clean_failure(result)
    assert len(result.stderr.strip().splitlines()) == 1


def test_economics_lists_the_key_chips_with_price_sources(run_cli):
    result = run_cli("economics")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()[2:] if line.strip()}
    for chip in ("H100", "H200", "B200", "Instinct", "TPU", "Trainium2", "Trainium3"):
        assert any(name.startswith(chip) for name in rows), chip
    assert "scenario base: trainium2_price_usd_per_chip_hour" in rows["Trainium2"]
    assert "no price in data or scenario" in rows["B200"]
    assert "fp8" in rows["Trainium3"]


def test_economics_bf16_and_bad_precision(run_cli):
    assert run_cli("economics", "--precision", "bf16").returncode == 0
    result = run_cli("economics", "--precision", "fp16")
    assert_clean_failure(result)
    assert len(result.stderr.strip().splitlines()) == 1


def test_unknown_command_is_one_line(run_cli):
    result = run_cli("frobnicate")
    assert_clean_failure(result)
    assert len(result.stderr.strip().splitlines()) == 1


def test_diffusion_rejects_a_bad_csv_in_one_line(run_cli, tmp_path):
    path = tmp_path / "units.csv"
    path.write_text("period,value\n2024Q1,5\n2024Q2,-1\n")
    result = run_cli("diffusion", str(path))
    assert_clean_failure(result)
    assert result.stderr.strip() == f"error: {path}:3:value: must be a positive number, got '-1'"


def test_diffusion_fits_a_csv_and_prints_json(mock_sampler, capsys):
    # Plumbing of the command (CSV in, JSON report out) on prior draws; the real fit of the
    # same CSV and its diagnostics are test_diffusion_units_io's.
    import json

    capsys.readouterr()
    code = cli.main(["diffusion", str(ROOT / "tests/fixtures/diffusion_units.csv"),
                     "--format", "json", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert {row["parameter"] for row in report["parameters"]} == {"p", "q", "m"}
    assert report["n_observations"] == 12 and report["divergences"] == 0
    assert all(row["q50"] > 0 for row in report["parameters"])


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


# --------------------------------------------------------------------------- failures


def test_an_internal_error_is_one_line_and_exit_5():
    # A bug (an exception that is not a ForecastError) is neither a traceback nor "bad
    # input"; FORECAST_DEBUG=1 shows the traceback.
    probe = (
        "import sys, cli\n"
        "import forecast.reporting.console.catalogue as catalogue\n"
        "def broken():\n"
        "    raise KeyError('vendor')\n"
        "catalogue.scenario_list_text = broken\n"
        "sys.exit(cli.main(['scenarios', 'list']))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert result.returncode == 5
    assert result.stderr == ("internal error: KeyError: 'vendor' (please report; run with "
                             "FORECAST_DEBUG=1 for the traceback)\n")
    debug = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           cwd=ROOT, timeout=120, env={**os.environ, "FORECAST_DEBUG": "1"})
    assert debug.returncode == 1
    assert "Traceback" in debug.stderr and "KeyError: 'vendor'" in debug.stderr


@pytest.mark.parametrize("args", [("scenarios", "show", "base"), ("scenarios", "list"),
                                  ("economics",)])
def test_output_to_a_full_disk_is_one_line_and_exit_6(args):
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], stdout=full,
                                stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 6
    assert result.stderr == "error: No space left on device\n"


def test_output_closed_early_is_not_an_error():
    cli_run = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "economics"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    cli_run.stdout.read(10)
    cli_run.stdout.close()  # like `| head -c 10`
    assert cli_run.wait(timeout=120) == 0
    assert cli_run.stderr.read() == b""


@pytest.fixture
def no_sampling(monkeypatch: pytest.MonkeyPatch) -> None:
    def sample(*args: object, **kwargs: object) -> None:
        raise AssertionError("a fit started")

    monkeypatch.setattr("forecast.pipeline.fitting.fit_all", sample)


def test_paths_that_do_not_fit_in_memory_are_refused_before_fitting(tmp_path, capsys,
                                                                   no_sampling):
    code = cli.main(["forecast", "--artifacts", str(tmp_path), "--draws", str(10**12)])
    err = capsys.readouterr().err
    assert code == 2, err
    (line,) = err.strip().splitlines()
    match = re.fullmatch(r"error: 1000000000000 sample paths to 2030 need about [\d.]+ TB of "
                         r"memory and [\d.]+ [kMGT]?B is available: at most (\d+) fit; ask for "
                         r"fewer draws \(or an earlier horizon\)", line)
    assert match and int(match.group(1)) > 1000, line


def test_a_horizon_before_the_data_end_is_refused_before_fitting(tmp_path, capsys,
                                                               no_sampling):
    assert cli.main(["forecast", "--artifacts", str(tmp_path), "--horizon", "2024"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: horizon 2024 is not after the end of the data")
    assert len(err.strip().splitlines()) == 1


def test_a_forecast_whose_new_fit_fails_its_gate_exits_3(tmp_path, capsys, monkeypatch):
    gated = SimpleNamespace(status="gated", fit_id="F1", meta={
        "gate_failures": {"market-abc": ["max r_hat 1.31 > 1.01"]}})
    monkeypatch.setattr("forecast.pipeline.fitting.fit_all", lambda *a, **k: gated)
    monkeypatch.setenv("FORECAST_SHIPPED_FIT", "off")  # no fit anywhere: one is made
    assert cli.main(["forecast", "--artifacts", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert err == ("error: the new fit F1 failed its convergence gate (market-abc: max r_hat "
                   "1.31 > 1.01); it is stored as gated and not used\n")


def test_a_refit_that_fails_unexpectedly_is_recorded_failed_and_exits_5(tmp_path, capsys,
                                                                       monkeypatch):
    from forecast.store.registry import Registry

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("sampler exploded")

    monkeypatch.delenv("FORECAST_DEBUG", raising=False)
    monkeypatch.setattr("forecast.pipeline.fitting.fit_all", broken)
    assert cli.main(["refit", "--artifacts", str(tmp_path), "--scenario", "base"]) == 5
    err = capsys.readouterr().err
    assert err == ("internal error: RuntimeError: sampler exploded (please report; run with "
                   "FORECAST_DEBUG=1 for the traceback)\n")
    (run,) = Registry(tmp_path).runs()
    assert run["outcome"] == "failed"
    assert run["message"] == "RuntimeError: sampler exploded"


# --------------------------------------------------------------------------- progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("argv", "terminal", "bars"),
    [
        (["forecast"], True, True),
        (["forecast"], False, False),  # a pipe, a log, CI: plain lines only
        (["diffusion", "units.csv", "--quiet"], True, False),
        (["diffusion", "units.csv"], True, True),
        (["refit"], True, True),
        (["fits", "list"], True, False),  # never fits
    ],
)
def test_sampler_bars_only_on_a_terminal_for_commands_that_fit(argv, terminal, bars,
                                                               monkeypatch, tmp_path):
    from forecast.models import sampling

    (tmp_path / "units.csv").write_text("period,value\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stderr", _Terminal() if terminal else io.StringIO())
    seen = []
    args = cli.build_parser().parse_args(argv)
    with cli._sampler_display(args):
        seen.append(sampling._PROGRESS_BARS)
    assert seen == [bars]
    assert sampling._PROGRESS_BARS is False


def test_the_bars_reach_nutpie_and_not_the_fit_settings(monkeypatch):
    import nutpie
    import pymc as pm

    from forecast.models import sampling

    calls = []
    monkeypatch.setattr(sampling, "_NUTPIE_COMPILED", {})
    monkeypatch.setattr(nutpie, "compile_pymc_model", lambda model: "compiled")
    monkeypatch.setattr(nutpie, "sample", lambda compiled, **kw: calls.append(kw) or "trace")
    settings = {"nuts_sampler": "nutpie", "draws": 5, "tune": 5, "chains": 2,
                "progressbar": False}
    # An empty model: after nutpie the sampler looks for scan-built deterministics in it.
    model = pm.Model()
    sampling.run_sampler(model, settings, cache_key="probe")
    with sampling.progress_bars():
        sampling.run_sampler(model, settings, cache_key="probe")
    sampling.run_sampler(model, {**settings, "progressbar": True}, cache_key="probe")
    assert [call["progress_bar"] for call in calls] == [False, True, True]
    assert settings["progressbar"] is False  # a display choice, not a sampler setting


#: Samples a one-parameter model with nutpie, bars on (argv[1] == "on") or off.
NUTPIE_PROBE = """
import sys
import pymc as pm
from forecast.models.sampling import progress_bars, run_sampler
with pm.Model() as model:
    pm.Normal("x", 0, 1)
print("before", file=sys.stderr, flush=True)
with progress_bars(sys.argv[1] == "on"):
    run_sampler(model, {"nuts_sampler": "nutpie", "draws": 200, "tune": 200}, cache_key="x")
print("after", file=sys.stderr, flush=True)
"""


@pytest.mark.slow
@pytest.mark.soak
def test_nutpie_bars_draw_on_a_terminal_only():
    import pty

    def run(setting: str, terminal: bool) -> str:
        if not terminal:
            return subprocess.run([sys.executable, "-c", NUTPIE_PROBE, setting],
                                  capture_output=True, text=True, cwd=ROOT,
                                  timeout=300).stderr
        leader, follower = pty.openpty()
        child = subprocess.Popen([sys.executable, "-c", NUTPIE_PROBE, setting], cwd=ROOT,
                                 stdout=subprocess.DEVNULL, stderr=follower)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        assert child.wait(timeout=300) == 0
        return b"".join(chunks).decode(errors="replace").replace("\r\n", "\n")

    # Not a terminal (a pipe, a log): nothing but our own lines, bars on or off.
    assert run("on", terminal=False) == "before\nafter\n"
    assert run("off", terminal=False) == "before\nafter\n"
    # A terminal: the bar with bars on (ending its line), nothing with them off.
    drawn = run("on", terminal=True)
    assert "Progress" in drawn and "Draws" in drawn
    assert drawn.startswith("before\n") and drawn.endswith("\nafter\n")
    assert run("off", terminal=True) == "before\nafter\n"
