"""forecast.models.diffusion.math: Bass, generalised Bass and Norton-Bass curves against
closed forms, integrals and one another."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate

from forecast.core.errors import ForecastError
from forecast.models.diffusion import (
    bass_adoptions,
    bass_cdf,
    bass_pdf,
    bass_peak_time,
    effective_time,
    gbass_adoptions,
    norton_bass_adoptions,
    norton_bass_cumulative,
)
from forecast.models.diffusion.math import gbass_paths

PARAMS = [(0.01, 0.1), (0.02, 0.35), (0.003, 0.7), (0.05, 0.04)]


# --------------------------------------------------------------------------- Bass


@pytest.mark.parametrize(("p", "q"), PARAMS)
def test_cdf_is_the_integral_of_the_pdf(p, q):
    for t in (0.5, 3.0, 10.0, 40.0):
        integral, _ = integrate.quad(bass_pdf, 0.0, t, args=(p, q))
        assert bass_cdf(t, p, q) == pytest.approx(integral, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize(("p", "q"), PARAMS[:3])
def test_peak_time_is_the_argmax_of_the_pdf(p, q):
    grid = np.linspace(0.0, 60.0, 600_001)
    assert grid[np.argmax(bass_pdf(grid, p, q))] == pytest.approx(bass_peak_time(p, q),
                                                                  abs=1e-3)


def test_peak_time_is_launch_when_innovation_dominates():
    assert bass_peak_time(0.05, 0.04) == 0.0
    assert np.argmax(bass_pdf(np.linspace(0, 20, 2001), 0.05, 0.04)) == 0


def test_cdf_at_the_peak_is_a_half_minus_p_over_2q():
    p, q = 0.02, 0.35
    assert bass_cdf(bass_peak_time(p, q), p, q) == pytest.approx(0.5 - p / (2 * q))


@pytest.mark.parametrize(("p", "q"), PARAMS)
def test_adoptions_sum_to_m_times_cdf_and_cdf_tends_to_one(p, q):
    adoptions = bass_adoptions(30, p, q, 5e5)
    assert adoptions.sum() == pytest.approx(5e5 * bass_cdf(30, p, q))
    assert np.all(adoptions > 0)
    assert bass_cdf(1e4, p, q) == pytest.approx(1.0)
    assert bass_cdf(0.0, p, q) == 0.0
    assert bass_cdf(-3.0, p, q) == 0.0
    np.testing.assert_allclose(np.cumsum(adoptions), 5e5 * bass_cdf(np.arange(1, 31), p, q))


def test_first_period_adoptions_match_the_closed_form():
    p, q, m = 0.02, 0.35, 1e6
    decay = np.exp(-(p + q))
    expected = m * (1 - decay) / (1 + q / p * decay)
    assert bass_adoptions(1, p, q, m)[0] == pytest.approx(expected, rel=1e-12)


def test_years_to_quarters_divides_p_and_q_by_four():
    years = np.linspace(0, 8, 17)
    np.testing.assert_allclose(bass_cdf(years, 0.03, 0.4), bass_cdf(4 * years, 0.0075, 0.1))


def test_adoptions_are_vectorised_over_draws():
    p, q, m = np.array([0.01, 0.02, 0.03]), np.array([0.2, 0.3, 0.5]), np.array([1.0, 2.0, 3.0])
    batch = bass_adoptions(12, p, q, m)
    assert batch.shape == (3, 12)
    for i in range(3):
        np.testing.assert_allclose(batch[i], bass_adoptions(12, p[i], q[i], m[i]))


# --------------------------------------------------------------------------- generalised Bass


def test_gbass_with_beta_zero_is_bass():
    covariate = np.exp(np.random.default_rng(3).normal(0, 0.3, 15).cumsum())
    np.testing.assert_allclose(gbass_adoptions(covariate, 0.02, 0.3, 1e6, 0.0),
                               bass_adoptions(15, 0.02, 0.3, 1e6))


def test_gbass_with_a_constant_covariate_is_bass():
    np.testing.assert_allclose(gbass_adoptions(np.full(15, 7.5), 0.02, 0.3, 1e6, 1.7),
                               bass_adoptions(15, 0.02, 0.3, 1e6))


def test_gbass_improving_covariate_speeds_adoption():
    covariate = np.exp(0.1 * np.arange(12))  # log change of 0.1 a period
    fast = gbass_adoptions(covariate, 0.02, 0.3, 1.0, 2.0).cumsum()
    slow = bass_adoptions(12, 0.02, 0.3, 1.0).cumsum()
    assert np.all(fast[1:] > slow[1:])
    # x = 1.2 from period 2 on: effective time 1, 2.2, 3.4, ...
    np.testing.assert_allclose(effective_time(covariate, 2.0), 1.0 + 1.2 * np.arange(12))
    np.testing.assert_allclose(fast, bass_cdf(1.0 + 1.2 * np.arange(12), 0.02, 0.3))


def test_effective_time_floors_an_adverse_period_at_zero():
    # log change of -1 with beta 2: x = 1 - 2 < 0 -> 0, so no time passes in period 2.
    covariate = np.exp([0.0, -1.0, -1.0])
    np.testing.assert_allclose(effective_time(covariate, 2.0), [1.0, 1.0, 2.0])


def test_gbass_is_vectorised_and_rejects_non_positive_covariates():
    covariate = np.exp(np.random.default_rng(4).normal(0, 0.2, 10).cumsum())
    beta = np.array([0.0, 0.5, 1.0])
    batch = gbass_adoptions(covariate, 0.02, 0.3, 1.0, beta)
    assert batch.shape == (3, 10)
    np.testing.assert_allclose(batch[1], gbass_adoptions(covariate, 0.02, 0.3, 1.0, 0.5))
    with pytest.raises(ForecastError, match="positive"):
        gbass_adoptions(np.array([1.0, 0.0, 2.0]), 0.02, 0.3, 1.0, 1.0)


def test_gbass_paths_from_log_changes_equal_gbass_from_levels():
    covariate = np.exp(np.random.default_rng(6).normal(0, 0.2, 9).cumsum())
    log_level = np.log(covariate)
    change = np.diff(log_level, prepend=log_level[0])
    p, q, m, beta = (np.array([0.01, 0.03]), np.array([0.3, 0.5]), np.array([1e5, 2e5]),
                     np.array([0.5, 1.5]))
    np.testing.assert_allclose(gbass_paths(change, p, q, m, beta),
                               gbass_adoptions(covariate, p, q, m, beta), rtol=1e-12)


# --------------------------------------------------------------------------- Norton-Bass


def test_norton_bass_with_one_generation_is_bass():
    sales = norton_bass_adoptions(20, [0], 0.02, 0.4, [3e5])
    assert sales.shape == (20, 1)
    np.testing.assert_allclose(sales[:, 0], bass_adoptions(20, 0.02, 0.4, 3e5))
    np.testing.assert_allclose(norton_bass_adoptions(20, [0], 0.02, 0.4, [3e5], sales="net"),
                               sales)


def test_norton_bass_cumulative_is_the_textbook_form():
    p, q, m, taus = 0.02, 0.4, np.array([1.0, 2.0, 1.5]), [0, 5, 11]
    t = np.linspace(0, 30, 61)
    f1, f2, f3 = (bass_cdf(t - tau, p, q) for tau in taus)
    expected = np.stack([
        m[0] * f1 * (1 - f2),
        f2 * (m[1] + m[0] * f1) * (1 - f3),
        f3 * (m[2] + f2 * (m[1] + m[0] * f1)),
    ], axis=-1)
    np.testing.assert_allclose(norton_bass_cumulative(t, taus, p, q, m), expected)


def test_two_generations_total_demand_and_substitution():
    p, q, m = 0.02, 0.4, np.array([1e6, 2e6])
    cumulative = norton_bass_cumulative(np.array([400.0]), [0, 8], p, q, m)
    assert cumulative.sum() == pytest.approx(m.sum(), rel=1e-9)
    gross = norton_bass_adoptions(40, [0, 8], p, q, m)
    alone = bass_adoptions(40, p, q, m[0])
    np.testing.assert_allclose(gross[:8, 0], alone[:8])  # identical before gen 2
    assert np.all(gross[:8, 1] == 0)
    assert np.all(gross[9:, 0] < alone[9:])  # gen-2 takes gen-1's buyers
    peak = int(np.argmax(gross[:, 0]))
    assert peak < 12 and np.all(np.diff(gross[peak:, 0]) < 0)  # gen-1 sales fall after
    assert np.all(gross >= 0)


def test_net_sales_are_gross_minus_upgrades_and_go_negative():
    p, q, m, taus = 0.02, 0.4, np.array([1e6, 2e6]), [0, 8]
    net = norton_bass_adoptions(40, taus, p, q, m, sales="net")
    np.testing.assert_allclose(net.sum(axis=0), norton_bass_cumulative([40.0], taus, p, q, m)[0])
    assert net[:, 0].min() < 0
    gross = norton_bass_adoptions(40, taus, p, q, m)
    np.testing.assert_allclose(gross[:, 1], net[:, 1])  # the last generation loses nobody
    # The split of the module docstring: net = gross - D_1(k-1) [F_2(k) - F_2(k-1)].
    ends = np.arange(41.0)
    demand_1 = m[0] * bass_cdf(ends, p, q)
    upgrades = demand_1[:-1] * np.diff(bass_cdf(ends - 8, p, q))
    np.testing.assert_allclose(net[:, 0], gross[:, 0] - upgrades, atol=1e-6)
    with pytest.raises(ForecastError, match="gross' or 'net"):
        norton_bass_adoptions(10, taus, p, q, m, sales="both")


def test_norton_bass_is_vectorised_over_draws():
    p, q = np.array([0.01, 0.03]), np.array([0.3, 0.5])
    m = np.array([[1.0, 2.0], [2.0, 1.0]])
    batch = norton_bass_adoptions(16, [0, 6], p, q, m)
    assert batch.shape == (2, 16, 2)
    np.testing.assert_allclose(batch[1], norton_bass_adoptions(16, [0, 6], p[1], q[1], m[1]))
