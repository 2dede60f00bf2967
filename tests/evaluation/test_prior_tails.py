"""The far year's TAM from a fitted or prior spend model, with and without M6's bounds."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.core.calendar import quarter_index, quarter_labels
from forecast.data.dataset import load_dataset
from forecast.economics.bounds import BOUND_INPUTS, bound_paths, quarter_years
from forecast.evaluation.prior_tails import LEVELS, YearTails, prior_spend, tails_frame, year_tails
from forecast.pipeline.fitting import find_fit
from forecast.scenarios.loading import load_scenario


@pytest.fixture(scope="module")
def base():
    return load_scenario("base")


@pytest.fixture(scope="module")
def shipped_tails(base, shipped_store):
    fitted = find_fit(base, shipped_store).models["spend"]
    return fitted, year_tails(fitted, base, 2030, draws=400, seed=3)


def test_the_bounds_cut_the_posterior_tail_without_lifting_any_path(shipped_tails) -> None:
    _, tails = shipped_tails
    tam, free = tails.values["tam"], tails.values["tam_unbounded"]
    assert tails.year == 2030 and tam.shape == free.shape == (400,)
    # The faded TAM never exceeds the demand the trend carries on the same path...
    assert np.all(tam <= free * (1 + 1e-9))
    # ...and the bounds bite the upper tail, where compounding put it.
    assert np.quantile(tam, 0.9) < 0.8 * np.quantile(free, 0.9)


def test_each_bound_is_its_formula_averaged_over_the_year(base, shipped_tails) -> None:
    fitted, tails = shipped_tails
    labels = quarter_labels(quarter_index(fitted.window[-1]) + 1, quarter_index("2030Q4"))
    inputs = base.sample(400, seed=3)
    columns = {name: inputs[name].to_numpy(float)
               for names in BOUND_INPUTS.values() for name in names}
    expected = bound_paths(columns, quarter_years(labels))
    for name, path in expected.items():
        np.testing.assert_allclose(tails.values[f"bound_{name}"], path[:, -4:].mean(axis=1))


def test_the_table_reports_numpy_quantiles_per_source_and_quantity() -> None:
    rng = np.random.default_rng(0)
    values = {"tam": rng.lognormal(6, 0.5, 999), "bound_power": rng.lognormal(7, 0.2, 999)}
    frame = tails_frame({"prior": YearTails(2030, values)})
    assert list(frame["quantity"]) == ["tam", "bound_power"]
    for row, name in zip(frame.to_dict("records"), values, strict=True):
        q10, q50, q90 = np.quantile(values[name], LEVELS)
        assert (row["q10"], row["q50"], row["q90"]) == (q10, q50, q90)
        assert row["ratio"] == pytest.approx(q90 / q10)


@pytest.mark.validation
def test_the_prior_is_wider_than_the_posterior_and_the_bounds_tame_it(base) -> None:
    prior = prior_spend(load_dataset(), base, draws=400, seed=1)
    assert prior.posterior.sizes["draw"] == 400
    tails = year_tails(prior, base, 2030, draws=400, seed=1).values
    assert np.all(tails["tam"] <= tails["tam_unbounded"] * (1 + 1e-9))
    # The prior's 2030 TAM spans far more than the bounds allow; faded against them, its
    # upper tail comes down to the bounds' range.
    tightest = np.minimum.reduce([tails[f"bound_{n}"] for n in ("funding", "power", "supply")])
    assert np.quantile(tails["tam_unbounded"], 0.9) > 2 * np.quantile(tightest, 0.9)
    assert np.quantile(tails["tam"], 0.9) < 2 * np.quantile(tightest, 0.9)
