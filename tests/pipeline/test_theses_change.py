"""Theses over a change (``change_from``), a run rate, a period the data have reached (the
in-sample posterior beside the paths), and a chip against a vendor's best offer; the
sensitivity output of a thesis reads it as the evaluator does."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.pipeline.results import Forecast
from forecast.pipeline.theses import (
    evaluate_thesis,
    first_reached,
    metric_values,
    thesis_values,
    unreached_note,
)
from forecast.scenarios.theses import ThesisSpec

FUTURE = ["2025Q4"] + [f"{y}Q{q}" for y in range(2026, 2031) for q in range(1, 5)]
PAST = [f"{y}Q{q}" for y in (2024, 2025) for q in range(1, 5)][:-1]  # 2024Q1..2025Q3
VENDORS = ["nvidia", "aws", "other"]
DRAWS = 3000


def shares(quarters: list[str], seed: int, drift: float) -> np.ndarray:
    """(draw, quarter, vendor) shares with AWS's rising by a per-draw drift a quarter."""
    rng = np.random.default_rng(seed)
    aws = (0.03 + rng.uniform(-0.01, 0.01, size=(DRAWS, 1))
           + drift * rng.uniform(0, 1, size=(DRAWS, 1)) * np.arange(len(quarters))
           + rng.normal(0, 0.004, size=(DRAWS, len(quarters))))
    other = np.full_like(aws, 0.1)
    return np.stack([1 - aws - other, aws, other], axis=2)


@pytest.fixture(scope="module")
def run() -> tuple[xr.Dataset, xr.Dataset]:
    future = xr.Dataset({"share": (("draw", "quarter", "vendor"), shares(FUTURE, 1, 0.004))},
                        coords={"draw": np.arange(DRAWS), "quarter": FUTURE,
                                "vendor": VENDORS})
    past = xr.Dataset({"share": (("draw", "quarter", "vendor"), shares(PAST, 2, 0.0))},
                      coords={"draw": np.arange(DRAWS), "quarter": PAST, "vendor": VENDORS})
    return future, past


def gain(**overrides) -> ThesisSpec:
    table = {"name": "gain", "statement": "s", "metric": "share", "vendor": "aws",
             "period": "2030", "change_from": "2025", "aggregate": "mean",
             "comparator": ">=", "threshold": 0.03}
    table.update(overrides)
    return ThesisSpec(**table)


def by_hand(future: xr.Dataset, past: xr.Dataset) -> tuple[np.ndarray, np.ndarray]:
    """AWS's 2025 mean share (three in-sample quarters and the first forecast quarter) and
    its mean share in each year 2026..2030, in numpy."""
    aws_future = future["share"].values[:, :, 1]
    aws_past = past["share"].values[:, :, 1]
    share_2025 = np.concatenate([aws_past[:, 4:7], aws_future[:, :1]], axis=1).mean(axis=1)
    years = aws_future[:, 1:].reshape(DRAWS, 5, 4).mean(axis=2)
    return share_2025, years


def test_a_change_is_the_period_less_change_from_path_by_path(run) -> None:
    future, past = run
    share_2025, years = by_hand(future, past)
    expected = years[:, -1] - share_2025
    np.testing.assert_allclose(thesis_values(future, gain(), past), expected, rtol=1e-12)
    result = evaluate_thesis(future, gain(), history=past)
    assert 0.2 < result["probability"] < 0.8  # the construction puts the threshold inside
    assert result["probability"] == pytest.approx(np.mean(expected >= 0.03))
    assert result["metric_q50"] == pytest.approx(np.median(expected))
    assert (result["change_from"], result["unit"]) == ("2025", None)
    # The in-sample quarters come first on the metric's quarter axis.
    labels = [str(q) for q in metric_values(future, gain(), past)["quarter"].values]
    assert labels == PAST + FUTURE


def test_by_with_a_change_takes_the_best_year_after_change_from(run) -> None:
    future, past = run
    share_2025, years = by_hand(future, past)
    change = years - share_2025[:, None]  # 2026..2030, each less 2025
    thesis = gain(when="by", period="2029")
    np.testing.assert_allclose(thesis_values(future, thesis, past), change[:, :4].max(axis=1),
                               rtol=1e-12)
    reached = first_reached(future, thesis, past)
    hit = change >= 0.03
    first = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
    assert list(reached["first_reached"]) == ["2026", "2027", "2028", "2029", "2030"]
    for i, year in enumerate(reached["first_reached"]):
        assert reached["first_reached"][year] == pytest.approx(np.mean(first == i))
    assert reached["never_within_horizon"] == pytest.approx(np.mean(first == -1))


def test_the_past_needs_the_in_sample_posterior_and_says_so(run) -> None:
    future, past = run
    note = unreached_note(future, gain())
    assert note == ("change_from 2025 starts before the forecast (2025Q4) and the paths hold "
                    "no in-sample posterior of share")
    assert np.isnan(evaluate_thesis(future, gain())["probability"])
    assert unreached_note(future, gain(), past) is None
    early = gain(change_from="2023")
    assert "before the fitted history of share (2024Q1)" in unreached_note(future, early, past)
    flow = future.assign(aws_rental_revenue=future["share"].sel(vendor="aws", drop=True))
    revenue = ThesisSpec("r", "s", "aws_rental_revenue", "2025", "<=", 1.0, aggregate="sum")
    assert unreached_note(flow, revenue, past).endswith(
        "no in-sample posterior of aws_rental_revenue (only of share)")
    # A forecast period needs no history, and one in the past reads it.
    assert unreached_note(future, gain(change_from=None)) is None
    within = ThesisSpec("w", "s", "share", "2025", "<=", 0.05, vendor="aws")
    share_2025, _ = by_hand(future, past)
    result = evaluate_thesis(future, within, history=past)
    assert result["probability"] == pytest.approx(np.mean(share_2025 <= 0.05))
    assert "first_reached" not in result  # a claim about the past is not reached later


def test_a_run_rate_is_four_quarters_and_by_a_quarter_steps_by_quarter() -> None:
    rng = np.random.default_rng(4)
    flow = np.cumsum(rng.lognormal(-0.5, 0.5, size=(500, len(FUTURE))), axis=1)
    paths = xr.Dataset({"aws_rental_revenue": (("draw", "quarter"), flow)},
                       coords={"quarter": FUTURE})
    year = ThesisSpec("y", "s", "aws_rental_revenue", "2030", ">=", 50.0, aggregate="run_rate")
    np.testing.assert_allclose(thesis_values(paths, year), 4 * flow[:, -4:].mean(axis=1))
    rate = ThesisSpec("q", "s", "aws_rental_revenue", "2030Q4", ">=", 50.0,
                      aggregate="run_rate", when="by")
    last = ThesisSpec("l", "s", "aws_rental_revenue", "2030Q4", ">=", 12.5, aggregate="last",
                      when="by")
    # USD 50 bn a year in some quarter = USD 12.5 bn in that quarter: the same paths hold.
    assert evaluate_thesis(paths, rate)["probability"] == evaluate_thesis(
        paths, last)["probability"]
    np.testing.assert_allclose(thesis_values(paths, rate), 4 * flow.max(axis=1))
    reached = first_reached(paths, rate)
    hit = 4 * flow >= 50.0
    first = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
    assert reached["first_reached"]["2027Q2"] == pytest.approx(np.mean(first == 6))
    years = {y: np.mean([(f >= 0 and FUTURE[f][:4] == y) for f in first]) for y in
             ("2025", "2026", "2027", "2028", "2029", "2030")}
    assert reached["first_reached_years"] == pytest.approx(years)


def test_a_chip_against_a_vendors_best_offer_on_the_owner_basis() -> None:
    rng = np.random.default_rng(6)
    chips, groups = ["H100 SXM5 80GB", "Trainium3"], ["nvidia", "aws"]
    own = rng.lognormal(0.0, 0.3, size=(200, len(FUTURE), 2))
    best = rng.lognormal(-0.2, 0.3, size=(200, len(FUTURE), 2))
    listed = rng.lognormal(1.0, 0.3, size=(200, len(FUTURE), 2))
    paths = xr.Dataset({"owner_cost_per_pflop_hour": (("draw", "quarter", "chip"), own),
                        "vendor_cost": (("draw", "quarter", "cost_vendor"), best),
                        "cost_per_pflop_hour": (("draw", "quarter", "chip"), listed)},
                       coords={"quarter": FUTURE, "chip": chips, "cost_vendor": groups})
    thesis = ThesisSpec("t", "s", "owner_cost_ratio", "2026", "<=", 0.5,
                        numerator="Trainium3", denominator="frontier:nvidia")
    ratio = own[:, 1:5, 1] / best[:, 1:5, 0]  # 2026Q1..Q4
    np.testing.assert_allclose(thesis_values(paths, thesis), ratio.mean(axis=1), rtol=1e-12)
    chip = ThesisSpec("c", "s", "owner_cost_ratio", "2026", "<=", 0.5,
                      numerator="Trainium3", denominator="H100 SXM5 80GB")
    np.testing.assert_allclose(thesis_values(paths, chip),
                               (own[:, 1:5, 1] / own[:, 1:5, 0]).mean(axis=1), rtol=1e-12)
    listing = ThesisSpec("l", "s", "cost_per_pflop_hour_ratio", "2026", "<=", 0.5,
                         numerator="Trainium3", denominator="H100 SXM5 80GB")
    np.testing.assert_allclose(thesis_values(paths, listing),
                               (listed[:, 1:5, 1] / listed[:, 1:5, 0]).mean(axis=1))
    with pytest.raises(ForecastError, match="unknown vendor group 'intel'.*nvidia, aws"):
        thesis_values(paths, ThesisSpec("x", "s", "owner_cost_ratio", "2026", "<=", 0.5,
                                        numerator="Trainium3", denominator="frontier:intel"))
    # A ratio has no in-sample paths: a past period is refused, with the reason.
    past = ThesisSpec("p", "s", "owner_cost_ratio", "2025", "<=", 0.5,
                      numerator="Trainium3", denominator="frontier:nvidia")
    assert "no in-sample posterior of owner_cost_ratio" in unreached_note(paths, past)


def test_forecast_theses_and_sensitivity_read_the_history_as_the_evaluator(run) -> None:
    from forecast.reporting.sensitivity.outputs import output_draws, parse_output

    future, past = run
    by = gain(name="by", change_from=None, when="by", comparator="<=", threshold=0.03,
              period="2030")
    forecast = Forecast(data=future, scenario="s", fit_id="f", seed=0,
                        theses_specs=[gain(), by], in_sample=past)
    table = forecast.theses().set_index("name")
    assert table.loc["gain", "probability"] == evaluate_thesis(future, gain(),
                                                               history=past)["probability"]
    np.testing.assert_array_equal(output_draws(forecast, parse_output("thesis:gain")),
                                  thesis_values(future, gain(), past))
    # "by": the lowest year up to 2030 (not 2030's own mean, the "in" reading).
    draws = output_draws(forecast, parse_output("thesis:by"))
    np.testing.assert_array_equal(draws, thesis_values(future, by))
    _, years = by_hand(future, past)
    np.testing.assert_allclose(draws, years.min(axis=1), rtol=1e-12)  # 2026..2030
    assert (draws < years[:, -1]).mean() > 0.5
    # The quantile tables and exports hold the forecast's quarters only.
    assert forecast.quantiles("share")["period"].min() == "2026"
    without = Forecast(data=future, scenario="s", fit_id="f", seed=0, theses_specs=[gain()])
    with pytest.raises(ForecastError, match="no in-sample posterior of share"):
        output_draws(without, parse_output("thesis:gain"))
