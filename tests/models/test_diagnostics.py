"""Tests for forecast.models.diagnostics and the shared resampling rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.models.diagnostics import (
    check_gate,
    gate_values,
    loo_coverage,
    loo_pit,
    posterior_summary,
    predictive_coverage,
)
from forecast.models.fitted import draw_index


def _posterior(rng: np.random.Generator) -> xr.Dataset:
    return xr.Dataset(
        {"a": (("chain", "draw"), rng.normal(size=(2, 500))),
         "state": (("chain", "draw", "quarter"), rng.normal(size=(2, 500, 3)) + [0, 1, 5]),
         "fixed": (("chain", "draw", "vendor"),
                   np.concatenate([np.zeros((2, 500, 1)), rng.normal(size=(2, 500, 1))], 2))},
        coords={"quarter": ["2025Q1", "2025Q2", "2025Q3"], "vendor": ["ref", "x"]})


def test_summary_adds_last_states_and_drops_constants() -> None:
    summary = posterior_summary(_posterior(np.random.default_rng(0)), ["a", "fixed"],
                                {"state": "quarter"})
    names = list(summary["parameter"])
    assert names == ["a", "fixed[x]", "state@2025Q3"]
    assert summary.loc[2, "mean"] == pytest.approx(5.0, abs=0.15)


def test_missing_r_hat_fails_the_gate() -> None:
    table = pd.DataFrame({"r_hat": [1.0, np.nan], "ess_bulk": [900.0, 800.0],
                          "ess_tail": [900.0, 700.0]})
    values = gate_values(table, 0)
    assert check_gate(values) == ["max r_hat inf > 1.01"]
    good = gate_values(table.dropna(), 0)
    assert check_gate(good) == [] and good["min_ess_tail"] == 900.0


def test_predictive_coverage_against_numpy() -> None:
    rng = np.random.default_rng(3)
    predictive = xr.Dataset({"y": (("chain", "draw", "obs"), rng.normal(size=(2, 2000, 400)))})
    observed = xr.Dataset({"y": (("obs",), rng.normal(size=400))})
    table = predictive_coverage(observed, predictive).set_index("variable")
    draws = predictive["y"].values.reshape(4000, 400)
    low, high = np.quantile(draws, [0.05, 0.95], axis=0)
    expected = np.mean((observed["y"].values >= low) & (observed["y"].values <= high))
    assert table.loc["y", "coverage_90"] == expected
    assert table.loc["y", "coverage_50"] == pytest.approx(0.5, abs=0.06)
    assert table.loc["all", "n"] == 400


def _normal_mean_model(n: int, samples: int, rng: np.random.Generator):
    """y_i ~ N(mu, 1), flat prior: mu's exact posterior draws, log likelihoods, replicates."""
    y = rng.normal(0.3, 1.0, size=n)
    mu = rng.normal(y.mean(), 1.0 / np.sqrt(n), size=samples)
    log_lik = -0.5 * (y[None, :] - mu[:, None]) ** 2 - 0.5 * np.log(2 * np.pi)
    replicates = mu[:, None] + rng.normal(size=(samples, n))
    return y, log_lik, replicates


def test_loo_pit_against_the_exact_leave_one_out_predictive() -> None:
    from scipy.stats import norm

    rng = np.random.default_rng(11)
    n = 25
    y, log_lik, replicates = _normal_mean_model(n, 8000, rng)
    pit, k = loo_pit(log_lik, replicates, y)
    # Without y_i: mu ~ N(mean of the others, 1 / (n - 1)), so y_i ~ N(that, 1 + 1 / (n - 1)).
    others = (y.sum() - y) / (n - 1)
    exact = norm.cdf((y - others) / np.sqrt(1.0 + 1.0 / (n - 1)))
    np.testing.assert_allclose(pit, exact, atol=0.02)
    assert (k < 0.5).all()
    # The plain posterior predictive pulls every PIT towards 0.5, the leave-one-out does not.
    plain = (replicates <= y).mean(axis=0)
    extreme = np.argmax(np.abs(exact - 0.5))
    assert abs(pit[extreme] - 0.5) > abs(plain[extreme] - 0.5)


def test_loo_pit_of_a_calibrated_yes_no_variable_is_uniform() -> None:
    # y ~ Bernoulli(0.3), predicted as such: the plain PIT of a 0 would be 0.7 and of a 1
    # 1.0; randomised within the mass on y, it is uniform, so the 80% band covers 80%.
    rng = np.random.default_rng(2)
    n, samples = 3000, 400
    y = (rng.uniform(size=n) < 0.3).astype(float)
    replicates = (rng.uniform(size=(samples, n)) < 0.3).astype(float)
    log_lik = np.full((samples, n), np.log(0.3)) * y + np.log(0.7) * (1 - y)
    pit, _ = loo_pit(log_lik, replicates, y)
    assert np.mean((pit >= 0.1) & (pit <= 0.9)) == pytest.approx(0.8, abs=0.03)
    assert np.mean(pit < 0.5) == pytest.approx(0.5, abs=0.03)


def test_loo_coverage_flags_where_it_cannot_be_trusted() -> None:
    # A free latent level per observation, measured with noise 0.1: the plain predictive
    # covers its own data almost always, and leaving an observation out leaves its level to
    # the prior, too far from the posterior for importance weights: k says so.
    rng = np.random.default_rng(5)
    n, samples = 200, 4000
    y = rng.normal(0.0, 1.0, size=n) + rng.normal(0.0, 0.1, size=n)
    post_var = 1.0 / (1.0 + 100.0)
    draws = y * 100.0 * post_var + rng.normal(size=(samples, n)) * np.sqrt(post_var)
    replicates = draws + rng.normal(0.0, 0.1, size=(samples, n))
    log_lik = -0.5 * ((y - draws) / 0.1) ** 2
    dims = ("chain", "draw", "obs")
    observed = xr.Dataset({"y": (("obs",), y)})
    predictive = xr.Dataset({"y": (dims, replicates.reshape(2, samples // 2, n))})
    log_likelihood = xr.Dataset({"y": (dims, log_lik.reshape(2, samples // 2, n))})
    plain = predictive_coverage(observed, predictive).set_index("variable")
    loo = loo_coverage(observed, predictive, log_likelihood).set_index("variable")
    assert plain.loc["y", "coverage_80"] > 0.95
    assert loo.loc["y", "loo_k_above_0_7"] > 0.9 * n
    assert loo.loc["all", "loo_k_above_0_7"] == loo.loc["y", "loo_k_above_0_7"]


def test_draw_index_rule() -> None:
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(draw_index(5, None, rng), np.arange(5))
    fewer = draw_index(100, 40, rng)
    assert len(set(fewer)) == 40  # without replacement
    more = draw_index(10, 25, rng)
    assert len(more) == 25 and set(more) <= set(range(10))
    with pytest.raises(ForecastError):
        draw_index(10, 0, rng)
