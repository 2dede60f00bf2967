"""Does hyperscaler capex lead NVIDIA Data Center revenue? The evidence behind leaving it out.

Issue #17 asked whether the big four hyperscalers' capital expenditure (Microsoft, Alphabet,
Amazon, Meta) should enter the spend model as a leading indicator. This module measures it on
the data: the quarterly total of their capex (``Dataset.hyperscaler_capex``, each company's
``main`` series only, so no two definitions are added), and the regression of NVIDIA Data
Center log growth in quarter t+1 on capex log growth in quarter t. ``benchmarks/capex_lead.py``
prints the result for the shipped data.

Oracle is not in the total: its quarters on file start in 2024. Meta's main series includes
principal payments on finance leases (its press-release definition; no cash-only series is on
file), the other three exclude finance leases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError

__all__ = ["BIG_FOUR", "CapexLead", "capex_lead", "capex_total", "log_growth"]

#: The companies whose capex is summed: the four largest buyers of data-center accelerators.
BIG_FOUR = ("Microsoft", "Alphabet", "Amazon", "Meta")


@dataclass(frozen=True)
class CapexLead:
    """OLS of revenue log growth in t+1 on capex log growth in t, and the same-quarter link.

    Attributes
    ----------
    coefficient, standard_error, intercept : float
        Slope (with its OLS standard error) and intercept of the lead regression.
    n : int
        Quarter pairs in the regression.
    first, last : str
        The first and last capex quarter t of the regression (``YYYYQn``).
    same_quarter_correlation : float
        Pearson correlation of capex and revenue log growth in the same quarter.
    same_quarter_n : int
        Quarters in that correlation.
    influential : str
        The quarter t whose pair, left out, moves the slope most.
    slope_without, se_without : float
        The slope and its standard error with that pair left out.
    """

    coefficient: float
    standard_error: float
    intercept: float
    n: int
    first: str
    last: str
    same_quarter_correlation: float
    same_quarter_n: int
    influential: str
    slope_without: float
    se_without: float

    def conclusion(self) -> str:
        """One line: whether capex growth leads revenue growth on this evidence.

        A lead needs a slope positive by two standard errors, with every pair and without the
        most influential one.
        """
        band = f"{self.coefficient:+.2f} +- {2 * self.standard_error:.2f} (2 se)"
        without = (f"without t = {self.influential} (the most influential pair) "
                   f"{self.slope_without:+.2f} +- {2 * self.se_without:.2f}")
        positive = self.coefficient - 2 * self.standard_error > 0
        if positive and self.slope_without - 2 * self.se_without > 0:
            return (f"capex growth leads NVIDIA Data Center growth by a quarter: slope {band}, "
                    f"{without}; a candidate input of the spend model")
        if positive:
            what = "positive only with that pair"
        elif self.coefficient + 2 * self.standard_error < 0:
            what = "negative, the wrong sign for a leading indicator"
        elif self.coefficient < 0:
            what = "of the wrong sign and not distinguishable from zero"
        else:
            what = "not distinguishable from zero"
        return (f"capex growth does not lead NVIDIA Data Center growth: slope {band} is {what} "
                f"(n = {self.n}), {without}; the spend model does not use capex")


def capex_total(capex: pd.DataFrame, companies: Sequence[str] = BIG_FOUR) -> pd.Series:
    """Quarterly capex total of ``companies`` on their main series, USD billions.

    Parameters
    ----------
    capex : pandas.DataFrame
        ``Dataset.hyperscaler_capex``: ``company``, ``series``, ``quarter`` (calendar, a
        quarterly Period) and ``capex_usd_billions``.
    companies : sequence of str
        The companies summed.

    Returns
    -------
    pandas.Series
        Indexed by calendar quarter (Period), only quarters every company reports.

    Raises
    ------
    ForecastError
        If a company has two main-series rows in one calendar quarter.
    """
    rows = capex[(capex["series"] == "main") & capex["company"].isin(list(companies))]
    if rows.duplicated(["company", "quarter"]).any():
        raise ForecastError("a company has two main-series capex rows in one calendar quarter")
    wide = rows.pivot(index="quarter", columns="company", values="capex_usd_billions")
    wide = wide.reindex(columns=list(companies)).dropna()
    total = wide.sum(axis=1).sort_index()
    total.name = "capex_usd_billions"
    return total


def log_growth(values: pd.Series) -> pd.Series:
    """Log growth over the previous calendar quarter; NaN where that quarter is missing.

    ``values`` is indexed by quarterly Periods or ``YYYYQn`` labels; the result by Periods.
    """
    series = values.copy()
    series.index = pd.PeriodIndex(series.index, freq="Q-DEC")
    series = series.sort_index()
    full = series.reindex(pd.period_range(series.index[0], series.index[-1], freq="Q-DEC"))
    return np.log(full.astype(float)).diff()


def capex_lead(capex: pd.Series, revenue: pd.Series) -> CapexLead:
    """Lead regression and same-quarter correlation of capex and revenue log growth.

    Parameters
    ----------
    capex : pandas.Series
        Quarterly capex (e.g. :func:`capex_total`), indexed by calendar quarter.
    revenue : pandas.Series
        Quarterly revenue on the same calendar quarters (Periods or ``YYYYQn`` labels).

    Returns
    -------
    CapexLead
        OLS (statsmodels) of revenue growth in t+1 on capex growth in t, over every t where
        both are known, the same OLS without the pair that moves the slope most, and the
        correlation of the two growths in the same quarter.

    Raises
    ------
    ForecastError
        With fewer than four quarter pairs (one left out, three remain).
    """
    import statsmodels.api as sm

    growth = log_growth(capex)
    rev = log_growth(revenue)
    frame = pd.DataFrame({"capex": growth, "next": rev.shift(-1).reindex(growth.index),
                          "same": rev.reindex(growth.index)})
    lead = frame[["capex", "next"]].dropna()
    same = frame[["capex", "same"]].dropna()
    if len(lead) < 4:
        raise ForecastError(f"need four quarter pairs for the lead regression, got {len(lead)}")
    x, y = lead["capex"].to_numpy(), lead["next"].to_numpy()
    fit = sm.OLS(y, sm.add_constant(x)).fit()
    dropped = [sm.OLS(np.delete(y, i), sm.add_constant(np.delete(x, i))).fit()
               for i in range(len(lead))]
    most = int(np.argmax([abs(f.params[1] - fit.params[1]) for f in dropped]))
    return CapexLead(
        coefficient=float(fit.params[1]),
        standard_error=float(fit.bse[1]),
        intercept=float(fit.params[0]),
        n=len(lead),
        first=str(lead.index[0]),
        last=str(lead.index[-1]),
        same_quarter_correlation=float(np.corrcoef(same["capex"], same["same"])[0, 1]),
        same_quarter_n=len(same),
        influential=str(lead.index[most]),
        slope_without=float(dropped[most].params[1]),
        se_without=float(dropped[most].bse[1]),
    )
