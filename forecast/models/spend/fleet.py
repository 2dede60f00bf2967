"""M5 inside the spend model: AWS's chips as a stock and flow, and Amazon's statements.

One fleet, three quantities, each with its unit (see :mod:`forecast.models.spend`):
spend at cost (AWS's group spend, what the TAM counts), rental revenue (the fleet's billed
chip-hours at the effective price) and merchant-equivalent value (the quarter's shipments at
what NVIDIA GPUs of the same effective compute would sell for). Shipments are the spend at
cost over the unit cost of the generation being bought, so Amazon's statements on the run
rate and the Trainium2 fleet condition AWS's spend in the same posterior. PyMC is imported
inside the functions only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_index
from forecast.models.priors import prior
from forecast.models.spend.fleet_math import (
    average_fleet,
    chip_hour_prices,
    fleet_stock,
    generation_mix,
    merchant_equivalent_value,
    merchant_price_path,
    rental_revenue,
    shipments,
    survival_per_quarter,
)
from forecast.models.spend.likelihood import CENSOR_SOFTNESS, Z95
from forecast.models.spend.statements import MIX_WIDTH, compute_ratio, generation_keys

#: M5's parameters reported by ``summary()`` and gated on (unit costs join per generation).
AWS_VARS: list[str] = ["useful_life", "effective_price", "price_elasticity", "price_decline",
                       "billed_utilisation", "merchant_price", "merchant_price_decline"]


def aws_fleet(data: Mapping[str, pd.DataFrame], window: Sequence[str], log_spend_aws: Any,
              priors: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Shipments, fleet, rental revenue and merchant-equivalent value over the window, and
    Amazon's statements as observations of them."""
    import pymc as pm
    import pytensor.tensor as pt

    generations = data["aws_generations"]
    costs = [prior(f"unit_cost_{key}", priors[f"unit_cost_{key}"])
             for key in generation_keys(generations)]
    params = {"unit_cost": pm.Deterministic("unit_cost", pt.stack(costs), dims="generation")}
    for name in AWS_VARS:
        params[name] = prior(name, priors[name])
    t = np.array([quarter_index(q) for q in window], dtype=float)
    years = (t - t[-1]) / 4.0
    mix = generation_mix(t, generations["ramp_midpoint"].to_numpy(float), MIX_WIDTH)
    shipped = pm.Deterministic("shipments", shipments(pt.exp(log_spend_aws), mix,
                                                      params["unit_cost"]),
                               dims=("generation", "position_quarter"))
    survival = survival_per_quarter(params["useful_life"], xp=pt)
    fleet = pm.Deterministic("fleet", fleet_stock(shipped, survival, xp=pt,
                                                  length=len(window)),
                             dims=("generation", "position_quarter"))
    prices = chip_hour_prices(params["effective_price"], compute_ratio(generations),
                              params["price_elasticity"], params["price_decline"], years, xp=pt)
    revenue = pm.Deterministic("rental_revenue", rental_revenue(
        average_fleet(fleet, pt.zeros_like(fleet[:, :1]), xp=pt),
        params["billed_utilisation"], prices), dims="position_quarter")
    merchant = merchant_price_path(params["merchant_price"], params["merchant_price_decline"],
                                   years, xp=pt)
    ratio = pm.Data("utilisation_ratio", float(data["utilisation"]["ratio"].iloc[0]))
    pm.Deterministic("merchant_equivalent_value", merchant_equivalent_value(
        shipped, generations["fp8_dense_tflops"].to_numpy(float) / 1000.0, merchant, ratio),
        dims="position_quarter")
    flows = {"revenue": revenue, "fleet": fleet, "prices": prices}
    _statements(data["aws_statements"], window, list(generations["generation"]), flows,
                params)
    return flows


def _statements(statements: pd.DataFrame, window: Sequence[str], names: list[str],
                flows: Mapping[str, Any], params: Mapping[str, Any]) -> None:
    """Amazon's statements as observed variables: an interval reading is a measurement at
    its geometric middle (the interval its 90% band); a lower or upper bound a censored
    observation at the bound (:data:`CENSOR_SOFTNESS`)."""
    import pymc as pm
    import pytensor.tensor as pt

    index = {q: i for i, q in enumerate(window)}
    series = {
        "rental_run_rate": lambda: pt.log(4.0 * flows["revenue"]),
        "trainium2_fleet": lambda: pt.log(flows["fleet"][names.index("Trainium2")]),
        "billed_utilisation": lambda: pt.log(params["billed_utilisation"]) * pt.ones(
            len(window)),
        "trainium1_price": lambda: pt.log(flows["prices"][names.index("Trainium1")]),
    }
    for k, row in enumerate(statements.itertuples(index=False)):
        if row.observes not in series or row.quarter not in index:
            continue
        value = series[row.observes]()[index[row.quarter]]
        name = f"obs_aws_{row.observes}_{k}"
        if row.kind == "interval":
            low, high = math.log(row.lower), math.log(row.upper)
            pm.Normal(name, mu=value, sigma=(high - low) / (2 * Z95), observed=(low + high) / 2)
        elif row.kind == "lower":
            bound = math.log(row.lower)
            pm.Censored(name, pm.Normal.dist(value, CENSOR_SOFTNESS), lower=None, upper=bound,
                        observed=bound)
        else:
            bound = math.log(row.upper)
            pm.Censored(name, pm.Normal.dist(value, CENSOR_SOFTNESS), lower=bound, upper=None,
                        observed=bound)
