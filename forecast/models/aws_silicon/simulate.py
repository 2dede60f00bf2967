"""Inputs simulated from the AWS silicon model's own math, for parameter-recovery tests.

Pure numpy and pandas: the same frames :func:`~forecast.models.aws_silicon.data.
prepare_aws_silicon_data` makes, with the truth behind them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_index, quarters_from
from forecast.models.aws_silicon.data import RAMP_WIDTH, REFERENCE_GENERATION, STATEMENT_COLUMNS
from forecast.models.aws_silicon.math import (
    average_fleet,
    chip_hour_prices,
    fleet_stock,
    generation_mix,
    rental_revenue,
    shipments,
    survival_per_quarter,
)

#: Generations of a simulation: two, the reference second (its ramp mid-timeline).
SIMULATED_GENERATIONS = pd.DataFrame({
    "generation": ["Trainium1", "Trainium2"], "ramp_midpoint": ["2022Q4", "2024Q3"],
    "fp8_dense_tflops": [190.0, 1299.0]})


def true_paths(truth: Mapping[str, Any], spend: np.ndarray, quarters: Sequence[str],
               generations: pd.DataFrame) -> dict[str, np.ndarray]:
    """Shipments and fleet (generation, quarter), revenue (quarter) of one parameter set."""
    t = np.array([quarter_index(q) for q in quarters], dtype=float)
    midpoints = np.array([quarter_index(q) for q in generations["ramp_midpoint"]], float)
    costs = np.array([truth["unit_cost"][g] for g in generations["generation"]])
    shipped = shipments(spend, generation_mix(t, midpoints, RAMP_WIDTH), costs)
    fleet = fleet_stock(shipped, survival_per_quarter(truth["useful_life"]))
    pflops = generations["fp8_dense_tflops"].to_numpy(float)
    ref = pflops[list(generations["generation"]).index(REFERENCE_GENERATION)]
    prices = chip_hour_prices(truth["effective_price"], pflops / ref,
                              truth["price_elasticity"], truth["price_decline"],
                              (t - t[-1]) / 4.0)
    revenue = rental_revenue(average_fleet(fleet, np.zeros_like(fleet[:, :1])),
                             truth["billed_utilisation"], prices)
    return {"shipments": shipped, "fleet": fleet, "revenue": revenue}


def simulate_inputs(truth: Mapping[str, Any], start: str = "2022Q4", n: int = 28,
                    seed: int = 0, generations: pd.DataFrame = SIMULATED_GENERATIONS,
                    spend_sd: float = 0.3, count_sd: float = 0.08, band: float = 0.04,
                    fleet_every: int = 1
                    ) -> tuple[dict[str, pd.DataFrame], dict[str, np.ndarray]]:
    """Inputs drawn from the model given ``truth``, and the true paths.

    Spend grows from USD 0.1 bn to 3 bn a quarter over 12 quarters, then stays there (a
    fleet old enough for retirements to show); the spend frame is centred on the true log
    spend plus noise of sd ``spend_sd`` (its stated sd). Observed each quarter: cumulative
    shipments since ``start`` (lognormal noise ``count_sd``, stated as Epoch-style sd) and
    the run rate as an interval of +-``band`` around a noisy value; every ``fleet_every``
    quarters the reference generation's fleet likewise. Utilisation is stated "fully
    subscribed" as in the data.

    Parameters
    ----------
    truth
        unit_cost (generation name -> USD), useful_life, effective_price, price_elasticity,
        price_decline, billed_utilisation.
    """
    rng = np.random.default_rng(seed)
    quarters = quarters_from(start, n)
    log_spend = np.log(0.1) + np.log(30.0) * np.minimum(np.arange(n) / 12.0, 1.0)
    paths = true_paths(truth, np.exp(log_spend), quarters, generations)
    spend = pd.DataFrame({"quarter": quarters,
                          "log_mean": log_spend + spend_sd * rng.standard_normal(n),
                          "log_sd": np.full(n, spend_sd)})
    cum = np.cumsum(paths["shipments"].sum(axis=0))
    cumulative = pd.DataFrame({
        "start": start, "quarter": quarters,
        "value": cum * np.exp(count_sd * rng.standard_normal(n)),
        "sd_log": np.full(n, count_sd), "label": [f"simulated count {q}" for q in quarters]})
    rows = []
    ref = list(generations["generation"]).index(REFERENCE_GENERATION)
    for i, q in enumerate(quarters):
        run = 4.0 * paths["revenue"][i] * np.exp(0.03 * rng.standard_normal())
        rows.append(("rental_run_rate", "interval", q, run * (1 - band), run * (1 + band),
                     f"run rate {q}"))
        if i % fleet_every == fleet_every - 1:
            chips = paths["fleet"][ref, i] * np.exp(0.03 * rng.standard_normal())
            rows.append(("trainium2_fleet", "interval", q, chips * (1 - band),
                         chips * (1 + band), f"fleet {q}"))
    rows.append(("billed_utilisation", "lower", quarters[-1], 0.85, 1.0, "fully subscribed"))
    inputs = {"spend": spend, "generations": generations.copy(), "cumulative": cumulative,
              "statements": pd.DataFrame(rows, columns=STATEMENT_COLUMNS)}
    return inputs, {**paths, "log_spend": log_spend}
