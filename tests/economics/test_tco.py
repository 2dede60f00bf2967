"""Tests of forecast.economics.tco: owner TCO against hand arithmetic and loops."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from forecast.economics.checks import EconomicsInputError
from forecast.economics.tco import owner_tco_per_chip_hour

# ------------------------------------------------------------------ owner TCO


def test_owner_tco_hand_value() -> None:
    capex, life, used, tdp, pue, tariff, overhead = 33600.0, 4.0, 0.7, 700.0, 1.3, 0.08, 0.15
    capex_hour = 33600.0 / (4.0 * 365 * 24 * 0.7)
    power_hour = 0.7 * 1.3 * 0.08  # kW x PUE x $/kWh
    expected = (capex_hour + power_hour) * 1.15
    got = owner_tco_per_chip_hour(capex, life, used, tdp, pue, tariff, overhead)
    assert_allclose(got, expected)


def test_owner_tco_broadcasts_over_draws_and_chips() -> None:
    rng = np.random.default_rng(1)
    draws = 20
    capex = np.array([15000.0, 33600.0, 20000.0])  # per chip
    tdp = np.array([400.0, 700.0, 500.0])
    life = rng.uniform(3.0, 6.0, size=(draws, 1))
    used = rng.uniform(0.4, 0.9, size=(draws, 1))
    pue = rng.uniform(1.1, 1.5, size=(draws, 1))
    tariff = rng.uniform(0.04, 0.15, size=(draws, 1))
    overhead = rng.uniform(0.0, 0.4, size=(draws, 1))
    out = owner_tco_per_chip_hour(capex, life, used, tdp, pue, tariff, overhead)
    assert out.shape == (draws, 3)
    for d in range(draws):
        for c in range(3):
            hand = (
                capex[c] / (life[d, 0] * 8760 * used[d, 0])
                + tdp[c] / 1000 * pue[d, 0] * tariff[d, 0]
            ) * (1 + overhead[d, 0])
            assert_allclose(out[d, c], hand)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"pue": 0.9},
        {"life_years": 0.0},
        {"owner_utilisation": 0.0},
        {"owner_utilisation": 1.2},
        {"capex_usd": -1.0},
        {"usd_per_kwh": -0.1},
        {"overhead_fraction": -0.5},
    ],
)
def test_owner_tco_rejects_bad_inputs(kwargs: dict) -> None:
    args = {
        "capex_usd": 10000.0,
        "life_years": 4.0,
        "owner_utilisation": 0.7,
        "tdp_w": 500.0,
        "pue": 1.2,
        "usd_per_kwh": 0.1,
        "overhead_fraction": 0.1,
    }
    args.update(kwargs)
    with pytest.raises(EconomicsInputError):
        owner_tco_per_chip_hour(**args)
