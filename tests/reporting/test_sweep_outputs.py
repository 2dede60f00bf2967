"""A sweep's files, chart, console text and report section, on a made-up sweep table; the
sensitivity runs on a pluggable map; the progress lines of distributed runs."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pandas as pd
import pytest

from forecast.core.errors import ForecastError
from forecast.pipeline.sweep import SweepResult, Vary
from forecast.reporting.console.progress import PlainProgress, task_progress
from forecast.reporting.console.sweeps import sweep_summary
from forecast.reporting.report import ReportBuilder
from forecast.reporting.report.sweep_section import sweep as sweep_section
from forecast.reporting.sweep import (
    check_thesis,
    point_summary,
    sweep_chart,
    thesis_grid,
    write_sweep,
)
from forecast.scenarios import load_scenario

PNG = b"\x89PNG\r\n\x1a\n"


def made_up(varies: list[Vary], seeds: tuple[int, ...] = (1, 2)) -> SweepResult:
    """A sweep table whose thesis probability is a known function of the grid."""
    rows = []
    grid = list(itertools.product(*(v.labels() for v in varies)))
    for point, values in enumerate(grid):
        for seed in seeds:
            row = {"point": point, "seed": seed}
            row.update(dict(zip([v.name for v in varies], values, strict=True)))
            row["prob_a"] = 0.1 * point + 0.01 * seed
            row["mcse_a"] = 0.02
            row["prob_b"] = 0.5
            row["mcse_b"] = 0.03
            row["median_tam_2030"] = 100.0 + point
            rows.append(row)
    return SweepResult(table=pd.DataFrame(rows), scenario=load_scenario("base"),
                       fit_id="fit-x", varies=varies, draws=300, seeds=list(seeds),
                       horizon=2030)


MFU = Vary("mfu_aws", (0.2, 0.3, 0.4))
LAUNCH = Vary("trainium4_launch_quarter", (8107.0, 8109.0), is_quarter=True)
LIFE = Vary("chip_life_years", (4.0, 6.0))


def test_thesis_grid_averages_seeds_and_other_inputs() -> None:
    result = made_up([MFU, LAUNCH])
    grid = thesis_grid(result, "a")
    assert list(grid.index) == [0.2, 0.3, 0.4]
    assert list(grid.columns) == ["2026Q4", "2027Q2"]
    # point = 2 * row + column; the mean over seeds 1, 2 adds 0.015.
    expected = np.array([[0.1 * (2 * i + j) + 0.015 for j in range(2)] for i in range(3)])
    np.testing.assert_allclose(grid.to_numpy(), expected)
    np.testing.assert_allclose(grid.attrs["mcse"].to_numpy(), 0.02 / np.sqrt(2))
    three = thesis_grid(made_up([MFU, LAUNCH, LIFE], seeds=(1,)), "a")
    assert three.shape == (3, 2) and three.attrs["averaged"] == 2
    line = thesis_grid(made_up([MFU]), "b")
    assert list(line.columns) == ["prob", "mcse"] and (line["prob"] == 0.5).all()


def test_unknown_thesis_is_one_line() -> None:
    result = made_up([MFU])
    assert check_thesis(result, None) == "a"
    with pytest.raises(ForecastError, match="unknown thesis 'c' \\(known: a, b\\)"):
        check_thesis(result, "c")


@pytest.mark.parametrize("varies", [[MFU], [MFU, LAUNCH], [LAUNCH, MFU, LIFE]])
def test_files_are_written_whole(tmp_path, varies) -> None:
    result = made_up(varies)
    paths = write_sweep(result, tmp_path, "a")
    assert [p.name for p in paths] == ["sweep_base.csv", "sweep_base.parquet",
                                       "sweep_base_a.png"]
    pd.testing.assert_frame_equal(pd.read_parquet(paths[1]), result.table)
    assert list(pd.read_csv(paths[0]).columns) == list(result.table.columns)
    assert paths[2].read_bytes()[:8] == PNG
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)


def test_chart_is_a_heat_map_for_two_inputs() -> None:
    import matplotlib.pyplot as plt

    fig, ax = sweep_chart(made_up([MFU, LAUNCH]), "a")
    assert len(ax.images) == 1 and ax.get_xlabel().startswith("trainium4_launch_quarter")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026Q4", "2027Q2"]
    plt.close(fig)


def test_console_summary_and_report_section() -> None:
    result = made_up([MFU, LAUNCH])
    summary = point_summary(result, "a")
    assert len(summary) == 6 and list(summary.columns) == [
        "mfu_aws", "trainium4_launch_quarter", "prob", "mcse"]
    text = sweep_summary(result, "a")
    assert list(text["mfu_aws"]) == ["0.2", "0.2", "0.3", "0.3", "0.4", "0.4"]
    b = ReportBuilder()
    sweep_section(b, result, "a")
    kinds = [type(block).__name__ for block in b.blocks]
    assert kinds == ["Heading", "Paragraph", "Image", "Table"]
    assert b.numbers["sweep:5:a"] == pytest.approx(0.515)
    assert len(b.blocks[-1].rows) == 6


def test_plain_progress_prints_about_ten_lines() -> None:
    lines: list[str] = []
    progress = PlainProgress(lines.append)
    for done in range(101):
        progress(done, 100)
    assert lines[0] == "100 tasks"
    assert len(lines) == 11 and lines[-1].startswith("tasks done: 100/100")
    with task_progress(lines.append, stream=io.StringIO()) as on_task:
        assert isinstance(on_task, PlainProgress)  # not a terminal: plain lines
    with task_progress(None) as on_task:
        assert on_task is None


@pytest.mark.slow
def test_sensitivity_runs_on_a_pluggable_map_give_the_serial_tornado(shipped_store) -> None:
    from forecast.pipeline.runner import load_run
    from forecast.reporting.sensitivity import SimulationSensitivity

    scenario, dataset, bundle = load_run("base", root=shipped_store)
    calls: list[int] = []

    def reversed_map(function, items):
        items = list(items)
        calls.append(len(items))
        return [function(item) for item in reversed(items)][::-1]

    chosen = ["mfu_aws", "owner_utilisation", "chip_life_years"]
    tables = []
    for map_fn in (map, reversed_map):
        runner = SimulationSensitivity(bundle, dataset, scenario, ["aws_revenue:2030"],
                                       draws=150, seed=3, map_fn=map_fn)
        tables.append(runner.tornado(inputs=chosen))
        assert runner.runs == 1 + 2 * len(chosen)
        spider = runner.spider(percentiles=(25, 75), inputs=chosen[:1])
        assert len(spider) == 2
    pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=True)
    # The baseline runs first, alone; the swings go to the map together, then the spider's.
    assert calls == [2 * len(chosen), 2]
