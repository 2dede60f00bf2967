"""forecast.models.market.fitted: forecasts of a hand-made posterior against closed forms of
the damped trend,
quarter selection, observed-series paths, annual totals, and a stored fit without PyMC."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from numpy.testing import assert_allclose

from forecast.core.errors import ForecastError
from forecast.models.market import (
    LATENT_GROUPS,
    RATIO_GROUPS,
    VENDORS,
    FittedMarket,
    annual_totals,
    load_market,
)

TIMELINE = ["2024Q4", "2025Q1", "2025Q2", "2025Q3"]
N_SAMPLES = 50


def _handmade(sigma_growth: float = 0.0, share_sigma: float = 0.0, sigma_level: float = 0.0,
              seed: int = 0) -> FittedMarket:
    """A one-chain posterior whose samples differ, with the given noise scales and a last
    state known exactly (zero filtered variance)."""
    rng = np.random.default_rng(seed)
    n, t, r = N_SAMPLES, len(TIMELINE), len(RATIO_GROUPS)

    def scalar(low: float, high: float) -> tuple[tuple[str, str], np.ndarray]:
        return ("chain", "draw"), rng.uniform(low, high, size=(1, n))

    def fixed(value: float) -> tuple[tuple[str, str], np.ndarray]:
        return ("chain", "draw"), np.full((1, n), value)

    eta = rng.normal(np.array([-2.0, -1.5, -3.0, -2.5])[:, None], 0.3, size=(1, n, r, t))
    log_total = rng.normal(np.log(60.0), 0.1, size=(1, n, t))
    full = np.concatenate([np.zeros((1, n, 1, t)), eta], axis=2)
    log_spend = log_total[:, :, None, :] + full - np.log(np.exp(full).sum(axis=2,
                                                                           keepdims=True))
    posterior = xr.Dataset(
        {"log_spend": (("chain", "draw", "group", "quarter"), log_spend),
         "log_ratio": (("chain", "draw", "ratio_group", "quarter"), eta),
         "share_sigma": (("chain", "draw", "ratio_group"), np.full((1, n, r), share_sigma)),
         "sigma_growth": fixed(sigma_growth), "sigma_level": fixed(sigma_level),
         "growth_persistence": scalar(0.5, 0.95), "growth_longrun": scalar(0.01, 0.05),
         "growth_init": scalar(0.0, 0.1), "growth_last": scalar(0.05, 0.2),
         "level_last": (("chain", "draw"), log_spend[:, :, 0, -1]),
         "state_var_level": fixed(0.0), "state_cov": fixed(0.0),
         "state_var_growth": fixed(0.0),
         "google_fraction_of_custom": scalar(0.5, 0.9),
         "rest_custom_fraction": scalar(0.2, 0.8),
         "nvidia_compute_fraction": scalar(0.8, 0.9),
         "broadcom_custom_fraction": scalar(0.5, 0.8),
         "amd_cpu": (("chain", "draw", "quarter"), rng.uniform(3.0, 4.0, size=(1, n, t))),
         "amd_cpu_growth": scalar(0.0, 0.05),
         "sigma_networking": scalar(0.1, 0.3), "sigma_amd": scalar(0.0, 0.0)},
        coords={"quarter": TIMELINE, "group": list(LATENT_GROUPS),
                "ratio_group": list(RATIO_GROUPS)})
    observations = pd.DataFrame({
        "series": ["nvidia_data_center", "nvidia_data_center", "amd_data_center"],
        "fiscal_period": ["FY2026Q2", "FY2026Q3", "2025Q3"],
        "calendar_quarter_end": pd.to_datetime(["2025-07-27", "2025-10-26", "2025-09-27"]),
        "quarter": ["2025Q2", "2025Q3", "2025Q3"], "value": [40.0, 50.0, 4.0]})
    summary = pd.DataFrame({"parameter": ["ceiling"], "mean": [600.0]})
    return FittedMarket(posterior=posterior, data={"observations": observations},
                        config={"timeline": TIMELINE, "nowcast": None},
                        summary_table=summary)


def test_noiseless_forecast_keeps_the_momentum_fading_to_the_long_run() -> None:
    fit = _handmade()
    paths = fit.forecast(6)
    assert list(paths["quarter"].values) == ["2025Q4", "2026Q1", "2026Q2", "2026Q3",
                                             "2026Q4", "2027Q1"]
    s = {name: fit.stacked(name)[:, None] for name in (
        "growth_persistence", "growth_longrun", "growth_last", "level_last")}
    h = np.arange(1, 7)[None, :]
    # g_h = g* + phi^h (g_0 - g*); the level adds them up.
    growth = s["growth_longrun"] + s["growth_persistence"] ** h * (
        s["growth_last"] - s["growth_longrun"])
    log_nvidia = s["level_last"] + np.cumsum(growth, axis=1)
    eta = fit.stacked("log_ratio")[:, :, -1]
    weights = np.exp(np.concatenate([np.zeros((N_SAMPLES, 1)), eta], axis=1))
    share = weights / weights.sum(axis=1, keepdims=True)
    assert_allclose(paths["total"].values, np.exp(log_nvidia) / share[:, :1], rtol=1e-12)
    # No share noise: each group keeps its last share; Broadcom's custom group splits by
    # the Google fraction, the rest of it joins `rest` in `other`.
    google = fit.stacked("google_fraction_of_custom")
    rest_custom = fit.stacked("rest_custom_fraction")
    expected = np.stack([share[:, 0], share[:, 1], share[:, 2] * google, share[:, 3],
                         share[:, 2] * (1 - google) + share[:, 4]], axis=1)
    assert list(paths["vendor"].values) == ["nvidia", "amd", "google", "aws", "other"]
    assert_allclose(paths["spend"].values / paths["total"].values[:, :, None],
                    np.repeat(expected[:, None, :], 6, axis=1), rtol=1e-12)
    assert_allclose(paths["total"].values, paths["spend"].sum("vendor").values)
    custom = share[:, 2] * (1 - google) + share[:, 4] * rest_custom
    assert_allclose(paths["custom_other"].values / paths["total"].values,
                    np.repeat(custom[:, None], 6, axis=1), rtol=1e-12)


def test_growth_shocks_accumulate_as_the_damped_trend_says() -> None:
    fit = _handmade(sigma_growth=0.05)
    # Every sample alike, phi = 0.8: the paths' spread is the growth noise alone.
    fit.posterior = fit.posterior.map(lambda v: v.isel(draw=[0] * N_SAMPLES))
    fit.posterior["growth_persistence"][:] = 0.8
    log_total = np.log(fit.forecast(8, draws=20000, seed=4)["total"].values)
    # A shock in quarter j moves the level in quarter h by (1 - phi^(h-j+1)) / (1 - phi);
    # each shock's variance is sigma^2 E[lambda] = 2 sigma^2 (InverseGamma(2, 2) scales).
    h = np.arange(1, 9)
    expected = np.array([0.05 * np.sqrt(2.0 * (((1 - 0.8 ** (k - np.arange(1, k + 1) + 1))
                                                / 0.2) ** 2).sum()) for k in h])
    # Heavy tails (Student-t, 4 dof) make the sample sd noisy: 5%, at 20,000 paths.
    assert_allclose(log_total.std(axis=0), expected, rtol=0.05)
    assert (np.diff(log_total.std(axis=0)) > 0).all()


def test_a_nowcast_state_is_the_first_forecast_quarter() -> None:
    fit = _handmade()
    fit.config["nowcast"] = "2025Q4"
    fit.posterior["shock_scale_nowcast"] = fit.posterior["sigma_amd"] + 1.0
    fit.posterior["level_last"] = fit.posterior["level_last"] + 0.3
    paths = fit.forecast(2)
    nvidia = paths["spend"].sel(vendor="nvidia").values
    assert_allclose(np.log(nvidia[:, 0]), fit.stacked("level_last"), rtol=1e-12)
    g = fit.stacked("growth_longrun") + fit.stacked("growth_persistence") * (
        fit.stacked("growth_last") - fit.stacked("growth_longrun"))
    assert_allclose(np.log(nvidia[:, 1]), fit.stacked("level_last") + g, rtol=1e-12)


def test_quarter_labels_select_from_the_simulated_horizon() -> None:
    fit = _handmade(sigma_growth=0.1, share_sigma=0.1)
    full = fit.forecast(7, draws=30, seed=2)
    picked = fit.forecast(["2026Q2", "2027Q2"], draws=30, seed=2)
    assert list(picked["quarter"].values) == ["2026Q2", "2027Q2"]
    assert_allclose(picked["spend"].values, full["spend"].sel(quarter=["2026Q2", "2027Q2"]))
    with pytest.raises(ForecastError, match="not after the data end"):
        fit.forecast(["2025Q3", "2026Q1"])
    with pytest.raises(ForecastError):
        fit.forecast(-1)


def test_history_is_the_posterior_of_the_fitted_quarters() -> None:
    fit = _handmade()
    paths = fit.forecast(2, include_history=True)
    assert list(paths["quarter"].values) == TIMELINE + ["2025Q4", "2026Q1"]
    spend = np.exp(fit.stacked("log_spend"))
    assert_allclose(paths["total"].values[:, :4], spend.sum(axis=1))
    assert_allclose(paths["spend"].sel(vendor="aws").values[:, :4], spend[:, 3])
    assert paths.attrs["data_end"] == "2025Q3" and paths.attrs["model_version"] == "4"


def test_series_paths_through_the_measurement_layer() -> None:
    fit = _handmade()
    assert fit.series_names() == ["nvidia_data_center", "amd_data_center"]
    periods, paths = fit.series_paths("nvidia_data_center", quarters=2)
    assert list(periods["fiscal_period"]) == ["FY2026Q4", "FY2027Q1"]
    assert list(periods["quarter"]) == ["2025Q4", "2026Q1"]
    # No noise on the Data Center figure: NVIDIA spend / compute fraction, same seed.
    spend = fit.forecast(2, seed=0)["spend"].sel(vendor="nvidia").values
    assert_allclose(paths, spend / fit.stacked("nvidia_compute_fraction")[:, None])
    # AMD's segment: accelerators plus the CPU curve continued at its growth (sigma_amd 0).
    _, amd = fit.series_paths("amd_data_center", quarters=2)
    growth = fit.stacked("amd_cpu_growth")[:, None]
    cpu = fit.stacked("amd_cpu")[:, -1:] * np.exp(growth * np.arange(1, 3))
    assert_allclose(amd, fit.forecast(2, seed=0)["spend"].sel(vendor="amd").values + cpu)
    table = fit.series_forecast("amd_data_center", quarters=2)
    assert list(table["fiscal_period"]) == ["2025Q4", "2026Q1"]
    assert table["q50"].to_numpy() == pytest.approx(np.median(amd, axis=0))
    with pytest.raises(ForecastError, match="unknown series"):
        fit.series_paths("broadcom_ai")


def test_annual_totals_complete_years_and_quantiles() -> None:
    rng = np.random.default_rng(0)
    quarters = [f"{y}Q{q}" for y in range(2025, 2031) for q in range(1, 5)][2:]  # from 2025Q3
    spend = np.exp(rng.normal(2.0, 0.5, size=(200, len(quarters), len(VENDORS))))
    paths = xr.Dataset({"spend": (("draw", "quarter", "vendor"), spend),
                        "total": (("draw", "quarter"), spend.sum(axis=2))},
                       coords={"draw": np.arange(200), "quarter": quarters,
                               "vendor": list(VENDORS)})
    table = annual_totals(paths)
    assert list(table["year"]) == [2026, 2027, 2028, 2029, 2030]  # 2025 incomplete
    yearly = spend.sum(axis=2)[:, 2:6].sum(axis=1)                  # 2026Q1..2026Q4
    assert table.loc[0, "p50"] == pytest.approx(np.quantile(yearly, 0.5))
    assert table.loc[0, "mean"] == pytest.approx(yearly.mean())
    # A DataArray with a vendor dim is summed over vendors; one vendor can be selected.
    assert_allclose(annual_totals(paths["spend"])["p50"], table["p50"])
    aws = spend[:, 2:6, VENDORS.index("aws")].sum(axis=1)
    assert annual_totals(paths, vendor="aws").loc[0, "p90"] == pytest.approx(
        np.quantile(aws, 0.9))


def test_stored_fit_forecasts_the_same_without_pymc(tmp_path) -> None:
    fit = _handmade(sigma_growth=0.1, share_sigma=0.1)
    fit.save(tmp_path / "fit")
    code = (
        "import sys; from forecast.models.market import load_market, annual_totals;"
        f"f = load_market({str(tmp_path / 'fit')!r});"
        "p = f.forecast(6, draws=100, seed=2); f.series_forecast('amd_data_center', 2);"
        "annual_totals(p);"
        "bad = [m for m in ('pymc', 'pytensor', 'arviz') if m in sys.modules];"
        "print('IMPORTED', bad); sys.exit(1 if bad else 0)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    again = load_market(tmp_path / "fit")
    assert again.timeline == TIMELINE
    assert_allclose(again.forecast(4, draws=50, seed=5)["total"].values,
                    fit.forecast(4, draws=50, seed=5)["total"].values)
