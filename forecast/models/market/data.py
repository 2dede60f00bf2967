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

from forecast.core.calendar import quarter_label
from forecast.core.errors import FitError, ForecastError
from forecast.core.scenario_contract import NUMBER_READING

#: Vendor groups of the forecast output (``custom`` is split into google / other_custom).
VENDORS: tuple[str, ...] = ("nvidia", "amd", "google", "other_custom", "aws")
#: Groups with their own latent state; ``nvidia`` is the log-ratio reference.
LATENT_GROUPS: tuple[str, ...] = ("nvidia", "amd", "custom", "aws")
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
    """The frames the model fits: ``observations``, ``censored``, ``volumes``.

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
        5-95% band).
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
    censored = (instinct_lower_bounds(dataset.revenue)
                + trainium_run_rates(dataset.aws_custom_silicon, qualitative, number_factors))
    return {"observations": observations,
            "censored": pd.DataFrame(censored, columns=CENSORED_COLUMNS),
            "volumes": trainium2_volumes(dataset.volumes)}


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
