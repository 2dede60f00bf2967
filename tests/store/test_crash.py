"""Refits killed with SIGKILL at seeded random points (and at every step of publishing and of
recording the run) leave a sound store: published fits verify, the registry opens and
follows the fit directories, the lock is free; the clean-up (``fits gc`` or the next refit)
removes what the dead run left and marks it crashed; the next refit succeeds.

The fast test runs the refit's real lock, clean-up, registry, temporary directories and
publish around a toy fit (tests/store/crashrun.py), each run in a child forked from one warm
server process; the slow one kills the whole refit, each run a fresh process.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from forecast.store.cleanup import clean_store
from forecast.store.integrity import verify_fit
from forecast.store.registry import Registry

CHILD = Path(__file__).resolve().parent / "crashrun.py"
KILLED = -signal.SIGKILL


def _start(root: Path, work: Path, mode: str, point: str, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(CHILD), str(root), str(work), mode, point],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _run(root: Path, work: Path, mode: str, point: str,
         env: dict[str, str]) -> subprocess.CompletedProcess:
    child = _start(root, work, mode, point, env)
    out, err = child.communicate(timeout=600)
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


Runner = Callable[[str], subprocess.CompletedProcess]


@contextmanager
def _served(root: Path, work: Path, mode: str, env: dict[str, str]) -> Iterator[Runner]:
    """Runs of one store, each forked from one warm ``crashrun.py serve`` process."""
    server = subprocess.Popen([sys.executable, str(CHILD), "serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env)
    assert server.stdin is not None and server.stdout is not None

    def run(point: str) -> subprocess.CompletedProcess:
        server.stdin.write(json.dumps([str(root), str(work), mode, point]) + "\n")
        server.stdin.flush()
        line = server.stdout.readline()
        assert line, f"the run server died: {server.communicate(timeout=60)[1][-3000:]}"
        answer = json.loads(line)
        return subprocess.CompletedProcess([mode, point], answer["returncode"],
                                           answer["stdout"], answer["stderr"])

    try:
        yield run
    finally:
        server.stdin.close()
        server.wait(timeout=60)
        server.stdout.close()
        server.stderr.close()


def _env(tmp_path: Path) -> dict[str, str]:
    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(system_tmp),
            "FORECAST_DATA_CACHE": str(tmp_path / "data-cache")}


def _io_log(result: subprocess.CompletedProcess) -> list[str]:
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("io-log "))
    return line.removeprefix("io-log ").split(",")


def _fit_dirs(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "fits").iterdir() if not p.name.startswith("."))


def _assert_sound(root: Path) -> None:
    """Whatever the moment of death: the lock is free, every published fit verifies and the
    registry opens and lists exactly the fit directories."""
    from forecast.pipeline.refit import refit_lock

    with refit_lock(root):
        pass
    if not (root / "fits").exists():
        return
    for name in _fit_dirs(root):
        assert verify_fit(root / "fits" / name)["status"] == "published"
    assert [row["fit_id"] for row in Registry(root).fits()] == _fit_dirs(root)
    assert sum(row["outcome"] is None for row in Registry(root).runs()) <= 1


def _assert_clean(root: Path) -> None:
    """No leftovers of dead runs and no run without an outcome; a crashed run that had
    published its fit says which."""
    assert not list(root.glob(".refit-*")), list(root.glob(".refit-*"))
    assert not list((root / "fits").glob(".tmp-*"))
    runs = Registry(root).runs()
    assert all(row["outcome"] is not None for row in runs)
    published = {name: name for name in _fit_dirs(root)}
    for row in runs:
        if row["outcome"] == "crashed" and row["fit_id"]:
            assert row["fit_id"] in published


def _kill_points(log: list[str], seed: int, random_points: int) -> list[int]:
    """1-based I/O calls to die before: the rename publishing the fit, the fsync right after
    it, each registry connection, and seeded random ones."""
    rename = log.index("os.replace") + 1
    registry = [i + 1 for i, name in enumerate(log) if name == "Registry._connect"]
    chosen = random.Random(seed).sample(range(1, len(log) + 1), random_points)
    return sorted({rename, rename + 1, *registry, *chosen})


def _kill_and_check(root: Path, run: Runner, points: list[str]) -> None:
    for index, point in enumerate(points):
        result = run(point)
        assert result.returncode == KILLED, (point, result.stderr[-3000:])
        assert "killed at" in result.stderr
        _assert_sound(root)
        if index % 2 == 0:  # the other half is left to the next refit's own clean-up
            clean_store(root)
            _assert_clean(root)
            _assert_sound(root)


# The publishing rename, its fsync and each registry connection in the default tier; the
# same walk with seeded random I/O calls added in the validation tier.
@pytest.mark.parametrize("random_points", [0, pytest.param(4, marks=pytest.mark.validation)])
def test_toy_refits_killed_anywhere_leave_a_sound_store(tmp_path, monkeypatch, random_points):
    root, work, env = tmp_path / "artifacts", tmp_path / "work", _env(tmp_path)
    with _served(root, work, "toy", env) as run:
        log = _io_log(run("0"))
        assert log.count("os.replace") == 1 and log.count("Registry._connect") >= 3
        points = [str(k) for k in _kill_points(log, seed=20260131,
                                               random_points=random_points)]
        _kill_and_check(root, run, [*points, "transaction"])
        # A clean-up killed in its turn is finished by the next one.
        assert run(str(log.index("os.replace") + 1)).returncode == KILLED
        assert run("gc").returncode == KILLED
        _assert_sound(root)
        final = run("0")
    assert final.returncode == 0, final.stderr[-3000:]
    _assert_clean(root)
    _assert_sound(root)
    runs = Registry(root).runs()
    assert runs[-1]["outcome"] == "published" and runs[-1]["fit_id"] == _fit_dirs(root)[-1]
    assert {row["outcome"] for row in runs[:-1]} <= {"crashed", "published"}
    assert not list((tmp_path / "system-tmp").iterdir())  # nothing left in $TMPDIR


@pytest.mark.slow
@pytest.mark.soak
def test_real_refits_killed_at_random_moments_leave_a_sound_store(shipped_store, tmp_path):
    root, work, env = tmp_path / "artifacts", tmp_path / "work", _env(tmp_path)
    shutil.copytree(shipped_store, root)
    _io_log(_run(root, work, "real", "0", env))  # the first run also fills the data cache
    started = time.perf_counter()
    log = _io_log(_run(root, work, "real", "0", env))  # the I/O calls of every later run
    seconds = time.perf_counter() - started
    # Two seeded moments in the run (mostly imports, data and the revision report), then
    # seeded I/O calls and the publish and registry steps.
    rng = random.Random(7)
    for delay in sorted(rng.uniform(0.3, 0.95) * seconds for _ in range(2)):
        child = _start(root, work, "real", "0", env)
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=60)
        _assert_sound(root)
    clean_store(root)
    _assert_clean(root)
    rename = log.index("os.replace") + 1
    registry = [i + 1 for i, name in enumerate(log) if name == "Registry._connect"]
    points = sorted({rename, registry[-2], *rng.sample(range(1, len(log) + 1), 2)})
    _kill_and_check(root, lambda point: _run(root, work, "real", point, env),
                    [*map(str, points), "transaction"])
    final = _run(root, work, "real", "0", env)
    assert final.returncode == 0, final.stderr[-3000:]
    assert "published" in final.stdout
    _assert_clean(root)
    _assert_sound(root)
