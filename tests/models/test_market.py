"""Tests for forecast.models.market: pure math against numpy references, data preparation,
forecast shapes, and (slow) fits: shipped data and parameter recovery."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from numpy.testing import assert_allclose
from scipy.stats import norm

from forecast.core.calendar import next_fiscal_labels
from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.models.market import (
    DEFAULT_PRIORS,
    VENDORS,
    MarketModel,
    annual_totals,
    ar1_deviations,
    ar1_logp,
    bridge_walk,
    gompertz_log,
    measurement_log_mean,
    prepare_market_data,
    simulate_market,
    vendor_log_shares,
)

# ----------------------------------------------------------------------------- pure math


def test_gompertz_log_matches_level_form() -> None:
    # Gompertz in levels: S(t) = K exp(-b exp(-c t)); the module writes it through the level
    # L at t_ref, so b = (log K - L) exp(c t_ref).
    t = np.arange(20.0)
    log_k, level, c, t_ref = math.log(150.0), math.log(40.0), 0.07, 12.0
    b = (log_k - level) * math.exp(c * t_ref)
    reference = np.log(150.0 * np.exp(-b * np.exp(-c * t)))
    assert_allclose(gompertz_log(t, log_k, level, c, t_ref), reference)
    assert gompertz_log(t_ref, log_k, level, c, t_ref) == pytest.approx(level)
    assert gompertz_log(1e6, log_k, level, c, t_ref) == pytest.approx(log_k)


def test_ar1_deviations_match_recursion() -> None:
    rng = np.random.default_rng(0)
    z = rng.standard_normal(15)
    phi, sigma = 0.8, 0.2
    expected = np.empty(15)
    expected[0] = sigma / math.sqrt(1 - phi**2) * z[0]
    for i in range(1, 15):
        expected[i] = phi * expected[i - 1] + sigma * z[i]
    assert_allclose(ar1_deviations(z, phi, sigma), expected)


def test_ar1_logp_matches_scipy() -> None:
    u = np.array([0.1, -0.2, 0.05, 0.3])
    phi, sigma = 0.6, 0.15
    expected = norm.logpdf(u[0], 0, sigma / math.sqrt(1 - phi**2))
    expected += norm.logpdf(u[1:], phi * u[:-1], sigma).sum()
    assert ar1_logp(u, phi, sigma) == pytest.approx(expected)


def test_bridge_walk_is_the_random_walk_with_its_rise_split_off() -> None:
    rng = np.random.default_rng(3)
    z = rng.standard_normal((4, 12))
    start, step = -3.0, 0.25
    walk = start + step * np.cumsum(z, axis=-1)
    # Same z, rise equal to the walk's own total: the same path exactly.
    rise = step * z.sum(axis=-1, keepdims=True)
    assert_allclose(bridge_walk(start, rise, step, z), walk)
    # The rise alone moves the path linearly; the bridge part ends at zero.
    flat = bridge_walk(0.0, 1.2, step, np.zeros(12))
    assert_allclose(flat, 1.2 * np.arange(1, 13) / 12)
    assert bridge_walk(0.0, 0.0, step, z)[:, -1] == pytest.approx(np.zeros(4))


def test_bridge_walk_prior_covariance_equals_random_walk() -> None:
    # (rise, z) -> path is linear; with rise ~ N(0, step^2 n), z ~ N(0, I) the covariance
    # must be the random walk's step^2 min(i, j) (i, j counted from 1).
    n, step = 9, 0.3
    columns = [bridge_walk(0.0, 1.0, step, np.zeros(n))]
    columns += [bridge_walk(0.0, 0.0, step, np.eye(n)[k]) for k in range(n)]
    design = np.column_stack(columns)
    scales = np.diag([step**2 * n] + [1.0] * n)
    index = np.arange(1, n + 1)
    expected = step**2 * np.minimum.outer(index, index)
    assert_allclose(design @ scales @ design.T, expected, atol=1e-12)


def test_vendor_log_shares_is_softmax_with_reference() -> None:
    eta = np.array([[-1.0, 0.5], [-2.0, 0.0], [0.3, -3.0]])
    full = np.vstack([np.zeros(2), eta])
    expected = np.log(np.exp(full) / np.exp(full).sum(axis=0))
    got = vendor_log_shares(eta)
    assert_allclose(got, expected)
    assert_allclose(np.exp(got).sum(axis=0), 1.0)


def test_measurement_links() -> None:
    params = {"nvidia_compute_fraction": 0.8, "broadcom_custom_fraction": 0.6}
    log_a = math.log(40.0)
    assert math.exp(measurement_log_mean("nvidia_data_center", log_a, params)) == \
        pytest.approx(50.0)
    assert math.exp(measurement_log_mean("nvidia_networking", log_a, params)) == \
        pytest.approx(10.0)
    assert math.exp(measurement_log_mean("nvidia_compute", log_a, params)) == pytest.approx(40.0)
    assert math.exp(measurement_log_mean("amd_data_center", math.log(2.0), params, cpu=3.0)) \
        == pytest.approx(5.0)
    assert math.exp(measurement_log_mean("broadcom_ai", math.log(3.0), params)) == \
        pytest.approx(5.0)
    with pytest.raises(ForecastError):
        measurement_log_mean("nope", log_a, params)


def test_next_fiscal_labels() -> None:
    assert next_fiscal_labels("FY2026Q3", 3) == ["FY2026Q4", "FY2027Q1", "FY2027Q2"]
    assert next_fiscal_labels("2025Q4", 1) == ["2026Q1"]
    with pytest.raises(ForecastError):
        next_fiscal_labels("H1 2025", 1)


def test_simulation_is_reproducible_and_positive() -> None:
    params = _true_params()
    a = simulate_market(params, n_quarters=20, seed=3)
    b = simulate_market(params, n_quarters=20, seed=3)
    pd.testing.assert_frame_equal(a["observations"], b["observations"])
    assert (a["observations"]["value"] > 0).all()
    assert set(a["observations"]["series"]) == {
        "nvidia_data_center", "amd_data_center", "broadcom_ai"}


# ----------------------------------------------------------------------------- config & data


def test_priors_have_rationale_and_overrides_merge() -> None:
    assert all("rationale" in spec for spec in DEFAULT_PRIORS.values())
    model = MarketModel(priors={"ar_phi": {"dist": "beta", "alpha": 2, "beta": 2}},
                        ceiling_prior=900.0)
    assert model.priors["ar_phi"]["alpha"] == 2
    assert model.priors["ceiling"] == {"dist": "lognormal", "median": 900.0, "sigma": 0.3}
    model = MarketModel(ceiling_prior={"dist": "lognormal", "median": 400, "sigma": 0.5})
    assert model.priors["ceiling"]["median"] == 400
    with pytest.raises(ForecastError, match="unknown prior"):
        MarketModel(priors={"not_a_prior": {"dist": "normal", "mu": 0, "sigma": 1}})


def test_prepare_market_data_on_shipped_data() -> None:
    data = prepare_market_data(load_dataset())
    obs = data["observations"]
    assert {"nvidia_data_center", "amd_data_center", "broadcom_ai",
            "nvidia_networking"} <= set(obs["series"])
    censored = data["censored"].set_index("group")
    # AMD Instinct FY2024 "> 5" is a lower bound on the 2024 sum.
    assert censored.loc["amd", "kind"] == "lower"
    assert censored.loc["amd", "lower"] == pytest.approx(5.0)
    assert censored.loc["amd", "quarters"] == "2024Q1,2024Q2,2024Q3,2024Q4"
    # "several billion" a year, said on the Q3 call (2025-10-30) -> interval on 2025Q3 spend.
    assert censored.loc["aws", "kind"] == "interval"
    assert censored.loc["aws", "quarters"] == "2025Q3"
    assert censored.loc["aws", "upper"] == pytest.approx(9.0 / 4)
    assert len(data["volumes"]) >= 5 and (data["volumes"]["sd_log"] > 0).all()


def test_as_of_drops_later_observations() -> None:
    data = prepare_market_data(load_dataset().as_of("2024-01-31"))
    assert pd.to_datetime(data["observations"]["calendar_quarter_end"]).max() <= \
        pd.Timestamp("2024-01-31")
    assert data["censored"].empty  # the FY2024 Instinct row is dated 2024-12-28


# ----------------------------------------------------------------------------- summaries


def _fake_paths(draws: int = 200, seed: int = 0) -> xr.Dataset:
    rng = np.random.default_rng(seed)
    quarters = [f"{y}Q{q}" for y in range(2025, 2031) for q in range(1, 5)][2:]  # from 2025Q3
    spend = np.exp(rng.normal(2.0, 0.5, size=(draws, len(quarters), len(VENDORS))))
    return xr.Dataset({"spend": (("draw", "quarter", "vendor"), spend),
                       "total": (("draw", "quarter"), spend.sum(axis=2))},
                      coords={"draw": np.arange(draws), "quarter": quarters,
                              "vendor": list(VENDORS)})


def test_annual_totals_complete_years_ordered_quantiles() -> None:
    paths = _fake_paths()
    table = annual_totals(paths)
    assert list(table["year"]) == [2026, 2027, 2028, 2029, 2030]  # 2025 incomplete
    assert (table["p10"] <= table["p50"]).all() and (table["p50"] <= table["p90"]).all()
    expected = paths["total"].sel(quarter=["2026Q1", "2026Q2", "2026Q3", "2026Q4"]).sum(
        "quarter").values
    assert table.loc[0, "p50"] == pytest.approx(np.quantile(expected, 0.5))
    # A DataArray with a vendor dim is summed over vendors; one vendor can be selected.
    assert_allclose(annual_totals(paths["spend"])["p50"], table["p50"])
    assert (annual_totals(paths, vendor="aws")["p50"] < table["p50"]).all()


# ----------------------------------------------------------------------------- slow fits

# PyMC's NUTS at target_accept 0.9: the light setting these tests were calibrated with (the
# model's default, nutpie at 0.99 with 1,500 tuning steps, is for full fits).
SMALL = {"draws": 300, "tune": 300, "chains": 2, "nuts_sampler": "pymc", "target_accept": 0.9}


@pytest.fixture(scope="module")
def fitted(fit_store):
    """The base scenario's market model from the session's fit store (fitted on the shipped
    data with a light sampler): one fit of the shipped data serves every test."""
    from forecast.pipeline.fitting import find_fit
    from forecast.scenarios import load_scenario

    return find_fit(load_scenario("base"), fit_store).models["market"]


@pytest.mark.slow
def test_scenarios_sharing_a_compiled_sampler_get_their_own_ceiling(fit_store) -> None:
    # The three markets share one compiled nutpie model; only the ceiling prior's pm.Data
    # differ. Had the swap failed, all three would sample the first scenario's prior.
    from forecast.pipeline.fitting import find_fit
    from forecast.scenarios import load_scenario

    medians = {}
    for name in ("bear", "base", "bull"):
        market = find_fit(load_scenario(name), fit_store).models["market"]
        expected = market.config["priors"]["ceiling"]
        medians[name] = float(np.median(market.stacked("ceiling")))
        # The data pin the ceiling only loosely: its posterior stays near the prior's median.
        assert 0.5 * expected["median"] < medians[name] < 2.0 * expected["median"], name
    assert medians["bear"] < medians["base"] < medians["bull"]


@pytest.mark.slow
def test_fit_on_shipped_data(fitted) -> None:
    diag = fitted.diagnostics()
    assert diag["max_r_hat"] < 1.1
    assert "ceiling" in set(fitted.summary()["parameter"])
    paths = fitted.forecast(end="2030Q4", draws=400, seed=1)
    assert paths["spend"].dims == ("draw", "quarter", "vendor")
    assert paths["quarter"].values[0] == "2025Q4" and paths["quarter"].values[-1] == "2030Q4"
    assert list(paths["vendor"].values) == list(VENDORS)
    assert (paths["spend"].values > 0).all()
    assert_allclose(paths["total"].values, paths["spend"].sum("vendor").values)
    table = annual_totals(fitted.forecast(include_history=True, seed=1))
    assert 2025 in set(table["year"]) and 2030 in set(table["year"])
    assert (table["p10"] < table["p50"]).all() and (table["p50"] < table["p90"]).all()


@pytest.mark.slow
def test_series_forecast_continues_fiscal_labels(fitted) -> None:
    assert fitted.series_names() == [
        "nvidia_data_center", "nvidia_networking", "amd_data_center", "broadcom_ai"]
    table = fitted.series_forecast("nvidia_data_center", quarters=3)
    assert list(table["fiscal_period"]) == ["FY2026Q4", "FY2027Q1", "FY2027Q2"]
    assert list(table["quarter"]) == ["2025Q4", "2026Q1", "2026Q2"]
    quantiles = table[["q05", "q10", "q25", "q50", "q75", "q90", "q95"]].to_numpy()
    assert (np.diff(quantiles, axis=1) >= 0).all() and (quantiles > 0).all()
    amd = fitted.series_forecast("amd_data_center", quarters=2)
    assert list(amd["fiscal_period"]) == ["2025Q4", "2026Q1"]
    with pytest.raises(ForecastError):
        fitted.series_forecast("aws", quarters=2)


@pytest.mark.slow
def test_save_load_and_forecast_without_pymc(fitted, tmp_path) -> None:
    fitted.save(tmp_path / "fit")
    code = (
        "import sys; from forecast.models.market import load_market, annual_totals;"
        f"f = load_market({str(tmp_path / 'fit')!r});"
        "p = f.forecast(draws=100, seed=2); f.series_forecast('broadcom_ai', 2);"
        "annual_totals(p);"
        "bad = [m for m in ('pymc', 'pytensor', 'arviz') if m in sys.modules];"
        "print('IMPORTED', bad); sys.exit(1 if bad else 0)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    from forecast.models.market import load_market

    again = load_market(tmp_path / "fit")
    a = fitted.forecast(quarters=4, draws=50, seed=5)
    b = again.forecast(quarters=4, draws=50, seed=5)
    assert_allclose(a["total"].values, b["total"].values)


def _true_params() -> dict[str, float]:
    return {
        "ceiling": 500.0, "growth_decay": 0.08, "level_ref": math.log(60.0),
        "ar_phi": 0.7, "ar_sigma": 0.1, "share_sigma": 0.1,
        "ratio_start_amd": -2.5, "ratio_start_custom": -2.0, "ratio_start_aws": -4.0,
        "nvidia_compute_fraction": 0.85, "broadcom_custom_fraction": 0.65,
        "google_fraction_of_custom": 0.7, "amd_cpu_fraction_start": 0.8,
        "amd_cpu_growth": 0.02, "aws_chip_value": 1e4, "sigma_networking": 0.2,
        "sigma_amd": 0.05,
    }


@pytest.mark.slow
def test_parameter_recovery() -> None:
    truth = _true_params()
    data = simulate_market(truth, n_quarters=32, seed=11)
    fit = MarketModel().fit_data(data, **SMALL)
    table = fit.summary().set_index("parameter")
    assert fit.diagnostics()["max_r_hat"] < 1.05
    for name in ("ceiling", "growth_decay", "ar_phi", "ar_sigma", "nvidia_compute_fraction"):
        low, high = table.loc[name, "hdi_5%"], table.loc[name, "hdi_95%"]
        assert low <= truth[name] <= high, (name, low, high, truth[name])
    level = fit.stacked("level_ref")
    assert np.quantile(level, 0.05) <= truth["level_ref"] <= np.quantile(level, 0.95)
