"""Evidence beyond the reported series, as PyMC likelihood terms: vendors' guidance and
soft bounds from statements and published estimates (see :mod:`forecast.models.market`).

PyMC is imported inside the functions only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import period_index
from forecast.models.market.data import LATENT_GROUPS
from forecast.models.market.math import measurement_log_mean

#: Softness (log scale) of censored and interval observations: a statement is not exact
#: ("several" has no sharp edge), and hard edges make divergences in NUTS.
CENSOR_SOFTNESS = 0.2
#: Softness of a share interval, in log share: published shares are rounded estimates.
SHARE_SOFTNESS = 0.05

#: Guided series -> (beat, scatter) parameter names.
GUIDE_PARAMS: dict[str, tuple[str, str]] = {
    "nvidia_data_center": ("guide_beat_nvidia", "guide_sigma_nvidia"),
    "broadcom_ai": ("guide_beat_broadcom", "guide_sigma_broadcom"),
}


def nowcast_quarter(guides: pd.DataFrame, timeline: Sequence[str]) -> str | None:
    """The quarter after the data end when NVIDIA has guided it (the filter then runs one
    step further), else None."""
    if guides is None or guides.empty:
        return None
    nvidia = guides[(guides["series"] == "nvidia_data_center") & guides["actual"].isna()]
    after = [q for q in nvidia["quarter"]
             if period_index(q) == period_index(timeline[-1]) + 1]
    return after[0] if after else None


def nowcast_guide(guides: pd.DataFrame, timeline: Sequence[str], params: Mapping[str, Any]
                  ) -> tuple[Any, Any] | None:
    """NVIDIA's guide of the quarter after the data as a reading of that quarter's log
    compute spend, ``log DC + log f_nv`` (the guide plus its mean beat gives log DC), with
    the guide's scatter as its sd. Returns (reading, sd) or None when there is no such
    guide."""
    import pytensor.tensor as pt

    quarter = nowcast_quarter(guides, timeline)
    if quarter is None:
        return None
    row = guides[(guides["series"] == "nvidia_data_center") & (guides["quarter"] == quarter)]
    guided = float(row["guided"].iloc[-1])
    beat, scatter = (params[name] for name in GUIDE_PARAMS["nvidia_data_center"])
    return math.log(guided) + beat + pt.log(params["nvidia_compute_fraction"]), scatter


def guidance_observations(guides: pd.DataFrame, obs: pd.DataFrame, index: Mapping[str, int],
                          log_a: Any, params: Mapping[str, Any]) -> None:
    """Guides as likelihood terms.

    A guide whose quarter has been reported informs its vendor's beat:
    ``log(actual / guided) ~ Normal(beat, scatter)``. A Broadcom guide of a quarter inside
    the timeline that Broadcom has not reported yet observes the custom group's spend there:
    ``log guided + beat ~ Normal(log(A_custom / f_bc), scatter)``. (NVIDIA's guide of the
    quarter after the data is the filter's nowcast step, :func:`nowcast_guide`.)
    """
    import pymc as pm
    import pytensor.tensor as pt

    if guides is None or guides.empty:
        return
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
            mean = measurement_log_mean(series, log_a[group, idx], params, xp=pt)
            pm.Normal(f"obs_guide_{series}", mu=mean - beat, sigma=scatter,
                      observed=np.log(ahead["guided"].to_numpy(float)))


def censored_statements(censored: pd.DataFrame, index: Mapping[str, int], log_a: Any) -> None:
    """Soft bounds of the ``censored`` frame; see :data:`CENSOR_SOFTNESS`.

    ``lower``: a group's spend summed over quarters is above ``lower`` (AMD Instinct > $5B
    in 2024). ``interval``: the sum lies in (lower, upper). ``share``: the group's share of
    the summed spend of every group lies in (lower, upper) (NVIDIA's share of 2024).
    """
    import pymc as pm

    std_normal = pm.Normal.dist(0.0, 1.0)
    for k, row in enumerate(censored.itertuples(index=False)):
        named = str(row.quarters).split(",")
        quarters = [q for q in named if q in index]
        # A full-year bound needs the whole year inside the timeline.
        if not quarters or (row.kind in ("lower", "share") and len(quarters) < len(named)):
            continue
        group = LATENT_GROUPS.index(row.group)
        idx = np.array([index[q] for q in quarters])
        log_sum = pm.math.logsumexp(log_a[group, idx])
        if row.kind == "share":
            log_sum = log_sum - pm.math.logsumexp(log_a[:, idx])
        if row.kind == "lower":
            z = (log_sum - math.log(row.lower)) / CENSOR_SOFTNESS
            pm.Potential(f"censored_{k}", pm.logcdf(std_normal, z))
            continue
        soft = SHARE_SOFTNESS if row.kind == "share" else CENSOR_SOFTNESS
        upper = pm.logcdf(std_normal, (math.log(row.upper) - log_sum) / soft)
        lower = pm.logcdf(std_normal, (math.log(row.lower) - log_sum) / soft)
        pm.Potential(f"censored_{k}", pm.math.logdiffexp(upper, lower))


