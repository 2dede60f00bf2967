"""The forecast reads the scenario's own [roadmap] and [price_erosion] tables."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest


@pytest.mark.slow
def test_a_scenario_without_nvidia_price_erosion_keeps_nvidia_costs_higher(shipped_store) -> None:
    """NVIDIA's erosion input replaced by one fixed at 0 (the [price_erosion] table of a user
    scenario) must leave NVIDIA's 2030 cost above the shipped scenario's: the table is read,
    not a shipped copy of it."""
    from forecast.pipeline.runner import load_run
    from forecast.pipeline.simulate import simulate

    scenario, dataset, bundle = load_run("base", root=shipped_store)
    inputs = scenario.sample(400, seed=3)
    inputs["no_erosion"] = 0.0
    flat = dataclasses.replace(scenario, price_erosion={**scenario.price_erosion,
                                                        "nvidia": "no_erosion"})
    shipped = simulate(bundle, dataset, scenario, draws=400, seed=3, inputs=inputs)
    held = simulate(bundle, dataset, flat, draws=400, seed=3, inputs=inputs)

    def nvidia_2030(result) -> np.ndarray:
        cost = result.data["vendor_cost"].sel(cost_vendor="nvidia")
        return cost.sel(quarter=[q for q in cost["quarter"].values
                                 if str(q).startswith("2030")]).mean("quarter").values

    ratio = np.median(nvidia_2030(held) / nvidia_2030(shipped))
    # Base erodes each chip's price by about 10% a year from its launch; by 2030 NVIDIA's best
    # offer is a chip launched in 2028-2030, so holding it flat lifts the cost by about 12%
    # (1.12 at this seed). Read from a shipped copy, the ratio would be exactly 1.
    assert ratio > 1.05
    other = held.data["vendor_cost"].sel(cost_vendor="amd").values
    np.testing.assert_allclose(other, shipped.data["vendor_cost"].sel(cost_vendor="amd").values)
