"""The share model's inputs: the market model's measured log-ratios and the cost covariate.

The share model is fitted to what the market model (M3) measures, so the package gives one
answer to "how much did AMD sell in 2025Q2": the market fit's posterior mean of
``log(spend_v / spend_nvidia)`` per quarter is the measurement of vendor v, in the quarters
where a reported series informs that vendor's spend (:data:`EVIDENCE`); elsewhere the cell
is unmeasured and the state is predicted through it. The posterior variance of each cell is
kept (``alr_cov``, diagonal) for the naive baseline and the scores; the filter's
measurement noise is the model's own ``obs_sd``.

Pure numpy and pandas: the market fit is read through its ``forecast`` (numpy only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.economics.share_inputs import ShareData

#: The log-ratio reference: the first vendor of the data, measured in every quarter.
NVIDIA = "nvidia"

#: Which reported evidence in the market model's inputs informs each rival's spend in a
#: quarter: ``(frame, series)`` pairs of the market fit's data (``observations`` rows of a
#: series, or every row of ``volumes``). Google's TPUs and the custom part of ``other`` are
#: both read from Broadcom's AI revenue; AWS from Epoch's Trainium2 shipments.
EVIDENCE: dict[str, tuple[tuple[str, str | None], ...]] = {
    "amd": (("observations", "amd_data_center"),),
    "google": (("observations", "broadcom_ai"),),
    "aws": (("volumes", None),),
    "other": (("observations", "broadcom_ai"),),
}


def measured_quarters(frames: Mapping[str, pd.DataFrame], quarters: list[str],
                      vendors: list[str]) -> np.ndarray:
    """(T, V) whether each vendor's spend is measured in each quarter: the reference in
    every quarter, a rival where reported evidence of it (:data:`EVIDENCE`) has a row of the
    market model's input ``frames`` (no fit needed)."""
    observed = np.zeros((len(quarters), len(vendors)), dtype=bool)
    observed[:, 0] = True
    for k, vendor in enumerate(vendors[1:], start=1):
        marks = _evidence_quarters(frames, vendor)
        observed[:, k] = [q in marks for q in quarters]
    return observed


def measured_cells(data: ShareData) -> tuple[np.ndarray, np.ndarray]:
    """``(y, seen)``: (T, V) measured log-ratios of the rivals (0 where unmeasured) and the
    0/1 mask of measured cells."""
    seen = data.observed[:, 1:].astype(float)
    y = np.where(seen > 0, np.nan_to_num(data.alr_mean), 0.0)
    if not np.all(np.isfinite(y)):
        raise ForecastError("share model: measured log-ratios are not finite")
    return y, seen


def _evidence_quarters(frames: Mapping[str, pd.DataFrame], vendor: str) -> set[str]:
    quarters: set[str] = set()
    for frame_name, series in EVIDENCE.get(vendor, ()):
        frame = frames.get(frame_name)
        if frame is None or frame.empty:
            continue
        rows = frame if series is None else frame[frame["series"] == series]
        quarters.update(str(q) for q in rows["quarter"])
    return quarters


def market_log_ratios(market: Any) -> tuple[list[str], list[str], np.ndarray]:
    """(quarters, vendors, samples (S, T, V-1)) of the market fit's in-sample log-ratios of
    each vendor's spend to NVIDIA's (every posterior sample)."""
    history = market.forecast([], include_history=True)
    spend = history["spend"].transpose("draw", "quarter", "vendor")
    vendors = [str(v) for v in spend["vendor"].values]
    if vendors[0] != NVIDIA:
        raise ForecastError(f"market vendors must start with {NVIDIA!r}, got {vendors}")
    values = np.log(spend.values)
    return ([str(q) for q in spend["quarter"].values], vendors,
            values[..., 1:] - values[..., :1])


def share_data_from_market(market: Any, log_cost: pd.DataFrame,
                           cost_basis: str) -> ShareData:
    """The share model's :class:`ShareData` from a fitted market model and a cost table.

    Parameters
    ----------
    market
        A fitted market model (``forecast``, ``data`` with its input frames).
    log_cost
        Index quarter labels, one column per vendor (the market's five, NVIDIA first): log
        cost per effective PFLOP-hour. It must cover the fit window.
    cost_basis
        Text naming the cost basis.

    Returns
    -------
    ShareData
        From the first quarter in which a rival is measured to the market's last quarter.
    """
    quarters, vendors, ratios = market_log_ratios(market)
    observed = measured_quarters(market.data, quarters, vendors)
    rows = np.flatnonzero(observed[:, 1:].any(axis=1))
    if rows.size < 3:
        raise ForecastError("share model: fewer than three quarters with a measured rival")
    window = slice(int(rows[0]), len(quarters))
    labels = quarters[window]
    missing = [q for q in labels if q not in log_cost.index]
    absent = [v for v in vendors if v not in log_cost.columns]
    if missing or absent:
        raise ForecastError(f"share model: the cost table lacks quarters {missing} or "
                            f"vendors {absent}")
    costs = log_cost.loc[labels, vendors].to_numpy(float)
    if not np.all(np.isfinite(costs)):
        raise ForecastError("share model: a vendor has no cost in the fit window")
    mean = ratios.mean(axis=0)[window]
    var = ratios.var(axis=0)[window]
    mask = observed[window, 1:]
    cov = np.zeros((len(labels), len(vendors) - 1, len(vendors) - 1))
    idx = np.arange(len(vendors) - 1)
    cov[:, idx, idx] = var
    return ShareData(tuple(labels), tuple(vendors), np.where(mask, mean, np.nan),
                     np.where(mask[:, :, None] & mask[:, None, :], cov, np.nan),
                     observed[window], costs, cost_basis)

