"""Tests of the share backtest on the harness: the naive forecast, the actuals, the table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest

from forecast.economics.cost_paths import ShareData
from forecast.evaluation import harness, share_backtest
from forecast.evaluation.share_backtest import (
    COLUMNS,
    ConstantShareForecast,
    ShareActuals,
    rolling_origin_backtest,
)
from forecast.models.share import simulate_share_data

QUARTERS = tuple(str(q) for q in pd.period_range("2022Q1", periods=8, freq="Q"))
VENDORS = ("nvidia", "amd", "google")


def hand_data() -> ShareData:
    """Eight quarters; AMD unobserved in the first three and in the sixth."""
    t = len(QUARTERS)
    observed = np.ones((t, 3), dtype=bool)
    observed[:3, 1] = False
    observed[5, 1] = False
    alr = np.column_stack([np.linspace(-3.0, -1.6, t), -2.0 + 0.1 * np.sin(np.arange(t))])
    alr[~observed[:, 1:]] = np.nan
    cov = np.zeros((t, 2, 2))
    cov[:, 0, 0], cov[:, 1, 1] = 0.04, 0.01
    cov[~observed[:, 1], 0, 0] = np.nan
    log_cost = np.zeros((t, 3))
    return ShareData(QUARTERS, VENDORS, alr, cov, observed, log_cost)


@dataclass(frozen=True)
class OracleShareModel:
    """Stands in for the share model: every draw is the observed log-ratio (0 if none)."""

    data: ShareData
    horizon: int
    priors: Any
    sampler: Any
    draws: int
    seed: int

    def __call__(self, origin: str) -> harness.Forecast:
        o = QUARTERS.index(origin)
        cells = {}
        for h in range(1, min(self.horizon, len(QUARTERS) - 1 - o) + 1):
            for v in (1, 2):
                value = self.data.alr_mean[o + h, v - 1]
                cells[(VENDORS[v], h)] = np.full(self.draws, np.nan_to_num(value))
        return harness.Forecast(cells)


def test_naive_forecast_keeps_the_last_log_ratio_with_random_walk_spread() -> None:
    data = hand_data()
    cells = ConstantShareForecast(data, horizon=3, draws=200_000, seed=0)("2022Q4")  # o = 3
    assert sorted(cells) == [(v, h) for v in ("amd", "google") for h in (1, 2, 3)]
    # AMD: observed only in 2022Q4 up to the origin: no random-walk term, sd = 0.2 always.
    for h in (1, 2, 3):
        assert cells[("amd", h)].mean() == pytest.approx(data.alr_mean[3, 0], abs=0.003)
        assert cells[("amd", h)].std() == pytest.approx(0.2, rel=0.01)
    # Google: last observed at the origin; variance 0.01 + h * var(diff of 4 values).
    rw_var = np.var(np.diff(data.alr_mean[:4, 1]), ddof=1)
    for h in (1, 2, 3):
        assert cells[("google", h)].std() == pytest.approx(np.sqrt(0.01 + h * rw_var), rel=0.01)


def test_naive_forecast_after_a_gap_counts_steps_from_the_last_observation() -> None:
    data = hand_data()
    cells = ConstantShareForecast(data, horizon=1, draws=200_000, seed=0)("2023Q2")  # o = 5
    # AMD observed in 2022Q4 and 2023Q1, not in 2023Q2: the forecast of 2023Q3 continues
    # 2023Q1 (two steps on); one change only, so no random-walk variance: sd 0.2.
    assert cells[("amd", 1)].mean() == pytest.approx(data.alr_mean[4, 0], abs=0.003)
    assert cells[("amd", 1)].std() == pytest.approx(0.2, rel=0.01)
    # Google, observed at the origin: one step of random-walk variance.
    rw_var = np.var(np.diff(data.alr_mean[:6, 1]), ddof=1)
    assert cells[("google", 1)].std() == pytest.approx(np.sqrt(0.01 + rw_var), rel=0.01)


def test_naive_forecast_is_seeded_per_origin() -> None:
    data = hand_data()
    naive = ConstantShareForecast(data, horizon=2, draws=50, seed=1)
    first, again = naive("2022Q4"), naive("2022Q4")
    assert all(np.array_equal(first[cell], again[cell]) for cell in first)
    assert not np.array_equal(first[("google", 1)], naive("2023Q1")[("google", 1)])


def test_actuals_are_the_observed_cells_only() -> None:
    actuals = ShareActuals(hand_data(), horizon=3)("2023Q1")  # o = 4: 2023Q2..2023Q4
    assert sorted(actuals) == [("amd", 2), ("amd", 3), ("google", 1), ("google", 2),
                               ("google", 3)]
    assert actuals[("google", 1)] == pytest.approx(hand_data().alr_mean[5, 1])


def test_backtest_table_with_an_oracle_model(monkeypatch) -> None:
    monkeypatch.setattr(share_backtest, "ShareModelForecast", OracleShareModel)
    data = hand_data()
    table = rolling_origin_backtest(data, ["2022Q4", "2023Q3", "2023Q4"], horizon=2, draws=400)
    assert list(table.columns) == list(COLUMNS)
    # 2023Q4 is the last quarter: no test quarter, left out. 2022Q4: 2023Q1 and 2023Q2 x 2
    # vendors, less AMD in 2023Q2 (unobserved); 2023Q3: one quarter left, 2 vendors. Two
    # methods each.
    assert len(table) == 2 * (3 + 2)
    assert table[["origin", "quarter", "horizon", "vendor", "method"]].head(4).values.tolist() == [
        ["2022Q4", "2023Q1", 1, "amd", "share_model"],
        ["2022Q4", "2023Q1", 1, "amd", "constant_share"],
        ["2022Q4", "2023Q1", 1, "google", "share_model"],
        ["2022Q4", "2023Q1", 1, "google", "constant_share"]]
    model = table[table["method"] == "share_model"]
    np.testing.assert_allclose(model["crps"], 0.0, atol=1e-12)
    np.testing.assert_allclose(model["pit"], 0.5)
    assert model["covered80"].all() and table["log_crps"].isna().all()
    # Gaussian log score of a point forecast: observation variance only.
    y_var = np.where(model["vendor"] == "amd", 0.04, 0.01)
    np.testing.assert_allclose(model["log_score"], -0.5 * np.log(2 * np.pi * y_var))
    summary = harness.summarize_scores(table, model_column="method")
    assert [m["model"] for m in summary["models"]] == ["share_model", "constant_share"]
    assert summary["models"][0]["pooled"]["n"] == 5


def test_backtest_rejects_an_unknown_origin() -> None:
    with pytest.raises(ValueError):
        rolling_origin_backtest(hand_data(), ["1999Q1"])


def test_backtest_map_gives_the_serial_table(monkeypatch) -> None:
    monkeypatch.setattr(share_backtest, "ShareModelForecast", OracleShareModel)

    def reversed_map(function, items):
        items = list(items)
        return [function(item) for item in reversed(items)][::-1]

    origins = ["2022Q4", "2023Q1", "2023Q2"]
    serial = rolling_origin_backtest(hand_data(), origins, horizon=3, draws=100)
    other = rolling_origin_backtest(hand_data(), origins, horizon=3, draws=100,
                                    map_fn=reversed_map)
    pd.testing.assert_frame_equal(serial, other)


@pytest.mark.slow
def test_backtest_with_the_share_model_on_simulated_data() -> None:
    quarters = [str(q) for q in pd.period_range("2020Q1", periods=14, freq="Q")]
    vendors = ("nvidia", "amd", "google", "aws")
    rng = np.random.default_rng(0)
    log_cost = np.log(np.array([2.0, 1.8, 1.6, 1.7]))[None] - 0.1 * np.arange(14)[:, None]
    log_cost = log_cost + 0.05 * rng.standard_normal(log_cost.shape)
    data = simulate_share_data(quarters, vendors, log_cost, 1.2, [2.5, 0.0, 0.5, -0.5], 0.4,
                               [-2.5, -2.0, -3.0], 0.1, 0.1, seed=2)
    sampler = {"draws": 200, "tune": 400, "chains": 2, "random_seed": 5}
    table = rolling_origin_backtest(data, ["2022Q4"], horizon=2, sampler=sampler, draws=300)
    assert len(table) == 2 * 3 * 2  # horizons x vendors x methods
    summary = harness.summarize_scores(table, model_column="method")
    pooled = {m["model"]: m["pooled"] for m in summary["models"]}
    # Data simulated from the model itself: its forecasts at the realised costs beat a
    # constant share that ignores the cost trend.
    assert pooled["share_model"]["crps"] < pooled["constant_share"]["crps"]
