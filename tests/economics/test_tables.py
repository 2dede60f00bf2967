"""Tests of forecast.economics.tables: the per-chip price-performance table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from chip_table import NAN, TRN2_LABEL, UTIL, catalogue_frame
from numpy.testing import assert_allclose

from forecast.core.errors import ForecastError
from forecast.economics.tables import DATA_PRICE_SOURCE, economics_table

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
    row = _row(economics_table(catalogue_frame(rows), {"other_custom": 0.3}), "MTIA v2")
    assert np.isnan(row["cost_per_effective_pflop_hour"])
    assert "no FP8 or BF16 figure" in row["note"]
    assert "no price in data or scenario" in row["note"]
