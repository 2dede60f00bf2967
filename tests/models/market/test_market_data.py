"""forecast.models.market.data: the inputs the model fits, from the shipped data and from
small hand-made frames."""

from __future__ import annotations

import shutil
import textwrap
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from forecast.core.errors import FitError, ForecastError
from forecast.data.dataset import load_dataset
from forecast.models.market import (
    QUALITATIVE_BILLIONS,
    market_timeline,
    observed_series,
    prepare_market_data,
)
from forecast.models.market.data import (
    STATED_NUMBER_FACTORS,
    statement_readings,
    trainium2_volumes,
    trainium_run_rates,
)
from forecast.models.market.model import MarketModel
from forecast.scenarios import DEFAULT_SCENARIOS_DIR, load_scenario


@pytest.fixture(scope="module")
def dataset():
    return load_dataset()


def test_prepare_market_data_on_shipped_data(dataset) -> None:
    data = prepare_market_data(dataset)
    obs = data["observations"]
    assert {"nvidia_data_center", "amd_data_center", "broadcom_ai",
            "nvidia_networking"} <= set(obs["series"])
    nvidia = obs[obs["series"] == "nvidia_data_center"]
    assert nvidia["value"].to_list() == observed_series(dataset, "nvidia_data_center")[
        "value"].to_list()
    censored = data["censored"].set_index("group")
    # AMD Instinct FY2024 "> 5" is a lower bound on the 2024 sum.
    assert censored.loc["amd", "kind"] == "lower"
    assert censored.loc["amd", "lower"] == pytest.approx(5.0)
    assert censored.loc["amd", "upper"] == np.inf
    assert censored.loc["amd", "quarters"] == "2024Q1,2024Q2,2024Q3,2024Q4"
    # NVIDIA's share of 2024 spend from the published share estimates: a soft interval.
    assert censored.loc["nvidia", "kind"] == "share"
    assert censored.loc["nvidia", ["lower", "upper"]].to_list() == pytest.approx([0.75, 0.95])
    # Amazon's run rates are revenue (the AWS silicon model's), not spend at cost.
    assert "aws" not in censored.index


def test_guidance_reads_nvidia_total_revenue_as_data_center(dataset) -> None:
    guides = prepare_market_data(dataset)["guidance"].set_index(["series", "fiscal_period"])
    # FY2026Q3 guide $54.0B of total revenue, given with FY2026Q2: Data Center 41.1 of
    # 46.7 then, so 54.0 x 41.1 / 46.7 of Data Center; actual 51.2.
    row = guides.loc[("nvidia_data_center", "FY2026Q3")]
    assert row["guided"] == pytest.approx(54.0 * 41.1 / 46.7)
    assert row["actual"] == pytest.approx(51.2)
    assert row["quarter"] == "2025Q3"
    # Broadcom's FY2025Q4 guide (6.2, given 2025-09-04) is of a quarter not yet reported;
    # its recalled Q1 FY25 guide and its "more than" guide are left out.
    bc = guides.loc[("broadcom_ai", "FY2025Q4")]
    assert bc["guided"] == pytest.approx(6.2) and np.isnan(bc["actual"])
    assert ("broadcom_ai", "FY2025Q1") not in guides.index
    assert ("broadcom_ai", "FY2024Q4") not in guides.index
    # A cut keeps the guides released with the quarters it keeps.
    cut = prepare_market_data(dataset.as_of("2024-10-27"))["guidance"]
    nvidia = cut[cut["series"] == "nvidia_data_center"]
    assert nvidia["fiscal_period"].iloc[-1] == "FY2025Q4"
    assert np.isnan(nvidia["actual"].iloc[-1])


def test_qualitative_reading_is_kept_for_the_aws_silicon_model(dataset) -> None:
    assert QUALITATIVE_BILLIONS == {"several billion": (2.0, 9.0)}
    data = prepare_market_data(dataset, qualitative={"several billion": (4.0, 12.0)})
    pd.testing.assert_frame_equal(data["censored"], prepare_market_data(dataset)["censored"])


def test_run_rate_statements_numbers_and_dates() -> None:
    silicon = pd.DataFrame({
        "date": pd.to_datetime(["2025-06-30", "2025-06-29", "2025-08-01"]),
        "metric": ["Trainium business size (a)", "Trainium business size (b)",
                   "Trainium business size (c)"],
        "unit": ["USD/year (annualized)"] * 3,
        "value": [5e9, 5e9, np.nan],
        "value_qualifier": ["=", "=", "a lot"],
    })
    rows = trainium_run_rates(silicon, QUALITATIVE_BILLIONS)
    # A number is read as +-20%, per quarter (/4); said on a quarter's last day it describes
    # that quarter, said a day earlier the quarter before. An unknown phrase is skipped.
    assert [row["quarters"] for row in rows] == ["2025Q2", "2025Q1"]
    assert [rows[0]["lower"], rows[0]["upper"]] == pytest.approx([1.0, 1.5])


def test_trainium2_volumes_sd_from_the_band() -> None:
    volumes = pd.DataFrame({"chip": ["Trainium2", "Trainium1"],
                            "quarter": [pd.Period("2025Q1", freq="Q")] * 2,
                            "units_median": [100.0, 5.0], "units_p5": [50.0, 1.0],
                            "units_p95": [200.0, 9.0]})
    table = trainium2_volumes(volumes)
    assert table["quarter"].to_list() == ["2025Q1"]
    # A 5-95% band of a factor 4 around the median: sd_log = log 4 / (2 * 1.645).
    assert table["sd_log"].iloc[0] == pytest.approx(np.log(4.0) / 3.29)


def test_as_of_drops_later_observations(dataset) -> None:
    data = prepare_market_data(dataset.as_of("2024-01-31"))
    assert pd.to_datetime(data["observations"]["calendar_quarter_end"]).max() <= \
        pd.Timestamp("2024-01-31")
    assert data["censored"].empty  # the FY2024 Instinct row is dated 2024-12-28
    assert market_timeline(data)[-1] == "2023Q4"


def test_timeline_is_the_gap_free_anchor_series() -> None:
    rows = pd.DataFrame({"series": ["nvidia_data_center"] * 3 + ["amd_data_center"],
                         "quarter": ["2024Q1", "2024Q2", "2024Q3", "2023Q1"]})
    assert market_timeline({"observations": rows}) == ["2024Q1", "2024Q2", "2024Q3"]
    with pytest.raises(FitError, match="gaps at 2024Q2"):
        market_timeline({"observations": rows.drop(index=1)})
    with pytest.raises(FitError, match="no NVIDIA"):
        market_timeline({"observations": rows.iloc[3:]})


# --------------------------------------------------------------------------- scenario readings


def _child_of_base(tmp_path, body: str):
    """A scenario extending a copy of the shipped base, with ``body`` added."""
    shutil.copy(DEFAULT_SCENARIOS_DIR / "base.toml", tmp_path / "base.toml")
    (tmp_path / "mine.toml").write_text(textwrap.dedent("""\
        [scenario]
        name = "mine"
        extends = "base"
        """) + textwrap.dedent(body), encoding="utf-8")
    return load_scenario("mine", tmp_path)


def test_shipped_scenarios_read_statements_as_the_defaults(dataset) -> None:
    default = MarketModel().prepare(dataset)["censored"]
    for name in ("base", "bull", "bear"):
        prepared = MarketModel().prepare(dataset, load_scenario(name))["censored"]
        pd.testing.assert_frame_equal(prepared, default)
    assert statement_readings(load_scenario("base")) == (QUALITATIVE_BILLIONS,
                                                         STATED_NUMBER_FACTORS)


def test_a_scenario_reading_a_stated_number(tmp_path) -> None:
    scenario = _child_of_base(tmp_path, """
        [readings.stated_number]
        lower_factor = 0.5
        upper_factor = 1.5
        rationale = "test"
        """)
    qualitative, factors = statement_readings(scenario)
    assert factors == (0.5, 1.5) and qualitative == QUALITATIVE_BILLIONS
    silicon = pd.DataFrame({"date": pd.to_datetime(["2025-06-30"]),
                            "metric": ["Trainium business size (a)"],
                            "unit": ["USD/year (annualized)"], "value": [4e9],
                            "value_qualifier": ["="]})
    (row,) = trainium_run_rates(silicon, qualitative, factors)
    assert [row["lower"], row["upper"]] == pytest.approx([0.5, 1.5])  # (0.5-1.5) x 4 / 4


def test_readings_without_a_scenario_and_with_a_partial_one() -> None:
    assert statement_readings(None) == (QUALITATIVE_BILLIONS, STATED_NUMBER_FACTORS)
    # A duck-typed stand-in without readings reads as the defaults too.
    assert statement_readings(SimpleNamespace(priors={})) == (QUALITATIVE_BILLIONS,
                                                              STATED_NUMBER_FACTORS)
    partial = SimpleNamespace(name="partial", readings={
        "several billion": SimpleNamespace(lower=1.0, upper=2.0)})
    with pytest.raises(ForecastError, match=r"'partial' has no \[readings.stated_number\]"):
        statement_readings(partial)
