"""The spend backtest's forecasters: the Bayesian model forecasts under M6's bound, as a
forecast does, and carries the same fit's unbounded paths for the comparison."""

from __future__ import annotations

import numpy as np
import pandas as pd

from forecast.data.dataset import load_dataset
from forecast.evaluation import harness, spend_backtest, spend_forecasters
from forecast.evaluation.spend_forecasters import (
    HELD_PATHS,
    UNBOUNDED_PATHS,
    SeriesPaths,
    SpendForecaster,
)
from forecast.pipeline.fitting import find_fit
from forecast.scenarios import load_scenario


def test_the_bounded_forecast_never_exceeds_the_unbounded_and_the_bound_binds(shipped_store):
    scenario = load_scenario("base")
    dataset = load_dataset()
    fitted = find_fit(scenario, shipped_store).models["spend"]
    with spend_forecasters.shared_fits():
        # The shipped fit stands in for the cut-off's fit: this tests the forecast, not MCMC.
        spend_forecasters._SHARED_FITS[(str(dataset.as_of_date), "base", "[]", 0)] = fitted
        paths = SpendForecaster(scenario, unbounded_twin=True)(dataset, ("nvidia_data_center",),
                                                               4, 2000, 0)
    bounded = paths["nvidia_data_center"]
    free = paths.info[UNBOUNDED_PATHS]["nvidia_data_center"]
    assert bounded.shape == free.shape == (2000, 4)
    # The same random numbers: the bound only fades rises, so no path ends above its twin.
    assert np.all(bounded <= free * (1 + 1e-12))
    lower = bounded < 0.99 * free
    assert 0.02 < lower[:, -1].mean() < 0.9
    assert lower[:, -1].mean() >= lower[:, 0].mean()


class _Cut:
    """A dataset stand-in: the forecaster below ignores what it is given."""

    def as_of(self, cutoff):
        return self


def test_the_twins_become_results_of_their_own_on_the_models_cells() -> None:
    bounded = {"a": np.arange(6.0).reshape(3, 2), "b": np.ones((3, 2))}
    free = {"a": 10 + np.arange(6.0).reshape(3, 2), "b": 2 * np.ones((3, 2))}
    held = {"a": 20 + np.arange(6.0).reshape(3, 2), "b": 3 * np.ones((3, 2))}

    def forecaster(dataset, series, quarters, draws, seed):
        paths = SeriesPaths(bounded)
        paths.info = {"as_of": "x", UNBOUNDED_PATHS: free, HELD_PATHS: held}
        return paths

    task = spend_backtest.CutoffForecast(_Cut(), forecaster, ("a", "b"), 2, 3, 0)
    result = harness.run_task(harness.Task(spend_backtest.BAYES, pd.Timestamp("2025-05-28"),
                                           task))
    extra = harness.twin_results(result, spend_backtest.TWINS)
    assert UNBOUNDED_PATHS not in result.info and HELD_PATHS not in result.info
    assert result.info["as_of"] == "x"
    assert [r.forecaster for r in extra] == [spend_backtest.UNBOUNDED, spend_backtest.HELD]
    assert all(r.cells == result.cells for r in extra) and len(result.cells) == 4
    for j, (name, h) in enumerate(result.cells):
        np.testing.assert_array_equal(result.samples[:, j], bounded[name][:, h - 1])
        np.testing.assert_array_equal(extra[0].samples[:, j], free[name][:, h - 1])
        np.testing.assert_array_equal(extra[1].samples[:, j], held[name][:, h - 1])
    assert harness.twin_results(extra[0], spend_backtest.TWINS) == []
