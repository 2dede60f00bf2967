"""Tests of the share model: math against numpy, forecasts, caps, recovery and the real fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core.errors import FitError, ForecastError
from forecast.models.share import (
    DEFAULT_PRIORS,
    FittedShareModel,
    ShareModel,
    apply_supply_caps,
    elasticities,
    partial_adjustment,
    share_elasticities,
    share_paths,
    simulate_share_data,
    softmax,
    target_shares,
)

VENDORS = ("nvidia", "amd", "google", "aws")
SMALL = {"draws": 400, "tune": 800, "chains": 2, "random_seed": 11, "nuts_sampler": "nutpie"}


# --------------------------------------------------------------------------- pure math


def test_target_shares_match_hand_computation():
    a = np.array([2.0, 0.0, -1.0])
    log_cost = np.log(np.array([[2.0, 1.0, 0.5]]))
    b = np.array(1.0)
    expected = np.exp(a - np.log([2.0, 1.0, 0.5]))
    expected /= expected.sum()
    np.testing.assert_allclose(target_shares(a, b, log_cost)[0], expected)


def test_partial_adjustment_matches_the_recursion_and_stays_on_the_simplex():
    rng = np.random.default_rng(0)
    start = softmax(rng.normal(size=(50, 4)))
    targets = softmax(rng.normal(size=(50, 6, 4)))
    lam = rng.uniform(0, 1, size=50)
    paths = partial_adjustment(start, targets, lam)
    expected = start.copy()
    for t in range(6):
        expected = expected + lam[:, None] * (targets[:, t] - expected)
        np.testing.assert_allclose(paths[:, t], expected)
    np.testing.assert_allclose(paths.sum(axis=-1), 1.0)
    assert (paths >= 0).all()


def test_supply_cap_binds_and_redistributes_proportionally():
    shares = np.array([0.5, 0.1, 0.1, 0.3])
    capped = apply_supply_caps(shares, np.array([np.inf, np.inf, np.inf, 0.1]))
    assert capped[3] == pytest.approx(0.1)
    assert capped.sum() == pytest.approx(1.0)
    # The excess 0.2 goes to the others in proportion 5:1:1.
    np.testing.assert_allclose(capped[:3], shares[:3] + 0.2 * shares[:3] / 0.7)


def test_supply_caps_iterate_when_a_redistribution_overshoots():
    shares = np.array([0.6, 0.25, 0.15])
    capped = apply_supply_caps(shares, np.array([0.3, 0.3, np.inf]))
    np.testing.assert_allclose(capped, [0.3, 0.3, 0.4])
    with pytest.raises(ForecastError, match="sum to less than 1"):
        apply_supply_caps(shares, np.array([0.3, 0.3, 0.3]))


def test_elasticities_match_finite_differences():
    a = np.array([2.0, 0.0, -0.5, 0.3])
    b = np.array(0.8)
    log_cost = np.log(np.array([[1.0, 0.8, 0.9, 0.6]]))
    base = target_shares(a, b, log_cost)[0]
    analytic = share_elasticities(b, base)
    step = 1e-6
    for j in range(4):
        bumped = log_cost.copy()
        bumped[0, j] += step
        numeric = (np.log(target_shares(a, b, bumped)[0]) - np.log(base)) / step
        np.testing.assert_allclose(analytic[:, j], numeric, atol=1e-5)


# --------------------------------------------------------------------------- forecasts


def _fitted(n: int = 200, seed: int = 0) -> FittedShareModel:
    """A fitted model with a hand-made posterior (no sampling)."""
    rng = np.random.default_rng(seed)
    quarters = ["2025Q2", "2025Q3"]
    b = rng.lognormal(0.0, 0.3, n)
    a = np.column_stack([rng.normal(3, 0.3, n), np.zeros(n), rng.normal(0.3, 0.3, n),
                         rng.normal(-0.3, 0.3, n)])
    lam = rng.uniform(0.2, 0.6, n)
    share = np.broadcast_to(np.array([0.82, 0.04, 0.11, 0.03]), (n, 2, 4)).copy()
    posterior = xr.Dataset(
        {
            "price_coefficient": (("chain", "draw"), b[None]),
            "ecosystem": (("chain", "draw", "vendor"), a[None]),
            "adjustment_speed": (("chain", "draw"), lam[None]),
            "initial_logit": (("chain", "draw", "start_vendor"), rng.normal(size=(1, n, 3))),
            "noise_sigma": (("chain", "draw"), np.full((1, n), 0.2)),
            "share": (("chain", "draw", "quarter", "vendor"), share[None]),
            "target_share": (("chain", "draw", "quarter", "vendor"), share[None]),
        },
        coords={"chain": [0], "draw": np.arange(n), "vendor": list(VENDORS),
                "start_vendor": list(VENDORS[1:]), "quarter": quarters},
    )
    summary = pd.DataFrame({"parameter": ["price_coefficient"], "r_hat": [1.0],
                            "ess_bulk": [1000.0], "ess_tail": [1000.0]})
    return FittedShareModel(posterior=posterior, data={"observations": pd.DataFrame(
        {"quarter": quarters})}, config={"priors": DEFAULT_PRIORS}, summary_table=summary,
        meta={"quarters": quarters, "vendors": list(VENDORS), "divergences": 0})


def _costs(draws: int = 1, quarters: int = 8, values=(1.0, 0.8, 0.9, 0.6)) -> xr.DataArray:
    labels = [str(q) for q in pd.period_range("2025Q4", periods=quarters, freq="Q")]
    data = np.broadcast_to(np.array(values, float), (draws, quarters, 4)).copy()
    return xr.DataArray(data, dims=("draw", "quarter", "vendor"),
                        coords={"draw": np.arange(draws), "quarter": labels,
                                "vendor": list(VENDORS)})


def test_forecast_shares_form_a_simplex_in_every_draw_and_quarter():
    fitted = _fitted()
    result = fitted.forecast(_costs(), draws=300, seed=1)
    share = result["share"]
    assert share.dims == ("draw", "quarter", "vendor")
    np.testing.assert_allclose(share.sum("vendor"), 1.0, atol=1e-12)
    assert (share >= 0).all() and (share <= 1).all()
    noisy = fitted.forecast(_costs(), draws=300, seed=1, noise=True, other_share=0.03)
    np.testing.assert_allclose(noisy["share"].sum("vendor"), 1.0, atol=1e-12)
    np.testing.assert_allclose(noisy["share"].sel(vendor="other"), 0.03)


def test_lowering_a_vendors_cost_raises_its_share_in_every_draw():
    fitted = _fitted()
    base = fitted.forecast(_costs(), draws=300, seed=2)["share"]
    cheaper = _costs()
    cheaper.loc[{"vendor": "aws"}] = cheaper.sel(vendor="aws") * 0.5
    lowered = fitted.forecast(cheaper, draws=300, seed=2)["share"]
    gain = lowered.sel(vendor="aws") - base.sel(vendor="aws")
    assert (gain > 0).all()
    assert (lowered.sel(vendor="nvidia") < base.sel(vendor="nvidia")).all()


def test_supply_cap_binds_when_set():
    fitted = _fitted()
    cheap_aws = _costs(values=(1.0, 1.0, 1.0, 0.01))
    free = fitted.forecast(cheap_aws, draws=200, seed=3)["share"].sel(vendor="aws")
    caps = np.full(200, 0.08)
    capped = fitted.forecast(cheap_aws, draws=200, seed=3, supply_caps={"aws": caps})
    aws = capped["share"].sel(vendor="aws")
    assert float(free.max()) > 0.08  # without the cap AWS would pass it
    assert float(aws.max()) <= 0.08 + 1e-12
    assert np.allclose(capped["target_share"].sel(vendor="aws"), 0.08)
    np.testing.assert_allclose(capped["share"].sum("vendor"), 1.0)


def test_ecosystem_shift_and_switching_speed_move_shares_as_documented():
    fitted = _fitted()
    costs = _costs(values=(1.0, 0.5, 0.5, 0.5))
    base = fitted.forecast(costs, draws=200, seed=4)["share"].sel(vendor="nvidia")
    shifted = fitted.forecast(costs, draws=200, seed=4, ecosystem_shift=0.5)["share"]
    assert (shifted.sel(vendor="nvidia") < base).all()
    slow = fitted.forecast(costs, draws=200, seed=4, switching_speed=0.2)
    fast = fitted.forecast(costs, draws=200, seed=4, switching_speed=5.0)
    first = costs["quarter"].values[0]
    target = slow["target_share"].sel(quarter=first)
    # Faster switching closes more of the gap to the target in the first quarter...
    gap_slow = abs(slow["share"].sel(quarter=first) - target)
    gap_fast = abs(fast["share"].sel(quarter=first) - target)
    assert (gap_fast <= gap_slow + 1e-12).all()
    # ...and speed x multiplier is capped at 1: the first quarter reaches the target.
    np.testing.assert_allclose(fast["share"].sel(quarter=first), target)


def test_forecast_inputs_are_checked():
    fitted = _fitted()
    with pytest.raises(ForecastError, match="quarter after"):
        fitted.forecast(_costs().isel(quarter=slice(1, None)), draws=10)
    start = {"nvidia": 0.7, "amd": 0.1, "google": 0.1, "aws": 0.1}
    result = fitted.forecast(_costs().isel(quarter=slice(1, None)), draws=10, start_shares=start)
    assert result.sizes["quarter"] == 7
    with pytest.raises(ForecastError, match="numpy"):
        fitted.forecast(_costs().values, draws=10)
    array = fitted.forecast(_costs().values, draws=10, quarters=list(_costs()["quarter"].values),
                            vendors=list(VENDORS))
    assert array.sizes["vendor"] == 4
    with pytest.raises(ForecastError, match="draws"):
        fitted.forecast(_costs(draws=3), draws=10)
    with pytest.raises(ForecastError, match="unknown vendors"):
        fitted.forecast(_costs(), draws=10, supply_caps={"intel": 0.1})


def test_elasticity_table_signs():
    fitted = _fitted()
    table = elasticities(fitted)
    assert len(table) == 16
    own = table[table["vendor_i"] == table["vendor_j"]]
    cross = table[table["vendor_i"] != table["vendor_j"]]
    assert (own["p90"] < 0).all() and (cross["p10"] > 0).all()
    fixed = elasticities(fitted, shares={"nvidia": 0.7, "amd": 0.1, "google": 0.1, "aws": 0.1})
    row = fixed[(fixed["vendor_i"] == "aws") & (fixed["vendor_j"] == "aws")]
    b = fitted.stacked("price_coefficient")
    assert float(row["median"].iloc[0]) == pytest.approx(float(np.median(-b * 0.9)))


def test_save_and_load_round_trip(tmp_path):
    fitted = _fitted(n=50)
    fitted.save(tmp_path / "fit")
    loaded = FittedShareModel.load(tmp_path / "fit")
    assert loaded.vendors == list(VENDORS)
    a = fitted.forecast(_costs(), draws=20, seed=9)["share"].values
    b = loaded.forecast(_costs(), draws=20, seed=9)["share"].values
    np.testing.assert_allclose(a, b)
    (tmp_path / "fit" / "config.json").write_text(
        (tmp_path / "fit" / "config.json").read_text().replace('"share"', '"price"', 1))
    with pytest.raises(FitError):
        FittedShareModel.load(tmp_path / "fit")


def test_model_builds_on_the_shipped_data():
    from forecast.data.dataset import load_dataset
    from forecast.economics.cost_paths import share_inputs
    from forecast.models.share import build_share_model
    from forecast.scenarios import load_scenario

    data = share_inputs(load_dataset(), load_scenario("base"), draws=500, seed=0)
    model = build_share_model(data, ShareModel().priors)
    point = model.initial_point()
    assert np.isfinite(model.compile_logp()(point))
    assert set(model.named_vars) >= {"price_coefficient", "ecosystem", "share"}


def test_scenario_priors_are_accepted_and_unknown_ones_refused():
    from forecast.scenarios import load_scenario

    model = ShareModel(load_scenario("base").priors.get("share"))
    assert model.priors["ecosystem_nvidia"]["mu"] == 2.0
    with pytest.raises(ForecastError, match="unknown prior"):
        ShareModel({"not_a_prior": {"dist": "normal", "mu": 0, "sigma": 1}})


# --------------------------------------------------------------------------- sampling


def _recovery_costs(quarters: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    steps = rng.normal(0.0, 0.25, size=(quarters, 4))
    return np.cumsum(steps, axis=0) - 0.05 * np.arange(quarters)[:, None]


@pytest.mark.slow
def test_parameter_recovery_from_simulated_data():
    quarters = [str(q) for q in pd.period_range("2020Q1", periods=20, freq="Q")]
    truth = {"b": 1.2, "lam": 0.4, "a": [2.5, 0.0, 0.5, -0.5]}
    data = simulate_share_data(quarters, VENDORS, _recovery_costs(20, 1), truth["b"],
                               truth["a"], truth["lam"], [-2.5, -2.0, -3.0], 0.1, 0.1, seed=2)
    fitted = ShareModel(reference_vendor="amd").fit(data, **SMALL)
    diagnostics = fitted.diagnostics()
    assert diagnostics["max_r_hat"] < 1.05 and diagnostics["divergences"] <= 5

    checks = [("price_coefficient", fitted.stacked("price_coefficient"), truth["b"]),
              ("adjustment_speed", fitted.stacked("adjustment_speed"), truth["lam"])]
    checks += [(f"ecosystem[{v}]", fitted.stacked("ecosystem")[:, k], truth["a"][k])
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
def test_fit_on_shipped_data_converges_at_default_settings():
    from forecast.data.dataset import load_dataset
    from forecast.economics.cost_paths import share_inputs
    from forecast.scenarios import load_scenario

    scenario = load_scenario("base")
    data = share_inputs(load_dataset(), scenario)
    fitted = ShareModel(scenario.priors.get("share")).fit(data)
    diagnostics = fitted.diagnostics()
    assert diagnostics["max_r_hat"] <= 1.01, diagnostics
    assert diagnostics["min_ess_bulk"] >= 400, diagnostics
    assert diagnostics["divergences"] == 0, diagnostics
    shares = fitted.fitted_shares()
    nvidia = shares[(shares["vendor"] == "nvidia") & (shares["quarter"] == "2025Q3")]
    assert 0.6 < float(nvidia["median"].iloc[0]) < 0.95
    # Back-to-back use: the real fit forecasts a simplex from scenario costs.
    costs = _costs(values=(1.0, 0.8, 0.9, 0.6))
    result = fitted.forecast(costs, draws=200, seed=0)
    np.testing.assert_allclose(result["share"].sum("vendor"), 1.0)


def test_share_paths_cap_targets_and_keep_realised_shares_below_the_cap():
    rng = np.random.default_rng(5)
    log_cost = rng.normal(size=(30, 6, 4))
    a = np.array([2.0, 0.0, 0.0, 1.5])
    start = np.broadcast_to(np.array([0.85, 0.05, 0.05, 0.05]), (30, 4))
    caps = np.array([np.inf, np.inf, np.inf, 0.1])
    targets, shares = share_paths(a, np.full(30, 1.0), np.full(30, 0.5), start, log_cost, caps)
    assert (targets[..., 3] <= 0.1 + 1e-12).all() and (shares[..., 3] <= 0.1 + 1e-12).all()
    np.testing.assert_allclose(shares, partial_adjustment(start, targets, np.full(30, 0.5)))
