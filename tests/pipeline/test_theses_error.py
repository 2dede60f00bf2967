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
