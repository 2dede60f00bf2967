"""Benchmark the Dask execution layer: a market backtest serial and on 2 workers, and a sweep.

Targets (issue: backtests and sweeps on Dask):

1. The market backtest (``--origins`` origins x 1 series, the Bayesian market model at its
   default sampler plus the three baselines: ``4 x origins`` tasks) on a 2-worker
   ``LocalCluster`` at least 1.6x faster than serially, with identical scores.
2. A sweep of 200 grid points x 2,000 paths from a warm fit on 2 workers in under 2 minutes,
   with grid points equal to single ``simulate`` runs at the same inputs and seed.

The distributed backtest runs first, so that whatever a first run leaves warm (PyTensor's
compile cache on disk, the validated-data cache) favours the serial run, not the speed-up.
Each fit compiles the market model through numba for its data cut in whichever process runs
it (60-120 s), then samples; a worker is bound to one core, so its fit samples its two
chains on that core, where the serial fit samples them on two. Where the time goes: per
task, the wall seconds, and for the Bayesian fits the sampling seconds (the rest of a fit
task is building and compiling the model).

Needs a stored fit of ``--scenario`` (run ``python cli.py forecast --scenario base`` once).

    python benchmarks/bench_distributed.py [--origins 6] [--workers 2] [--points 20x10]
        [--paths 2000] [--skip-backtest] [--skip-serial-sweep]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import pandas as pd

from forecast.data.dataset import load_dataset
from forecast.evaluation.market_backtest import backtest_market
from forecast.models.market import MarketModel
from forecast.pipeline.execution import executor
from forecast.pipeline.runner import load_run
from forecast.pipeline.simulate import simulate
from forecast.pipeline.sweep import point_inputs, point_row, run_sweep

TARGET_SPEEDUP = 1.6
TARGET_SWEEP_SECONDS = 120.0


class RecordingMap:
    """A ``map_fn`` keeping every task result (to see where the time went)."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.results: list[Any] = []

    def __call__(self, fn: Any, items: Any) -> list[Any]:
        out = list(self.inner(fn, items))
        self.results.extend(out)
        return out


def market_backtest(origins: int, map_fn: Any) -> tuple[pd.DataFrame, float, RecordingMap]:
    """The market backtest at the model's default sampler: tidy scores, wall seconds and
    the task results."""
    default = MarketModel.default_sampler
    sampler = {"draws": default["draws"], "tune": default["tune"], "chains": 2}
    recording = RecordingMap(map_fn)
    started = time.perf_counter()
    tidy, _ = backtest_market(load_dataset(), origins=origins, sampler=sampler,
                              map_fn=recording)
    return tidy, time.perf_counter() - started, recording


def where_time_goes(tidy: pd.DataFrame, recording: RecordingMap) -> str:
    """Task seconds of the Bayesian fits (sampling, and the rest: build and compile) and of
    the baselines."""
    fits = [r for r in recording.results if r.forecaster == "bayes_market"]
    others = [r for r in recording.results if r.forecaster != "bayes_market"]
    sampling = sum(float(fit.get("fit_seconds") or 0.0) for fit in tidy.attrs["fits"])
    total = sum(r.seconds for r in fits)
    return (f"{len(fits)} Bayesian fit tasks {total:.0f} s (sampling {sampling:.0f} s, "
            f"build + compile {total - sampling:.0f} s), {len(others)} baseline tasks "
            f"{sum(r.seconds for r in others):.0f} s")


def backtest_rows(origins: int, workers: int) -> list[list[str]]:
    """Both backtests, side by side, with the speed-up and the check of identical scores."""
    print(f"market backtest: {origins} origins x 1 series, default sampler; "
          f"{workers} workers first, then serial ...", flush=True)
    with executor(workers) as task_map:
        distributed, parallel_s, recorded = market_backtest(origins, task_map)
    print(f"  {workers} workers: {parallel_s:.0f} s wall; "
          f"{where_time_goes(distributed, recorded)}", flush=True)
    serial, serial_s, recorded = market_backtest(origins, map)
    print(f"  serial: {serial_s:.0f} s wall; {where_time_goes(serial, recorded)}",
          flush=True)
    identical = distributed.equals(serial)
    for name, tidy in (("distributed", distributed), ("serial", serial)):
        for failure in tidy.attrs.get("failures", []):
            print(f"  {name} failure: {failure}", flush=True)
    if not identical:
        print(differences(serial, distributed), flush=True)
    speedup = serial_s / parallel_s
    verdict = "met" if speedup >= TARGET_SPEEDUP else \
        f"MISSED by {TARGET_SPEEDUP - speedup:.2f}x"
    return [[f"market backtest ({4 * origins} tasks, {origins} fits)", f"{serial_s:.0f} s",
             f"{parallel_s:.0f} s", f"{speedup:.2f}x",
             f"target >= {TARGET_SPEEDUP}x: {verdict}; scores identical: {identical}"]]


def differences(serial: pd.DataFrame, other: pd.DataFrame) -> str:
    """Where two backtests' long-form scores differ: rows, and the largest gap per model
    and cut-off."""
    keys = ["model", "series", "cutoff", "horizon", "metric"]
    both = serial.merge(other, on=keys, how="outer", suffixes=("_serial", "_other"),
                        indicator=True)
    lines = [f"  rows: serial {len(serial)}, distributed {len(other)}, "
             f"unmatched {int((both['_merge'] != 'both').sum())}"]
    gap = (both["value_serial"] - both["value_other"]).abs()
    worst = both.assign(gap=gap).groupby(["model", "cutoff"])["gap"].max()
    lines += [f"  {model} @ {cutoff}: largest gap {value:.3g}"
              for (model, cutoff), value in worst.items() if value > 0]
    return "\n".join(lines)


def sweep_rows(scenario: str, grid: tuple[int, int], paths: int, workers: int,
               serial: bool) -> list[list[str]]:
    """The sweep on ``workers`` (and serially), and three grid points checked against single
    ``simulate`` runs."""
    vary = [f"mfu_aws=0.15:0.45:{grid[0]}", f"aws_supply_cap_share=0.1:0.25:{grid[1]}"]
    points = grid[0] * grid[1]
    print(f"sweep: {points} grid points x {paths} paths ...", flush=True)
    started = time.perf_counter()
    with executor(workers) as task_map:
        ready = time.perf_counter()
        result = run_sweep(scenario, vary, draws=paths, map_fn=task_map)
    parallel_s = time.perf_counter() - started
    startup = ready - started
    serial_s = float("nan")
    if serial:
        begun = time.perf_counter()
        reference = run_sweep(scenario, vary, draws=paths)
        serial_s = time.perf_counter() - begun
        assert reference.table.equals(result.table), "serial and distributed sweeps differ"
    checked = check_points(scenario, result, (0, points // 2, points - 1))
    verdict = "met" if parallel_s < TARGET_SWEEP_SECONDS else \
        f"MISSED by {parallel_s - TARGET_SWEEP_SECONDS:.0f} s"
    return [[f"sweep {points} points x {paths} paths", f"{serial_s:.0f} s",
             f"{parallel_s:.0f} s", f"{serial_s / parallel_s:.2f}x" if serial else "-",
             f"target < {TARGET_SWEEP_SECONDS:.0f} s: {verdict} (cluster start "
             f"{startup:.0f} s); {checked} points equal single runs"]]


def check_points(scenario: str, result: Any, rows: tuple[int, ...]) -> int:
    """How many of the given table rows equal a single ``simulate`` at their inputs."""
    loaded, dataset, bundle = load_run(scenario)
    for index in rows:
        row = result.table.iloc[index]
        values = {name: float(row[name]) for name in result.inputs}
        single = simulate(bundle, dataset, loaded, draws=result.draws, seed=int(row["seed"]),
                          inputs=point_inputs(loaded, values, result.draws, int(row["seed"])))
        expected = point_row(single)
        assert {key: row[key] for key in expected} == expected, f"grid row {index} differs"
    return len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--origins", type=int, default=6)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scenario", default="base")
    parser.add_argument("--points", default="20x10", help="sweep grid, e.g. 20x10")
    parser.add_argument("--paths", type=int, default=2000)
    parser.add_argument("--skip-backtest", action="store_true")
    parser.add_argument("--skip-serial-sweep", action="store_true")
    args = parser.parse_args()
    grid = tuple(int(n) for n in args.points.split("x"))
    rows = [] if args.skip_backtest else backtest_rows(args.origins, args.workers)
    rows += sweep_rows(args.scenario, (grid[0], grid[1]), args.paths, args.workers,
                       not args.skip_serial_sweep)
    table = pd.DataFrame(rows, columns=["run", "serial", f"{args.workers} workers",
                                        "speed-up", "check"])
    with pd.option_context("display.max_colwidth", 120, "display.width", 250):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
