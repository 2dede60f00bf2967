"""Tests for the baselines and the rolling-origin backtest."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.core.calendar import next_fiscal_labels
from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.evaluation.baselines import ETSBaseline, RandomWalkDrift, UCBaseline
from forecast.evaluation.market_backtest import (
    BaselineForecaster,
    backtest_market,
    cutoffs_for,
    rolling_origin,
    score_paths,
    summarize,
)
from forecast.models.market import observed_series


@pytest.fixture(scope="module")
def dataset():
    return load_dataset()


def _growth_series(n: int = 24, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.exp(0.5 + 0.08 * np.arange(n) + 0.03 * rng.standard_normal(n))


@pytest.mark.parametrize("baseline", [RandomWalkDrift(), ETSBaseline(), UCBaseline()])
def test_baselines_return_positive_paths(baseline) -> None:
    paths = baseline.fit(_growth_series()).forecast(horizon=5, draws=300, seed=1)
    assert paths.shape == (300, 5)
    assert np.all(paths > 0) and np.all(np.isfinite(paths))
    again = baseline.fit(_growth_series()).forecast(horizon=5, draws=300, seed=1)
    np.testing.assert_allclose(paths, again)  # seeded


def test_random_walk_drift_centre_and_spread() -> None:
    values = np.exp(0.1 * np.arange(10))  # exact drift 0.1, no noise
    fitted = RandomWalkDrift().fit(values)
    assert fitted.drift == pytest.approx(0.1)
    paths = fitted.forecast(3, draws=100, seed=0)
    np.testing.assert_allclose(paths, np.exp(0.1 * np.arange(10, 13))[None, :].repeat(100, 0))


def test_baselines_follow_a_trend() -> None:
    series = _growth_series(30)
    for baseline in (ETSBaseline(), UCBaseline()):
        median = np.median(baseline.fit(series).forecast(4, draws=2000, seed=0), axis=0)
        assert np.all(np.diff(np.log(median)) > 0.03), baseline.name


def test_baselines_reject_bad_input() -> None:
    with pytest.raises(ForecastError):
        RandomWalkDrift().fit([1.0, 2.0])
    with pytest.raises(ForecastError):
        ETSBaseline().fit([1.0, -2.0, 3.0, 4.0, 5.0, 6.0])


def test_cutoffs_leave_the_horizon(dataset) -> None:
    cutoffs = cutoffs_for(dataset, "nvidia_data_center", origins=6, horizon=4)
    dates = list(observed_series(dataset, "nvidia_data_center")["calendar_quarter_end"])
    assert len(cutoffs) == 6 and cutoffs[-1] == dates[-5]
    with pytest.raises(ForecastError):
        cutoffs_for(dataset, "nvidia_data_center", origins=100, horizon=4)


def _oracle(dataset, series, horizon, draws, seed):
    """Forecaster that knows the future: every path equals the outcome."""
    full = load_dataset()
    out = {}
    for name in series:
        last = observed_series(dataset, name)["fiscal_period"].iloc[-1]
        truth = observed_series(full, name).set_index("fiscal_period")["value"]
        values = [truth.get(label, 1.0) for label in next_fiscal_labels(last, horizon)]
        out[name] = np.tile(values, (draws, 1))
    return out


def test_rolling_origin_scores_an_oracle_perfectly(dataset) -> None:
    tidy = rolling_origin(dataset, {"oracle": _oracle}, origins=3, horizon=2, draws=50)
    assert set(tidy.columns) >= {"model", "series", "cutoff", "horizon", "metric", "value"}
    assert tidy["cutoff"].nunique() == 3 and set(tidy["horizon"]) == {1, 2}
    crps = tidy[tidy["metric"] == "crps"]["value"]
    assert np.allclose(crps, 0.0)
    cover = tidy[tidy["metric"] == "coverage_95"]["value"]
    assert np.allclose(cover, 1.0)
    summary = summarize(tidy)
    assert list(summary["horizon"]) == ["all", "1", "2"]
    assert summary.loc[0, "n"] == 6


def test_rolling_origin_records_failures(dataset) -> None:
    def broken(*args):
        raise RuntimeError("boom")

    tidy = rolling_origin(dataset, {"broken": broken}, origins=2, horizon=1, draws=10)
    assert tidy.empty and len(tidy.attrs["failures"]) == 2


def test_baseline_backtest_on_nvidia(dataset) -> None:
    forecasters = {"rw_drift": BaselineForecaster(RandomWalkDrift()),
                   "ets": BaselineForecaster(ETSBaseline())}
    tidy = rolling_origin(dataset, forecasters, origins=2, horizon=2, draws=200)
    summary = summarize(tidy)
    overall = summary[summary["horizon"] == "all"].set_index("model")
    assert set(overall.index) == {"rw_drift", "ets"}
    assert (overall["crps"] > 0).all()
    assert overall["coverage_80"].between(0, 1).all()


def test_score_paths_keys() -> None:
    paths = np.random.default_rng(0).lognormal(size=(500, 3))
    metrics = score_paths(paths, np.ones(3))
    assert {"crps", "crps_log", "pinball", "coverage_80", "coverage_95",
            "interval_score_80", "interval_score_95", "pinball_q000.5",
            "pinball_q099.5"} <= set(metrics)
    assert all(value.shape == (3,) for value in metrics.values())


@pytest.mark.slow
def test_backtest_market_end_to_end(dataset) -> None:
    # Plumbing only: PyMC's NUTS (its C compile is cached on disk, nutpie's numba compile
    # is not) at a loose target_accept, few draws.
    tidy, summary = backtest_market(dataset, origins=1, horizon=2, draws=200,
                                    sampler={"draws": 100, "tune": 150, "nuts_sampler": "pymc",
                                             "target_accept": 0.8})
    assert set(summary["model"]) == {"bayes_market", "rw_drift", "ets", "uc"}
    assert isinstance(summary, pd.DataFrame) and len(tidy.attrs["fits"]) == 1
