"""forecast.models.diffusion.builder: the PyMC likelihood of each kind equals a hand
computation from the numpy math; the parameters each kind samples and reports."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from forecast.core.errors import ForecastError
from forecast.models.diffusion import (
    DEFAULT_PRIORS,
    bass_adoptions,
    build_diffusion_model,
    gbass_adoptions,
    norton_bass_adoptions,
    prepare_diffusion_data,
    simulate_units,
    summary_vars,
)


def _log_likelihood(model, point: dict[str, float]) -> float:
    return float(model.compile_logp(vars=[model["log_units"]])(point))


def test_norton_bass_likelihood_matches_the_numpy_math():
    p, q, m, sigma, taus = 0.02, 0.4, np.array([1e5, 3e5]), 0.2, [0, 5]
    frame = simulate_units("norton-bass", 12, p, q, m, sigma, seed=3, launch_periods=taus)
    frame.iloc[7, 0] = np.nan  # a gap
    data = prepare_diffusion_data(frame, "norton-bass", launch_offset=2)
    model = build_diffusion_model(data, DEFAULT_PRIORS)
    totals = np.array(data.totals)
    point = {"p_log__": np.log(p), "q_log__": np.log(q), "sigma_log__": np.log(sigma),
             "m_ratio_log__": np.log(m / totals)}
    mean = norton_bass_adoptions(14, [0, 7], p, q, m)[2:]
    observed = frame.to_numpy()
    mask = np.isfinite(observed)
    scale = np.broadcast_to(totals, mask.shape)[mask]
    expected = stats.norm.logpdf(np.log(observed[mask] / scale), np.log(mean[mask] / scale),
                                 sigma).sum()
    assert _log_likelihood(model, point) == pytest.approx(expected, rel=1e-9)


def test_bass_likelihood_with_a_gap_and_a_launch_offset():
    p, q, m, sigma = 0.03, 0.3, 5e4, 0.15
    series = simulate_units("bass", 10, p, q, m, sigma, seed=5).drop(index=4)
    data = prepare_diffusion_data(series, launch_offset=3)
    model = build_diffusion_model(data, DEFAULT_PRIORS)
    total = series.sum()
    point = {"p_log__": np.log(p), "q_log__": np.log(q), "sigma_log__": np.log(sigma),
             "m_ratio_log__": np.log(m / total)}
    mean = bass_adoptions(13, p, q, m)[3:][series.index.to_numpy() - 1]
    expected = stats.norm.logpdf(np.log(series / total), np.log(mean / total), sigma).sum()
    assert _log_likelihood(model, point) == pytest.approx(expected, rel=1e-9)


def test_gbass_likelihood_matches_the_numpy_math():
    p, q, m, sigma, beta = 0.02, 0.3, 1e6, 0.1, 1.5
    covariate = np.exp(np.cumsum(np.random.default_rng(5).normal(0.0, 0.25, 9)))
    mean = gbass_adoptions(covariate, p, q, m, beta)
    series = pd.Series(mean * np.exp(0.1 * np.random.default_rng(6).standard_normal(9)),
                       index=range(1, 10))
    data = prepare_diffusion_data(series, "gbass", covariate=covariate)
    model = build_diffusion_model(data, DEFAULT_PRIORS)
    total = series.sum()
    point = {"p_log__": np.log(p), "q_log__": np.log(q), "sigma_log__": np.log(sigma),
             "m_ratio_log__": np.log(m / total), "beta": beta}
    expected = stats.norm.logpdf(np.log(series / total), np.log(mean / total), sigma).sum()
    assert _log_likelihood(model, point) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("kind", "free"), [
    ("bass", {"p", "q", "sigma", "m_ratio"}),
    ("gbass", {"p", "q", "sigma", "m_ratio", "beta"}),
    ("norton-bass", {"p", "q", "sigma", "m_ratio"}),
])
def test_each_kind_samples_its_parameters(kind, free):
    series = simulate_units("bass", 8, 0.02, 0.3, 1e5, 0.1, seed=2)
    covariate = np.linspace(1.0, 2.0, 8) if kind == "gbass" else None
    model = build_diffusion_model(prepare_diffusion_data(series, kind, covariate),
                                  DEFAULT_PRIORS)
    assert {rv.name for rv in model.free_RVs} == free
    assert {rv.name for rv in model.deterministics} == {"m"}
    assert summary_vars(kind) == ("p", "q", "m", "sigma") + (
        ("beta",) if kind == "gbass" else ())


def test_summary_vars_of_an_unknown_kind_is_an_error():
    with pytest.raises(ForecastError, match="kind must be one of"):
        summary_vars("logistic")
