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
   plus the three baselines: ``4 x origins`` tasks), unless ``--skip-backtest``: the command
   ``cli.py backtest spend --workers N`` and ``--workers 0``, each in a fresh process as a
   user runs it, after an untimed warm-up run that fills the on-disk compile caches. A fit
   compiles the spend model through numba once per process (later fits of the same
   structure reuse it), so two runs in one process would hand the second a compiled
   sampler; and a fit samples its chains on every core here, where a worker is bound to
   one.

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
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.pipeline.execution import executor
from forecast.pipeline.runner import load_run
from forecast.pipeline.simulate import simulate
from forecast.pipeline.sweep import point_inputs, point_row, run_sweep

TARGET_SPEEDUP = 1.0
ROOT = Path(__file__).resolve().parents[1]


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


def cli_backtest(origins: int, workers: int, out: Path) -> tuple[float, float, list[str]]:
    """``cli.py backtest spend`` in a fresh process, as a user runs it: wall seconds, CPU
    seconds (the process and its workers) and the lines saying where the tasks ran."""
    command = [sys.executable, str(ROOT / "cli.py"), "backtest", "spend", "--origins",
               str(origins), "--format", "json", "--out", str(out), "--workers", str(workers)]
    cpu, started = children_cpu_seconds(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds, cpu = time.perf_counter() - started, children_cpu_seconds() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    notes = [line.strip() for line in done.stderr.splitlines() if "running tasks" in line]
    return seconds, cpu, notes


def children_cpu_seconds() -> float:
    """CPU seconds of this process's ended children (and theirs, once reaped)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def backtest_row(origins: int, workers: int) -> list[str]:
    """The spend backtest command on ``workers`` and serially, each in a fresh process (so
    neither reuses the other's in-process compiled sampler), with the check of identical
    scores."""
    print(f"spend backtest: {origins} origins, default sampler, `cli.py backtest spend` in a "
          f"fresh process; --workers {workers} first, then --workers 0 ...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        # Untimed: the first process to compile the model fills the on-disk compile caches
        # (PyTensor's C modules) that every later process reads; neither timed run pays it.
        (Path(tmp) / "warm-up").mkdir()
        seconds, _, _ = cli_backtest(1, 0, Path(tmp) / "warm-up")
        print(f"  warm-up (1 origin, serial, untimed): {seconds:.0f} s", flush=True)
        runs = {}
        for count in (workers, 0):
            out = Path(tmp) / str(count)
            out.mkdir()
            seconds, cpu, notes = cli_backtest(origins, count, out)
            for note in notes:
                print(f"  --workers {count}: {note}", flush=True)
            print(f"  --workers {count}: {seconds:.0f} s wall, {cpu:.0f} CPU s = "
                  f"{cpu / seconds:.2f} cores", flush=True)
            runs[count] = (seconds, notes, json.loads((out / "backtest_spend.json").read_text()))
    (parallel_s, notes, distributed), (serial_s, _, serial) = runs[workers], runs[0]
    where = "serial fallback" if notes and "serially" in notes[-1] else "cluster"
    identical = without_timings(distributed) == without_timings(serial)
    return row(f"spend backtest ({4 * origins} tasks, {origins} fits)", serial_s,
               parallel_s, where, f"scores identical: {identical}")


def without_timings(value: Any) -> Any:
    """A JSON value without the keys that hold seconds (which differ between any runs)."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def sweep_row(scenario: str, grid: tuple[int, int], seeds: int, paths: int,
              workers: int, check: bool = True) -> list[str]:
    """The sweep on ``workers`` and serially; tables compared, and (``check``) three grid
    points checked against single ``simulate`` runs."""
    vary = [f"mfu_aws=0.15:0.45:{grid[0]}", f"chip_life_years=4:6:{grid[1]}"]
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
