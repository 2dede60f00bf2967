"""Observations simulated from the spend model's own math (numpy), for recovery tests.

:func:`simulate_spend` draws the common level from the damped trend, the rivals' positions
from their partial adjustment, deviations and ramps, and the reported series through the
measurement layer, and returns the frames :func:`~forecast.models.spend.data.
prepare_spend_data` returns, plus the truth.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_index, quarter_label
from forecast.models.spend.builder import MEASURED_RIVALS
from forecast.models.spend.data import (
    FIRST_POSITION_QUARTER,
    RAMP_COLUMNS,
    RAMP_WIDTH,
    lift_layout,
)
from forecast.models.spend.evidence import CENSORED_COLUMNS, GUIDANCE_COLUMNS, VISIBILITY_COLUMNS
from forecast.models.spend.likelihood import amd_cpu_curve, measurement_log_mean
from forecast.models.spend.math import (
    RIVALS,
    adjusted_positions,
    deviations,
    ramp_curves,
    ramp_lifts,
    targets,
)
from forecast.models.spend.statements import STATEMENT_COLUMNS
from forecast.models.spend.trend import draw_shock_scales

#: AWS's generations of a simulated fit (ramp midpoint as a quarter index offset from the
#: window's first quarter, dense FP8 TFLOPS).
SIMULATED_GENERATIONS = (("Trainium1", 0.0, 190.0), ("Trainium2", 9.0, 1299.0))


def _level(params: Mapping[str, float], n: int, level0: float,
           rng: np.random.Generator) -> np.ndarray:
    """The common level from the damped trend (growth first, then the level by it)."""
    scales = draw_shock_scales(rng, (n - 1,))
    phi, g_star = params["growth_persistence"], params["growth_longrun"]
    level, growth = level0, params["growth_init"]
    out = np.empty(n)
    out[0] = level
    for t in range(1, n):
        root = np.sqrt(scales[t - 1])
        growth = g_star + phi * (growth - g_star) + params["sigma_growth"] * root * \
            rng.standard_normal()
        level = level + growth + params["sigma_level"] * root * rng.standard_normal()
        out[t] = level
    return out


def simulate_spend(params: Mapping[str, float | np.ndarray], ramps: pd.DataFrame,
                   n_quarters: int = 28, first_quarter: str = "2019Q1", seed: int = 0,
                   level0: float = 2.0) -> dict[str, pd.DataFrame]:
    """Simulate the frames of a fit from known parameters.

    ``params`` holds scalars for the trend (``growth_longrun``, ``growth_persistence``,
    ``growth_init``, ``sigma_level``, ``sigma_growth``), the positions
    (``price_coefficient``, ``adjustment_speed``, ``deviation_persistence``,
    ``ecosystem_erosion``; ``ecosystem``, ``deviation_sd`` and ``position_start`` one per
    rival; ``ramp_lift`` and ``ramp_lift_ahead`` one per lifted ramp of ``ramps``), and the
    measurement layer (``nvidia_compute_fraction``, ``broadcom_custom_fraction``,
    ``amd_cpu_fraction_start``, ``amd_cpu_growth``, ``sigma_amd``, ``sigma_broadcom``).
    NVIDIA's Data Center revenue is reported every quarter, AMD's and Broadcom's over the
    position window; the cost gaps are a smooth made-up path. Returns the fit's frames and
    ``truth`` (the rivals' positions and log spend per window quarter).
    """
    rng = np.random.default_rng(seed)
    labels = [quarter_label(quarter_index(first_quarter) + k) for k in range(n_quarters)]
    window = [q for q in labels if quarter_index(q) >= quarter_index(FIRST_POSITION_QUARTER)]
    full_nv = _level(params, n_quarters, level0, rng)
    log_nv = full_nv[n_quarters - len(window):]
    t = np.array([quarter_index(q) for q in window], dtype=float)
    years = (t - t[0]) / 4.0
    gap = 0.2 * np.sin(np.arange(len(window))[None, :] / 3.0 + np.arange(len(RIVALS))[:, None])
    target = targets(params["ecosystem"], params["ecosystem_erosion"],
                     params["price_coefficient"], gap, years)
    deviation = deviations(rng.standard_normal((len(RIVALS), len(window))),
                           params["deviation_persistence"], np.asarray(params["deviation_sd"]))
    # The unreported rivals start at their first target, as in the model.
    measured = np.array([rival in MEASURED_RIVALS for rival in RIVALS])
    start = np.where(measured, np.asarray(params["position_start"], dtype=float), target[:, 0])
    adjusted = adjusted_positions(target, start, params["adjustment_speed"]) + deviation
    lifts = lift_layout(ramps)
    heights = np.concatenate([np.atleast_1d(params["ramp_lift"]),
                              np.atleast_1d(params["ramp_lift_ahead"])])
    position = adjusted + ramp_lifts(heights, ramp_curves(t, lifts["midpoint"], RAMP_WIDTH),
                                     lifts["owner"], len(RIVALS))
    log_spend = np.vstack([log_nv[None, :], log_nv[None, :] + position])
    rows = _reported(params, labels, full_nv, window, log_spend, rng)
    costs = pd.DataFrame(gap.T, columns=list(RIVALS))
    costs.insert(0, "quarter", window)
    truth = pd.DataFrame(position.T, columns=[f"position_{r}" for r in RIVALS])
    truth.insert(0, "quarter", window)
    return {"observations": pd.DataFrame(rows),
            "guidance": pd.DataFrame(columns=GUIDANCE_COLUMNS),
            "censored": pd.DataFrame(columns=CENSORED_COLUMNS), "costs": costs,
            "visibility": pd.DataFrame(columns=VISIBILITY_COLUMNS),
            "ramps": ramps[RAMP_COLUMNS].copy(),
            "aws_generations": pd.DataFrame(
                [{"generation": name, "ramp_midpoint": t[0] + offset, "fp8_dense_tflops": tf}
                 for name, offset, tf in SIMULATED_GENERATIONS]),
            "aws_statements": pd.DataFrame(columns=STATEMENT_COLUMNS),
            "utilisation": pd.DataFrame({"ratio": [1.0], "basis": ["simulated"]}),
            "truth": truth}


def _reported(params: Mapping[str, float | np.ndarray], labels: list[str],
              full_nv: np.ndarray, window: list[str], log_spend: np.ndarray,
              rng: np.random.Generator) -> list[dict[str, object]]:
    """NVIDIA's Data Center revenue every quarter, AMD's and Broadcom's over the window."""
    rows = []
    for k, label in enumerate(labels):
        mean = measurement_log_mean("nvidia_data_center", full_nv[k], params)
        rows.append(_row("nvidia_data_center", label, float(np.exp(mean))))
    cpu = amd_cpu_curve(1.0, params, np.arange(len(window), dtype=float))
    first_amd = np.exp(log_spend[1, 0]) / (1.0 - params["amd_cpu_fraction_start"])
    for k, label in enumerate(window):
        amd = np.log(np.exp(log_spend[1, k]) + first_amd * cpu[k])
        rows.append(_row("amd_data_center", label, float(np.exp(
            amd + params["sigma_amd"] * rng.standard_normal()))))
        broadcom = measurement_log_mean("broadcom_ai", log_spend[2, k], params)
        rows.append(_row("broadcom_ai", label, float(np.exp(
            broadcom + params["sigma_broadcom"] * rng.standard_normal()))))
    return rows


def _row(series: str, label: str, value: float) -> dict[str, object]:
    end = pd.Period(label, freq="Q").end_time.normalize()
    return {"series": series, "fiscal_period": f"FY{label}", "calendar_quarter_end": end,
            "quarter": label, "value": value}
