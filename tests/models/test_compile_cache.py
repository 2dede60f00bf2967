"""Compiled model code kept under the fit store, private to its user."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from forecast.models.compile_cache import CACHE_FOLDER, private_directory, use_compile_cache

ROOT = Path(__file__).resolve().parents[2]


def test_a_fresh_process_compiles_into_the_stores_private_cache(tmp_path: Path) -> None:
    code = ("import sys; from forecast.models.compile_cache import use_compile_cache;"
            f"chosen = use_compile_cache({str(tmp_path)!r}); import pytensor;"
            "print(chosen); print(pytensor.config.base_compiledir)")
    env = {key: value for key, value in os.environ.items() if key != "PYTENSOR_FLAGS"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    chosen, used = done.stdout.split()
    expected = tmp_path.joinpath(*CACHE_FOLDER).resolve()
    assert Path(chosen) == expected == Path(used)
    assert (expected.stat().st_mode & 0o777) == 0o700


def test_a_directory_others_may_write_is_not_used(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delitem(sys.modules, "pytensor", raising=False)
    monkeypatch.delenv("PYTENSOR_FLAGS", raising=False)
    shared = tmp_path.joinpath(*CACHE_FOLDER)
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    assert not private_directory(shared)
    assert use_compile_cache(tmp_path) is None
    assert "base_compiledir" not in os.environ.get("PYTENSOR_FLAGS", "")


def test_a_users_own_choice_and_an_imported_pytensor_are_left_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTENSOR_FLAGS", "base_compiledir=/somewhere/else")
    assert use_compile_cache(tmp_path) is None
    monkeypatch.delenv("PYTENSOR_FLAGS")
    monkeypatch.setitem(sys.modules, "pytensor", object())
    assert use_compile_cache(tmp_path) is None
    assert not tmp_path.joinpath(*CACHE_FOLDER).exists()
