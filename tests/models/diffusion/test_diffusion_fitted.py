"""forecast.models.diffusion.fitted: forecasts of hand-made posteriors against the curves,
the order of their random draws, parameter intervals, and a stored fit without PyMC."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from diffusion_fits import handmade_fit

from forecast.core.errors import FitError, ForecastError
from forecast.core.quantile_schema import check_schema
from forecast.models.diffusion import (
    FittedDiffusion,
    bass_adoptions,
    gbass_adoptions,
    norton_bass_adoptions,
)
from forecast.models.fitted import draw_index


def test_forecast_continues_the_curve_after_the_fitted_span():
    fitted = handmade_fit()
    paths = fitted.forecast(4, draws=300, seed=1, noise=False)
    assert isinstance(paths, xr.Dataset) and list(paths.data_vars) == ["units"]
    units = paths["units"]
    assert units.dims == ("draw", "period") and units.shape == (300, 4)
    # Ten quarters from 2024Q1 end in 2026Q2; launch was two quarters before 2024Q1.
    assert list(units["period"].values) == ["2026Q3", "2026Q4", "2027Q1", "2027Q2"]
    expected = bass_adoptions(16, 0.02, 0.35, 1e6)[12:]
    np.testing.assert_allclose(units.median("draw"), expected, rtol=0.05)
    noisy = fitted.forecast(4, draws=2000, seed=1, noise=True)["units"]
    ratio = np.log(noisy.values / expected)
    assert ratio.std() == pytest.approx(0.1, rel=0.15)
    assert noisy.attrs == {"kind": "bass", "noise": "True"}


def test_forecast_of_one_posterior_sample_is_its_curve_times_seeded_noise():
    """With every sample equal, the mean paths are the curve exactly, and the noise is the
    seed's normals drawn after the posterior samples are picked."""
    fitted = handmade_fit(spread=0.0)
    mean = bass_adoptions(15, 0.02, 0.35, 1e6)[12:]
    quiet = fitted.forecast(3, draws=5, seed=4, noise=False)["units"].values
    np.testing.assert_allclose(quiet, np.broadcast_to(mean, (5, 3)), rtol=1e-12)
    rng = np.random.default_rng(4)
    draw_index(fitted.n_samples, 5, rng)
    normals = rng.standard_normal((5, 3))
    noisy = fitted.forecast(3, draws=5, seed=4, noise=True)["units"].values
    np.testing.assert_allclose(np.log(noisy / mean), 0.1 * normals, rtol=1e-9)


def test_forecast_picks_posterior_samples_by_the_shared_rule():
    fitted = handmade_fit(spread=0.3)
    paths = fitted.forecast(2, draws=7, seed=11)["units"].values
    pick = draw_index(fitted.n_samples, 7, np.random.default_rng(11))
    assert len(set(pick)) == 7  # fewer paths than samples: no sample twice
    p, q = fitted.stacked("p")[pick], fitted.stacked("q")[pick]
    np.testing.assert_allclose(paths, bass_adoptions(14, p, q, 1e6)[:, 12:], rtol=1e-12)


def test_norton_bass_forecast_has_a_generation_axis():
    paths = handmade_fit("norton-bass").forecast(3, draws=20, seed=2, noise=False)["units"]
    assert paths.dims == ("draw", "period", "generation")
    assert list(paths["generation"].values) == ["a", "b"]
    expected = norton_bass_adoptions(15, [0, 6], 0.02, 0.35, [1e6, 1e6])[12:]
    np.testing.assert_allclose(paths.median("draw"), expected, rtol=0.1)


def _gbass_fit(levels: np.ndarray) -> FittedDiffusion:
    """Hand-made gbass fit of a series observed from launch over ``levels``' periods."""
    fitted = handmade_fit("gbass", spread=0.0, launch_offset=0, n_span=len(levels),
                          covariate_last=float(levels[-1]))
    log_level = np.log(levels)
    fitted.data["covariate"] = pd.DataFrame(
        {"log_change": np.diff(log_level, prepend=log_level[0])})
    return fitted


def test_gbass_forecast_follows_the_future_covariate():
    levels = np.exp(np.cumsum(np.random.default_rng(8).normal(0.0, 0.2, 10)))
    fitted = _gbass_fit(levels)
    future = levels[-1] * np.array([1.2, 1.5, 1.4])
    paths = fitted.forecast(3, draws=4, seed=0, covariate=future, noise=False)["units"]
    expected = gbass_adoptions(np.r_[levels, future], 0.02, 0.35, 1e6, 1.0)[10:]
    np.testing.assert_allclose(paths.values, np.broadcast_to(expected, (4, 3)), rtol=1e-12)
    held = fitted.forecast(3, draws=4, seed=0, noise=False)["units"]
    expected = gbass_adoptions(np.r_[levels, np.full(3, levels[-1])], 0.02, 0.35, 1e6,
                               1.0)[10:]
    np.testing.assert_allclose(held.values[0], expected, rtol=1e-12)
    with pytest.raises(ForecastError, match="need 3 positive future levels"):
        fitted.forecast(3, covariate=[1.0, 2.0])
    with pytest.raises(ForecastError, match="need 3 positive future levels"):
        fitted.forecast(3, covariate=[1.0, -2.0, 1.0])


def test_forecast_of_a_yearly_series_is_labelled_in_years():
    fitted = handmade_fit(index_kind="integer", freq=None, first_label="2001")
    paths = fitted.forecast(2, draws=3, seed=0)
    assert list(paths["period"].values) == ["2011", "2012"]


@pytest.mark.parametrize(("quarters", "draws", "message"), [
    (0, 10, "must be > 0"), (3, 0, "must be > 0"), (2.5, 10, "whole number"),
    ("2027Q1", 10, "whole number"), (True, 10, "whole number"),
])
def test_forecast_rejects_bad_arguments(quarters, draws, message):
    with pytest.raises(ForecastError, match=message):
        handmade_fit().forecast(quarters, draws=draws)


def test_parameters_are_quantiles_of_the_draws():
    fitted = handmade_fit("norton-bass")
    fitted.posterior["p"] = (("chain", "draw"), np.linspace(0.01, 0.03, 100).reshape(2, 50))
    table = fitted.parameters(0.9).set_index("parameter")
    assert list(table.index) == ["p", "q", "m[a]", "m[b]"]
    levels = ["q5", "q50", "q95"]
    assert table.loc["p", levels].to_dict() == pytest.approx(
        {"q50": 0.02, "q5": 0.011, "q95": 0.029})
    assert table.loc["m[b]", levels].to_dict() == pytest.approx(
        {"q50": 1e6, "q5": 1e6, "q95": 1e6})
    assert table.loc["m[b]", "key"] == "b" and table.loc["m[b]", "metric"] == "m"
    check_schema(fitted.parameters(0.9))
    gbass = handmade_fit("gbass").parameters().set_index("parameter")
    assert list(gbass.index) == ["p", "q", "m", "beta"]
    assert gbass.loc["beta", "q50"] == 1.0
    with pytest.raises(ForecastError, match="interval"):
        fitted.parameters(1.5)


def test_save_load_and_forecast_without_pymc(tmp_path):
    fitted = handmade_fit("norton-bass")
    fitted.save(tmp_path / "fit")
    script = (
        "import sys\n"
        "import numpy as np\n"
        "from forecast.models.diffusion import FittedDiffusion\n"
        f"fit = FittedDiffusion.load({str(tmp_path / 'fit')!r})\n"
        "paths = fit.forecast(2, draws=10, seed=0)\n"
        f"np.save({str(tmp_path / 'paths.npy')!r}, paths['units'].values)\n"
        "assert 'pymc' not in sys.modules and 'pytensor' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=Path(__file__).parents[3])
    np.testing.assert_array_equal(np.load(tmp_path / "paths.npy"),
                                  fitted.forecast(2, draws=10, seed=0)["units"].values)
    loaded = FittedDiffusion.load(tmp_path / "fit")
    np.testing.assert_allclose(loaded.stacked("m"), fitted.stacked("m"))
    assert loaded.meta["launch_periods"] == [0, 6] and loaded.kind == "norton-bass"
    with pytest.raises(FitError):
        FittedDiffusion.load(tmp_path / "missing")
