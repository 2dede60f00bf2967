"""The quarterly refit on the drop it exists for: new quarters after the last fitted one.

A drop with two new quarters of results for every reported revenue series (made up for the
test, plausible values) moves the revenue data's end on; the spend model is refitted under
every scenario, and the fit and its revision report are published under all three
scenarios, forecasting from one common start.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.pipeline.refit import REPORT_JSON, refit
from forecast.pipeline.runner import run_scenario

pytestmark = [pytest.mark.slow, pytest.mark.validation]

HEADER = ["company", "segment", "fiscal_period", "calendar_quarter_end", "published_date",
          "revenue_usd_billions", "value_qualifier", "source", "confidence", "notes"]
#: Made-up results for the two quarters after the shipped data (growth in line with 2025).
NEW_ROWS = [
    # The quarter the shipped data leave out (published after their 2025-10-31 cut-off).
    ("NVIDIA", "Data Center", "FY2026Q3", "2025-10-26", 48.5),
    ("NVIDIA", "Total revenue", "FY2026Q3", "2025-10-26", 54.5),
    ("NVIDIA", "Data Center - networking", "FY2026Q3", "2025-10-26", 8.1),
    ("AMD", "Data Center", "2025Q3", "2025-09-27", 4.5),
    ("AMD", "Total revenue", "2025Q3", "2025-09-27", 9.5),
    ("NVIDIA", "Data Center", "FY2026Q4", "2026-01-25", 56.0),
    ("NVIDIA", "Total revenue", "FY2026Q4", "2026-01-25", 62.0),
    ("NVIDIA", "Data Center - networking", "FY2026Q4", "2026-01-25", 8.9),
    ("NVIDIA", "Data Center", "FY2027Q1", "2026-04-26", 60.5),
    ("NVIDIA", "Total revenue", "FY2027Q1", "2026-04-26", 66.8),
    ("NVIDIA", "Data Center - networking", "FY2027Q1", "2026-04-26", 9.6),
    ("AMD", "Data Center", "2025Q4", "2025-12-27", 4.8),
    ("AMD", "Total revenue", "2025Q4", "2025-12-27", 9.9),
    ("AMD", "Data Center", "2026Q1", "2026-03-28", 5.1),
    ("AMD", "Total revenue", "2026Q1", "2026-03-28", 10.2),
    ("Broadcom", "AI semiconductor revenue", "FY2025Q4", "2025-11-02", 6.1),
    ("Broadcom", "AI semiconductor revenue", "FY2026Q1", "2026-02-01", 6.9),
    ("Amazon", "AWS segment", "2025Q4", "2025-12-31", 35.0),
    ("Amazon", "AWS segment", "2026Q1", "2026-03-31", 36.5),
]


@pytest.fixture
def store(seeded_store: Path) -> Path:
    return seeded_store


@pytest.fixture
def drop(tmp_path: Path) -> Path:
    folder = tmp_path / "drop"
    folder.mkdir()
    with (folder / "vendor_quarterly_revenue.csv").open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(HEADER)
        for company, segment, period, end, value in NEW_ROWS:
            # Released about 25 days after the quarter's end, as these companies report.
            published = (pd.Timestamp(end) + pd.Timedelta(days=25)).strftime("%Y-%m-%d")
            writer.writerow([company, segment, period, end, published, value, "=",
                             "made up for a test", "recalled", "test drop"])
    return folder


def test_a_drop_of_new_quarters_publishes_under_every_scenario(store, drop, loose_gate):
    small = {"draws": 300, "tune": 600, "chains": 2}
    result = refit(drop=drop, as_of="2026-05-31", root=store, sampler=small, gate=loose_gate,
                   report_draws=300)
    assert result.status == "published", result.bundle.meta.get("gate_failures")
    models = result.bundle.models
    spends = [key for key in models if key.startswith("spend-")]
    assert len(spends) == 3 and all(models[k].window[-1] >= "2026Q1" for k in spends)
    report = json.loads((result.directory / REPORT_JSON).read_text())
    rows = pd.DataFrame(report["rows"])
    assert set(rows["scenario"]) == {"base", "bull", "bear"}
    # Headline quantities all move on; the Trainium3 thesis over 2026 (2026Q1 now history, and
    # a cost ratio has no in-sample paths) has no probability.
    headline = rows[~rows["metric"].str.startswith("thesis:")]
    assert len(headline) and headline["new_q50"].notna().all()
    past = rows[rows["metric"] == "thesis:trainium3_half_cost"]
    assert len(past) == 3 and past["new_q50"].isna().all()
    for name in ("base", "bull", "bear"):
        forecast = run_scenario(name, root=store, draws=200)
        assert forecast.fit_id == result.bundle.fit_id
        quarters = [str(q) for q in forecast.data["quarter"].values]
        assert quarters[0] == "2026Q2"
        shares_sum = forecast.data["share"].sum("vendor").values
        assert abs(shares_sum - 1).max() < 1e-9
        total = forecast.data["spend"].sum("vendor").values
        np.testing.assert_allclose(forecast.data["tam"].values, total, rtol=1e-9)
