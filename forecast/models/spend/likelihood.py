"""The spend model's measurement layer: every observation an observed PyMC variable with its
own error (a pointwise log likelihood, a posterior predictive), none a posterior mean or a
``Potential``.

- NVIDIA's Data Center revenue is the common level (exact given the compute fraction; its
  changes are the damped trend's observations, :mod:`forecast.models.spend.builder`); its
  networking and compute rows observe the fraction.
- AMD's Data Center revenue = AMD's accelerator spend + its EPYC CPU curve, with noise.
- Broadcom's AI revenue = the custom group's spend over its XPU fraction, with noise: the one
  datum on Google's and the other Broadcom-built chips, counted once.
- Guides: a reported quarter's guide observes its vendor's beat; Broadcom's guide of a
  quarter it has not reported observes the custom group there; NVIDIA's guide of the quarter
  after the data is the trend's nowcast.
- Visibility: NVIDIA's stated visibility of its revenue over a span observes the revenue
  of the span's quarters, those after the data through the trend's moments.
- Statements: a lower bound (AMD's Instinct revenue "over USD 5 billion" in 2024) is a
  censored observation (the bound, read with :data:`CENSOR_SOFTNESS`); a share interval
  (NVIDIA's 2024 share) a measurement in logits with the interval as its 90% band.

PyMC is imported inside the functions only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import period_index
from forecast.core.errors import FitError
from forecast.models.priors import prior
from forecast.models.spend.evidence import SERIES_GROUP
from forecast.models.spend.math import LATENT_GROUPS

#: Softness (log scale) of a bound read from a statement: "over USD 5 billion" has no sharp
#: edge, and hard edges make divergences in NUTS.
CENSOR_SOFTNESS = 0.2
#: z of the 95th percentile: an interval read as a 90% band spans 2 x 1.645 sd.
Z95 = 1.6448536269514722

#: Sd (log) of stated visibility as a measurement of the revenue of its span: visibility is
#: not a backlog (orders may slip or grow) and NVIDIA's USD 500 billion of 2025-10-28 did
#: not say whether the year's shipped units were inside; 90% of revenue within -22% / +28%.
VISIBILITY_SD = 0.15

#: Guided series -> (beat, scatter) parameter names.
GUIDE_PARAMS: dict[str, tuple[str, str]] = {
    "nvidia_data_center": ("guide_beat_nvidia", "guide_sigma_nvidia"),
    "broadcom_ai": ("guide_beat_broadcom", "guide_sigma_broadcom"),
}


def measurement_log_mean(series: str, log_spend: Any, params: Mapping[str, Any],
                         cpu: Any = None, xp: Any = np) -> Any:
    """Expected log of a reported series given its group's log spend.

    ``nvidia_data_center``: ``log A - log f_nv``; ``nvidia_networking``:
    ``log A + log(1 - f_nv) - log f_nv``; ``nvidia_compute``: ``log A``;
    ``amd_data_center``: ``log(A + C)`` with ``cpu`` = C; ``broadcom_ai``: ``log A - log f_bc``.
    """
    if series == "nvidia_data_center":
        return log_spend - xp.log(params["nvidia_compute_fraction"])
    if series == "nvidia_networking":
        f = params["nvidia_compute_fraction"]
        return log_spend + xp.log(1.0 - f) - xp.log(f)
    if series == "nvidia_compute":
        return log_spend
    if series == "amd_data_center":
        return xp.log(xp.exp(log_spend) + cpu)
    if series == "broadcom_ai":
        return log_spend - xp.log(params["broadcom_custom_fraction"])
    raise FitError(f"unknown series {series!r}")


#: Noise parameter of each reported series (NVIDIA Data Center: the trend's own).
SERIES_NOISE: dict[str, str] = {
    "nvidia_networking": "sigma_networking", "nvidia_compute": "sigma_networking",
    "amd_data_center": "sigma_amd", "broadcom_ai": "sigma_broadcom",
}


def amd_cpu_curve(first_value: float, params: Mapping[str, Any], t: np.ndarray,
                  xp: Any = np) -> Any:
    """AMD's EPYC revenue in its Data Center segment: ``f0 x first value x exp(g t)``."""
    return params["amd_cpu_fraction_start"] * first_value * xp.exp(params["amd_cpu_growth"] * t)


def series_observations(obs: pd.DataFrame, timeline: Sequence[str], window: Sequence[str],
                        log_nv: Any, log_spend: Any, params: dict[str, Any],
                        priors: Mapping[str, Mapping[str, Any]]) -> None:
    """The reported series besides NVIDIA's Data Center revenue, as Normal likelihoods in log.

    NVIDIA's networking and compute rows are read over the whole timeline; AMD's and
    Broadcom's inside the position window (the rivals' positions start there).
    """
    import pymc as pm
    import pytensor.tensor as pt

    full = {q: i for i, q in enumerate(timeline)}
    inside = {q: i for i, q in enumerate(window)}
    amd = obs[(obs["series"] == "amd_data_center") & obs["quarter"].isin(inside)]
    amd = amd.sort_values("quarter")
    cpu = None
    if len(amd):
        params["amd_cpu_fraction_start"] = prior("amd_cpu_fraction_start",
                                                 priors["amd_cpu_fraction_start"])
        params["amd_cpu_growth"] = prior("amd_cpu_growth", priors["amd_cpu_growth"])
        t = np.arange(len(window), dtype=float) - inside[amd["quarter"].iloc[0]]
        cpu = pm.Deterministic("amd_cpu", amd_cpu_curve(float(amd["value"].iloc[0]), params,
                                                        t, xp=pt), dims="position_quarter")
    for series, noise in SERIES_NOISE.items():
        nvidia = SERIES_GROUP[series] == "nvidia"
        index = full if nvidia else inside
        rows = obs[(obs["series"] == series) & obs["quarter"].isin(index)]
        if rows.empty:
            continue
        idx = np.array([index[q] for q in rows["quarter"]])
        level = log_nv[idx] if nvidia else log_spend[LATENT_GROUPS.index(SERIES_GROUP[series]),
                                                     idx]
        mean = measurement_log_mean(series, level, params,
                                    cpu=None if cpu is None else cpu[idx], xp=pt)
        pm.Normal(f"obs_{series}", mu=mean, sigma=params[noise],
                  observed=np.log(rows["value"].to_numpy(float)))


def nowcast_quarter(guides: pd.DataFrame, timeline: Sequence[str]) -> str | None:
    """The quarter after the data end when NVIDIA has guided it, else None."""
    if guides is None or guides.empty:
        return None
    nvidia = guides[(guides["series"] == "nvidia_data_center") & guides["actual"].isna()]
    after = [q for q in nvidia["quarter"]
             if period_index(q) == period_index(timeline[-1]) + 1]
    return after[0] if after else None


def nowcast_guide(guides: pd.DataFrame, timeline: Sequence[str], params: Mapping[str, Any]
                  ) -> tuple[Any, Any, float] | None:
    """NVIDIA's guide of the quarter after the data: (its reading of that quarter's log
    compute spend, ``log guide + beat + log f_nv``; the guide's scatter; the log guide
    itself, the observed value), or None when there is no such guide."""
    import pytensor.tensor as pt

    quarter = nowcast_quarter(guides, timeline)
    if quarter is None:
        return None
    row = guides[(guides["series"] == "nvidia_data_center") & (guides["quarter"] == quarter)]
    log_guided = math.log(float(row["guided"].iloc[-1]))
    beat, scatter = (params[name] for name in GUIDE_PARAMS["nvidia_data_center"])
    return log_guided + beat + pt.log(params["nvidia_compute_fraction"]), scatter, log_guided


def visibility_observations(visibility: pd.DataFrame, quarters: Sequence[str], log_nv: Any,
                            state: Any, trend: Any, params: Mapping[str, Any]) -> None:
    """Stated visibility of NVIDIA's Data Center revenue over a span as an observation of the
    revenue of its quarters: those in the model (``quarters``, NVIDIA's log compute spend
    ``log_nv``) are latent or reported; those after it are the trend's from the last
    quarter's filtered ``state``, read through the moments of
    :func:`~forecast.models.spend.trend.log_sum_moments` (the span's log revenue, its mean
    and variance), with :data:`VISIBILITY_SD` on top. A span that starts before the model's
    quarters, or ends before its last one, is skipped (it says nothing new of the trend)."""
    import pymc as pm
    import pytensor.tensor as pt

    from forecast.models.spend.trend import log_sum_moments

    if visibility is None or visibility.empty:
        return
    index = {q: i for i, q in enumerate(quarters)}
    last = period_index(quarters[-1])
    log_fraction = pt.log(params["nvidia_compute_fraction"])
    for k, row in enumerate(visibility.itertuples(index=False)):
        if row.first not in index or period_index(row.last) <= last:
            continue
        # Compute spend over the span, then Data Center revenue (over the compute fraction).
        horizon = period_index(row.last) - last
        mean, var = log_sum_moments(log_nv[index[row.first]:], state, trend, horizon, xp=pt)
        pm.Normal(f"obs_visibility_{k}", mu=mean - log_fraction,
                  sigma=pt.sqrt(var + VISIBILITY_SD**2), observed=math.log(row.value))


def guidance_observations(guides: pd.DataFrame, obs: pd.DataFrame, window: Sequence[str],
                          log_spend: Any, params: Mapping[str, Any]) -> None:
    """Guides as likelihood terms: ``log(actual / guided) ~ Normal(beat, scatter)`` where the
    guided quarter was reported; ``log guided + beat ~ Normal(log(A_custom / f_bc),
    scatter)`` for a Broadcom guide of a quarter in the window it has not reported."""
    import pymc as pm
    import pytensor.tensor as pt

    if guides is None or guides.empty:
        return
    index = {q: i for i, q in enumerate(window)}
    for series, (beat_name, scatter_name) in GUIDE_PARAMS.items():
        mine = guides[guides["series"] == series]
        known = mine[mine["actual"].notna()]
        beat, scatter = params[beat_name], params[scatter_name]
        if len(known):
            pm.Normal(f"obs_guide_beat_{series}", mu=beat, sigma=scatter,
                      observed=np.log(known["actual"].to_numpy(float)
                                      / known["guided"].to_numpy(float)))
        if series != "broadcom_ai":
            continue
        reported = set(obs.loc[obs["series"] == series, "quarter"])
        ahead = mine[mine["actual"].isna() & mine["quarter"].isin(index)
                     & ~mine["quarter"].isin(reported)]
        if len(ahead):
            idx = np.array([index[q] for q in ahead["quarter"]])
            group = LATENT_GROUPS.index("custom")
            mean = measurement_log_mean(series, log_spend[group, idx], params, xp=pt)
            pm.Normal(f"obs_guide_{series}", mu=mean - beat, sigma=scatter,
                      observed=np.log(ahead["guided"].to_numpy(float)))


def censored_statements(censored: pd.DataFrame, window: Sequence[str], log_spend: Any) -> None:
    """The ``censored`` frame's statements, each an observed variable.

    ``lower``: a group's spend summed over quarters is above ``lower`` (a censored
    observation at the bound). ``share``: the group's share of the summed spend of every
    group lies in (lower, upper), read as a measurement of its logit with the interval as
    its 90% band. A statement whose quarters are not all in the window is skipped.
    """
    import pymc as pm
    import pytensor.tensor as pt

    index = {q: i for i, q in enumerate(window)}
    for k, row in enumerate(censored.itertuples(index=False)):
        quarters = str(row.quarters).split(",")
        if not all(q in index for q in quarters):
            continue
        group = LATENT_GROUPS.index(row.group)
        idx = np.array([index[q] for q in quarters])
        log_sum = pm.math.logsumexp(log_spend[group, idx])
        if row.kind == "lower":
            bound = math.log(row.lower)
            pm.Censored(f"obs_statement_{k}", pm.Normal.dist(log_sum, CENSOR_SOFTNESS),
                        lower=None, upper=bound, observed=bound)
        elif row.kind == "share":
            log_share = log_sum - pm.math.logsumexp(log_spend[:, idx])
            logit = log_share - pt.log1p(-pt.exp(log_share))
            low, high = (math.log(v / (1.0 - v)) for v in (row.lower, row.upper))
            pm.Normal(f"obs_statement_{k}", mu=logit, sigma=(high - low) / (2 * Z95),
                      observed=(low + high) / 2.0)
