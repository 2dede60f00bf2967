"""Sensitivity math on cases with known answers: one at a time (tornado, spider), the global
ranking over Monte Carlo draws and the attribution of tails."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from forecast.core.errors import ForecastError
from forecast.reporting.sensitivity.measures import (
    global_ranking,
    one_at_a_time,
    rank_correlations,
    spider,
    standardised_regression,
    tail_attribution,
    tornado,
    tornado_table,
)

Z90 = stats.norm.ppf(0.9)


def normal(sd: float = 1.0, mu: float = 0.0):
    return lambda u: float(stats.norm.ppf(u, loc=mu, scale=sd))


# --------------------------------------------------------------------------- tornado, spider


def test_tornado_ranks_a_first_for_3a_plus_b():
    table = tornado(lambda p: 3 * p["a"] + p["b"], {"b": normal(), "a": normal()})
    assert list(table["input"]) == ["a", "b"]
    assert list(table["rank"]) == [1, 2]
    a, b = table.iloc[0], table.iloc[1]
    assert a["low_value"] == pytest.approx(-Z90) and a["high_value"] == pytest.approx(Z90)
    assert a["output_at_low"] == pytest.approx(-3 * Z90)
    assert a["output_at_high"] == pytest.approx(3 * Z90)
    assert a["swing"] == pytest.approx(6 * Z90)
    assert b["swing"] == pytest.approx(2 * Z90)
    assert (table["baseline"] == 0).all()


def test_tornado_ranks_by_the_inputs_range_not_the_coefficient():
    # b's P10-P90 range is 4x a's: 1 x 4 beats 3 x 1.
    table = tornado(lambda p: 3 * p["a"] + p["b"], {"a": normal(), "b": normal(sd=4.0)})
    assert list(table["input"]) == ["b", "a"]


def test_tornado_swing_is_absolute_and_keeps_sign_in_outputs():
    table = tornado(lambda p: -5 * p["a"] + 0 * p["c"], {"a": normal(), "c": normal()})
    first = table.iloc[0]
    assert first["input"] == "a" and first["output_at_low"] > first["output_at_high"]
    assert first["swing"] == pytest.approx(10 * Z90)
    assert table.iloc[1]["swing"] == 0


def test_one_at_a_time_holds_the_other_inputs_at_their_medians():
    seen = []

    def evaluate(point):
        seen.append(dict(point))
        return 0.0

    ppfs = {"a": normal(mu=10.0), "b": normal(mu=-2.0, sd=3.0)}
    frame = one_at_a_time(evaluate, ppfs, (10, 90))
    assert len(frame) == 4 and len(seen) == 4
    for point, row in zip(seen, frame.itertuples(index=False), strict=True):
        other = "b" if row.input == "a" else "a"
        assert point[other] == pytest.approx({"a": 10.0, "b": -2.0}[other])
        assert point[row.input] == pytest.approx(row.input_value)
    with pytest.raises(ForecastError):
        one_at_a_time(evaluate, ppfs, (0, 90))


def test_tornado_table_ranks_nan_swings_last_and_keeps_ties_in_order():
    oat = pd.DataFrame({"input": ["x", "x", "y", "y", "z", "z"],
                        "percentile": [10.0, 90.0] * 3,
                        "input_value": [0.0, 1.0] * 3,
                        "output": [np.nan, 1.0, 0.0, 1.0, 2.0, 3.0]})
    table = tornado_table(oat, baseline=0.5)
    assert list(table["input"]) == ["y", "z", "x"]
    assert list(table["rank"]) == [1, 2, 3]


def test_spider_passes_through_the_baseline_at_the_median():
    table = spider(lambda p: p["a"] ** 3 + p["b"], {"a": normal(), "b": normal()},
                   percentiles=(10, 30, 50, 70, 90))
    a = table[table["input"] == "a"]
    assert list(a["percentile"]) == [10, 30, 50, 70, 90]
    assert np.all(np.diff(a["output"]) > 0)
    assert a.loc[a["percentile"] == 50, "change"].item() == pytest.approx(0.0)


# --------------------------------------------------------------------------- global ranking


@pytest.fixture(scope="module")
def draws() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 4000
    return pd.DataFrame({"a": rng.standard_normal(n), "b": rng.standard_normal(n),
                         "c": rng.standard_normal(n), "fixed": np.full(n, 2.0)})


def test_spearman_orders_inputs_by_influence(draws):
    y = 3 * draws["a"] + draws["b"] + 0.5 * np.random.default_rng(1).standard_normal(len(draws))
    rho = rank_correlations(draws, y.to_numpy())
    assert rho["a"] > rho["b"] > 0.2
    assert abs(rho["c"]) < 0.05
    assert np.isnan(rho["fixed"])


def test_standardised_regression_recovers_exact_linear_coefficients(draws):
    y = (3 * draws["a"] + draws["b"]).to_numpy()
    src, r2 = standardised_regression(draws, y)
    assert r2 == pytest.approx(1.0)
    for name, beta in (("a", 3.0), ("b", 1.0)):
        assert src[name] == pytest.approx(beta * draws[name].std(ddof=0) / y.std())
    assert src["c"] == pytest.approx(0.0, abs=1e-10)
    assert np.isnan(src["fixed"])


def test_rank_regression_captures_a_monotone_non_linear_output(draws):
    y = np.exp(3 * draws["a"]).to_numpy()
    _, r2_values = standardised_regression(draws, y)
    srrc, r2_ranks = standardised_regression(draws, y, ranks=True)
    assert r2_ranks == pytest.approx(1.0) and r2_values < 0.6
    assert srrc["a"] == pytest.approx(1.0)


def test_global_ranking_table(draws):
    y = (draws["b"] - 2 * draws["c"]).to_numpy()
    table = global_ranking(draws, y)
    assert list(table["input"][:2]) == ["c", "b"]
    assert table.iloc[0]["spearman"] < 0 and table.iloc[0]["src"] < 0
    assert table.iloc[-1]["input"] == "fixed"
    assert table.attrs["r2_src"] == pytest.approx(1.0)
    assert {"input", "spearman", "src", "srrc", "rank"} <= set(table.columns)


def test_non_finite_outputs_are_dropped_and_bad_shapes_refused(draws):
    y = draws["a"].to_numpy().copy()
    y[:10] = np.nan
    assert rank_correlations(draws, y)["a"] == pytest.approx(1.0)
    with pytest.raises(ForecastError):
        rank_correlations(draws, y[:-1])


# --------------------------------------------------------------------------- tails


def test_bottom_tail_is_attributed_to_the_input_that_drives_it(draws):
    y = (draws["a"] + 0.1 * draws["c"]).to_numpy()
    table = tail_attribution(draws, y, "bottom", 0.1)
    first = table.iloc[0]
    assert first["input"] == "a" and first["rank"] == 1
    assert first["mean_percentile"] < 10 and first["shift"] < -40
    assert first["tail_median"] < first["overall_median"]
    assert first["ks"] > 0.8
    b = table.set_index("input").loc["b"]
    assert abs(b["mean_percentile"] - 50) < 5 and b["ks"] < 0.1
    assert table.attrs["n_tail"] == pytest.approx(0.1 * len(draws), abs=1)
    assert table.attrs["threshold"] == pytest.approx(np.quantile(y, 0.1))


def test_top_tail_tilts_the_other_way(draws):
    y = (-draws["b"]).to_numpy()
    table = tail_attribution(draws, y, "top", 0.2).set_index("input")
    assert table.loc["b", "mean_percentile"] < 15
    assert table.loc["b", "rank"] == 1
    with pytest.raises(ForecastError):
        tail_attribution(draws, y, "middle")
    with pytest.raises(ForecastError):
        tail_attribution(draws, y, "top", 0.7)
