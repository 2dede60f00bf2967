"""The common level's filter as observed one-step-ahead normals, and the bounds' fade."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from forecast.economics.bounds import BOUND_INPUTS, bound_paths, quarter_years, tightest
from forecast.models.spend.simulation import bounded_level, faded_step, simulate_level
from forecast.models.spend.trend import (
    SHOCK_SCALE_ALPHA,
    SHOCK_SCALE_BETA,
    FilteredState,
    TrendParams,
    growth_filter,
    growth_filter_scan,
    log_sum_moments,
    simulate_trend,
)


def test_the_scans_one_step_normals_give_the_filters_likelihood() -> None:
    pytensor = pytest.importorskip("pytensor")
    dy = np.array([0.08, 0.12, 0.05, -0.02, 0.15, 0.30, 0.10])
    scales = np.array([1.0, 0.7, 2.5, 1.0, 1.3, 4.0, 0.9])
    params = TrendParams(0.85, 0.04, 0.03, 0.05, 0.06)
    mean, var, growth, var_growth = growth_filter_scan(dy, params, scales)
    got_mean, got_var, got_growth, got_pg = pytensor.function(
        [], [mean, var, growth, var_growth])()
    reference = growth_filter(dy, np.zeros(len(dy)), params, scales=scales)
    logp = stats.norm.logpdf(dy, got_mean, np.sqrt(got_var)).sum()
    assert logp == pytest.approx(float(reference.logp), rel=1e-10)
    assert got_growth == pytest.approx(float(reference.growth), rel=1e-10)
    assert got_pg == pytest.approx(float(reference.var_growth), rel=1e-10)


def test_a_faded_step_is_below_the_rise_and_the_headroom_and_passes_falls_under_it() -> None:
    rng = np.random.default_rng(2)
    step, headroom = rng.normal(0.0, 0.1, 5000), rng.normal(0.1, 0.2, 5000)
    got = faded_step(step, headroom)
    rise, room = np.maximum(step, 0.0), np.maximum(headroom, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.where(rise > 0, rise * (1.0 - np.exp(-room / rise)), 0.0)
    expected = np.minimum(np.minimum(step, 0.0) + expected, headroom)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    up, under = step > 0, headroom >= 0
    assert np.all(got[up] <= np.minimum(step[up], room[up]) + 1e-15)
    fall = ~up & under
    np.testing.assert_array_equal(got[fall], step[fall])  # under the bound a fall passes
    # Above a bound that fell below the TAM: down to the bound, or further with demand.
    np.testing.assert_array_equal(got[~under], np.minimum(step[~under], headroom[~under]))
    assert faded_step(np.array([0.1]), np.array([-0.2]))[0] == -0.2
    # Far from the bound the rise passes whole; at a headroom equal to the rise, 1 - 1/e of it.
    assert faded_step(np.array([0.1]), np.array([5.0]))[0] == 0.1
    assert faded_step(np.array([0.1]), np.array([0.1]))[0] == pytest.approx(0.1 * (1 - 1 / np.e))


def _state(n: int) -> dict[str, np.ndarray]:
    values = {"growth_persistence": 0.9, "growth_longrun": 0.05, "sigma_level": 0.03,
              "sigma_growth": 0.04, "growth_init": 0.05, "level_last": np.log(50.0),
              "growth_last": 0.08, "state_var_level": 0.0, "state_cov": 0.0,
              "state_var_growth": 0.0004}
    return {key: np.full(n, value) for key, value in values.items()}


def test_a_bound_far_away_changes_nothing_and_a_near_one_holds_the_tam_under_it() -> None:
    n, horizon = 4000, 20
    weight = np.full((n, horizon), np.log(1.25))
    start = np.full(n, np.log(50.0 * 1.25))  # the last fitted quarter's TAM
    free = simulate_level(_state(n), horizon, np.random.default_rng(3))
    far, binds = bounded_level(free, weight, np.full((n, horizon), 1e30), start)
    np.testing.assert_allclose(far, free, rtol=0, atol=1e-9)
    assert not binds.any()
    bound = np.exp(np.random.default_rng(4).normal(np.log(600.0), 0.2, size=(n, 1)))
    near, binds = bounded_level(free, weight, np.repeat(bound, horizon, axis=1), start)
    tam, free_tam = (4.0 * np.exp(x + weight) for x in (near, free))
    assert np.median(free_tam[:, -1]) > 800.0  # unbounded, most paths would pass 600
    assert np.all(tam <= bound * (1 + 1e-9)) and np.median(tam[:, -1]) < 600.0
    # The TAM never falls while demand is above it: the bound fades growth, cuts nothing.
    before = np.log(np.column_stack([np.full(n, 4.0 * np.exp(start[0])), tam[:, :-1]]))
    above = np.log(free_tam) > before
    assert above.mean() > 0.5 and np.all(np.log(tam)[above] >= before[above] - 1e-12)
    # Where demand has long outgrown the bound the TAM stays within 5% under it.
    over = free_tam[:, -4:].min(axis=1) > 1.5 * bound[:, 0]
    assert over.sum() > 100 and np.all(tam[over, -1] > 0.95 * bound[over, 0])
    # Where demand stays far below the bound all along the TAM follows it (a path that met
    # the bound and fell back keeps the growth it lost); the bound binds where demand
    # exceeds it.
    low = free_tam.max(axis=1) < 0.5 * bound[:, 0]
    assert low.sum() > 100
    np.testing.assert_allclose(tam[low, -1], free_tam[low, -1], rtol=0.02)
    assert binds[:, -1].mean() == pytest.approx(np.mean(free_tam[:, -1] > bound[:, 0]))


def test_a_bound_below_the_last_quarters_spend_is_lifted_to_it() -> None:
    n, horizon = 2000, 8
    weight = np.zeros((n, horizon))
    start = np.full(n, np.log(50.0))
    free = simulate_level(_state(n), horizon, np.random.default_rng(5))
    # A bound of 120 a year grown 8% a year, 40% under the last quarter's 200 a year.
    growth = np.exp(0.02 * np.arange(horizon))
    tam, _ = bounded_level(free, weight, np.tile(120.0 * growth, (n, 1)), start)
    lifted = 200.0 * growth  # the bound lifted to the last quarter, keeping its growth
    assert np.all(4.0 * np.exp(tam) <= lifted * (1 + 1e-9))
    # Rises fade near the lifted bound rather than vanish: the median path ends above 200.
    assert np.median(4.0 * np.exp(tam[:, -1])) > 200.0


def test_bound_paths_follow_their_formulas() -> None:
    inputs = {name: np.array([1.0, 2.0]) for names in BOUND_INPUTS.values() for name in names}
    inputs.update({"big_five_cash_flow_usd_billions": np.array([500.0, 500.0]),
                   "cash_flow_growth_per_year": np.array([0.0, 0.1]),
                   "debt_share_of_cash_flow": np.array([0.2, 0.2]),
                   "big_five_share_of_demand": np.array([0.5, 0.5]),
                   "ai_share_of_funding": np.array([0.7, 0.7]),
                   "accelerator_share_of_capex": np.array([0.4, 0.4]),
                   "ai_gw_added_per_year": np.array([18.0, 18.0]),
                   "ai_gw_growth_per_year": np.array([0.2, 0.2]),
                   "accelerator_usd_billions_per_gw": np.array([20.0, 20.0]),
                   "cowos_wafers_per_month": np.array([85000.0, 85000.0]),
                   "cowos_growth_per_year": np.array([0.0, 0.25]),
                   "accelerators_per_wafer": np.array([10.0, 10.0]),
                   "accelerator_asp_usd": np.array([30000.0, 30000.0])})
    years = quarter_years(["2025Q3", "2026Q3", "2030Q3"])
    paths = bound_paths(inputs, years)
    assert paths["funding"][0, 0] == pytest.approx(500 * 1.2 / 0.5 * 0.7 * 0.4)
    years_on = 2030.625 - 2025.5  # 2030Q3's middle from 2025's
    assert paths["funding"][1, 2] == pytest.approx(
        500 * np.exp(0.1 * years_on) * 1.2 / 0.5 * 0.28)
    assert paths["power"][0, 2] == pytest.approx(18 * np.exp(0.2 * years_on) * 20)
    assert paths["supply"][0, 0] == pytest.approx(85000 * 12 * 10 * 30000 / 1e9)
    low, which = tightest(paths)
    np.testing.assert_allclose(low, np.minimum.reduce(list(paths.values())))
    assert list(paths)[which[0, 0]] == "supply"


@pytest.mark.parametrize("phi", [0.5, 0.95])
def test_a_spans_log_total_has_the_simulated_trends_mean_and_sd(phi: float) -> None:
    """The visibility observation's moments against 200,000 simulated trend paths with
    Student-t shocks (inverse-gamma scales, whose mean the moments use)."""
    params = TrendParams(phi, 0.03, 0.04, 0.05, 0.0)
    state = FilteredState(np.log(40.0), 0.12, 0.0, 0.0, 0.03**2, None)
    known = np.log([39.0, 41.0, 45.0])
    mean, var = log_sum_moments(known, state, params, 5)
    rng = np.random.default_rng(0)
    n = 200_000
    growth = state.growth + np.sqrt(state.var_growth) * rng.standard_normal(n)
    scales = 1.0 / rng.gamma(SHOCK_SCALE_ALPHA, 1.0 / SHOCK_SCALE_BETA, size=(n, 5))
    paths = simulate_trend(np.full(n, state.level), growth, params, 5, rng, scales)
    total = np.log(np.exp(known).sum() + np.exp(paths).sum(axis=1))
    assert mean == pytest.approx(total.mean(), abs=0.01)
    assert np.sqrt(var) == pytest.approx(total.std(), rel=0.05)
    # Nothing ahead: the known total, exactly, with no spread.
    mean0, var0 = log_sum_moments(known, state, params, 0)
    assert mean0 == pytest.approx(np.log(np.exp(known).sum()))
    assert var0 == 0.0


def test_the_span_moments_are_the_same_in_pytensor() -> None:
    pytensor = pytest.importorskip("pytensor")
    import pytensor.tensor as pt

    phi = pt.dscalar("phi")
    known = np.log([39.0, 41.0])
    state = FilteredState(np.log(40.0), 0.1, 0.0, 0.0, 0.02**2, None)
    got = pytensor.function([phi], list(log_sum_moments(
        pt.as_tensor(known), state, TrendParams(phi, 0.03, 0.04, 0.05, 0.0), 4, xp=pt)))(0.8)
    want = log_sum_moments(known, state, TrendParams(0.8, 0.03, 0.04, 0.05, 0.0), 4)
    assert np.allclose(got, want, rtol=1e-10)
