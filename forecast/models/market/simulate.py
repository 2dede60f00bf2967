"""Observations simulated from the market model's own math (pure numpy), for recovery tests."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_label
from forecast.models.market.data import CENSORED_COLUMNS, LATENT_GROUPS
from forecast.models.market.math import (
    SERIES_SIGMA,
    ar1_deviations,
    gompertz_log,
    measurement_log_mean,
    vendor_log_shares,
)


def simulate_market(params: Mapping[str, float], n_quarters: int = 32,
                    first_quarter: str = "2018Q1", seed: int = 0,
                    amd_start: int | None = None, broadcom_start: int | None = None
                    ) -> dict[str, pd.DataFrame]:
    """Simulate observations in the format of :func:`prepare_market_data`.

    ``params`` holds scalar values of every parameter in ``DEFAULT_PRIORS`` (the ceiling in
    USD bn per year) with ``level_ref`` (the curve's log level at the last quarter) in
    place of ``level_offset``. NVIDIA Data Center is observed every quarter, AMD and
    Broadcom from ``amd_start`` / ``broadcom_start`` (default: the last half). Returns the
    frames of :func:`prepare_market_data` plus ``truth`` (latent spend per quarter), ready
    for :meth:`MarketModel.fit`.
    """
    rng = np.random.default_rng(seed)
    t = np.arange(n_quarters, dtype=float)
    t_ref = float(n_quarters - 1)
    quarters = pd.period_range(pd.Period(first_quarter, freq="Q"), periods=n_quarters, freq="Q")
    labels = [quarter_label(q) for q in quarters]
    log_k = math.log(params["ceiling"] / 4.0)
    curve = gompertz_log(t, log_k, params["level_ref"], params["growth_decay"], t_ref)
    u = ar1_deviations(rng.standard_normal(n_quarters), params["ar_phi"], params["ar_sigma"])
    log_total = curve + u
    starts = np.array([params["ratio_start_amd"], params["ratio_start_custom"],
                       params["ratio_start_aws"]])
    eta = starts[:, None] + params["share_sigma"] * np.cumsum(
        rng.standard_normal((3, n_quarters)), axis=1)
    log_a = log_total + vendor_log_shares(eta)
    amd_start = n_quarters // 2 if amd_start is None else amd_start
    broadcom_start = n_quarters // 2 if broadcom_start is None else broadcom_start
    ends = [q.end_time.normalize() for q in quarters]

    first_amd = math.exp(log_a[1, amd_start])
    # C_0 chosen so that the CPU fraction of the first AMD observation is the parameter.
    frac = params["amd_cpu_fraction_start"]
    cpu0 = first_amd * frac / (1.0 - frac)
    cpu = cpu0 * np.exp(params["amd_cpu_growth"] * (t - amd_start))
    rows = []
    plan = [("nvidia_data_center", 0, 0), ("amd_data_center", 1, amd_start),
            ("broadcom_ai", 2, broadcom_start)]
    for series, group, start in plan:
        for i in range(start, n_quarters):
            mean = measurement_log_mean(series, log_a[group, i], params, cpu=cpu[i])
            noise = SERIES_SIGMA[series]
            sigma = 0.0 if noise is None else params[noise]
            rows.append({"series": series, "fiscal_period": f"FY{labels[i]}",
                         "calendar_quarter_end": ends[i], "quarter": labels[i],
                         "value": float(np.exp(mean + sigma * rng.standard_normal()))})
    truth = pd.DataFrame(np.exp(log_a).T, index=labels, columns=list(LATENT_GROUPS))
    truth["total"] = np.exp(log_total)
    return {"observations": pd.DataFrame(rows),
            "censored": pd.DataFrame(columns=CENSORED_COLUMNS),
            "volumes": pd.DataFrame(columns=["quarter", "units", "sd_log"]),
            "truth": truth.rename_axis("quarter").reset_index()}
