"""forecast.models.diffusion.model: configuration, inputs from a dataset or a user's series,
the protocol's hooks; recovery of known parameters by sampling (slow)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from diffusion_fits import SMALL

from forecast.core.errors import ForecastError
from forecast.core.quantile_schema import quantile_columns
from forecast.models.diffusion import (
    DEFAULT_PRIORS,
    DiffusionModel,
    gbass_adoptions,
    prepare_diffusion_data,
    simulate_units,
)


def _covered(table: pd.DataFrame, name: str, truth: float) -> bool:
    row = table.set_index("parameter").loc[name]
    lower, *_, upper = quantile_columns(table)
    return bool(row[lower] <= truth <= row[upper])


# --------------------------------------------------------------------------- configuration


def test_unknown_kind_and_prior_are_errors():
    with pytest.raises(ForecastError, match="kind must be one of"):
        DiffusionModel(kind="logistic")
    with pytest.raises(ForecastError, match="priors.diffusion.gamma"):
        DiffusionModel(priors={"gamma": {"dist": "normal", "mu": 0, "sigma": 1}})
    model = DiffusionModel(priors={"q": {"dist": "lognormal", "median": 0.2, "sigma": 0.5}})
    assert model.priors["q"]["median"] == 0.2 and model.priors["p"] == DEFAULT_PRIORS["p"]
    with pytest.raises(TypeError):
        DiffusionModel(None, None, "gbass")  # kind is keyword-only


def test_kind_sets_the_reported_parameters_and_sampler():
    assert DiffusionModel().summary_vars == ("p", "q", "m", "sigma")
    gbass = DiffusionModel(sampler={"draws": 10}, kind="gbass")
    assert gbass.summary_vars == ("p", "q", "m", "sigma", "beta")
    assert DiffusionModel.summary_vars == ("p", "q", "m", "sigma")
    assert gbass.sampler["draws"] == 10 and gbass.sampler["target_accept"] == 0.95
    assert gbass.sampler["nuts_sampler"] == "nutpie"


def test_from_scenario_takes_the_diffusion_priors():
    scenario = SimpleNamespace(priors={"diffusion": {
        "p": {"dist": "lognormal", "median": 0.005, "sigma": 0.5}}})
    model = DiffusionModel.from_scenario(scenario, sampler={"chains": 1})
    assert model.priors["p"]["median"] == 0.005 and model.kind == "bass"
    assert model.sampler["chains"] == 1


# --------------------------------------------------------------------------- inputs


def test_prepare_needs_a_series_since_the_data_hold_no_volumes(dataset):
    """Epoch's modelled volumes left data/ (generated after the as-of date): a dataset alone
    gives the model nothing to fit, and says what to do instead."""
    assert not hasattr(dataset, "volumes")
    with pytest.raises(ForecastError, match="needs a unit series: the data hold none"):
        DiffusionModel().prepare(dataset)
    series = simulate_units("bass", 12, 0.02, 0.4, 1e5, 0.1, seed=3)
    data = DiffusionModel().prepare(dataset, series=series)
    assert data.kind == "bass" and len(data.observations) == 12
    assert data.totals[0] == pytest.approx(series.sum())


def test_prepare_gbass_with_a_series_needs_a_covariate(dataset):
    model = DiffusionModel(kind="gbass")
    series = simulate_units("bass", 13, 0.02, 0.4, 1e5, 0.1, seed=5)
    with pytest.raises(ForecastError, match="needs a covariate"):
        model.prepare(dataset, series=series)
    covariate = pd.Series(np.linspace(1.0, 3.0, len(series)), index=series.index)
    data = model.prepare(dataset, series=series, covariate=covariate, launch_offset=1)
    assert data.covariate_last == 3.0 and len(data.log_change) == 14


def test_prepare_series_is_prepare_diffusion_data_of_the_kind():
    frame = simulate_units("norton-bass", 10, 0.02, 0.4, [1e5, 2e5], 0.1, seed=1,
                           launch_periods=[0, 4])
    data = DiffusionModel(kind="norton-bass").prepare_series(frame, launch_offset=2)
    expected = prepare_diffusion_data(frame, "norton-bass", launch_offset=2)
    assert data.launch_periods == expected.launch_periods == (0, 6)
    pd.testing.assert_frame_equal(data.observations, expected.observations)


def test_hooks_check_and_describe_the_inputs():
    series = pd.Series(np.arange(1.0, 9.0), index=range(2001, 2009))
    model = DiffusionModel(kind="gbass")
    data = model.prepare_series(series, covariate=np.linspace(1, 2, 8), launch_offset=1)
    with pytest.raises(ForecastError, match="kind 'bass' given data prepared for 'gbass'"):
        DiffusionModel().check_inputs(data)
    model.check_inputs(data)
    assert model.fitted_config(data) == {"kind": "gbass"}
    meta = model.fitted_meta(data)
    assert meta == {"kind": "gbass", "n_observations": 8, "generations": ["units"],
                    "n_span": 8, "launch_offset": 1, "launch_periods": [0],
                    "totals": [36.0], "index_kind": "integer", "freq": None,
                    "first_label": "2001", "covariate_last": 2.0}
    json.dumps(meta)
    frames = model.fitted_frames(data)
    assert list(frames) == ["observations", "covariate"]
    np.testing.assert_allclose(frames["covariate"]["log_change"], data.log_change)
    assert list(DiffusionModel().fitted_frames(DiffusionModel().prepare_series(series))) == [
        "observations"]


# --------------------------------------------------------------------------- recovery (slow)


@pytest.mark.slow
# The second data set repeats the check on other noise: model validation, not plumbing.
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.validation)])
def test_bass_recovers_known_parameters(seed):
    truth = {"p": 0.02, "q": 0.35, "m": 1e6}
    series = simulate_units("bass", 14, truth["p"], truth["q"], truth["m"], 0.15, seed=seed)
    model = DiffusionModel(sampler=SMALL)
    fitted = model.fit(model.prepare_series(series))
    table = fitted.parameters(0.9)
    for name, value in truth.items():
        assert _covered(table, name, value), (name, table)
    assert fitted.diagnostics()["divergences"] == 0
    assert {"divergences", "fit_seconds", "n_span"} <= set(fitted.meta)


@pytest.mark.slow
def test_gbass_recovers_beta():
    rng = np.random.default_rng(5)
    covariate = np.exp(np.cumsum(rng.normal(0.0, 0.25, 16)))
    truth = {"p": 0.02, "q": 0.3, "m": 1e6, "beta": 1.5}
    mean = gbass_adoptions(covariate, truth["p"], truth["q"], truth["m"], truth["beta"])
    series = pd.Series(mean * np.exp(0.1 * rng.standard_normal(16)), index=range(1, 17))
    model = DiffusionModel(sampler=SMALL, kind="gbass")
    fitted = model.fit(model.prepare_series(series, covariate=covariate))
    # The target here is beta (90% interval); p, q and m, checked at 90% by the Bass test, get
    # a 99% sanity check (four 90% checks on one data set miss one about a third of the time).
    table = fitted.parameters(0.9)
    assert _covered(table, "beta", truth["beta"]), table
    assert table.set_index("parameter").loc["beta", "q5"] > 0
    wide = fitted.parameters(0.99)
    for name in ("p", "q", "m"):
        assert _covered(wide, name, truth[name]), (name, wide)
    assert "beta" in set(fitted.summary()["parameter"])
    paths = fitted.forecast(3, draws=100, seed=0, covariate=covariate[-1] * np.ones(3))
    assert paths["units"].shape == (100, 3) and np.all(paths["units"].values > 0)


@pytest.mark.slow
# Model validation (a compile and a fit of its own); the default tier checks Norton-Bass's
# likelihood against the numpy math (test_diffusion_builder.py).
@pytest.mark.validation
def test_norton_bass_recovers_known_parameters():
    truth = {"p": 0.02, "q": 0.4, "m": np.array([1e6, 2e6])}
    frame = simulate_units("norton-bass", 18, truth["p"], truth["q"], truth["m"], 0.15,
                           seed=4, launch_periods=[0, 7])
    model = DiffusionModel(sampler=SMALL, kind="norton-bass")
    fitted = model.fit(model.prepare_series(frame))
    table = fitted.parameters(0.9)
    for name in ("p", "q"):
        assert _covered(table, name, truth[name]), (name, table)
    for g, value in zip(("gen1", "gen2"), truth["m"], strict=True):
        assert _covered(table, f"m[{g}]", value), (g, table)
