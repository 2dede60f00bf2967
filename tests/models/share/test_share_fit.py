"""The share model class: hooks, the PyMC model on the shipped data, sampling (slow)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.models.share import (
    FittedShareModel,
    ShareModel,
    build_share_model,
    centred_log_cost,
    simulate_share_data,
)

VENDORS = ("nvidia", "amd", "google", "aws")
SMALL = {"draws": 400, "tune": 800, "chains": 2, "random_seed": 11, "nuts_sampler": "nutpie"}
TRUTH = {"b": 1.2, "lam": 0.4, "a": [2.5, 0.0, 0.5, -0.5]}


def _recovery_costs(quarters: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    steps = rng.normal(0.0, 0.25, size=(quarters, 4))
    return np.cumsum(steps, axis=0) - 0.05 * np.arange(quarters)[:, None]


def _simulated(quarters: int = 20, cost_seed: int = 1):
    labels = [str(q) for q in pd.period_range("2020Q1", periods=quarters, freq="Q")]
    return simulate_share_data(labels, VENDORS, _recovery_costs(quarters, cost_seed),
                               TRUTH["b"], TRUTH["a"], TRUTH["lam"], [-2.5, -2.0, -3.0], 0.1,
                               0.1, seed=2)


# --------------------------------------------------------------------------- hooks


def test_too_little_data_is_refused_before_sampling():
    data = _simulated().window(last="2020Q2")
    with pytest.raises(ForecastError, match="need at least 3"):
        ShareModel().fit(data)


def test_scenarios_that_differ_in_costs_share_one_compiled_sampler():
    model = ShareModel(reference_vendor="amd")
    data = _simulated()
    other_costs = _simulated(cost_seed=5)  # same observations, other cost path
    other_costs = type(data)(data.quarters, data.vendors, data.alr_mean, data.alr_cov,
                             data.observed, other_costs.log_cost, data.cost_basis)
    assert model.compile_key(data) == model.compile_key(other_costs)
    assert model.compile_key(data) != ShareModel().compile_key(data)  # another reference
    assert model.compile_key(data) != model.compile_key(_simulated().window(last="2023Q4"))
    swapped = model.swappable_data(other_costs)["log_cost_centred"]
    np.testing.assert_allclose(swapped, other_costs.log_cost - other_costs.log_cost.mean())


def test_fitted_meta_config_and_frames_describe_the_inputs():
    model = ShareModel(reference_vendor="amd")
    data = _simulated()
    meta = model.fitted_meta(data)
    assert meta["quarters"][0] == "2020Q1" and meta["quarters"][-1] == "2024Q4"
    assert meta["vendors"] == list(VENDORS) and meta["reference_vendor"] == "amd"
    assert meta["n_observations"] == 20 * 3 and meta["cost_basis"] == data.cost_basis
    assert model.fitted_config(data) == {"reference_vendor": "amd"}
    frame = model.fitted_frames(data)["observations"]
    assert len(frame) == 20 * 4
    assert model.state_vars == {"share": "quarter"}


def test_centred_log_cost_has_mean_zero_and_keeps_differences():
    data = _simulated()
    centred = centred_log_cost(data)
    assert abs(centred.mean()) < 1e-12
    np.testing.assert_allclose(np.diff(centred, axis=1), np.diff(data.log_cost, axis=1))


def test_prepare_needs_a_scenario():
    from forecast.data.dataset import load_dataset

    with pytest.raises(ForecastError, match="scenario"):
        ShareModel().prepare(load_dataset())


def test_model_builds_on_the_shipped_data():
    from forecast.data.dataset import load_dataset
    from forecast.economics.cost_paths import share_inputs
    from forecast.scenarios import load_scenario

    scenario = load_scenario("base")
    model = ShareModel.from_scenario(scenario)
    data = model.prepare(load_dataset(), scenario)
    assert data.quarters == share_inputs(load_dataset(), scenario).quarters
    built = model.build(data)
    point = built.initial_point()
    assert np.isfinite(built.compile_logp()(point))
    assert set(built.named_vars) >= {"price_coefficient", "ecosystem", "share"}
    # One rotated log-ratio per observed (quarter, rival) pair.
    assert len(built.coords["obs"]) == data.n_observations


def test_vendor_order_is_checked():
    data = _simulated()
    with pytest.raises(ForecastError, match="reference"):
        build_share_model(data, ShareModel().priors, reference_vendor="intel")
    with pytest.raises(ForecastError, match="reference"):
        build_share_model(data, ShareModel().priors, reference_vendor="nvidia")


def test_scenario_priors_are_accepted_and_unknown_ones_refused():
    from forecast.scenarios import load_scenario

    model = ShareModel.from_scenario(load_scenario("base"))
    assert model.priors["ecosystem_nvidia"]["mu"] == 2.0
    assert model.reference_vendor == "google"
    with pytest.raises(ForecastError, match="unknown prior"):
        ShareModel({"not_a_prior": {"dist": "normal", "mu": 0, "sigma": 1}})


# --------------------------------------------------------------------------- sampling


@pytest.fixture(scope="module")
def recovery_fit() -> FittedShareModel:
    return ShareModel(reference_vendor="amd").fit(_simulated(), **SMALL)


@pytest.mark.slow
def test_parameter_recovery_from_simulated_data(recovery_fit):
    fitted = recovery_fit
    diagnostics = fitted.diagnostics()
    assert diagnostics["max_r_hat"] < 1.05 and diagnostics["divergences"] <= 5

    checks = [("price_coefficient", fitted.stacked("price_coefficient"), TRUTH["b"]),
              ("adjustment_speed", fitted.stacked("adjustment_speed"), TRUTH["lam"])]
    checks += [(f"ecosystem[{v}]", fitted.stacked("ecosystem")[:, k], TRUTH["a"][k])
               for k, v in enumerate(VENDORS) if v != "amd"]
    misses = []
    for name, values, value in checks:
        lo90, hi90 = np.quantile(values, [0.05, 0.95])
        lo99, hi99 = np.quantile(values, [0.005, 0.995])
        assert lo99 <= value <= hi99, (name, lo99, hi99, value)
        if not lo90 <= value <= hi90:
            misses.append((name, lo90, hi90, value))
    # Five 90% intervals on one data set: 0.5 misses expected by chance, two or more has
    # probability ~8%; the 99% intervals above must all cover.
    assert len(misses) <= 1, misses
    # The data teach b: its posterior is narrower than the prior (log-sd 0.6).
    assert np.std(np.log(fitted.stacked("price_coefficient"))) < 0.4


@pytest.mark.slow
def test_summary_gates_the_last_shares_and_skips_the_constant_reference(recovery_fit):
    parameters = set(recovery_fit.summary()["parameter"])
    # The reference vendor's ecosystem term is the constant 0: no r_hat, no row.
    assert "ecosystem[amd]" not in parameters
    assert {"ecosystem[nvidia]", "ecosystem[google]", "ecosystem[aws]"} <= parameters
    assert {f"share@2024Q4[{v}]" for v in VENDORS} <= parameters
    assert recovery_fit.meta["reference_vendor"] == "amd"
    assert "ecosystem_other" not in recovery_fit.posterior  # copied into ecosystem


@pytest.mark.slow
def test_fit_on_shipped_data_converges_at_default_settings():
    from forecast.data.dataset import load_dataset
    from forecast.scenarios import load_scenario

    scenario = load_scenario("base")
    fitted = ShareModel.from_scenario(scenario).fit_dataset(load_dataset(), scenario)
    diagnostics = fitted.diagnostics()
    assert diagnostics["max_r_hat"] <= 1.01, diagnostics
    assert diagnostics["min_ess_bulk"] >= 400, diagnostics
    assert diagnostics["divergences"] == 0, diagnostics
    shares = fitted.fitted_shares()
    nvidia = shares[(shares["vendor"] == "nvidia") & (shares["quarter"] == "2025Q3")]
    assert 0.6 < float(nvidia["median"].iloc[0]) < 0.95
    # Back-to-back use: the real fit forecasts from scenario-like costs.
    labels = [str(q) for q in pd.period_range("2025Q4", periods=8, freq="Q")]
    costs = xr.DataArray(np.broadcast_to([1.0, 0.8, 0.9, 0.6], (1, 8, 4)),
                         dims=("draw", "quarter", "vendor"),
                         coords={"quarter": labels, "vendor": list(VENDORS)})
    result = fitted.forecast(4, draws=200, seed=0, cost_paths=costs)
    assert list(result["quarter"].values) == labels[:4]
