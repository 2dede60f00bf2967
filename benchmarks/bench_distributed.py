"""Benchmark the Dask execution layer: serial and 2 local workers side by side.

Target (issue: Dask where it pays): the sweep and the spend backtest on 2 local workers at
least as fast as serially (speed-up >= 1.0x), with identical numbers.

Runs, each on the default executor of ``--workers`` local workers (which runs a map serially
when its work would not pay for the cluster's start-up) and then serially (``map``):

1. A sweep of ``--points`` grid points x ``--seeds`` seeds x ``--paths`` paths from the
   stored fit (or the shipped fit) of ``--scenario``; three grid points are checked against
   single ``simulate`` runs at the same inputs and seed.
2. A small sweep (``--small-points``, 300 paths), too small for the cluster: the executor
   should fall back to serial and cost no more than the serial run.
3. The spend backtest (``--origins`` origins, the joint spend model at its default sampler
   plus the three baselines: ``4 x origins`` tasks), unless ``--skip-backtest``. Each fit
   compiles the spend model through numba for its data cut in
   whichever process runs it, then samples; a worker is bound to one core, so its fit
   samples its two chains on that core, where the serial fit samples them on two. Where the
   time goes: per task, the wall seconds, and for the Bayesian fits the sampling seconds
   (the rest of a fit task is building and compiling the model).

The distributed run goes first, so that whatever a first run leaves warm (PyTensor's compile
cache on disk, the validated-data cache) favours the serial run, not the speed-up. Each
distributed time includes starting and closing the cluster, as a command pays them. The load
average is printed before and after, and the cores each run got (CPU seconds over wall
seconds): on a machine shared with other jobs the figures are noisy, and where the kernel
groups processes by session (Linux autogroup) a command's workers share its one session's
CPU share, so they can only gain on cores that other sessions leave idle.

    python benchmarks/bench_distributed.py [--workers 2] [--points 20x10] [--seeds 1]
        [--paths 2000] [--small-points 3x2] [--origins 6] [--skip-backtest]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections.abc import Callable
from typing import Any

import pandas as pd

from forecast.data.dataset import load_dataset
from forecast.evaluation.spend_backtest import BAYES, backtest_spend
from forecast.models.spend.model import SpendModel
from forecast.pipeline.execution import executor
from forecast.pipeline.runner import load_run
from forecast.pipeline.simulate import simulate
from forecast.pipeline.sweep import point_inputs, point_row, run_sweep

TARGET_SPEEDUP = 1.0


class RecordingMap:
    """A ``map_fn`` keeping every task result (to see where the time went)."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.results: list[Any] = []

    def __call__(self, fn: Any, items: Any) -> list[Any]:
        out = list(self.inner(fn, items))
        self.results.extend(out)
        return out


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (the local cluster's
    workers count once it is closed)."""
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                         resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_pair(run: Callable[[Any], Any], workers: int) -> tuple[Any, float, Any, float, str]:
    """``run(map_fn)`` on the default executor of ``workers`` local workers, then serially:
    both outputs, both wall seconds and where the executor ran the tasks. Prints the cores
    each run got (CPU seconds / wall seconds)."""
    notes: list[str] = []
    started, cpu = time.perf_counter(), cpu_seconds()
    with executor(workers, say=notes.append) as task_map:
        distributed = run(task_map)
    distributed_s = time.perf_counter() - started
    distributed_cpu = cpu_seconds() - cpu
    for note in notes:
        print(f"  {workers} workers: {note}", flush=True)
    begun, cpu = time.perf_counter(), cpu_seconds()
    serial = run(map)
    serial_s = time.perf_counter() - begun
    serial_cpu = cpu_seconds() - cpu
    print(f"  cores used: {workers} workers {distributed_cpu:.0f} CPU s / {distributed_s:.0f} s"
          f" = {distributed_cpu / distributed_s:.2f}; serial {serial_cpu:.0f} CPU s / "
          f"{serial_s:.0f} s = {serial_cpu / serial_s:.2f}", flush=True)
    where = "serial fallback" if notes and notes[-1].startswith("running tasks serially") \
        else "cluster"
    return distributed, distributed_s, serial, serial_s, where


def machine_note() -> str:
    """Load average, cores, and whether the kernel shares CPU between sessions
    (autogroup)."""
    load = " ".join(f"{v:.1f}" for v in os.getloadavg())
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as handle:
            autogroup = handle.read().strip() == "1"
    except OSError:
        autogroup = False
    return (f"load average {load} on {os.cpu_count()} cores" +
            ("; autogroup on: this command and its workers share one session's CPU share "
             "against other sessions' busy processes" if autogroup else ""))


def row(name: str, serial_s: float, distributed_s: float, where: str,
        check: str) -> list[str]:
    """One line of the table: the times, the speed-up and the verdict."""
    speedup = serial_s / distributed_s
    verdict = "met" if speedup >= TARGET_SPEEDUP else "MISSED"
    return [name, f"{serial_s:.1f} s", f"{distributed_s:.1f} s", f"{speedup:.2f}x", where,
            f">= {TARGET_SPEEDUP}x {verdict}; {check}"]


def spend_backtest(origins: int, map_fn: Any) -> tuple[pd.DataFrame, RecordingMap]:
    """The spend backtest at the model's default sampler: tidy scores and task results."""
    default = SpendModel.default_sampler
    sampler = {"draws": default["draws"], "tune": default["tune"], "chains": 2}
    recording = RecordingMap(map_fn)
    tidy, _ = backtest_spend(load_dataset(), origins=origins, sampler=sampler,
                             map_fn=recording)
    return tidy, recording


def where_time_goes(tidy: pd.DataFrame, recording: RecordingMap) -> str:
    """Task seconds of the Bayesian fits (sampling, and the rest: build and compile) and of
    the baselines."""
    fits = [r for r in recording.results if r.forecaster == BAYES]
    others = [r for r in recording.results if r.forecaster != BAYES]
    sampling = sum(float(fit.get("fit_seconds") or 0.0) for fit in tidy.attrs["fits"])
    total = sum(r.seconds for r in fits)
    return (f"{len(fits)} Bayesian fit tasks {total:.0f} s (sampling {sampling:.0f} s, "
            f"build + compile {total - sampling:.0f} s), {len(others)} baseline tasks "
            f"{sum(r.seconds for r in others):.0f} s")


def backtest_row(origins: int, workers: int) -> list[str]:
    """Both backtests, with the check of identical scores."""
    print(f"spend backtest: {origins} origins, default sampler; "
          f"{workers} workers first, then serial ...", flush=True)
    (distributed, recorded), parallel_s, (serial, serial_recorded), serial_s, where = \
        timed_pair(lambda map_fn: spend_backtest(origins, map_fn), workers)
    print(f"  {workers} workers: {parallel_s:.0f} s wall; "
          f"{where_time_goes(distributed, recorded)}", flush=True)
    print(f"  serial: {serial_s:.0f} s wall; {where_time_goes(serial, serial_recorded)}",
          flush=True)
    for name, tidy in (("distributed", distributed), ("serial", serial)):
        for failure in tidy.attrs.get("failures", []):
            print(f"  {name} failure: {failure}", flush=True)
    identical = distributed.equals(serial)
    if not identical:
        print(differences(serial, distributed), flush=True)
    return row(f"spend backtest ({4 * origins} tasks, {origins} fits)", serial_s,
               parallel_s, where, f"scores identical: {identical}")


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


def sweep_row(scenario: str, grid: tuple[int, int], seeds: int, paths: int,
              workers: int, check: bool = True) -> list[str]:
    """The sweep on ``workers`` and serially; tables compared, and (``check``) three grid
    points checked against single ``simulate`` runs."""
    vary = [f"mfu_aws=0.15:0.45:{grid[0]}", f"aws_price_erosion=0.02:0.10:{grid[1]}"]
    points = grid[0] * grid[1]
    print(f"sweep: {points} grid points x {seeds} seeds x {paths} paths; {workers} workers "
          "first, then serial ...", flush=True)
    result, parallel_s, reference, serial_s, where = timed_pair(
        lambda map_fn: run_sweep(scenario, vary, draws=paths, seeds=seeds, map_fn=map_fn),
        workers)
    identical = reference.table.equals(result.table)
    checked = check_points(scenario, result, (0, len(result.table) // 2,
                                               len(result.table) - 1)) if check else 0
    name = f"sweep {points} points x {seeds} seeds x {paths} paths"
    return row(name, serial_s, parallel_s, where,
               f"tables identical: {identical}; {checked} points equal single runs")


def check_points(scenario: str, result: Any, rows: tuple[int, ...]) -> int:
    """How many of the given table rows equal a single ``simulate`` at their inputs."""
    loaded, dataset, bundle = load_run(scenario)
    for index in rows:
        line = result.table.iloc[index]
        values = {name: float(line[name]) for name in result.inputs}
        single = simulate(bundle, dataset, loaded, draws=result.draws, seed=int(line["seed"]),
                          inputs=point_inputs(loaded, values, result.draws, int(line["seed"])))
        expected = point_row(single)
        assert {key: line[key] for key in expected} == expected, f"grid row {index} differs"
    return len(rows)


def grid_of(text: str) -> tuple[int, int]:
    """``20x10`` -> ``(20, 10)``."""
    first, second = (int(n) for n in text.split("x"))
    return first, second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scenario", default="base")
    parser.add_argument("--points", default="20x10", help="sweep grid, e.g. 20x10")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--paths", type=int, default=2000)
    parser.add_argument("--small-points", default="3x2", help="small sweep grid")
    parser.add_argument("--origins", type=int, default=6)
    parser.add_argument("--skip-backtest", action="store_true")
    args = parser.parse_args()
    print(f"before: {machine_note()}", flush=True)
    rows = [sweep_row(args.scenario, grid_of(args.points), args.seeds, args.paths,
                      args.workers),
            sweep_row(args.scenario, grid_of(args.small_points), 1, 300, args.workers,
                      check=False)]
    if not args.skip_backtest:
        rows.append(backtest_row(args.origins, args.workers))
    print(f"after: {machine_note()}", flush=True)
    table = pd.DataFrame(rows, columns=["run", "serial", f"{args.workers} workers",
                                        "speed-up", "ran on", "check"])
    with pd.option_context("display.max_colwidth", 120, "display.width", 250):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
