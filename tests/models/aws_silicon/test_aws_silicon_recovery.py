"""Slow: the AWS silicon model recovers the effective price and the retirement rate from data
simulated by its own math (seeded), where its priors alone would not."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.models.aws_silicon import DEFAULT_PRIORS, AwsSiliconModel, simulate_inputs
from forecast.models.aws_silicon.math import survival_per_quarter

pytestmark = pytest.mark.slow

#: Far from the priors' centres: useful life 3 years (prior median 5), effective price
#: USD 0.45 per Trainium2 chip-hour (prior median 1.0).
TRUTH = {"unit_cost": {"Trainium1": 4000.0, "Trainium2": 9000.0}, "useful_life": 3.0,
         "effective_price": 0.45, "price_elasticity": 0.7, "price_decline": 0.15,
         "billed_utilisation": 0.9}
# Measured: 40 s; price median 0.462 (90% 0.383-0.579), useful life 3.13 (2.60-3.79),
# max r_hat 1.02, 0 divergences.
SMALL = {"draws": 500, "tune": 500, "chains": 2, "random_seed": 5}


def _prior_band(name: str) -> tuple[float, float, float]:
    """(5%, 50%, 95%) of a lognormal default prior."""
    spec = DEFAULT_PRIORS[name]
    z = 1.6448536269514722
    return (spec["median"] * np.exp(-z * spec["sigma"]), spec["median"],
            spec["median"] * np.exp(z * spec["sigma"]))


@pytest.fixture(scope="module")
def recovered():
    inputs, paths = simulate_inputs(TRUTH, seed=0)
    return AwsSiliconModel().fit(inputs, **SMALL), paths


@pytest.mark.parametrize("name", ["effective_price", "useful_life"])
def test_recovers_price_and_life(recovered, name) -> None:
    fitted, _ = recovered
    truth = TRUTH[name]
    low, median, high = np.quantile(fitted.stacked(name), [0.05, 0.5, 0.95])
    prior_low, prior_median, prior_high = _prior_band(name)
    # The prior alone fails: its median is 65% or more from the truth.
    assert abs(prior_median - truth) > 0.6 * truth
    assert low < truth < high
    assert abs(median - truth) < 0.15 * truth
    # The data, not the prior, set the answer: a band under a third of the prior's.
    assert high - low < 0.35 * (prior_high - prior_low)


def test_retirement_rate_and_fleet_follow(recovered) -> None:
    fitted, paths = recovered
    rate = 1.0 - survival_per_quarter(fitted.stacked("useful_life"))
    true_rate = 1.0 - survival_per_quarter(TRUTH["useful_life"])
    assert np.median(rate) == pytest.approx(true_rate, rel=0.15)
    fleet = fitted.stacked("fleet")[:, 1, -1]                  # Trainium2, last quarter
    assert np.median(fleet) == pytest.approx(paths["fleet"][1, -1], rel=0.1)
    diagnostics = fitted.diagnostics()
    assert diagnostics["divergences"] == 0 and diagnostics["max_r_hat"] < 1.05
