"""forecast.models.diffusion.data (and simulate): periods, prepared series, covariates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.core.errors import ForecastError
from forecast.models.diffusion import (
    bass_adoptions,
    norton_bass_adoptions,
    period_labels,
    period_positions,
    prepare_diffusion_data,
    simulate_units,
)

# --------------------------------------------------------------------------- periods


def test_period_positions_of_each_index_kind():
    quarters = pd.PeriodIndex(["2024Q1", "2024Q3", "2025Q1"], freq="Q")
    positions, kind, freq = period_positions(quarters)
    assert list(positions) == [1, 3, 5] and kind == "period" and freq == "Q-DEC"
    dates = pd.DatetimeIndex(["2024-02-15", "2024-05-01"])
    assert list(period_positions(dates)[0]) == [1, 2]
    years, kind, freq = period_positions(pd.Index([2019, 2021, 2022]))
    assert list(years) == [1, 3, 4] and kind == "integer" and freq is None
    assert list(period_positions(pd.Index(["2024-Q4", "2025Q2"]))[0]) == [1, 3]


def test_period_labels_continue_the_index():
    assert period_labels("period", "Q-DEC", "2024Q3", np.array([1, 2, 3])) == [
        "2024Q3", "2024Q4", "2025Q1"]
    assert period_labels("period", "Y-DEC", "2020", np.array([2, 5])) == ["2021", "2024"]
    assert period_labels("integer", None, "2001", np.array([16, 17])) == ["2016", "2017"]


# --------------------------------------------------------------------------- prepare


def test_prepare_handles_quarters_gaps_and_launch_offset():
    index = pd.PeriodIndex(["2024Q1", "2024Q2", "2024Q4", "2025Q1", "2025Q2", "2025Q3"],
                           freq="Q")
    series = pd.Series([1.0, 2.0, 4.0, 5.0, 4.0, 3.0], index=index)
    data = prepare_diffusion_data(series, launch_offset=2)
    assert list(data.observations["position"]) == [1, 2, 4, 5, 6, 7]
    assert list(data.observations["period"])[2] == "2024Q4"
    assert data.n_span == 7 and data.launch_offset == 2
    assert data.totals == (19.0,)
    np.testing.assert_allclose(data.observations["scaled"], series.to_numpy() / 19.0)
    assert (data.index_kind, data.freq, data.first_label) == ("period", "Q-DEC", "2024Q1")
    labels = prepare_diffusion_data(series.set_axis([str(p) for p in index])).observations
    assert list(labels["position"]) == [1, 2, 4, 5, 6, 7]


def test_prepare_sorts_the_periods():
    series = pd.Series([3.0, 1.0, 2.0, 4.0, 5.0, 6.0], index=[2003, 2001, 2002, 2004, 2005,
                                                                2006])
    data = prepare_diffusion_data(series)
    assert list(data.observations["value"]) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert list(data.observations["period"]) == [str(y) for y in range(2001, 2007)]


def test_prepare_norton_bass_launch_periods():
    frame = simulate_units("norton-bass", 12, 0.02, 0.4, [1e5, 2e5], 0.1, seed=1,
                           launch_periods=[0, 5])
    data = prepare_diffusion_data(frame, "norton-bass", launch_offset=3)
    assert data.launch_periods == (0, 8)
    assert len(data.observations) == 12 + 7
    assert data.generations == ("gen1", "gen2")
    assert data.totals == pytest.approx(tuple(frame.sum()))


@pytest.mark.parametrize(("series", "kind", "message"), [
    (pd.Series([1.0, 2.0, -1.0, 3.0, 4.0, 5.0]), "bass", "must be > 0"),
    (pd.Series([1.0, 2.0, 3.0, 4.0, 5.0]), "bass", "need at least 6"),
    (pd.Series([1.0] * 6, index=list("abcdef")), "bass", "index must hold periods"),
    (pd.Series([1.0] * 6, index=[1, 1, 2, 3, 4, 5]), "bass", "duplicate period"),
    (pd.Series(["a"] * 6), "bass", "must be numbers"),
    (pd.DataFrame({"a": [1.0] * 6, "b": [1.0] * 6}), "bass", "fits one series"),
    (pd.DataFrame({"a": [1.0] * 6, "b": [np.nan] * 6}), "norton-bass", "b has no observ"),
    (pd.DataFrame({"a": [1.0] * 6, "b": [np.nan] * 3 + [1.0] * 3,
                   "c": [np.nan] + [1.0] * 5}), "norton-bass", "ordered by launch"),
    ([1.0] * 6, "bass", "Series or DataFrame"),
    (pd.Series([1.0] * 6), "logistic", "kind must be one of"),
])
def test_prepare_rejects_bad_series(series, kind, message):
    with pytest.raises(ForecastError, match=message):
        prepare_diffusion_data(series, kind)


@pytest.mark.parametrize("offset", [-1, 1.5, True])
def test_prepare_rejects_a_bad_launch_offset(offset):
    with pytest.raises(ForecastError, match="launch_offset"):
        prepare_diffusion_data(pd.Series([1.0] * 6), launch_offset=offset)


def test_gbass_needs_a_covariate_over_the_span():
    series = simulate_units("bass", 8, 0.02, 0.3, 1e5, 0.1, seed=2)
    with pytest.raises(ForecastError, match="needs a covariate"):
        prepare_diffusion_data(series, "gbass")
    with pytest.raises(ForecastError, match="7 values"):
        prepare_diffusion_data(series, "gbass", covariate=np.ones(7))
    with pytest.raises(ForecastError, match="only used by kind='gbass'"):
        prepare_diffusion_data(series, "bass", covariate=np.ones(8))
    with pytest.raises(ForecastError, match="positive and finite"):
        prepare_diffusion_data(series, "gbass", covariate=np.r_[np.ones(7), 0.0])


def test_gbass_covariate_log_changes_start_at_launch():
    series = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], index=range(1, 7))
    levels = np.array([1.0, 2.0, 2.0, 4.0, 4.0, 1.0])
    data = prepare_diffusion_data(series, "gbass", covariate=levels, launch_offset=2)
    np.testing.assert_allclose(
        data.log_change, [0, 0, 0, np.log(2), 0, np.log(2), 0, -np.log(4)])
    assert data.covariate_last == 1.0
    by_period = pd.Series(levels, index=range(1, 7))
    again = prepare_diffusion_data(series, "gbass", covariate=by_period, launch_offset=2)
    np.testing.assert_allclose(again.log_change, data.log_change)


def test_gbass_covariate_series_must_cover_the_gaps():
    series = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], index=[1, 2, 3, 5, 6, 7])
    with pytest.raises(ForecastError, match="no value for period 7"):
        prepare_diffusion_data(series, "gbass", covariate=pd.Series(1.0, index=range(1, 7)))
    with pytest.raises(ForecastError, match="cover every period"):
        prepare_diffusion_data(series, "gbass", covariate=pd.Series(1.0, index=series.index))


# --------------------------------------------------------------------------- simulate


def test_simulated_units_are_the_curve_times_lognormal_noise():
    quiet = simulate_units("bass", 10, 0.02, 0.3, 1e5, 0.0, seed=1)
    np.testing.assert_allclose(quiet.to_numpy(), bass_adoptions(10, 0.02, 0.3, 1e5))
    noisy = simulate_units("bass", 10, 0.02, 0.3, 1e5, 0.2, seed=1)
    noise = np.random.default_rng(1).standard_normal(10)
    np.testing.assert_allclose(np.log(noisy / quiet), 0.2 * noise)
    frame = simulate_units("norton-bass", 10, 0.02, 0.3, [1e5, 1e5], 0.0, seed=1,
                           launch_periods=[0, 4])
    assert frame["gen2"].isna().sum() == 4 and frame["gen1"].notna().all()
    mean = norton_bass_adoptions(10, [0, 4], 0.02, 0.3, [1e5, 1e5])
    np.testing.assert_allclose(frame["gen2"].to_numpy()[4:], mean[4:, 1])
