"""Tests of input distributions: quantiles, CDF and mean against scipy, and their validation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from forecast.core.calendar import quarter_index
from forecast.core.errors import ScenarioError
from forecast.core.special import ndtr
from forecast.scenarios import InputSpec, Scenario, inputs_at_normals


def _pert_reference(lower: float, mode: float, upper: float, lam: float = 4.0):
    width = upper - lower
    a = 1 + lam * (mode - lower) / width
    b = 1 + lam * (upper - mode) / width
    return stats.beta(a, b, loc=lower, scale=width)


DIST_CASES = [
    ({"dist": "normal", "mu": 1.0, "sigma": 2.0}, stats.norm(1.0, 2.0)),
    ({"dist": "lognormal", "median": 3.0, "sigma": 0.5}, stats.lognorm(s=0.5, scale=3.0)),
    (
        {"dist": "truncnormal", "mu": 0.05, "sigma": 0.05, "lower": 0.0, "upper": 0.3},
        stats.truncnorm(-1.0, 5.0, loc=0.05, scale=0.05),
    ),
    ({"dist": "beta", "alpha": 6.0, "beta": 10.0}, stats.beta(6.0, 10.0)),
    ({"dist": "uniform", "lower": 2.0, "upper": 5.0}, stats.uniform(2.0, 3.0)),
    (
        {"dist": "triangular", "lower": 1.0, "mode": 2.0, "upper": 4.0},
        stats.triang(c=1.0 / 3.0, loc=1.0, scale=3.0),
    ),
    (
        {"dist": "triangular", "lower": 0.0, "mode": 0.0, "upper": 1.0},
        stats.triang(c=0.0, loc=0.0, scale=1.0),
    ),
    ({"dist": "pert", "lower": 1.5, "mode": 3.0, "upper": 3.3}, _pert_reference(1.5, 3.0, 3.3)),
    (
        {"dist": "PERT", "lower": 0.0, "mode": 1.0, "upper": 4.0, "lambda": 6},
        _pert_reference(0.0, 1.0, 4.0, 6.0),
    ),
    ({"dist": "halfnormal", "sigma": 0.15}, stats.halfnorm(scale=0.15)),
    ({"dist": "gamma", "alpha": 2.0, "beta": 4.0}, stats.gamma(2.0, scale=0.25)),
    ({"dist": "exponential", "lam": 3.0}, stats.expon(scale=1.0 / 3.0)),
    ({"dist": "studentt", "nu": 4.0, "mu": 1.0, "sigma": 0.5}, stats.t(4.0, loc=1.0, scale=0.5)),
]


@pytest.mark.parametrize(
    ("table", "reference"),
    DIST_CASES,
    ids=[f"{c[0]['dist']}-{i}" for i, c in enumerate(DIST_CASES)],
)
def test_ppf_cdf_mean_match_scipy(table: dict, reference) -> None:
    spec = InputSpec.from_dict("x", table)
    grid = np.linspace(0.001, 0.999, 999)
    np.testing.assert_allclose(spec.ppf(grid), reference.ppf(grid), rtol=1e-9, atol=1e-12)
    points = reference.ppf(grid)
    np.testing.assert_allclose(spec.cdf(points), reference.cdf(points), rtol=1e-9, atol=1e-12)
    assert spec.mean() == pytest.approx(reference.mean(), rel=1e-9)
    assert spec.median() == pytest.approx(reference.median(), rel=1e-9)
    assert spec.quantile(0.1) == pytest.approx(reference.ppf(0.1), rel=1e-9)
    assert spec.ppf(grid.reshape(3, 333)).shape == (3, 333)


def test_inputs_at_normal_scores_are_the_inverse_cdf_at_their_probabilities() -> None:
    quarters = {"dist": "quarter", "values": ["2026Q4", "2027Q1", "2027Q2", "2027Q3"],
                "probs": [0.1, 0.0, 0.5, 0.4]}
    tables = [table for table, _ in DIST_CASES] + [quarters, {"dist": "fixed", "value": 2.5}]
    specs = [InputSpec.from_dict(f"x{i}", table) for i, table in enumerate(tables)]
    normals = np.random.default_rng(5).standard_normal((700, len(specs)))
    # Far in the upper tail a beta input's ppf(ndtr(z)) is only as precise as ndtr(z) near 1.
    normals[:3] = [[-7.9], [5.0], [0.0]]
    columns = inputs_at_normals(specs, normals)
    assert sum(spec.beta_form is not None for spec in specs) == 3
    upper = normals > 0
    for j, spec in enumerate(specs):
        z = normals[:, j]
        np.testing.assert_array_equal(columns[j], spec.at_normal(z), err_msg=spec.name)
        if j >= len(DIST_CASES):
            expected = spec.ppf(ndtr(z))
            assert columns[j].dtype == expected.dtype
            np.testing.assert_array_equal(columns[j], expected, err_msg=spec.name)
            continue
        # scipy's isf above the median: ppf(ndtr(z)) itself loses digits as ndtr(z) nears 1.
        reference = DIST_CASES[j][1]
        expected = np.where(upper[:, j], reference.isf(ndtr(-z)), reference.ppf(ndtr(z)))
        np.testing.assert_allclose(columns[j], expected, rtol=1e-9, atol=1e-12,
                                   err_msg=spec.name)


def test_sampling_a_scenario_does_not_import_scipy() -> None:
    # scipy.special takes 0.3-0.5 s to import, scipy.stats a second more: forecasting must not
    # pay for them (Latin hypercube sampling, not used by forecasts, still imports qmc).
    code = (
        "import sys\n"
        "from forecast.scenarios import load_scenario\n"
        "scenario = load_scenario('bull')\n"
        "frame = scenario.sample(200, seed=1)\n"
        "medians = [spec.median() for spec in scenario.inputs.values()]\n"
        "loaded = [m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])


def test_lognormal_cdf_is_zero_below_zero() -> None:
    spec = InputSpec.from_dict("x", {"dist": "lognormal", "median": 1.0, "sigma": 0.5})
    np.testing.assert_array_equal(spec.cdf(np.array([-1.0, 0.0])), [0.0, 0.0])


def test_fixed_distribution() -> None:
    spec = InputSpec.from_dict("x", {"dist": "fixed", "value": 2.5})
    np.testing.assert_array_equal(spec.ppf(np.array([0.0, 0.3, 1.0])), [2.5, 2.5, 2.5])
    np.testing.assert_array_equal(spec.cdf(np.array([2.0, 2.5, 3.0])), [0.0, 1.0, 1.0])
    assert spec.mean() == spec.median() == 2.5


def test_quarter_distribution_frequencies_match_probs() -> None:
    values = ["2026Q4", "2027Q1", "2027Q2", "2027Q3", "2028Q1"]
    probs = [0.1, 0.0, 0.25, 0.4, 0.25]
    spec = InputSpec.from_dict("q", {"dist": "quarter", "values": values, "probs": probs})
    draws = spec.ppf(np.random.default_rng(0).random(200_000))
    assert draws.dtype == np.int64
    indices = [quarter_index(v) for v in values]
    shares = [(draws == index).mean() for index in indices]
    np.testing.assert_allclose(shares, probs, atol=0.005)
    assert shares[1] == 0.0  # a zero-probability quarter never appears
    np.testing.assert_allclose(spec.cdf(np.array(indices)), np.cumsum(probs))
    assert spec.cdf(indices[0] - 1) == 0.0
    assert spec.median() == quarter_index("2027Q3")
    assert spec.mean() == pytest.approx(float(np.dot(indices, probs)))
    assert spec.ppf(np.array([0.0, 1.0])).tolist() == [indices[0], indices[-1]]


def test_dist_name_is_case_insensitive_and_normalised() -> None:
    spec = InputSpec.from_dict("x", {"dist": "Beta", "alpha": 2, "beta": 3})
    assert spec.dist == "beta"
    assert spec.params == {"alpha": 2.0, "beta": 3.0}
    pert = InputSpec.from_dict("p", {"dist": "pert", "lower": 0, "mode": 1, "upper": 2})
    assert pert.params["lambda"] == 4.0


def test_input_spec_from_dict_validates() -> None:
    with pytest.raises(ScenarioError, match=r"<dict>: x\.unit: required key missing"):
        InputSpec.from_dict("x", {"dist": "normal", "mu": 0, "sigma": 1}, require_meta=True)
    with pytest.raises(ScenarioError, match=r"x\.sigma: must be > 0"):
        InputSpec.from_dict("x", {"dist": "normal", "mu": 0, "sigma": 0})
    with pytest.raises(ScenarioError, match=r"x\.dist: required key missing"):
        InputSpec.from_dict("x", {"mu": 0, "sigma": 1})


def test_spec_round_trips_through_to_dict(base: Scenario) -> None:
    for name, spec in base.inputs.items():
        assert InputSpec.from_dict(name, spec.to_dict(), require_meta=True) == spec
