"""End to end: stored fits, `cli.py forecast`, theses, files, bad input, no PyMC on the path.

Every CLI call reads the shipped fit through an empty fit store (``shipped_store`` in
conftest) given as ``--artifacts``. Commands run in this process (``cli.main``); a
subprocess only where the process itself is under test: its imports, its file-size limit,
a full standard output, and files byte-identical across two interpreters (their string
hashes differ).
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forecast.store.shipped import shipped_header

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


@pytest.fixture
def store(shipped_store) -> Path:
    return shipped_store


@pytest.fixture
def forecast(run_cli, store) -> Callable[..., Any]:
    """``cli.py forecast`` at 400 draws on the shipped fit, in this process."""
    def run(*args: str) -> Any:
        return run_cli("forecast", "--artifacts", store, "--draws", "400", *args)

    return run


def forecast_in_a_new_process(store: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), "forecast", "--artifacts",
                           str(store), "--draws", "400", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def test_one_fit_shares_the_price_model_across_scenarios():
    header = shipped_header()
    assert sorted(header["scenarios"]) == ["base", "bear", "bull"]
    kinds = sorted(key.split("-")[0] for key in header["models"])
    # One spend model per scenario (bull and bear set its priors, and its cost gaps follow
    # each scenario's cost assumptions), one price model for all.
    assert kinds == ["price"] + ["spend"] * 3
    prices = {entry["models"]["price"] for entry in header["scenarios"].values()}
    assert len(prices) == 1


@pytest.mark.parametrize("name", ["bull", "base", "bear"])
def test_forecast_table_for_each_scenario(forecast, name):
    result = forecast("--scenario", name)
    assert result.returncode == 0, result.stderr
    for needle in ("tam (USD billions)", "share (fraction of spend)",
                   "nvidia_share_2030_at_most_70pct: P =", "+-",
                   # The AWS silicon quantities, each with its unit.
                   "aws_spend_at_cost (USD billions), calendar year",
                   "aws_rental_revenue (USD billions), calendar year",
                   "aws_merchant_value (USD billions), calendar year",
                   "aws_custom_chips_run_rate (USD billions per year), calendar year"):
        assert needle in result.stdout
    assert "aws_revenue_topdown" not in result.stdout


def test_json_output_has_the_promised_fields(forecast):
    result = forecast("--scenario", "base", "--format", "json", "--seed", "5")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert {"scenario", "fit_id", "draws", "seed", "quantiles", "theses"} <= set(summary)
    assert summary["draws"] == 400 and summary["seed"] == 5
    assert {"metric", "period", "key", "q10", "q50", "q90"} <= set(summary["quantiles"][0])
    thesis = summary["theses"][0]
    assert {"name", "statement", "probability", "mcse"} <= set(thesis)
    for row in summary["quantiles"]:
        assert row["q10"] <= row["q50"] <= row["q90"]
    units = {row["metric"]: row["unit"] for row in summary["quantiles"]}
    assert units["aws_spend_at_cost"] == units["aws_rental_revenue"] == "USD billions"
    assert units["aws_merchant_value"] == "USD billions"
    assert units["aws_custom_chips_run_rate"] == "USD billions per year"
    assert units["aws_fleet"] == "chips in service" and units["aws_shipments"] == "chips"
    years = {row["period"] for row in summary["quantiles"]
             if row["metric"] == "aws_rental_revenue"}
    assert {"2026", "2030"} <= years
    generations = {row["key"] for row in summary["quantiles"] if row["metric"] == "aws_fleet"}
    # The fitted generations, then the scenario's roadmap (Trainium4 and Trainium5).
    assert generations == {f"Trainium{k}" for k in range(1, 6)}


def test_aws_spend_median_is_ordered_bull_base_bear(forecast):
    medians = {}
    for name in ("bull", "base", "bear"):
        result = forecast("--scenario", name, "--format", "json")
        rows = json.loads(result.stdout)["quantiles"]
        (row,) = [r for r in rows if r["metric"] == "aws_spend_at_cost"
                  and r["period"] == "2030"]
        medians[name] = row["q50"]
    assert medians["bull"] >= medians["base"] >= medians["bear"], medians


def test_same_seed_gives_byte_identical_files(forecast, store, tmp_path):
    # One run here, one in a new interpreter: nothing may hang on the process's hash seed.
    args = ("--scenario", "bull", "--seed", "3", "--out")
    for result in (forecast(*args, str(tmp_path / "a")),
                   forecast_in_a_new_process(store, *args, str(tmp_path / "b"))):
        assert result.returncode == 0, result.stderr
    files_a = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert any(name.endswith(".png") for name in files_a)
    assert any(name.endswith(".parquet") for name in files_a)
    for name in files_a:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--scenario", "nonesuch"), "nonesuch"),
        (("--scenario", "base", "--horizon", "2024"), "horizon"),
        (("--scenario", "base", "--draws", "0"), "draws"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(forecast, args, message):
    result = forecast(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith("[")]
    assert len(lines) == 1 and message in lines[0]


def test_unwritable_out_writes_nothing(forecast, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = forecast("--scenario", "base", "--out", str(blocker / "sub"))
    assert result.returncode == 2
    assert result.stderr == (f"error: cli.py forecast: argument --out: {blocker / 'sub'}: not "
                             f"a directory ({blocker} is a file)\n")
    assert blocker.read_text() == "not a directory"
    assert result.stdout == ""  # refused while parsing: no forecast was made


def test_json_to_a_full_disk_is_one_line_and_exit_6(store):
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, str(ROOT / "cli.py"), "forecast",
                                 "--artifacts", str(store), "--draws", "400", "--format",
                                 "json"], stdout=full, stderr=subprocess.PIPE, text=True,
                                cwd=ROOT, timeout=300)
    assert result.returncode == 6
    assert result.stderr == "error: No space left on device\n"


def _small_disk() -> None:
    """In the child: files may not grow past 200 kB (a nearly full disk), writes past it
    fail with EFBIG instead of killing the process."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))


def test_out_on_a_full_disk_is_one_line_exit_6_and_leaves_nothing(store, tmp_path):
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, str(ROOT / "cli.py"), "forecast", "--artifacts",
                             str(store), "--draws", "400", "--out", str(out)],
                            capture_output=True, text=True, cwd=ROOT, timeout=300,
                            preexec_fn=_small_disk)
    assert result.returncode == 6, result.stderr
    assert result.stderr.startswith(f"error: {out}: forecast files not written (")
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert list(out.iterdir()) == []


def test_forecast_path_never_imports_pymc(store):
    code = (
        "import sys, cli\n"
        f"code = cli.main(['forecast', '--artifacts', {str(store)!r}, '--draws', '200',"
        " '--format', 'json'])\n"
        "assert code == 0, code\n"
        "loaded = [m for m in ('pymc', 'pytensor', 'arviz', 'scipy', 'matplotlib')\n"
        "          if m in sys.modules]\n"
        "print('LOADED', loaded)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stdout


def test_csv_and_files_carry_the_aws_quantities_with_their_units(forecast, tmp_path):
    import csv
    import io

    result = forecast("--scenario", "base", "--format", "csv", "--out",
                      str(tmp_path))
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    units = {row["metric"]: row["unit"] for row in rows}
    assert units["aws_rental_revenue"] == "USD billions"
    assert units["aws_custom_chips_run_rate"] == "USD billions per year"
    assert {"aws_spend_at_cost", "aws_merchant_value"} <= set(units)
    with open(tmp_path / "forecast_base_quantiles.csv", newline="") as handle:
        files = {row["metric"]: row["unit"] for row in csv.DictReader(handle)}
    assert files["aws_fleet"] == "chips in service" and files["aws_shipments"] == "chips"
    for chart in ("aws_spend_at_cost", "aws_rental_revenue", "aws_merchant_value"):
        assert (tmp_path / f"forecast_base_{chart}.png").stat().st_size > 0
    summary = json.loads((tmp_path / "forecast_base_summary.json").read_text())
    assert {"aws_rental_revenue", "aws_custom_chips_run_rate"} <= {
        row["metric"] for row in summary["quantiles"]}


def test_compare_puts_scenarios_side_by_side(forecast):
    result = forecast("--compare", "bull", "base", "bear")
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "bull" in line)
    assert header.index("bull") < header.index("base") < header.index("bear")
    for metric in ("aws_spend_at_cost", "aws_rental_revenue", "aws_merchant_value",
                   "aws_custom_chips_run_rate"):
        assert metric in result.stdout
    # The published backtests' losses to a baseline are said once, under the comparison.
    from forecast.pipeline.runner import published_skill_gaps
    from forecast.store.shipped import published_stack_weight

    for gap in published_skill_gaps(published_stack_weight()):
        assert result.stdout.count(gap["line"]) == 1


def readme_python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    blocks = text.split("```python\n")[1:]
    return [block.split("```")[0] for block in blocks]


def test_readme_examples_run_as_written(store, monkeypatch):
    monkeypatch.setenv("FORECAST_ARTIFACTS", str(store))
    blocks = readme_python_blocks()
    assert len(blocks) >= 2
    for block in blocks:
        namespace: dict = {}
        exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102
    assert namespace["paths"]["cost_per_pflop_hour"].sizes["draw"] == 1000


def test_the_forecast_publishes_the_stack_unless_asked_for_the_models_paths(
        run_cli, store) -> None:
    from forecast.pipeline.simulate import stacked_paths
    from forecast.store.shipped import published_stack_weight

    weight = published_stack_weight()
    assert weight is not None  # the shipped share backtest carries the forecast's weight
    done = run_cli("forecast", "--artifacts", store, "--draws", "300", "--format", "json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    held = stacked_paths(weight, 300, summary["seed"])
    assert summary["meta"]["stack"] == {"weight": weight, "held_paths": int(held.sum())}
    done = run_cli("forecast", "--artifacts", store, "--draws", "300", "--no-stack")
    assert done.returncode == 0, done.stderr
    assert "publishes the model's paths" in done.stdout
    assert "out-of-sample stack" not in done.stdout
