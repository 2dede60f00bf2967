"""The AWS silicon model's inputs from the shipped data: spend frame, Epoch's counts, Amazon's
statements read through a scenario's readings."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from forecast.core.errors import FitError
from forecast.data.dataset import load_dataset
from forecast.models.aws_silicon import (
    AwsSiliconModel,
    completed_quarter,
    prepare_aws_silicon_data,
    spend_frame,
    spend_frame_from_market,
)

SPEND = Path(__file__).with_name("market_aws_spend.csv")


@pytest.fixture(scope="module")
def dataset():
    return load_dataset()


@pytest.fixture(scope="module")
def spend() -> pd.DataFrame:
    return pd.read_csv(SPEND, comment="#")


def _bound(statements: pd.DataFrame, observes: str) -> pd.DataFrame:
    return statements[statements["observes"] == observes].reset_index(drop=True)


def test_statements_become_bounds_on_the_quantities_they_observe(dataset, spend) -> None:
    inputs = prepare_aws_silicon_data(dataset, spend)
    statements = inputs["statements"]
    run = _bound(statements, "rental_run_rate")
    # "Several billion" on the 2025-10-30 call: the run rate of 2025Q3, USD 2-9 bn a year.
    assert run[["kind", "quarter", "lower", "upper"]].values.tolist() == [
        ["interval", "2025Q3", 2.0, 9.0]]
    fleet = _bound(statements, "trainium2_fleet")
    assert fleet.loc[0, "kind"] == "lower" and fleet.loc[0, "quarter"] == "2025Q3"
    assert fleet.loc[0, "lower"] == pytest.approx(0.8 * 500_000)
    prices = _bound(statements, "trainium1_price").sort_values("quarter")
    # Instance prices per chip; the 2022-10 list price sits in the first fitted quarter.
    assert prices["quarter"].tolist() == ["2022Q4", "2024Q4"]
    assert prices["upper"].tolist() == pytest.approx([21.50 / 16, 15.49 / 16])
    assert (prices["kind"] == "upper").all()
    assert _bound(statements, "billed_utilisation").loc[0, "lower"] == 0.85


def test_readings_are_arguments(dataset, spend) -> None:
    inputs = prepare_aws_silicon_data(dataset, spend,
                                      run_rate_readings={"several billion": (3.0, 7.0)},
                                      number_factors=(0.9, 1.1))
    run = _bound(inputs["statements"], "rental_run_rate")
    assert (run.loc[0, "lower"], run.loc[0, "upper"]) == (3.0, 7.0)
    assert _bound(inputs["statements"], "trainium2_fleet").loc[0, "lower"] == pytest.approx(
        450_000)
    # A phrase without a reading is not invented: the statement drops out.
    silent = prepare_aws_silicon_data(dataset, spend, run_rate_readings={})
    assert _bound(silent["statements"], "rental_run_rate").empty


def test_model_reads_the_scenario_readings(dataset, spend) -> None:
    from forecast.scenarios import load_scenario

    base = load_scenario("base")
    inputs = AwsSiliconModel.from_scenario(base).prepare(dataset, base, spend=spend)
    expected = base.readings["several billion"]
    run = _bound(inputs["statements"], "rental_run_rate")
    assert (run.loc[0, "lower"], run.loc[0, "upper"]) == (expected.lower, expected.upper)
    with pytest.raises(FitError, match="spend"):
        AwsSiliconModel().prepare(dataset, base)


def test_timeline_starts_at_trainium1_and_keeps_epoch_inside(dataset, spend) -> None:
    inputs = prepare_aws_silicon_data(dataset, spend)
    assert inputs["spend"]["quarter"].iloc[0] == "2022Q4"
    assert inputs["spend"]["quarter"].iloc[-1] == "2025Q3"
    cumulative = inputs["cumulative"]
    assert len(cumulative) == 7 and (cumulative["start"] == "2024Q1").all()
    assert cumulative["value"].is_monotonic_increasing
    # sd from the 5-95% band: the first (62,977-265,015 chips) is about 0.44 in logs.
    assert cumulative.loc[0, "sd_log"] == pytest.approx(
        np.log(265015 / 62977) / (2 * 1.6449), rel=1e-3)
    generations = inputs["generations"].set_index("generation")
    assert generations.loc["Trainium2", "fp8_dense_tflops"] == 1299.0
    # An as-of cut before the statements leaves only what was known then.
    early = prepare_aws_silicon_data(dataset.as_of("2024-06-30"),
                                     spend[spend["quarter"] <= "2024Q2"])
    assert early["statements"]["observes"].tolist() == ["trainium1_price"]
    assert early["cumulative"]["quarter"].tolist() == ["2024Q1", "2024Q2"]


def test_spend_frames_summarise_draws_and_refuse_gaps(dataset) -> None:
    rng = np.random.default_rng(0)
    draws = rng.normal([0.0, 1.0, 2.0], [0.1, 0.2, 0.3], size=(4000, 3))
    frame = spend_frame(draws, ["2025Q1", "2025Q2", "2025Q3"])
    assert frame["log_mean"].to_numpy() == pytest.approx([0.0, 1.0, 2.0], abs=0.02)
    assert frame["log_sd"].to_numpy() == pytest.approx([0.1, 0.2, 0.3], rel=0.05)
    gap = frame.iloc[[0, 2]]
    with pytest.raises(FitError, match="consecutive"):
        prepare_aws_silicon_data(dataset, gap)
    # The market fit's shape: log_spend (chain, draw, group, quarter).
    import xarray as xr

    posterior = xr.Dataset({"log_spend": (("chain", "draw", "group", "quarter"),
                                          rng.normal(size=(1, 50, 4, 3)))},
                           coords={"group": ["nvidia", "amd", "custom", "aws"]})
    market = SimpleNamespace(posterior=posterior, timeline=["2025Q1", "2025Q2", "2025Q3"],
                             stacked=lambda name: posterior[name].values.reshape(50, 4, 3))
    summary = spend_frame_from_market(market)
    assert summary["log_mean"].to_numpy() == pytest.approx(
        posterior["log_spend"].values[0, :, 3].mean(axis=0))


def test_completed_quarter() -> None:
    assert completed_quarter(pd.Timestamp("2025-10-30")) == "2025Q3"
    assert completed_quarter(pd.Timestamp("2025-09-30")) == "2025Q3"
    assert completed_quarter(pd.Timestamp("2025-09-29")) == "2025Q2"


def test_scenarios_that_differ_in_spend_share_one_compiled_sampler(dataset, spend) -> None:
    # Bull, base and bear differ only in the market fit's AWS spend: pm.Data swapped into one
    # compiled nutpie sampler. Anything else (here the spend's quarters) is structure.
    model = AwsSiliconModel()
    inputs = model.prepare(dataset, spend=spend)
    richer = spend.assign(log_mean=spend["log_mean"] + 0.5, log_sd=spend["log_sd"] * 2.0)
    other = model.prepare(dataset, spend=richer)
    assert model.compile_key(inputs) == model.compile_key(other)
    shorter = model.prepare(dataset, spend=spend.iloc[:-1])
    assert model.compile_key(shorter) != model.compile_key(inputs)
    swapped = model.swappable_data(other)
    np.testing.assert_allclose(swapped["spend_log_mean"], other["spend"]["log_mean"])
    np.testing.assert_allclose(swapped["spend_log_sd"], other["spend"]["log_sd"])
    built = model.build(other)
    np.testing.assert_allclose(built["spend_log_mean"].get_value(), other["spend"]["log_mean"])
