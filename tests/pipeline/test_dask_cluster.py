"""A real Dask cluster, started as a user would: ``dask scheduler`` and two ``dask worker``
processes (one thread each) on localhost, on free ports. The baselines' backtest and a sweep
sent to it with ``--scheduler`` (and the environment variable) give the serial numbers; a
worker killed in the middle of a sweep has its tasks rescheduled on the other.

Every process is started in its own process group and the group is killed when the test
ends, passed or failed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

# A real cluster's processes: in the validation tier (`pytest -m validation`).
pytestmark = [pytest.mark.slow, pytest.mark.validation]

ROOT = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).with_name("dask")
#: Seconds a process may take to start on a loaded machine.
START_TIMEOUT = 180


@dataclass
class Cluster:
    """A running scheduler and its workers (by name), with their log files."""

    address: str
    logs: Path
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    def log_tail(self) -> str:
        return "\n".join(f"--- {p.name}\n" + p.read_text()[-2000:]
                         for p in sorted(self.logs.glob("*.log")))

    def kill(self, name: str) -> None:
        """SIGKILL a process group (a worker and its nanny) and wait for it."""
        process = self.processes[name]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)


def _start(cluster: Cluster, name: str, *args: str) -> subprocess.Popen:
    log = open(cluster.logs / f"{name}.log", "w")  # noqa: SIM115 - closed with the process
    process = subprocess.Popen([str(DASK), *args], cwd=ROOT, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    log.close()
    cluster.processes[name] = process
    return process


def _stop(cluster: Cluster) -> None:
    """Terminate every process group, then kill what is left."""
    for process in cluster.processes.values():
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
    for process in cluster.processes.values():
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=20)


def _scheduler_address(cluster: Cluster, scheduler_file: Path) -> str:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if cluster.processes["scheduler"].poll() is not None:
            pytest.fail(f"dask scheduler exited\n{cluster.log_tail()}")
        try:
            return json.loads(scheduler_file.read_text())["address"]
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            time.sleep(0.2)
    pytest.fail(f"dask scheduler did not start in {START_TIMEOUT} s\n{cluster.log_tail()}")


@pytest.fixture
def cluster(tmp_path: Path, request: pytest.FixtureRequest) -> Cluster:
    """``dask scheduler`` and workers ``w0`` and ``w1`` (``--nthreads 1``) on localhost."""
    from distributed import Client

    logs = tmp_path / "logs"
    logs.mkdir()
    scheduler_file = tmp_path / "scheduler.json"
    running = Cluster("", logs)
    request.addfinalizer(lambda: _stop(running))
    _start(running, "scheduler", "scheduler", "--host", "127.0.0.1", "--port", "0",
           "--no-dashboard", "--scheduler-file", str(scheduler_file))
    running.address = _scheduler_address(running, scheduler_file)
    for name in ("w0", "w1"):
        _start(running, name, "worker", running.address, "--nthreads", "1", "--name", name,
               "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "300")
    with Client(running.address, timeout="60s") as client:
        try:
            client.wait_for_workers(2, timeout=START_TIMEOUT)
        except TimeoutError:
            pytest.fail(f"the workers did not join\n{running.log_tail()}")
    return running


def _cli_sweep(store: Path, out: Path, *extra: str,
               env: dict[str, str] | None = None) -> pd.DataFrame:
    result = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "sweep", "--artifacts", str(store),
         "--vary", "mfu_aws=0.2:0.4:3", "--vary", "chip_life_years=4:6:2",
         "--draws", "300", "--seeds", "2", "--out", str(out), *extra],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
        env={**os.environ, **(env or {})})
    assert result.returncode == 0, result.stderr
    return pd.read_parquet(out / "sweep_base.parquet")


def test_backtest_and_sweep_on_a_real_cluster_equal_the_serial_runs(cluster, shipped_store,
                                                                     tmp_path) -> None:
    from forecast.data.dataset import load_dataset
    from forecast.evaluation.spend_backtest import backtest_spend
    from forecast.pipeline.execution import ENV_SCHEDULER, executor

    # The baselines' tasks (statsmodels fits at each cut-off): the cluster's plumbing, not
    # the spend model's sampling, is under test.
    options = {"origins": 2, "quarters": 2, "draws": 200, "include_bayes": False}
    serial, _ = backtest_spend(load_dataset(), **options)
    with executor(scheduler=cluster.address) as task_map:
        assert task_map.workers == 2
        distributed, _ = backtest_spend(load_dataset(), map_fn=task_map, **options)
    assert len(serial) > 0
    pd.testing.assert_frame_equal(serial.reset_index(drop=True),
                                  distributed.reset_index(drop=True), rtol=1e-9)

    reference = _cli_sweep(shipped_store, tmp_path / "serial", "--workers", "0")
    by_flag = _cli_sweep(shipped_store, tmp_path / "flag", "--scheduler", cluster.address)
    by_env = _cli_sweep(shipped_store, tmp_path / "env", env={ENV_SCHEDULER: cluster.address})
    assert len(reference) == 6 * 2
    pd.testing.assert_frame_equal(reference, by_flag, check_exact=True)
    pd.testing.assert_frame_equal(reference, by_env, check_exact=True)


def test_a_worker_killed_mid_sweep_has_its_tasks_rescheduled(cluster, shipped_store) -> None:
    from forecast.pipeline.execution import executor
    from forecast.pipeline.sweep import run_sweep

    vary = ["mfu_aws=0.2:0.4:4", "chip_life_years=4:6:3"]
    options = {"draws": 1500, "seeds": 2, "root": shipped_store}
    serial = run_sweep("base", vary, **options)
    killed: list[str] = []
    holder: dict[str, object] = {}

    def kill_w1_while_it_works(done: int, total: int) -> None:
        # At the first result after which w1 has tasks in hand: kill it, nanny and all.
        if killed or done == 0 or done == total:
            return
        client = holder["map"].client  # type: ignore[attr-defined]
        workers = client.scheduler_info()["workers"]
        victim = next((address for address, info in workers.items()
                       if info.get("name") == "w1"), None)
        in_hand = client.processing().get(victim, []) if victim else []
        if in_hand:
            cluster.kill("w1")
            killed.extend(in_hand)

    with executor(scheduler=cluster.address, on_task=kill_w1_while_it_works) as task_map:
        holder["map"] = task_map
        result = run_sweep("base", vary, map_fn=task_map, **options)
    assert killed, "w1 never had a task to lose"
    assert cluster.processes["w1"].poll() is not None
    table = result.table
    assert len(table) == 12 * 2
    assert not table.duplicated(["point", "seed"]).any()
    pd.testing.assert_frame_equal(serial.table, table, check_exact=True)
