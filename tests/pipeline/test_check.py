"""`python cli.py check`: posterior predictive coverage and PSIS-LOO of a stored fit."""

from __future__ import annotations

from pathlib import Path

import pytest

import cli
from forecast.data.dataset import load_dataset
from forecast.models.price import prepare_price_data
from forecast.models.price.steps import list_intervals
from forecast.pipeline.check import check_model

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_price_check_covers_every_observation(shipped_store: Path) -> None:
    result = check_model("price", "base", root=shipped_store, seed=1)
    data = prepare_price_data(load_dataset())
    observations = len(data.observations)
    row = result.coverage.set_index("variable").loc["log_price"]
    # LOO pools every observed variable: the prices, and the step process's intervals (did
    # the list price move?) and the log sizes of those that moved.
    intervals = list_intervals(data.list_history)
    pooled = observations + len(intervals) + int(intervals["moved"].sum())
    assert row["n"] == observations and result.loo["n"] == pooled
    # A light fit of a Student-t model is not badly miscalibrated on its own data (its 50%
    # intervals covered 0.80 of the 215 prices: heavy tails make the central band wide).
    assert 0.3 <= row["coverage_50"] <= 0.85 and 0.75 <= row["coverage_90"] <= 1.0
    # Without each price, the 80% band is near 80% (0.83 on the shipped fit; the plain one
    # 0.94); a yes/no of a list-price move is judged on its randomised PIT.
    assert 0.7 <= row["loo_coverage_80"] <= 0.9
    assert result.coverage.set_index("variable").loc["list_moved", "loo_coverage_80"] > 0.65
    counts = [result.loo[k] for k in ("pareto_k_good", "pareto_k_ok", "pareto_k_bad",
                                      "pareto_k_very_bad")]
    assert sum(counts) == pooled


@pytest.mark.slow
def test_check_command_prints_coverage_and_pareto_k_in_process(shipped_store: Path,
                                                              capsys) -> None:
    code = cli.main(["check", "price", "--scenario", "base", "--artifacts",
                     str(shipped_store)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "coverage_50" in out and "coverage_90" in out and "loo_coverage_80" in out
    assert "PSIS-LOO" in out and "Pareto k" in out


# Validation tier: compiling the spend model's pointwise log likelihood dominates this check.
@pytest.mark.validation
def test_check_command_prints_coverage_and_pareto_k(run_cli, shipped_store: Path) -> None:
    done = run_cli("check", "spend", "--scenario", "base", "--artifacts", shipped_store)
    assert done.returncode == 0, done.stderr
    assert "coverage_50" in done.stdout and "coverage_90" in done.stdout
    assert "PSIS-LOO" in done.stdout and "Pareto k" in done.stdout


def test_check_rejects_an_unknown_model(run_cli) -> None:
    done = run_cli("check", "weather")
    assert done.returncode == 2 and "invalid choice" in done.stderr
