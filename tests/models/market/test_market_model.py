"""forecast.models.market.model, builder and simulate: scenario priors, the compile key, the
PyMC graph's links (without sampling), the simulator. Fits are in test_market_fit.py."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import lognorm

from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.models.market import (
    DEFAULT_PRIORS,
    INNOVATION_VARS,
    MarketModel,
    ceiling_prior,
    market_series_forecast,
    prepare_market_data,
    simulate_market,
)


@pytest.fixture(scope="module")
def inputs() -> dict[str, pd.DataFrame]:
    return prepare_market_data(load_dataset())


def _true_params() -> dict[str, float]:
    return {
        "growth_longrun": 0.02, "growth_persistence": 0.7, "growth_init": 0.15,
        "sigma_level": 0.03, "sigma_growth": 0.03, "share_sigma": 0.1,
        "ratio_start_amd": -2.5, "ratio_start_custom": -2.0, "ratio_start_aws": -4.0,
        "ratio_start_rest": -3.0,
        "nvidia_compute_fraction": 0.85, "broadcom_custom_fraction": 0.65,
        "google_fraction_of_custom": 0.7, "amd_cpu_fraction_start": 0.8,
        "amd_cpu_growth": 0.02, "aws_chip_value": 1e4, "sigma_networking": 0.2,
        "sigma_amd": 0.05,
    }


class _LogNormalInput:
    """A scenario input with quantiles (what the scenarios layer hands over)."""

    def __init__(self, median: float, sigma: float):
        self.dist = lognorm(s=sigma, scale=median)

    def quantile(self, q: float) -> float:
        return float(self.dist.ppf(q))


# --------------------------------------------------------------------------- configuration


def test_priors_have_rationale_and_overrides_merge() -> None:
    assert all("rationale" in spec for spec in DEFAULT_PRIORS.values())
    model = MarketModel(priors={"growth_persistence": {"dist": "beta", "alpha": 2, "beta": 2},
                                "ceiling": {"dist": "lognormal", "median": 900, "sigma": 0.3}})
    assert model.priors["growth_persistence"] == {"dist": "beta", "alpha": 2, "beta": 2}
    assert model.priors["ceiling"] == {"dist": "lognormal", "median": 900, "sigma": 0.3}
    assert model.priors["growth_longrun"]["mu"] == 0.045
    assert model.sampler["nuts_sampler"] == "nutpie" and model.sampler["target_accept"] == 0.98
    with pytest.raises(ForecastError, match="unknown prior"):
        MarketModel(priors={"not_a_prior": {"dist": "normal", "mu": 0, "sigma": 1}})


def test_ceiling_prior_matches_the_input_band() -> None:
    # A lognormal input gives back its own median and sigma.
    prior = ceiling_prior(_LogNormalInput(800.0, 0.35))
    assert prior["dist"] == "lognormal"
    assert prior["median"] == pytest.approx(800.0) and prior["sigma"] == pytest.approx(0.35)
    # Any input: the prior's 10% and 90% quantiles are the input's P10 and P90, bit for bit
    # the numbers fits were keyed on before the ceiling moved into the model.
    band = SimpleNamespace(quantile=lambda q: {0.1: 300.0, 0.5: 450.0, 0.9: 1100.0}[q])
    prior = ceiling_prior(band)
    assert prior == {"dist": "lognormal", "median": 450.0,
                     "sigma": (math.log(1100.0) - math.log(300.0)) / (2 * 1.2815515655446004)}


def test_scenario_priors_take_the_ceiling_from_the_input() -> None:
    table = {"market": {"growth_persistence": {"dist": "beta", "alpha": 3.0, "beta": 2.0},
                        "ceiling": {"dist": "lognormal", "median": 100.0, "sigma": 0.1}}}
    with_input = SimpleNamespace(priors=table, inputs={
        "tam_ceiling_usd_billions": _LogNormalInput(700.0, 0.25)})
    priors = MarketModel.scenario_priors(with_input)
    assert priors["growth_persistence"] == {"dist": "beta", "alpha": 3.0, "beta": 2.0}
    assert priors["ceiling"]["median"] == pytest.approx(700.0)  # the input wins
    without = SimpleNamespace(priors=table, inputs={})
    assert MarketModel.scenario_priors(without)["ceiling"]["median"] == 100.0
    assert MarketModel.scenario_priors(None) == {}
    model = MarketModel.from_scenario(with_input, sampler={"draws": 10})
    assert model.priors["ceiling"]["sigma"] == pytest.approx(0.25)
    assert model.sampler["draws"] == 10


def test_compile_key_ignores_the_swappable_prior_values_only(inputs) -> None:
    def key(**priors) -> str:
        return MarketModel(priors=priors).compile_key(inputs)

    bull = {"ceiling": {"dist": "lognormal", "median": 1500.0, "sigma": 0.3}}
    bear = {"ceiling": {"dist": "lognormal", "median": 400.0, "sigma": 0.5}}
    assert key(**bull) == key(**bear) == key()
    faster = {"growth_longrun": {"dist": "normal", "mu": 0.06, "sigma": 0.01}}
    assert key(**faster) == key()
    assert key(ceiling={"dist": "gamma", "alpha": 4.0, "beta": 0.01}) != key()
    assert key(growth_persistence={"dist": "beta", "alpha": 2.0, "beta": 2.0}) != key()
    later = {**inputs, "observations": inputs["observations"].iloc[:-1]}
    assert MarketModel().compile_key(later) != key()
    data = MarketModel(priors=bear).swappable_data(inputs)
    assert data == {"ceiling__mu": pytest.approx(math.log(400.0)), "ceiling__sigma": 0.5,
                    "growth_longrun__mu": 0.045, "growth_longrun__sigma": 0.015}


def test_fitted_frames_are_storable(inputs) -> None:
    model = MarketModel()
    frames = model.fitted_frames(inputs)
    assert frames["censored"]["upper"].isna().tolist() == [True, False]  # open bound: NaN
    assert frames["censored"]["upper"].iloc[1] == pytest.approx(0.95)
    assert frames["guidance"]["guided"].dtype == float
    assert model.fitted_config(inputs)["timeline"][0] == "2019Q1"
    # NVIDIA's last guide on file is of a quarter already reported: no nowcast step.
    assert model.fitted_config(inputs)["nowcast"] is None
    assert model.fitted_meta(inputs) == {"data_end": "2025Q3",
                                         "n_observations": len(inputs["observations"])}
    assert market_series_forecast(load_dataset(), None) == [
        "nvidia_data_center", "nvidia_networking", "amd_data_center", "broadcom_ai"]


# --------------------------------------------------------------------------- the graph


def test_graph_links_spend_to_the_anchor_series(inputs) -> None:
    model = MarketModel().build(inputs)
    # Every non-centred innovation of the graph is listed as auxiliary (not forecast).
    innovations = {rv.name for rv in model.free_RVs if rv.name.startswith("z_")}
    assert innovations and innovations <= set(INNOVATION_VARS)
    assert {"ceiling__mu", "ceiling__sigma"} <= set(model.named_vars)
    import pytensor

    # The deterministic links at the model's initial point (prior centres, offset 0).
    names = ["log_spend", "log_total", "level_last", "nvidia_compute_fraction"]
    outputs = model.replace_rvs_by_values([model[name] for name in names])
    point = model.initial_point()
    function = pytensor.function(model.value_vars, outputs, on_unused_input="ignore")
    values = dict(zip(names, function(*[point[v.name] for v in model.value_vars]),
                      strict=True))
    anchor = inputs["observations"].query("series == 'nvidia_data_center'").sort_values(
        "quarter")["value"].to_numpy()
    # NVIDIA compute spend = Data Center revenue x compute fraction, exactly; the groups
    # add up to the total; the trend's last level is NVIDIA's last compute spend.
    np.testing.assert_allclose(np.exp(values["log_spend"][0]),
                               anchor * values["nvidia_compute_fraction"])
    np.testing.assert_allclose(np.exp(values["log_spend"]).sum(axis=0),
                               np.exp(values["log_total"]))
    assert values["level_last"] == pytest.approx(
        math.log(anchor[-1] * values["nvidia_compute_fraction"]))
    observed = {rv.name for rv in model.observed_RVs}
    assert observed == {"obs_nvidia_networking", "obs_nvidia_compute", "obs_amd_data_center",
                        "obs_aws_trainium2_units", "obs_guide_beat_nvidia_data_center",
                        "obs_guide_beat_broadcom_ai", "obs_guide_broadcom_ai"}
    assert {"censored_0", "censored_1", "trend_total", "ceiling_path"} <= {
        p.name for p in model.potentials}


def test_simulated_exact_series_are_the_latent_spend_over_their_fractions() -> None:
    truth = {**_true_params(), "sigma_amd": 0.0}
    data = simulate_market(truth, n_quarters=20, seed=3, amd_start=12)
    spend = data["truth"].set_index("quarter")
    obs = data["observations"].set_index(["series", "quarter"])["value"]
    np.testing.assert_allclose(obs["nvidia_data_center"], spend["nvidia"] / 0.85)
    np.testing.assert_allclose(obs["broadcom_ai"], spend["custom"].iloc[10:] / 0.65)
    np.testing.assert_allclose(spend[["nvidia", "amd", "custom", "aws", "rest"]].sum(axis=1),
                               spend["total"])
    # AMD: accelerators plus a CPU curve that is 80% of the first reported quarter.
    amd = obs["amd_data_center"]
    assert amd.index[0] == "2021Q1"
    assert 1 - spend["amd"].iloc[12] / amd.iloc[0] == pytest.approx(0.8)
    cpu = amd - spend["amd"].iloc[12:]
    np.testing.assert_allclose(np.diff(np.log(cpu.to_numpy())), 0.02)
    # NVIDIA's log changes follow the damped trend: growth fading from 0.15 to 0.02.
    growth = np.diff(np.log(spend["nvidia"].to_numpy()))
    assert growth[:4].mean() > growth[-4:].mean()

