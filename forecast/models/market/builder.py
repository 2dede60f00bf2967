"""The PyMC builder of the market model (see :mod:`forecast.models.market`): the reported
parameters and the model in pieces (parameters, share walks, total and its damped trend,
measurement layer, guidance, censored statements). PyMC is imported inside the functions
only; the default priors are in :mod:`forecast.models.market.defaults`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import FitError
from forecast.core.stats import lognormal_sigma_from_band
from forecast.models.market.data import LATENT_GROUPS, RATIO_GROUPS, SERIES, market_timeline
from forecast.models.market.evidence import (
    censored_statements,
    guidance_observations,
    nowcast_guide,
)
from forecast.models.market.math import (
    SERIES_GROUP,
    SERIES_SIGMA,
    bridge_walk,
    measurement_log_mean,
    vendor_log_shares,
)
from forecast.models.market.trend import (
    CEILING_HORIZON,
    SHOCK_SCALE_ALPHA,
    SHOCK_SCALE_BETA,
    TrendParams,
    expected_level,
    growth_filter,
    growth_filter_scan,
)
from forecast.models.priors import prior

#: Observation sd of the log total in a reported quarter: the anchor is exact up to the
#: rounding of a reported figure (three significant digits).
OBS_SD = 0.005
#: Softness (log scale) of the ceiling's bound on the expected long-run path.
CEILING_SOFTNESS = 0.25

#: Parameters reported by ``summary()`` and gated on.
SUMMARY_VARS: list[str] = [
    "ceiling", "growth_longrun", "growth_persistence", "growth_init", "sigma_level",
    "sigma_growth", "share_sigma", "nvidia_compute_fraction", "broadcom_custom_fraction",
    "amd_cpu_fraction_start", "amd_cpu_growth", "aws_chip_value", "sigma_networking",
    "sigma_amd", "guide_beat_nvidia", "guide_sigma_nvidia", "guide_beat_broadcom",
    "guide_sigma_broadcom", "shock_scale", "shock_scale_nowcast", "log_total", "level_last",
    "growth_last",
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

    NVIDIA's Data Center figure is taken as exact given the compute fraction, so the log
    total in each quarter is a function of the data, the fraction and the share walks, and
    enters through the damped trend's Kalman likelihood: the trend's states are integrated
    out exactly, no latent innovations for the total (the geometry NUTS likes best). The
    pieces are built in a fixed
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
    coords = {"quarter": timeline, "change": timeline[1:], "ratio_group": list(RATIO_GROUPS),
              "group": list(LATENT_GROUPS)}
    guides = data.get("guidance")
    if guides is None:
        guides = pd.DataFrame()
    with pm.Model(coords=coords) as model:
        params = _parameters(priors)
        params["shock_scale"] = pm.InverseGamma("shock_scale", alpha=SHOCK_SCALE_ALPHA,
                                                beta=SHOCK_SCALE_BETA, dims="change")
        log_nv = log_dc + pt.log(params["nvidia_compute_fraction"])
        eta = _share_walks(obs, index, params, log_nv)
        log_a, log_shares = _total(eta, log_nv)
        nowcast = nowcast_guide(guides, timeline, params)
        if nowcast is not None:
            params["shock_scale_nowcast"] = pm.InverseGamma(
                "shock_scale_nowcast", alpha=SHOCK_SCALE_ALPHA, beta=SHOCK_SCALE_BETA)
        _trend(log_dc, log_nv, log_shares[0, -1], params, nowcast)
        _measurements(obs, index, log_a, params, priors)
        _trainium_volumes(data["volumes"], index, log_a, priors)
        guidance_observations(guides, obs, index, log_a, params)
        censored_statements(data["censored"], index, log_a)
    return model


def _parameters(priors: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The model-wide parameters, in the order they enter the model."""
    import pytensor.tensor as pt

    p = priors
    params = {
        # Scenarios differ in the ceiling's values only: pm.Data, so one compiled sampler
        # serves them all.
        "ceiling": prior("ceiling", p["ceiling"], swappable=True),
        "growth_longrun": prior("growth_longrun", p["growth_longrun"], swappable=True),
    }
    for key in ("growth_persistence", "growth_init", "sigma_level", "sigma_growth"):
        params[key] = prior(key, p[key])
    params["share_sigma"] = prior("share_sigma", p["share_sigma"], dims="ratio_group")
    params["ratio_starts"] = pt.stack([prior(f"ratio_start_{g}", p[f"ratio_start_{g}"])
                                       for g in RATIO_GROUPS])
    for key in ("nvidia_compute_fraction", "broadcom_custom_fraction",
                "google_fraction_of_custom", "rest_custom_fraction", "sigma_networking",
                "sigma_amd", "guide_beat_nvidia", "guide_sigma_nvidia", "guide_beat_broadcom",
                "guide_sigma_broadcom"):
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
        # The custom group is measured exactly, so its steps are data: they share the
        # quarter's shock scale with NVIDIA's trend (a jump in NVIDIA moves the ratio too).
        scales = params["shock_scale"] if group == "custom" else None
        paths.append(_ratio_walk(group, params["ratio_starts"][g], params["share_sigma"][g],
                                 len(index), block, scales))
    return pm.Deterministic("log_ratio", pt.stack(paths), dims=("ratio_group", "quarter"))


def _ratio_walk(group: str, start: Any, step: Any, n: int,
                block: tuple[int, int, Any] | None, scales: Any = None) -> Any:
    """Random walk ``eta_t = eta_{t-1} + step z_t`` (``eta_{-1} = start``) over ``n`` quarters.

    Without ``block`` the walk is split into its total rise ``eta_{n-1} - start`` (centred,
    ``Normal(0, step sqrt(n))``) and a non-centred Brownian bridge from 0 to 0; see
    :func:`bridge_walk`. With ``block = (a, m, values)`` the quarters ``a .. a + m - 1`` are
    known (functions of data and parameters; ``values`` None: observed with noise): their
    steps enter through the walk's density, the quarters before are a bridge from ``start``
    and those after stay non-centred. ``scales`` (one per quarter after the first) widen the
    known block's steps: the step into quarter t has sd ``step sqrt(scales[t - 1])``.
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
        sd = step
        if scales is not None:
            # The step into quarter a + k has the scale of change a + k - 1 (none before
            # the first quarter: scale 1).
            root = pt.sqrt(pt.concatenate([pt.ones(1), scales]))
            sd = step * root[a:a + m]
        pm.Potential(f"walk_{group}", pm.logp(pm.Normal.dist(0.0, sd), steps).sum())
    pieces.append(values)
    after = n - a - m
    if after > 0:
        z_post = pm.Normal(innovation_name(group, "_post"), 0.0, 1.0, shape=after)
        pieces.append(values[-1] + step * pt.cumsum(z_post))
    return pt.concatenate(pieces)


def _total(eta: Any, log_nv: Any) -> tuple[Any, Any]:
    """Total spend implied by exact NVIDIA compute spend and the shares: (log spend per
    group x quarter, log shares per group x quarter)."""
    import pymc as pm
    import pytensor.tensor as pt

    log_shares = vendor_log_shares(eta, xp=pt)
    log_total = pm.Deterministic("log_total", log_nv - log_shares[0], dims="quarter")
    log_a = pm.Deterministic("log_spend", log_total[None, :] + log_shares,
                             dims=("group", "quarter"))
    return log_a, log_shares


def _trend(log_dc: np.ndarray, log_nv: Any, log_share_nv: Any, params: Mapping[str, Any],
           nowcast: tuple[Any, Any] | None) -> None:
    """The damped trend's likelihood of NVIDIA's log compute spend (and of a nowcast guide
    one quarter past the data), its last state, and the ceiling's soft bound on the expected
    total :data:`~forecast.models.market.trend.CEILING_HORIZON` quarters on (NVIDIA's
    expected path over its last share ``log_share_nv``).

    The trend is on the anchor group, measured exactly, not on the total: the total is the
    anchor over its share, and a trend on it would take in every step of the walks of the
    groups nobody reports (AWS, rest), whose noise then inflates the growth shocks (tried:
    r_hat 1.5 and twice the growth sd). With the anchor exact, the changes of its log are
    data (the compute fraction cancels) and a one-dimensional growth filter
    (:func:`~forecast.models.market.trend.growth_filter`) gives their likelihood and the
    last state.
    """
    import pymc as pm
    import pytensor.tensor as pt

    phi, g_star = params["growth_persistence"], params["growth_longrun"]
    trend = TrendParams(phi, g_star, params["sigma_level"], params["sigma_growth"],
                        params["growth_init"])
    logp, m_g, p_g = growth_filter_scan(np.diff(log_dc), trend, params["shock_scale"])
    state = None
    if nowcast is not None:
        # One more step, the guide's reading: the filter from the scan's state.
        start = TrendParams(phi, g_star, trend.sigma_level, trend.sigma_growth, m_g)
        state = growth_filter([nowcast[0] - log_nv[-1]], [nowcast[1] ** 2], start,
                              xp=pt, start_var=p_g, scales=[params["shock_scale_nowcast"]])
        logp, m_g, p_g = logp + state.logp, state.growth, state.var_growth
    pm.Potential("trend_total", logp)
    if nowcast is None:
        # The last reported quarter's level is the data: exact.
        level = pm.Deterministic("level_last", log_nv[-1])
        var_x, cov_xg = pt.zeros(()), pt.zeros(())
    else:
        level = pm.Deterministic("level_last", log_nv[-1] + state.level)
        var_x, cov_xg = state.var_level, state.cov_level_growth
    growth = pm.Deterministic("growth_last", m_g)
    pm.Deterministic("state_var_level", var_x)
    pm.Deterministic("state_cov", cov_xg)
    pm.Deterministic("state_var_growth", p_g)
    path = expected_level(level, growth, phi, g_star, CEILING_HORIZON) - log_share_nv
    bound = (pt.log(params["ceiling"] / 4.0) - path) / CEILING_SOFTNESS
    pm.Potential("ceiling_path", pm.logcdf(pm.Normal.dist(0.0, 1.0), bound))


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
