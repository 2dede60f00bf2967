"""Tests of the backtest harness with toy forecasters whose scores are known in advance."""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kstest, norm

from forecast.core.errors import ForecastError
from forecast.evaluation import harness

ORIGINS = list(range(40))
KEYS = [f"s{i}" for i in range(10)]
HORIZONS = (1, 2, 3, 4)
SIGMA = 2.0


def truth_mean(key: str, origin: int, quarters: int) -> float:
    """A deterministic location per cell, far from zero for some cells."""
    return 10.0 + int(key[1:]) + 0.5 * origin - quarters


@dataclass(frozen=True)
class GaussianTruth:
    """Actuals drawn N(mean, SIGMA^2), seeded per origin."""

    seed: int = 0

    def __call__(self, origin: int) -> dict[harness.Cell, float]:
        rng = np.random.default_rng(harness.task_seed(self.seed, "truth", origin))
        return {(k, h): truth_mean(k, origin, h) + SIGMA * rng.standard_normal()
                for k in KEYS for h in HORIZONS}


@dataclass(frozen=True)
class GaussianForecaster:
    """Samples N(mean, (scale * SIGMA)^2) of every cell: calibrated at scale 1."""

    scale: float = 1.0
    draws: int = 400
    seed: int = 1

    def __call__(self, origin: int) -> dict[harness.Cell, np.ndarray]:
        rng = np.random.default_rng(harness.task_seed(self.seed, origin))
        return {(k, h): truth_mean(k, origin, h)
                + self.scale * SIGMA * rng.standard_normal(self.draws)
                for k in KEYS for h in HORIZONS}


@dataclass(frozen=True)
class ShiftedOracle:
    """Every draw equals the actual plus ``shift`` (an oracle at shift 0)."""

    actuals: GaussianTruth
    shift: float = 0.0
    draws: int = 20

    def __call__(self, origin: int) -> harness.OriginForecast:
        cells = {cell: np.full(self.draws, value + self.shift)
                 for cell, value in self.actuals(origin).items()}
        return harness.OriginForecast(cells, {"origin_seen": origin})


def test_an_oracle_scores_zero_and_pit_one_half() -> None:
    truth = GaussianTruth()
    scored = harness.run_backtest({"oracle": ShiftedOracle(truth)}, ORIGINS[:3], truth)
    assert len(scored) == 3 * len(KEYS) * len(HORIZONS)
    assert list(scored.columns) == list(harness.FRAME_COLUMNS)
    np.testing.assert_allclose(scored[["crps", "log_crps", "pinball", "interval_score_80"]],
                               0.0, atol=1e-12)
    assert (scored["in_80"] == 1).all() and (scored["in_95"] == 1).all()
    np.testing.assert_allclose(scored["pit"], 0.5)
    assert [entry["info"] for entry in scored.attrs["info"]] == [
        {"origin_seen": 0}, {"origin_seen": 1}, {"origin_seen": 2}]


def test_a_point_forecast_off_by_two_has_hand_computed_scores() -> None:
    truth = GaussianTruth()
    scored = harness.run_backtest({"high": ShiftedOracle(truth, shift=2.0)}, [0], truth)
    np.testing.assert_allclose(scored["crps"], 2.0)
    # Over-forecast by 2: pinball (1 - tau) * 2 at tau = 0.1, 0.5, 0.9.
    np.testing.assert_allclose(scored["pinball_10"], 1.8)
    np.testing.assert_allclose(scored["pinball_50"], 1.0)
    np.testing.assert_allclose(scored["pinball_90"], 0.2)
    np.testing.assert_allclose(scored["pinball"], 1.0)
    # Every draw above the outcome: PIT 0, outside every interval; interval score 2/alpha*2.
    assert (scored["pit"] == 0).all() and (scored["in_95"] == 0).all()
    np.testing.assert_allclose(scored["interval_score_80"], 2 / 0.2 * 2.0)
    y = scored["actual"].to_numpy()
    np.testing.assert_allclose(scored["log_crps"], np.abs(np.log(y + 2) - np.log(y)))


def test_calibrated_gaussian_forecasts_score_as_theory_says() -> None:
    truth = GaussianTruth()
    scored = harness.run_backtest({"gauss": GaussianForecaster()}, ORIGINS, truth, HORIZONS)
    n = len(ORIGINS) * len(KEYS) * len(HORIZONS)  # 1600 cells
    assert len(scored) == n
    # E[CRPS] of N(mu, s^2) at y ~ N(mu, s^2) is s / sqrt(pi) (1.128 for s = 2); the sample
    # mean of 1600 has sd ~0.02, the 400-draw estimate adds ~s / (2 sqrt(pi) * 400) bias.
    assert scored["crps"].mean() == pytest.approx(SIGMA / math.sqrt(math.pi), rel=0.04)
    # Binomial sd of the coverage over 1600 cells: 0.010 at 80%, 0.005 at 95%.
    assert scored["in_80"].mean() == pytest.approx(0.8, abs=0.035)
    assert scored["in_95"].mean() == pytest.approx(0.95, abs=0.02)
    assert scored["pit"].mean() == pytest.approx(0.5, abs=0.025)
    assert kstest(scored["pit"], "uniform").pvalue > 0.01


def test_too_narrow_forecasts_under_cover_and_lose_on_crps() -> None:
    truth = GaussianTruth()
    forecasters = {"calibrated": GaussianForecaster(), "narrow": GaussianForecaster(scale=0.4)}
    summary = harness.summarize_scores(harness.run_backtest(forecasters, ORIGINS, truth))
    pooled = {model["model"]: model["pooled"] for model in summary["models"]}
    # Theory: P(|Z| <= 0.4 z_0.9) = 2 Phi(0.4 * 1.2816) - 1 = 0.39.
    expected = 2 * norm.cdf(0.4 * norm.ppf(0.9)) - 1
    assert pooled["narrow"]["coverage_80"] == pytest.approx(expected, abs=0.04)
    assert pooled["narrow"]["crps"] > pooled["calibrated"]["crps"]
    histogram = summary["models"][1]["pit_histogram"]
    assert histogram[0] > 2 * histogram[5] and histogram[-1] > 2 * histogram[4]


def _reversed_map(function, items):
    """A map that runs the tasks in reverse order (as a scheduler might) and returns them in
    task order."""
    items = list(items)
    results = [function(item) for item in reversed(items)]
    return list(reversed(results))


def _threaded_map(function, items):
    with ThreadPoolExecutor(max_workers=3) as pool:
        return list(pool.map(function, items))


@pytest.mark.parametrize("map_fn", [_reversed_map, _threaded_map])
def test_a_pluggable_map_gives_the_serial_results(map_fn) -> None:
    truth = GaussianTruth()
    forecasters = {"gauss": GaussianForecaster(draws=100), "wide": GaussianForecaster(2.0, 100),
                   "oracle": ShiftedOracle(truth)}
    serial = harness.run_backtest(forecasters, ORIGINS[:8], truth)
    other = harness.run_backtest(forecasters, ORIGINS[:8], truth, map_fn=map_fn)
    pd.testing.assert_frame_equal(serial, other)
    assert harness.summarize_scores(serial) == harness.summarize_scores(other)


def test_tasks_are_one_per_origin_and_forecaster_and_pure() -> None:
    forecasters = {"a": GaussianForecaster(), "b": GaussianForecaster(seed=2)}
    tasks = harness.make_tasks(forecasters, [3, 4])
    assert [(t.forecaster, t.origin) for t in tasks] == [("a", 3), ("b", 3), ("a", 4), ("b", 4)]
    first, again = harness.run_task(tasks[0]), harness.run_task(tasks[0])
    assert first.cells == again.cells and np.array_equal(first.samples, again.samples)
    assert first.samples.shape == (400, len(KEYS) * len(HORIZONS))


def test_task_seed_is_stable_and_distinct() -> None:
    assert harness.task_seed(0, "x", 1) == harness.task_seed(0, "x", 1)
    assert len({harness.task_seed(0, "x", i) for i in range(100)}) == 100
    assert harness.task_seed(0, "x", 1) != harness.task_seed(1, "x", 1)


def test_failures_are_recorded_or_raised() -> None:
    truth = GaussianTruth()

    def broken(origin: int) -> dict:
        raise RuntimeError(f"boom at {origin}")

    scored = harness.run_backtest({"broken": broken, "ok": ShiftedOracle(truth)}, [0, 1], truth)
    assert scored.attrs["failures"] == ["broken @ 0: boom at 0", "broken @ 1: boom at 1"]
    assert set(scored["forecaster"]) == {"ok"}
    with pytest.raises(RuntimeError, match="boom"):
        harness.run_backtest({"broken": broken}, [0], truth, catch=False)


def test_bad_samples_fail_the_task() -> None:
    def ragged(origin: int) -> dict:
        return {("s0", 1): np.zeros(3), ("s0", 2): np.zeros(4)}

    def missing(origin: int) -> dict:
        return {("s0", 1): np.array([1.0, np.nan])}

    scored = harness.run_backtest({"ragged": ragged, "missing": missing}, [0], GaussianTruth())
    assert scored.empty and len(scored.attrs["failures"]) == 2
    with pytest.raises(ForecastError):
        harness.run_backtest({"ragged": ragged}, [0], GaussianTruth(), catch=False)


def test_common_cells_and_horizons_select_the_scored_cells() -> None:
    truth = GaussianTruth()

    def partial(origin: int) -> dict:
        return {cell: np.full(5, value) for cell, value in truth(origin).items()
                if cell[0] in ("s0", "s1")}

    forecasters = {"all": ShiftedOracle(truth), "partial": partial}
    everything = harness.run_backtest(forecasters, [0], truth)
    assert (everything["forecaster"] == "all").sum() == len(KEYS) * len(HORIZONS)
    common = harness.run_backtest(forecasters, [0], truth, quarters_ahead=[1, 3], common_cells=True)
    for name in forecasters:
        rows = common[common["forecaster"] == name]
        assert sorted(zip(rows["key"], rows["quarters_ahead"], strict=True)) == [
            ("s0", 1), ("s0", 3), ("s1", 1), ("s1", 3)]


def test_cells_without_an_actual_are_not_scored() -> None:
    def sparse_truth(origin: int) -> dict:
        return {("s0", 1): 3.0, ("s0", 2): float("nan")}

    def forecaster(origin: int) -> dict:
        return harness.paths_to_cells({"s0": np.full((10, 3), 3.0), "s9": np.ones((10, 3))})

    scored = harness.run_backtest({"f": forecaster}, [0], sparse_truth)
    assert list(zip(scored["key"], scored["quarters_ahead"], strict=True)) == [("s0", 1)]


def test_log_crps_only_where_positive_and_when_asked() -> None:
    def truth(origin: int) -> dict:
        return {("pos", 1): 2.0, ("neg", 1): -1.0}

    def forecaster(origin: int) -> dict:
        return {("pos", 1): np.array([1.0, 2.0, 4.0]), ("neg", 1): np.array([-1.0, 0.5, 1.0])}

    scored = harness.run_backtest({"f": forecaster}, [0], truth).set_index("key")
    expected = np.mean(np.abs(np.log([1.0, 2.0, 4.0]) - np.log(2.0))) - 0.5 * np.mean(
        np.abs(np.subtract.outer(np.log([1, 2, 4.0]), np.log([1, 2, 4.0]))))
    assert scored.loc["pos", "log_crps"] == pytest.approx(expected)
    assert np.isnan(scored.loc["neg", "log_crps"])
    off = harness.run_backtest({"f": forecaster}, [0], truth, log_scores=False)
    assert off["log_crps"].isna().all()


def test_summary_has_the_json_shape_and_pooled_means() -> None:
    truth = GaussianTruth()
    scored = harness.run_backtest({"high": ShiftedOracle(truth, shift=2.0),
                                   "gauss": GaussianForecaster(draws=200)}, ORIGINS[:5], truth)
    summary = harness.summarize_scores(scored)
    json.dumps(summary, allow_nan=False)  # JSON-ready: no NaN, plain types
    assert [m["model"] for m in summary["models"]] == ["high", "gauss"]
    high = summary["models"][0]
    assert set(high) == {"model", "pooled", "by_quarters_ahead", "pit_histogram"}
    assert tuple(high["pooled"]) == harness.SUMMARY_KEYS
    assert high["pooled"]["n"] == 5 * len(KEYS) * len(HORIZONS)
    assert high["pooled"]["crps"] == pytest.approx(2.0)
    assert high["pooled"]["pinball"] == pytest.approx(1.0)
    assert high["pooled"]["coverage_80"] == 0.0 and high["pooled"]["mean_pit"] == 0.0
    assert [row["quarters_ahead"] for row in high["by_quarters_ahead"]] == list(HORIZONS)
    assert all(row["n"] == 5 * len(KEYS) for row in high["by_quarters_ahead"])
    assert high["pit_histogram"] == [high["pooled"]["n"]] + [0] * 9
    gauss = summary["models"][1]
    rows = scored[scored["forecaster"] == "gauss"]
    assert gauss["pooled"]["crps"] == pytest.approx(rows["crps"].mean())
    assert gauss["by_quarters_ahead"][2]["coverage_95"] == pytest.approx(
        rows.loc[rows["quarters_ahead"] == 3, "in_95"].mean())


def test_summary_log_crps_is_none_without_positive_values() -> None:
    def truth(origin: int) -> dict:
        return {("k", 1): -1.0}

    def forecaster(origin: int) -> dict:
        return {("k", 1): np.array([-2.0, 0.0])}

    summary = harness.summarize_scores(harness.run_backtest({"f": forecaster}, [0], truth))
    assert summary["models"][0]["pooled"]["log_crps"] is None


def test_paths_to_cells_labels_columns_by_quarters_ahead() -> None:
    paths = {"a": np.arange(6.0).reshape(2, 3)}
    cells = harness.paths_to_cells(paths)
    assert list(cells) == [("a", 1), ("a", 2), ("a", 3)]
    np.testing.assert_array_equal(cells[("a", 2)], [1.0, 4.0])
    assert list(harness.paths_to_cells(paths, [4, 8, 12])) == [("a", 4), ("a", 8), ("a", 12)]
