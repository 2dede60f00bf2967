"""Slow: the AWS silicon model fitted to the shipped data with its default sampler (the gate
is the point), its posterior checks against Amazon's statements, and forecasts from it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.models.aws_silicon import (
    AwsSiliconModel,
    FittedAwsSilicon,
    ceiling_breaches,
    quarters_after,
)
from forecast.models.aws_silicon.math import HOURS_PER_QUARTER
from forecast.models.diagnostics import DEFAULT_GATE, check_gate, predictive_coverage

pytestmark = pytest.mark.slow

SPEND = Path(__file__).with_name("market_aws_spend.csv")
HORIZON = 21                                                  # 2025Q4 .. 2030Q4


@pytest.fixture(scope="module")
def model_inputs():
    spend = pd.read_csv(SPEND, comment="#")
    model = AwsSiliconModel()
    return model, model.prepare(load_dataset(), spend=spend)


@pytest.fixture(scope="module")
def fitted(model_inputs):
    model, inputs = model_inputs
    return model.fit(inputs)


def spend_paths(fitted: FittedAwsSilicon, draws: int = 500, seed: int = 3) -> np.ndarray:
    """Spend paths from the last fitted quarter, growing 40% a year with noise (USD bn)."""
    rng = np.random.default_rng(seed)
    last = np.exp(fitted.stacked("log_spend")[:draws, -1])
    steps = 0.085 + 0.08 * rng.standard_normal((draws, HORIZON))
    return last[:, None] * np.exp(np.cumsum(steps, axis=1))


def test_default_sampler_passes_the_gate_on_every_parameter_and_start_state(fitted) -> None:
    diagnostics = fitted.diagnostics()
    assert not check_gate(diagnostics), diagnostics
    assert diagnostics["max_r_hat"] <= DEFAULT_GATE["max_r_hat"]
    assert diagnostics["min_ess_bulk"] >= DEFAULT_GATE["min_ess_bulk"]
    assert diagnostics["divergences"] == 0
    rows = set(fitted.summary()["parameter"])
    assert {"useful_life", "effective_price", "billed_utilisation", "merchant_price",
            "unit_cost[Trainium2]", "fleet@2025Q3[Trainium2]", "fleet@2025Q3[Trainium1]"} <= rows
    assert "z_spend" not in fitted.posterior and "log_spend" in fitted.posterior


def test_run_rate_at_2025q3_lies_inside_the_reading_of_amazons_statement(fitted) -> None:
    statements = fitted.data["statements"]
    reading = statements[statements["observes"] == "rental_run_rate"].iloc[0]
    assert reading["quarter"] == "2025Q3"
    run_rate = 4.0 * fitted.stacked("rental_revenue")[:, fitted.timeline.index("2025Q3")]
    low, median, high = np.quantile(run_rate, [0.05, 0.5, 0.95])
    assert reading["lower"] < low < median < high < reading["upper"]


def test_fleet_and_counts_agree_with_the_data(fitted, model_inputs) -> None:
    model, inputs = model_inputs
    # Project Rainier: the Trainium2 fleet at 2025Q3 clears the statement's lower bound.
    trn2 = fitted.stacked("fleet")[:, 1, -1]
    assert np.quantile(trn2, 0.05) > 0.8 * 500_000 * 0.9
    # Epoch's cumulative counts: posterior predictive intervals cover them.
    predictive = model.posterior_predictive(inputs, fitted, seed=1)
    coverage = predictive_coverage(fitted.inference_data().observed_data,
                                   predictive.posterior_predictive)
    assert coverage.set_index("variable").loc["obs_cumulative", "coverage_90"] >= 6 / 7
    # Fully subscribed: billed utilisation sits high.
    assert np.median(fitted.stacked("billed_utilisation")) > 0.8


def test_forecast_paths_are_mutually_consistent(fitted) -> None:
    spend = spend_paths(fitted)
    quarters = quarters_after(fitted.timeline[-1], HORIZON)
    paths = fitted.forecast(quarters, spend_paths=spend, seed=4)
    assert paths["quarter"].values[0] == "2025Q4" and paths["quarter"].values[-1] == "2030Q4"
    shipped = paths["shipments"].values                       # (draw, quarter, generation)
    cost = paths["unit_cost"].values                          # (draw, generation)
    # Shipments x unit cost = spend.
    assert_allclose((shipped * cost[:, None, :]).sum(axis=2) / 1e9, spend, rtol=1e-9)
    # fleet(t) = fleet(t-1) x survival + shipments(t), from the fitted last quarter on.
    fleet, survival = paths["fleet"].values, paths["survival"].values[:, None]
    assert_allclose(fleet[:, 1:], fleet[:, :-1] * survival[:, :, None] + shipped[:, 1:],
                    rtol=1e-9)
    # Rental revenue = sum of mean fleet x hours x billed utilisation x price.
    opening = np.concatenate([(fleet[:, :1] - shipped[:, :1]) / survival[:, :, None],
                              fleet[:, :-1]], axis=1)
    billed = (0.5 * (opening + fleet) * HOURS_PER_QUARTER * paths["chip_hour_price"].values
              ).sum(axis=2) * paths["billed_utilisation"].values / 1e9
    assert_allclose(paths["rental_revenue"].values, billed, rtol=1e-9)
    assert_allclose(paths["rental_run_rate"].values, 4 * paths["rental_revenue"].values)
    for name in ("rental_revenue", "merchant_equivalent_value", "fleet_total"):
        assert (paths[name].values > 0).all() and paths[name].attrs["unit"]
    # Trainium3 takes over the spend by 2027.
    assert np.median(shipped[:, quarters.index("2027Q4"), 2] / shipped[:, quarters.index(
        "2027Q4")].sum(axis=1)) > 0.9


def test_forecast_starts_from_the_fitted_fleet(fitted) -> None:
    spend = spend_paths(fitted, draws=fitted.n_samples)
    paths = fitted.forecast(quarters_after(fitted.timeline[-1], HORIZON), spend_paths=spend)
    # With every posterior sample in order, the first quarter continues each sample's fleet.
    last = fitted.stacked("fleet")[:, :, -1]
    survival = paths["survival"].values[:, None]
    assert_allclose(paths["fleet"].values[:, 0], last * survival
                    + paths["shipments"].values[:, 0], rtol=1e-9)


def test_a_ceiling_caps_rental_revenue_and_keeps_the_identity(fitted) -> None:
    spend = spend_paths(fitted)
    quarters = quarters_after(fitted.timeline[-1], HORIZON)
    free = fitted.forecast(quarters, spend_paths=spend, seed=4)
    # A ceiling below the free paths' upper tail (USD bn per quarter): it must bind.
    ceiling = np.quantile(free["rental_revenue"].values, 0.5, axis=0)
    capped = fitted.forecast(quarters, spend_paths=spend, seed=4, ceiling=ceiling)
    assert ceiling_breaches(free["rental_revenue"].values, ceiling) > 0
    assert ceiling_breaches(capped["rental_revenue"].values, ceiling) == 0
    lowered = capped["billed_utilisation"].values < free["billed_utilisation"].values
    assert lowered.any() and (capped["billed_utilisation"].values > 0).all()
    # The cap changes utilisation only: fleet and shipments are the same paths.
    assert_allclose(capped["fleet"].values, free["fleet"].values)


def test_forecast_refuses_a_gap_after_the_data(fitted) -> None:
    with pytest.raises(ForecastError, match="right after the data end"):
        fitted.forecast(["2026Q1", "2026Q2"], spend_paths=np.ones((10, 2)))
    with pytest.raises(ForecastError, match="spend_paths"):
        fitted.forecast(["2025Q4"])


def test_saved_fit_forecasts_the_same(fitted, tmp_path) -> None:
    spend = spend_paths(fitted, draws=200)
    quarters = quarters_after(fitted.timeline[-1], 8)
    loaded = FittedAwsSilicon.load(fitted.save(tmp_path / "aws"))
    a = fitted.forecast(quarters, spend_paths=spend[:, :8], seed=2)
    b = loaded.forecast(quarters, spend_paths=spend[:, :8], seed=2)
    assert_allclose(a["rental_revenue"].values, b["rental_revenue"].values)
    history = loaded.history()
    row = history[(history["quantity"] == "rental_run_rate") & (history["quarter"] == "2025Q3")]
    assert row["unit"].iloc[0] == "USD billions per year" and 2.0 < row["p50"].iloc[0] < 9.0
