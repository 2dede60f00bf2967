"""Tests of list prices as steps: the histories, the step process against numpy references,
recovery of its hazard and move size, and forecasts that start where a list price stands."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from forecast.models.price.builder import DEFAULT_PRIORS
from forecast.models.price.steps import (
    held_prices,
    last_list_prices,
    list_history,
    list_intervals,
    step_layout,
    step_log_change,
    step_paths,
)


def _prices(rows: list[tuple[str, str, str, str, float]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["chip", "provider_or_index", "pricing_type", "date",
                                        "usd_per_chip_hour"])
    return frame.assign(date=pd.to_datetime(frame["date"]))


HISTORY = _prices([
    ("A100", "AWS (us-east-1)", "on-demand", "2022-01-01", 4.10),
    ("A100", "AWS (us-east-1)", "on-demand", "2023-01-01", 4.10),
    ("A100", "AWS (us-east-1)", "on-demand", "2023-01-01", 4.10),
    ("A100", "AWS (us-east-1)", "on-demand", "2025-06-05", 2.744),
    ("A100", "Azure (East US)", "on-demand", "2024-01-01", 3.00),
    ("A100", "Azure (East US)", "on-demand", "2024-01-01", 4.00),
    ("A100", "Lambda", "on-demand", "2024-01-01", 1.29),
])
LISTED = HISTORY["provider_or_index"] != "Lambda"


def test_history_keeps_held_prices_once_per_date():
    history = list_history(HISTORY, LISTED.to_numpy())
    aws = history[history["provider_or_index"] == "AWS (us-east-1)"]
    # Held prices stay (they are what the hazard is learnt from); a repeated date is one row.
    assert aws["usd_per_chip_hour"].tolist() == [4.10, 4.10, 2.744]
    # Two quotes on one date are their median; a market price is no list price.
    azure = history[history["provider_or_index"] == "Azure (East US)"]
    assert azure["usd_per_chip_hour"].tolist() == [3.5]
    assert "Lambda" not in set(history["provider_or_index"])


def test_intervals_against_hand_computed():
    intervals = list_intervals(list_history(HISTORY, LISTED.to_numpy()))
    assert intervals["moved"].tolist() == [False, True]
    np.testing.assert_allclose(intervals["years"], [365 / 365.25, 886 / 365.25])
    np.testing.assert_allclose(intervals["change"], [0.0, np.log(2.744 / 4.10)])
    last = last_list_prices(list_history(HISTORY, LISTED.to_numpy()))
    assert last.set_index("provider_or_index").loc["AWS (us-east-1)", "usd_per_chip_hour"] \
        == 2.744


def test_step_change_matches_compound_poisson_moments():
    rng = np.random.default_rng(0)
    draws = 200_000
    hazard, mu, sd = np.full(draws, 0.8), np.full(draws, -0.3), np.full(draws, 0.2)
    change = step_log_change(hazard, mu, sd, np.array([0.5, 1.0]), rng)
    # After 0.5 and 1.5 years: P(no move) = exp(-h t), mean h t mu, variance h t (mu^2 + sd^2).
    for column, years in ((0, 0.5), (1, 1.5)):
        held = np.mean(change[:, column] == 0.0)
        assert held == pytest.approx(np.exp(-0.8 * years), abs=0.005)
        assert change[:, column].mean() == pytest.approx(0.8 * years * -0.3, abs=0.005)
        assert change[:, column].var() == pytest.approx(0.8 * years * (0.09 + 0.04), rel=0.03)
    # The second interval's moves add to the first's: its increment holds with probability
    # exp(-h x 1 year), whatever the first interval did.
    increment = change[:, 1] - change[:, 0]
    assert np.mean(increment == 0.0) == pytest.approx(np.exp(-0.8), abs=0.005)
    moved_first = change[:, 0] != 0.0
    assert np.mean(increment[moved_first] == 0.0) == pytest.approx(np.exp(-0.8), abs=0.01)
    none = step_log_change(np.zeros(5), mu[:5], sd[:5], np.array([10.0]), rng)
    assert np.all(none == 0.0)


def test_held_prices_and_paths_start_from_the_last_listing():
    history = list_history(HISTORY, LISTED.to_numpy())
    a100 = history[history["chip"] == "A100"]
    companies = {"AWS (us-east-1)": "AWS", "Azure (East US)": "Azure"}
    dates = pd.DatetimeIndex(["2021-06-01", "2023-06-01", "2024-06-01", "2025-09-01",
                              "2026-09-01"])
    held = held_prices(a100, companies, dates)
    assert np.isnan(held[0])
    np.testing.assert_allclose(held[1:4], [4.10, np.sqrt(4.10 * 3.5), np.sqrt(2.744 * 3.5)])
    rng = np.random.default_rng(1)
    draws = 4000
    params = (np.full(draws, 0.4), np.full(draws, -0.2), np.full(draws, 0.1))
    paths = step_paths(step_layout(a100, companies, dates), params, rng)
    # Up to the last listing the paths are the price in force, exactly; after it they start
    # there and hold with probability exp(-hazard * years).
    np.testing.assert_array_equal(paths[:, 1:3], np.broadcast_to(held[1:3], (draws, 2)))
    start = np.sqrt(2.744 * 3.5)
    assert held[3] == pytest.approx(start) and np.median(paths[:, 3]) == start
    years = (dates[4] - pd.Timestamp("2025-06-05")).days / 365.25
    assert np.mean(paths[:, 4] == start) == pytest.approx(np.exp(-0.4 * years), abs=0.03)
    assert np.median(paths[:, 4]) == start


@pytest.mark.slow
def test_the_step_process_recovers_hazard_and_move_size():
    """Simulated quarterly snapshots of list prices moving 1.2 times a year by a mean log
    size of -0.45: the prior (0.5 a year, -0.2) alone would miss both."""
    import pymc as pm

    from forecast.models.price.builder import _list_steps

    rng = np.random.default_rng(11)
    rows = []
    for series in range(40):
        dates = pd.Timestamp("2020-01-01") + pd.to_timedelta(
            np.sort(rng.uniform(0, 5 * 365, 20)).astype(int), unit="D")
        log_price = np.log(4.0)
        previous = dates[0]
        for date in dates:
            moves = rng.poisson(1.2 * (date - previous).days / 365.25)
            log_price += rng.normal(-0.45, 0.15, moves).sum()
            rows.append(("chip", f"cloud {series}", "on-demand", date, np.exp(log_price)))
            previous = date
    history = _prices(rows)
    with pm.Model():
        _list_steps(SimpleNamespace(list_history=history), DEFAULT_PRIORS)
        # No jitter: a jittered start can put the hazard where the mixture overflows.
        idata = pm.sample(draws=600, tune=600, chains=2, random_seed=5, progressbar=False,
                          init="adapt_diag")
    posterior = idata.posterior
    hazard = posterior["list_move_hazard"].values.ravel()
    size = posterior["list_move_size"].values.ravel()
    # Seeds 1-3 and 11 of this simulation gave medians of 1.05-1.25 and -0.46 to -0.43.
    assert 0.9 < np.median(hazard) < 1.5
    assert -0.52 < np.median(size) < -0.38
    assert np.quantile(hazard, 0.05) > 0.7 and np.quantile(size, 0.95) < -0.3


@pytest.fixture(scope="module")
def shipped_price():
    from forecast.models.price import FittedPrice
    from forecast.store import shipped

    key = shipped.shipped_header()["scenarios"]["base"]["models"]["price"]
    return FittedPrice.load(shipped.shipped_dir() / key)


def test_one_quarter_after_a_list_cut_the_forecast_holds_the_cut_price(shipped_price):
    history = shipped_price.data["list_history"]
    key = ["chip", "provider_or_index", "pricing_type"]
    cut = []
    for _, series in history.groupby(key):
        prices = series["usd_per_chip_hour"].to_numpy()
        if len(prices) > 1 and prices[-1] < prices[-2]:
            cut.append(series.iloc[-1])
    # AWS's June 2025 cuts of its A100 and H100 list prices among them.
    assert len(cut) >= 3
    rows = pd.DataFrame(cut)[key + ["date"]].assign(
        date=lambda frame: frame["date"] + pd.Timedelta(days=91))
    samples = shipped_price.predict_observations(rows.reset_index(drop=True), draws=2000,
                                                 seed=4)
    after_cut = pd.DataFrame(cut)["usd_per_chip_hour"].to_numpy()
    np.testing.assert_allclose(np.median(samples, axis=0), after_cut, rtol=0.05)
