"""Forecast paths from a parameter dict (no fit): identities, a roadmap generation, units."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from forecast.core.errors import ForecastError
from forecast.models.aws_silicon import (
    ANNUAL_UNITS,
    PATH_UNITS,
    annual_table,
    aws_silicon_paths,
    consistency_errors,
    quarters_after,
)
from forecast.models.aws_silicon.fitted import paths_dataset

GENERATIONS = pd.DataFrame({"generation": ["Trainium1", "Trainium2", "Trainium3"],
                            "ramp_midpoint": ["2022Q4", "2024Q3", "2026Q2"],
                            "fp8_dense_tflops": [190.0, 1299.0, 2517.0]})


def params(samples: int = 300, seed: int = 0) -> dict:
    """Posterior-like draws of every parameter a forecast reads."""
    rng = np.random.default_rng(seed)
    return {
        "useful_life": rng.lognormal(np.log(5.0), 0.2, samples),
        "effective_price": rng.lognormal(0.0, 0.3, samples),
        "price_elasticity": rng.normal(0.7, 0.1, samples),
        "price_decline": rng.normal(0.15, 0.05, samples),
        "billed_utilisation": rng.beta(20, 4, samples),
        "merchant_price": rng.lognormal(np.log(7000.0), 0.2, samples),
        "merchant_price_decline": rng.normal(0.25, 0.05, samples),
        "unit_cost": rng.lognormal(np.log([2000.0, 8000.0, 15000.0]), 0.2, (samples, 3)),
        "fleet_end": rng.lognormal(np.log([7e5, 7e5, 1e4]), 0.2, (samples, 3)),
        "generations": GENERATIONS, "data_end": "2025Q3",
    }


def spend(draws: int, quarters: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 1.5 * np.exp(np.cumsum(0.08 + 0.05 * rng.standard_normal((draws, quarters)),
                                  axis=1))


def test_every_identity_holds_path_by_path() -> None:
    p = params()
    quarters = quarters_after("2025Q3", 12)
    paths = aws_silicon_paths(p, spend(400, 12), quarters, np.random.default_rng(2))
    assert paths["rental_revenue"].shape == (400, 12)
    assert paths["shipments"].shape == (400, 12, 3)
    # 400 paths from 300 samples: resampled, one sample behind every quantity of a path.
    errors = consistency_errors(paths, _start_fleet(p, paths))
    assert max(errors.values()) < 1e-9, errors
    assert set(PATH_UNITS) <= set(paths)
    start = _start_fleet(p, paths)
    nearest = np.abs(start[:, None, :] / p["fleet_end"][None, :, :] - 1).max(axis=2).min(axis=1)
    assert nearest.max() < 1e-9


def _start_fleet(p: dict, paths: dict) -> np.ndarray:
    """The fitted fleet behind each path: found from the first quarter's identity."""
    first = paths["fleet"][:, 0, :] - paths["shipments"][:, 0, :]
    return first / paths["survival"][:, None]


def test_starting_fleet_is_the_fitted_one_when_draws_match() -> None:
    p = params()
    paths = aws_silicon_paths(p, spend(300, 4), quarters_after("2025Q3", 4),
                              np.random.default_rng(0))
    assert_allclose(_start_fleet(p, paths), p["fleet_end"], rtol=1e-9)
    errors = consistency_errors(paths, p["fleet_end"])
    assert max(errors.values()) < 1e-9
    # A broken path is caught: the check is not vacuous.
    paths["fleet"][:, 2, 1] *= 1.01
    assert consistency_errors(paths, p["fleet_end"])["fleet"] > 1e-3


def test_a_roadmap_generation_takes_over_at_its_cost_ratio() -> None:
    p = params()
    roadmap = pd.DataFrame({"generation": ["Trainium4"], "ramp_midpoint": ["2028Q1"],
                            "fp8_dense_tflops": [3 * 2517.0], "cost_ratio": [1.4]})
    quarters = quarters_after("2025Q3", 21)
    paths = aws_silicon_paths(p, spend(300, 21), quarters, np.random.default_rng(0),
                              generations=roadmap)
    assert list(paths["generations"]) == ["Trainium1", "Trainium2", "Trainium3", "Trainium4"]
    assert_allclose(paths["unit_cost"][:, 3], 1.4 * paths["unit_cost"][:, 2])
    share = paths["shipments"][:, -1, 3] / paths["shipments_total"][:, -1]
    assert np.median(share) > 0.9
    start = np.concatenate([p["fleet_end"], np.zeros((300, 1))], axis=1)
    assert max(consistency_errors(paths, start).values()) < 1e-9
    # An uncertain launch and spec vary by draw (a scenario's distributions).
    rng = np.random.default_rng(5)
    launches = np.where(rng.uniform(size=300) < 0.5, 8111.0, 8119.0)      # 2027Q4 or 2029Q4
    uncertain = [{"generation": "Trainium4", "ramp_midpoint": launches,
                  "fp8_dense_tflops": 2517.0 * rng.uniform(2, 4, 300), "cost_ratio": 1.4}]
    paths = aws_silicon_paths(p, spend(300, 21), quarters, np.random.default_rng(0),
                              generations=uncertain)
    share = paths["shipments"][:, quarters.index("2029Q1"), 3] / paths["shipments_total"][
        :, quarters.index("2029Q1")]
    assert share[launches == 8111].min() > 0.9 and share[launches == 8119].max() < 0.1
    assert max(consistency_errors(paths, start).values()) < 1e-9
    with pytest.raises(ForecastError, match="already fitted"):
        aws_silicon_paths(p, spend(300, 21), quarters, np.random.default_rng(0),
                          generations=roadmap.assign(generation="Trainium3"))


def test_merchant_value_and_spend_are_different_quantities() -> None:
    p = params()
    paths = aws_silicon_paths(p, spend(300, 8), quarters_after("2025Q3", 8),
                              np.random.default_rng(0))
    # Merchant value is compute x merchant price per PFLOP: not spend, not revenue.
    pflops = GENERATIONS["fp8_dense_tflops"].to_numpy() / 1000
    years = np.arange(1, 9) / 4
    per_pflop = p["merchant_price"][:, None] * np.exp(-p["merchant_price_decline"][:, None]
                                                      * years)
    compute = (paths["shipments"] * pflops).sum(axis=2)
    assert_allclose(paths["merchant_equivalent_value"], compute * per_pflop / 1e9)
    dataset = paths_dataset(paths, quarters_after("2025Q3", 8))
    assert dataset["merchant_equivalent_value"].attrs["unit"] == "USD billions per quarter"
    assert dataset["fleet"].dims == ("draw", "quarter", "generation")


def test_paths_refuse_bad_quarters() -> None:
    p = params()
    with pytest.raises(ForecastError, match="right after"):
        aws_silicon_paths(p, spend(10, 2), ["2025Q4", "2026Q2"], np.random.default_rng(0))
    with pytest.raises(ForecastError, match="spend quarters"):
        aws_silicon_paths(p, spend(10, 3), ["2025Q4", "2026Q1"], np.random.default_rng(0))


def test_annual_table_sums_quarters_and_reports_units() -> None:
    p = params()
    quarters = quarters_after("2025Q3", 21)                     # 2025Q4 .. 2030Q4
    paths = paths_dataset(aws_silicon_paths(p, spend(300, 21), quarters,
                                            np.random.default_rng(0)), quarters)
    graviton = np.full((300, 21), 10.0)
    table = annual_table(paths, graviton_run_rate=graviton)
    assert sorted(set(table["year"])) == [2026, 2027, 2028, 2029, 2030]
    assert set(table["quantity"]) == set(ANNUAL_UNITS)
    row = table[(table["quantity"] == "spend_at_cost") & (table["year"] == 2026)].iloc[0]
    assert row["mean"] == pytest.approx(paths["spend_at_cost"].values[:, 1:5].sum(axis=1).mean())
    assert row["unit"] == "USD billions per year"
    ratio = table[table["quantity"] == "revenue_to_spend"]
    assert (ratio["p10"] < ratio["p50"]).all() and (ratio["p50"] < ratio["p90"]).all()
    custom = table[table["quantity"] == "custom_chips_run_rate_q4"].set_index("year")["mean"]
    run = table[table["quantity"] == "rental_run_rate_q4"].set_index("year")["mean"]
    assert_allclose(custom - run, 10.0)
