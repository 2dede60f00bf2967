"""The AWS silicon model's math: numpy against loops and against PyTensor; caps; Graviton."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from forecast.models.aws_silicon.graviton import custom_chips_run_rate, graviton_run_rate_paths
from forecast.models.aws_silicon.math import (
    HOURS_PER_QUARTER,
    average_fleet,
    chip_hour_prices,
    fleet_stock,
    generation_mix,
    merchant_equivalent_value,
    rental_revenue,
    shipments,
    survival_per_quarter,
)
from forecast.models.aws_silicon.paths import cap_utilisation, ceiling_breaches


def test_generation_mix_hands_spend_from_each_generation_to_the_next() -> None:
    t = np.arange(8088, 8120)  # 2022Q1 .. 2029Q4
    mix = generation_mix(t, np.array([8091.0, 8098.0, 8105.0]), 1.0)
    assert mix.shape == (3, len(t))
    assert_allclose(mix.sum(axis=0), 1.0)
    assert (mix > 0).all()
    # Each generation's share peaks after its midpoint and before the next one's.
    peaks = t[mix.argmax(axis=1)]
    assert peaks[0] < 8098 <= peaks[1] < 8105 <= peaks[2]
    # At a midpoint the new generation has about half of the spend.
    assert mix[1, t == 8098][0] == pytest.approx(0.5, abs=0.01)


def test_fleet_stock_is_the_recursion_with_a_starting_fleet() -> None:
    rng = np.random.default_rng(0)
    shipped = rng.uniform(0, 100, size=(5, 2, 9))
    survival = rng.uniform(0.9, 0.99, size=5)
    initial = rng.uniform(0, 500, size=(5, 2))
    fleet = fleet_stock(shipped, survival, initial=initial)
    expected = np.empty_like(shipped)
    previous = initial
    for i in range(9):
        previous = previous * survival[:, None] + shipped[:, :, i]
        expected[:, :, i] = previous
    assert_allclose(fleet, expected)
    # Without a start the first quarter's fleet is its shipments.
    assert_allclose(fleet_stock(shipped, survival)[:, :, 0], shipped[:, :, 0])


def test_useful_life_sets_the_quarterly_survival() -> None:
    # Mean life L years: a cohort halves in L ln 2 years.
    survival = survival_per_quarter(np.array([4.0, 5.0]))
    assert_allclose(survival ** (4 * np.array([4.0, 5.0]) * np.log(2)), 0.5)


def test_shipments_times_unit_cost_is_the_spend() -> None:
    spend = np.array([[1.0, 2.0, 3.0]])
    mix = generation_mix(np.arange(3), np.array([0.0, 1.0]), 1.0)
    cost = np.array([[5000.0, 10000.0]])
    shipped = shipments(spend, mix, cost)
    assert_allclose((shipped * cost[:, :, None]).sum(axis=1) / 1e9, spend)


def test_revenue_and_merchant_value_by_hand() -> None:
    fleet = np.array([[0.0, 2e5], [0.0, 1e5]])                 # 2 generations, 2 quarters
    mean = average_fleet(fleet, np.zeros((2, 1)))
    assert_allclose(mean, [[0.0, 1e5], [0.0, 5e4]])
    prices = chip_hour_prices(1.0, np.array([0.5, 1.0]), 1.0, 0.0, np.zeros(2))
    assert_allclose(prices, [[0.5, 0.5], [1.0, 1.0]])
    revenue = rental_revenue(mean, 0.8, prices)
    expected = (1e5 * 0.5 + 5e4 * 1.0) * HOURS_PER_QUARTER * 0.8 / 1e9
    assert_allclose(revenue, [0.0, expected])
    value = merchant_equivalent_value(fleet, np.array([0.19, 1.3]), np.array([7000.0, 7000.0]))
    assert_allclose(value, [0.0, (2e5 * 0.19 + 1e5 * 1.3) * 7000 / 1e9])


def test_numpy_and_pytensor_agree() -> None:
    import pytensor
    import pytensor.tensor as pt

    rng = np.random.default_rng(1)
    shipped = rng.uniform(0, 1e5, size=(3, 7))
    s = pt.dscalar("s")
    x = pt.dmatrix("x")
    stock = pytensor.function([x, s], fleet_stock(x, s, xp=pt, length=7))
    assert_allclose(stock(shipped, 0.95), fleet_stock(shipped, 0.95))
    p = pt.dscalar("p")
    prices = pytensor.function([p], chip_hour_prices(p, np.array([0.2, 1.0, 2.0]), 0.7, 0.1,
                                                     np.linspace(-2, 0, 7), xp=pt))
    assert_allclose(prices(1.3), chip_hour_prices(1.3, np.array([0.2, 1.0, 2.0]), 0.7, 0.1,
                                                  np.linspace(-2, 0, 7)))


def test_cap_lowers_utilisation_only_where_the_ceiling_binds() -> None:
    capacity = np.array([[10.0, 20.0, 40.0]])
    utilisation = cap_utilisation(capacity, 0.9, ceiling=np.array([30.0, 30.0, 30.0]))
    assert_allclose(utilisation, [[0.9, 0.9, 0.75]])
    assert ceiling_breaches(capacity * utilisation, 30.0) == 0
    assert ceiling_breaches(capacity * 0.9, 30.0) == 1
    assert_allclose(cap_utilisation(capacity, 0.9), 0.9)


def test_custom_chips_run_rate_adds_graviton() -> None:
    years = np.array([0.0, 1.0])
    graviton = graviton_run_rate_paths(np.array([10.0, 5.0]), np.array([0.2, 0.0]), years)
    assert_allclose(graviton, [[10.0, 10.0 * np.exp(0.2)], [5.0, 5.0]])
    total = custom_chips_run_rate(np.ones((2, 2)), graviton)
    assert_allclose(total, graviton + 1.0)
    with pytest.raises(ValueError):
        custom_chips_run_rate(np.ones((2, 3)), graviton)
