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


def test_draw_index_rule() -> None:
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(draw_index(5, None, rng), np.arange(5))
    fewer = draw_index(100, 40, rng)
    assert len(set(fewer)) == 40  # without replacement
    more = draw_index(10, 25, rng)
    assert len(more) == 25 and set(more) <= set(range(10))
    with pytest.raises(ForecastError):
        draw_index(10, 0, rng)
