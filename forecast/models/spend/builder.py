"""The PyMC builder of the vendor-spend model (see :mod:`forecast.models.spend`): the common
level and its damped trend, the rivals' relative positions with their ramps, and the vendor
spend they make. The measurement layer is :mod:`forecast.models.spend.likelihood`, M5's stock
and flow :mod:`forecast.models.spend.fleet`. PyMC is imported inside the functions only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_index
from forecast.models.priors import prior, prior_parameters
from forecast.models.spend.data import (
    RAMP_WIDTH,
    lift_layout,
    model_quarters,
    position_window,
    spend_timeline,
)
from forecast.models.spend.fleet import aws_fleet
from forecast.models.spend.likelihood import (
    censored_statements,
    guidance_observations,
    nowcast_guide,
    series_observations,
    visibility_observations,
)
from forecast.models.spend.math import (
    LATENT_GROUPS,
    RIVALS,
    adjusted_positions,
    deviations,
    ramp_curves,
    ramp_lifts,
    targets,
)
from forecast.models.spend.trend import (
    SHOCK_SCALE_ALPHA,
    SHOCK_SCALE_BETA,
    FilteredState,
    TrendParams,
    growth_filter,
    growth_filter_scan,
)

#: Parameters reported by ``summary()`` and gated on (with M5's, :data:`AWS_VARS`).
SUMMARY_VARS: list[str] = [
    "growth_longrun", "growth_persistence", "growth_init", "sigma_level", "sigma_growth",
    "price_coefficient", "adjustment_speed", "deviation_persistence", "ecosystem",
    "ecosystem_erosion", "deviation_sd", "ramp_lift", "nvidia_compute_fraction",
    "sigma_networking", "broadcom_custom_fraction", "sigma_broadcom", "amd_cpu_fraction_start",
    "amd_cpu_growth", "sigma_amd", "guide_beat_nvidia", "guide_sigma_nvidia",
    "guide_beat_broadcom", "guide_sigma_broadcom", "level_last", "growth_last",
]
#: Latent states a forecast starts from, by their time dimension: their last quarter is
#: gated too.
STATE_VARS: dict[str, str] = {"adjusted": "position_quarter", "deviation": "position_quarter",
                              "fleet": "position_quarter"}
#: Rivals whose spend a quarterly series measures (AMD's Data Center, Broadcom's AI
#: revenue): their deviations are sampled as themselves (centred), where the data pin them;
#: the others' as standard-normal innovations (non-centred), where the prior rules.
MEASURED_RIVALS: tuple[str, ...] = ("amd", "custom")
#: Standard-normal innovations of the unmeasured rivals' deviations: not needed to forecast.
INNOVATION_VARS: tuple[str, ...] = tuple(f"z_deviation_{rival}" for rival in RIVALS
                                         if rival not in MEASURED_RIVALS)
#: Sd of the rivals' positions before the window around their starting priors' means:
#: the ``position_start_<rival>`` priors of the measured rivals carry it; an unreported
#: rival starts at its first target (nothing tells its start from its target apart, and a
#: free start left a ridge with the adjustment speed).
START_NAMES: tuple[str, ...] = tuple(f"position_start_{rival}" for rival in RIVALS
                                     if rival in ("amd", "custom"))


def build_spend_model(data: Mapping[str, pd.DataFrame],
                      priors: Mapping[str, Mapping[str, Any]]) -> Any:
    """The PyMC model of the package docstring for prepared ``data`` and complete ``priors``.

    The cost gaps are ``pm.Data`` (``cost_gap``): scenarios whose cost bases differ (their
    MFU and TCO inputs) share one compiled sampler. The pieces are built in a fixed order
    (it fixes the sampler's parameter layout, hence the sampled numbers).
    """
    import pymc as pm

    timeline = spend_timeline(data)
    window = position_window(model_quarters(data))
    lifts = lift_layout(data["ramps"])
    coords = {"quarter": timeline, "change": timeline[1:], "position_quarter": window,
              "rival": list(RIVALS), "group": list(LATENT_GROUPS),
              "ramp": lifts["in_data"], "ramp_ahead": lifts["ahead"],
              "generation": list(data["aws_generations"]["generation"])}
    with pm.Model(coords=coords) as model:
        params = _parameters(priors)
        log_nv = _common_level(data, timeline, params)
        log_spend = _relative_positions(data, window, log_nv[-len(window):], params, priors)
        series_observations(data["observations"], timeline, window, log_nv, log_spend,
                            params, priors)
        guidance_observations(data["guidance"], data["observations"], window, log_spend,
                              params)
        censored_statements(data["censored"], window, log_spend)
        aws_fleet(data, window, log_spend[LATENT_GROUPS.index("aws")], priors)
    return model


def _parameters(priors: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The model-wide parameters, in the order they enter the model."""

    names = ("growth_longrun", "growth_persistence", "growth_init", "sigma_level",
             "sigma_growth", "nvidia_compute_fraction", "guide_beat_nvidia",
             "guide_sigma_nvidia", "guide_beat_broadcom", "guide_sigma_broadcom",
             "price_coefficient", "adjustment_speed", "deviation_persistence",
             "ecosystem_erosion", "broadcom_custom_fraction", "sigma_broadcom",
             "sigma_networking", "sigma_amd", "google_fraction_of_custom",
             "rest_custom_fraction")
    import pytensor.tensor as pt  # PyTensor loads with the model, not with this module

    params = {name: prior(name, priors[name]) for name in names}
    # Broadcom reports the custom group's spend over its custom fraction f, which no data
    # inform: the custom group's level terms are sampled on Broadcom's scale (minus log f),
    # so that f and they do not form a ridge (exact for location-family priors).
    log_f = pt.log(params["broadcom_custom_fraction"])
    custom = np.array([rival == "custom" for rival in RIVALS], dtype=float)
    params["ecosystem"] = shifted_prior("ecosystem", priors["ecosystem"], log_f * custom,
                                        dims="rival")
    params["deviation_sd"] = prior("deviation_sd", priors["deviation_sd"], dims="rival")
    params["position_start"] = {
        name: (shifted_prior(name, priors[name], log_f) if name == "position_start_custom"
               else prior(name, priors[name])) for name in START_NAMES}
    return params


#: The free variables of :func:`shifted_prior` (Broadcom's scale): not needed to forecast.
SHIFTED_VARS: tuple[str, ...] = ("ecosystem_raw", "position_start_custom_raw")
#: PyMC classes of the location-family priors :func:`shifted_prior` moves.
LOCATION_FAMILIES: dict[str, str] = {"normal": "Normal", "studentt": "StudentT"}


def shifted_prior(name: str, spec: Mapping[str, Any], shift: Any, **kwargs: Any) -> Any:
    """``name`` as the deterministic ``raw + shift``, ``name_raw`` taking the prior moved by
    ``-shift``: the same joint prior for a location family (normal, Student t), with the
    sampler on the shifted scale. Other families are sampled as themselves."""
    import pymc as pm

    dist, params = prior_parameters(name, spec)
    if dist not in LOCATION_FAMILIES:
        return prior(name, spec, **kwargs)
    params = {**params, "mu": params["mu"] - shift}
    raw = getattr(pm, LOCATION_FAMILIES[dist])(f"{name}_raw", **params, **kwargs)
    return pm.Deterministic(name, raw + shift, dims=kwargs.get("dims"))


def _common_level(data: Mapping[str, pd.DataFrame], timeline: list[str],
                  params: Mapping[str, Any]) -> Any:
    """NVIDIA's log compute spend over the model's quarters (its Data Center revenue, exact,
    times the compute fraction; then the guided quarter's latent level, when NVIDIA guided
    the quarter after its data) and the damped trend's likelihood of its changes, as an
    observed variable of one-step-ahead predictive normals; the filtered state of the last
    quarter is kept for forecasts.
    """
    import pymc as pm
    import pytensor.tensor as pt

    obs = data["observations"]
    anchor = obs[obs["series"] == "nvidia_data_center"].sort_values("quarter")
    log_dc = np.log(anchor["value"].to_numpy(float))
    log_nv = pm.Deterministic("log_nvidia", log_dc + pt.log(params["nvidia_compute_fraction"]),
                              dims="quarter")
    scales = pm.InverseGamma("shock_scale", alpha=SHOCK_SCALE_ALPHA, beta=SHOCK_SCALE_BETA,
                             dims="change")
    trend = TrendParams(params["growth_persistence"], params["growth_longrun"],
                        params["sigma_level"], params["sigma_growth"], params["growth_init"])
    mean, var, growth, var_growth = growth_filter_scan(np.diff(log_dc), trend, scales)
    pm.Normal("obs_nvidia_data_center", mu=mean, sigma=pt.sqrt(var), observed=np.diff(log_dc),
              dims="change")
    level, growth_last = log_nv[-1], growth
    var_level, cov = pt.zeros(()), pt.zeros(())
    nowcast = nowcast_guide(data["guidance"], timeline, params)
    if nowcast is not None:
        # The guided quarter's level is latent: the trend's one-step-ahead normal is its
        # prior, the guide (read through its beat) its observation. The growth is then
        # filtered through the sampled level exactly (its level variance is zero).
        scale = pm.InverseGamma("shock_scale_nowcast", alpha=SHOCK_SCALE_ALPHA,
                                beta=SHOCK_SCALE_BETA)
        predicted = trend.growth_longrun + trend.phi * (growth - trend.growth_longrun)
        spread = (trend.phi**2 * var_growth
                  + scale * (trend.sigma_growth**2 + trend.sigma_level**2))
        level_next = pm.Normal("level_nowcast", mu=level + predicted, sigma=pt.sqrt(spread))
        reading, scatter, log_guided = nowcast
        pm.Normal("obs_guide_nowcast", mu=level_next - (reading - log_guided),
                  sigma=scatter, observed=log_guided)
        start = TrendParams(trend.phi, trend.growth_longrun, trend.sigma_level,
                            trend.sigma_growth, growth)
        step = growth_filter([level_next - level], [0.0], start, xp=pt,
                             start_var=var_growth, scales=[scale])
        level, growth_last, var_growth = level_next, step.growth, step.var_growth
        log_nv = pt.concatenate([log_nv, level_next[None]])
    pm.Deterministic("level_last", level)
    pm.Deterministic("growth_last", growth_last)
    pm.Deterministic("state_var_level", var_level)
    pm.Deterministic("state_cov", cov)
    pm.Deterministic("state_var_growth", var_growth)
    visibility_observations(data.get("visibility"), model_quarters(data), log_nv,
                            FilteredState(level, growth_last, var_level, cov, var_growth, None),
                            trend, params)
    return log_nv


def _relative_positions(data: Mapping[str, pd.DataFrame], window: list[str], log_nv: Any,
                        params: Mapping[str, Any],
                        priors: Mapping[str, Mapping[str, Any]]) -> Any:
    """The rivals' positions over the window (partial adjustment to the cost-driven targets,
    persistent deviations, ramps) and the latent groups' log spend (group x quarter)."""
    import pymc as pm
    import pytensor.tensor as pt

    costs = data["costs"]
    gap = pm.Data("cost_gap", costs[list(RIVALS)].to_numpy(float).T,
                  dims=("rival", "position_quarter"))
    gap = pt.specify_shape(gap, (len(RIVALS), len(window)))
    t = np.array([quarter_index(q) for q in window], dtype=float)
    years = (t - t[0]) / 4.0
    target = pm.Deterministic("target", targets(
        params["ecosystem"], params["ecosystem_erosion"], params["price_coefficient"], gap,
        years, xp=pt), dims=("rival", "position_quarter"))
    deviation = pm.Deterministic("deviation", _deviations(params, len(window)),
                                 dims=("rival", "position_quarter"))
    start = pt.stack([params["position_start"].get(f"position_start_{rival}", target[k, 0])
                      for k, rival in enumerate(RIVALS)])
    adjusted = pm.Deterministic("adjusted", adjusted_positions(
        target, start, params["adjustment_speed"], xp=pt, length=len(window)),
        dims=("rival", "position_quarter"))
    lifts = lift_layout(data["ramps"])
    heights = pt.concatenate(
        [prior(name, priors[name], dims=dim) for name, dim, names in (
            ("ramp_lift", "ramp", lifts["in_data"]),
            ("ramp_lift_ahead", "ramp_ahead", lifts["ahead"])) if names] or [pt.zeros(0)])
    curves = ramp_curves(t, lifts["midpoint"], RAMP_WIDTH)
    position = pm.Deterministic(
        "position",
        adjusted + deviation + ramp_lifts(heights, curves, lifts["owner"], len(RIVALS), xp=pt),
        dims=("rival", "position_quarter"))
    return pm.Deterministic("log_spend", pt.concatenate([log_nv[None, :],
                                                         log_nv[None, :] + position]),
                            dims=("group", "position_quarter"))


def _deviations(params: Mapping[str, Any], length: int) -> Any:
    """Each rival's AR(1) deviations (rival x quarter) from ``d(-1) = 0``: an AR(1) variable
    of its own for a measured rival (centred), the innovations' recursion for the others."""
    import pymc as pm
    import pytensor.tensor as pt

    rho, sd = params["deviation_persistence"], params["deviation_sd"]
    rows = []
    for k, rival in enumerate(RIVALS):
        if rival in MEASURED_RIVALS:
            rows.append(pm.AR(f"deviation_{rival}", rho=pt.stack([rho]), sigma=sd[k],
                              init_dist=pm.Normal.dist(0.0, sd[k]), steps=length - 1,
                              constant=False, dims="position_quarter"))
        else:
            eps = pm.Normal(f"z_deviation_{rival}", 0.0, 1.0, dims="position_quarter")
            rows.append(deviations(eps[None, :], rho, sd[k:k + 1], xp=pt, length=length)[0])
    return pt.stack(rows)
