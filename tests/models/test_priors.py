"""Prior specs -> PyMC variables (forecast.models.priors)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from forecast.core.errors import ForecastError
from forecast.models.priors import prior, prior_data, prior_parameters


def test_prior_parameters_translate_specs() -> None:
    assert prior_parameters("c", {"dist": "lognormal", "median": 600.0, "sigma": 0.3,
                                  "rationale": "why"}) == (
        "lognormal", {"mu": math.log(600.0), "sigma": 0.3})
    dist, params = prior_parameters("t", {"dist": "TruncNormal", "mu": 0, "sigma": 1,
                                          "lower": 0})
    assert dist == "truncnormal" and params == {"mu": 0, "sigma": 1, "lower": 0, "upper": None}
    # Unbounded sides are constants, not data.
    assert prior_data("t", {"dist": "truncnormal", "mu": 0, "sigma": 1, "lower": 0}) == {
        "t__mu": 0.0, "t__sigma": 1.0, "t__lower": 0.0}


def test_prior_errors_name_the_prior() -> None:
    with pytest.raises(ForecastError, match="prior x: unsupported dist 'cauchy'"):
        prior_parameters("x", {"dist": "cauchy"})
    with pytest.raises(ForecastError, match="prior x: beta needs parameter 'beta'"):
        prior_parameters("x", {"dist": "beta", "alpha": 2.0})


def _lognormal_logpdf(x: float, median: float, sigma: float) -> float:
    z = (math.log(x) - math.log(median)) / sigma
    return -0.5 * z * z - math.log(x * sigma * math.sqrt(2 * math.pi))


def test_swappable_prior_takes_new_values_as_data() -> None:
    import pymc as pm

    spec = {"dist": "lognormal", "median": 600.0, "sigma": 0.3}
    with pm.Model() as model:
        prior("ceiling", spec, swappable=True)
    logp = model.compile_logp(jacobian=False)
    point = {"ceiling_log__": np.log(450.0)}
    assert logp(point) == pytest.approx(_lognormal_logpdf(450.0, 600.0, 0.3), rel=1e-9)
    # Another scenario's ceiling: same compiled graph, new data.
    with model:
        pm.set_data(prior_data("ceiling", {**spec, "median": 300.0, "sigma": 0.5}))
    assert logp(point) == pytest.approx(_lognormal_logpdf(450.0, 300.0, 0.5), rel=1e-9)
