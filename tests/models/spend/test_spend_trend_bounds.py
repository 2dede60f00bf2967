"""The common level's filter as observed one-step-ahead normals, and the bounds' fade."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from forecast.economics.bounds import BOUND_INPUTS, bound_paths, quarter_years, tightest
from forecast.models.spend.simulation import bounded_level, simulate_level, soft_minimum
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


def test_the_soft_minimum_stays_below_both_and_near_the_smaller() -> None:
    a = np.linspace(-2.0, 2.0, 81)
    got = soft_minimum(a, np.zeros_like(a))
    assert np.all(got <= np.minimum(a, 0.0))
    assert np.all(np.minimum(a, 0.0) - got <= 0.15 * np.log(2.0) + 1e-12)
    assert np.all(np.diff(got) > 0)  # smooth and increasing in each argument: no kink, no clip


def _state(n: int) -> dict[str, np.ndarray]:
    values = {"growth_persistence": 0.9, "growth_longrun": 0.05, "sigma_level": 0.03,
              "sigma_growth": 0.04, "growth_init": 0.05, "level_last": np.log(50.0),
              "growth_last": 0.08, "state_var_level": 0.0, "state_cov": 0.0,
              "state_var_growth": 0.0004}
    return {key: np.full(n, value) for key, value in values.items()}


def test_a_bound_far_away_changes_nothing_and_a_near_one_holds_the_tam_under_it() -> None:
    n, horizon = 4000, 20
    weight = np.full((n, horizon), np.log(1.25))
    free = simulate_level(_state(n), horizon, np.random.default_rng(3))
    far, binds = bounded_level(free, weight, np.full((n, horizon), 1e9))
    np.testing.assert_allclose(far, free, rtol=0, atol=1e-9)
    assert not binds.any()
    bound = np.exp(np.random.default_rng(4).normal(np.log(600.0), 0.2, size=(n, 1)))
    near, binds = bounded_level(free, weight, np.repeat(bound, horizon, axis=1))
    tam, free_tam = (4.0 * np.exp(x[:, -1] + weight[:, -1]) for x in (near, free))
    assert np.median(free_tam) > 800.0  # unbounded, most paths would pass 600
    assert np.all(tam <= bound[:, 0] * (1 + 1e-9)) and np.median(tam) < 600.0
    # The TAM follows its own path where demand is far below the bound, the bound's where
    # demand is far above it; the bound binds where demand exceeds it.
    low = free_tam < 0.3 * bound[:, 0]
    np.testing.assert_allclose(tam[low], free_tam[low], rtol=1e-3)
    assert binds[:, -1].mean() == pytest.approx(np.mean(free_tam > bound[:, 0]))


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
