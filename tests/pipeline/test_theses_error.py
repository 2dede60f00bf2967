"""The thesis Monte Carlo error counts the posterior's effective samples."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.pipeline.theses import monte_carlo_error


def test_independent_paths_give_the_binomial_error() -> None:
    assert monte_carlo_error(0.2, 4000, None) == pytest.approx(np.sqrt(0.16 / 4000))


def test_a_posterior_with_few_effective_samples_widens_it() -> None:
    # 4,000 paths over a posterior with ESS 500 carry at most ~444 samples' information.
    error = monte_carlo_error(0.2, 4000, 500.0)
    assert error == pytest.approx(np.sqrt(0.16 * (1 / 4000 + 1 / 500)))
    assert error > 2.9 * monte_carlo_error(0.2, 4000, None)


def test_the_bound_holds_for_a_posterior_that_decides_the_thesis() -> None:
    # A thesis decided by the posterior alone: paths re-use 500 independent samples.
    rng = np.random.default_rng(11)
    estimates = []
    for _ in range(400):
        posterior = rng.random(500) < 0.3
        estimates.append(posterior[rng.integers(0, 500, size=4000)].mean())
    assert np.std(estimates) <= monte_carlo_error(0.3, 4000, 500.0) * 1.1
    assert np.std(estimates) > 2 * monte_carlo_error(0.3, 4000, None)


def test_a_thesis_whose_period_the_data_reached_has_no_probability_and_says_why() -> None:
    import xarray as xr

    from forecast.pipeline.theses import evaluate_theses
    from forecast.scenarios.theses import ThesisSpec

    paths = xr.Dataset({"tam": (("draw", "quarter"), np.ones((10, 4)))},
                       coords={"quarter": ["2026Q2", "2026Q3", "2026Q4", "2027Q1"]})
    spec = dict(statement="s", metric="tam", aggregate="sum", comparator=">=", threshold=1.0)
    past = ThesisSpec(name="past", period="2026Q1", **spec)
    ahead = ThesisSpec(name="ahead", period="2026Q3", **spec)
    table = evaluate_theses(paths, [past, ahead]).set_index("name")
    assert np.isnan(table.loc["past", "probability"])
    assert "before the forecast (2026Q2)" in table.loc["past", "note"]
    assert table.loc["ahead", "probability"] == 1.0
