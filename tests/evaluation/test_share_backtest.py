"""Tests of the share backtest on the harness: the naive forecasts, the actuals, the stack,
the scored frame."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest
from forecast.economics.share_inputs import ShareData
from forecast.models.share import StateParams, simulate_share_data

from forecast.evaluation import harness, share_backtest
from forecast.evaluation.share_backtest import (
    DRIFT,
    MODEL,
    NAIVE,
    STACK,
    RandomWalkForecast,
    ShareActuals,
    share_origins,
)
from forecast.evaluation.share_backtest import (
    share_backtest as run_share_backtest,
)

QUARTERS = tuple(str(q) for q in pd.period_range("2022Q1", periods=8, freq="Q"))
VENDORS = ("nvidia", "amd", "google")


def hand_data() -> ShareData:
    """Eight quarters; AMD unmeasured in the first three and in the sixth."""
    t = len(QUARTERS)
    observed = np.ones((t, 3), dtype=bool)
    observed[:3, 1] = False
    observed[5, 1] = False
    alr = np.column_stack([np.linspace(-3.0, -1.6, t), -2.0 + 0.1 * np.sin(np.arange(t))])
    alr[~observed[:, 1:]] = np.nan
    cov = np.zeros((t, 2, 2))
    cov[:, 0, 0], cov[:, 1, 1] = 0.04, 0.01
    cov[~observed[:, 1], 0, 0] = np.nan
    return ShareData(QUARTERS, VENDORS, alr, cov, observed, np.zeros((t, 3)))


@dataclass(frozen=True)
class OracleShareModel:
    """Stands in for the share model: every draw is the measured log-ratio (0 if none)."""

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
        return harness.Forecast(cells, {"max_r_hat": 1.0})


def test_constant_share_keeps_the_last_measurement_with_random_walk_spread() -> None:
    data = hand_data()
    cells = RandomWalkForecast(data, horizon=3, draws=200_000, seed=0)("2023Q1")  # o = 4
    # AMD has two measurements by the origin (fewer than three): no forecast.
    assert sorted(cells) == [("google", h) for h in (1, 2, 3)]
    changes = np.diff(data.alr_mean[:5, 1])
    for h in (1, 2, 3):
        assert cells[("google", h)].mean() == pytest.approx(data.alr_mean[4, 1], abs=0.003)
        assert cells[("google", h)].std() == pytest.approx(np.sqrt(h * np.var(changes, ddof=1)),
                                                           rel=0.01)


def test_drift_adds_the_mean_change_per_quarter_across_a_gap() -> None:
    data = hand_data()
    cells = RandomWalkForecast(data, horizon=2, draws=200_000, seed=0, drift=True)("2023Q3")
    # AMD measured in 2022Q4, 2023Q1, 2023Q3 (not 2023Q2): the drift is the total change
    # over the three quarters between the first and last measurement.
    amd = data.alr_mean[[3, 4, 6], 0]
    drift = (amd[-1] - amd[0]) / 3.0
    assert cells[("amd", 1)].mean() == pytest.approx(amd[-1] + drift, abs=0.003)
    assert ("amd", 2) not in cells  # 2023Q4 is the last quarter of the data


def test_naive_forecasts_are_seeded_per_origin() -> None:
    naive = RandomWalkForecast(hand_data(), horizon=2, draws=50, seed=1)
    first, again = naive("2023Q1"), naive("2023Q1")
    assert all(np.array_equal(first[cell], again[cell]) for cell in first)
    assert not np.array_equal(first[("google", 1)], naive("2023Q2")[("google", 1)])


def test_actuals_are_the_measured_cells_only() -> None:
    actuals = ShareActuals(hand_data(), horizon=3)("2023Q1")  # o = 4: 2023Q2..2023Q4
    assert sorted(actuals) == [("amd", 2), ("amd", 3), ("google", 1), ("google", 2),
                               ("google", 3)]
    assert actuals[("google", 1)] == pytest.approx(hand_data().alr_mean[5, 1])


def test_origins_need_three_measured_quarters_before_them() -> None:
    assert share_origins(hand_data(), origins=20, horizon=2)[0] == "2022Q3"
    assert share_origins(hand_data(), origins=2, horizon=2) == ["2023Q2", "2023Q3"]


def test_scores_of_an_oracle_model_and_the_stack_learnt_out_of_sample(monkeypatch) -> None:
    monkeypatch.setattr(share_backtest, "ShareModelForecast", OracleShareModel)
    origins = ["2023Q1", "2023Q2", "2023Q3"]
    scored = run_share_backtest(hand_data(), origins, horizon=2, draws=400)
    assert set(scored["forecaster"]) == {MODEL, NAIVE, DRIFT, STACK}
    model = scored[scored["forecaster"] == MODEL]
    np.testing.assert_allclose(model["crps"], 0.0, atol=1e-12)
    assert scored["log_crps"].isna().all()
    # The first origin has no earlier scored cells: weight 0.5; later ones learn the oracle.
    weights = scored.attrs["weights"]
    assert weights["2023Q1"] == 0.5 and weights["2023Q3"] == 1.0
    report = scored.attrs["report"]
    assert [m["model"] for m in report["models"]][:1] == [MODEL]
    pooled = {m["model"]: m["pooled"] for m in report["models"]}
    assert pooled[MODEL]["n"] == pooled[NAIVE]["n"] == pooled[STACK]["n"] > 0


def test_unknown_origin_is_refused() -> None:
    with pytest.raises(ValueError):
        run_share_backtest(hand_data(), ["1999Q1"])


def test_a_map_gives_the_serial_scores(monkeypatch) -> None:
    monkeypatch.setattr(share_backtest, "ShareModelForecast", OracleShareModel)

    def reversed_map(function, items):
        items = list(items)
        return [function(item) for item in reversed(items)][::-1]

    origins = ["2023Q1", "2023Q2"]
    serial = run_share_backtest(hand_data(), origins, horizon=3, draws=100)
    other = run_share_backtest(hand_data(), origins, horizon=3, draws=100, map_fn=reversed_map)
    pd.testing.assert_frame_equal(serial.reset_index(drop=True), other.reset_index(drop=True))


@pytest.mark.slow
@pytest.mark.validation
def test_backtest_with_the_share_model_on_simulated_data() -> None:
    # Costs that move the targets: a model that knows them beats a constant share.
    quarters = [str(q) for q in pd.period_range("2018Q1", periods=24, freq="Q")]
    vendors = ("nvidia", "amd", "google")
    rng = np.random.default_rng(0)
    log_cost = np.cumsum(rng.normal(0.0, 0.3, (24, 3)), axis=0)
    params = StateParams(0.5, 0.3, 0.03, 0.03, 1.5)
    data, _ = simulate_share_data(quarters, vendors, log_cost, 1.5, [-2.0, -2.5], params,
                                  seed=2)
    sampler = {"draws": 500, "tune": 500, "random_seed": 5}
    scored = run_share_backtest(data, ["2022Q4", "2023Q1"], horizon=2, sampler=sampler,
                                draws=400)
    pooled = {m["model"]: m["pooled"] for m in scored.attrs["report"]["models"]}
    assert pooled[MODEL]["n"] == 2 * 2 * 2
    assert pooled[MODEL]["crps"] < pooled[NAIVE]["crps"]


def test_origins_are_counted_from_the_market_data_before_any_fit():
    """The origins share_origins' rule gives, from the quarters the market data measure each
    rival (no market fit): more is one line naming --origins and the most there are."""
    import re

    from forecast.core.errors import ForecastError
    from forecast.data.dataset import load_dataset

    dataset = load_dataset()
    with pytest.raises(ForecastError, match=r"^--origins 1000000000: the data give") as caught:
        share_backtest.check_backtest(dataset, 10**9, 4)
    most = int(re.search(r"ask for at most (\d+)$", str(caught.value))[1])
    assert most >= 6  # the CLI's default
    assert share_backtest.check_backtest(dataset, most, 4) == 4 * 4 * 3
    with pytest.raises(ForecastError, match=f"--origins {most + 1}: the data give {most} "):
        share_backtest.check_backtest(dataset, most + 1, 4)
