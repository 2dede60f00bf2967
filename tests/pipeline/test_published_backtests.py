"""The backtests published beside the shipped fit: current, complete, and what they claim.

``python -m forecast.pipeline.published_backtests`` writes them at the default samplers; the
results page and the model cards print them. Here: every one is of this code's model
versions and this data, every fit of every origin passed its gate, and the figures the docs
quote hold (coverage, and the structural model against its naive baseline).
"""

from __future__ import annotations

import json

import pytest

from forecast.data.dataset import load_dataset
from forecast.pipeline.published_backtests import RUNS, backtest_record, backtest_versions
from forecast.store.shipped import SHIPPED_DIR, model_versions

DIRECTORY = SHIPPED_DIR / "backtests"


def _load(name: str) -> dict:
    path = DIRECTORY / f"{name}.json"
    assert path.is_file(), (
        f"{path} is missing: run `python -m forecast.pipeline.published_backtests`")
    return json.loads(path.read_text())


@pytest.mark.parametrize("name", list(RUNS))
def test_a_published_backtest_is_of_this_code_and_data(name) -> None:
    record = _load(name)
    assert record["model_versions"] == backtest_versions(name, model_versions())
    assert record["data_hash"] == load_dataset().data_hash
    assert record["command"].startswith(f"python cli.py backtest {name} ")
    assert not record["failures"], record["failures"]
    assert record["models"] and all(model["pooled"]["n"] > 0 for model in record["models"])


@pytest.mark.parametrize("name", ["spend", "share"])
def test_every_spend_fit_of_a_backtest_passed_its_gate(name) -> None:
    fits = _load(name)["fits"]
    assert len(fits) >= 4
    for fit in fits:
        assert fit["max_r_hat"] <= 1.01 and fit["min_ess_bulk"] >= 400, fit
        assert fit["divergences"] == 0, fit


def test_a_record_carries_its_provenance() -> None:
    import pandas as pd

    tidy = pd.DataFrame({"x": [1]})
    tidy.attrs.update({"report": {"models": []}, "fits": [{"a": 1}]})
    record = backtest_record("spend", tidy, pd.DataFrame({"m": ["x"]}), "abc",
                             {"origins": 2, "quarters": 3, "draws": 10})
    assert record["command"] == ("python cli.py backtest spend --origins 2 --quarters 3 "
                                 "--draws 10 --format json")
    assert record["data_hash"] == "abc" and record["fits"] == [{"a": 1}]
    # The spend backtest fits the spend model only: a new price model leaves it current.
    assert record["summary"] == [{"m": "x"}]
    assert record["model_versions"] == {"spend": model_versions()["spend"]}


def test_the_price_model_beats_its_random_walk_calibrated_on_list_and_market() -> None:
    record = _load("price")
    models = {model["model"]: model for model in record["models"]}
    bayes, walk = models["bayesian"], models["random walk + drift"]
    assert bayes["pooled"]["log_crps"] <= walk["pooled"]["log_crps"]
    assert 0.72 <= bayes["pooled"]["coverage_80"] <= 0.88
    assert 0.4 <= bayes["pooled"]["mean_pit"] <= 0.6
    for row in bayes["by_quarters_ahead"]:
        if row["n"] >= 10:
            assert row["coverage_80"] >= 0.6, row
    # List and market prices apart, each scored against the same random walk.
    parts = record["by_price_class"]
    assert set(parts) == {"list", "market"}
    for part in parts.values():
        pooled = {model["model"]: model["pooled"] for model in part["models"]}
        assert pooled["bayesian"]["log_crps"] <= pooled["random walk + drift"]["log_crps"]
