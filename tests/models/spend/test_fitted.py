"""FittedSpend's forecasts (forecast.models.spend.fitted) on the shipped base fit."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.core.errors import ForecastError


def test_a_given_price_decline_scales_the_fleets_revenue_path_by_path(spend) -> None:
    """AWS's rental prices fall by the ``price_decline`` a forecast gives (the cost paths'
    rate from the price model): uncapped, every generation's price per chip-hour, hence the
    revenue, is the same fleet's at no decline times exp(-decline x years)."""
    draws, horizon = 500, 8
    decline = np.random.default_rng(5).uniform(0.0, 0.3, draws)
    flat = spend.forecast(horizon, draws=draws, seed=2, price_decline=np.zeros(draws))
    falling = spend.forecast(horizon, draws=draws, seed=2, price_decline=decline)
    years = np.arange(1, horizon + 1) / 4.0
    expected = flat["aws_rental_revenue"].values * np.exp(-decline[:, None] * years[None, :])
    np.testing.assert_allclose(falling["aws_rental_revenue"].values, expected, rtol=1e-10)
    np.testing.assert_array_equal(falling["aws_fleet"].values, flat["aws_fleet"].values)
    own = spend.forecast(horizon, draws=draws, seed=2)  # the fit's own price_decline
    assert not np.allclose(own["aws_rental_revenue"].values, expected)
    with pytest.raises(ForecastError, match="one per path"):
        spend.forecast(horizon, draws=draws, seed=2, price_decline=decline[:-1])
