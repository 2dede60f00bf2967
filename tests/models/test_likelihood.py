"""The fast pointwise log likelihood against PyMC's own ``compute_log_likelihood``."""

from __future__ import annotations

import arviz as az
import numpy as np
import pymc as pm
import xarray as xr

from forecast.models.likelihood import _compiled, pointwise_log_likelihood
from forecast.models.protocol import complete_inference_data


def _model() -> pm.Model:
    """Transformed (positive, simplex) and untransformed parameters, two observed variables,
    one of them a vector with dims."""
    rng = np.random.default_rng(0)
    with pm.Model(coords={"obs": np.arange(6), "k": ["a", "b", "c"]}) as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        sigma = pm.HalfNormal("sigma", 1.0)
        weights = pm.Dirichlet("weights", np.ones(3), dims="k")
        pm.Normal("y", mu, sigma, observed=rng.normal(size=6), dims="obs")
        pm.Categorical("label", weights, observed=np.array([0, 2, 1, 1]))
    return model


def _posterior(chains: int = 2, draws: int = 7) -> xr.Dataset:
    rng = np.random.default_rng(1)
    return az.from_dict(
        posterior={"mu": rng.normal(size=(chains, draws)),
                   "sigma": rng.gamma(2.0, 0.5, size=(chains, draws)),
                   "weights": rng.dirichlet(np.ones(3), size=(chains, draws))},
        coords={"k": ["a", "b", "c"]}, dims={"weights": ["k"]}).posterior


def test_values_match_pymcs_compute_log_likelihood() -> None:
    model, posterior = _model(), _posterior()
    reference = pm.compute_log_likelihood(az.InferenceData(posterior=posterior), model=model,
                                          extend_inferencedata=False, progressbar=False)
    mine = pointwise_log_likelihood(posterior, model)
    assert set(mine) == {"y", "label"}
    for name, values in mine.items():
        assert values.shape == reference[name].shape
        np.testing.assert_allclose(values, reference[name].values, rtol=1e-12)


def test_a_normal_observation_against_numpy() -> None:
    model, posterior = _model(), _posterior()
    data = model.rvs_to_values[model["y"]].data
    mu = posterior["mu"].values[..., None]
    sigma = posterior["sigma"].values[..., None]
    expected = -0.5 * np.log(2 * np.pi) - np.log(sigma) - 0.5 * ((data - mu) / sigma) ** 2
    np.testing.assert_allclose(pointwise_log_likelihood(posterior, model)["y"], expected,
                               rtol=1e-12)


def test_complete_inference_data_stores_the_group_with_the_models_dims() -> None:
    model, posterior = _model(), _posterior()
    idata = complete_inference_data(az.InferenceData(posterior=posterior), model)
    assert {"observed_data", "log_likelihood"} <= set(idata.groups())
    assert idata.log_likelihood["y"].dims == ("chain", "draw", "obs")
    np.testing.assert_array_equal(idata.log_likelihood["chain"], posterior["chain"])
    np.testing.assert_array_equal(idata.log_likelihood["draw"], posterior["draw"])
    reference = pm.compute_log_likelihood(az.InferenceData(posterior=posterior), model=model,
                                          extend_inferencedata=False, progressbar=False)
    for name in ("y", "label"):
        assert idata.log_likelihood[name].dims == reference[name].dims


def _data_model(centre: float) -> pm.Model:
    """One observed vector whose mean is ``pm.Data``: the structure stays, the value moves."""
    with pm.Model() as model:
        shift = pm.Data("shift", centre)
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Normal("y", mu + shift, 1.0, observed=np.array([0.5, -1.0, 2.0]))
    return model


def test_a_cache_key_reuses_the_function_only_for_the_same_data_values() -> None:
    posterior = az.from_dict(posterior={"mu": np.array([[0.0, 1.0]])}).posterior
    data = np.array([0.5, -1.0, 2.0])
    functions = []
    for centre in (0.0, 3.0, 0.0):
        model = _data_model(centre)
        values = pointwise_log_likelihood(posterior, model, cache_key="data-model")["y"]
        mean = posterior["mu"].values[..., None] + centre
        expected = -0.5 * np.log(2 * np.pi) - 0.5 * (data - mean) ** 2
        np.testing.assert_allclose(values, expected, rtol=1e-12)
        functions.append(_compiled(model, "data-model")[0])
    # The third model has the first one's data: its function is the first one's, reused.
    assert functions[2] is functions[0] and functions[1] is not functions[0]
