"""Tests of the share backtest (:mod:`forecast.evaluation.share_backtest`): the reported log
ratios of AMD's Data Center and Broadcom's AI revenue to NVIDIA's Data Center revenue, the
held-ratio forecasts, the actuals, the model's ratio paths, the origins and the stack.

No test fits the spend model: it is replaced by small fakes returning numpy paths.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from forecast.core.calendar import next_fiscal_labels
from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.evaluation import share_backtest
from forecast.evaluation.share_backtest import (
    ANCHOR,
    DRIFT,
    HELD,
    MODEL,
    NAIVE,
    STACK,
    HeldRatios,
    ModelRatios,
    RatioActuals,
    anchor_quarters,
    backtest_share_cli,
    check_backtest,
    reported_ratios,
    share_origins,
)
from forecast.evaluation.spend_forecasters import HELD_PATHS, SeriesPaths
from forecast.models.spend.evidence import observed_series

AMD, BROADCOM = "amd_data_center", "broadcom_ai"
#: NVIDIA's FY2025Q2 report: AMD's 2024Q2 is out (2024-07-30), Broadcom's is not (2024-09-05).
CUTOFF = pd.Timestamp("2024-08-28")


@pytest.fixture(scope="module")
def dataset() -> Any:
    """The shipped data (read once per module)."""
    return load_dataset()


def _by_quarter(dataset: Any, name: str) -> pd.Series:
    return observed_series(dataset, name).set_index("quarter")["value"]


def _ratio_by_hand(dataset: Any, name: str) -> pd.Series:
    """Log of a rival's value over NVIDIA's in the quarters both reported."""
    rival, nvidia = _by_quarter(dataset, name), _by_quarter(dataset, ANCHOR)
    common = [q for q in rival.index if q in nvidia.index]
    return pd.Series(np.log(rival[common].to_numpy() / nvidia[common].to_numpy()),
                     index=common)


def make_oracle(full: Any) -> Callable[..., SeriesPaths]:
    """A spend-model stand-in that knows ``full``'s reported quarters: every path of a series
    is its outcome (the last value as of the cut where the quarter is not in ``full``)."""

    def oracle(cut: Any, series: Sequence[str], quarters: int, draws: int,
               seed: int) -> SeriesPaths:
        paths = SeriesPaths()
        for name in series:
            rows = observed_series(cut, name)
            truth = observed_series(full, name).set_index("fiscal_period")["value"]
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


def stack_weights(tidy: pd.DataFrame) -> dict[str, float]:
    """The stack's weight of the model per origin, from the tasks' fit info."""
    return {str(entry["origin"].date()): entry["info"]["weight"]
            for entry in tidy.attrs["info"] if entry["forecaster"] == STACK}


# --------------------------------------------------------------------------- ratios


def test_reported_ratios_are_log_ratios_by_calendar_quarter(dataset: Any) -> None:
    ratios = reported_ratios(dataset)
    assert list(ratios.columns) == [AMD, BROADCOM]
    assert list(ratios.index) == sorted(ratios.index)
    assert ratios.index[0] == "2022Q4" and ratios.index[-1] == "2025Q2"
    # Broadcom's fiscal 2024Q1 ends 2024-02-04: calendar 2023Q4, NVIDIA's fiscal 2024Q4.
    assert ratios.loc["2023Q4", BROADCOM] == pytest.approx(np.log(2.3 / 18.4))
    assert ratios.loc["2023Q1", AMD] == pytest.approx(np.log(1.295 / 4.28))
    assert np.isnan(ratios.loc["2022Q4", AMD])  # AMD's series starts in 2023Q1
    for name in (AMD, BROADCOM):
        expected = _ratio_by_hand(dataset, name)
        np.testing.assert_allclose(ratios.loc[expected.index, name], expected, rtol=1e-12)


def test_a_rival_reported_before_nvidia_has_no_ratio_yet(dataset: Any) -> None:
    # 2024-08-01: AMD's 2024Q2 is out, NVIDIA's (2024-08-28) is not.
    ratios = reported_ratios(dataset.as_of("2024-08-01"))
    assert ratios.index[-1] == "2024Q2" and ratios.loc["2024Q2"].isna().all()
    full = reported_ratios(dataset)
    pd.testing.assert_frame_equal(ratios.loc[:"2024Q1"], full.loc[:"2024Q1"])


def test_anchor_quarters_are_nvidia_next_calendar_quarters(dataset: Any) -> None:
    assert anchor_quarters(dataset, CUTOFF, 3) == ["2024Q3", "2024Q4", "2025Q1"]
    # NVIDIA's fiscal 2024Q4 (reported 2024-02-21) ends in January: calendar 2023Q4.
    assert anchor_quarters(dataset, pd.Timestamp("2024-02-21"), 2) == ["2024Q1", "2024Q2"]


# --------------------------------------------------------------------------- held ratios


@pytest.mark.parametrize("drift", [False, True])
def test_held_ratios_are_a_random_walk_from_the_last_ratio(dataset: Any, drift: bool) -> None:
    """Constant shares spread by the steps' median absolute deviation (the held twin's rule);
    the walk with drift by their sd."""
    cells = HeldRatios(dataset, quarters=3, draws=200_000, seed=0, drift=drift)(CUTOFF)
    assert sorted(cells) == [(name, h) for name in (AMD, BROADCOM) for h in (1, 2, 3)]
    cut = dataset.as_of(CUTOFF)
    for name in (AMD, BROADCOM):
        history = _ratio_by_hand(cut, name).to_numpy()
        steps = np.diff(history)
        mean = (history[-1] - history[0]) / (len(history) - 1) if drift else 0.0
        robust = 1.4826 * np.median(np.abs(steps - np.median(steps)))
        # NVIDIA's jump sits in the steps: the two spreads differ by more than the tolerance.
        assert abs(robust - steps.std(ddof=1)) > 0.05 * steps.std(ddof=1)
        sd = steps.std(ddof=1) if drift else robust
        for h in (1, 2, 3):
            sample = cells[(name, h)]
            assert sample.mean() == pytest.approx(history[-1] + h * mean, abs=0.003)
            assert sample.std() == pytest.approx(np.sqrt(h) * sd, rel=0.01)


def test_a_rival_with_fewer_than_three_ratios_is_not_forecast(dataset: Any) -> None:
    # 2023-09-01: AMD has two ratios (2023Q1, Q2), Broadcom three (2022Q4 to 2023Q2).
    cells = HeldRatios(dataset, quarters=2, draws=10, seed=0, drift=False)(
        pd.Timestamp("2023-09-01"))
    assert sorted(cells) == [(BROADCOM, 1), (BROADCOM, 2)]


def test_held_ratio_forecasts_are_seeded(dataset: Any) -> None:
    held = HeldRatios(dataset, quarters=2, draws=50, seed=1, drift=False)
    first, again = held(CUTOFF), held(CUTOFF)
    assert all(np.array_equal(first[cell], again[cell]) for cell in first)
    other = HeldRatios(dataset, quarters=2, draws=50, seed=2, drift=False)(CUTOFF)
    assert not np.array_equal(first[(AMD, 1)], other[(AMD, 1)])


# --------------------------------------------------------------------------- actuals


def test_actuals_are_the_reported_ratios_in_nvidia_next_quarters(dataset: Any) -> None:
    actuals = RatioActuals(dataset, quarters=2)(CUTOFF)  # 2024Q3 and 2024Q4
    assert actuals == pytest.approx({
        (AMD, 1): np.log(3.5 / 30.8), (BROADCOM, 1): np.log(3.7 / 30.8),
        (AMD, 2): np.log(3.86 / 35.6), (BROADCOM, 2): np.log(4.1 / 35.6)})
    # After NVIDIA's last report on file nothing is scored.
    assert RatioActuals(dataset, quarters=2)(pd.Timestamp("2025-08-27")) == {}


# --------------------------------------------------------------------------- model ratios


def test_model_ratios_align_each_rival_on_nvidia_calendar_quarters(dataset: Any) -> None:
    """Column j of a series' paths is its (j + 1)-th next fiscal quarter: Broadcom, a
    quarter behind at the cut-off, has NVIDIA's first forecast quarter in its second."""
    calls: list[tuple[Any, ...]] = []

    def counting(cut: Any, series: Sequence[str], quarters: int, draws: int,
                 seed: int) -> SeriesPaths:
        calls.append((cut.as_of_date, tuple(series), quarters, draws, seed))
        scale = {ANCHOR: 10.0, AMD: 1.0, BROADCOM: 1.0}
        paths = SeriesPaths({name: np.tile(scale[name] * np.arange(1.0, quarters + 1.0),
                                           (draws, 1)) for name in series})
        paths.info = {"max_r_hat": 1.01}
        return paths

    forecast = ModelRatios(dataset, 2, 5, 7, counting)(CUTOFF)
    assert calls == [(CUTOFF, (ANCHOR, AMD, BROADCOM), 3, 5, 7)]
    assert sorted(forecast.samples) == [(AMD, 1), (AMD, 2), (BROADCOM, 1), (BROADCOM, 2)]
    np.testing.assert_allclose(forecast.samples[(AMD, 1)], np.log(1.0 / 10.0))
    np.testing.assert_allclose(forecast.samples[(AMD, 2)], np.log(2.0 / 20.0))
    np.testing.assert_allclose(forecast.samples[(BROADCOM, 1)], np.log(2.0 / 10.0))
    np.testing.assert_allclose(forecast.samples[(BROADCOM, 2)], np.log(3.0 / 20.0))
    assert forecast.info == {"max_r_hat": 1.01}


def test_model_ratios_leave_out_a_series_the_model_does_not_forecast(dataset: Any) -> None:
    oracle = make_oracle(dataset)

    def without_broadcom(cut: Any, series: Sequence[str], quarters: int, draws: int,
                         seed: int) -> SeriesPaths:
        return oracle(cut, [name for name in series if name != BROADCOM], quarters, draws,
                      seed)

    forecast = ModelRatios(dataset, 2, 4, 0, without_broadcom)(CUTOFF)
    assert sorted(forecast.samples) == [(AMD, 1), (AMD, 2)]
    actuals = RatioActuals(dataset, 2)(CUTOFF)
    for cell, sample in forecast.samples.items():
        np.testing.assert_allclose(sample, actuals[cell], rtol=1e-12)


# --------------------------------------------------------------------------- origins


def test_origins_need_three_reported_ratios_of_a_rival(dataset: Any) -> None:
    # AMD's and Broadcom's third ratios are in by NVIDIA's report of 2023-11-21; earlier
    # cut-offs have two at most.
    assert [str(c.date()) for c in share_origins(dataset, origins=4, quarters=4)] == [
        "2023-11-21", "2024-02-21", "2024-05-22", "2024-08-28"]
    assert share_origins(dataset, origins=2, quarters=2) == [pd.Timestamp("2024-11-20"),
                                                            pd.Timestamp("2025-02-26")]
    with pytest.raises(ForecastError, match="^--origins 2: 0 of .* ask for at most 0$"):
        share_origins(dataset.as_of("2023-09-01"), origins=2, quarters=1)


def test_check_backtest_refuses_more_origins_than_nvidia_quarters(dataset: Any) -> None:
    assert check_backtest(dataset, 4, 4) == 2 * 4 * 4
    with pytest.raises(ForecastError, match=re.escape(
            "--origins 23: nvidia_data_center gives 22 origins that leave 4 quarters to "
            "score; ask for at most 22")):
        check_backtest(dataset, 23, 4)
    with pytest.raises(ForecastError, match="gives 0 origins .* ask for at most 0$"):
        check_backtest(dataset, 1, 30)


def test_check_backtest_refuses_more_origins_than_share_origins_gives(dataset: Any) -> None:
    assert len(share_origins(dataset, 4, 4)) == 4
    with pytest.raises(ForecastError, match="^--origins 5: .*ask for at most 4$"):
        check_backtest(dataset, 5, 4)


def test_too_many_origins_are_refused_before_any_fit(
        dataset: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[dict[str, Any]] = []
    monkeypatch.setattr(share_backtest, "SpendForecaster",
                        lambda **sampler: built.append(sampler))
    with pytest.raises(ForecastError, match="^--origins 23: "):
        backtest_share_cli(dataset, origins=23, quarters=4)
    assert built == []


# --------------------------------------------------------------------------- the backtest


def test_an_oracle_model_scores_zero_and_the_stack_learns_it(
        dataset: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    oracle = make_oracle(dataset)
    sampler_given: list[dict[str, Any]] = []

    def with_twin(cut: Any, series: Sequence[str], quarters: int, draws: int,
                  seed: int) -> SeriesPaths:
        # The held twin: the rivals' outcomes 20% off, so the stack must learn the model.
        paths = oracle(cut, series, quarters, draws, seed)
        paths.info[HELD_PATHS] = {name: values * (1.0 if name == ANCHOR else 1.2)
                                  for name, values in paths.items()}
        return paths

    def factory(held_twin: bool = False, **sampler: Any) -> Callable[..., SeriesPaths]:
        sampler_given.append({"held_twin": held_twin, **sampler})
        return with_twin

    monkeypatch.setattr(share_backtest, "SpendForecaster", factory)
    messages: list[str] = []
    tidy, summary = backtest_share_cli(dataset, origins=4, quarters=2, draws=300,
                                       sampler={"draws": 7}, progress=messages.append)
    assert sampler_given == [{"held_twin": True, "draws": 7}]
    cutoffs = share_origins(dataset, 4, 2)
    origins = [str(c.date()) for c in cutoffs]
    assert len(messages) == 3 * 4 and messages[0].startswith(f"{MODEL} as of {origins[0]}: ")
    assert set(tidy["model"]) == {MODEL, HELD, NAIVE, DRIFT, STACK}
    model = tidy[tidy["model"] == MODEL]
    np.testing.assert_allclose(model["crps"], 0.0, atol=1e-12)
    assert (model["in_95"] == 1.0).all() and (model["pit"] == 0.5).all()
    assert tidy["log_crps"].isna().all()  # log ratios are not logged again
    # The first origin has no scored cells before it: 0.5; then the oracle's 1.0.
    weights = stack_weights(tidy)
    assert list(weights) == origins and weights[origins[0]] == 0.5
    assert all(weights[o] == 1.0 for o in origins[1:])
    assert tidy.attrs["weights"] == {**weights, "forecast": 1.0}
    held = tidy[tidy["model"] == HELD]
    assert (held["crps"] > 0).all()  # a ratio 20% off its outcome
    stack = tidy[tidy["model"] == STACK]
    np.testing.assert_allclose(stack.loc[stack["origin"] != cutoffs[0], "crps"], 0.0,
                               atol=1e-12)
    assert (stack.loc[stack["origin"] == cutoffs[0], "crps"] > 0).all()
    pooled = {m["model"]: m["pooled"] for m in tidy.attrs["report"]["models"]}
    assert pooled[MODEL]["n"] == pooled[NAIVE]["n"] == pooled[STACK]["n"] == 4 * 2 * 2
    expected = (tidy.groupby("model")[["crps", "in_80", "in_95", "pit"]].mean()
                .reset_index())
    np.testing.assert_allclose(summary.set_index("model").loc[expected["model"],
                               ["crps", "coverage_80", "coverage_95", "mean_pit"]],
                               expected[["crps", "in_80", "in_95", "pit"]])
    assert [fit["as_of"] for fit in tidy.attrs["fits"]] == origins


def test_a_map_gives_the_serial_scores(dataset: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    oracle = make_oracle(dataset)
    monkeypatch.setattr(share_backtest, "SpendForecaster", lambda **sampler: oracle)

    def reversed_map(function: Callable[[Any], Any], items: Any) -> list[Any]:
        items = list(items)
        return [function(item) for item in reversed(items)][::-1]

    serial, _ = backtest_share_cli(dataset, origins=2, quarters=2, draws=100)
    other, _ = backtest_share_cli(dataset, origins=2, quarters=2, draws=100,
                                  map_fn=reversed_map)
    pd.testing.assert_frame_equal(serial, other)


def test_the_stack_weight_of_an_origin_ignores_later_figures(
        dataset: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """AMD's and Broadcom's figures published after the last origin scaled by e^-3: every
    forecast made by then is unchanged, so the stack's weights and samples must be."""
    oracle = make_oracle(dataset)  # knows the unscaled figures
    monkeypatch.setattr(share_backtest, "SpendForecaster", lambda **sampler: oracle)
    origins = share_origins(dataset, 2, 2)  # NVIDIA's reports of 2024-11-20, 2025-02-26
    scaled = future_scaled(dataset, origins[1], np.exp(-3.0), ["AMD", "Broadcom"])
    runs = [backtest_share_cli(data, origins=2, quarters=2, draws=200)[0]
            for data in (dataset, scaled)]
    assert stack_weights(runs[0]) == stack_weights(runs[1])
    stacks = [tidy.loc[tidy["model"] == STACK, ["origin", "series", "quarters_ahead", "mean", "sd"]]
              .reset_index(drop=True) for tidy in runs]
    pd.testing.assert_frame_equal(*stacks)
