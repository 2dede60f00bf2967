"""Tests for the baselines and the rolling-origin backtest."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.core.calendar import next_fiscal_labels
from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.evaluation import harness
from forecast.evaluation.baselines import ETSBaseline, RandomWalkDrift, UCBaseline
from forecast.evaluation.market_backtest import (
    METRICS,
    BaselineForecaster,
    backtest_market,
    cutoffs_for,
    market_scores,
    rolling_origin,
    score_paths,
    summarize,
)
from forecast.evaluation.scoring import coverage, crps_samples
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
    assert np.allclose(tidy[tidy["metric"] == "pit"]["value"], 0.5)
    summary = summarize(tidy)
    assert list(summary["horizon"]) == ["all", "1", "2"]
    assert summary.loc[0, "n"] == 6


def test_rolling_origin_records_failures(dataset) -> None:
    def broken(*args):
        raise RuntimeError("boom")

    tidy = rolling_origin(dataset, {"broken": broken}, origins=2, horizon=1, draws=10)
    assert tidy.empty and len(tidy.attrs["failures"]) == 2


def test_baseline_backtest_on_nvidia_scores_the_baseline_paths(dataset) -> None:
    forecasters = {"rw_drift": BaselineForecaster(RandomWalkDrift()),
                   "ets": BaselineForecaster(ETSBaseline())}
    tidy = rolling_origin(dataset, forecasters, origins=2, horizon=2, draws=200, seed=3)
    summary = summarize(tidy)
    overall = summary[summary["horizon"] == "all"].set_index("model")
    assert set(overall.index) == {"rw_drift", "ets"} and (overall["n"] == 4).all()
    # The same scores by hand: fit the random walk as of the first cut-off, simulate, score.
    cutoff = cutoffs_for(dataset, "nvidia_data_center", origins=2, horizon=2)[0]
    history = observed_series(dataset.as_of(cutoff), "nvidia_data_center")
    paths = RandomWalkDrift().fit(history["value"].to_numpy()).forecast(2, draws=200, seed=3)
    truth = observed_series(dataset, "nvidia_data_center").set_index("fiscal_period")["value"]
    labels = next_fiscal_labels(history["fiscal_period"].iloc[-1], 2)
    actual = truth[labels].to_numpy()
    rows = tidy[(tidy["model"] == "rw_drift") & (tidy["cutoff"] == cutoff)]
    by_metric = rows.pivot_table(index="horizon", columns="metric", values="value")
    np.testing.assert_allclose(by_metric["crps"], crps_samples(paths, actual))
    np.testing.assert_allclose(by_metric["crps_log"], crps_samples(np.log(paths), np.log(actual)))
    np.testing.assert_allclose(by_metric["coverage_80"], coverage(paths, actual, 0.8))
    assert list(rows["fiscal_period"].unique()) == labels


def test_market_scores_is_the_wide_form_of_rolling_origin(dataset) -> None:
    forecasters = {"rw_drift": BaselineForecaster(RandomWalkDrift())}
    scored = market_scores(dataset, forecasters, origins=2, horizon=3, draws=100)
    tidy = rolling_origin(dataset, forecasters, origins=2, horizon=3, draws=100)
    assert len(tidy) == len(scored) * len(METRICS)
    wide = tidy.pivot_table(index=["cutoff", "horizon"], columns="metric", values="value")
    for column, metric in METRICS.items():
        np.testing.assert_allclose(wide[metric].to_numpy(), scored[column].to_numpy())
    report = harness.summarize_scores(scored)
    assert report["models"][0]["pooled"]["n"] == 6


def test_score_paths_keys() -> None:
    paths = np.random.default_rng(0).lognormal(size=(500, 3))
    metrics = score_paths(paths, np.ones(3))
    assert {"crps", "crps_log", "pinball", "coverage_80", "coverage_95",
            "interval_score_80", "interval_score_95", "pinball_q000.5",
            "pinball_q099.5", "pit"} <= set(metrics)
    assert all(value.shape == (3,) for value in metrics.values())


def test_backtest_market_baselines_only(dataset) -> None:
    messages: list[str] = []
    tidy, summary = backtest_market(dataset, origins=1, horizon=2, draws=100,
                                    series=("nvidia_data_center",), include_bayes=False,
                                    progress=messages.append)
    assert set(summary["model"]) == {"rw_drift", "ets", "uc"} and tidy.attrs["fits"] == []
    assert len(messages) == 3 and messages[0].startswith("rw_drift as of ")
    report = tidy.attrs["report"]
    crps = {m["model"]: m["pooled"]["crps"] for m in report["models"]}
    overall = summary[summary["horizon"] == "all"].set_index("model")["crps"]
    assert crps == pytest.approx(overall.to_dict())


@pytest.mark.slow
@pytest.mark.validation
def test_backtest_market_end_to_end(dataset) -> None:
    # Plumbing only: PyMC's NUTS (its C compile is cached on disk, nutpie's numba compile
    # is not) at a loose target_accept, few draws.
    tidy, summary = backtest_market(dataset, origins=1, horizon=2, draws=200,
                                    series=("nvidia_data_center",),
                                    sampler={"draws": 100, "tune": 150, "nuts_sampler": "pymc",
                                             "target_accept": 0.8})
    stack = "stack (bayes_market + rw_drift)"
    assert set(summary["model"]) == {"bayes_market", "rw_drift", "ets", "uc", stack}
    assert isinstance(summary, pd.DataFrame) and len(tidy.attrs["fits"]) == 1
    assert "max_r_hat" in tidy.attrs["fits"][0]
    report = tidy.attrs["report"]
    assert [m["model"] for m in report["models"]] == ["bayes_market", "rw_drift", stack,
                                                      "ets", "uc"]
    # One origin: no earlier origin to learn from, the stack's weight is the even 0.5.
    assert list(tidy.attrs["weights"].values()) == [0.5]
    assert all(m["pooled"]["n"] == 2 for m in report["models"])
