"""The Dask benchmark's sweep runs on this code's scenario inputs and checks what it claims
(a benchmark that no test runs went stale once: it varied an input that had gone)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_distributed.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_distributed", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_tiny_sweep_row_falls_back_to_serial_and_matches_single_runs(bench, shipped_store,
                                                                       monkeypatch) -> None:
    monkeypatch.setenv("FORECAST_ARTIFACTS", str(shipped_store))
    name, serial, distributed, speedup, where, check = bench.sweep_row(
        "base", (2, 2), seeds=1, paths=20, workers=2)
    assert name == "sweep 4 points x 1 seeds x 20 paths"
    assert where == "serial fallback"
    assert check.endswith("tables identical: True; 3 points equal single runs")


def test_timings_are_dropped_from_nested_backtest_json(bench) -> None:
    report = {"fits": [{"fit_seconds": 3.0, "r_hat": 1.0}], "seconds": 1, "models": []}
    assert bench.without_timings(report) == {"fits": [{"r_hat": 1.0}], "models": []}
