"""Every default thesis evaluated on the session fit store (slow: it needs the fits).

Each gets a probability with its Monte Carlo error under bull, base and bear, and the value
it compares with its threshold is the one computed by hand from the paths and the in-sample
posterior beside them: the 2025 TAM (three fitted quarters and one forecast), AWS's share
gain from 2025, Trainium3 against NVIDIA's best part of each quarter on one basis, and the
run rates first reached by 2030Q4.
"""

from __future__ import annotations

import numpy as np
import pytest

from forecast.scenarios import load_scenario

pytestmark = pytest.mark.slow
SCENARIOS = ("bull", "base", "bear")
DRAWS = 1000


@pytest.fixture(scope="module")
def runs(shipped_store):
    from forecast.pipeline.runner import run_scenario

    return {name: run_scenario(name, draws=DRAWS, root=shipped_store) for name in SCENARIOS}


def test_every_default_thesis_has_a_probability_under_each_scenario(runs) -> None:
    for name, result in runs.items():
        table = result.theses().set_index("name")
        assert list(table.index) == list(load_scenario(name).theses)
        assert table["probability"].between(0, 1).all(), name
        assert (table["draws"] == DRAWS).all()
        assert "note" not in table or table["note"].isna().all()
        moving = table["probability"].between(0, 1, inclusive="neither")
        assert (table.loc[moving, "mcse"] > 0).all()


def test_the_2025_tam_reads_the_fitted_quarters_and_the_first_forecast(runs) -> None:
    result = runs["base"]
    past = result.in_sample["tam"].sel(quarter=["2025Q1", "2025Q2", "2025Q3"]).values
    tam_2025 = past.sum(axis=1) + result.data["tam"].sel(quarter="2025Q4").values
    row = result.theses().set_index("name").loc["tam_2025_at_most_50b"]
    assert row["probability"] == pytest.approx(np.mean(tam_2025 <= 50.0))
    assert row["metric_q50"] == pytest.approx(np.median(tam_2025))
    assert not isinstance(row.get("first_reached"), dict)  # a past year is not "reached"


def test_the_aws_share_gain_is_2030_less_2025_path_by_path(runs) -> None:
    result = runs["base"]
    aws = result.data["share"].sel(vendor="aws")
    past = result.in_sample["share"].sel(vendor="aws", quarter=["2025Q1", "2025Q2", "2025Q3"])
    share_2025 = (past.sum("quarter").values + aws.sel(quarter="2025Q4").values) / 4
    share_2030 = aws.sel(quarter=[f"2030Q{k}" for k in range(1, 5)]).mean("quarter").values
    table = result.theses().set_index("name")
    for name, points in (("aws_share_gain_3pts_2025_2030", 0.03),
                         ("aws_share_gain_5pts_2025_2030", 0.05)):
        assert table.loc[name, "probability"] == pytest.approx(
            np.mean(share_2030 - share_2025 >= points))


def test_trainium3_is_set_against_nvidias_best_part_on_one_basis(runs) -> None:
    result = runs["base"]
    quarters = [f"2026Q{k}" for k in range(1, 5)]
    own = result.data["owner_cost_per_pflop_hour"].sel(quarter=quarters)
    best = result.data["vendor_cost"].sel(cost_vendor="nvidia", quarter=quarters)
    ratio = (own.sel(chip="Trainium3") / best).mean("quarter").values
    table = result.theses().set_index("name")
    assert table.loc["trainium3_half_cost", "probability"] == pytest.approx(
        np.mean(ratio <= 0.5))
    assert table.loc["trainium3_cost_at_most_70pct", "probability"] == pytest.approx(
        np.mean(ratio <= 0.7))
    # NVIDIA's best part of 2026 is never dearer than a fully ramped B200 (nor an H100).
    for chip in ("B200", "H100 SXM5 80GB"):
        assert (best <= own.sel(chip=chip)).all()
    assert (best < own.sel(chip="B200")).mean() > 0.5  # GB200/GB300, then Rubin, do better


def test_the_run_rates_are_first_reached_by_2030q4(runs) -> None:
    result = runs["base"]
    table = result.theses().set_index("name")
    for name, metric in (("aws_rental_run_rate_50b_by_2030", "aws_rental_revenue"),
                         ("aws_merchant_run_rate_50b_by_2030", "aws_merchant_value")):
        rate = 4.0 * result.data[metric].sel(quarter=slice(None, "2030Q4")).values
        reached = rate >= 50.0
        assert table.loc[name, "probability"] == pytest.approx(np.mean(reached.any(axis=1)))
        years = table.loc[name, "first_reached_years"]
        first = np.where(reached.any(axis=1), reached.argmax(axis=1), -1)
        labels = [str(q)[:4] for q in result.data["quarter"].values]
        assert years["2027"] == pytest.approx(np.mean([f >= 0 and labels[f] == "2027"
                                                       for f in first]))
        assert sum(years.values()) + table.loc[name, "never_within_horizon"] == pytest.approx(1)
