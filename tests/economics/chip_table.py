"""A small accelerator catalogue of the data layer's shape, for the economics tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

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


def catalogue_frame(rows: list[tuple] = _ROWS) -> pd.DataFrame:
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


UTIL = {"nvidia": 0.4, "aws": 0.3, "amd": 0.35, "google": 0.45}
TRN2_LABEL = "scenario base: trainium2_price_usd_per_chip_hour (median)"


def price_decay(inputs: pd.DataFrame, rate: float = -0.08) -> dict[str, np.ndarray]:
    """M2's yearly log price change per vendor group as the cost paths read it, one value per
    row of ``inputs``: a constant ``rate`` for the tests that do not read a price fit."""
    groups = ("nvidia", "amd", "google", "aws", "other", "other_custom")
    return {group: np.full(len(inputs), rate) for group in groups}
