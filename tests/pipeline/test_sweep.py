"""Scenario sweeps: the grid syntax, and on the session's fit store, grid points equal to
single ``simulate`` runs, serial equal to Dask, and the command's files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.core.calendar import quarter_index
from forecast.core.errors import ForecastError
from forecast.pipeline.sweep import parse_varies, parse_vary, point_inputs, sweep_seeds
from forecast.scenarios import load_scenario

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def base():
    return load_scenario("base")


def test_vary_makes_an_even_grid(base) -> None:
    vary = parse_vary("mfu_aws=0.2:0.4:5", base)
    assert vary.name == "mfu_aws" and not vary.is_quarter
    np.testing.assert_allclose(vary.values, [0.2, 0.25, 0.3, 0.35, 0.4])
    assert parse_vary("mfu_aws=0.3:0.3:1", base).values == (0.3,)


def test_quarter_inputs_take_labels(base) -> None:
    vary = parse_vary("trainium4_launch_quarter=2026Q4:2027Q4:5", base)
    assert vary.is_quarter
    assert vary.values == tuple(float(quarter_index(q)) for q in
                                ("2026Q4", "2027Q1", "2027Q2", "2027Q3", "2027Q4"))
    assert vary.labels() == ["2026Q4", "2027Q1", "2027Q2", "2027Q3", "2027Q4"]


@pytest.mark.parametrize(("text", "message"), [
    ("mfu_aws", "INPUT=LOW:HIGH:N"),
    ("mfu_aws=0.1:0.2", "INPUT=LOW:HIGH:N"),
    ("=0.1:0.2:3", "INPUT=LOW:HIGH:N"),
    ("no_such_input=1:2:3", "has no input 'no_such_input'"),
    ("mfu_aws=a:0.2:3", "is not a number"),
    ("mfu_aws=0.1:0.2:x", "N must be an integer"),
    ("mfu_aws=0.1:0.2:0", "N >= 1"),
    ("mfu_aws=0.1:0.2:1", "N = 1 only with LOW = HIGH"),
    ("mfu_aws=0.1:inf:3", "finite"),
    ("mfu_aws=0.1:1.5:3", "outside the input's range"),
    ("trainium4_launch_quarter=0.1:0.5:3", "quarter label"),
    ("trainium4_launch_quarter=2026Q4:2027Q1:5", "repeat quarters"),
    ("trainium4_launch_quarter=2020Q1:2027Q1:5", "outside the input's range"),
])
def test_bad_vary_is_one_line(base, text, message) -> None:
    with pytest.raises(ForecastError, match=message) as info:
        parse_vary(text, base)
    assert "\n" not in str(info.value)


def test_varies_need_one_and_each_input_once(base) -> None:
    with pytest.raises(ForecastError, match="at least one"):
        parse_varies([], base)
    with pytest.raises(ForecastError, match="more than once"):
        parse_varies(["mfu_aws=0.2:0.3:2", "mfu_aws=0.2:0.4:2"], base)
    assert sweep_seeds(7, 3) == [7, 8, 9]
    with pytest.raises(ForecastError, match="--seeds"):
        sweep_seeds(7, 0)


def test_point_inputs_hold_the_varied_columns_in_every_path(base) -> None:
    quarter = quarter_index("2027Q2")
    inputs = point_inputs(base, {"mfu_aws": 0.33, "trainium4_launch_quarter": quarter}, 50, 3)
    own = base.sample(50, seed=3)
    assert (inputs["mfu_aws"] == 0.33).all()
    assert (inputs["trainium4_launch_quarter"] == quarter).all()
    assert inputs["trainium4_launch_quarter"].dtype == own["trainium4_launch_quarter"].dtype
    others = [c for c in own if c not in ("mfu_aws", "trainium4_launch_quarter")]
    pd.testing.assert_frame_equal(inputs[others], own[others])


@pytest.mark.parametrize("args", [
    ["sweep", "--vary", "mfu_aws=0.2:0.4:x"],
    ["sweep", "--vary", "nope=1:2:3"],
    ["sweep", "--scenario", "nope", "--vary", "mfu_aws=0.2:0.4:3"],
    ["sweep", "--vary", "mfu_aws=0.2:0.4:3", "--thesis", "nope"],
    ["sweep", "--vary", "mfu_aws=0.2:0.4:3", "--seeds", "0"],
    ["sweep", "--vary", "mfu_aws=0.2:0.4:3", "--draws", "0"],
    ["sweep", "--vary", "mfu_aws=0.2:0.4:3", "--workers", "-1"],
    ["sweep", "--vary", "mfu_aws=0.2:0.4:3", "--workers", "2", "--scheduler", "tcp://h:1"],
    ["sweep"],
])
def test_cli_sweep_bad_input_fails_fast(args, capsys, tmp_path) -> None:
    from cli import main

    assert main([*args, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


# --------------------------------------------------------------------------- on a fit


VARY = ["mfu_aws=0.2:0.4:3", "chip_life_years=4:6:2"]


@pytest.mark.slow
def test_grid_points_equal_single_simulate_runs(shipped_store) -> None:
    from forecast.pipeline.runner import load_run
    from forecast.pipeline.simulate import simulate
    from forecast.pipeline.sweep import point_row, run_sweep

    result = run_sweep("base", VARY, draws=300, seed=5, seeds=2, root=shipped_store)
    table = result.table
    assert len(table) == 6 * 2 and list(table["point"]) == [p for p in range(6) for _ in (0, 1)]
    assert list(table.columns[:4]) == ["point", "seed", "mfu_aws", "chip_life_years"]
    scenario, dataset, bundle = load_run("base", root=shipped_store)
    for index in (0, 7, 11):
        row = table.iloc[index]
        inputs = scenario.sample(300, seed=int(row["seed"]))
        inputs["mfu_aws"] = row["mfu_aws"]
        inputs["chip_life_years"] = row["chip_life_years"]
        single = simulate(bundle, dataset, scenario, draws=300, seed=int(row["seed"]),
                          inputs=inputs)
        expected = point_row(single)
        assert {k: row[k] for k in expected} == expected
        theses = single.theses().set_index("name")["probability"]
        for name, probability in theses.items():
            assert row[f"prob_{name}"] == probability


@pytest.mark.slow
def test_sweep_on_a_local_cluster_equals_the_serial_sweep(shipped_store) -> None:
    from forecast.pipeline.execution import executor
    from forecast.pipeline.sweep import run_sweep

    serial = run_sweep("bull", VARY, draws=250, seeds=2, root=shipped_store)
    with executor(2, fallback=False) as task_map:  # too small to pay: force the cluster
        other = run_sweep("bull", VARY, draws=250, seeds=2, root=shipped_store, map_fn=task_map)
    pd.testing.assert_frame_equal(serial.table, other.table, check_exact=True)


@pytest.mark.slow
def test_cli_sweep_writes_the_table_and_the_heat_map(run_cli, shipped_store, tmp_path) -> None:
    out = tmp_path / "out"
    result = run_cli(
        "sweep", "--artifacts", shipped_store, "--vary", "mfu_aws=0.2:0.4:3", "--vary",
        "trainium4_launch_quarter=2026Q4:2027Q4:3", "--draws", "200", "--seeds", "2",
        "--thesis", "aws_rental_run_rate_50b_by_2030", "--workers", "0", "--out", out)
    assert result.returncode == 0, result.stderr
    assert "P(aws_rental_run_rate_50b_by_2030)" in result.stdout
    table = pd.read_parquet(out / "sweep_base.parquet")
    assert len(table) == 9 * 2
    assert set(table["trainium4_launch_quarter"]) == {"2026Q4", "2027Q2", "2027Q4"}
    csv = pd.read_csv(out / "sweep_base.csv")
    assert list(csv.columns) == list(table.columns)
    png = out / "sweep_base_aws_rental_run_rate_50b_by_2030.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "wrote" in result.stderr and "tasks done: 18/18" in result.stderr
