"""Tests of joint sampling: reproducibility, rank correlations and Latin hypercube strata."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scenario_files import QUARTER_INPUT, header, normal_input, write
from scipy import stats

from forecast.core.calendar import quarter_index
from forecast.core.errors import ScenarioError
from forecast.scenarios import Scenario, load_scenario


@pytest.mark.parametrize("method", ["mc", "lhs"])
def test_sampling_is_reproducible(base: Scenario, method: str) -> None:
    first = base.sample(n=500, seed=7, method=method)
    again = base.sample(n=500, seed=7, method=method)
    other = base.sample(n=500, seed=8, method=method)
    pd.testing.assert_frame_equal(first, again)
    assert not first.equals(other)
    drawn = [name for name, spec in base.inputs.items() if not spec.is_fixed]
    assert (first[drawn].to_numpy() != other[drawn].to_numpy()).mean() > 0.9
    assert list(first.columns) == list(base.inputs)
    assert len(first) == 500 and first.index.name == "draw"


def test_sampling_defaults_to_scenario_draws_and_seed(base: Scenario) -> None:
    frame = base.sample()
    assert len(frame) == base.draws
    pd.testing.assert_frame_equal(frame, base.sample(seed=base.seed))


def test_sample_dtypes_and_quarter_support(base: Scenario) -> None:
    frame = base.sample(n=2000, seed=3)
    spec = base.inputs["trainium4_launch_quarter"]
    column = frame["trainium4_launch_quarter"]
    assert column.dtype == np.int64
    allowed = {quarter_index(label) for label in spec.params["values"]}
    assert set(column.unique()) <= allowed
    assert frame["mfu_aws"].dtype == np.float64
    assert frame["mfu_aws"].between(0, 1).all()
    assert np.isfinite(frame.to_numpy(dtype=float)).all()


@pytest.mark.parametrize(
    ("n", "seed", "method", "match"),
    [
        (0, 1, "mc", "n must be a positive integer"),
        (2.5, 1, "mc", "n must be a positive integer"),
        (10, -1, "mc", "seed must be a non-negative integer"),
        (10, 1, "sobol", "method must be one of mc, lhs"),
    ],
)
def test_sample_rejects_bad_arguments(
    base: Scenario, n: object, seed: object, method: str, match: str
) -> None:
    with pytest.raises(ScenarioError, match=match):
        base.sample(n=n, seed=seed, method=method)  # type: ignore[arg-type]


def _assert_rank_correlations(scenario: Scenario, frame: pd.DataFrame) -> None:
    for (first, second), rho in scenario.correlations.items():
        realised = stats.spearmanr(frame[first], frame[second]).statistic
        assert realised == pytest.approx(rho, abs=0.05), (first, second, realised)


@pytest.mark.parametrize("method", ["mc", "lhs"])
def test_rank_correlations_honoured_in_base(base: Scenario, method: str) -> None:
    assert len(base.correlations) >= 1
    assert not any(base.inputs[name].is_quarter for name in base.correlation_names)
    _assert_rank_correlations(base, base.sample(n=20_000, seed=11, method=method))


@pytest.mark.parametrize("method", ["mc", "lhs"])
def test_strong_and_negative_rank_correlations_honoured(tmp_path: Path, method: str) -> None:
    write(
        tmp_path,
        "corr",
        header("corr")
        + normal_input("a")
        + '[inputs.b]\ndist = "lognormal"\nmedian = 2.0\nsigma = 0.8\nunit = "x"\nrationale = "r"\n'
        + '[inputs.c]\ndist = "beta"\nalpha = 2.0\nbeta = 5.0\nunit = "x"\nrationale = "r"\n'
        + '[inputs.d]\ndist = "pert"\nlower = 0.0\nmode = 1.0\nupper = 4.0\nunit = "x"\n'
        + 'rationale = "r"\n'
        + '[[correlations]]\ninputs = ["a", "b"]\nrho = 0.8\n'
        + '[[correlations]]\ninputs = ["a", "c"]\nrho = -0.6\n'
        + '[[correlations]]\ninputs = ["b", "c"]\nrho = -0.4\n',
    )
    scenario = load_scenario("corr", tmp_path, require_inputs=False)
    frame = scenario.sample(n=20_000, seed=5, method=method)
    _assert_rank_correlations(scenario, frame)
    # An input outside every correlation stays independent.
    assert abs(stats.spearmanr(frame["a"], frame["d"]).statistic) < 0.05


def test_perfect_correlation_uses_a_singular_factor(tmp_path: Path) -> None:
    write(
        tmp_path,
        "perfect",
        header("perfect")
        + normal_input("a")
        + normal_input("b")
        + '[[correlations]]\ninputs = ["a", "b"]\nrho = 1.0\n',
    )
    scenario = load_scenario("perfect", tmp_path, require_inputs=False)
    for method in ("mc", "lhs"):
        frame = scenario.sample(n=5000, seed=2, method=method)
        assert stats.spearmanr(frame["a"], frame["b"]).statistic > 0.999


def test_correlation_with_quarter_input_is_allowed(tmp_path: Path) -> None:
    write(
        tmp_path,
        "withq",
        header("withq")
        + normal_input("a")
        + QUARTER_INPUT
        + '[[correlations]]\ninputs = ["a", "q"]\nrho = -0.6\n',
    )
    scenario = load_scenario("withq", tmp_path, require_inputs=False)
    frame = scenario.sample(n=20_000, seed=4)
    realised = stats.spearmanr(frame["a"], frame["q"]).statistic
    # Ties among three quarters shrink the realised rank correlation toward zero.
    assert -0.6 < realised < -0.3
    shares = frame["q"].value_counts(normalize=True).sort_index().to_numpy()
    np.testing.assert_allclose(shares, [0.2, 0.5, 0.3], atol=0.015)


def test_zero_correlation_is_dropped_from_the_copula(tmp_path: Path) -> None:
    write(
        tmp_path,
        "zero",
        header("zero")
        + normal_input("a")
        + normal_input("b")
        + '[[correlations]]\ninputs = ["a", "b"]\nrho = 0.0\n',
    )
    scenario = load_scenario("zero", tmp_path, require_inputs=False)
    assert scenario.correlations == {("a", "b"): 0.0}
    assert scenario.correlation_names == ()


def test_lhs_marginals_match_their_distributions(base: Scenario) -> None:
    n = 2000
    frame = base.sample(n=n, seed=21, method="lhs")
    for name, spec in base.inputs.items():
        if spec.is_quarter or spec.is_fixed:
            continue
        result = stats.kstest(frame[name].to_numpy(), spec.cdf)
        # Stratified uniforms put the empirical CDF within one stratum of the true CDF.
        assert result.statistic <= 1.0 / n + 1e-9, name
        assert result.pvalue > 0.99, name


@pytest.mark.parametrize("name", ["pue", "mfu_aws", "trainium3_price_usd_per_chip_hour",
                                  "trainium2_price_usd_per_chip_hour"])
def test_lhs_hits_each_stratum_exactly_once(base: Scenario, name: str) -> None:
    # pue and mfu_aws are uncorrelated; the other two are reordered by Iman-Conover, which
    # must not disturb stratification.
    n = 1000
    frame = base.sample(n=n, seed=13, method="lhs")
    strata = np.floor(base.inputs[name].cdf(frame[name].to_numpy()) * n).astype(int)
    np.testing.assert_array_equal(np.sort(strata), np.arange(n))


def test_mc_is_not_stratified(base: Scenario) -> None:
    n = 1000
    frame = base.sample(n=n, seed=13, method="mc")
    strata = np.floor(base.inputs["pue"].cdf(frame["pue"].to_numpy()) * n).astype(int)
    assert len(np.unique(strata)) < n
