"""Forecast paths of AWS's fleet and its three quantities (M5; numpy only).

:func:`aws_silicon_paths` continues the fitted fleet over the spend model's own AWS spend
paths (USD bn per quarter), path by path with the posterior sample behind each. Every path
obeys the model's identities:
``shipments x unit cost = spend``, ``fleet(t) = fleet(t-1) x survival + shipments(t)``,
``rental revenue = sum_g mean fleet x hours x billed utilisation x price``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_index
from forecast.core.errors import ForecastError
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
from forecast.models.spend.statements import MIX_WIDTH, REFERENCE_GENERATION

#: Units of the paths :func:`aws_silicon_paths` returns.
PATH_UNITS: dict[str, str] = {
    "spend_at_cost": "USD billions per quarter",
    "shipments": "chips per quarter (draw, quarter, generation)",
    "shipments_total": "chips per quarter",
    "fleet": "chips in service at quarter end (draw, quarter, generation)",
    "fleet_total": "chips in service at quarter end",
    "chip_hour_price": "USD per chip-hour (draw, quarter, generation)",
    "billed_utilisation": "share of chip-hours billed",
    "rental_revenue": "USD billions per quarter",
    "rental_run_rate": "USD billions per year (4 x the quarter)",
    "merchant_equivalent_value": "USD billions per quarter",
    "merchant_price": "USD per dense FP8 PFLOP of NVIDIA's compute (draw, quarter)",
    "pflops": "dense FP8 PFLOPS per chip (draw, generation)",
    "utilisation_ratio": "AWS's MFU over NVIDIA's",
    "unit_cost": "USD per chip at cost (draw, generation)",
    "survival": "share of the fleet in service after a quarter (draw,)",
}

#: Posterior parameters a forecast reads, besides the unit costs and the fleet.
PATH_PARAMETERS = ("useful_life", "effective_price", "price_elasticity", "price_decline",
                   "billed_utilisation", "merchant_price", "merchant_price_decline")


def _per_draw(value: Any, n: int) -> np.ndarray:
    """A roadmap value as (draw,) floats: a quarter label becomes its quarter index."""
    if isinstance(value, str):
        value = quarter_index(value)
    values = np.asarray(value)
    if values.dtype.kind in "US":
        values = np.array([quarter_index(str(v)) for v in values.ravel()])
    return np.broadcast_to(values.astype(float), (n,)).copy()


def generation_arrays(fitted: pd.DataFrame, unit_cost: np.ndarray, extra: Any = None
                      ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Generations of a forecast: the fit's, then ``extra`` ones (a scenario's roadmap).

    Parameters
    ----------
    fitted
        The fit's generations (generation, ramp_midpoint, fp8_dense_tflops).
    unit_cost
        Their unit costs (draw, generation), USD per chip.
    extra
        None, a DataFrame or a sequence of mappings with generation, ramp_midpoint (a quarter
        label, or quarter indices per draw), fp8_dense_tflops and cost_ratio, each a number
        or an array (draw,): a new generation's unit cost is ``cost_ratio`` x the previous
        generation's, draw by draw; uncertain launch dates and specs vary by draw.

    Returns
    -------
    names, ramp midpoints (draw, generation) as quarter indices, dense FP8 PFLOPS (draw,
    generation), unit costs (draw, generation).
    """
    n = unit_cost.shape[0]
    names = [str(g) for g in fitted["generation"]]
    midpoints = [_per_draw(q, n) for q in fitted["ramp_midpoint"]]
    pflops = [_per_draw(v / 1000.0, n) for v in fitted["fp8_dense_tflops"].to_numpy(float)]
    costs = [unit_cost[:, g] for g in range(unit_cost.shape[1])]
    rows = extra.to_dict("records") if isinstance(extra, pd.DataFrame) else list(extra or [])
    for row in rows:
        if str(row["generation"]) in names:
            raise ForecastError(f"spend model: AWS generation {row['generation']} is already "
                                "fitted")
        names.append(str(row["generation"]))
        midpoints.append(_per_draw(row["ramp_midpoint"], n))
        pflops.append(_per_draw(row["fp8_dense_tflops"], n) / 1000.0)
        costs.append(costs[-1] * _per_draw(row["cost_ratio"], n))
    return names, np.stack(midpoints, 1), np.stack(pflops, 1), np.stack(costs, 1)


def _forecast_quarters(quarters: Sequence[str], data_end: str, n_spend: int) -> np.ndarray:
    """Quarter indices of the forecast: consecutive, from the quarter after ``data_end``."""
    t = np.array([quarter_index(str(q)) for q in quarters])
    if len(t) != n_spend:
        raise ForecastError(f"spend model: {n_spend} spend quarters for {len(t)} labels")
    if len(t) == 0 or t[0] != quarter_index(data_end) + 1 or np.any(np.diff(t) != 1):
        raise ForecastError("spend model: AWS forecast quarters must be consecutive and start "
                            f"right after the data end {data_end} (the fleet needs each one)")
    return t


def aws_silicon_paths(params: dict[str, Any], spend_paths: np.ndarray,
                      quarters: Sequence[str], generations: Any = None, ceiling: Any = None,
                      utilisation_ratio: Any = 1.0, merchant_price: Any = None
                      ) -> dict[str, np.ndarray]:
    """Joint paths of shipments, fleet, spend at cost, rental revenue and merchant value.

    Parameters
    ----------
    params
        One posterior sample per path (:meth:`~forecast.models.spend.fitted.FittedSpend.
        path_parameters`): :data:`PATH_PARAMETERS` (draw,), ``unit_cost`` and ``fleet_end``
        (draw, generation), ``generations`` (the fit's) and ``data_end``.
    spend_paths
        AWS accelerator spend at cost, USD bn per quarter, (draw, quarter).
    quarters
        Labels of the spend columns: consecutive, from the quarter after the data end.
    generations
        Generations beyond the fit (a scenario's roadmap: generation, ramp_midpoint,
        fp8_dense_tflops, cost_ratio, numbers or per-draw arrays); see
        :func:`generation_arrays`.
    ceiling
        Rental revenue ceiling, USD bn per quarter, broadcastable to (draw, quarter): billed
        utilisation is lowered where the fleet would otherwise earn more
        (:func:`cap_utilisation`). None: no cap.
    utilisation_ratio
        AWS's MFU over NVIDIA's, per path (draw,) or one number: the merchant-equivalent
        value is of the shipments' *effective* compute.
    merchant_price
        NVIDIA's price per dense FP8 PFLOP (draw, quarter), USD: a forecast's cost paths,
        so that the merchant value reads the prices the shares are driven by. None: the
        fit's ``merchant_price`` falling at ``merchant_price_decline``.

    Returns
    -------
    dict of numpy.ndarray
        The keys and units of :data:`PATH_UNITS`, plus ``generations`` (names).
    """
    spend = np.asarray(spend_paths, dtype=float)
    t = _forecast_quarters(quarters, params["data_end"], spend.shape[1])
    p = {name: np.asarray(params[name], dtype=float) for name in PATH_PARAMETERS}
    names, midpoints, pflops, unit_cost = generation_arrays(
        params["generations"], np.asarray(params["unit_cost"], dtype=float), generations)
    start = np.zeros((spend.shape[0], len(names)))
    start[:, :params["fleet_end"].shape[1]] = np.asarray(params["fleet_end"])
    shipped = shipments(spend, generation_mix(t, midpoints, MIX_WIDTH), unit_cost)
    survival = survival_per_quarter(p["useful_life"])
    fleet = fleet_stock(shipped, survival, initial=start)
    mean_fleet = average_fleet(fleet, start[..., None])
    ref = pflops[:, names.index(REFERENCE_GENERATION)][:, None]
    years = (t - quarter_index(params["data_end"])) / 4.0
    prices = chip_hour_prices(p["effective_price"], pflops / ref, p["price_elasticity"],
                              p["price_decline"], years)
    capacity = rental_revenue(mean_fleet, 1.0, prices)
    utilisation = cap_utilisation(capacity, p["billed_utilisation"][:, None], ceiling)
    revenue = capacity * utilisation
    if merchant_price is None:
        merchant = merchant_price_path(p["merchant_price"], p["merchant_price_decline"], years)
    else:
        merchant = np.asarray(merchant_price, dtype=float)
        if merchant.shape != spend.shape or not (np.isfinite(merchant) & (merchant > 0)).all():
            raise ForecastError(f"merchant_price must be {spend.shape} positive prices (draw, "
                                "quarter)")
    ratio = np.broadcast_to(np.asarray(utilisation_ratio, dtype=float), (spend.shape[0],))
    return {
        "spend_at_cost": spend, "shipments": shipped.transpose(0, 2, 1),
        "shipments_total": shipped.sum(axis=1), "fleet": fleet.transpose(0, 2, 1),
        "fleet_total": fleet.sum(axis=1), "chip_hour_price": prices.transpose(0, 2, 1),
        "billed_utilisation": utilisation, "rental_revenue": revenue,
        "rental_run_rate": 4.0 * revenue,
        "merchant_equivalent_value": merchant_equivalent_value(shipped, pflops, merchant,
                                                               ratio),
        "merchant_price": merchant, "utilisation_ratio": ratio,
        "unit_cost": unit_cost, "survival": survival, "pflops": pflops,
        "generations": np.asarray(names, dtype=object),
    }


def cap_utilisation(capacity_revenue: np.ndarray, utilisation: Any, ceiling: Any = None
                    ) -> np.ndarray:
    """Billed utilisation (draw, quarter) that keeps rental revenue within ``ceiling``.

    ``capacity_revenue`` is what the fleet would earn fully billed (USD bn per quarter);
    where ``utilisation x capacity`` exceeds the ceiling, utilisation becomes
    ``ceiling / capacity``: AWS cannot bill more than its customers spend, so a fleet
    bought ahead of demand stands partly idle. The revenue identity still holds path by path.
    """
    base = np.broadcast_to(np.asarray(utilisation, dtype=float), capacity_revenue.shape)
    if ceiling is None:
        return base.copy()
    limit = np.broadcast_to(np.asarray(ceiling, dtype=float), capacity_revenue.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(capacity_revenue > 0, limit / capacity_revenue, np.inf)
    return np.minimum(base, room)
