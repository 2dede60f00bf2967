"""Tests for forecast.store.registry: the SQLite index follows the fit directories."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

import cli
from forecast.core.errors import FitError
from forecast.store.registry import Registry


def _fake_fit(root: Path, fit_id: str, status: str = "published") -> Path:
    directory = root / "fits" / fit_id
    directory.mkdir(parents=True)
    header = {"fit_id": fit_id, "models": [], "status": status, "as_of": "2026-01-31",
              "data_hash": "abc", "scenarios": {"base": {"priors_digest": "d", "models": {}}},
              "diagnostics": {"price-1": {"max_r_hat": 1.0, "min_ess_bulk": 900.0,
                                          "divergences": 0}},
              "gate_failures": {} if status == "published" else {"price-1": ["r_hat"]}}
    (directory / "bundle.json").write_text(json.dumps(header))
    return directory


def test_record_and_read_back(tmp_path):
    registry = Registry(tmp_path)
    _fake_fit(tmp_path, "20260101T000000-aaaa")
    rows = registry.fits()
    assert [row["fit_id"] for row in rows] == ["20260101T000000-aaaa"]
    assert rows[0]["scenarios"] == ["base"] and rows[0]["status"] == "published"
    assert rows[0]["diagnostics"]["price-1"]["min_ess_bulk"] == 900.0


def test_reconcile_adds_missing_and_drops_orphans(tmp_path):
    registry = Registry(tmp_path)
    first = _fake_fit(tmp_path, "20260101T000000-aaaa")
    registry.record(json.loads((first / "bundle.json").read_text()))
    # A fit published while the index write failed, and a fit deleted by hand.
    _fake_fit(tmp_path, "20260201T000000-bbbb", status="gated")
    shutil.rmtree(first)
    rows = registry.fits()
    assert [(row["fit_id"], row["status"]) for row in rows] == [
        ("20260201T000000-bbbb", "gated")]


def test_runs_are_logged_with_outcome(tmp_path):
    registry = Registry(tmp_path)
    run = registry.start_run("drop.csv", "2026-01-31")
    registry.finish_run(run, "rejected", 0.5, message="drop.csv:3:value: not a number")
    (row,) = registry.runs()
    assert row["outcome"] == "rejected" and row["drop_path"] == "drop.csv"
    assert row["finished"] is not None and "not a number" in row["message"]


def _malformed(root: Path, kind: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / "registry.sqlite"
    if kind == "garbage":
        path.write_bytes(b"\x00\xffnot a database" * 200)
    elif kind == "truncated":
        Registry(root).start_run(None, "2026-01-31")
        path.write_bytes(path.read_bytes()[:1500])
    elif kind == "other-schema":
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE fits (name TEXT)")
            connection.execute("CREATE TABLE runs (name TEXT)")
        connection.close()
    elif kind == "directory":
        path.mkdir()
    return path


@pytest.mark.parametrize("kind", ["garbage", "truncated", "other-schema", "directory"])
def test_a_malformed_registry_is_a_one_line_error(tmp_path, kind, capsys):
    root = tmp_path / "artifacts"
    path = _malformed(root, kind)
    with pytest.raises(FitError, match=f"{re.escape(str(path))}: not a usable fit registry"):
        Registry(root).fits()
    for command in (["fits", "list"], ["refit"], ["fits", "gc"]):
        assert cli.main([*command, "--artifacts", str(root)]) == 2, command
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(path) in err, (command, err)
    assert not (root / "fits").exists() or not any((root / "fits").iterdir())


def test_an_artifacts_path_that_is_a_file_is_a_one_line_error(tmp_path, capsys):
    path = tmp_path / "artifacts"
    path.write_text("not a store")
    for command in (["fits", "list"], ["fits", "gc"], ["fits", "show", "x"], ["refit"]):
        assert cli.main([*command, "--artifacts", str(path)]) == 2, command
        err = capsys.readouterr().err
        assert err == f"error: {path}: not a directory (the fit store is a directory of " \
                      "fits)\n", command
    assert path.read_text() == "not a store"


def test_runs_without_an_outcome_are_marked_crashed(tmp_path):
    registry = Registry(tmp_path)
    done = registry.start_run(None, "2026-01-31")
    registry.finish_run(done, "published", 1.0, fit_id="f1")
    died_early = registry.start_run(None, "2026-01-31")
    died_late = registry.start_run(None, "2026-01-31")
    assert registry.mark_crashed({died_late: "f2"}) == [died_early, died_late]
    rows = {row["run_id"]: row for row in registry.runs()}
    assert rows[done]["outcome"] == "published"
    assert rows[died_early]["outcome"] == "crashed" and rows[died_early]["fit_id"] is None
    assert rows[died_late]["fit_id"] == "f2" and "after publishing fit f2" in \
        rows[died_late]["message"]
    assert registry.mark_crashed() == []


def test_a_fit_whose_header_goes_and_comes_back_follows_in_the_registry(tmp_path):
    directory = _fake_fit(tmp_path, "20260101T000000-aaaa")
    registry = Registry(tmp_path)
    assert registry.fit("20260101T000000-aaaa")["status"] == "published"
    header = (directory / "bundle.json").read_bytes()
    (directory / "bundle.json").write_bytes(b"\xff" + header)
    assert registry.fit("20260101T000000-aaaa")["status"] == "damaged"
    (directory / "bundle.json").write_bytes(header)
    assert registry.fit("20260101T000000-aaaa")["status"] == "published"
