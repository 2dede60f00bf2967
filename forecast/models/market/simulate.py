"""Observations simulated from the market model's own math (pure numpy), for recovery tests."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_label
from forecast.models.market.data import CENSORED_COLUMNS, GUIDANCE_COLUMNS, LATENT_GROUPS
from forecast.models.market.math import SERIES_SIGMA, measurement_log_mean, vendor_log_shares
from forecast.models.market.trend import draw_shock_scales


def simulate_total(params: Mapping[str, float], n_quarters: int, level0: float,
                   rng: np.random.Generator, scales: np.ndarray | None = None) -> np.ndarray:
    """Log spend of the anchor group (NVIDIA) from the damped trend: ``g_0 = growth_init``,
    then growth first and the level by the new growth, each quarter (see
    :mod:`forecast.models.market.trend`). ``scales`` (one per quarter after the first,
    default ones) are the quarters' shock variance scales."""
    phi, g_star = params["growth_persistence"], params["growth_longrun"]
    level, growth = level0, params["growth_init"]
    root = np.ones(n_quarters - 1) if scales is None else np.sqrt(scales)
    out = np.empty(n_quarters)
    out[0] = level
    for t in range(1, n_quarters):
        growth = (g_star + phi * (growth - g_star)
                  + params["sigma_growth"] * root[t - 1] * rng.standard_normal())
        level = level + growth + params["sigma_level"] * root[t - 1] * rng.standard_normal()
        out[t] = level
    return out


def simulate_market(params: Mapping[str, float], n_quarters: int = 32,
                    first_quarter: str = "2018Q1", seed: int = 0,
                    amd_start: int | None = None, broadcom_start: int | None = None,
                    level0: float = 0.0) -> dict[str, pd.DataFrame]:
    """Simulate observations in the format of :func:`prepare_market_data`.

    ``params`` holds scalar values of the trend (``growth_longrun``, ``growth_persistence``,
    ``growth_init``, ``sigma_level``, ``sigma_growth``), the walks (``share_sigma`` and
    ``ratio_start_<group>`` for every ratio group) and the measurement layer
    (``nvidia_compute_fraction``, ``broadcom_custom_fraction``, ``amd_cpu_fraction_start``,
    ``amd_cpu_growth``, ``sigma_amd``). NVIDIA Data Center is observed every quarter, AMD
    and Broadcom from ``amd_start`` / ``broadcom_start`` (default: the last half). Returns
    the frames of :func:`prepare_market_data` (no guidance) plus ``truth`` (latent spend per
    quarter) and ``scales`` (each quarter's shock variance scale, drawn from the model's
    InverseGamma: they widen NVIDIA's trend shocks and the custom group's steps), ready for
    :meth:`MarketModel.fit`.
    """
    rng = np.random.default_rng(seed)
    t = np.arange(n_quarters, dtype=float)
    quarters = pd.period_range(pd.Period(first_quarter, freq="Q"), periods=n_quarters, freq="Q")
    labels = [quarter_label(q) for q in quarters]
    # The trend is on NVIDIA's compute spend (the anchor), the total NVIDIA over its share.
    scales = draw_shock_scales(rng, (n_quarters - 1,))
    log_nvidia = simulate_total(params, n_quarters, level0, rng, scales)
    ratio_groups = LATENT_GROUPS[1:]
    starts = np.array([params[f"ratio_start_{g}"] for g in ratio_groups])
    steps = params["share_sigma"] * rng.standard_normal((len(ratio_groups), n_quarters))
    steps[ratio_groups.index("custom"), 1:] *= np.sqrt(scales)
    eta = starts[:, None] + np.cumsum(steps, axis=1)
    log_shares = vendor_log_shares(eta)
    log_total = log_nvidia - log_shares[0]
    log_a = log_total + log_shares
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
            "guidance": pd.DataFrame(columns=GUIDANCE_COLUMNS),
            "truth": truth.rename_axis("quarter").reset_index(),
            "scales": pd.DataFrame({"quarter": labels[1:], "scale": scales})}
