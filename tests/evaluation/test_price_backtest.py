"""Tests of the price backtest: the random-walk baseline on hand-made data, and a real run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.data.dataset import load_dataset
from forecast.evaluation.price_backtest import backtest_price, random_walk_samples


def series(dates, prices, provider="Lambda", pricing_type="on-demand", chip="H100 SXM5 80GB"):
    return pd.DataFrame({"date": pd.to_datetime(dates), "chip": chip,
                         "provider_or_index": provider, "pricing_type": pricing_type,
                         "usd_per_chip_hour": prices})


def test_random_walk_continues_the_series_with_pooled_drift():
    # Two series, each halving in one year: drift log(0.5) a year, no volatility.
    train = pd.concat([series(["2023-01-01", "2024-01-01"], [4.0, 2.0]),
                       series(["2023-01-01", "2024-01-01"], [8.0, 4.0], provider="RunPod")])
    test = series(["2024-07-01"], [1.0])
    samples, usable = random_walk_samples(train, test, draws=100, seed=0)
    assert usable.tolist() == [True]
    drift = np.log(0.5) / (365 / 365.25)  # per year of 365.25 days
    years = (pd.Timestamp("2024-07-01") - pd.Timestamp("2024-01-01")).days / 365.25
    np.testing.assert_allclose(samples[:, 0], 2.0 * np.exp(drift * years))


def test_random_walk_never_forecasts_a_list_price_from_a_market_price():
    train = pd.concat([series(["2023-01-01", "2024-01-01"], [4.0, 2.0]),
                       series(["2023-01-01", "2024-01-01"], [3.0, 2.5], provider="CR8DL")])
    test = series(["2024-07-01"], [12.0], provider="AWS p5.48xlarge")
    samples, usable = random_walk_samples(train, test, draws=10, seed=0)
    assert usable.tolist() == [False]
    assert np.isnan(samples).all()


@pytest.mark.slow
def test_backtest_scores_both_models_on_the_same_rows():
    result = backtest_price(load_dataset(), cutoff="2024-07-01", draws=400,
                            sampler={"draws": 400, "tune": 800, "random_seed": 3})
    scores = result.scores.set_index("model")
    assert set(scores.index) == {"bayesian", "random walk + drift"}
    assert scores["observations"].nunique() == 1 and scores["observations"].iloc[0] > 20
    assert (scores["crps_log"] > 0).all()
    assert scores[["coverage_80", "coverage_95"]].stack().between(0, 1).all()
    assert (result.detail["date"] > result.cutoff).all()
