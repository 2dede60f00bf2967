"""The PyMC builder of the market model (see :mod:`forecast.models.market`): default priors,
the reported parameters, and the model in pieces (parameters, share walks, total and curve,
measurement layer, censored statements). PyMC is imported inside the functions only."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import FitError
from forecast.core.stats import lognormal_sigma_from_band
from forecast.models.market.data import LATENT_GROUPS, RATIO_GROUPS, SERIES, market_timeline
from forecast.models.market.math import (
    SERIES_GROUP,
    SERIES_SIGMA,
    ar1_logp,
    bridge_walk,
    gompertz_log,
    measurement_log_mean,
    vendor_log_shares,
)
from forecast.models.priors import prior

#: Softness (log scale) of censored and interval observations: a statement is not exact
#: ("several" has no sharp edge), and hard edges make divergences in NUTS.
CENSOR_SOFTNESS = 0.2

#: Default priors. Each carries its rationale; override any of them from a scenario's
#: ``[priors.market]`` table (the ceiling comes from its ``tam_ceiling_usd_billions`` input).
DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "ceiling": {
        "dist": "lognormal", "median": 600.0, "sigma": 0.6,
        "unit": "USD billions per year",
        "rationale": "Annual accelerator spend ceiling K*4. Vendors' own TAM statements in "
                     "market_estimates.csv run $150-500B for 2027-28 (AMD); the 90% prior "
                     "range, about $220-1600B, spans them and a 3x higher outcome. The "
                     "scenario's tam_ceiling_usd_billions replaces it.",
    },
    "growth_decay": {
        "dist": "lognormal", "median": 0.08, "sigma": 0.6, "unit": "1 / quarter",
        "rationale": "Gompertz rate c: growth in log spend halves every ln2/c quarters "
                     "(about 2 years at the median); 90% range 0.03-0.21.",
    },
    "level_offset": {
        "dist": "normal", "mu": 0.0, "sigma": 1.0, "unit": "log USD",
        "rationale": "Log total spend on the curve at the last data quarter, relative to the "
                     "last NVIDIA Data Center figure: the data pin it, the prior is only a "
                     "scale (a factor e = 2.7 either way).",
    },
    "ar_phi": {
        "dist": "beta", "alpha": 5.0, "beta": 2.0,
        "rationale": "Persistence of deviations from the curve (capex cycles last several "
                     "quarters); mean 0.71, little mass near 1 where the AR(1) and the curve "
                     "stop being separately identified.",
    },
    "ar_sigma": {
        "dist": "halfnormal", "sigma": 0.15, "unit": "log USD / quarter",
        "rationale": "Quarterly shock to log total spend: a 15% surprise is ordinary, 40% "
                     "(2023Q2) is rare.",
    },
    "share_sigma": {
        "dist": "lognormal", "median": 0.12, "sigma": 0.5, "unit": "log-ratio / quarter",
        "rationale": "Random-walk step of each vendor's log spend relative to NVIDIA; 90% "
                     "range 5-27% a quarter. Lognormal, not half-normal: a share that never "
                     "moves is implausible and the zero region is a funnel for the sampler.",
    },
    "ratio_start_amd": {
        "dist": "normal", "mu": -3.0, "sigma": 1.0,
        "rationale": "log(AMD / NVIDIA accelerator spend) in the first data quarter (2019): "
                     "AMD's MI50/MI100 sold a few percent of NVIDIA's volume.",
    },
    "ratio_start_custom": {
        "dist": "normal", "mu": -2.0, "sigma": 1.0,
        "rationale": "log(custom XPU / NVIDIA spend) in 2019: TPUs were in their third "
                     "generation; a tenth of NVIDIA's DC compute is the centre, wide.",
    },
    "ratio_start_aws": {
        "dist": "normal", "mu": -4.0, "sigma": 1.5,
        "rationale": "log(AWS Trainium/Inferentia / NVIDIA spend) in 2019: Inferentia1 only "
                     "(Trainium1 is 2022); about 2% of NVIDIA, very wide.",
    },
    "nvidia_compute_fraction": {
        "dist": "beta", "alpha": 8.0, "beta": 2.0,
        "rationale": "Compute share of NVIDIA's Data Center segment (the rest is networking). "
                     "The networking rows on file put it at 0.78-0.92; they enter the "
                     "likelihood, so the prior (mean 0.8, sd 0.12) is kept wider than them.",
    },
    "broadcom_custom_fraction": {
        "dist": "beta", "alpha": 6.5, "beta": 3.5,
        "rationale": "Custom-accelerator (XPU) share of Broadcom's AI revenue, the rest being "
                     "AI networking; management commentary puts networking near a third. "
                     "No row splits it: prior-only (mean 0.65, sd 0.14).",
    },
    "google_fraction_of_custom": {
        "dist": "beta", "alpha": 7.0, "beta": 3.0,
        "rationale": "Google TPU share of Broadcom's custom accelerators (Meta MTIA and others "
                     "the rest); Google is the largest XPU customer. Prior-only.",
    },
    "amd_cpu_fraction_start": {
        "dist": "beta", "alpha": 9.0, "beta": 1.5,
        "rationale": "CPU (EPYC) share of AMD's Data Center segment in its first data "
                     "quarter (2023Q1): MI300 shipped from December 2023; mean 0.86.",
    },
    "amd_cpu_growth": {
        "dist": "normal", "mu": 0.025, "sigma": 0.025, "unit": "log USD / quarter",
        "rationale": "Growth of AMD's server-CPU revenue, about 10% a year, 90% range "
                     "-7% to +30% a year.",
    },
    "aws_chip_value": {
        "dist": "lognormal", "median": 10000.0, "sigma": 0.7, "unit": "USD per Trainium2",
        "rationale": "Spend per Trainium2 chip (chip, HBM, board at cost; no merchant "
                     "margin): about a third of an H100's selling price; 90% range "
                     "$3k-32k. Amazon's 'several billion' statement then informs it.",
    },
    "sigma_networking": {
        "dist": "halfnormal", "sigma": 0.3,
        "rationale": "Networking's share of NVIDIA's segment swings (8-22% on file): the "
                     "networking and compute rows scatter around the constant fraction.",
    },
    "sigma_amd": {
        "dist": "lognormal", "median": 0.05, "sigma": 0.5,
        "rationale": "AMD's DC segment around accelerator + CPU curve (log scale); 90% "
                     "range 2-11%. Bounded away from 0 (an exact proxy is implausible).",
    },
}

#: Parameters reported by ``summary()`` and gated on.
SUMMARY_VARS: list[str] = [
    "ceiling", "growth_decay", "level_offset", "ar_phi", "ar_sigma", "share_sigma",
    "nvidia_compute_fraction", "broadcom_custom_fraction", "amd_cpu_fraction_start",
    "amd_cpu_growth", "aws_chip_value", "sigma_networking", "sigma_amd",
    "log_total",
]

#: The three parts of a share walk with non-centred innovations (see :func:`_ratio_walk`).
WALK_PARTS: tuple[str, ...] = ("", "_pre", "_post")


def innovation_name(group: str, part: str = "") -> str:
    """Name of a share walk's standard-normal innovations (``part`` in :data:`WALK_PARTS`)."""
    return f"z_ratio_{group}{part}"


#: Every non-centred innovation the builder may create: not needed to forecast.
INNOVATION_VARS: tuple[str, ...] = tuple(
    innovation_name(group, part) for group in RATIO_GROUPS for part in WALK_PARTS)


def ceiling_prior(tam_ceiling: Any) -> dict[str, Any]:
    """Lognormal prior of the annual spend ceiling matched to a distribution's P10-P90.

    ``tam_ceiling`` is the scenario input ``tam_ceiling_usd_billions`` (anything with
    ``quantile(q)``): the prior's median is its P50, its sigma puts P10 and P90 at the
    lognormal's 10% and 90% quantiles.
    """
    p10, p50, p90 = (float(tam_ceiling.quantile(q)) for q in (0.1, 0.5, 0.9))
    return {"dist": "lognormal", "median": p50,
            "sigma": float(lognormal_sigma_from_band(p10, p90, 0.8))}


# --------------------------------------------------------------------------- the model


def build_market_model(data: Mapping[str, pd.DataFrame],
                       priors: Mapping[str, Mapping[str, Any]]) -> Any:
    """The PyMC model of the package docstring for prepared ``data`` and complete ``priors``.

    NVIDIA's Data Center figure is taken as exact given the compute fraction, so the total's
    AR(1) deviation in each quarter is a function of the data and the parameters
    (``u_t = log S_t - curve_t``) and enters through its AR(1) density: no latent
    innovations for the total, the geometry NUTS likes best. The pieces are built in a fixed
    order (it fixes the sampler's parameter layout, hence the sampled numbers).
    """
    import pymc as pm
    import pytensor.tensor as pt

    timeline = market_timeline(data)
    index = {q: i for i, q in enumerate(timeline)}
    obs = data["observations"]
    obs = obs[obs["quarter"].isin(index)]
    anchor = obs[obs["series"] == "nvidia_data_center"].sort_values("quarter")
    log_dc = np.log(anchor["value"].to_numpy())
    coords = {"quarter": timeline, "ratio_group": list(RATIO_GROUPS),
              "group": list(LATENT_GROUPS)}
    with pm.Model(coords=coords) as model:
        params = _parameters(priors)
        log_nv = log_dc + pt.log(params["nvidia_compute_fraction"])
        eta = _share_walks(obs, index, params, log_nv)
        log_a = _total_and_curve(eta, log_nv, float(log_dc[-1]), params, len(timeline))
        _measurements(obs, index, log_a, params, priors)
        _trainium_volumes(data["volumes"], index, log_a, priors)
        _censored_statements(data["censored"], index, log_a)
    return model


def _parameters(priors: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The model-wide parameters, in the order they enter the model."""
    import pytensor.tensor as pt

    p = priors
    params = {
        # Scenarios differ in the ceiling's values only: pm.Data, so one compiled sampler
        # serves them all.
        "ceiling": prior("ceiling", p["ceiling"], swappable=True),
        "growth_decay": prior("growth_decay", p["growth_decay"]),
        "level_offset": prior("level_offset", p["level_offset"]),
        "ar_phi": prior("ar_phi", p["ar_phi"]),
        "ar_sigma": prior("ar_sigma", p["ar_sigma"]),
        "share_sigma": prior("share_sigma", p["share_sigma"], dims="ratio_group"),
    }
    params["ratio_starts"] = pt.stack([prior(f"ratio_start_{g}", p[f"ratio_start_{g}"])
                                       for g in RATIO_GROUPS])
    for key in ("nvidia_compute_fraction", "broadcom_custom_fraction",
                "google_fraction_of_custom", "sigma_networking", "sigma_amd"):
        params[key] = prior(key, p[key])
    return params


def _share_walks(obs: pd.DataFrame, index: Mapping[str, int], params: Mapping[str, Any],
                 log_nv: Any) -> Any:
    """Log-ratios to NVIDIA (ratio_group x quarter): one random walk per group.

    Where a group is measured exactly (custom, through Broadcom) the walk is centred on the
    data; AMD (observed with noise, level pinned) is centred over its observed span; elsewhere
    it is non-centred (unobserved quarters, where that is the better geometry). Not AWS: its
    level is set only by a loose interval, so a centred walk and the chip value form a ridge.
    """
    import pymc as pm
    import pytensor.tensor as pt

    exact = obs[obs["series"] == "broadcom_ai"].sort_values("quarter")
    noisy = obs.loc[obs["series"] == "amd_data_center", "quarter"]
    paths = []
    for g, group in enumerate(RATIO_GROUPS):
        block = None
        if group == "custom" and len(exact):
            idx = np.array([index[q] for q in exact["quarter"]])
            if not np.all(np.diff(idx) == 1):
                raise FitError("market model: Broadcom AI revenue has gaps")
            values = (np.log(exact["value"].to_numpy())
                      + pt.log(params["broadcom_custom_fraction"]) - log_nv[idx])
            block = (int(idx[0]), len(idx), values)
        if group == "amd":
            observed = [index[q] for q in noisy if q in index]
            if observed:
                block = (min(observed), max(observed) - min(observed) + 1, None)
        paths.append(_ratio_walk(group, params["ratio_starts"][g], params["share_sigma"][g],
                                 len(index), block))
    return pm.Deterministic("log_ratio", pt.stack(paths), dims=("ratio_group", "quarter"))


def _ratio_walk(group: str, start: Any, step: Any, n: int,
                block: tuple[int, int, Any] | None) -> Any:
    """Random walk ``eta_t = eta_{t-1} + step z_t`` (``eta_{-1} = start``) over ``n`` quarters.

    Without ``block`` the walk is split into its total rise ``eta_{n-1} - start`` (centred,
    ``Normal(0, step sqrt(n))``) and a non-centred Brownian bridge from 0 to 0; see
    :func:`bridge_walk`. With ``block = (a, m, values)`` the quarters ``a .. a + m - 1`` are
    known (functions of data and parameters; ``values`` None: observed with noise): their
    steps enter through the walk's density, the quarters before are a bridge from ``start``
    and those after stay non-centred.
    """
    import pymc as pm
    import pytensor.tensor as pt

    if block is None:
        z = pm.Normal(innovation_name(group), 0.0, 1.0, shape=n)
        rise = pm.Normal(f"ratio_rise_{group}", 0.0, step * math.sqrt(n))
        return bridge_walk(start, rise, step, z, xp=pt)
    a, m, values = block
    pieces = []
    previous = start
    if a > 0:
        # Unobserved quarters between the start and the known block: a bridge again, so
        # the rise to the block's (data-pinned) level is a parameter of its own.
        z_pre = pm.Normal(innovation_name(group, "_pre"), 0.0, 1.0, shape=a)
        rise = pm.Normal(f"ratio_rise_{group}_pre", 0.0, step * math.sqrt(a))
        pre = bridge_walk(start, rise, step, z_pre, xp=pt)
        pieces.append(pre)
        previous = pre[-1]
    if values is None:
        # Observed with noise: centred walk over the observed quarters (the data pin it).
        values = pm.GaussianRandomWalk(
            f"ratio_{group}_observed", mu=0.0, sigma=step,
            init_dist=pm.Normal.dist(previous, step), steps=m - 1)
    else:
        steps = pt.concatenate([pt.atleast_1d(values[0] - previous), values[1:] - values[:-1]])
        pm.Potential(f"walk_{group}", pm.logp(pm.Normal.dist(0.0, step), steps).sum())
    pieces.append(values)
    after = n - a - m
    if after > 0:
        z_post = pm.Normal(innovation_name(group, "_post"), 0.0, 1.0, shape=after)
        pieces.append(values[-1] + step * pt.cumsum(z_post))
    return pt.concatenate(pieces)


def _total_and_curve(eta: Any, log_nv: Any, last_log_dc: float, params: Mapping[str, Any],
                     n: int) -> Any:
    """Total spend implied by exact NVIDIA compute spend and the shares, its Gompertz curve
    and the AR(1) density of the deviation; returns log spend (group x quarter)."""
    import pymc as pm
    import pytensor.tensor as pt

    t = np.arange(n, dtype=float)
    log_shares = vendor_log_shares(eta, xp=pt)
    log_total = pm.Deterministic("log_total", log_nv - log_shares[0], dims="quarter")
    log_a = pm.Deterministic("log_spend", log_total[None, :] + log_shares,
                             dims=("group", "quarter"))
    level = pm.Deterministic("level_ref", last_log_dc + params["level_offset"])
    curve = gompertz_log(t, pt.log(params["ceiling"] / 4.0), level, params["growth_decay"],
                         float(n - 1), xp=pt)
    dev = pm.Deterministic("dev", log_total - curve, dims="quarter")
    pm.Potential("ar1_total", ar1_logp(dev, params["ar_phi"], params["ar_sigma"], xp=pt))
    return log_a


def _measurements(obs: pd.DataFrame, index: Mapping[str, int], log_a: Any,
                  params: Mapping[str, Any], priors: Mapping[str, Mapping[str, Any]]) -> None:
    """The noisy revenue series (NVIDIA networking and compute rows, AMD Data Center with its
    CPU curve) as Normal likelihoods in log; exact series entered through the walks."""
    import pymc as pm
    import pytensor.tensor as pt

    t = np.arange(len(index), dtype=float)
    amd = obs[obs["series"] == "amd_data_center"].sort_values("quarter")
    cpu = None
    if len(amd):
        t_amd = index[amd["quarter"].iloc[0]]
        frac = prior("amd_cpu_fraction_start", priors["amd_cpu_fraction_start"])
        growth = prior("amd_cpu_growth", priors["amd_cpu_growth"])
        cpu0 = frac * float(amd["value"].iloc[0])
        cpu = pm.Deterministic("amd_cpu", cpu0 * pt.exp(growth * (t - t_amd)), dims="quarter")
    for series in SERIES:
        rows = obs[obs["series"] == series]
        noise = SERIES_SIGMA[series]
        if rows.empty or noise is None:
            continue
        idx = np.array([index[q] for q in rows["quarter"]])
        group = LATENT_GROUPS.index(SERIES_GROUP[series])
        mean = measurement_log_mean(series, log_a[group, idx], params,
                                    cpu=None if cpu is None else cpu[idx], xp=pt)
        pm.Normal(f"obs_{series}", mu=mean, sigma=params[noise],
                  observed=np.log(rows["value"].to_numpy()))


def _trainium_volumes(volumes: pd.DataFrame, index: Mapping[str, int], log_a: Any,
                      priors: Mapping[str, Mapping[str, Any]]) -> None:
    """Epoch's Trainium2 shipments = AWS spend / spend per chip, with Epoch's band as error."""
    import pymc as pm
    import pytensor.tensor as pt

    vols = volumes[volumes["quarter"].isin(index)]
    if not len(vols):
        return
    value = prior("aws_chip_value", priors["aws_chip_value"])
    idx = np.array([index[q] for q in vols["quarter"]])
    group = LATENT_GROUPS.index("aws")
    # units = spend / value per chip; spend in USD bn.
    mean = log_a[group, idx] + math.log(1e9) - pt.log(value)
    pm.Normal("obs_aws_trainium2_units", mu=mean, sigma=vols["sd_log"].to_numpy(),
              observed=np.log(vols["units"].to_numpy()))


def _censored_statements(censored: pd.DataFrame, index: Mapping[str, int], log_a: Any) -> None:
    """Soft bounds on a group's spend summed over quarters: ``lower`` (AMD Instinct > $5B in
    a year) and ``interval`` (Amazon's "several billion" run rate); see
    :data:`CENSOR_SOFTNESS`."""
    import pymc as pm

    std_normal = pm.Normal.dist(0.0, 1.0)
    for k, row in enumerate(censored.itertuples(index=False)):
        named = str(row.quarters).split(",")
        quarters = [q for q in named if q in index]
        # A full-year bound needs the whole year inside the timeline.
        if not quarters or (row.kind == "lower" and len(quarters) < len(named)):
            continue
        group = LATENT_GROUPS.index(row.group)
        idx = np.array([index[q] for q in quarters])
        log_sum = pm.math.logsumexp(log_a[group, idx])
        if row.kind == "lower":
            z = (log_sum - math.log(row.lower)) / CENSOR_SOFTNESS
            pm.Potential(f"censored_{k}", pm.logcdf(std_normal, z))
        else:
            upper = pm.logcdf(std_normal, (math.log(row.upper) - log_sum) / CENSOR_SOFTNESS)
            lower = pm.logcdf(std_normal, (math.log(row.lower) - log_sum) / CENSOR_SOFTNESS)
            pm.Potential(f"censored_{k}", pm.math.logdiffexp(upper, lower))
