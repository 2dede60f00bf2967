"""Tests for forecast.economics.chips: formulas against hand arithmetic and numpy loops."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from forecast.core.calendar import period_index
from forecast.core.errors import ForecastError
from forecast.economics.chips import (
    DATA_PRICE_SOURCE,
    EconomicsInputError,
    best_offer,
    cost_per_effective_pflop_hour,
    dense_tflops_for,
    economics_table,
    effective_pflops,
    owner_tco_per_chip_hour,
    vendor_offers,
)

NAN = float("nan")

# Figures copied from /work/shared/data/accelerators.csv; they are test fixtures only.
_ROWS = [
    # vendor, group, chip, release, fp8, bf16, tdp, list price, cloud price
    ("NVIDIA", "nvidia", "A100 SXM4 40GB", "2020-05", NAN, 312.0, 400.0, 15000.0, 4.10),
    ("NVIDIA", "nvidia", "H100 SXM5 80GB", "2022-09", 1979.0, 989.4, 700.0, 33600.0, 12.29),
    ("AMD", "amd", "Instinct MI300X", "2023-12", 2614.9, 1307.4, 750.0, 15000.0, NAN),
    ("Google", "google", "TPU v5e", "2023-08", NAN, 197.0, 225.0, NAN, 1.20),
    ("AWS", "aws", "Trainium2", "2024-12", 1299.0, 667.0, 500.0, NAN, NAN),
]


def _frame(rows: list[tuple] = _ROWS) -> pd.DataFrame:
    """A small accelerators table of the data layer's shape."""
    dates = pd.to_datetime([r[3] + "-01" for r in rows])
    nan_col = [NAN] * len(rows)
    return pd.DataFrame(
        {
            "vendor": [r[0] for r in rows],
            "vendor_group": [r[1] for r in rows],
            "chip": [r[2] for r in rows],
            "release_date": dates,
            "release_quarter": pd.PeriodIndex(dates, freq="Q-DEC"),
            "process_nm": nan_col,
            "fp8_dense_tflops": [r[4] for r in rows],
            "bf16_dense_tflops": [r[5] for r in rows],
            "fp4_dense_tflops": nan_col,
            "hbm_gb": nan_col,
            "hbm_bandwidth_tbs": nan_col,
            "tdp_w": [r[6] for r in rows],
            "list_price_usd": [r[7] for r in rows],
            "cloud_on_demand_usd_per_chip_hour": [r[8] for r in rows],
            "notes": [""] * len(rows),
            "source": ["test fixture"] * len(rows),
            "confidence": ["verified"] * len(rows),
            "recalled": [False] * len(rows),
        }
    )


@pytest.fixture
def accelerators() -> pd.DataFrame:
    return _frame()


UTIL = {"nvidia": 0.4, "aws": 0.3, "amd": 0.35, "google": 0.45}
TRN2_LABEL = "scenario base: trainium2_price_usd_per_chip_hour (median)"


# ------------------------------------------------------------------ effective PFLOPS and cost


def test_effective_pflops_hand_value() -> None:
    assert_allclose(effective_pflops(1979.0, 0.4), 1.979 * 0.4)


def test_effective_pflops_broadcasts_draws_by_chips() -> None:
    tflops = np.array([1979.0, 1299.0])
    util = np.array([[0.3], [0.5], [0.4]])
    out = effective_pflops(tflops, util)
    assert out.shape == (3, 2)
    assert_allclose(out[1, 1], 1.299 * 0.5)


def test_cost_h100_hand_value() -> None:
    expected = 12.29 / (1.979 * 0.4)
    assert_allclose(cost_per_effective_pflop_hour(12.29, 1979.0, 0.4), expected)
    assert_allclose(expected, 15.5255, rtol=1e-4)


def test_cost_vectorised_matches_scalar_loop() -> None:
    rng = np.random.default_rng(0)
    draws, chips = 50, 4
    price = rng.uniform(0.5, 15.0, size=(draws, chips))
    tflops = rng.uniform(100.0, 3000.0, size=chips)
    util = rng.uniform(0.1, 0.9, size=(draws, 1))
    out = cost_per_effective_pflop_hour(price, tflops, util)
    expected = np.empty((draws, chips))
    for d in range(draws):
        for c in range(chips):
            expected[d, c] = float(
                cost_per_effective_pflop_hour(price[d, c], tflops[c], util[d, 0])
            )
            assert_allclose(expected[d, c], price[d, c] / (tflops[c] / 1000 * util[d, 0]))
    assert out.shape == (draws, chips)
    assert_allclose(out, expected)


def test_cost_nan_price_propagates() -> None:
    out = cost_per_effective_pflop_hour(np.array([12.29, NAN]), 1979.0, 0.4)
    assert np.isfinite(out[0])
    assert np.isnan(out[1])


def test_cost_nan_tflops_or_utilisation_is_nan_not_error() -> None:
    assert np.isnan(cost_per_effective_pflop_hour(1.0, NAN, 0.4))
    assert np.isnan(cost_per_effective_pflop_hour(1.0, 1000.0, NAN))


@pytest.mark.parametrize(
    ("price", "tflops", "util"),
    [
        (1.0, 0.0, 0.4),
        (1.0, -5.0, 0.4),
        (1.0, np.inf, 0.4),
        (1.0, 1000.0, 0.0),
        (1.0, 1000.0, 1.5),
        (-1.0, 1000.0, 0.4),
        (1.0, np.array([1000.0, 0.0]), 0.4),
    ],
)
def test_cost_rejects_impossible_inputs(price, tflops, util) -> None:
    with pytest.raises(ValueError):
        cost_per_effective_pflop_hour(price, tflops, util)
    with pytest.raises(ForecastError):
        cost_per_effective_pflop_hour(price, tflops, util)


def test_cost_rejects_shapes_that_do_not_broadcast() -> None:
    with pytest.raises(EconomicsInputError, match="broadcast"):
        cost_per_effective_pflop_hour(np.ones(3), np.ones(2) * 1000.0, 0.4)


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


# ------------------------------------------------------------------ precision


def test_precision_auto_picks_fp8_else_bf16(accelerators: pd.DataFrame) -> None:
    tflops, used = dense_tflops_for(accelerators, "auto")
    assert tflops["H100 SXM5 80GB"] == 1979.0
    assert used["H100 SXM5 80GB"] == "fp8"
    assert tflops["A100 SXM4 40GB"] == 312.0
    assert used["A100 SXM4 40GB"] == "bf16"
    assert list(tflops.index) == list(accelerators["chip"])


def test_precision_fp8_gives_nan_where_missing(accelerators: pd.DataFrame) -> None:
    tflops, used = dense_tflops_for(accelerators, "fp8")
    assert np.isnan(tflops["A100 SXM4 40GB"])
    assert used["A100 SXM4 40GB"] == "fp8"
    assert tflops["Trainium2"] == 1299.0


def test_precision_bf16(accelerators: pd.DataFrame) -> None:
    tflops, used = dense_tflops_for(accelerators, "bf16")
    assert tflops["H100 SXM5 80GB"] == 989.4
    assert set(used) == {"bf16"}


@pytest.mark.parametrize("bad", ["fp16", "", "sparse", None, 8])
def test_precision_invalid_raises(accelerators: pd.DataFrame, bad) -> None:
    with pytest.raises(ForecastError, match="precision"):
        dense_tflops_for(accelerators, bad)
    with pytest.raises(ForecastError, match="precision"):
        economics_table(accelerators, UTIL, precision=bad)


def test_duplicated_chip_rejected(accelerators: pd.DataFrame) -> None:
    doubled = pd.concat([accelerators, accelerators.iloc[[1]]], ignore_index=True)
    with pytest.raises(ForecastError, match="one row per chip"):
        dense_tflops_for(doubled)


# ------------------------------------------------------------------ economics table


def _row(table: pd.DataFrame, chip: str) -> pd.Series:
    rows = table[table["chip"] == chip]
    assert len(rows) == 1
    return rows.iloc[0]


def test_table_h100_and_trainium2_hand_values(accelerators: pd.DataFrame) -> None:
    table = economics_table(accelerators, UTIL, prices={"Trainium2": (4.80, TRN2_LABEL)})
    h100 = _row(table, "H100 SXM5 80GB")
    assert_allclose(h100["cost_per_effective_pflop_hour"], 12.29 / (1.979 * 0.4))
    assert_allclose(h100["effective_pflops"], 1.979 * 0.4)
    assert h100["price_source"] == DATA_PRICE_SOURCE
    assert h100["precision_used"] == "fp8"
    assert h100["note"] == ""
    trn2 = _row(table, "Trainium2")
    assert_allclose(trn2["cost_per_effective_pflop_hour"], 4.80 / (1.299 * 0.3))
    assert trn2["price_source"] == TRN2_LABEL
    assert trn2["price_usd_per_chip_hour"] == 4.80
    assert trn2["utilisation"] == 0.3


def test_table_columns_and_one_row_per_chip(accelerators: pd.DataFrame) -> None:
    table = economics_table(accelerators, UTIL)
    for column in [
        "chip",
        "vendor",
        "vendor_group",
        "release_date",
        "precision_used",
        "dense_tflops",
        "utilisation",
        "price_usd_per_chip_hour",
        "price_source",
        "cost_per_effective_pflop_hour",
        "note",
    ]:
        assert column in table.columns
    assert sorted(table["chip"]) == sorted(accelerators["chip"])


def test_table_sorted_by_vendor_then_release(accelerators: pd.DataFrame) -> None:
    shuffled = accelerators.sample(frac=1.0, random_state=3)
    table = economics_table(shuffled, UTIL)
    assert list(table["chip"]) == [
        "Instinct MI300X",
        "Trainium2",
        "TPU v5e",
        "A100 SXM4 40GB",
        "H100 SXM5 80GB",
    ]


def test_table_no_price_gives_nan_and_note(accelerators: pd.DataFrame) -> None:
    table = economics_table(accelerators, UTIL)
    for chip in ["Instinct MI300X", "Trainium2"]:
        row = _row(table, chip)
        assert np.isnan(row["price_usd_per_chip_hour"])
        assert np.isnan(row["cost_per_effective_pflop_hour"])
        assert "no price in data or scenario" in row["note"]
        assert row["price_source"] == "none"


def test_table_price_override_replaces_data_price(accelerators: pd.DataFrame) -> None:
    table = economics_table(accelerators, UTIL, prices={"H100 SXM5 80GB": (3.0, "scenario x")})
    row = _row(table, "H100 SXM5 80GB")
    assert_allclose(row["cost_per_effective_pflop_hour"], 3.0 / (1.979 * 0.4))
    assert row["price_source"] == "scenario x"
    assert "replaces data price 12.29" in row["note"]


def test_table_missing_group_utilisation(accelerators: pd.DataFrame) -> None:
    util = {k: v for k, v in UTIL.items() if k != "google"}
    table = economics_table(accelerators, util)
    tpu = _row(table, "TPU v5e")
    assert np.isnan(tpu["utilisation"])
    assert np.isnan(tpu["cost_per_effective_pflop_hour"])
    assert "no utilisation for group google" in tpu["note"]
    assert np.isfinite(_row(table, "H100 SXM5 80GB")["cost_per_effective_pflop_hour"])


def test_table_auto_fallback_and_fp8_mode_notes(accelerators: pd.DataFrame) -> None:
    auto = _row(economics_table(accelerators, UTIL), "A100 SXM4 40GB")
    assert auto["precision_used"] == "bf16"
    assert_allclose(auto["cost_per_effective_pflop_hour"], 4.10 / (0.312 * 0.4))
    assert "BF16 used" in auto["note"]
    fp8 = _row(economics_table(accelerators, UTIL, precision="fp8"), "A100 SXM4 40GB")
    assert np.isnan(fp8["dense_tflops"])
    assert np.isnan(fp8["cost_per_effective_pflop_hour"])
    assert "no FP8" in fp8["note"]


def test_table_recalled_row_flagged(accelerators: pd.DataFrame) -> None:
    accelerators.loc[accelerators["chip"] == "TPU v5e", "recalled"] = True
    row = _row(economics_table(accelerators, UTIL), "TPU v5e")
    assert "recalled" in row["note"]


def test_table_rejects_bad_inputs(accelerators: pd.DataFrame) -> None:
    with pytest.raises(ForecastError, match="unknown chip"):
        economics_table(accelerators, UTIL, prices={"Trainium 2": (4.8, "typo")})
    with pytest.raises(ForecastError, match="utilisation"):
        economics_table(accelerators, {**UTIL, "aws": 1.3})
    with pytest.raises(ForecastError, match="price"):
        economics_table(accelerators, UTIL, prices={"Trainium2": (-1.0, "neg")})
    with pytest.raises(ForecastError, match="label"):
        economics_table(accelerators, UTIL, prices={"Trainium2": (4.8, "")})
    with pytest.raises(ForecastError, match="missing column"):
        economics_table(accelerators.drop(columns=["vendor_group"]), UTIL)


def test_table_never_invents_a_price_when_everything_missing() -> None:
    rows = [("Meta", "other_custom", "MTIA v2", "2024-04", NAN, NAN, 90.0, NAN, NAN)]
    row = _row(economics_table(_frame(rows), {"other_custom": 0.3}), "MTIA v2")
    assert np.isnan(row["cost_per_effective_pflop_hour"])
    assert "no FP8 or BF16 figure" in row["note"]
    assert "no price in data or scenario" in row["note"]


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
