"""The execution layer: which executor the options choose, results in task order whatever
ran them (in chunks of uneven sizes too), shared task fields sent once, a map too small for
the local cluster run serially without starting it, errors as one line, no Dask on the
serial path."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import cloudpickle
import numpy as np
import pytest

from forecast.core.errors import ForecastError
from forecast.evaluation import harness
from forecast.pipeline import execution, packing
from forecast.pipeline.execution import Plan, TaskMap, cluster_pays, executor, resolve
from forecast.pipeline.packing import chunk_bounds, chunk_count, pack_items

ROOT = Path(__file__).resolve().parents[2]

# Dask workers cannot import this test module: pickle its functions and classes by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@dataclass(frozen=True)
class Job:
    """A task with a big shared field and a small own one."""

    weights: np.ndarray
    index: int
    label: tuple[str, int]


def weigh(job: Job) -> tuple[int, float, tuple[str, int]]:
    # numpy's own pairwise sum: the same in a one-thread worker as here (a BLAS dot product
    # of this length would split across threads where BLAS has several).
    rng = np.random.default_rng(job.index)
    return job.index, float(np.sum(job.weights * rng.standard_normal(len(job.weights)))), \
        job.label


def fail_on_three(job: Job) -> int:
    if job.index == 3:
        raise ForecastError(f"job {job.index} has bad input")
    return job.index


@dataclass(frozen=True)
class GaussianForecaster:
    """A harness forecaster with a big field (as a dataset would be)."""

    payload: np.ndarray
    draws: int = 200

    def __call__(self, origin: int) -> dict[harness.Cell, np.ndarray]:
        rng = np.random.default_rng(harness.task_seed(7, origin))
        return {("s", h): origin + h + rng.standard_normal(self.draws) for h in (1, 2, 3)}


def truth(origin: int) -> dict[harness.Cell, float]:
    return {("s", h): origin + h + 0.3 for h in (1, 2, 3)}


def where_run(job: Job) -> tuple[int, int]:
    """Sleeps (long enough to time) and says which process ran the job."""
    time.sleep(0.1)
    return job.index, os.getpid()


def later_first(job: Job) -> tuple[int, float]:
    """Early items sleep longest, so later chunks finish first."""
    time.sleep(0.02 * (12 - job.index) if job.index < 12 else 0.0)
    return job.index, float(job.weights[job.index % len(job.weights)])


# --------------------------------------------------------------------------- choice


def test_options_choose_the_executor() -> None:
    assert resolve(0, env={}) == Plan("serial")
    assert resolve(3, env={}) == Plan("local", workers=3)
    assert resolve(None, env={}) == Plan("local", workers=execution.machine_cores())
    assert resolve(None, "tcp://h:1", env={}) == Plan("cluster", address="tcp://h:1")
    env = {execution.ENV_SCHEDULER: "tcp://from-env:8786"}
    assert resolve(None, env=env) == Plan("cluster", address="tcp://from-env:8786")
    assert resolve(None, "tcp://flag:1", env=env).address == "tcp://flag:1"
    # An explicit local size wins over the environment.
    assert resolve(2, env=env) == Plan("local", workers=2)
    assert resolve(0, env=env) == Plan("serial")


@pytest.mark.parametrize(("workers", "scheduler", "message"), [
    (-1, None, "--workers must be >= 0"),
    (2, "tcp://h:1", "cannot be combined"),
    (0, "tcp://h:1", "cannot be combined"),
    (None, " ", "--scheduler needs an address"),
])
def test_bad_options_are_one_line_errors(workers, scheduler, message) -> None:
    with pytest.raises(ForecastError, match=message) as info:
        resolve(workers, scheduler, env={})
    assert "\n" not in str(info.value)


def test_serial_map_is_the_builtin_map_with_progress() -> None:
    ticks: list[tuple[int, int]] = []
    jobs = [Job(np.ones(3), i, ("a", i)) for i in range(4)]
    with executor(0, on_task=lambda d, n: ticks.append((d, n))) as task_map:
        assert type(task_map) is TaskMap
        assert task_map(weigh, jobs) == list(map(weigh, jobs))
    assert ticks == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]


# --------------------------------------------------------------------------- packing


def test_fields_shared_by_several_items_become_one_slot() -> None:
    weights = np.arange(5.0)
    label = ("same", 1)
    jobs = [Job(weights, i, label) for i in range(3)] + [Job(np.zeros(2), 9, ("x", 0))]
    packed, shared = pack_items(jobs)
    # The array is shared by identity; the label tuple too; ints never are.
    assert len(shared) == 2 and shared[0] is weights and shared[1] is label
    assert packed[0].values[0] == packed[2].values[0] == packing._Slot(0)
    assert packed[3].values[0] is jobs[3].weights
    for job, part in zip(jobs, packed, strict=True):
        rebuilt = packing._rebuild(part, tuple(shared))
        assert type(rebuilt) is Job and rebuilt.index == job.index
        assert rebuilt.weights is job.weights and rebuilt.label == job.label
    # Anything else travels whole.
    assert pack_items([1, "a", (2, 3)]) == (
        [packing._Packed(None, (), (v,)) for v in (1, "a", (2, 3))], [])


# --------------------------------------------------------------------------- chunks


def test_chunks_cover_the_items_in_order_with_sizes_one_apart() -> None:
    assert chunk_bounds(10, 4) == [(0, 3), (3, 6), (6, 8), (8, 10)]
    assert chunk_bounds(3, 8) == [(0, 1), (1, 2), (2, 3)]
    assert chunk_bounds(0, 4) == []
    for total in range(1, 30):
        for chunks in range(1, 12):
            bounds = chunk_bounds(total, chunks)
            assert bounds[0][0] == 0 and bounds[-1][1] == total
            assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:], strict=False))
            sizes = [stop - start for start, stop in bounds]
            assert len(bounds) == min(total, chunks)
            assert min(sizes) >= 1 and max(sizes) - min(sizes) <= 1


def test_chunks_are_a_few_per_worker_and_more_for_long_items() -> None:
    per, least = packing.CHUNKS_PER_WORKER, packing.MIN_CHUNK_SECONDS
    assert chunk_count(200, 2) == 2 * per
    assert chunk_count(3, 2) == 3  # never more chunks than items
    # Timed items: chunks of about MIN_CHUNK_SECONDS of work, one item each when an item is
    # that long, and never fewer than a few per worker.
    assert chunk_count(200, 2, least / 5) == 40
    assert chunk_count(24, 2, 30 * least) == 24
    assert chunk_count(200, 2, least / 1e4) == 2 * per


# --------------------------------------------------------------------------- fallback


def test_the_cluster_pays_when_the_workers_save_more_than_its_start() -> None:
    assert cluster_pays(30.0, 2, start_seconds=12.0)  # saves 15 s
    assert not cluster_pays(20.0, 2, start_seconds=12.0)  # saves 10 s
    assert cluster_pays(20.0, 4, start_seconds=12.0)  # saves 15 s
    assert not cluster_pays(1e6, 1, start_seconds=12.0)  # one worker saves nothing
    # Items that kept both cores busy here take twice as long on a one-core worker.
    assert not cluster_pays(1e6, 2, start_seconds=12.0, cores_used=2.0)
    assert cluster_pays(50.0, 4, start_seconds=12.0, cores_used=2.0)  # saves 25 s
    assert not cluster_pays(20.0, 4, start_seconds=12.0, cores_used=2.0)  # saves 10 s
    # An item that waited more than it computed takes as long there as here.
    assert cluster_pays(30.0, 2, start_seconds=12.0, cores_used=0.1)  # saves 15 s


@contextmanager
def no_cluster(workers, on_task):
    raise AssertionError("a local cluster was started")
    yield  # pragma: no cover - a generator, never reached


def test_a_small_map_runs_serially_without_starting_the_cluster(monkeypatch) -> None:
    monkeypatch.setattr(execution, "_local_cluster", no_cluster)
    lines: list[str] = []
    ticks: list[tuple[int, int]] = []
    jobs = [Job(np.ones(3), i, ("a", i)) for i in range(6)]
    with executor(2, on_task=lambda d, n: ticks.append((d, n)), say=lines.append) as task_map:
        assert "when the work pays for its start-up" in task_map.description
        assert task_map(weigh, jobs) == [weigh(job) for job in jobs]
        assert task_map.description.startswith("serially in this process: 6 tasks; after the "
                                                "first 1 here (")
        assert task_map(weigh, []) == []
    assert ticks == [(done, 6) for done in range(7)] + [(0, 0)]
    assert len(lines) == 1
    assert "would save less on 2 one-core workers than their start-up" in lines[0]


def test_a_cold_first_item_does_not_start_the_cluster_when_a_warm_one_is_cheap(
        monkeypatch) -> None:
    # A fit that compiles first, then cheap baselines: the first item alone would pay for the
    # cluster, the second (warm) one shows the rest would not.
    monkeypatch.setattr(execution, "_local_cluster", no_cluster)
    monkeypatch.setattr(execution, "LOCAL_START_SECONDS", 0.5)

    def cold_then_cheap(job: Job) -> tuple[int, int]:
        time.sleep(0.3 if job.index == 0 else 0.0)
        return job.index, os.getpid()

    jobs = [Job(np.ones(3), i, ("a", i)) for i in range(6)]
    with executor(2) as task_map:
        assert task_map(cold_then_cheap, jobs) == [(i, os.getpid()) for i in range(6)]
        # Both timed items are named, the cold one first.
        found = re.search(r"after the first 2 here \(([0-9.e+-]+) s on .* and ([0-9.e+-]+) s on",
                          task_map.description)
        assert found, task_map.description
        # The cold item slept 0.3 s, however late the machine woke it; the warm one did not.
        assert float(found[1]) >= 0.3 > float(found[2])


def test_items_that_use_every_core_here_run_serially_however_long(monkeypatch) -> None:
    # A fit sampling its chains on both cores: its CPU seconds are twice its wall seconds,
    # so two one-core workers would only take twice as long per item.
    monkeypatch.setattr(execution, "_local_cluster", no_cluster)
    monkeypatch.setattr(execution, "LOCAL_START_SECONDS", 0.0)
    clock = iter([0.0, 1e6])
    monkeypatch.setattr(execution, "cpu_seconds", lambda: next(clock))
    lines: list[str] = []
    jobs = [Job(np.ones(3), i, ("a", i)) for i in range(4)]
    with executor(2, say=lines.append) as task_map:
        assert task_map(where_run, jobs) == [(i, os.getpid()) for i in range(4)]
    assert "serially in this process" in lines[0] and "one-core workers" in lines[0]


def test_one_local_worker_never_starts_however_long_the_work(monkeypatch) -> None:
    monkeypatch.setattr(execution, "_local_cluster", no_cluster)
    monkeypatch.setattr(execution, "LOCAL_START_SECONDS", 0.0)
    jobs = [Job(np.ones(3), i, ("a", i)) for i in range(3)]
    with executor(1) as task_map:
        assert task_map(where_run, jobs) == [(i, os.getpid()) for i in range(3)]


# --------------------------------------------------------------------------- Dask


@pytest.fixture(scope="module")
def cluster_start():
    """The default executor of 2 local workers, started by a map whose work pays for it
    under a lowered threshold: the executor, that map's results and the executor's notes."""
    lines: list[str] = []
    jobs = [Job(np.ones(1), i, ("w", i)) for i in range(9)]
    with pytest.MonkeyPatch.context() as patch:
        # 7 items left of 0.1 s or more each save 0.35 s or more on 2 workers.
        patch.setattr(execution, "LOCAL_START_SECONDS", 0.2)
        with executor(2, say=lines.append) as task_map:
            results = task_map(where_run, jobs)
            patch.undo()
            yield task_map, results, list(lines)


@pytest.fixture
def local_map(cluster_start):
    """The started 2-worker LocalCluster's map."""
    return cluster_start[0]


def test_a_map_that_pays_runs_two_items_here_and_the_rest_on_the_cluster(
        cluster_start) -> None:
    _, results, lines = cluster_start
    assert [index for index, _ in results] == list(range(9))
    pids = [pid for _, pid in results]
    assert pids[:2] == [os.getpid()] * 2 and os.getpid() not in pids[2:]
    assert lines == ["running tasks on a local Dask cluster of 2 worker processes "
                     "(1 thread each)"]


def test_local_cluster_gives_the_serial_results_in_task_order(local_map) -> None:
    weights = np.random.default_rng(0).standard_normal(20_000)
    jobs = [Job(weights, i, ("j", i)) for i in range(12)]
    ticks: list[tuple[int, int]] = []
    local_map.on_task = lambda d, n: ticks.append((d, n))
    try:
        assert local_map(weigh, jobs) == [weigh(job) for job in jobs]
        assert local_map(weigh, []) == []
    finally:
        local_map.on_task = None
    # Progress per chunk: 12 items in 8 chunks (2, 2, 2, 2, 1, 1, 1, 1).
    assert ticks[0] == (0, 12) and ticks[-2] == (12, 12) and ticks[-1] == (0, 0)
    done = [d for d, _ in ticks[:-1]]
    assert len(done) == 1 + 8 and done == sorted(set(done))
    assert {b - a for a, b in zip(done, done[1:], strict=False)} == {1, 2}
    assert local_map.workers == 2 and "local Dask cluster of 2" in local_map.description


def test_uneven_chunks_finishing_out_of_order_come_back_in_item_order(local_map) -> None:
    # 11 items in 8 chunks (2, 2, 2, 1, 1, 1, 1, 1); the first chunks sleep longest.
    weights = np.arange(5.0)
    jobs = [Job(weights, i, ("u", i)) for i in range(11)]
    assert local_map(later_first, jobs) == [(i, float(i % 5)) for i in range(11)]


def test_workers_of_the_local_cluster_use_one_core_each(local_map) -> None:
    import os

    if not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs CPU affinity and two cores")
    cores = local_map.client.run(lambda: sorted(os.sched_getaffinity(0)))
    assert all(len(cpus) == 1 for cpus in cores.values())
    assert len({cpus[0] for cpus in cores.values()}) == 2


def test_a_task_error_reaches_the_caller_as_it_was(local_map) -> None:
    jobs = [Job(np.ones(2), i, ("j", i)) for i in range(6)]
    with pytest.raises(ForecastError, match="job 3 has bad input"):
        local_map(fail_on_three, jobs)
    # The cluster is still usable afterwards.
    assert local_map(fail_on_three, jobs[:3]) == [0, 1, 2]


def test_harness_backtest_on_dask_equals_the_serial_one(local_map) -> None:
    payload = np.zeros(50_000)
    forecasters = {"g": GaussianForecaster(payload), "wide": GaussianForecaster(payload, 300)}
    serial = harness.run_backtest(forecasters, list(range(6)), truth)
    other = harness.run_backtest(forecasters, list(range(6)), truth, map_fn=local_map)
    import pandas as pd

    pd.testing.assert_frame_equal(serial, other)


def test_an_unreachable_scheduler_is_one_line(monkeypatch) -> None:
    import socket

    monkeypatch.setattr(execution, "CONNECT_TIMEOUT", 2)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    lines: list[str] = []
    with executor(scheduler=f"tcp://127.0.0.1:{port}", say=lines.append) as task_map:
        assert lines == []  # nothing is reached before the first task
        with pytest.raises(ForecastError, match="cannot reach the Dask scheduler") as info:
            task_map(abs, [-1])
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------- imports


def test_the_forecast_command_and_serial_runs_never_import_dask() -> None:
    code = (
        "import sys, cli\n"
        "cli.build_parser().parse_args(['forecast', '--scenario', 'base'])\n"
        "import forecast.pipeline.runner, forecast.pipeline.simulate\n"
        "import forecast.pipeline.results, forecast.pipeline.sweep\n"
        "from forecast.pipeline.execution import executor\n"
        "with executor(0) as task_map:\n"
        "    assert task_map(abs, [-1, 2]) == [1, 2]\n"
        "with executor(2) as task_map:\n"  # too small for the cluster
        "    assert task_map(abs, [-1, 2]) == [1, 2]\n"
        "    assert task_map.description.startswith('serially'), task_map.description\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'distributed'})\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)


@pytest.mark.slow
def test_cli_forecast_never_imports_dask(shipped_store) -> None:
    code = (
        "import sys, cli\n"
        f"code = cli.main(['forecast', '--artifacts', {str(shipped_store)!r}, '--draws', '200',"
        " '--format', 'json'])\n"
        "assert code == 0, code\n"
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules}"
        " & {'dask', 'distributed'}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stdout
