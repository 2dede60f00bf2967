"""Hostile but realistic inputs (issue #36): each is refused with exit code 2 and one line on
stderr, no traceback, naming the file, the input or row, or the flag, and before any work.

Every command runs in this process through ``cli.main``. Nothing here needs a fit: each
refusal comes before one would be made or read (an empty fit store, with sampling and
simulation patched to fail the test if they start). The sizes are also run in a process
limited to 2 GB of address space (:func:`test_sizes_are_refused_within_2_gb`).
"""

from __future__ import annotations

import json
import re
import resource
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

import cli
from forecast.data.dataset import DEFAULT_DATA_DIR
from forecast.scenarios import DEFAULT_SCENARIOS_DIR
from forecast.scenarios import loading as scenario_loading

ROOT = Path(__file__).resolve().parents[1]
#: Address space of the process that runs the oversized requests.
MEMORY_LIMIT = 2 * 1024**3


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the CLI in this process; assert exit 2 and one line on stderr; return the line."""
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, (argv, err)
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty fit store; any fit, refit, simulation, sweep run, backtest cluster or model
    fit fails the test (a grid or list built too early fails in 2 GB, below)."""

    def started(*args: object, **kwargs: object) -> None:
        raise AssertionError("work started before the input was checked")

    for target in ("forecast.pipeline.fitting.fit_all", "forecast.pipeline.refit.refit",
                   "forecast.pipeline.simulate.simulate", "forecast.pipeline.sweep.run_sweep",
                   "forecast.pipeline.sweep.sweep_tasks",
                   "forecast.reporting.console.progress.task_executor",
                   "forecast.models.protocol.BayesianModel.fit"):
        monkeypatch.setattr(target, started)
    return tmp_path / "artifacts"


# --------------------------------------------------------------------------- scenarios

HEAD = '[scenario]\nname = "{name}"\nextends = "base"\n\n'
INPUT = '[inputs.{name}]\n{body}\nunit = "test"\nrationale = "hostile"\n'
THESIS = ('[theses.t]\nstatement = "hostile"\nperiod = "2030"\ncomparator = "<="\n'
          'aggregate = "mean"\n{body}\n')

#: (case, scenario body, what the line names: the key path, then the rule).
SCENARIOS = [
    ("lognormal_sigma_1e300",
     INPUT.format(name="trainium2_price_usd_per_chip_hour",
                  body='dist = "lognormal"\nmedian = 4.8\nsigma = 1e300'),
     ["inputs.trainium2_price_usd_per_chip_hour", "a positive amount", "0 to inf"]),
    ("mfu_mean_1e308",
     INPUT.format(name="mfu_aws", body='dist = "normal"\nmu = 1e308\nsigma = 0.1'),
     ["inputs.mfu_aws", "a fraction in (0, 1]", "-inf to inf"]),
    ("mfu_from_half_to_five",
     INPUT.format(name="mfu_aws", body='dist = "uniform"\nlower = 0.5\nupper = 5.0'),
     ["inputs.mfu_aws", "a fraction in (0, 1]", "from 0.5 to 5"]),
    ("trainium4_in_1990",
     INPUT.format(name="trainium4_launch_quarter",
                  body='dist = "quarter"\nvalues = ["1990Q1", "2027Q1"]\nprobs = [0.5, 0.5]'),
     ["inputs.trainium4_launch_quarter", "1990Q1", "before Trainium3 was released"]),
    ("vendor_bogus", THESIS.format(body='metric = "share"\nvendor = "bogus"\nthreshold = 0.1'),
     ["theses.t.vendor", "unknown vendor 'bogus'"]),
    ("vendor_on_tam", THESIS.format(body='metric = "tam"\nvendor = "aws"\nthreshold = 500.0'),
     ["theses.t.vendor", "metric 'tam' has no vendor dimension"]),
    ("share_threshold_5",
     THESIS.format(body='metric = "share"\nvendor = "aws"\nthreshold = 5.0'),
     ["theses.t.threshold", "a fraction, in [0, 1]"]),
    ("price_of_no_chip", '[chip_prices]\n"Trainium9" = "trainium3_price_usd_per_chip_hour"\n',
     ["chip_prices.Trainium9", "not a chip of the catalogue", "did you mean 'Trainium3'?"]),
    ("input_no_model_reads",
     INPUT.format(name="mfu_asw", body='dist = "beta"\nalpha = 6.0\nbeta = 10.0'),
     ["inputs.mfu_asw", "no model or scenario table reads", "did you mean 'mfu_aws'?"]),
    ("thesis_on_one_path_per_chip",
     THESIS.format(body='metric = "price"\nthreshold = 3.0'),
     ["theses.t.metric", "one path per chip"]),
]


@pytest.fixture
def scenarios(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped scenarios and one file per hostile case, where ``forecast --scenario``
    finds them (as a user's files next to ``base.toml``)."""
    directory = tmp_path / "scenarios"
    shutil.copytree(DEFAULT_SCENARIOS_DIR, directory)
    for case, body, _ in SCENARIOS:
        (directory / f"{case}.toml").write_text(HEAD.format(name=case) + body, encoding="utf-8")
    monkeypatch.setattr(scenario_loading, "DEFAULT_SCENARIOS_DIR", directory)
    return directory


@pytest.mark.parametrize(("case", "names"), [(c, n) for c, _, n in SCENARIOS],
                         ids=[c for c, _, _ in SCENARIOS])
def test_scenarios_validate_refuses_naming_the_file_and_key(case, names, scenarios, capsys):
    line = refused(["scenarios", "validate", str(scenarios / f"{case}.toml")], capsys)
    assert f"{case}.toml: {names[0]}: " in line, line
    assert all(name in line for name in names[1:]), line


@pytest.mark.parametrize(("case", "names"), [(c, n) for c, _, n in SCENARIOS],
                         ids=[c for c, _, _ in SCENARIOS])
def test_forecast_refuses_what_validate_refuses_in_the_same_words(case, names, scenarios,
                                                                    no_work, capsys):
    validate = refused(["scenarios", "validate", str(scenarios / f"{case}.toml")], capsys)
    line = refused(["forecast", "--scenario", case, "--artifacts", str(no_work)], capsys)
    assert line == validate


def test_forecast_names_the_input_of_a_draw_no_reader_can_take(monkeypatch, capsys):
    """A frame of draws passed to simulate (a sensitivity run's, a sweep's) is checked by
    input before the cost paths see it ("utilisation must be in (0, 1]" named none)."""
    import pandas as pd

    from forecast.core.errors import ScenarioError
    from forecast.scenarios import load_scenario
    from forecast.scenarios.supports import check_draws

    base = load_scenario("base")
    draws = base.sample(20, seed=1)
    check_draws(base, draws)
    draws.loc[3, "mfu_google"] = 1.7
    with pytest.raises(ScenarioError, match=r"input 'mfu_google' drew 1\.7 \(1 of 20 draws\), "
                                            r"but the forecast reads it as a fraction in"):
        check_draws(base, draws)
    draws = base.sample(20, seed=1).assign(amd_price_erosion=pd.Series([float("inf")] * 20))
    with pytest.raises(ScenarioError, match="'amd_price_erosion' drew inf .* price_erosion.amd"):
        check_draws(base, draws)


# --------------------------------------------------------------------------- data


def _cut_bytes(data: Path) -> None:
    path = data / "gpu_rental_prices.csv"
    content = path.read_bytes()
    path.write_bytes(content[:len(content) // 2])


def _cut_lines(data: Path) -> None:
    path = data / "gpu_rental_prices.csv"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:len(lines) // 2]))


def _replace(name: str, old: bytes, new: bytes) -> Callable[[Path], None]:
    def edit(data: Path) -> None:
        path = data / name
        content = path.read_bytes()
        assert content.count(old) == 1
        path.write_bytes(content.replace(old, new))
    return edit


#: The rental file's rows when the shipped data were last merged (data/manifest.csv).
RENTAL_ROWS = next(int(line.split(",")[1]) for line in
                   (DEFAULT_DATA_DIR / "manifest.csv").read_text().splitlines()
                   if line.startswith("gpu_rental_prices.csv,"))
#: (case, edit of a copy of data/, what the line names: file:row:column, then the rule).
DATA = [
    ("rental_cut_in_half", _cut_bytes, ["gpu_rental_prices.csv:", "the file ends inside this "
                                         "line, without a line end: it looks cut off"]),
    ("rental_cut_at_a_line_end", _cut_lines,
     ["gpu_rental_prices.csv:::", f"manifest.csv records {RENTAL_ROWS}"]),
    ("nvidia_group_renamed", _replace("vendor_groups.csv", b"NVIDIA,nvidia,", b"NVIDIA,nvda,"),
     ["vendor_groups.csv:2:vendor_group:", "'nvda' is not one the models know"]),
    ("fy1999_on_a_2019_row", _replace("vendor_quarterly_revenue.csv", b"FY2020Q2,2019-07-28",
                                      b"FY1999Q1,2019-07-28"),
     ["vendor_quarterly_revenue.csv:3:fiscal_period:", "fiscal year 1999"]),
    ("as_of_deleted", lambda data: (data / "as_of.csv").unlink(),
     ["as_of.csv:::", "file is missing"]),
]


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, target)
    return target


@pytest.mark.parametrize(("edit", "names"), [(e, n) for _, e, n in DATA],
                         ids=[c for c, _, _ in DATA])
def test_data_validate_refuses_naming_file_row_and_column(edit, names, data_copy, capsys):
    edit(data_copy)
    line = refused(["data", "validate", "--data", str(data_copy)], capsys)
    assert line.startswith(names[0]) and names[1] in line, line
    assert re.match(r"[a-z_]+\.csv:\d*:[a-z_]*: ", line), line  # file:row:column: rule


@pytest.mark.parametrize(("edit", "names"), [(e, n) for _, e, n in DATA],
                         ids=[c for c, _, _ in DATA])
def test_forecast_refuses_the_data_at_the_same_place(edit, names, data_copy, no_work, capsys):
    edit(data_copy)
    line = refused(["forecast", "--data", str(data_copy), "--artifacts", str(no_work)], capsys)
    assert line.startswith(names[0]) and names[1] in line, line  # not later, in the Rubin roadmap


# --------------------------------------------------------------------------- sizes and ids

GIANT = "x" * 5000
#: (case, arguments, what the line names).
SIZES = [
    ("sweep_seeds", ["sweep", "--vary", "mfu_aws=0.2:0.4:3", "--seeds", "1000000000"],
     ["--seeds 1000000000", "100,000"]),
    ("sweep_axis", ["sweep", "--vary", "mfu_aws=0.2:0.4:1000000000"],
     ["--vary mfu_aws: 1,000,000,000 points", "100,000"]),
    ("sweep_two_axes", ["sweep", "--vary", "mfu_aws=0.2:0.4:100000", "--vary",
                        "pue=1.1:1.5:100000"], ["--vary pue: 100,000 points", "100,000"]),
    ("sweep_held_at_1e300", ["sweep", "--vary", "trainium2_price_usd_per_chip_hour=1:1e300:3"],
     ["--vary trainium2_price_usd_per_chip_hour: 1e+300 is not a positive amount"]),
    *[(f"backtest_{target}_{origins}", ["backtest", target, "--origins", origins,
                                         "--workers", "0"], [f"--origins {origins}:"])
      for target in ("price", "share") for origins in ("40", "500", "1000000000")],
    ("backtest_spend_500", ["backtest", "spend", "--origins", "500", "--workers", "0"],
     ["--origins 500:", "nvidia_data_center has", "ask for at most"]),
    ("backtest_spend_1000000000", ["backtest", "spend", "--origins", "1000000000", "--workers",
                                   "0"], ["--origins 1000000000:"]),
    ("backtest_draws", ["backtest", "price", "--origins", "20", "--draws", "100000",
                        "--quarters", "300", "--workers", "0"], ["--draws 100000", "GB"]),
    ("believe_three_paths", ["believe", "trainium3_half_cost", "--draws", "3"],
     ["--draws 3:", "varying inputs and needs at least", "paths (4 per input"]),
    ("horizon_before_a_thesis", ["forecast", "--horizon", "2027"],
     ["horizon 2027: thesis nvidia_share_2030_at_most_70pct reads 2030"]),
    ("fit_id_5000_characters", ["fits", "show", GIANT], ["fit_id:", "longer than 100"]),
    ("fit_option_5000_characters", ["forecast", "--fit", GIANT], ["--fit:", "(5000)"]),
    ("fit_id_a_path", ["fits", "diff", "../fits/x", "y"], ["old:", "'../fits/x'"]),
]
STORE_COMMANDS = ("sweep", "believe", "forecast", "fits")


def _with_store(argv: list[str], store: Path) -> list[str]:
    return [*argv, "--artifacts", str(store)] if argv[0] in STORE_COMMANDS else argv


@pytest.mark.parametrize(("argv", "names"), [(a, n) for _, a, n in SIZES],
                         ids=[c for c, _, _ in SIZES])
def test_sizes_and_ids_are_refused_before_any_work(argv, names, no_work, capsys):
    line = refused(_with_store(argv, no_work), capsys)
    assert all(name in line for name in names), line


def test_sizes_are_refused_within_2_gb(tmp_path):
    """The oversized requests, in a process whose address space is 2 GB: a grid, seed list or
    list of cut-offs built before the check would fail there (out of memory, exit 6) or never
    return, instead of exit 2 at once."""
    cases = {case: _with_store(argv, tmp_path / "artifacts") for case, argv, _ in SIZES
             if case.startswith(("sweep_seeds", "sweep_axis", "sweep_two"))
             or case.endswith("_1000000000")}
    script = textwrap.dedent(f"""
        import contextlib, io, json, sys
        sys.path.insert(0, {str(ROOT)!r})
        import cli
        results = {{}}
        for case, argv in json.loads({json.dumps(json.dumps(cases))}).items():
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = cli.main(argv)
            results[case] = [code, err.getvalue().strip().splitlines()]
        print(json.dumps(results))
    """)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=ROOT, timeout=300, preexec_fn=limit)
    assert result.returncode == 0, result.stderr[-2000:]
    results = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(results) == set(cases) and len(cases) == 6  # 3 sweeps, 3 backtests
    for case, (code, lines) in results.items():
        assert code == 2 and len(lines) == 1, (case, code, lines)
