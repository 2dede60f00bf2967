"""Tests of the price backtest: the random-walk baseline on hand-made data, and a real run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.evaluation import harness
from forecast.evaluation.price_backtest import (
    BAYES,
    RANDOM_WALK,
    STACK,
    PriceActuals,
    RandomWalkForecast,
    backtest_price_cli,
    has_history,
    known_at,
    later_prices,
    price_horizons,
    price_origins,
    random_walk_samples,
)
from forecast.evaluation.price_misses import missed_observations
from forecast.evaluation.scoring import crps_samples

#: Provider classes of the hand-made series (providers.csv classes them in the data).
CLASSES = {"Lambda": "neocloud", "RunPod": "neocloud", "CR8DL": "neocloud",
           "AWS p5.48xlarge": "hyperscaler"}


def series(dates, prices, provider="Lambda", pricing_type="on-demand", chip="H100 SXM5 80GB"):
    return pd.DataFrame({"date": pd.to_datetime(dates), "chip": chip,
                         "provider_or_index": provider, "pricing_type": pricing_type,
                         "usd_per_chip_hour": prices})


def test_random_walk_continues_the_series_with_pooled_drift():
    # Two series, each halving in one year: drift log(0.5) a year, no volatility.
    train = pd.concat([series(["2023-01-01", "2024-01-01"], [4.0, 2.0]),
                       series(["2023-01-01", "2024-01-01"], [8.0, 4.0], provider="RunPod")])
    test = series(["2024-07-01"], [1.0])
    samples, usable = random_walk_samples(train, test, draws=100, seed=0, classes=CLASSES)
    assert usable.tolist() == [True]
    drift = np.log(0.5) / (365 / 365.25)  # per year of 365.25 days
    years = (pd.Timestamp("2024-07-01") - pd.Timestamp("2024-01-01")).days / 365.25
    np.testing.assert_allclose(samples[:, 0], 2.0 * np.exp(drift * years))


def test_random_walk_never_forecasts_a_list_price_from_a_market_price():
    train = pd.concat([series(["2023-01-01", "2024-01-01"], [4.0, 2.0]),
                       series(["2023-01-01", "2024-01-01"], [3.0, 2.5], provider="CR8DL")])
    test = series(["2024-07-01"], [12.0], provider="AWS p5.48xlarge")
    samples, usable = random_walk_samples(train, test, draws=10, seed=0, classes=CLASSES)
    assert usable.tolist() == [False]
    assert np.isnan(samples).all()


def test_has_history_is_the_random_walk_mask():
    dataset, cut = load_dataset(), pd.Timestamp("2024-07-01")
    test = later_prices(dataset, cut)
    train = dataset.as_of(cut).rental_prices
    classes = dataset.provider_classes
    _, usable = random_walk_samples(train, test, draws=5, seed=0, classes=classes)
    mask = has_history(train, test, classes)
    np.testing.assert_array_equal(mask, usable)
    assert 0 < mask.sum() < len(mask)  # chips launched after the cut-off have no history


def test_a_price_held_past_the_cut_off_is_scored_once():
    dataset, cut = load_dataset(), pd.Timestamp("2024-07-01")
    test = later_prices(dataset, cut)
    held = test[(test["chip"] == "A100 SXM4 40GB")
                & (test["provider_or_index"]
                   == "Amazon Web Services (US East (Northern Virginia))")
                & (test["pricing_type"] == "1-year commitment")]
    # Listed at $2.40 since 2021 and seen again on 2024-08-03 and 2025-03-02: one test row,
    # its first observation after the cut-off (a list price that held is an outcome too).
    assert held["usd_per_chip_hour"].tolist() == [2.40]
    assert held["date"].tolist() == [pd.Timestamp("2024-08-03")]


def test_price_horizons_are_quarters_rounded_up():
    test = series(["2024-07-02", "2024-09-30", "2024-10-01", "2025-07-01"], [1.0] * 4)
    # 91.3125 days a quarter: 1, 91 and 92 days are quarter 1, 2; 365 days is quarter 4.
    assert price_horizons(test, pd.Timestamp("2024-07-01")).tolist() == [1, 1, 2, 4]


def test_random_walk_through_the_harness_scores_its_own_samples():
    dataset, cut = load_dataset(), pd.Timestamp("2024-07-01")
    scored = harness.run_backtest({"rw": RandomWalkForecast(dataset, 300, 4)}, [cut],
                                  PriceActuals(dataset))
    test = later_prices(dataset, cut)
    samples, usable = random_walk_samples(dataset.as_of(cut).rental_prices, test, 300, 4,
                                          dataset.provider_classes)
    assert scored["key"].tolist() == np.flatnonzero(usable).tolist()
    y = test["usd_per_chip_hour"].to_numpy()[usable]
    np.testing.assert_allclose(scored["actual"], y)
    np.testing.assert_allclose(scored["log_crps"],
                               crps_samples(np.log(samples[:, usable]), np.log(y)))
    np.testing.assert_array_equal(scored["quarters_ahead"], price_horizons(test, cut)[usable])


# --------------------------------------------------------------------------- rolling origins


def test_origins_are_quarter_ends_before_the_last_price():
    dataset = load_dataset()
    origins = price_origins(dataset, 3)
    last = dataset.rental_prices["date"].max()
    assert origins == sorted(origins) and len(origins) == 3
    assert all(o.is_quarter_end and o < last for o in origins)
    assert (origins[-1] + pd.offsets.QuarterEnd()) >= last.to_period("Q").start_time
    with pytest.raises(ForecastError, match="origins"):
        price_origins(dataset, 0)


def test_origins_the_prices_cannot_give_are_refused_before_any_list():
    """Every cut-off needs a price on or before it: the first price's quarter bounds them."""
    from forecast.core.errors import ForecastError

    dataset = load_dataset()
    first = dataset.rental_prices["date"].min().to_period("Q")
    most = len(pd.period_range(first, price_origins(dataset, 1)[0].to_period("Q"), freq="Q"))
    assert price_origins(dataset, most)[0].to_period("Q") == first
    for origins in (most + 1, 10**12):  # a list of 10**12 cut-offs would never be built
        with pytest.raises(ForecastError, match=f"--origins {origins}: .* at most {most}$"):
            price_origins(dataset, origins)


def _fake_results(dataset, origins, rng):
    """A model that knows every later price and a random walk three times too high."""
    results = []
    for origin in origins:
        test = later_prices(dataset, origin)
        quarters_ahead = price_horizons(test, origin)
        cells = [(row, int(quarters_ahead[row])) for row in range(len(test))]
        actual = test["usd_per_chip_hour"].to_numpy()
        exact = actual[None, :] * np.exp(0.01 * rng.standard_normal((200, len(test))))
        results += [harness.TaskResult(BAYES, origin, cells, exact, {}, 0.0),
                    harness.TaskResult(RANDOM_WALK, origin, cells, 3 * exact, {}, 0.0)]
    return results


def stack(results, dataset, origins):
    return harness.stack_results(results, BAYES, RANDOM_WALK, origins, known_at(dataset),
                                 seed=1, name=STACK)[0]


def test_the_stack_learns_its_weight_only_from_prices_known_at_the_origin():
    dataset = load_dataset()
    first, second = pd.Timestamp("2024-06-30"), pd.Timestamp("2024-09-30")
    results = _fake_results(dataset, [first, second], np.random.default_rng(0))
    stacked = {r.origin: r for r in stack(results, dataset, [first, second])}
    # Nothing was known before the first origin: an even split.
    assert stacked[first].info["weight"] == 0.5
    # The first origin's prices dated by the second (July-September 2024) favour the model.
    assert stacked[second].info["weight"] == 1.0
    model = next(r for r in results if r.forecaster == BAYES and r.origin == second)
    np.testing.assert_array_equal(stacked[second].samples, model.samples)
    # Scored prices dated after an origin never inform its weight: an origin before the
    # first one's later prices (here the same day) learns nothing from them.
    again = stack(results, dataset, [first, first])
    assert [r.info["weight"] for r in again] == [0.5, 0.5]
    # At an even split about half the draws come from each forecaster, whole draws at once.
    early = next(r for r in results if r.forecaster == BAYES and r.origin == first)
    from_model = np.isclose(stacked[first].samples, early.samples)
    assert (from_model.all(axis=1) | ~from_model.any(axis=1)).all()
    assert 0.35 < from_model.all(axis=1).mean() < 0.65


def test_rolling_backtest_reports_model_baseline_and_stack(mock_sampler):
    # Plumbing of the report, the stack and its weights (sampling is mocked); the model's
    # scores at its default sampler are the published backtest's (tests/pipeline).
    tidy, summary = backtest_price_cli(load_dataset(), origins=4, quarters=2, draws=200,
                                       sampler={"draws": 25, "tune": 500, "chains": 2,
                                                "random_seed": 2})
    report = tidy.attrs["report"]
    assert [m["model"] for m in report["models"]] == [BAYES, RANDOM_WALK, STACK]
    counts = {m["model"]: m["pooled"]["n"] for m in report["models"]}
    assert counts[BAYES] > 5
    # Every model on the same cells: origin, observation, quarters ahead.
    cells = {name: sorted(map(tuple, rows[["origin", "key", "quarters_ahead"]].astype(str)
                              .to_numpy()))
             for name, rows in tidy.groupby("forecaster")}
    assert set(cells) == {BAYES, RANDOM_WALK, STACK}
    assert cells[BAYES] == cells[RANDOM_WALK] == cells[STACK]
    assert set(tidy["quarters_ahead"]) <= {1, 2}
    assert set(tidy.attrs["weights"]) == set(tidy.attrs["fits"])
    assert list(tidy.attrs["weights"].values())[0] == 0.5
    everything = summary[summary["prices"] == "all"]
    pooled = everything[everything["quarters_ahead"] == "all"].set_index("model")
    assert pooled.loc[BAYES, "crps_log"] == pytest.approx(report["models"][0]["pooled"]
                                                          ["log_crps"])
    assert pooled["coverage_80"].between(0, 1).all()
    # List and market prices apart: the two parts are the pooled cells, split.
    parts = report["by_price_class"]
    assert set(parts) == {"list", "market"}
    assert sum(part["models"][0]["pooled"]["n"] for part in parts.values()) == counts[BAYES]
    by_class = summary[(summary["quarters_ahead"] == "all") & (summary["model"] == BAYES)]
    assert by_class.set_index("prices").loc["list", "n"] == parts["list"]["models"][0][
        "pooled"]["n"]


def test_misses_name_the_observations_outside_the_models_interval():
    dataset = load_dataset()
    origin = pd.Timestamp("2025-03-31")
    test = later_prices(dataset, origin).reset_index(drop=True)
    tidy = pd.DataFrame({"forecaster": [BAYES, BAYES, BAYES, RANDOM_WALK],
                         "origin": origin, "key": [0, 2, 3, 0], "quarters_ahead": [1, 1, 2, 1],
                         "in_80": [False, True, False, False], "median": [1.0, 2.0, 3.0, 4.0],
                         "pit": [0.01, 0.5, 0.97, 0.0]})
    misses = missed_observations(tidy, dataset)
    assert len(misses) == 2  # the model's two misses, not the covered row or the baseline's
    expected = test.iloc[[0, 3]]
    assert sorted(misses["usd_per_chip_hour"]) == sorted(expected["usd_per_chip_hour"])
    assert set(misses["chip"]) == set(expected["chip"])
    assert sorted(misses["pit"]) == [0.01, 0.97]
    assert missed_observations(tidy.assign(in_80=True), dataset).empty
