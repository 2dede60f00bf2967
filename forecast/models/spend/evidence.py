"""Evidence on vendor spend besides the rivals' costs: reported series, guides, statements.

Pure pandas and numpy. Nobody reports "accelerator spend": vendors report segments that
contain it, and the model links each reported figure to the latent spend through a
measurement layer whose factors are priors (:mod:`forecast.models.spend.builder`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import fiscal_to_calendar_quarter, quarter_index, quarter_label
from forecast.core.errors import FitError, ForecastError

#: Observed series the model links to the latent spend: name -> (company, segment).
SERIES: dict[str, tuple[str, str]] = {
    "nvidia_data_center": ("NVIDIA", "Data Center"),
    "nvidia_networking": ("NVIDIA", "Data Center - networking"),
    "nvidia_compute": ("NVIDIA", "Data Center - compute"),
    "amd_data_center": ("AMD", "Data Center"),
    "broadcom_ai": ("Broadcom", "AI semiconductor revenue"),
}
#: Latent group each observed series measures.
SERIES_GROUP: dict[str, str] = {
    "nvidia_data_center": "nvidia", "nvidia_networking": "nvidia", "nvidia_compute": "nvidia",
    "amd_data_center": "amd", "broadcom_ai": "custom",
}
#: Series with a quarterly history: forecast by ``series`` and scored by the backtests.
FORECAST_SERIES: tuple[str, ...] = (
    "nvidia_data_center", "nvidia_networking", "amd_data_center", "broadcom_ai",
)
#: Columns of the ``censored`` frame.
CENSORED_COLUMNS = ["kind", "group", "quarters", "lower", "upper", "label"]
#: Columns of the ``visibility`` frame: a vendor's stated bookings or visibility over a span.
VISIBILITY_COLUMNS = ["first", "last", "value", "label"]
#: Columns of the ``guidance`` frame.
GUIDANCE_COLUMNS = ["series", "fiscal_period", "quarter", "guided", "actual", "label"]
#: Revenue segment each guided series is reported in: series -> (company, segment).
GUIDED_SERIES: dict[str, tuple[str, str]] = {
    "nvidia_data_center": ("NVIDIA", "Total revenue"),
    "broadcom_ai": ("Broadcom", "AI semiconductor revenue"),
}
#: How published share estimates are read: NVIDIA's share of the five groups' spend over
#: calendar 2024 lies in (lower, upper), a soft interval. The estimates in
#: ``market_estimates.csv`` put NVIDIA at about 90% of the AI GPU market in 2024
#: (TweakTown) and about 80% of AI accelerator revenue in 2025 (Kaiso, low credibility);
#: the interval spans both with room for their different definitions.
NVIDIA_SHARE_2024: tuple[float, float] = (0.75, 0.95)


def observation_frames(dataset: Any) -> dict[str, pd.DataFrame]:
    """``observations`` (series, fiscal_period, calendar_quarter_end, quarter, value in USD
    bn), ``guidance`` (:func:`guidance_rows`) and ``censored`` (kind, group, quarters,
    lower, upper, label: AMD's Instinct lower bounds and NVIDIA's 2024 share interval)."""
    frames = []
    for name in SERIES:
        rows = observed_series(dataset, name)
        rows.insert(0, "series", name)
        frames.append(rows)
    observations = pd.concat(frames, ignore_index=True)
    if not (observations["series"] == "nvidia_data_center").any():
        raise FitError("spend model: no NVIDIA Data Center revenue in the data (the common "
                       "level's series)")
    censored = instinct_lower_bounds(dataset.revenue) + nvidia_share_bounds(observations)
    return {"observations": observations, "guidance": guidance_rows(dataset),
            "censored": pd.DataFrame(censored, columns=CENSORED_COLUMNS),
            "visibility": visibility_rows(dataset)}


def last_reported(observations: pd.DataFrame, guidance: pd.DataFrame, window: list[str],
                  rivals: tuple[str, ...]) -> np.ndarray:
    """Each rival's last window quarter (an index into ``window``) that one of its own
    reported series or their guides observes; the window's last for a rival no series of
    its own observes (AWS and the rest, read through the others' reports and Amazon's
    statements). The window runs past a rival's last report when another vendor reports
    or guides later (NVIDIA's next-quarter guide): there its position is the model's own
    projection."""
    rows = pd.concat([observations[["series", "quarter"]], guidance[["series", "quarter"]]])
    group = rows["series"].map(SERIES_GROUP)
    start, end = quarter_index(window[0]), len(window) - 1
    last = []
    for rival in rivals:
        quarters = rows.loc[group == rival, "quarter"]
        last.append(end if quarters.empty else
                    min(end, max(quarter_index(str(q)) for q in quarters) - start))
    return np.array(last, dtype=int)


def visibility_rows(dataset: Any) -> pd.DataFrame:
    """NVIDIA's stated visibility of its Data Center revenue over a span (first and last
    quarter, USD bn): the bookings rows NVIDIA states for all its buyers together, in USD.

    Single-buyer deals are left out: they overlap each other and the vendor-wide figure
    (``data/bookings_and_deals.csv``'s README), and most start after the horizon's first
    year. A dataset without the bookings table gives an empty frame.
    """
    bookings = getattr(dataset, "bookings", None)
    if bookings is None or bookings.empty:
        return pd.DataFrame(columns=VISIBILITY_COLUMNS)
    rows = bookings[(bookings["supplier"] == "NVIDIA")
                    & (bookings["accelerator_vendor"] == "nvidia")
                    & (bookings["unit"] == "USD billions")
                    & bookings["buyer"].str.startswith("multiple")
                    & bookings["period_start"].notna() & bookings["period_end"].notna()]
    return pd.DataFrame({
        "first": [quarter_label(pd.Period(t, freq="Q")) for t in rows["period_start"]],
        "last": [quarter_label(pd.Period(t, freq="Q")) for t in rows["period_end"]],
        "value": rows["quantity"].to_numpy(float),
        "label": [f"NVIDIA visibility {t:%Y-%m-%d}" for t in rows["published"]]},
        columns=VISIBILITY_COLUMNS)


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
