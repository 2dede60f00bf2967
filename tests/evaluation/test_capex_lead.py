"""Tests of forecast.evaluation.capex_lead: the big-four capex total and the lead regression,
against hand numpy references."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.evaluation.capex_lead import CapexLead, capex_lead, capex_total, log_growth
from forecast.models.spend.evidence import observed_series


def _row(company: str, quarter: str, value: float, series: str = "main") -> dict:
    return {"company": company, "quarter": pd.Period(quarter, freq="Q-DEC"),
            "capex_usd_billions": value, "series": series}


def _ols(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Slope of y on x with an intercept and its standard error, by the normal equations."""
    design = np.column_stack([np.ones_like(x), x])
    inverse = np.linalg.inv(design.T @ design)
    beta = inverse @ design.T @ y
    residual = y - design @ beta
    sigma2 = residual @ residual / (len(y) - 2)
    return float(beta[1]), float(np.sqrt(sigma2 * inverse[1, 1]))


def _numpy_reference(capex: np.ndarray, revenue: np.ndarray) -> dict:
    """The lead regression by hand, on consecutive quarters: revenue growth in t+1 on capex
    growth in t, each pair left out in turn, and the same-quarter correlation."""
    growth, rev = np.diff(np.log(capex)), np.diff(np.log(revenue))
    x, y = growth[:-1], rev[1:]
    slope, se = _ols(x, y)
    without = [_ols(np.delete(x, i), np.delete(y, i)) for i in range(len(x))]
    most = int(np.argmax([abs(s - slope) for s, _ in without]))
    return {"slope": slope, "se": se, "same": float(np.corrcoef(growth, rev)[0, 1]),
            "most": most, "slope_without": without[most][0], "se_without": without[most][1]}


def _assert_matches(result: CapexLead, reference: dict, quarters: list[str]) -> None:
    assert result.coefficient == pytest.approx(reference["slope"], rel=1e-9)
    assert result.standard_error == pytest.approx(reference["se"], rel=1e-9)
    assert result.same_quarter_correlation == pytest.approx(reference["same"], rel=1e-9)
    assert result.influential == quarters[reference["most"]]
    assert result.slope_without == pytest.approx(reference["slope_without"], rel=1e-9)
    assert result.se_without == pytest.approx(reference["se_without"], rel=1e-9)


def test_total_sums_main_series_of_quarters_every_company_reports():
    frame = pd.DataFrame([
        _row("Microsoft", "2024Q1", 10.0), _row("Microsoft", "2024Q2", 11.0),
        _row("Microsoft", "2024Q2", 15.0, "alternative"),  # incl. finance leases: not summed
        _row("Alphabet", "2024Q1", 12.0), _row("Alphabet", "2024Q2", 13.0),
        _row("Amazon", "2024Q1", 14.0), _row("Amazon", "2024Q2", 17.0),
        _row("Amazon (AWS segment)", "2024Q2", 9.0, "alternative"),
        _row("Meta", "2024Q2", 8.0),  # no 2024Q1 row: that quarter is not a total
        _row("Oracle", "2024Q2", 3.0),  # not one of the big four
    ])
    total = capex_total(frame)
    assert list(total.index.astype(str)) == ["2024Q2"]
    assert total.iloc[0] == pytest.approx(11.0 + 13.0 + 17.0 + 8.0)
    two = capex_total(frame, companies=("Microsoft", "Alphabet"))
    np.testing.assert_allclose(two.to_numpy(), [22.0, 24.0])


def test_total_refuses_two_main_rows_of_one_quarter():
    frame = pd.DataFrame([_row("Meta", "2024Q1", 6.7), _row("Meta", "2024Q1", 6.9)])
    with pytest.raises(ForecastError, match="two main-series"):
        capex_total(frame, companies=("Meta",))


def test_lead_regression_matches_a_numpy_reference():
    rng = np.random.default_rng(7)
    quarters = pd.period_range("2021Q1", periods=16, freq="Q-DEC")
    capex = pd.Series(np.exp(np.cumsum(rng.normal(0.08, 0.1, 16))) * 30, index=quarters)
    revenue = pd.Series(np.exp(np.cumsum(rng.normal(0.15, 0.2, 16))) * 4,
                        index=[str(q) for q in quarters])  # labels, as the market data has
    result = capex_lead(capex, revenue)
    reference = _numpy_reference(capex.to_numpy(), revenue.to_numpy())
    _assert_matches(result, reference, [str(q) for q in quarters[1:-1]])
    assert (result.n, result.same_quarter_n) == (14, 15)
    assert (result.first, result.last) == ("2021Q2", "2024Q3")


def test_growth_never_spans_a_missing_quarter():
    values = pd.Series([1.0, 2.0, 8.0], index=["2024Q1", "2024Q2", "2024Q4"])
    growth = log_growth(values)
    assert list(growth.index.astype(str)) == ["2024Q1", "2024Q2", "2024Q3", "2024Q4"]
    assert growth.iloc[1] == pytest.approx(np.log(2.0))
    assert growth.iloc[2:].isna().all()


def test_too_few_pairs_is_an_error():
    short = pd.Series([1.0, 2.0, 3.0, 5.0, 7.0],
                      index=["2024Q1", "2024Q2", "2024Q3", "2024Q4", "2025Q1"])
    with pytest.raises(ForecastError, match="four quarter pairs for the lead regression, got 3"):
        capex_lead(short, short)


@pytest.mark.parametrize(("coefficient", "se", "without", "phrase"), [
    (-1.3, 0.6, 0.1, "does not lead NVIDIA Data Center growth: slope -1.30 +- 1.20 (2 se) is "
     "negative, the wrong sign for a leading indicator (n = 13), without t = 2023Q1 (the most "
     "influential pair) +0.10 +- 1.20; the spend model does not use capex"),
    (-0.3, 0.6, -0.3, "of the wrong sign and not distinguishable from zero"),
    (0.3, 0.6, 0.3, "does not lead NVIDIA Data Center growth: slope +0.30 +- 1.20 (2 se) is not "
     "distinguishable from zero"),
    (1.5, 0.5, 0.2, "does not lead NVIDIA Data Center growth: slope +1.50 +- 1.00 (2 se) is "
     "positive only with that pair"),
    (1.5, 0.5, 1.4, "capex growth leads NVIDIA Data Center growth by a quarter: slope +1.50"),
])
def test_conclusion_follows_the_estimate(coefficient, se, without, phrase):
    result = CapexLead(coefficient, se, 0.1, 13, "2022Q2", "2025Q2", -0.2, 14, "2023Q1",
                       without, se)
    assert phrase in result.conclusion()
    assert "\n" not in result.conclusion()


def test_shipped_data_capex_does_not_lead_nvidia_data_center():
    """The evidence recorded for issue #17: on the shipped data, the big-four total sums the
    main rows of the file, and the lead slope has the wrong sign."""
    dataset = load_dataset()
    total = capex_total(dataset.hyperscaler_capex)
    assert str(total.index[0]) == "2022Q1" and str(total.index[-1]) == "2025Q3"
    # 2025Q3: Microsoft FY26 Q1 cash, Alphabet, Amazon gross, Meta (incl. finance leases).
    assert total.iloc[-1] == pytest.approx(19.394 + 23.953 + 35.095 + 19.37)
    nvidia = observed_series(dataset, "nvidia_data_center").set_index("quarter")["value"]
    # NVIDIA's FY2026Q3 (calendar 2025Q3) was reported after the as-of date: its series
    # ends a quarter before the capex total, so the regression's last t is 2025Q1.
    assert nvidia.index[-1] == "2025Q2"
    nvidia = nvidia.loc["2022Q1":"2025Q2"]
    result = capex_lead(total, nvidia)
    common = total.loc[:"2025Q2"]  # the reference needs the quarters both series have
    reference = _numpy_reference(common.to_numpy(), nvidia.to_numpy())
    assert (result.n, result.same_quarter_n) == (12, 13)
    assert (result.first, result.last) == ("2022Q2", "2025Q1")
    _assert_matches(result, reference, [str(q) for q in common.index[1:-1]])
    assert result.coefficient + 2 * result.standard_error < 0
    # The wrong sign rests on one pair: capex falling into 2023Q1, NVIDIA's step in 2023Q2.
    assert result.influential == "2023Q1"
    assert abs(result.slope_without) < 2 * result.se_without
    assert "does not lead" in result.conclusion()
