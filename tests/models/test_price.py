"""Tests of the price-erosion model: math against numpy, data preparation, forecasts,
persistence and the OLS cross-check."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.core.errors import FitError, ForecastError
from forecast.core.stats import simulate_ar1
from forecast.data.dataset import load_dataset
from forecast.models.price import (
    FittedPrice,
    PriceModel,
    annual_change,
    ar1_loading_matrix,
    collapse_held_prices,
    frontier_log_tflops,
    log_price_mean,
    offset_types,
    ols_cross_check,
    ols_decay_rates,
    ols_vintage,
    prepare_price_data,
    price_class,
    vintage_gap,
)
from forecast.pipeline.fitting import find_fit
from forecast.scenarios import load_scenario


@pytest.fixture(scope="module")
def dataset():
    return load_dataset()


# --------------------------------------------------------------------------- pure math


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_ar1_matrix_matches_the_recursion(rho):
    rng = np.random.default_rng(1)
    eps = rng.standard_normal(12)
    sigma = 0.3
    expected = np.empty(12)
    expected[0] = sigma * eps[0] / np.sqrt(1 - rho**2)
    for t in range(1, 12):
        expected[t] = rho * expected[t - 1] + sigma * eps[t]
    np.testing.assert_allclose(sigma * ar1_loading_matrix(rho, 12) @ eps, expected)


def test_ar1_matrix_gives_the_stationary_variance():
    rho, n = 0.8, 40
    loading = ar1_loading_matrix(rho, n)
    variance = np.diag(loading @ loading.T)
    np.testing.assert_allclose(variance, 1 / (1 - rho**2))


def test_log_price_mean_against_hand_computation():
    value = log_price_mean(np.log(4.0), -0.25, -0.3, 2.0, 1.0, 0.1)
    assert value == pytest.approx(np.log(4.0) - 0.25 - 0.3 * 2.0 + 0.1)
    arrays = log_price_mean(np.zeros(3), 0.0, np.array([-0.1, 0.0, 0.1]), 2.0, 0.0, 5.0)
    np.testing.assert_allclose(arrays, [-0.2, 0.0, 0.2])
    behind = log_price_mean(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.4, np.log(4.0))
    assert behind == pytest.approx(1.0 - 0.4 * np.log(4.0))


def test_annual_change_of_a_log_slope():
    np.testing.assert_allclose(annual_change(np.array([-0.30, 0.0])), [np.exp(-0.3) - 1, 0.0])


def test_simulated_ar1_reverts_to_zero():
    rng = np.random.default_rng(0)
    paths = simulate_ar1(np.full(4000, 0.7), np.zeros(4000), np.full(4000, 1.0), 3, rng)
    np.testing.assert_allclose(paths[:, -1], 0.7**3)


def test_frontier_is_the_fastest_chip_released_by_then():
    catalogue = pd.DataFrame({
        "chip": ["old", "new", "newer", "theirs"],
        "vendor_group": ["v", "v", "v", "w"],
        "release_date": pd.to_datetime(["2020-01-01", "2022-01-01", "2024-01-01",
                                        "2019-01-01"]),
        "bf16_dense_tflops": [100.0, 300.0, 900.0, 50.0]})
    dates = pd.to_datetime(["2019-06-01", "2021-01-01", "2023-01-01", "2025-01-01",
                            "2025-01-01"])
    frontier = frontier_log_tflops(catalogue, ["v", "v", "v", "v", "w"], dates)
    np.testing.assert_allclose(frontier[1:], np.log([100.0, 300.0, 900.0, 50.0]))
    assert np.isnan(frontier[0])  # no chip of v released yet
    # The old chip sits log(3) behind once "new" ships, log(9) once "newer" does; a chip is
    # never behind itself, and a missing frontier is no gap.
    gaps = vintage_gap(frontier, np.log(100.0))
    np.testing.assert_allclose(gaps, [0.0, 0.0, np.log(3.0), np.log(9.0), 0.0])


def test_held_list_price_counts_once():
    frame = pd.DataFrame({
        "date": pd.to_datetime(["2023-07-26", "2024-01-01", "2025-03-17", "2025-06-01"]),
        "chip": "H100 SXM5 80GB",
        "provider_or_index": "AWS p5.48xlarge",
        "pricing_type": "on-demand",
        "usd_per_chip_hour": [12.29, 12.29, 12.29, 6.88],
    })
    kept = collapse_held_prices(frame)
    assert kept["usd_per_chip_hour"].tolist() == [12.29, 6.88]


def test_neocloud_on_demand_is_a_market_price():
    types = pd.Series(["on-demand", "on-demand", "3-year commitment", "spot"])
    providers = pd.Series(["Lambda", "AWS p5.48xlarge", "Google Cloud (Iowa)", "AWS"])
    classes = {"Lambda": "neocloud", "AWS p5.48xlarge": "hyperscaler",
               "Google Cloud (Iowa)": "hyperscaler", "AWS": "hyperscaler"}
    assert price_class(types, providers, classes).tolist() == ["market", "list", "list",
                                                               "market"]


def test_offset_types_read_quotes_and_split_market_commitments():
    types = pd.Series(["market", "index (contract)", "1-year commitment", "1-year commitment",
                       "spot"])
    kinds = ["market", "market", "list", "market", "market"]
    assert offset_types(types, kinds) == ["on-demand", "1-year commitment (market)",
                                          "1-year commitment", "1-year commitment (market)",
                                          "spot"]


# --------------------------------------------------------------------------- data preparation


def test_prepared_data_has_ages_classes_and_vintage(dataset):
    data = prepare_price_data(dataset)
    obs = data.observations
    assert (obs["age_years"] >= 0).all()
    assert set(obs["price_class"]) == {"list", "market"}
    assert len(obs) < len(dataset.rental_prices)  # held list prices collapsed
    assert data.pricing_types[0] == "on-demand"
    assert data.classes == ("hyperscaler", "index")  # neocloud is the reference
    assert set(data.providers) == set(obs["provider"])  # companies
    assert len(data.providers) < obs["provider_or_index"].nunique()
    # An H100 SXM quoted in March 2025 sits behind GB200 (2,500 dense BF16 TFLOPS, 2025-02).
    h100 = obs[(obs["chip"] == "H100 SXM5 80GB") & (obs["date"] == "2025-03-03")]
    np.testing.assert_allclose(h100["vintage_gap"], np.log(2500 / 989.4))
    # Before B200 shipped (2024-11) the H100 was NVIDIA's frontier part (H200's 989.5 aside).
    early = obs[(obs["chip"] == "H100 SXM5 80GB") & (obs["date"] < "2024-11-01")]
    assert (early["vintage_gap"] == 0).all()


def test_form_factors_are_separate_chips(dataset):
    obs = prepare_price_data(dataset).observations
    pcie = obs[obs["chip"] == "H100 PCIe 80GB"]
    assert pcie["provider_or_index"].tolist() == ["Lambda", "Lambda"]
    assert set(pcie["date"].dt.year) == {2023}
    # The PCIe part's 756.5 dense BF16 TFLOPS put it behind the SXM5 part from launch.
    np.testing.assert_allclose(pcie["vintage_gap"], np.log(989.4 / 756.5))


def test_unknown_prior_override_is_an_error():
    with pytest.raises(ForecastError, match="priors.price.decay_nope"):
        PriceModel(priors={"decay_nope": {"dist": "normal", "mu": 0, "sigma": 1}})


def test_ols_cross_check_uses_the_same_fixed_effects(dataset):
    results = ols_cross_check(dataset)
    names = list(results.params.index)
    assert any(n.startswith("C(provider)") for n in names)  # companies, as the model
    assert any(n.startswith("C(chip)") for n in names)
    assert any(n.startswith("C(offset_type") for n in names)
    decay = ols_decay_rates(results)
    # NVIDIA and AMD (MI300X, quoted at several ages since the 2025 rows) have market prices
    # at two ages or more: only they have a decay the OLS can estimate.
    assert decay["vendor"].tolist() == ["amd", "nvidia"]
    assert np.isfinite(decay["se"]).all() and (decay["se"] > 0).all()
    effect, se = ols_vintage(results)
    assert np.isfinite(effect) and 0 < se < 1


# --------------------------------------------------------------------------- fitted model


@pytest.fixture(scope="module")
def shipped_price(shipped_store):
    """The shipped fit's price model: these tests check what a fit reports and forecasts,
    not MCMC (the price model's fits are in the validation tier's recovery and gate)."""
    return find_fit(load_scenario("base"), shipped_store).models["price"]


def test_fit_reports_diagnostics(shipped_price):
    summary = shipped_price.summary()
    assert {"parameter", "r_hat", "ess_bulk", "ess_tail"} <= set(summary.columns)
    assert "divergences" in summary.attrs
    assert shipped_price.diagnostics()["max_r_hat"] < 1.1
    assert set(shipped_price.decay_table()["key"]) == {"nvidia", "amd", "google", "aws",
                                                      "other_custom", "other"}
    # The gate covers the cycle state forecasts start from and every provider effect.
    last = f"cycle@{shipped_price.meta['quarters'][-1]}"
    assert last in set(summary["parameter"])
    assert summary["parameter"].str.startswith("provider_effect[").sum() == len(
        shipped_price.posterior["provider"])
    assert (shipped_price.stacked("vintage") <= 0).all()


def test_forecast_paths(shipped_price):
    quarters = pd.period_range("2025Q1", "2027Q4", freq="Q")
    paths = shipped_price.forecast(quarters, chips=["H100 SXM5 80GB", "Trainium3"], draws=200,
                               seed=3, launch_prices={"Trainium3": np.full(200, 4.0)},
                               utilisation={"nvidia": 0.4, "aws": 0.3})
    price = paths["price"]
    assert price.dims == ("draw", "quarter", "chip")
    assert price.shape == (200, 12, 2)
    trn3 = price.sel(chip="Trainium3")
    # Trainium3 launches in 2025-12: no price before 2025Q4, positive after.
    assert trn3.sel(quarter="2025Q3").isnull().all()
    assert (trn3.sel(quarter="2026Q1") > 0).all()
    h100 = price.sel(chip="H100 SXM5 80GB")
    assert (h100 > 0).all()
    cost = paths["cost_per_pflop_hour"].sel(chip="H100 SXM5 80GB")
    np.testing.assert_allclose(cost, h100 / (1.979 * 0.4))
    again = shipped_price.forecast(quarters, chips=["H100 SXM5 80GB"], draws=200, seed=3)
    np.testing.assert_array_equal(again["price"].values, price.sel(chip=["H100 SXM5 80GB"]))


def test_a_faster_frontier_lowers_market_prices_only(shipped_price):
    quarters = ["2026Q4", "2027Q4"]
    kwargs = {"chips": ["A100 SXM4 80GB"], "draws": 300, "seed": 5}
    base = shipped_price.forecast(quarters, **kwargs)["price"].values[:, :, 0]
    ahead = shipped_price.forecast(quarters, frontier_tflops={"nvidia": [10_000.0, 20_000.0]},
                               **kwargs)["price"].values[:, :, 0]
    # The catalogue's frontier then is GB200/GB300 (2,500 TFLOPS): a roadmap 4x and 8x
    # ahead moves each path by exp(vintage * log 4) and exp(vintage * log 8), nothing else.
    pick = shipped_price.draw_index(300, np.random.default_rng(5))
    vintage = shipped_price.stacked("vintage", pick)
    np.testing.assert_allclose(np.log(ahead / base),
                               vintage[:, None] * np.log([4.0, 8.0])[None, :], atol=1e-9)
    listed = shipped_price.forecast(quarters, basis="list", **kwargs)["price"].values
    listed_ahead = shipped_price.forecast(quarters, basis="list",
                                      frontier_tflops={"nvidia": 20_000.0},
                                      **kwargs)["price"].values
    np.testing.assert_allclose(listed, listed_ahead)
    with pytest.raises(ForecastError, match="frontier_tflops"):
        shipped_price.forecast(quarters, frontier_tflops={"nvidia": [0.0, 1.0]}, **kwargs)


def test_a_new_provider_draws_its_class_effect(shipped_price):
    rows = pd.DataFrame({"date": pd.to_datetime(["2025-06-01"] * 2),
                         "chip": "H100 SXM5 80GB", "pricing_type": "on-demand",
                         "provider_or_index": ["Lambda Labs", "Oracle Cloud"]})
    samples = shipped_price.predict_observations(rows, draws=2000, seed=1)
    # A hyperscaler's list price sits well above a neocloud's market price.
    assert np.median(samples[:, 1]) > 2 * np.median(samples[:, 0])
    with pytest.raises(ForecastError, match="no provider_class"):
        shipped_price.predict_observations(rows.assign(provider_or_index="Nebius"), draws=10)


def test_forecast_rejects_bad_requests(shipped_price):
    with pytest.raises(ForecastError, match="no price history"):
        shipped_price.forecast(["2026Q1"], chips=["Trainium3"])
    with pytest.raises(ForecastError, match="draws"):
        shipped_price.forecast(["2026Q1"], draws=0)
    with pytest.raises(ForecastError, match="basis"):
        shipped_price.forecast(["2026Q1"], basis="retail")


def test_save_load_round_trip(shipped_price, tmp_path):
    shipped_price.save(tmp_path / "fit")
    loaded = FittedPrice.load(tmp_path / "fit")
    pd.testing.assert_frame_equal(loaded.summary(), shipped_price.summary(), check_dtype=False)
    a = loaded.forecast(["2026Q2"], draws=50, seed=1)["price"].values
    b = shipped_price.forecast(["2026Q2"], draws=50, seed=1)["price"].values
    np.testing.assert_allclose(a, b)


def test_loading_another_version_is_a_clear_error(shipped_price, tmp_path):
    directory = shipped_price.save(tmp_path / "fit")
    config = directory / "config.json"
    assert '"model_version": "6"' in config.read_text()
    config.write_text(config.read_text().replace('"model_version": "6"',
                                                 '"model_version": "0"'))
    with pytest.raises(FitError, match="version 0"):
        FittedPrice.load(directory)


def test_loading_a_missing_fit_is_a_clear_error(tmp_path):
    with pytest.raises(FitError, match="not a saved fit"):
        FittedPrice.load(tmp_path)


def test_frontier_growth_is_the_slope_of_the_log_frontier():
    from forecast.models.price.summary import frontier_growth

    years = range(2018, 2026)
    catalogue = pd.DataFrame({
        "chip": [f"c{y}" for y in years], "vendor_group": "v",
        "release_date": pd.to_datetime([f"{y}-01-01" for y in years]),
        "bf16_dense_tflops": [100.0 * 2 ** (y - 2018) for y in years]})
    # A frontier doubling each January grows log 2 a year (a step function's slope).
    growth = frontier_growth(catalogue, "v", "2018-01-01", "2025-12-01")
    assert growth == pytest.approx(np.log(2.0), rel=0.05)
