"""The PyMC builder of the AWS silicon model (see :mod:`forecast.models.aws_silicon`): default
priors with their rationale, the reported parameters, and the model in pieces (parameters,
stock and flow, observations). PyMC is imported inside the functions only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_index
from forecast.models.aws_silicon.data import (
    RAMP_WIDTH,
    REFERENCE_GENERATION,
    check_generations,
    generation_keys,
    timeline_of,
)
from forecast.models.aws_silicon.math import (
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
from forecast.models.priors import prior

#: Softness (log scale) of the statements' bounds: "several billion" has no sharp edge, and
#: hard edges make divergences in NUTS.
STATEMENT_SOFTNESS = 0.15

#: Default priors, each with its unit and rationale; a scenario's ``[priors.aws_silicon]``
#: table overrides any of them.
DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "unit_cost_trainium1": {
        "dist": "lognormal", "median": 5000.0, "sigma": 0.6, "unit": "USD per chip at cost",
        "rationale": "Trainium1/Inferentia2 chip, 32 GB HBM2e and board at cost (no merchant "
                     "margin). No published figure: half the Trainium2 centre for a smaller "
                     "die and a third of the memory; 90% range $1.9k-13k.",
    },
    "unit_cost_trainium2": {
        "dist": "lognormal", "median": 10000.0, "sigma": 0.5, "unit": "USD per chip at cost",
        "rationale": "Trainium2 with 96 GB HBM3 at cost: the market model's aws_chip_value "
                     "centre (about a third of an H100's selling price); 90% range $4.4k-23k. "
                     "Epoch's counts against the spend inform it.",
    },
    "unit_cost_trainium3": {
        "dist": "lognormal", "median": 15000.0, "sigma": 0.6, "unit": "USD per chip at cost",
        "rationale": "Trainium3 (3 nm, 144 GB HBM3e: 1.5x Trainium2's memory): 1.5x the "
                     "Trainium2 centre, wider; 90% range $5.6k-40k. Prior-only in the fit.",
    },
    "useful_life": {
        "dist": "lognormal", "median": 5.0, "sigma": 0.25, "unit": "years",
        "rationale": "Mean service life of a chip (geometric retirements). Amazon's server "
                     "useful life for depreciation went 4 -> 5 years (2022), 5 -> 6 (2024) and "
                     "back to 5 for part of the fleet (2025, citing the pace of AI); 90% range "
                     "3.3-7.5 years.",
    },
    "effective_price": {
        "dist": "lognormal", "median": 1.0, "sigma": 0.7, "unit": "USD per Trainium2 chip-hour",
        "rationale": "Average billed price of a Trainium2 chip-hour at the data end, far below "
                     "list: no trn2 list price was found; trn1 lists at $1.34 on demand and "
                     "$0.97 as a Capacity Block per chip-hour, an H100 Capacity Block at $4.92; "
                     "Trainium2 has 0.66 of an H100's dense FP8 and is sold at '30-40% better "
                     "price-performance', so a list near $2-3, and the largest users (Project "
                     "Rainier) commit for far less. 90% range $0.32-3.2.",
    },
    "price_elasticity": {
        "dist": "normal", "mu": 0.7, "sigma": 0.2,
        "rationale": "Price per chip-hour scales as dense compute ** elasticity across "
                     "generations: AWS lists an A100 at $4.10 and an H100 at $12.29 per GPU-hour "
                     "for 3.2x the BF16 compute (0.95); market prices $1.2 vs $2.2 (0.5).",
    },
    "price_decline": {
        "dist": "normal", "mu": 0.15, "sigma": 0.1, "unit": "log USD per year",
        "rationale": "Erosion of a chip's effective price per year: hyperscaler lists stay flat "
                     "for years then drop (P5 up to 45% in June 2025); committed prices fall "
                     "as successors ship. 14% a year at the centre, 90% range 0-29%.",
    },
    "billed_utilisation": {
        "dist": "beta", "alpha": 8.0, "beta": 3.0,
        "rationale": "Share of the fleet's chip-hours that are billed: mean 0.73, sd 0.13. "
                     "Amazon's 'fully subscribed' (Q3 2025) enters as an observation.",
    },
    "merchant_price": {
        "dist": "lognormal", "median": 7000.0, "sigma": 0.35,
        "unit": "USD per dense FP8 PFLOP of merchant GPU at the data end",
        "rationale": "accelerator_unit_prices.csv: GB200/GB300 at $30-45k per GPU in 2025 "
                     "(Epoch) for 5 dense FP8 PFLOPS, B200 $30-40k for 4.5: $6-9k per PFLOP; "
                     "an H100 at $20-27k for 1.98 PFLOPS is $10-14k. 90% range $3.9k-12.4k.",
    },
    "merchant_price_decline": {
        "dist": "normal", "mu": 0.25, "sigma": 0.08, "unit": "log USD per year",
        "rationale": "Merchant price per FLOP falls 23-30% a year (DESIGN M2's anchor): "
                     "0.25 in log terms (22% a year), 90% range 12-34%.",
    },
}

#: Parameters reported by ``summary()`` and gated on (unit costs join per generation).
SCALAR_VARS: list[str] = ["useful_life", "effective_price", "price_elasticity",
                          "price_decline", "billed_utilisation", "merchant_price",
                          "merchant_price_decline"]


def summary_vars(generations: pd.DataFrame) -> list[str]:
    """The gated parameters of a model over ``generations``."""
    return [f"unit_cost_{key}" for key in generation_keys(generations)] + SCALAR_VARS


def build_aws_silicon_model(inputs: Mapping[str, pd.DataFrame],
                            priors: Mapping[str, Mapping[str, Any]]) -> Any:
    """The PyMC model of the package docstring for prepared ``inputs`` and complete ``priors``.

    Spend is latent: each quarter's log spend is normal around the spend frame's log mean
    with its sd (non-centred), so Amazon's statements and Epoch's counts can move it.
    """
    import pymc as pm

    generations = inputs["generations"]
    check_generations(generations)
    timeline = timeline_of(inputs)
    coords = {"quarter": timeline, "generation": [str(g) for g in generations["generation"]]}
    with pm.Model(coords=coords) as model:
        params = _parameters(priors, generations)
        flows = _stock_and_flow(inputs, params, timeline)
        _epoch_counts(inputs["cumulative"], timeline, flows["shipments"])
        _statements(inputs["statements"], timeline, generations, flows, params)
    return model


def _parameters(priors: Mapping[str, Mapping[str, Any]], generations: pd.DataFrame
                ) -> dict[str, Any]:
    """The model's parameters, in the order they enter it."""
    import pymc as pm
    import pytensor.tensor as pt

    keys = generation_keys(generations)
    costs = [prior(f"unit_cost_{key}", priors[f"unit_cost_{key}"]) for key in keys]
    params = {"unit_cost": pm.Deterministic("unit_cost", pt.stack(costs), dims="generation")}
    for name in SCALAR_VARS:
        params[name] = prior(name, priors[name])
    return params


def _stock_and_flow(inputs: Mapping[str, pd.DataFrame], params: Mapping[str, Any],
                    timeline: list[str]) -> dict[str, Any]:
    """Latent spend, shipments, fleet, rental revenue and merchant-equivalent value."""
    import pymc as pm
    import pytensor.tensor as pt

    spend_frame, generations = inputs["spend"], inputs["generations"]
    t = np.array([quarter_index(q) for q in timeline], dtype=float)
    years = (t - t[-1]) / 4.0
    # pm.Data: bull, base and bear differ only in the market fit's spend, so they share one
    # compiled sampler (the model's compile_key leaves these values out).
    spend_mean = pm.Data("spend_log_mean", spend_frame["log_mean"].to_numpy(float),
                         dims="quarter")
    spend_sd = pm.Data("spend_log_sd", spend_frame["log_sd"].to_numpy(float), dims="quarter")
    z = pm.Normal("z_spend", 0.0, 1.0, dims="quarter")
    log_spend = pm.Deterministic("log_spend", spend_mean + spend_sd * z, dims="quarter")
    spend = pt.exp(log_spend)
    mix = generation_mix(t, _midpoints(generations), RAMP_WIDTH)
    shipped = pm.Deterministic("shipments", shipments(spend, mix, params["unit_cost"]),
                               dims=("generation", "quarter"))
    survival = survival_per_quarter(params["useful_life"], xp=pt)
    fleet = pm.Deterministic("fleet", fleet_stock(shipped, survival, xp=pt, length=len(timeline)),
                             dims=("generation", "quarter"))
    mean_fleet = average_fleet(fleet, pt.zeros_like(fleet[:, :1]), xp=pt)
    prices = chip_hour_prices(params["effective_price"], _compute_ratio(generations),
                              params["price_elasticity"], params["price_decline"], years, xp=pt)
    revenue = pm.Deterministic(
        "rental_revenue", rental_revenue(mean_fleet, params["billed_utilisation"], prices),
        dims="quarter")
    merchant = merchant_price_path(params["merchant_price"], params["merchant_price_decline"],
                                   years, xp=pt)
    pm.Deterministic("merchant_equivalent_value",
                     merchant_equivalent_value(shipped, _pflops(generations), merchant),
                     dims="quarter")
    return {"shipments": shipped, "fleet": fleet, "revenue": revenue, "prices": prices}


def _midpoints(generations: pd.DataFrame) -> np.ndarray:
    return np.array([quarter_index(str(q)) for q in generations["ramp_midpoint"]], dtype=float)


def _pflops(generations: pd.DataFrame) -> np.ndarray:
    return generations["fp8_dense_tflops"].to_numpy(float) / 1000.0


def _compute_ratio(generations: pd.DataFrame) -> np.ndarray:
    """Each generation's dense FP8 compute over the reference generation's."""
    pflops = _pflops(generations)
    ref = list(generations["generation"]).index(REFERENCE_GENERATION)
    return pflops / pflops[ref]


def _epoch_counts(cumulative: pd.DataFrame, timeline: list[str], shipped: Any) -> None:
    """Epoch's cumulative Trainium deployments: log of the chips shipped from ``start``
    through ``quarter`` (all generations), normal with the sd of Epoch's 5-95% band."""
    import pymc as pm
    import pytensor.tensor as pt

    if not len(cumulative):
        return
    index = {q: i for i, q in enumerate(timeline)}
    total = shipped.sum(axis=0)
    # Row k sums the quarters start_k..quarter_k: one matrix product.
    window = np.zeros((len(cumulative), len(timeline)))
    for k, row in enumerate(cumulative.itertuples(index=False)):
        window[k, index[row.start]:index[row.quarter] + 1] = 1.0
    pm.Normal("obs_cumulative", mu=pt.log(pt.dot(window, total)),
              sigma=cumulative["sd_log"].to_numpy(), observed=np.log(cumulative["value"]))


def _statements(statements: pd.DataFrame, timeline: list[str], generations: pd.DataFrame,
                flows: Mapping[str, Any], params: Mapping[str, Any]) -> None:
    """Amazon's statements as soft bounds (:data:`STATEMENT_SOFTNESS`) on the quantity each
    observes: the run rate (4 x the quarter's revenue), the Trainium2 fleet, the billed
    utilisation, the Trainium1 price. One vectorised term per quantity and kind of bound
    (a term per statement makes the gradient's graph slow to compile)."""
    import pymc as pm
    import pytensor.tensor as pt

    index = {q: i for i, q in enumerate(timeline)}
    names = list(generations["generation"])
    series = {
        "rental_run_rate": lambda: pt.log(4.0 * flows["revenue"]),
        "trainium2_fleet": lambda: pt.log(flows["fleet"][names.index("Trainium2")]),
        "billed_utilisation": lambda: pt.log(params["billed_utilisation"]) * pt.ones(
            len(timeline)),
        "trainium1_price": lambda: pt.log(flows["prices"][names.index("Trainium1")]),
    }
    for (observes, kind), rows in statements.groupby(["observes", "kind"], sort=True):
        if observes not in series:
            continue
        idx = np.array([index[q] for q in rows["quarter"]])
        log_value = series[observes]()[idx]
        pm.Potential(f"statement_{observes}_{kind}",
                     _soft_bound(log_value, kind, rows["lower"].to_numpy(float),
                                 rows["upper"].to_numpy(float)).sum())


def _soft_bound(log_value: Any, kind: str, lower: np.ndarray, upper: np.ndarray) -> Any:
    """Log probability of soft lower, upper or interval bounds on ``exp(log_value)``
    (elementwise)."""
    import pymc as pm

    std = pm.Normal.dist(0.0, 1.0)
    s = STATEMENT_SOFTNESS
    if kind == "lower":
        return pm.logcdf(std, (log_value - np.log(lower)) / s)
    if kind == "upper":
        return pm.logcdf(std, (np.log(upper) - log_value) / s)
    high = pm.logcdf(std, (np.log(upper) - log_value) / s)
    low = pm.logcdf(std, (np.log(lower) - log_value) / s)
    return pm.math.logdiffexp(high, low)
