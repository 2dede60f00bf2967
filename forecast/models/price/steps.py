"""Hyperscaler list prices as steps: a price holds until the cloud moves it (pure numpy/pandas).

A list price (a hyperscaler's on-demand or commitment price, :func:`price_class`) is published
and held: AWS's A100 40GB on-demand price stood at $4.10 from 2021 to March 2025 and was cut
to $2.74 in June 2025. Moves arrive as a Poisson process with a yearly ``hazard``; each moves
the log price by a normal ``size`` (mostly cuts, some rises: Azure's commitment prices rose).
The price model learns the hazard and the size distribution from the list histories, pooled
across hyperscalers, and forecasts every list series from its last observed price.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

SERIES_KEY = ["chip", "provider_or_index", "pricing_type"]
HISTORY_COLUMNS = [*SERIES_KEY, "date", "usd_per_chip_hour"]
#: A log change below this is a held price (list prices are quoted to the cent).
HELD_TOLERANCE = 1e-9
DAYS_PER_YEAR = 365.25


def list_history(prices: pd.DataFrame, listed: np.ndarray) -> pd.DataFrame:
    """Every list price observation, one per series and date, sorted by series and date.

    ``listed`` marks the rows of ``prices`` that are list prices
    (:func:`~forecast.models.price.data.price_class`). Held prices are kept (unlike
    :func:`~forecast.models.price.data.collapse_held_prices`): the time a price held is
    what the hazard is learnt from. Several quotes of one series on one date (regions listed
    under one name) are read as their median.
    """
    rows = prices.loc[np.asarray(listed, dtype=bool), HISTORY_COLUMNS].copy()
    for column in SERIES_KEY:
        rows[column] = rows[column].astype(str)
    history = rows.groupby([*SERIES_KEY, "date"], as_index=False)["usd_per_chip_hour"].median()
    return history.sort_values([*SERIES_KEY, "date"], ignore_index=True)


def list_intervals(history: pd.DataFrame) -> pd.DataFrame:
    """Consecutive observations of each list series: ``years`` between them, the log
    ``change`` and whether the price ``moved`` (one row per pair)."""
    frames = []
    for _, series in history.groupby(SERIES_KEY, sort=False):
        dates = series["date"].to_numpy()
        log_price = np.log(series["usd_per_chip_hour"].to_numpy(float))
        years = np.diff(dates) / np.timedelta64(1, "D") / DAYS_PER_YEAR
        change = np.diff(log_price)
        frames.append(pd.DataFrame({"years": years, "change": change}))
    if not frames:
        return pd.DataFrame({"years": [], "change": [], "moved": []})
    intervals = pd.concat(frames, ignore_index=True)
    intervals["moved"] = np.abs(intervals["change"]) > HELD_TOLERANCE
    return intervals


def last_list_prices(history: pd.DataFrame) -> pd.DataFrame:
    """The last observation of each list series (its key, date and price)."""
    return history.groupby(SERIES_KEY, as_index=False, sort=False).last()


def step_log_change(hazard: np.ndarray, size_mu: np.ndarray, size_sd: np.ndarray,
                    years: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Sampled log change of a list price over ``years`` (cumulative along the last axis).

    Parameters
    ----------
    hazard, size_mu, size_sd
        Per draw (shape ``(draws,)``): moves per year and the normal log size of a move.
    years
        Non-negative lengths of consecutive intervals, shape ``(n,)`` or ``(draws, n)``.
    rng
        Random generator.

    Returns
    -------
    numpy.ndarray
        ``(draws, n)``: the log change from the start to the end of each interval; exactly 0
        where no move arrived, so a held price is reproduced to the last bit.
    """
    draws = len(hazard)
    years = np.broadcast_to(np.maximum(np.asarray(years, dtype=float), 0.0),
                            (draws, np.shape(years)[-1]))
    moves = rng.poisson(hazard[:, None] * years)
    # The sum of n normal moves is normal with mean n mu and sd sqrt(n) sigma.
    jumps = moves * size_mu[:, None] + np.sqrt(moves) * size_sd[:, None] * rng.standard_normal(
        moves.shape)
    return np.cumsum(np.where(moves > 0, jumps, 0.0), axis=1)


def held_prices(history: pd.DataFrame, companies: dict[str, str], dates: pd.DatetimeIndex
                ) -> np.ndarray:
    """The list price in force at each date: per company, its latest observation on or
    before the date (across the provider names it lists under), then the geometric mean
    over the companies; NaN before the first observation.

    ``history`` holds one chip and pricing type (:func:`list_history` rows).
    """
    company = history["provider_or_index"].map(lambda name: companies.get(name, name))
    when = np.asarray(dates, dtype="datetime64[ns]")
    logs = []
    for _, listing in history.assign(company=company).sort_values(
            "date", kind="stable").groupby("company", sort=False):
        seen = np.searchsorted(listing["date"].to_numpy(dtype="datetime64[ns]"), when,
                               side="right")
        prices = np.log(listing["usd_per_chip_hour"].to_numpy(float))
        logs.append(np.where(seen > 0, prices[np.maximum(seen - 1, 0)], np.nan))
    if not logs:
        return np.full(len(when), np.nan)
    stacked = np.vstack(logs)
    listed = np.isfinite(stacked).sum(axis=0)
    total = np.where(np.isfinite(stacked), stacked, 0.0).sum(axis=0)
    return np.where(listed > 0, np.exp(total / np.maximum(listed, 1)), np.nan)


@dataclass(frozen=True)
class StepLayout:
    """What the step paths of one chip and pricing type take from its list history at some
    dates: the price in force at each date (:func:`held_prices`), which dates fall after
    the last observation, the price in force then, and the years from it to each of those
    dates, each from the previous one (:func:`step_log_change`'s intervals)."""

    held: np.ndarray
    after: np.ndarray
    start: float
    years: np.ndarray


def step_layout(history: pd.DataFrame, companies: dict[str, str], dates: pd.DatetimeIndex
                ) -> StepLayout:
    """The :class:`StepLayout` of ``history`` (one chip and pricing type) at ``dates``."""
    held = held_prices(history, companies, dates)
    last = history["date"].max()
    after = np.asarray(dates > last)
    start = held_prices(history, companies, pd.DatetimeIndex([last]))[0]
    years = np.diff(np.concatenate([[last.to_datetime64()], dates[after].to_numpy()])
                    ) / np.timedelta64(1, "D") / DAYS_PER_YEAR
    return StepLayout(held, after, float(start), years)


def chip_step_layout(history: pd.DataFrame, chip: str, pricing_type: str,
                     companies: dict[str, str], dates: pd.DatetimeIndex) -> StepLayout | None:
    """The :class:`StepLayout` of one chip and pricing type in ``history`` (every chip's
    :func:`list_history` rows) at ``dates``; None when it was never listed at that type."""
    if history.empty:
        return None
    mine = history[(history["chip"] == chip) & (history["pricing_type"] == pricing_type)]
    if mine.empty:
        return None
    return step_layout(mine, companies, dates)


def step_paths(layout: StepLayout, params: tuple[np.ndarray, np.ndarray, np.ndarray],
               rng: np.random.Generator) -> np.ndarray:
    """List-price paths (draws x dates) of one chip and pricing type laid out at some dates
    (:func:`step_layout`): the price in force up to the last observation, then moves of the
    step process from there (``params`` = per-draw hazard, mean and sd of a move's log
    size)."""
    paths = np.repeat(layout.held[None, :], len(params[0]), axis=0)
    if layout.after.any():
        paths[:, layout.after] = layout.start * np.exp(step_log_change(*params, layout.years,
                                                                        rng))
    return paths
