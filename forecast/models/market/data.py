"""The market model's inputs from a dataset: observed series, censored statements, volumes.

Pure pandas and numpy. The inputs are a dict of three frames (``observations``,
``censored``, ``volumes``); :func:`~forecast.models.market.simulate.simulate_market` makes
the same dict from the model's own math.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import fiscal_to_calendar_quarter, quarter_label
from forecast.core.errors import FitError, ForecastError
from forecast.core.scenario_contract import NUMBER_READING

#: The five vendor groups of every model's output (DESIGN section 4): ``google`` is the TPU
#: part of Broadcom's custom accelerators, ``other`` the rest of them plus ``rest``.
VENDORS: tuple[str, ...] = ("nvidia", "amd", "google", "aws", "other")
#: Groups with their own latent state; ``nvidia`` is the log-ratio reference. ``custom``:
#: Broadcom-built custom accelerators (Google TPU, Meta MTIA, OpenAI's and other XPUs);
#: ``rest``: every other data-center accelerator (Intel Gaudi, Microsoft Maia, Huawei
#: Ascend, Marvell-built custom chips other than AWS's, start-ups).
LATENT_GROUPS: tuple[str, ...] = ("nvidia", "amd", "custom", "aws", "rest")
RATIO_GROUPS: tuple[str, ...] = LATENT_GROUPS[1:]

#: Observed series the model links to the latent spend: name -> (company, segment).
SERIES: dict[str, tuple[str, str]] = {
    "nvidia_data_center": ("NVIDIA", "Data Center"),
    "nvidia_networking": ("NVIDIA", "Data Center - networking"),
    "nvidia_compute": ("NVIDIA", "Data Center - compute"),
    "amd_data_center": ("AMD", "Data Center"),
    "broadcom_ai": ("Broadcom", "AI semiconductor revenue"),
}
#: Series offered by :meth:`FittedMarket.series_forecast` (the compute row is a single point).
FORECAST_SERIES: tuple[str, ...] = (
    "nvidia_data_center", "nvidia_networking", "amd_data_center", "broadcom_ai",
)

#: How qualitative statements in ``aws_custom_silicon.csv`` are read, in USD billions per
#: year, when no scenario says: the default of :func:`prepare_market_data`'s ``qualitative``
#: argument, for notebooks. A forecast reads the scenario's ``[readings."<phrase>"]`` tables
#: instead (``scenarios/base.toml`` has this reading, with its rationale).
QUALITATIVE_BILLIONS: dict[str, tuple[float, float]] = {"several billion": (2.0, 9.0)}
#: How a stated number is read when no scenario says: (lower, upper) factors of it, the
#: default of ``number_factors``. A forecast reads the scenario's ``[readings.stated_number]``.
STATED_NUMBER_FACTORS: tuple[float, float] = (0.8, 1.2)

#: Columns of the ``censored`` frame.
CENSORED_COLUMNS = ["kind", "group", "quarters", "lower", "upper", "label"]
#: Columns of the ``guidance`` frame.
GUIDANCE_COLUMNS = ["series", "fiscal_period", "quarter", "guided", "actual", "label"]
#: Revenue segment each guided series is reported in: series -> (company, segment).
GUIDED_SERIES: dict[str, tuple[str, str]] = {
    "nvidia_data_center": ("NVIDIA", "Total revenue"),
    "broadcom_ai": ("Broadcom", "AI semiconductor revenue"),
}
#: How published share estimates are read when no scenario says: NVIDIA's share of the five
#: groups' spend over calendar 2024 lies in (lower, upper), a soft interval. The estimates
#: in ``market_estimates.csv`` put NVIDIA at about 90% of the AI GPU market in 2024
#: (TweakTown) and about 80% of AI accelerator revenue in 2025 (Kaiso, low credibility);
#: the interval spans both with room for their different definitions.
NVIDIA_SHARE_2024: tuple[float, float] = (0.75, 0.95)


def observed_series(dataset: Any, name: str) -> pd.DataFrame:
    """Quarterly rows of one named series (fiscal_period, calendar_quarter_end, quarter, value).

    Only exact (``=``) figures are used as point observations.
    """
    if name not in SERIES:
        raise ForecastError(f"unknown series {name!r} (known: {', '.join(SERIES)})")
    company, segment = SERIES[name]
    rows = dataset.revenue_series(company, segment)
    rows = rows[rows["value_qualifier"] == "="]
    return pd.DataFrame({
        "fiscal_period": rows["fiscal_period"].astype(str).to_numpy(),
        "calendar_quarter_end": pd.to_datetime(rows["calendar_quarter_end"]).to_numpy(),
        "quarter": [quarter_label(q) for q in rows["quarter"]],
        "value": rows["revenue_usd_billions"].astype(float).to_numpy(),
    })


def statement_readings(scenario: Any = None
                       ) -> tuple[dict[str, tuple[float, float]], tuple[float, float]]:
    """How a scenario reads Amazon's run-rate statements: phrases and a stated number.

    Parameters
    ----------
    scenario
        A scenario with ``readings`` (name -> an object with ``lower`` and ``upper``): each
        phrase's bounds in USD billions a year, and under ``"stated_number"`` the factors
        of a stated number. None, or an object without ``readings``, gives the documented
        defaults :data:`QUALITATIVE_BILLIONS` and :data:`STATED_NUMBER_FACTORS`.

    Returns
    -------
    tuple
        ``(phrase -> (lower, upper), (lower_factor, upper_factor))``.

    Raises
    ------
    ForecastError
        If the scenario has readings but none of a stated number.
    """
    readings = getattr(scenario, "readings", None)
    if readings is None:
        return dict(QUALITATIVE_BILLIONS), STATED_NUMBER_FACTORS
    if NUMBER_READING not in readings:
        raise ForecastError(f"scenario {getattr(scenario, 'name', '?')!r} has no "
                            f"[readings.{NUMBER_READING}]: the market model cannot read a "
                            "stated run rate")
    number = readings[NUMBER_READING]
    phrases = {name: (float(reading.lower), float(reading.upper))
               for name, reading in readings.items() if name != NUMBER_READING}
    return phrases, (float(number.lower), float(number.upper))


def prepare_market_data(
    dataset: Any,
    qualitative: Mapping[str, tuple[float, float]] = QUALITATIVE_BILLIONS,
    number_factors: tuple[float, float] = STATED_NUMBER_FACTORS,
) -> dict[str, pd.DataFrame]:
    """The frames the model fits: ``observations``, ``censored``, ``volumes``, ``guidance``.

    Parameters
    ----------
    dataset
        A :class:`~forecast.data.dataset.Dataset` (cut with ``as_of`` for a backtest).
    qualitative
        Reading of qualitative statements (``"several billion"``) as USD bn a year:
        phrase -> (lower, upper). Default: :data:`QUALITATIVE_BILLIONS`.
    number_factors
        Reading of a stated number: (lower, upper) factors of it. Default:
        :data:`STATED_NUMBER_FACTORS`.

    Returns
    -------
    dict of pandas.DataFrame
        ``observations``: series, fiscal_period, calendar_quarter_end, quarter, value
        (USD bn). ``censored``: kind (lower | interval), group, quarters (comma list),
        lower, upper, label: bounds on the sum of a group's spend over the quarters.
        ``volumes``: quarter, units, sd_log (Epoch's Trainium2 shipments; sd from the
        5-95% band). ``guidance``: :func:`guidance_rows`. ``qualitative`` and
        ``number_factors`` are accepted for the readings' single interface but unused:
        Amazon's run rates are revenue, read by the AWS silicon model.
    """
    frames = []
    for name in SERIES:
        rows = observed_series(dataset, name)
        rows.insert(0, "series", name)
        frames.append(rows)
    observations = pd.concat(frames, ignore_index=True)
    if not (observations["series"] == "nvidia_data_center").any():
        raise FitError("market model: no NVIDIA Data Center revenue in the data (needed as "
                       "the anchor series)")
    # Amazon's run-rate statements are revenue (rental income), not spend at cost: the AWS
    # silicon model (M5) reads them; counting them here too would use them twice.
    del qualitative, number_factors
    censored = instinct_lower_bounds(dataset.revenue) + nvidia_share_bounds(observations)
    return {"observations": observations,
            "censored": pd.DataFrame(censored, columns=CENSORED_COLUMNS),
            "volumes": trainium2_volumes(dataset.volumes),
            "guidance": guidance_rows(dataset)}


def nvidia_share_bounds(observations: pd.DataFrame,
                        bounds: tuple[float, float] = NVIDIA_SHARE_2024) -> list[dict[str, Any]]:
    """:data:`NVIDIA_SHARE_2024` as a soft interval on NVIDIA's share of 2024 spend, when the
    data reach the end of 2024."""
    quarters = set(observations.loc[observations["series"] == "nvidia_data_center", "quarter"])
    year = [f"2024Q{q}" for q in range(1, 5)]
    if not set(year) <= quarters:
        return []
    return [{"kind": "share", "group": "nvidia", "quarters": ",".join(year),
             "lower": bounds[0], "upper": bounds[1],
             "label": f"NVIDIA share of 2024 spend in {bounds[0]:g}-{bounds[1]:g}"}]


def guidance_rows(dataset: Any) -> pd.DataFrame:
    """Vendors' exact next-quarter guides as readings of the model's series.

    NVIDIA guides its total revenue: the guide times the Data Center share of total revenue
    in the quarter released with it reads as a guide of Data Center revenue. Broadcom
    guides AI semiconductor revenue directly. ``actual`` is the reported figure of the
    guided quarter (NaN when not yet reported); "more than" guides and recalled rows are
    left out (a tight observation needs an exact, verified figure).

    Returns
    -------
    pandas.DataFrame
        :data:`GUIDANCE_COLUMNS`; values in USD bn, ``quarter`` the calendar quarter.
    """
    guides = getattr(dataset, "guidance", None)
    rows: list[dict[str, Any]] = []
    if guides is None or not len(guides):
        return pd.DataFrame(rows, columns=GUIDANCE_COLUMNS)
    revenue = dataset.revenue
    for series, (company, segment) in GUIDED_SERIES.items():
        reported = observed_series(dataset, series).set_index("fiscal_period")["value"]
        mine = guides[(guides["company"] == company) & (guides["segment"] == segment)
                      & (guides["value_qualifier"] == "=") & (guides["confidence"] == "verified")]
        for row in mine.itertuples(index=False):
            factor = _segment_factor(revenue, company, segment, series, row.basis_fiscal_period)
            if factor is None:
                continue
            end = pd.Timestamp(row.calendar_quarter_end)
            rows.append({"series": series, "fiscal_period": row.fiscal_period,
                         "quarter": quarter_label(fiscal_to_calendar_quarter(end)),
                         "guided": float(row.guided_usd_billions) * factor,
                         "actual": float(reported.get(row.fiscal_period, np.nan)),
                         "label": f"{company} guide {row.fiscal_period} "
                                  f"({row.given_date:%Y-%m-%d})"})
    return pd.DataFrame(rows, columns=GUIDANCE_COLUMNS)


def _segment_factor(revenue: pd.DataFrame, company: str, segment: str, series: str,
                    basis: str) -> float | None:
    """Series / guided segment in the basis quarter (1 when the guide is of the series)."""
    if SERIES[series] == (company, segment):
        return 1.0
    rows = revenue[(revenue["company"] == company) & (revenue["fiscal_period"] == basis)]
    values = dict(zip(rows["segment"], rows["revenue_usd_billions"], strict=True))
    part, whole = values.get(SERIES[series][1]), values.get(segment)
    if part is None or whole is None or not whole:
        return None
    return float(part) / float(whole)


def instinct_lower_bounds(revenue: pd.DataFrame) -> list[dict[str, Any]]:
    """AMD's full-year "Instinct GPU revenue > X" rows as lower bounds on the year's sum."""
    instinct = revenue[(revenue["company"] == "AMD")
                       & (revenue["segment"] == "Instinct data-center GPU (full year)")]
    bounds = []
    for row in instinct.itertuples(index=False):
        if row.value_qualifier != ">":
            continue
        year = pd.Timestamp(row.calendar_quarter_end).year
        bounds.append({
            "kind": "lower", "group": "amd",
            "quarters": ",".join(f"{year}Q{q}" for q in range(1, 5)),
            "lower": float(row.revenue_usd_billions), "upper": np.inf,
            "label": f"AMD Instinct {row.fiscal_period} > {row.revenue_usd_billions:g}",
        })
    return bounds


def trainium_run_rates(silicon: pd.DataFrame, qualitative: Mapping[str, tuple[float, float]],
                       number_factors: tuple[float, float] = STATED_NUMBER_FACTORS
                       ) -> list[dict[str, Any]]:
    """Amazon's annualised Trainium run-rate statements as intervals on one quarter's spend.

    A phrase in ``qualitative`` gives its (lower, upper) USD bn a year; a number is read
    as ``number_factors`` times it (default +-20%); other statements are skipped.
    """
    low_factor, high_factor = number_factors
    statements = silicon[silicon["metric"].str.startswith("Trainium business size")
                         & (silicon["unit"] == "USD/year (annualized)")]
    bounds = []
    for row in statements.itertuples(index=False):
        qualifier = str(row.value_qualifier).strip()
        if qualifier in qualitative:
            low, high = qualitative[qualifier]
        elif row.value == row.value:  # a number: the factors around it
            low, high = low_factor * row.value / 1e9, high_factor * row.value / 1e9
        else:
            continue
        # An annualised run rate stated on a date describes the last quarter completed by
        # then (a Q3 earnings call in late October speaks of Q3): bounds on 4x its spend.
        stated = pd.Timestamp(row.date)
        period = stated.to_period("Q")
        if stated.normalize() < period.end_time.normalize():
            period -= 1
        quarter = quarter_label(period)
        bounds.append({
            "kind": "interval", "group": "aws", "quarters": quarter,
            "lower": low / 4.0, "upper": high / 4.0,
            "label": f"Trainium run rate {qualifier} ({quarter})",
        })
    return bounds


def trainium2_volumes(volumes: pd.DataFrame) -> pd.DataFrame:
    """Epoch's modelled Trainium2 shipments: quarter, units (median), sd_log (5-95% band)."""
    trn2 = volumes[volumes["chip"] == "Trainium2"]
    return pd.DataFrame({
        "quarter": [quarter_label(q) for q in trn2["quarter"]],
        "units": trn2["units_median"].astype(float).to_numpy(),
        "sd_log": ((np.log(trn2["units_p95"].astype(float))
                    - np.log(trn2["units_p5"].astype(float))) / (2 * 1.645)).to_numpy(),
    })


def market_timeline(data: Mapping[str, pd.DataFrame]) -> list[str]:
    """Calendar quarters of the NVIDIA Data Center series (the anchor; it must be gap-free).

    Observations of other series outside these quarters are not used.
    """
    obs = data["observations"]
    quarters = sorted(pd.Period(q, freq="Q")
                      for q in obs.loc[obs["series"] == "nvidia_data_center", "quarter"])
    if not quarters:
        raise FitError("market model: no NVIDIA Data Center revenue (the anchor series)")
    span = pd.period_range(quarters[0], quarters[-1], freq="Q")
    if len(span) != len(set(quarters)):
        missing = sorted(set(span) - set(quarters))
        raise FitError("market model: NVIDIA Data Center revenue has gaps at "
                       + ", ".join(quarter_label(q) for q in missing))
    return [quarter_label(q) for q in span]
