"""Tests for forecast.store.registry: the SQLite index follows the fit directories."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

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
