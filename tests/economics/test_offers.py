"""Tests of forecast.economics.offers: best offer per vendor with new chips ramping in."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from chip_table import NAN, TRN2_LABEL, UTIL
from numpy.testing import assert_allclose, assert_array_equal

from forecast.core.calendar import period_index
from forecast.core.errors import ForecastError
from forecast.economics.checks import EconomicsInputError
from forecast.economics.offers import DEFAULT_RAMP_QUARTERS, best_offer, vendor_offers
from forecast.economics.tables import economics_table

# ------------------------------------------------------------------ best offer


def _reference_best_offer(release, cost, codes, q, ramp, n_vendors):
    """Plain-Python reference of the ramp-weighted best offer."""
    draws, chips = cost.shape
    best = np.full((draws, n_vendors), np.nan)
    index = np.full((draws, n_vendors), -1)
    for d in range(draws):
        for v in range(n_vendors):
            avail = [
                c
                for c in range(chips)
                if codes[c] == v
                and not math.isnan(release[d, c])
                and release[d, c] <= q
                and not math.isnan(cost[d, c])
            ]
            old = [c for c in avail if q - release[d, c] >= ramp]
            old_best = min((cost[d, c] for c in old), default=None)
            offers = {}
            for c in avail:
                age = q - release[d, c]
                if age >= ramp or old_best is None:
                    offers[c] = cost[d, c]
                else:
                    w = (age + 1) / (ramp + 1)
                    offers[c] = w * cost[d, c] + (1 - w) * old_best
            if offers:
                chip = min(offers, key=lambda c: (offers[c], c))
                best[d, v] = offers[chip]
                index[d, v] = chip
    return best, index


def test_best_offer_never_picks_unreleased_chip() -> None:
    release = np.array([8000, 8010])  # chip 1 is cheaper but launches later
    cost = np.array([[10.0, 1.0]])
    best, idx = best_offer(release, cost, np.array([0, 0]), 8005)
    assert_array_equal(best, [[10.0]])
    assert_array_equal(idx, [[0]])


def test_best_offer_ramp_weight_hand_values() -> None:
    release = np.array([8000, 8010])  # older chip cost 10, new chip cost 4
    cost = np.array([[10.0, 4.0]])
    codes = np.array([0, 0])
    # ramp 2: weight 1/3 at launch, 2/3 one quarter later, full after two quarters
    best0, idx0 = best_offer(release, cost, codes, 8010, ramp_quarters=2)
    assert_allclose(best0, [[1 / 3 * 4.0 + 2 / 3 * 10.0]])  # = 8
    assert_array_equal(idx0, [[1]])
    best1, _ = best_offer(release, cost, codes, 8011, ramp_quarters=2)
    assert_allclose(best1, [[2 / 3 * 4.0 + 1 / 3 * 10.0]])  # = 6
    best2, _ = best_offer(release, cost, codes, 8012, ramp_quarters=2)
    assert_allclose(best2, [[4.0]])
    no_ramp, _ = best_offer(release, cost, codes, 8010, ramp_quarters=0)
    assert_allclose(no_ramp, [[4.0]])


def test_best_offer_dear_new_chip_does_not_raise_offer() -> None:
    best, idx = best_offer(np.array([8000, 8010]), np.array([[5.0, 9.0]]), np.array([0, 0]), 8010)
    assert_allclose(best, [[5.0]])
    assert_array_equal(idx, [[0]])


def test_best_offer_new_chip_without_older_is_its_own_cost() -> None:
    best, idx = best_offer(np.array([8010]), np.array([[4.0]]), np.array([0]), 8010)
    assert_allclose(best, [[4.0]])
    assert_array_equal(idx, [[0]])


def test_best_offer_per_draw_launch_quarters() -> None:
    # chip 0: vendor 0, old; chip 1: vendor 0 future chip launching at a per-draw quarter
    release = np.array(
        [
            [8000.0, 8004.0],  # launched long ago in draw 0: fully ramped
            [8000.0, 8020.0],  # not yet launched in draw 1
            [8000.0, np.nan],  # never launched in draw 2
            [8000.0, 8010.0],  # launch quarter in draw 3: ramping
        ]
    )
    cost = np.array([[10.0, 4.0]] * 4)
    best, idx = best_offer(release, cost, np.array([0, 0]), 8010, ramp_quarters=2)
    assert_allclose(best[:, 0], [4.0, 10.0, 10.0, 8.0])
    assert_array_equal(idx[:, 0], [1, 0, 0, 1])


def test_best_offer_nan_for_vendor_without_chip() -> None:
    release = np.array([8000, 8020, 8000])
    cost = np.array([[3.0, 2.0, NAN]])
    codes = np.array([0, 1, 2])
    best, idx = best_offer(release, cost, codes, 8010, n_vendors=4)
    assert best.shape == (1, 4)
    assert best[0, 0] == 3.0
    assert np.isnan(best[0, 1])  # only chip not yet released
    assert np.isnan(best[0, 2])  # only chip has no price (NaN cost = no offer)
    assert np.isnan(best[0, 3])  # no chip at all
    assert_array_equal(idx, [[0, -1, -1, -1]])


def test_best_offer_matches_python_reference() -> None:
    rng = np.random.default_rng(7)
    draws, chips, vendors = 40, 9, 4
    codes = rng.integers(0, vendors - 1, size=chips)  # last vendor has no chip
    release = rng.integers(8000, 8016, size=(draws, chips)).astype(float)
    release[rng.random((draws, chips)) < 0.1] = np.nan
    cost = rng.uniform(1.0, 20.0, size=(draws, chips))
    cost[rng.random((draws, chips)) < 0.1] = np.nan
    for ramp in (0, 1, 2, 3):
        for q in (7999, 8005, 8010, 8015):
            best, idx = best_offer(release, cost, codes, q, ramp_quarters=ramp, n_vendors=vendors)
            ref_best, ref_idx = _reference_best_offer(release, cost, codes, q, ramp, vendors)
            assert_allclose(best, ref_best)
            assert_array_equal(idx, ref_idx)


def test_best_offer_accepts_quarter_strings_and_single_draw() -> None:
    release = np.array([period_index("2024Q4"), period_index("2022Q3")])
    best, idx = best_offer(release, np.array([5.0, 9.0]), np.array([0, 1]), "2025Q4")
    assert best.shape == (2,)
    assert_allclose(best, [5.0, 9.0])
    assert_array_equal(idx, [0, 1])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"cost": np.ones((2, 2, 2))},
        {"release_qidx": np.ones(3)},
        {"vendor_codes": np.array([0.0, 1.0])},
        {"vendor_codes": np.array([0, -1])},
        {"ramp_quarters": -1},
        {"cost": np.array([[1.0, -2.0]])},
        {"n_vendors": 1},
    ],
)
def test_best_offer_rejects_bad_inputs(kwargs: dict) -> None:
    args = {
        "release_qidx": np.array([8000, 8001]),
        "cost": np.array([[1.0, 2.0]]),
        "vendor_codes": np.array([0, 1]),
        "quarter_qidx": 8005,
        "ramp_quarters": 2,
    }
    args.update(kwargs)
    with pytest.raises(EconomicsInputError):
        best_offer(**args)


def test_vendor_offers_point_estimate(accelerators: pd.DataFrame) -> None:
    table = economics_table(accelerators, UTIL, prices={"Trainium2": (4.80, TRN2_LABEL)})
    costs = table.set_index("chip")["cost_per_effective_pflop_hour"]
    offers = vendor_offers(accelerators, "2025Q1", costs).set_index("vendor_group")
    assert list(offers.index) == ["amd", "aws", "google", "nvidia"]
    # H100 (2022Q3) is cheaper per effective PFLOP-hour than A100 and fully ramped
    assert offers.loc["nvidia", "chip"] == "H100 SXM5 80GB"
    assert_allclose(offers.loc["nvidia", "cost"], 12.29 / (1.979 * 0.4))
    # Trainium2 launched 2024Q4: one quarter old, no older AWS chip, so its own cost
    assert offers.loc["aws", "chip"] == "Trainium2"
    assert_allclose(offers.loc["aws", "cost"], 4.80 / (1.299 * 0.3))
    assert pd.isna(offers.loc["amd", "chip"])  # MI300X has no price
    assert np.isnan(offers.loc["amd", "cost"])
    before = vendor_offers(accelerators, pd.Period("2024Q3", freq="Q-DEC"), costs)
    assert np.isnan(before.set_index("vendor_group").loc["aws", "cost"])


def test_vendor_offers_without_release_quarter_uses_release_date(accelerators) -> None:
    costs = pd.Series({"A100 SXM4 40GB": 2.0, "H100 SXM5 80GB": 1.0})
    frame = accelerators.drop(columns=["release_quarter"])
    offers = vendor_offers(frame, "2022Q3", costs, ramp_quarters=2).set_index("vendor_group")
    # H100 launches in 2022Q3: weight 1/3 against the A100
    assert_allclose(offers.loc["nvidia", "cost"], 1 / 3 * 1.0 + 2 / 3 * 2.0)


def test_vendor_offers_rejects_unknown_chip(accelerators: pd.DataFrame) -> None:
    with pytest.raises(ForecastError, match="not in accelerators"):
        vendor_offers(accelerators, "2025Q1", pd.Series({"Trainium9": 1.0}))


# ------------------------------------------------------------------ quarter index


def test_quarter_index_conventions() -> None:
    assert period_index("2025Q4") == 2025 * 4 + 3
    assert period_index(pd.Period("2025Q1", freq="Q-DEC")) == 2025 * 4
    assert period_index(pd.Period("2025-11", freq="M")) == 2025 * 4 + 3
    assert period_index(pd.Timestamp("2024-12-01")) == 2024 * 4 + 3
    with pytest.raises(ForecastError):
        period_index("not a quarter")


def test_default_ramp_is_two_quarters_and_the_chips_surface_keeps_it() -> None:
    from forecast.economics import chips

    assert DEFAULT_RAMP_QUARTERS == 2
    assert chips.best_offer is best_offer and chips.DEFAULT_RAMP_QUARTERS == 2
    release, cost, codes = np.array([8000, 8010]), np.array([[10.0, 4.0]]), np.array([0, 0])
    assert_array_equal(best_offer(release, cost, codes, 8010),
                       best_offer(release, cost, codes, 8010, ramp_quarters=2))
