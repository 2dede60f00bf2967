"""AWS's fleet paths (M5): stock-and-flow identities and the merchant-equivalent value."""

from __future__ import annotations

import numpy as np
import pandas as pd

from forecast.models.spend.aws_paths import aws_silicon_paths
from forecast.models.spend.fleet_math import HOURS_PER_QUARTER

GENERATIONS = pd.DataFrame({"generation": ["Trainium1", "Trainium2", "Trainium3"],
                            "ramp_midpoint": [8091.0, 8102.0, 8106.0],
                            "fp8_dense_tflops": [190.0, 1299.0, 2517.0]})


def _params(n: int, rng: np.random.Generator) -> dict[str, object]:
    return {"useful_life": rng.uniform(4, 6, n), "effective_price": rng.uniform(0.5, 2.0, n),
            "price_elasticity": rng.uniform(0.5, 0.9, n), "price_decline": rng.uniform(0, 0.3, n),
            "billed_utilisation": rng.uniform(0.7, 0.95, n),
            "merchant_price": rng.uniform(4000, 12000, n),
            "merchant_price_decline": rng.uniform(0.1, 0.4, n),
            "unit_cost": rng.uniform(3000, 30000, (n, 3)),
            "fleet_end": rng.uniform(1e5, 1e6, (n, 3)), "generations": GENERATIONS,
            "data_end": "2025Q3"}


def consistency_errors(paths: dict[str, np.ndarray], start_fleet: np.ndarray
                       ) -> dict[str, float]:
    """Largest relative breach of each identity in ``paths`` (all ~0 for sound paths).

    ``spend``: shipments x unit cost against spend; ``fleet``: the stock recursion from
    ``start_fleet`` (draw, generation); ``revenue``: fleet x hours x utilisation x price.
    """
    shipped, fleet = paths["shipments"], paths["fleet"]
    cost = (shipped * paths["unit_cost"][:, None, :]).sum(axis=2) / 1e9
    spend = np.max(np.abs(cost / paths["spend_at_cost"] - 1.0))
    previous = np.concatenate([start_fleet[:, None, :], fleet[:, :-1, :]], axis=1)
    expected = previous * paths["survival"][:, None, None] + shipped
    stock = np.max(np.abs(fleet - expected) / np.maximum(expected, 1.0))
    mean_fleet = 0.5 * (previous + fleet)
    billed = (mean_fleet * HOURS_PER_QUARTER * paths["chip_hour_price"]).sum(axis=2)
    revenue = billed * paths["billed_utilisation"] / 1e9
    gap = np.max(np.abs(revenue - paths["rental_revenue"])
                 / np.maximum(paths["rental_revenue"], 1e-12))
    return {"spend": float(spend), "fleet": float(stock), "revenue": float(gap)}


def test_paths_keep_the_fleets_identities() -> None:
    rng = np.random.default_rng(1)
    params = _params(300, rng)
    spend = rng.uniform(1.0, 10.0, (300, 8))
    quarters = [f"{y}Q{q}" for y, q in [(2025, 4)] + [(2026, q) for q in range(1, 5)]
                + [(2027, q) for q in range(1, 4)]]
    paths = aws_silicon_paths(params, spend, quarters, utilisation_ratio=0.8)
    errors = consistency_errors(paths, params["fleet_end"])
    assert max(errors.values()) < 1e-9, errors


def test_merchant_value_is_above_spend_exactly_when_aws_compute_is_cheaper() -> None:
    # One generation at a time (the others' unit costs make no difference then): the
    # merchant-equivalent value exceeds the spend at cost iff AWS's capital cost per
    # effective PFLOP (unit cost / (dense PFLOPS x AWS MFU)) is below NVIDIA's merchant price
    # per effective PFLOP (price per dense PFLOP / NVIDIA's MFU).
    rng = np.random.default_rng(2)
    n = 2000
    params = _params(n, rng)
    one = GENERATIONS.iloc[[1]].reset_index(drop=True)
    params.update({"generations": one, "unit_cost": rng.uniform(3000, 30000, (n, 1)),
                   "fleet_end": np.zeros((n, 1))})
    ratio = rng.uniform(0.4, 1.2, n)
    spend = rng.uniform(1.0, 10.0, (n, 4))
    paths = aws_silicon_paths(params, spend, ["2025Q4", "2026Q1", "2026Q2", "2026Q3"],
                              utilisation_ratio=ratio)
    above = paths["merchant_equivalent_value"] >= paths["spend_at_cost"]
    aws_cost = params["unit_cost"][:, 0] / (1.299 * ratio)  # per effective PFLOP, u_nv = 1
    cheaper = aws_cost[:, None] <= paths["merchant_price"]
    np.testing.assert_array_equal(above, cheaper)
    assert 0.1 < cheaper.mean() < 0.9  # both cases occur
