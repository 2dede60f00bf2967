"""Tests of the baselines and of the spend model's rolling-origin backtest
(:mod:`forecast.evaluation.spend_backtest`).

No test fits the spend model: the Bayesian forecaster is replaced by small fakes that return
numpy paths (an oracle that knows the reported quarters, or a recorder), and scores are
checked against hand numpy references.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from forecast.core.calendar import next_fiscal_labels
from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.evaluation import harness, spend_backtest
from forecast.evaluation.baselines import ETSBaseline, RandomWalkDrift, UCBaseline
from forecast.evaluation.spend_backtest import (
    BAYES,
    METRICS,
    STACK,
    BaselineForecaster,
    CutoffForecast,
    SeriesActuals,
    backtest_spend,
    check_backtest,
    cutoffs_for,
    rolling_origin,
    score_paths,
    series_scores,
    summarize,
)
from forecast.evaluation.spend_forecasters import SeriesPaths
from forecast.models.spend.evidence import SERIES, observed_series

NVIDIA = "nvidia_data_center"
RIVALS = ("amd_data_center", "broadcom_ai")


@pytest.fixture(scope="module")
def dataset() -> Any:
    """The shipped data (read once per module)."""
    return load_dataset()


def _growth_series(n: int = 24, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.exp(0.5 + 0.08 * np.arange(n) + 0.03 * rng.standard_normal(n))


def _crps_by_hand(samples: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """``E|X - y| - 0.5 E|X - X'|`` over every pair of draws (no sorting trick)."""
    x = np.asarray(samples, dtype=float)
    pairs = np.abs(x[:, None, :] - x[None, :, :]).mean(axis=(0, 1))
    return np.abs(x - actual).mean(axis=0) - 0.5 * pairs


def _inside_by_hand(samples: np.ndarray, actual: np.ndarray, level: float) -> np.ndarray:
    lower, upper = np.quantile(samples, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return ((actual >= lower) & (actual <= upper)).astype(float)


def _truth(dataset: Any, name: str) -> pd.Series:
    return observed_series(dataset, name).set_index("fiscal_period")["value"]


def make_oracle(full: Any) -> Callable[..., SeriesPaths]:
    """A forecaster that knows ``full``'s reported quarters: every path is the outcome (the
    last value as of the cut where the quarter is not in ``full``)."""

    def oracle(cut: Any, series: Sequence[str], quarters: int, draws: int,
               seed: int) -> SeriesPaths:
        paths = SeriesPaths()
        for name in series:
            rows = observed_series(cut, name)
            if rows.empty:
                continue
            truth = _truth(full, name)
            last = float(rows["value"].iloc[-1])
            values = [float(truth.get(label, last))
                      for label in next_fiscal_labels(rows["fiscal_period"].iloc[-1], quarters)]
            paths[name] = np.tile(values, (draws, 1))
        paths.info = {"as_of": str(cut.as_of_date.date()), "max_r_hat": 1.0}
        return paths

    return oracle


def future_scaled(dataset: Any, after: pd.Timestamp, factor: float,
                  companies: Sequence[str]) -> Any:
    """The dataset with every revenue figure of ``companies`` published after ``after``
    multiplied by ``factor``: what was known on ``after`` is unchanged."""
    revenue = dataset.revenue.copy()
    later = (revenue["published_date"] > after) & revenue["company"].isin(list(companies))
    revenue.loc[later, "revenue_usd_billions"] *= factor
    return replace(dataset, revenue=revenue)


# --------------------------------------------------------------------------- baselines


@pytest.mark.parametrize("baseline", [RandomWalkDrift(), ETSBaseline(), UCBaseline()])
def test_baselines_return_positive_seeded_paths(baseline: Any) -> None:
    fitted = baseline.fit(_growth_series())
    paths = fitted.forecast(quarters=5, draws=300, seed=1)
    assert paths.shape == (300, 5)
    assert np.all(paths > 0) and np.all(np.isfinite(paths))
    np.testing.assert_array_equal(paths, fitted.forecast(quarters=5, draws=300, seed=1))
    assert not np.array_equal(paths, fitted.forecast(quarters=5, draws=300, seed=2))


def test_random_walk_drift_centre_and_spread() -> None:
    values = np.exp(0.1 * np.arange(10))  # exact drift 0.1, no noise
    fitted = RandomWalkDrift().fit(values)
    assert fitted.drift == pytest.approx(0.1)
    paths = fitted.forecast(3, draws=100, seed=0)
    np.testing.assert_allclose(paths, np.exp(0.1 * np.arange(10, 13))[None, :].repeat(100, 0))


def test_random_walk_drift_spread_grows_with_the_square_root_of_the_horizon() -> None:
    logs = np.cumsum(np.random.default_rng(2).normal(0.05, 0.2, 41))
    fitted = RandomWalkDrift().fit(np.exp(logs))
    steps = np.diff(logs)
    assert fitted.sd == pytest.approx(steps.std(ddof=1))
    paths = np.log(fitted.forecast(4, draws=200_000, seed=3))
    # Step noise plus the drift's estimation error (sd / sqrt(n) per quarter ahead).
    h = np.arange(1, 5)
    expected = fitted.sd * np.sqrt(h + h**2 / len(steps))
    np.testing.assert_allclose(paths.std(axis=0), expected, rtol=0.01)
    np.testing.assert_allclose(paths.mean(axis=0), logs[-1] + steps.mean() * h, atol=0.005)


def test_baselines_follow_a_trend() -> None:
    series = _growth_series(30)
    for baseline in (ETSBaseline(), UCBaseline()):
        median = np.median(baseline.fit(series).forecast(4, draws=2000, seed=0), axis=0)
        assert np.all(np.diff(np.log(median)) > 0.03), baseline.name


def test_baselines_reject_bad_input() -> None:
    with pytest.raises(ForecastError, match="at least 3 values"):
        RandomWalkDrift().fit([1.0, 2.0])
    with pytest.raises(ForecastError, match="positive, finite"):
        ETSBaseline().fit([1.0, -2.0, 3.0, 4.0, 5.0, 6.0])
    with pytest.raises(ForecastError, match="at least 1"):
        RandomWalkDrift().fit([1.0, 2.0, 3.0]).forecast(0)


def test_baseline_forecaster_skips_a_series_too_short_at_the_origin(dataset: Any) -> None:
    # On 2023-06-01 Broadcom has two reported quarters, AMD one: too few for the walk.
    cut = dataset.as_of("2023-06-01")
    paths = BaselineForecaster(RandomWalkDrift())(cut, (NVIDIA, *RIVALS), 3, 50, 0)
    assert list(paths) == [NVIDIA]
    history = observed_series(cut, NVIDIA)["value"].to_numpy()
    np.testing.assert_allclose(paths[NVIDIA],
                               RandomWalkDrift().fit(history).forecast(3, draws=50, seed=0))


# --------------------------------------------------------------------------- cut-offs


def test_cutoffs_are_report_dates_that_leave_the_horizon(dataset: Any) -> None:
    cutoffs = cutoffs_for(dataset, NVIDIA, origins=6, quarters=4)
    rows = dataset.revenue_series(*SERIES[NVIDIA])
    assert cutoffs == [pd.Timestamp(d) for d in rows["published_date"].iloc[-10:-4]]
    labels = list(observed_series(dataset, NVIDIA)["fiscal_period"])
    for i, cutoff in enumerate(cutoffs):
        # The fit as of the cut-off holds the quarter reported that day; the last cut-off
        # leaves exactly the four quarters reported since.
        last = observed_series(dataset.as_of(cutoff), NVIDIA)["fiscal_period"].iloc[-1]
        assert last == labels[len(labels) - 10 + i]
    assert next_fiscal_labels(labels[-5], 4) == labels[-4:]


def test_more_origins_than_the_data_give_are_refused(dataset: Any) -> None:
    message = ("--origins 23: nvidia_data_center has 26 observations, which give 22 origins "
               "with --quarters 4; ask for at most 22")
    with pytest.raises(ForecastError, match=f"^{message}$"):
        cutoffs_for(dataset, NVIDIA, origins=23, quarters=4)
    assert len(cutoffs_for(dataset, NVIDIA, origins=22, quarters=4)) == 22
    with pytest.raises(ForecastError, match="^--origins 23: nvidia_data_center"):
        check_backtest(dataset, 23, 4)


def test_check_backtest_counts_the_values_of_one_origin(dataset: Any) -> None:
    # Three series x 4 quarters x (model, rw_drift, ets, uc, stack).
    assert check_backtest(dataset, 6, 4) == 3 * 4 * 5
    assert check_backtest(dataset, 1, 1) == 3 * 1 * 5


def test_a_horizon_longer_than_the_series_is_refused(dataset: Any) -> None:
    with pytest.raises(ForecastError, match="^--origins 1: nvidia_data_center has 26 "):
        cutoffs_for(dataset, NVIDIA, origins=1, quarters=30)
    with pytest.raises(ForecastError, match="^--origins 1: nvidia_data_center has 26 "):
        check_backtest(dataset, 1, 30)


def test_an_unknown_series_is_a_forecast_error(dataset: Any) -> None:
    with pytest.raises(ForecastError, match="unknown series 'nvidia'"):
        cutoffs_for(dataset, "nvidia", origins=1, quarters=4)


def test_the_spend_model_can_be_prepared_at_the_default_cut_offs(dataset: Any) -> None:
    from forecast.models.spend.model import SpendModel
    from forecast.scenarios import load_scenario

    scenario = load_scenario("base")
    model = SpendModel.from_scenario(scenario)
    for cutoff in cutoffs_for(dataset, NVIDIA, origins=6, quarters=4):
        model.prepare(dataset.as_of(cutoff), scenario)


# --------------------------------------------------------------------------- actuals, tasks


def test_actuals_are_each_series_next_fiscal_quarters(dataset: Any) -> None:
    actuals = SeriesActuals(dataset, (NVIDIA, *RIVALS), quarters=2)
    cutoff = pd.Timestamp("2024-08-28")  # NVIDIA's FY2025Q2 report
    # Broadcom reported FY2024Q3 on 2024-09-05: as of the cut-off its last is FY2024Q2.
    assert actuals.labels(cutoff) == {
        (NVIDIA, 1): "FY2025Q3", (NVIDIA, 2): "FY2025Q4",
        ("amd_data_center", 1): "2024Q3", ("amd_data_center", 2): "2024Q4",
        ("broadcom_ai", 1): "FY2024Q3", ("broadcom_ai", 2): "FY2024Q4"}
    assert actuals(cutoff) == {
        (NVIDIA, 1): 30.8, (NVIDIA, 2): 35.6,
        ("amd_data_center", 1): 3.5, ("amd_data_center", 2): 3.86,
        ("broadcom_ai", 1): 3.2, ("broadcom_ai", 2): 3.7}


def test_actuals_leave_out_unreported_quarters_and_series_without_history(
        dataset: Any) -> None:
    actuals = SeriesActuals(dataset, (NVIDIA, *RIVALS), quarters=2)
    # Before AMD's and Broadcom's first reports: NVIDIA's cells only.
    early = pd.Timestamp("2023-02-22")
    assert sorted(actuals.labels(early)) == [(NVIDIA, 1), (NVIDIA, 2)]
    # NVIDIA's last report on file: its next quarters have no figure yet.
    late = pd.Timestamp("2025-08-27")
    assert actuals.labels(late)[(NVIDIA, 1)] == "FY2026Q3"
    assert (NVIDIA, 1) not in actuals(late)


def test_a_cutoff_task_fits_on_the_cut_data_and_splits_paths_into_cells(
        dataset: Any) -> None:
    calls: list[tuple[Any, ...]] = []

    def recorder(cut: Any, series: Sequence[str], quarters: int, draws: int,
                 seed: int) -> SeriesPaths:
        calls.append((cut.as_of_date, observed_series(cut, NVIDIA)["fiscal_period"].iloc[-1],
                      tuple(series), quarters, draws, seed))
        paths = SeriesPaths({name: np.arange(draws * quarters, dtype=float).reshape(
            draws, quarters) + k for k, name in enumerate(series)})
        paths.info = {"converged": True}
        return paths

    cutoff = pd.Timestamp("2024-08-28")
    task = CutoffForecast(dataset, recorder, (NVIDIA, "amd_data_center"), 3, 4, 9)
    forecast = task(cutoff)
    assert calls == [(cutoff, "FY2025Q2", (NVIDIA, "amd_data_center"), 3, 4, 9)]
    assert sorted(forecast.samples) == [(n, h) for n in ("amd_data_center", NVIDIA)
                                        for h in (1, 2, 3)]
    np.testing.assert_array_equal(forecast.samples[(NVIDIA, 2)], [1.0, 4.0, 7.0, 10.0])
    np.testing.assert_array_equal(forecast.samples[("amd_data_center", 3)],
                                  [3.0, 6.0, 9.0, 12.0])
    assert forecast.info == {"converged": True}


# --------------------------------------------------------------------------- scores


def test_score_paths_match_hand_scores() -> None:
    paths = np.random.default_rng(0).lognormal(size=(400, 3))
    actual = np.array([0.2, 1.0, 9.0])
    metrics = score_paths(paths, actual)
    assert {"crps", "crps_log", "pinball", "coverage_80", "coverage_95", "interval_score_80",
            "interval_score_95", "pinball_q000.5", "pinball_q050.0", "pinball_q099.5",
            "pit"} <= set(metrics)
    np.testing.assert_allclose(metrics["crps"], _crps_by_hand(paths, actual), rtol=1e-10)
    np.testing.assert_allclose(metrics["crps_log"],
                               _crps_by_hand(np.log(paths), np.log(actual)), rtol=1e-10)
    np.testing.assert_array_equal(metrics["coverage_80"], _inside_by_hand(paths, actual, 0.8))
    median = np.quantile(paths, 0.5, axis=0)
    np.testing.assert_allclose(metrics["pinball_q050.0"], 0.5 * np.abs(actual - median))
    np.testing.assert_allclose(metrics["pit"], (paths < actual).mean(axis=0))
    # The largest outcome lies above the 95% interval: the score adds 2 / 0.05 of the miss.
    upper = np.quantile(paths[:, 2], 0.975)
    lower = np.quantile(paths[:, 2], 0.025)
    assert metrics["interval_score_95"][2] == pytest.approx(upper - lower
                                                            + 40.0 * (9.0 - upper))


def test_rolling_origin_scores_an_oracle_perfectly(dataset: Any) -> None:
    tidy = rolling_origin(dataset, {"oracle": make_oracle(dataset)}, origins=3, quarters=2,
                          draws=50)
    assert list(tidy.columns) == ["model", "series", "cutoff", "quarters_ahead", "fiscal_period",
                                  "actual", "metric", "value"]
    assert tidy["cutoff"].nunique() == 3 and set(tidy["quarters_ahead"]) == {1, 2}
    assert set(tidy["metric"]) == set(METRICS.values())
    assert np.allclose(tidy.loc[tidy["metric"] == "crps", "value"], 0.0)
    assert np.allclose(tidy.loc[tidy["metric"] == "coverage_95", "value"], 1.0)
    assert np.allclose(tidy.loc[tidy["metric"] == "pit", "value"], 0.5)
    summary = summarize(tidy)
    assert list(summary["quarters_ahead"]) == ["all", "1", "2"]
    assert list(summary["n"]) == [6, 3, 3]
    info = tidy.attrs["info"]
    assert [entry["info"]["as_of"] for entry in info] == [
        str(c.date()) for c in cutoffs_for(dataset, NVIDIA, 3, 2)]


def test_rolling_origin_records_failures(dataset: Any) -> None:
    def broken(*args: Any) -> dict[str, np.ndarray]:
        raise RuntimeError("boom")

    tidy = rolling_origin(dataset, {"broken": broken}, origins=2, quarters=1, draws=10)
    assert tidy.empty
    cutoffs = cutoffs_for(dataset, NVIDIA, 2, 1)
    assert tidy.attrs["failures"] == [f"broken @ {c.date()}: boom" for c in cutoffs]


def test_random_walk_scores_equal_the_scores_by_hand(dataset: Any) -> None:
    forecasters = {"rw_drift": BaselineForecaster(RandomWalkDrift())}
    tidy = rolling_origin(dataset, forecasters, series=(NVIDIA, "broadcom_ai"), origins=2,
                          quarters=2, draws=200, seed=3)
    cutoff = cutoffs_for(dataset, NVIDIA, origins=2, quarters=2)[0]
    for name in (NVIDIA, "broadcom_ai"):
        history = observed_series(dataset.as_of(cutoff), name)
        paths = RandomWalkDrift().fit(history["value"].to_numpy()).forecast(2, 200, seed=3)
        labels = next_fiscal_labels(history["fiscal_period"].iloc[-1], 2)
        actual = _truth(dataset, name)[labels].to_numpy()
        rows = tidy[(tidy["series"] == name) & (tidy["cutoff"] == cutoff)]
        by_metric = rows.pivot_table(index="quarters_ahead", columns="metric", values="value")
        np.testing.assert_allclose(by_metric["crps"], _crps_by_hand(paths, actual))
        np.testing.assert_allclose(by_metric["crps_log"],
                                   _crps_by_hand(np.log(paths), np.log(actual)))
        np.testing.assert_array_equal(by_metric["coverage_80"],
                                      _inside_by_hand(paths, actual, 0.8))
        assert list(rows["fiscal_period"].unique()) == labels
        np.testing.assert_allclose(rows.groupby("quarters_ahead")["actual"].first(), actual)


def test_series_scores_is_the_wide_form_of_rolling_origin(dataset: Any) -> None:
    forecasters = {"rw_drift": BaselineForecaster(RandomWalkDrift())}
    scored = series_scores(dataset, forecasters, origins=2, quarters=3, draws=100)
    tidy = rolling_origin(dataset, forecasters, origins=2, quarters=3, draws=100)
    assert list(scored.columns) == [*harness.FRAME_COLUMNS[:4], "fiscal_period",
                                    *harness.FRAME_COLUMNS[4:]]
    assert len(tidy) == len(scored) * len(METRICS)
    wide = tidy.pivot_table(index=["cutoff", "quarters_ahead"], columns="metric", values="value")
    for column, metric in METRICS.items():
        np.testing.assert_allclose(wide[metric].to_numpy(), scored[column].to_numpy())
    assert harness.summarize_scores(scored)["models"][0]["pooled"]["n"] == 6


def test_a_parallel_map_gives_the_serial_scores(dataset: Any) -> None:
    forecasters = {"rw_drift": BaselineForecaster(RandomWalkDrift()),
                   "oracle": make_oracle(dataset)}

    def reversed_map(function: Callable[[Any], Any], items: Any) -> list[Any]:
        items = list(items)
        return [function(item) for item in reversed(items)][::-1]

    serial = series_scores(dataset, forecasters, origins=2, quarters=2, draws=50)
    other = series_scores(dataset, forecasters, origins=2, quarters=2, draws=50,
                          map_fn=reversed_map)
    pd.testing.assert_frame_equal(serial, other)


def test_summarize_averages_per_horizon_and_over_all() -> None:
    cutoffs = pd.to_datetime(["2024-05-22", "2024-08-28"])
    rows = []
    for model, offset in (("b", 10.0), ("a", 0.0)):
        for c, cutoff in enumerate(cutoffs):
            for h in (2, 1):
                rows += [{"model": model, "series": NVIDIA, "cutoff": cutoff, "quarters_ahead": h,
                          "metric": "crps", "value": offset + 2 * c + h},
                         {"model": model, "series": NVIDIA, "cutoff": cutoff, "quarters_ahead": h,
                          "metric": "coverage_80", "value": float(c == 0)},
                         {"model": model, "series": NVIDIA, "cutoff": cutoff, "quarters_ahead": h,
                          "metric": "pit", "value": 0.3}]
    summary = summarize(pd.DataFrame(rows))
    assert list(summary.columns) == ["series", "model", "quarters_ahead", "n", "crps",
                                     "coverage_80"]
    assert list(zip(summary["quarters_ahead"], summary["model"], strict=True)) == [
        ("all", "a"), ("all", "b"), ("1", "a"), ("1", "b"), ("2", "a"), ("2", "b")]
    # crps of a: 1, 2 at the first cut-off, 3, 4 at the second; b is 10 more.
    np.testing.assert_allclose(summary["crps"], [2.5, 12.5, 2.0, 12.0, 3.0, 13.0])
    np.testing.assert_allclose(summary["coverage_80"], 0.5)
    assert list(summary["n"]) == [4, 4, 2, 2, 2, 2]


def test_summarize_of_nothing_is_an_empty_table() -> None:
    empty = pd.DataFrame(columns=["model", "series", "cutoff", "quarters_ahead", "metric", "value"])
    summary = summarize(empty)
    assert summary.empty and list(summary.columns[:4]) == ["series", "model", "quarters_ahead", "n"]


# --------------------------------------------------------------------------- the stack


def test_stack_weights_are_learnt_on_quarters_reported_by_each_origin(
        dataset: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An oracle against the random walk: the weight is the even 0.5 at the first origin
    (nothing scored yet), the oracle's 1.0 once one of its quarters was reported; figures
    published after an origin never move that origin's weight."""
    oracle = make_oracle(dataset)
    monkeypatch.setattr(spend_backtest, "SpendForecaster", lambda **sampler: oracle)
    monkeypatch.setattr(spend_backtest, "BASELINES", {"rw_drift": RandomWalkDrift})
    cutoffs = cutoffs_for(dataset, NVIDIA, origins=4, quarters=2)
    labels = [str(c.date()) for c in cutoffs]
    tidy, _ = backtest_spend(dataset, origins=4, quarters=2, draws=200, series=(NVIDIA,))
    assert tidy.attrs["weights"] == dict.fromkeys(labels[:1], 0.5) | dict.fromkeys(labels[1:],
                                                                                   1.0)
    stack = tidy[(tidy["model"] == STACK) & (tidy["metric"] == "crps")]
    assert np.allclose(stack.loc[stack["cutoff"] > cutoffs[0], "value"], 0.0)
    assert (stack.loc[stack["cutoff"] == cutoffs[0], "value"] > 0).all()
    # NVIDIA's figures after the second origin three times higher: the oracle (which knows
    # the unscaled ones) is wrong from there on. The first two origins' weights stay; later
    # ones, learnt on quarters reported since, drop.
    scaled = future_scaled(dataset, cutoffs[1], 3.0, ["NVIDIA"])
    other, _ = backtest_spend(scaled, origins=4, quarters=2, draws=200, series=(NVIDIA,))
    weights = other.attrs["weights"]
    assert [weights[label] for label in labels[:2]] == [0.5, 1.0]
    assert weights[labels[2]] < 1.0 and weights[labels[3]] < 1.0


def test_backtest_spend_scores_the_model_walk_and_stack_on_common_cells(
        dataset: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model that forecasts NVIDIA only: it, the walk and their stack are scored on
    NVIDIA's cells alone (a fair comparison); the other baselines on every series."""
    oracle = make_oracle(dataset)
    sampler_given: list[dict[str, Any]] = []

    def nvidia_only(cut: Any, series: Sequence[str], quarters: int, draws: int,
                    seed: int) -> SeriesPaths:
        return oracle(cut, [NVIDIA], quarters, draws, seed)

    twins: list[tuple[bool, bool]] = []

    def factory(unbounded_twin: bool = False, held_twin: bool = False,
                **sampler: Any) -> Callable[..., SeriesPaths]:
        sampler_given.append(sampler)
        twins.append((unbounded_twin, held_twin))
        return nvidia_only

    class Last:
        """A naive baseline: every path is the last value."""

        name = "last"

        def fit(self, values: np.ndarray) -> Any:
            last = float(values[-1])

            class Held:
                def forecast(self, quarters: int, draws: int, seed: int) -> np.ndarray:
                    return np.full((draws, quarters), last)

            return Held()

    monkeypatch.setattr(spend_backtest, "SpendForecaster", factory)
    monkeypatch.setattr(spend_backtest, "BASELINES", {"rw_drift": RandomWalkDrift,
                                                      "last": Last})
    messages: list[str] = []
    tidy, summary = backtest_spend(dataset, origins=2, quarters=2, draws=100,
                                   sampler={"draws": 7}, progress=messages.append)
    assert sampler_given == [{"draws": 7}]
    # The backtest scores the same fits without the bounds and with positions held too.
    assert twins == [(True, True)]
    crps = tidy[tidy["metric"] == "crps"]
    paired = crps[crps["model"].isin([BAYES, "rw_drift", STACK])]
    assert set(paired["series"]) == {NVIDIA}
    assert paired.groupby("model").size().to_dict() == {BAYES: 4, "rw_drift": 4, STACK: 4}
    assert set(crps.loc[crps["model"] == "last", "series"]) == {NVIDIA, *RIVALS}
    assert len(tidy.attrs["fits"]) == 2 and tidy.attrs["fits"][0]["max_r_hat"] == 1.0
    assert len(messages) == 6 and messages[0].startswith(f"{BAYES} as of ")
    overall = summary[(summary["quarters_ahead"] == "all") & (summary["series"] == NVIDIA)]
    pooled = {m["model"]: m["pooled"] for m in tidy.attrs["report"]["models"]}
    assert pooled[BAYES]["crps"] == pytest.approx(0.0, abs=1e-12)
    assert pooled["last"]["n"] == 12
    by_model = overall.set_index("model")["crps"]
    # The walk's and the last value's NVIDIA scores are their own: the summary per series
    # agrees with the scores of the tidy frame.
    assert by_model["last"] == pytest.approx(
        crps.loc[(crps["model"] == "last") & (crps["series"] == NVIDIA), "value"].mean())
    # Per series and cut-off: the tidy frame's means over the quarters ahead.
    rows = {(r["series"], r["cutoff"], r["model"]): r for r in tidy.attrs["report"]["by_cutoff"]}
    log = tidy[(tidy["metric"] == "crps_log") & (tidy["model"] == "last")
               & (tidy["series"] == NVIDIA)]
    for cutoff, cells in log.groupby("cutoff"):
        row = rows[(NVIDIA, str(cutoff.date()), "last")]
        assert row["n"] == len(cells) == 2
        assert row["crps_log"] == pytest.approx(cells["value"].mean())
    assert {series for series, _, model in rows if model == BAYES} == {NVIDIA}


def test_backtest_spend_baselines_only(dataset: Any) -> None:
    messages: list[str] = []
    tidy, summary = backtest_spend(dataset, origins=1, quarters=2, draws=100,
                                   series=(NVIDIA,), include_bayes=False,
                                   progress=messages.append)
    assert set(summary["model"]) == {"rw_drift", "ets", "uc"}
    assert tidy.attrs["fits"] == [] and tidy.attrs["weights"] == {}
    assert len(messages) == 3 and messages[0].startswith("rw_drift as of ")
    crps = {m["model"]: m["pooled"]["crps"] for m in tidy.attrs["report"]["models"]}
    overall = summary[summary["quarters_ahead"] == "all"].set_index("model")["crps"]
    assert crps == pytest.approx(overall.to_dict())
