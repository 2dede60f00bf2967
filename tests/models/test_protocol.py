"""Every registered model through the one protocol: prepare, build, fit, forecast, save, load,
summary; and the stored InferenceData that ArviZ reads."""

from __future__ import annotations

from pathlib import Path

import arviz as az
import numpy as np
import pytest

from forecast.data.dataset import load_dataset
from forecast.models.diffusion import read_units_csv
from forecast.models.protocol import BayesianModel
from forecast.models.registry import MODELS, SCENARIO_MODELS, fitted_class
from forecast.pipeline.fitting import find_fit
from forecast.scenarios import load_scenario

#: Light enough for a test, enough draws for the forecast to resample from.
TINY = {"draws": 150, "tune": 150, "chains": 2, "nuts_sampler": "pymc"}
#: A quarterly unit series (the diffusion tests' fixture): the data hold none since Epoch's
#: modelled volumes left data/, so the diffusion model is given one, as its users are.
UNITS = Path(__file__).resolve().parents[1] / "fixtures" / "diffusion_units.csv"


def test_every_model_is_a_protocol_model() -> None:
    assert set(SCENARIO_MODELS) <= set(MODELS)
    for name, cls in MODELS.items():
        assert issubclass(cls, BayesianModel) and cls.name == name
        assert fitted_class(name).model_name == name


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MODELS))
def test_protocol_round_trip(name: str, shipped_store: Path, tmp_path: Path,
                            request: pytest.FixtureRequest) -> None:
    scenario = load_scenario("base")
    if name not in SCENARIO_MODELS:
        # A round trip is plumbing: prior draws stand in for the posterior (the diffusion
        # models' recovery tests sample for real).
        request.getfixturevalue("mock_sampler")
    model = MODELS[name].from_scenario(scenario)
    # A model fitted after others (its ``upstream``; none today) reads their stored fits.
    upstream = find_fit(scenario, shipped_store).models if model.upstream else {}
    if name == "diffusion":
        series, _ = read_units_csv(UNITS, model.kind)
        inputs = model.prepare(load_dataset(), scenario, series=series)
    else:
        inputs = model.prepare_with(load_dataset(), scenario, upstream)
    built = model.build(inputs)
    assert built.observed_RVs, f"{name}: the PyMC model observes nothing"
    if name in SCENARIO_MODELS:
        # The session's light fit store fitted these through the same template.
        fitted = find_fit(scenario, shipped_store).models[name]
    else:
        fitted = model.fit(inputs, **TINY)
    time_dim = "quarter" if name in SCENARIO_MODELS else "period"
    paths = fitted.forecast(4, draws=60, seed=3)
    first = next(iter(paths.data_vars.values()))
    assert first.dims[:2] == ("draw", time_dim) and first.sizes["draw"] == 60
    assert first.sizes[time_dim] == 4

    fitted.save(tmp_path / name)
    loaded = fitted_class(name).load(tmp_path / name)
    again = loaded.forecast(4, draws=60, seed=3)
    for var in paths.data_vars:
        np.testing.assert_array_equal(again[var].values, paths[var].values)
    summary = loaded.summary()
    assert {"parameter", "r_hat", "ess_bulk"} <= set(summary.columns) and len(summary)
    stored = az.from_netcdf(tmp_path / name / "posterior.nc")
    for group in ("posterior", "sample_stats", "observed_data", "log_likelihood"):
        assert group in stored.groups(), f"{name}: no {group} group"
    # One pointwise log likelihood per observation of every observed variable. ArviZ stores a
    # scalar observation (one statement, one guide) as a one-element array, while its log
    # likelihood stays one value a draw: that counts as the shape (1,).
    assert set(stored.log_likelihood.data_vars) == set(stored.observed_data.data_vars)
    for var in stored.observed_data.data_vars:
        pointwise = stored.log_likelihood[var]
        assert pointwise.dims[:2] == ("chain", "draw")
        assert (pointwise.shape[2:] or (1,)) == stored.observed_data[var].shape, var
