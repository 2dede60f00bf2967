""""What would I have to believe?" on synthetic forecasts whose answer is known: pure
functions over (inputs frame, metric draws), no MCMC."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.pipeline.believe import (
    MAX_SCORE,
    believe,
    explained_share,
    input_shifts,
    input_uniforms,
    move_inputs,
    smallest_shift,
)
from forecast.scenarios.distributions import InputSpec
from forecast.scenarios.theses import ThesisSpec

N = 4000
MARGINALS = {
    "decider": InputSpec.from_dict("decider", {"dist": "normal", "mu": 0.0, "sigma": 1.0}),
    "bystander": InputSpec.from_dict("bystander", {"dist": "uniform", "lower": 0.0,
                                                    "upper": 2.0}),
    "launch": InputSpec.from_dict("launch", {"dist": "quarter",
                                             "values": ["2026Q1", "2026Q2", "2026Q3"],
                                             "probs": [0.3, 0.5, 0.2]}),
    "fixed": InputSpec.from_dict("fixed", {"dist": "fixed", "value": 3.0}),
}


def sample_inputs(n: int = N, seed: int = 1, rho: float = 0.4) -> pd.DataFrame:
    """Draws through a Gaussian copula: the bystander goes with the decider (rank
    correlation about ``rho``) without deciding anything itself."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, 3))
    z[:, 1] = rho * z[:, 0] + np.sqrt(1 - rho ** 2) * z[:, 1]
    from forecast.core.special import ndtr

    u = ndtr(z)
    return pd.DataFrame({"decider": MARGINALS["decider"].ppf(u[:, 0]),
                         "bystander": MARGINALS["bystander"].ppf(u[:, 1]),
                         "launch": MARGINALS["launch"].ppf(u[:, 2]),
                         "fixed": np.full(n, 3.0)})


def synthetic_model(noise_sd: float, weight: float = 1.0, seed: int = 7):
    """A "forecast" whose thesis metric is ``weight * decider + noise``; the noise (the
    stand-in for the posterior) is fixed by ``seed``: common random numbers."""
    noise = np.random.default_rng(seed).standard_normal(N) * noise_sd
    return lambda frame: weight * frame["decider"].to_numpy(float) + noise


THESIS = ThesisSpec(name="decided", statement="s", metric="tam", period="2030",
                    comparator=">=", threshold=1.0)


def test_an_input_that_alone_decides_is_ranked_first_and_shifted_to_one_half() -> None:
    inputs = sample_inputs()
    model = synthetic_model(noise_sd=0.3)
    calls = []

    def resimulate(frame: pd.DataFrame) -> np.ndarray:
        calls.append(frame)
        return model(frame)

    belief = believe(inputs, model(inputs), THESIS, MARGINALS, resimulate)
    assert belief.shifts["input"].iloc[0] == "decider"
    assert belief.shifts["z"].iloc[0] > 10
    assert belief.probability == pytest.approx(0.17, abs=0.03)  # P(N(0, 1.09) >= 1)
    assert belief.decided_by == "inputs" and belief.explained_metric > 0.85
    # The bystander is correlated with the decider, so it leans too, but is not moved.
    assert list(belief.search.direction.index) == ["decider"]
    search = belief.search
    assert search.reached
    # The answer: decider + delta + noise >= 1 half the time, i.e. delta = 1.
    assert search.scores["decider"] == pytest.approx(1.0, abs=0.08)
    assert abs(search.probability - 0.5) <= 2 * belief.mcse_at_shift
    assert search.probability > 0.5
    # Fresh noise (no common random numbers) at that shift: 0.5 within its Monte Carlo error.
    fresh = synthetic_model(noise_sd=0.3, seed=99)
    moved = move_inputs(inputs, input_uniforms(inputs, MARGINALS, ["decider"]), MARGINALS,
                        search.scores)
    check = float(np.mean(fresh(moved) >= 1.0))
    assert abs(check - 0.5) <= 3 * np.sqrt(0.25 / N) + 0.02
    # Only the decider moved; the copula's ranks are kept.
    last = calls[-1]
    pd.testing.assert_series_equal(last["bystander"], inputs["bystander"])
    assert (np.argsort(last["decider"].to_numpy()) == np.argsort(inputs["decider"].to_numpy())
            ).all()
    row = belief.moves.set_index("input").loc["decider"]
    assert row["median_after"] == pytest.approx(search.scores["decider"], abs=1e-9)
    assert row["percentile_after"] == pytest.approx(100 * 0.841, abs=3)


def test_a_thesis_the_posterior_decides_says_so_and_cannot_be_shifted() -> None:
    inputs = sample_inputs()
    model = synthetic_model(noise_sd=1.0, weight=0.1)
    thesis = ThesisSpec(name="noisy", statement="s", metric="tam", period="2030",
                        comparator=">=", threshold=1.5)
    belief = believe(inputs, model(inputs), thesis, MARGINALS, model)
    assert belief.explained_metric < 0.05
    assert belief.decided_by == "posterior"
    assert not belief.search.reached and belief.search.length is None
    assert belief.search.probability < 0.5


def test_a_thesis_already_likely_needs_no_shift_and_no_simulation() -> None:
    inputs = sample_inputs()
    model = synthetic_model(noise_sd=0.3)
    thesis = ThesisSpec(name="easy", statement="s", metric="tam", period="2030",
                        comparator="<=", threshold=1.0)

    def refuse(frame: pd.DataFrame) -> np.ndarray:
        raise AssertionError("no re-simulation is needed")

    belief = believe(inputs, model(inputs), thesis, MARGINALS, refuse)
    assert belief.probability > 0.5
    assert belief.search.length == 0.0 and belief.search.reached


def test_a_lower_is_better_thesis_moves_the_input_down() -> None:
    inputs = sample_inputs()
    model = synthetic_model(noise_sd=0.3)
    thesis = ThesisSpec(name="low", statement="s", metric="tam", period="2030",
                        comparator="<", threshold=-1.0)
    belief = believe(inputs, model(inputs), thesis, MARGINALS, model)
    assert belief.shifts["input"].iloc[0] == "decider"
    assert belief.shifts["shift"].iloc[0] < 0
    assert belief.search.scores["decider"] == pytest.approx(-1.0, abs=0.08)


def test_input_shifts_on_a_known_selection() -> None:
    inputs = sample_inputs(rho=0.0)
    holds = inputs["decider"].to_numpy() > 1.0  # the top 16%
    table = input_shifts(inputs, holds).set_index("input")
    decider = table.loc["decider"]
    assert decider["rank"] == 1
    # Where the decider exceeds 1 its median is about the 92nd percentile of N(0, 1).
    assert decider["median_percentile"] == pytest.approx(92, abs=2)
    assert decider["median_holds"] == pytest.approx(1.4, abs=0.1)
    assert abs(table.loc["bystander", "z"]) < 3
    assert table.loc["fixed", "shift"] == 0 and table.loc["fixed", "z"] == 0
    nothing = input_shifts(inputs, np.zeros(N, dtype=bool))
    assert nothing["median_holds"].isna().all()


def test_moves_by_quantile_keep_ranks_ranges_and_the_unmoved_values() -> None:
    inputs = sample_inputs(n=500)
    names = ["decider", "bystander", "launch"]
    uniforms = input_uniforms(inputs, MARGINALS, names)
    same = move_inputs(inputs, uniforms, MARGINALS, {name: 0.0 for name in names})
    pd.testing.assert_frame_equal(same, inputs)
    # ppf of the uniforms gives every path its own value back, ties of a quarter input too.
    np.testing.assert_array_equal(MARGINALS["launch"].ppf(uniforms["launch"].to_numpy()),
                                  inputs["launch"].to_numpy())
    np.testing.assert_allclose(MARGINALS["bystander"].ppf(uniforms["bystander"].to_numpy()),
                               inputs["bystander"].to_numpy())
    up = move_inputs(inputs, uniforms, MARGINALS, {"bystander": 1.5, "launch": -1.0})
    assert up["bystander"].between(0.0, 2.0).all()
    assert (up["bystander"] >= inputs["bystander"]).all()
    assert set(up["launch"]) <= set(inputs["launch"]) and up["launch"].dtype == np.int64
    assert (up["launch"] <= inputs["launch"]).all()
    order = np.argsort(inputs["bystander"].to_numpy(), kind="stable")
    assert np.all(np.diff(up["bystander"].to_numpy()[order]) >= 0)


def test_bisection_finds_a_known_crossing() -> None:
    direction = pd.Series({"a": 0.6, "b": 0.8})
    seen = []

    def probability_at(scores: dict[str, float]) -> float:
        length = np.hypot(scores["a"], scores["b"])
        seen.append(length)
        return float(0.5 * (1 + np.tanh(length - 1.2)))

    steps = []
    result = smallest_shift(probability_at, direction, probability_at({"a": 0, "b": 0}),
                            steps=10, on_step=lambda done, total: steps.append((done, total)))
    longest = MAX_SCORE / 0.8
    assert result.reached
    assert 1.2 < result.length <= 1.2 + longest / 2 ** 10
    assert result.scores["b"] == pytest.approx(0.8 * result.length)
    assert steps[-1] == (11, 11) and len(result.trail) == 12


def test_explained_share_is_zero_for_noise_and_near_one_for_a_monotone_function() -> None:
    inputs = sample_inputs()
    noise = np.random.default_rng(3).standard_normal(N)
    assert explained_share(inputs, noise) < 0.01
    assert explained_share(inputs, np.exp(inputs["decider"].to_numpy())) > 0.99
    assert np.isnan(explained_share(inputs, np.ones(N)))
