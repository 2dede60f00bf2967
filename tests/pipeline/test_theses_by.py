"""``by`` theses hold when first reached in or before the period; every thesis over a year
or a quarter reports the distribution of the first year (or quarter) it is reached."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from forecast.pipeline.theses import evaluate_thesis, first_reached, thesis_values
from forecast.scenarios.theses import ThesisSpec

YEARS = range(2026, 2032)
QUARTERS = [f"{y}Q{q}" for y in YEARS for q in range(1, 5)]


def crossing_paths(first_years: np.ndarray) -> xr.Dataset:
    """A quarterly flow of 10 (40 a year) until each path's crossing year, 20 (80) from it."""
    year_of = np.array([int(q[:4]) for q in QUARTERS])
    flow = np.where(year_of[None, :] >= first_years[:, None], 20.0, 10.0)
    return xr.Dataset({"tam": (("draw", "quarter"), flow)},
                      coords={"draw": np.arange(len(first_years)), "quarter": QUARTERS})


def spec(**overrides) -> ThesisSpec:
    table = {"name": "t", "statement": "s", "metric": "tam", "period": "2029",
             "comparator": ">=", "threshold": 60.0, "aggregate": "sum", "when": "by"}
    table.update(overrides)
    return ThesisSpec(**table)


def test_by_counts_every_year_up_to_the_period_and_in_only_that_year() -> None:
    # Rising paths: "by 2029" holds for those that cross in 2026..2029.
    first = np.array([2026, 2027, 2028, 2029, 2030, 2031, 2040, 2040])
    paths = crossing_paths(first)
    by = evaluate_thesis(paths, spec())
    assert by["probability"] == pytest.approx(4 / 8)
    assert by["when"] == "by"
    peak = paths.copy(deep=True)
    peak["tam"][0, 4 * 3:] = 1.0  # path 0 reached it in 2026-2028, then fell away by 2029
    assert evaluate_thesis(peak, spec())["probability"] == pytest.approx(4 / 8)
    assert evaluate_thesis(peak, spec(when="in"))["probability"] == pytest.approx(3 / 8)


def test_the_first_year_distribution_matches_the_construction() -> None:
    first = np.array([2026, 2027, 2027, 2029, 2030, 2031, 2040, 2040])
    result = first_reached(crossing_paths(first), spec())
    expected = {"2026": 1 / 8, "2027": 2 / 8, "2028": 0.0, "2029": 1 / 8, "2030": 1 / 8,
                "2031": 1 / 8}
    assert result["first_reached"] == pytest.approx(expected)
    assert result["never_within_horizon"] == pytest.approx(2 / 8)
    assert result["first_year_median"] == 2027.0  # lower median of 26, 27, 27, 29, 30, 31
    # The distribution runs over the whole horizon; P(by 2029) is its sum up to 2029.
    by = evaluate_thesis(crossing_paths(first), spec())
    assert by["probability"] == pytest.approx(sum(expected[y] for y in ("2026", "2027",
                                                                        "2028", "2029")))


def test_a_falling_metric_is_reached_from_above() -> None:
    # A share that falls by 0.05 a year from a per-path start: first year at or below 0.7.
    rng = np.random.default_rng(3)
    start = rng.uniform(0.7, 1.0, size=2000)
    year_of = np.array([int(q[:4]) for q in QUARTERS])
    share = start[:, None] - 0.05 * (year_of[None, :] - 2026)
    paths = xr.Dataset({"tam": (("draw", "quarter"), share)}, coords={"quarter": QUARTERS})
    thesis = spec(comparator="<=", threshold=0.7, aggregate="mean", period="2028")
    values = thesis_values(paths, thesis)
    np.testing.assert_allclose(values, start - 0.10)  # the lowest year up to 2028
    expected = np.mean(start - 0.10 <= 0.7)
    assert evaluate_thesis(paths, thesis)["probability"] == pytest.approx(expected)


def test_by_is_never_less_likely_than_in_for_the_same_period() -> None:
    rng = np.random.default_rng(5)
    flow = rng.lognormal(2.5, 0.4, size=(3000, len(QUARTERS)))
    paths = xr.Dataset({"tam": (("draw", "quarter"), flow)}, coords={"quarter": QUARTERS})
    for period in ("2027", "2029", "2031", "2028Q3"):
        for comparator, threshold in ((">=", 55.0), ("<", 45.0)):
            by = evaluate_thesis(paths, spec(period=period, comparator=comparator,
                                             threshold=threshold))
            within = evaluate_thesis(paths, spec(period=period, comparator=comparator,
                                                 threshold=threshold, when="in"))
            assert by["probability"] >= within["probability"]
    # "by" the first year is "in" the first year.
    first_year = {k: evaluate_thesis(paths, spec(period="2026", when=w))["probability"]
                  for k, w in (("by", "by"), ("in", "in"))}
    assert first_year["by"] == first_year["in"]


def test_quarter_periods_step_by_quarter() -> None:
    flow = np.tile(np.arange(len(QUARTERS), dtype=float), (4, 1)) + np.arange(4)[:, None]
    paths = xr.Dataset({"tam": (("draw", "quarter"), flow)}, coords={"quarter": QUARTERS})
    thesis = spec(period="2026Q4", threshold=4.0, aggregate="last")
    result = evaluate_thesis(paths, thesis)
    # Path k reaches 4 in quarter index 4 - k: 2027Q1, 2026Q4, 2026Q3, 2026Q2.
    assert result["probability"] == pytest.approx(3 / 4)
    assert result["first_reached"]["2027Q1"] == pytest.approx(1 / 4)
    assert result["first_reached_median"] == "2026Q3"
    # The first year reached is the year of that quarter; the quarters add up by year.
    assert result["first_year_median"] == 2026.0
    assert result["first_reached_years"] == pytest.approx({"2026": 3 / 4, "2027": 1 / 4,
                                                           **{str(y): 0.0 for y in YEARS[2:]}})


def test_the_monte_carlo_error_counts_the_posterior_ess() -> None:
    first = np.repeat(np.array([2026, 2030]), 500)
    result = evaluate_thesis(crossing_paths(first), spec(), posterior_ess=100.0)
    assert result["probability"] == pytest.approx(0.5)
    assert result["mcse"] == pytest.approx(np.sqrt(0.25 * (1 / 1000 + 1 / 100)))
