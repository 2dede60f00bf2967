"""M3: data-center AI-accelerator spend per calendar quarter, by vendor group.

Structure
---------
Nobody reports "accelerator spend": vendors report segments that contain it. The model keeps
a latent quarterly spend per vendor group and links each reported figure to it through a
measurement layer whose factors are priors, not constants.

Latent state (calendar quarter t, in quarters; ``t_ref`` = the last data quarter)::

    log S_t   = log K - (log K - L) * exp(-c (t - t_ref)) + u_t        total spend
    u_t       = phi u_{t-1} + sigma e_t,   u_0 ~ N(0, sigma^2 / (1 - phi^2))   AR(1)
    eta_g,t   = eta_g,0 + tau_g * sum_{s<=t} e_g,s    g in (amd, custom, aws)   log-ratios
    share_t   = softmax(0, eta_amd,t, eta_custom,t, eta_aws,t)     (NVIDIA is the reference)
    A_v,t     = S_t * share_v,t

The total follows a Gompertz curve in log revenue (``K`` the quarterly ceiling = annual ceiling
/ 4, ``c`` the speed at which growth decays, ``L`` the log level of the curve at the last data
quarter) with AR(1) deviations. The Gompertz is written through its level at ``t_ref`` rather
than its asymptote distance so that ``L`` (well identified by data) and ``K`` (mostly prior)
are nearly independent in the posterior. Vendor shares are a driftless random walk in
additive log-ratio space: the market model's job is the total; extrapolating a share trend
would let 2023-2025 NVIDIA dominance drive the 2030 vendor split. Share dynamics (price-
performance, lock-in) belong to the share model M4; here the per-vendor forecast keeps the
latest split with honestly widening uncertainty.

Measurement layer (log scale, Normal noise unless said otherwise):

- NVIDIA ``Data Center`` = A_nvidia / f_nv: the segment is compute plus networking. ``f_nv``
  (compute fraction) has a prior; the ``Data Center - networking`` rows observe
  A_nvidia (1 - f_nv) / f_nv and the ``- compute`` row observes A_nvidia, so the data inform
  f_nv (networking was 8-22% of the segment in the rows on file).
- AMD ``Data Center`` = A_amd + C_t: the segment is Instinct GPUs plus EPYC CPUs. A constant
  accelerator fraction cannot describe 2023 (MI300 shipped from December 2023), so the CPU
  part is its own smooth curve C_t = C_0 exp(g (t - t_0)) with priors on the CPU fraction of
  the first observation and on g. The FY2024 row "Instinct data-center GPU (full year) > $5B"
  is a censored observation (sum of A_amd over the four 2024 quarters above 5); against
  "Data Center (full year)" $12.6B it says accelerators were at least 40% of the segment.
- Broadcom ``AI semiconductor revenue`` = A_custom / f_bc: custom accelerators (XPUs: Google
  TPU, Meta MTIA, others) plus AI networking. No row splits them, so ``f_bc`` is prior-only.
  A_custom is split into ``google`` and ``other_custom`` with a prior-only fraction.
- AWS (Trainium, built with Annapurna/Alchip/Marvell, not in Broadcom's revenue): Epoch's
  modelled Trainium2 shipments x a per-chip value (prior) = A_aws, with the Epoch 5-95% band
  as the measurement error; Amazon's Q3 2025 statement that Trainium is a "several billion"
  annualised business is an interval-censored observation of 4 A_aws in that quarter.
  (Trainium1 rows are a flat placeholder in the volume file and are not used.)
- Other vendors (Intel Gaudi: < $0.5B in FY2024 per the data) are left out: below the noise.

Quantities are USD billions per calendar quarter. Forecasts from a stored fit use numpy only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.calendar import fiscal_to_calendar_quarter, next_fiscal_labels, quarter_label
from forecast.core.errors import FitError, ForecastError
from forecast.core.shortaxis import short_max, short_sum
from forecast.data.hashing import content_digest
from forecast.models.base import (
    DEFAULT_SAMPLER,
    FittedModel,
    count_divergences,
    merge_priors,
    posterior_summary,
    prior,
    prior_data,
    run_sampler,
)

#: nutpie with a low-rank mass matrix at target_accept 0.99. On the shipped data, 9 fits
#: (bull/base/bear x 3 seeds) passed the default gate: 0 divergences, max r_hat 1.004, min
#: bulk ESS 767 (share_sigma[amd], the slowest), 15-31 s each on 2 cores. A diagonal mass
#: matrix needed ~480 gradient steps per draw, this ~40; at 0.98 the AMD walk's funnel left
#: occasional divergences, and 1,500 draws left share_sigma[amd] at r_hat 1.0105.
MARKET_SAMPLER: dict[str, Any] = {"nuts_sampler": "nutpie", "target_accept": 0.99,
                                  "tune": 1000, "draws": 2500, "low_rank_mass_matrix": True}

#: Vendor groups of the forecast output (``custom`` is split into google / other_custom).
VENDORS: tuple[str, ...] = ("nvidia", "amd", "google", "other_custom", "aws")
#: Groups with their own latent state; ``nvidia`` is the log-ratio reference.
LATENT_GROUPS: tuple[str, ...] = ("nvidia", "amd", "custom", "aws")
RATIO_GROUPS: tuple[str, ...] = LATENT_GROUPS[1:]

#: Observed series the model links to the latent spend: name -> (company, segment).
SERIES: dict[str, tuple[str, str]] = {
    "nvidia_data_center": ("NVIDIA", "Data Center"),
    "nvidia_networking": ("NVIDIA", "Data Center - networking"),
    "nvidia_compute": ("NVIDIA", "Data Center - compute"),
    "amd_data_center": ("AMD", "Data Center"),
    "broadcom_ai": ("Broadcom", "AI semiconductor revenue"),
}
#: Series offered by :meth:`FittedMarket.series_forecast` (the compute row is a single point).
FORECAST_SERIES: tuple[str, ...] = (
    "nvidia_data_center", "nvidia_networking", "amd_data_center", "broadcom_ai",
)

#: How qualitative statements in ``aws_custom_silicon.csv`` are read, in USD billions per
#: year: "several" is more than a couple and fewer than ten.
QUALITATIVE_BILLIONS: dict[str, tuple[float, float]] = {"several billion": (2.0, 9.0)}

#: Softness (log scale) of censored and interval observations: a statement is not exact
#: ("several" has no sharp edge), and hard edges make divergences in NUTS.
CENSOR_SOFTNESS = 0.2

#: Default priors. Each carries its rationale; override any of them from a scenario's
#: ``[priors.market]`` table, or the ceiling through ``MarketModel(ceiling_prior=...)``.
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

#: Scalar parameters reported by ``summary()`` and gated on.
SUMMARY_VARS: list[str] = [
    "ceiling", "growth_decay", "level_offset", "ar_phi", "ar_sigma", "share_sigma",
    "nvidia_compute_fraction", "broadcom_custom_fraction", "amd_cpu_fraction_start",
    "amd_cpu_growth", "aws_chip_value", "sigma_networking", "sigma_amd",
    "log_total",
]


# --------------------------------------------------------------------------- pure math


def gompertz_log(t: Any, log_ceiling: Any, level_ref: Any, decay: Any, t_ref: float,
                 xp: Any = np) -> Any:
    """Gompertz curve in log spend: ``log K - (log K - L) exp(-c (t - t_ref))``.

    Parameters
    ----------
    t
        Time in quarters.
    log_ceiling
        ``log K``, the log of the quarterly ceiling.
    level_ref
        ``L``, the curve's log level at ``t_ref``.
    decay
        ``c`` > 0: the log-growth rate ``c (log K - m(t))`` decays at rate ``c``.
    t_ref
        Reference quarter.
    xp
        Array module (``numpy`` or ``pytensor.tensor``).
    """
    return log_ceiling - (log_ceiling - level_ref) * xp.exp(-decay * (t - t_ref))


def ar1_deviations(z: Any, phi: Any, sigma: Any, xp: Any = np,
                   length: int | None = None) -> Any:
    """Stationary AR(1) path from standard-normal innovations ``z`` (last axis = time).

    ``u_0 = sigma / sqrt(1 - phi^2) z_0`` and ``u_t = phi u_{t-1} + sigma z_t``, computed as
    one lower-triangular matrix product (no scan: fast gradients in PyMC). ``length`` is the
    number of time steps, required when ``z`` is symbolic.
    """
    n = int(z.shape[-1]) if length is None else length
    idx = np.arange(n)
    lag = idx[:, None] - idx[None, :]
    mask = lag >= 0
    # phi ** lag below the diagonal, 0 above: u = M @ (scale * z).
    matrix = xp.where(mask, phi ** np.where(mask, lag, 0), 0.0)
    scale = xp.where(idx == 0, sigma / xp.sqrt(1.0 - phi**2), sigma)
    return (scale * z) @ matrix.T


def ar1_logp(u: Any, phi: Any, sigma: Any, xp: Any = np) -> Any:
    """Log density of a path ``u`` (last axis = time) under the stationary AR(1).

    ``u_0 ~ N(0, sigma^2 / (1 - phi^2))``, ``u_t | u_{t-1} ~ N(phi u_{t-1}, sigma^2)``.
    """
    half_log_2pi = 0.5 * math.log(2.0 * math.pi)
    sd0 = sigma / xp.sqrt(1.0 - phi**2)
    first = -half_log_2pi - xp.log(sd0) - 0.5 * (u[..., 0] / sd0) ** 2
    resid = (u[..., 1:] - phi * u[..., :-1]) / sigma
    rest = (-half_log_2pi - xp.log(sigma) - 0.5 * resid**2).sum(axis=-1)
    return first + rest


def bridge_walk(start: Any, rise: Any, step: Any, z: Any, xp: Any = np) -> Any:
    """A Gaussian random walk written as its total rise plus a Brownian bridge.

    ``eta_t = start + (t + 1) / n * rise + step * (W_t - (t + 1) / n * W_{n-1})`` with
    ``W = cumsum(z)``. With ``z`` standard normal and ``rise ~ Normal(0, step sqrt(n))`` this
    is exactly ``start + step * cumsum(z')``: the bridge is independent of the endpoint.
    The sampler gains because the rise, which the data pin (e.g. AWS growing from a few
    percent of NVIDIA), is a parameter of its own instead of a ridge through every ``z``
    and ``step``; the direction of ``z`` along ``(1, ..., 1)`` drops out (prior only).
    """
    walk = xp.cumsum(z, axis=-1)
    n = walk.shape[-1]
    frac = xp.arange(1, n + 1) / n
    bridge = walk - frac * walk[..., -1:]
    return start + frac * rise + step * bridge


def vendor_log_shares(eta: Any, xp: Any = np, axis: int = 0) -> Any:
    """Log shares from log-ratios to the reference vendor (``eta``: groups x time).

    Returns (1 + groups) x time: the reference first, ``log softmax([0, eta])``. ``axis`` is
    the groups axis: ``axis=1`` takes a batch ``draws x groups x time`` at once.
    """
    first = (slice(None),) * axis + (slice(0, 1),)
    zeros = xp.zeros_like(eta[first])
    full = xp.concatenate([zeros, eta], axis=axis)
    if xp is np:  # over the few groups slice by slice: 2-3 times faster in numpy
        peak = short_max(full, axis, keepdims=True)
        total = short_sum(np.exp(full - peak), axis, keepdims=True)
    else:
        peak = full.max(axis=axis, keepdims=True)
        total = xp.exp(full - peak).sum(axis=axis, keepdims=True)
    return full - (peak + xp.log(total))


def measurement_log_mean(series: str, log_spend: Any, params: Mapping[str, Any],
                         cpu: Any = None, xp: Any = np) -> Any:
    """Expected log of an observed proxy given log latent spend of its vendor group.

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
    raise ForecastError(f"unknown series {series!r} (known: {', '.join(SERIES)})")


#: Latent group each observed series measures.
SERIES_GROUP = {
    "nvidia_data_center": "nvidia", "nvidia_networking": "nvidia", "nvidia_compute": "nvidia",
    "amd_data_center": "amd", "broadcom_ai": "custom",
}
#: Noise of each series. None: exact given its fraction (NVIDIA Data Center: its wobble goes
#: into the total's AR(1); Broadcom: into the custom share's random walk).
SERIES_SIGMA: dict[str, str | None] = {
    "nvidia_data_center": None, "nvidia_networking": "sigma_networking",
    "nvidia_compute": "sigma_networking", "amd_data_center": "sigma_amd",
    "broadcom_ai": None,
}


# --------------------------------------------------------------------------- fiscal labels

# --------------------------------------------------------------------------- data prep


def observed_series(dataset: Any, name: str) -> pd.DataFrame:
    """Quarterly rows of one named series (fiscal_period, calendar_quarter_end, quarter, value).

    Only exact (``=``) figures are used as point observations.
    """
    if name not in SERIES:
        raise ForecastError(f"unknown series {name!r} (known: {', '.join(SERIES)})")
    company, segment = SERIES[name]
    rows = dataset.revenue_series(company, segment)
    rows = rows[rows["value_qualifier"] == "="]
    return pd.DataFrame({
        "fiscal_period": rows["fiscal_period"].astype(str).to_numpy(),
        "calendar_quarter_end": pd.to_datetime(rows["calendar_quarter_end"]).to_numpy(),
        "quarter": [quarter_label(q) for q in rows["quarter"]],
        "value": rows["revenue_usd_billions"].astype(float).to_numpy(),
    })


def prepare_market_data(dataset: Any) -> dict[str, pd.DataFrame]:
    """The frames the model fits: ``observations``, ``censored``, ``volumes``.

    ``observations``: series, fiscal_period, calendar_quarter_end, quarter, value (USD bn).
    ``censored``: kind (lower | interval), group, quarters (comma list), lower, upper: bounds
    on the sum of a group's spend over the quarters. ``volumes``: quarter, units, sd_log
    (Epoch's Trainium2 shipments; sd from the 5-95% band).
    """
    frames = []
    for name in SERIES:
        rows = observed_series(dataset, name)
        rows.insert(0, "series", name)
        frames.append(rows)
    observations = pd.concat(frames, ignore_index=True)
    if not (observations["series"] == "nvidia_data_center").any():
        raise FitError("market model: no NVIDIA Data Center revenue in the data (needed as "
                       "the anchor series)")

    censored = []
    revenue = dataset.revenue
    instinct = revenue[(revenue["company"] == "AMD")
                       & (revenue["segment"] == "Instinct data-center GPU (full year)")]
    for row in instinct.itertuples(index=False):
        if row.value_qualifier != ">":
            continue
        year = pd.Timestamp(row.calendar_quarter_end).year
        censored.append({
            "kind": "lower", "group": "amd",
            "quarters": ",".join(f"{year}Q{q}" for q in range(1, 5)),
            "lower": float(row.revenue_usd_billions), "upper": np.inf,
            "label": f"AMD Instinct {row.fiscal_period} > {row.revenue_usd_billions:g}",
        })
    silicon = dataset.aws_custom_silicon
    statements = silicon[silicon["metric"].str.startswith("Trainium business size")
                         & (silicon["unit"] == "USD/year (annualized)")]
    for row in statements.itertuples(index=False):
        qualifier = str(row.value_qualifier).strip()
        if qualifier in QUALITATIVE_BILLIONS:
            low, high = QUALITATIVE_BILLIONS[qualifier]
        elif row.value == row.value:  # a number: +-20% around it
            low, high = 0.8 * row.value / 1e9, 1.2 * row.value / 1e9
        else:
            continue
        # An annualised run rate stated on a date describes the last quarter completed by
        # then (a Q3 earnings call in late October speaks of Q3): bounds on 4x its spend.
        stated = pd.Timestamp(row.date)
        period = stated.to_period("Q")
        if stated.normalize() < period.end_time.normalize():
            period -= 1
        quarter = quarter_label(period)
        censored.append({
            "kind": "interval", "group": "aws", "quarters": quarter,
            "lower": low / 4.0, "upper": high / 4.0,
            "label": f"Trainium run rate {qualifier} ({quarter})",
        })
    censored_frame = pd.DataFrame(
        censored, columns=["kind", "group", "quarters", "lower", "upper", "label"])

    vols = dataset.volumes
    trn2 = vols[vols["chip"] == "Trainium2"]
    volumes = pd.DataFrame({
        "quarter": [quarter_label(q) for q in trn2["quarter"]],
        "units": trn2["units_median"].astype(float).to_numpy(),
        "sd_log": ((np.log(trn2["units_p95"].astype(float))
                    - np.log(trn2["units_p5"].astype(float))) / (2 * 1.645)).to_numpy(),
    })
    return {"observations": observations, "censored": censored_frame, "volumes": volumes}


def _ratio_walk(pm: Any, pt: Any, group: str, start: Any, step: Any, n: int,
                block: tuple[int, int, Any] | None) -> Any:
    """Random walk ``eta_t = eta_{t-1} + step z_t`` (``eta_{-1} = start``) over ``n`` quarters.

    Without ``block`` the walk is split into its total rise ``eta_{n-1} - start`` (centred,
    ``Normal(0, step sqrt(n))``) and a non-centred Brownian bridge from 0 to 0; see
    :func:`bridge_walk`. With ``block = (a, m, values)`` the quarters ``a .. a + m - 1`` are
    known (functions of data and parameters): their steps enter through the walk's density,
    the quarters before are a bridge from ``start`` and those after stay non-centred.
    """
    if block is None:
        z = pm.Normal(f"z_ratio_{group}", 0.0, 1.0, shape=n)
        rise = pm.Normal(f"ratio_rise_{group}", 0.0, step * math.sqrt(n))
        return bridge_walk(start, rise, step, z, xp=pt)
    a, m, values = block
    pieces = []
    previous = start
    if a > 0:
        # Unobserved quarters between the start and the known block: a bridge again, so
        # the rise to the block's (data-pinned) level is a parameter of its own.
        z_pre = pm.Normal(f"z_ratio_{group}_pre", 0.0, 1.0, shape=a)
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
        z_post = pm.Normal(f"z_ratio_{group}_post", 0.0, 1.0, shape=after)
        pieces.append(values[-1] + step * pt.cumsum(z_post))
    return pt.concatenate(pieces)


def _timeline(data: Mapping[str, pd.DataFrame]) -> list[str]:
    """Calendar quarters of the NVIDIA Data Center series (the anchor; it must be gap-free).

    Observations of other series outside these quarters are not used.
    """
    obs = data["observations"]
    quarters = sorted(pd.Period(q, freq="Q")
                      for q in obs.loc[obs["series"] == "nvidia_data_center", "quarter"])
    if not quarters:
        raise FitError("market model: no NVIDIA Data Center revenue (the anchor series)")
    span = pd.period_range(quarters[0], quarters[-1], freq="Q")
    if len(span) != len(set(quarters)):
        missing = sorted(set(span) - set(quarters))
        raise FitError("market model: NVIDIA Data Center revenue has gaps at "
                       + ", ".join(quarter_label(q) for q in missing))
    return [quarter_label(q) for q in span]


# --------------------------------------------------------------------------- simulation


def simulate_market(params: Mapping[str, float], n_quarters: int = 32,
                    first_quarter: str = "2018Q1", seed: int = 0,
                    amd_start: int | None = None, broadcom_start: int | None = None
                    ) -> dict[str, pd.DataFrame]:
    """Simulate observations from the model's own math (pure numpy), in ``fit_data`` format.

    ``params`` holds scalar values of every parameter in :data:`DEFAULT_PRIORS` (the
    ceiling in USD bn per year). NVIDIA Data Center is observed every quarter, AMD and
    Broadcom from ``amd_start`` / ``broadcom_start`` (default: the last half). Returns the
    frames of :func:`prepare_market_data` plus ``truth`` (latent log spend per quarter).
    """
    rng = np.random.default_rng(seed)
    t = np.arange(n_quarters, dtype=float)
    t_ref = float(n_quarters - 1)
    quarters = pd.period_range(pd.Period(first_quarter, freq="Q"), periods=n_quarters, freq="Q")
    labels = [quarter_label(q) for q in quarters]
    log_k = math.log(params["ceiling"] / 4.0)
    level = params["level_ref"]
    curve = gompertz_log(t, log_k, level, params["growth_decay"], t_ref)
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
    observations = pd.DataFrame(rows)
    censored = pd.DataFrame(columns=["kind", "group", "quarters", "lower", "upper", "label"])
    volumes = pd.DataFrame(columns=["quarter", "units", "sd_log"])
    truth = pd.DataFrame(np.exp(log_a).T, index=labels, columns=list(LATENT_GROUPS))
    truth["total"] = np.exp(log_total)
    return {"observations": observations, "censored": censored, "volumes": volumes,
            "truth": truth.rename_axis("quarter").reset_index()}


# --------------------------------------------------------------------------- the model


class MarketModel:
    """Bayesian market-size model (configuration only; :meth:`fit` samples).

    Parameters
    ----------
    priors
        Overrides of :data:`DEFAULT_PRIORS` (e.g. a scenario's ``[priors.market]`` table).
    ceiling_prior
        Prior of the annual spend ceiling (USD bn per year), e.g. built from the scenario's
        ``tam_ceiling_usd_billions``; a number is read as the median of a lognormal with
        sigma 0.3. Applied after ``priors``.
    sampler
        Overrides of :data:`~forecast.models.base.DEFAULT_SAMPLER`.
    """

    model_name = "market"

    def __init__(self, priors: Mapping[str, Any] | None = None,
                 ceiling_prior: Mapping[str, Any] | float | None = None,
                 sampler: Mapping[str, Any] | None = None):
        merged = merge_priors(DEFAULT_PRIORS, priors, self.model_name)
        if ceiling_prior is not None:
            if isinstance(ceiling_prior, int | float):
                ceiling_prior = {"dist": "lognormal", "median": float(ceiling_prior),
                                 "sigma": 0.3}
            merged = merge_priors(merged, {"ceiling": ceiling_prior}, self.model_name)
        self.priors = merged
        self.sampler = {**DEFAULT_SAMPLER, **MARKET_SAMPLER, **(sampler or {})}

    # ----------------------------------------------------------------- building

    def build(self, data: Mapping[str, pd.DataFrame]) -> Any:
        """The PyMC model for prepared ``data`` (see :func:`prepare_market_data`).

        NVIDIA's Data Center figure is taken as exact given the compute fraction, so the
        total's AR(1) deviation in each quarter is a function of the data and the parameters
        (``u_t = log S_t - curve_t``) and enters through its AR(1) density: no latent
        innovations for the total, the geometry NUTS likes best.
        """
        import pymc as pm
        import pytensor.tensor as pt

        timeline = _timeline(data)
        index = {q: i for i, q in enumerate(timeline)}
        n = len(timeline)
        t = np.arange(n, dtype=float)
        t_ref = float(n - 1)
        obs = data["observations"]
        obs = obs[obs["quarter"].isin(index)]
        anchor = obs[obs["series"] == "nvidia_data_center"].sort_values("quarter")
        log_dc = np.log(anchor["value"].to_numpy())
        p = self.priors
        coords = {"quarter": timeline, "ratio_group": list(RATIO_GROUPS),
                  "group": list(LATENT_GROUPS)}
        with pm.Model(coords=coords) as model:
            ceiling = prior("ceiling", p["ceiling"], swappable=True)
            decay = prior("growth_decay", p["growth_decay"])
            offset = prior("level_offset", p["level_offset"])
            phi = prior("ar_phi", p["ar_phi"])
            sigma = prior("ar_sigma", p["ar_sigma"])
            share_sigma = prior("share_sigma", p["share_sigma"], dims="ratio_group")
            starts = pt.stack([prior(f"ratio_start_{g}", p[f"ratio_start_{g}"])
                               for g in RATIO_GROUPS])
            f_nv = prior("nvidia_compute_fraction", p["nvidia_compute_fraction"])
            params = {
                "nvidia_compute_fraction": f_nv,
                "broadcom_custom_fraction": prior("broadcom_custom_fraction",
                                                  p["broadcom_custom_fraction"]),
            }
            prior("google_fraction_of_custom", p["google_fraction_of_custom"])
            sigmas = {key: prior(key, p[key]) for key in ("sigma_networking", "sigma_amd")}

            log_nv = log_dc + pt.log(f_nv)
            # Shares: random walks in log-ratio to NVIDIA. Where a group is measured exactly
            # (custom, through Broadcom) the walk is centred on the data; elsewhere it is
            # non-centred (unobserved quarters, where that is the better geometry).
            exact = obs[obs["series"] == "broadcom_ai"].sort_values("quarter")
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
                # AMD (observed with noise, level pinned): centred over its observed span.
                # Not AWS: its level is set only by a loose interval, so a centred walk and
                # the chip value form a ridge; non-centred samples it well.
                noisy = {"amd": obs.loc[obs["series"] == "amd_data_center", "quarter"]
                         }.get(group)
                if noisy is not None:
                    idx = [index[q] for q in noisy if q in index]
                    if idx:
                        block = (min(idx), max(idx) - min(idx) + 1, None)
                paths.append(_ratio_walk(pm, pt, group, starts[g], share_sigma[g], n, block))
            eta = pm.Deterministic("log_ratio", pt.stack(paths), dims=("ratio_group", "quarter"))
            log_shares = vendor_log_shares(eta, xp=pt)
            # Total implied by exact NVIDIA compute spend and the shares.
            log_total = pm.Deterministic("log_total", log_nv - log_shares[0], dims="quarter")
            log_a = pm.Deterministic("log_spend", log_total[None, :] + log_shares,
                                     dims=("group", "quarter"))
            level = pm.Deterministic("level_ref", float(log_dc[-1]) + offset)
            curve = gompertz_log(t, pt.log(ceiling / 4.0), level, decay, t_ref, xp=pt)
            dev = pm.Deterministic("dev", log_total - curve, dims="quarter")
            pm.Potential("ar1_total", ar1_logp(dev, phi, sigma, xp=pt))

            amd = obs[obs["series"] == "amd_data_center"].sort_values("quarter")
            cpu = None
            if len(amd):
                t_amd = index[amd["quarter"].iloc[0]]
                frac = prior("amd_cpu_fraction_start", p["amd_cpu_fraction_start"])
                growth = prior("amd_cpu_growth", p["amd_cpu_growth"])
                cpu0 = frac * float(amd["value"].iloc[0])
                cpu = pm.Deterministic("amd_cpu", cpu0 * pt.exp(growth * (t - t_amd)),
                                       dims="quarter")
            for series in SERIES:
                rows = obs[obs["series"] == series]
                noise = SERIES_SIGMA[series]
                if rows.empty or noise is None:
                    continue
                idx = np.array([index[q] for q in rows["quarter"]])
                group = LATENT_GROUPS.index(SERIES_GROUP[series])
                mean = measurement_log_mean(series, log_a[group, idx], params,
                                            cpu=None if cpu is None else cpu[idx], xp=pt)
                pm.Normal(f"obs_{series}", mu=mean, sigma=sigmas[noise],
                          observed=np.log(rows["value"].to_numpy()))

            vols = data["volumes"]
            vols = vols[vols["quarter"].isin(index)]
            if len(vols):
                value = prior("aws_chip_value", p["aws_chip_value"])
                idx = np.array([index[q] for q in vols["quarter"]])
                group = LATENT_GROUPS.index("aws")
                # units = spend / value per chip; spend in USD bn.
                mean = log_a[group, idx] + math.log(1e9) - pt.log(value)
                pm.Normal("obs_aws_trainium2_units", mu=mean,
                          sigma=vols["sd_log"].to_numpy(),
                          observed=np.log(vols["units"].to_numpy()))

            std_normal = pm.Normal.dist(0.0, 1.0)
            for k, row in enumerate(data["censored"].itertuples(index=False)):
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
                    upper = pm.logcdf(std_normal,
                                      (math.log(row.upper) - log_sum) / CENSOR_SOFTNESS)
                    lower = pm.logcdf(std_normal,
                                      (math.log(row.lower) - log_sum) / CENSOR_SOFTNESS)
                    pm.Potential(f"censored_{k}", pm.math.logdiffexp(upper, lower))
        return model

    # ----------------------------------------------------------------- fitting

    def fit(self, dataset: Any, **sampler: Any) -> FittedMarket:
        """Fit to a :class:`~forecast.data.dataset.Dataset` (use ``dataset.as_of(date)`` to cut it).

        Keyword arguments override sampler settings (draws, tune, chains, nuts_sampler...).
        """
        data = prepare_market_data(dataset)
        meta = {"data_hash": getattr(dataset, "data_hash", None),
                "as_of": str(getattr(dataset, "as_of_date", None))}
        return self.fit_data(data, meta=meta, **sampler)

    def fit_data(self, data: Mapping[str, pd.DataFrame], meta: Mapping[str, Any] | None = None,
                 **sampler: Any) -> FittedMarket:
        """Fit to prepared frames (from :func:`prepare_market_data` or :func:`simulate_market`)."""
        settings = {**self.sampler, **sampler}
        model = self.build(data)
        # Scenarios differ in the ceiling prior's values only (pm.Data): one compiled model
        # serves them all; its distribution stays part of the structure.
        swappable = prior_data("ceiling", self.priors["ceiling"])
        structure = content_digest({"data": {k: data[k] for k in sorted(data)},
                                    "priors": {**self.priors, "ceiling": {
                                        "dist": self.priors["ceiling"]["dist"],
                                        "data": sorted(swappable)}},
                                    "version": FittedMarket.model_version})
        idata, seconds = run_sampler(model, settings, cache_key=f"market-{structure}",
                                     data=swappable)
        names = [v for v in SUMMARY_VARS if v in idata.posterior]
        summary = posterior_summary(idata, names)
        posterior = idata.posterior.drop_vars(
            [v for v in idata.posterior.data_vars if str(v).startswith("z_")])
        frames = {key: data[key].copy() for key in ("observations", "censored", "volumes")}
        frames["observations"]["calendar_quarter_end"] = pd.to_datetime(
            frames["observations"]["calendar_quarter_end"])
        frames["censored"] = frames["censored"].astype(
            {"lower": float, "upper": float}).replace({np.inf: np.nan})
        frames["volumes"] = frames["volumes"].astype({"units": float, "sd_log": float})
        config = {"priors": self.priors, "sampler": {k: v for k, v in settings.items()},
                  "timeline": _timeline(data)}
        info = {**(meta or {}), "divergences": count_divergences(idata),
                "fit_seconds": round(seconds, 2)}
        return FittedMarket(posterior=posterior, data=frames, config=config,
                            summary_table=summary, meta=info)


# --------------------------------------------------------------------------- fitted model


@dataclass
class FittedMarket(FittedModel):
    """A fitted market model: latent spend paths, forecasts and per-series predictions.

    Forecasting uses numpy, pandas and xarray only.
    """

    model_name: ClassVar[str] = "market"
    model_version: ClassVar[str] = "1"

    @property
    def timeline(self) -> list[str]:
        """Calendar quarters of the fit (first NVIDIA observation to the last data quarter)."""
        return list(self.config["timeline"])

    def _draw_index(self, draws: int | None, rng: np.random.Generator) -> np.ndarray:
        n = self.n_samples
        if draws is None or draws == n:
            return np.arange(n)
        return rng.choice(n, size=draws, replace=draws > n)

    def _simulate(self, horizon: int, draws: int | None, seed: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(log spend per latent group, AMD CPU, sample index) over history + horizon.

        Shapes: (draws, group, n_history + horizon), (draws, n_history + horizon), (draws,).
        """
        rng = np.random.default_rng(seed)
        pick = self._draw_index(draws, rng)
        n = len(self.timeline)
        t_ref = float(n - 1)
        log_hist = self.stacked("log_spend", pick)                  # (d, G, n)
        if horizon <= 0:
            return log_hist, self._cpu(pick, n), pick
        d = len(pick)
        s = {name: self.stacked(name, pick) for name in (
            "ceiling", "growth_decay", "level_ref", "ar_phi", "ar_sigma")}
        dev_last = self.stacked("dev", pick)[:, -1]
        eta_last = self.stacked("log_ratio", pick)[:, :, -1]         # (d, 3)
        share_sigma = self.stacked("share_sigma", pick)               # (d, 3)
        t_future = t_ref + np.arange(1, horizon + 1)
        curve = gompertz_log(t_future[None, :], np.log(s["ceiling"] / 4.0)[:, None],
                             s["level_ref"][:, None], s["growth_decay"][:, None], t_ref)
        dev = np.empty((d, horizon))
        prev = dev_last
        for h in range(horizon):
            prev = s["ar_phi"] * prev + s["ar_sigma"] * rng.standard_normal(d)
            dev[:, h] = prev
        eta = eta_last[:, :, None] + share_sigma[:, :, None] * np.cumsum(
            rng.standard_normal((d, len(RATIO_GROUPS), horizon)), axis=2)
        log_future = (curve + dev)[:, None, :] + vendor_log_shares(eta, axis=1)
        return (np.concatenate([log_hist, log_future], axis=2),
                self._cpu(pick, n + horizon), pick)

    def _cpu(self, pick: np.ndarray, length: int) -> np.ndarray | None:
        if "amd_cpu" not in self.posterior:
            return None
        hist = self.stacked("amd_cpu", pick)
        n = hist.shape[1]
        if length <= n:
            return hist[:, :length]
        growth = self.stacked("amd_cpu_growth", pick)
        extra = hist[:, -1:] * np.exp(growth[:, None] * np.arange(1, length - n + 1)[None, :])
        return np.concatenate([hist, extra], axis=1)

    def _quarters(self, total: int) -> list[str]:
        start = pd.Period(self.timeline[0], freq="Q")
        return [quarter_label(p) for p in pd.period_range(start, periods=total, freq="Q")]

    def forecast(self, quarters: int | None = None, end: str = "2030Q4",
                 draws: int | None = None, seed: int = 0,
                 include_history: bool = False) -> xr.Dataset:
        """Joint sample paths of spend per vendor and of the total, USD bn per quarter.

        Parameters
        ----------
        quarters
            Quarters after the last data quarter; default: up to ``end``.
        end
            Last calendar quarter (``"2030Q4"``) when ``quarters`` is None.
        draws
            Number of paths (resampled from the posterior); default every posterior sample.
        seed
            Seed of the forecast noise.
        include_history
            Prepend the posterior of the in-sample quarters.

        Returns
        -------
        xarray.Dataset
            ``spend`` (draw, quarter, vendor) with vendors :data:`VENDORS` and ``total``
            (draw, quarter); quarter labels like ``"2026Q1"``.
        """
        last = pd.Period(self.timeline[-1], freq="Q")
        if quarters is None:
            quarters = (pd.Period(end, freq="Q") - last).n
        if quarters < 0:
            raise ForecastError(f"forecast end {end} is before the data end {last}")
        log_a, _, pick = self._simulate(quarters, draws, seed)
        n_hist = len(self.timeline)
        labels = self._quarters(n_hist + quarters)
        if not include_history:
            log_a = log_a[:, :, n_hist:]
            labels = labels[n_hist:]
        spend_groups = np.exp(log_a)                                  # (d, G, T)
        google = self.stacked("google_fraction_of_custom", pick)
        custom = spend_groups[:, 2, :]
        spend = np.stack([spend_groups[:, 0], spend_groups[:, 1], custom * google[:, None],
                          custom * (1.0 - google[:, None]), spend_groups[:, 3]], axis=2)
        coords = {"draw": np.arange(spend.shape[0]), "quarter": labels,
                  "vendor": list(VENDORS)}
        result = xr.Dataset(
            {"spend": (("draw", "quarter", "vendor"), spend),
             "total": (("draw", "quarter"), spend.sum(axis=2))},
            coords=coords,
        )
        result["spend"].attrs["unit"] = "USD billions per quarter"
        result["total"].attrs["unit"] = "USD billions per quarter"
        result.attrs.update({"model": self.model_name, "model_version": self.model_version,
                             "data_end": self.timeline[-1]})
        return result

    # ----------------------------------------------------------------- observed series

    def series_names(self) -> list[str]:
        """Observed series this fit can forecast (those with data)."""
        obs = self.data["observations"]
        return [name for name in FORECAST_SERIES if (obs["series"] == name).any()]

    def series_paths(self, name: str, quarters: int = 4, draws: int | None = None,
                     seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
        """Posterior predictive paths of an observed series for its next fiscal quarters.

        Returns
        -------
        periods
            fiscal_period, calendar_quarter_end (estimated: last end + 3 months per step),
            quarter (calendar).
        paths
            Array (draws, quarters) in USD bn: latent spend through the measurement model
            plus measurement noise.
        """
        if name not in self.series_names():
            raise ForecastError(f"unknown series {name!r} (available: "
                                f"{', '.join(self.series_names())})")
        if quarters < 1:
            raise ForecastError("quarters must be at least 1")
        rows = self.data["observations"]
        rows = rows[rows["series"] == name].sort_values("calendar_quarter_end")
        last = rows.iloc[-1]
        labels = next_fiscal_labels(str(last["fiscal_period"]), quarters)
        ends = [pd.Timestamp(last["calendar_quarter_end"]) + pd.DateOffset(months=3 * h)
                for h in range(1, quarters + 1)]
        cal = [fiscal_to_calendar_quarter(e) for e in ends]
        start = pd.Period(self.timeline[0], freq="Q")
        idx = np.array([(q - start).n for q in cal])
        horizon = max(0, int(idx.max()) - (len(self.timeline) - 1))
        log_a, cpu, pick = self._simulate(horizon, draws, seed)
        group = LATENT_GROUPS.index(SERIES_GROUP[name])
        params = {key: self.stacked(key, pick)[:, None]
                  for key in ("nvidia_compute_fraction", "broadcom_custom_fraction")}
        mean = measurement_log_mean(name, log_a[:, group, idx], params,
                                    cpu=None if cpu is None else cpu[:, idx])
        noise = SERIES_SIGMA[name]
        sigma = 0.0 if noise is None else self.stacked(noise, pick)[:, None]
        rng = np.random.default_rng(seed + 1)
        paths = np.exp(mean + sigma * rng.standard_normal(mean.shape))
        periods = pd.DataFrame({"fiscal_period": labels, "calendar_quarter_end": ends,
                                "quarter": [quarter_label(q) for q in cal]})
        return periods, paths

    def series_forecast(self, name: str, quarters: int = 4, draws: int | None = None,
                        seed: int = 0,
                        quantiles: Sequence[float] = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95),
                        ) -> pd.DataFrame:
        """Quantiles of an observed series for its next ``quarters`` fiscal quarters.

        One row per fiscal quarter: fiscal_period, calendar_quarter_end, quarter, mean and
        ``q05`` ... ``q95`` (USD bn).
        """
        periods, paths = self.series_paths(name, quarters, draws, seed)
        table = periods.copy()
        table.insert(0, "series", name)
        table["mean"] = paths.mean(axis=0)
        for q, values in zip(quantiles, np.quantile(paths, quantiles, axis=0), strict=True):
            table[f"q{round(q * 100):02d}"] = values
        return table

    def spend_history(self) -> pd.DataFrame:
        """Posterior median and 90% band of in-sample spend per latent group and total."""
        spend = np.exp(self.stacked("log_spend"))                   # (samples, G, T)
        values = np.concatenate([spend, spend.sum(axis=1, keepdims=True)], axis=1)
        q = np.quantile(values, [0.05, 0.5, 0.95], axis=0)          # (3, G + 1, T)
        groups, timeline = (*LATENT_GROUPS, "total"), self.timeline
        return pd.DataFrame({
            "group": np.repeat(np.asarray(groups, dtype=object), len(timeline)),
            "quarter": np.tile(np.asarray(timeline, dtype=object), len(groups)),
            "p05": q[0].reshape(-1), "p50": q[1].reshape(-1), "p95": q[2].reshape(-1),
        })


# --------------------------------------------------------------------------- summaries


def annual_totals(paths: xr.Dataset | xr.DataArray,
                  quantiles: Sequence[float] = (0.1, 0.5, 0.9),
                  vendor: str | None = None) -> pd.DataFrame:
    """Calendar-year spend quantiles from quarterly sample paths (complete years only).

    Parameters
    ----------
    paths
        A :meth:`FittedMarket.forecast` Dataset (its ``total``, or ``spend`` of ``vendor``), or a
        DataArray (draw, quarter[, vendor]) summed over vendors.
    quantiles
        Quantile levels, reported as columns ``p10`` ...
    vendor
        One vendor instead of the total.

    Returns
    -------
    pandas.DataFrame
        year, mean and one column per quantile, USD bn per year.
    """
    if isinstance(paths, xr.Dataset):
        values = paths["total"] if vendor is None else paths["spend"].sel(vendor=vendor)
    else:
        values = paths
        if "vendor" in values.dims:
            values = values.sum("vendor") if vendor is None else values.sel(vendor=vendor)
    years = np.array([int(str(q)[:4]) for q in values["quarter"].values])
    records = []
    for year in np.unique(years):
        mask = years == year
        if mask.sum() != 4:
            continue
        yearly = values.isel(quarter=np.flatnonzero(mask)).sum("quarter").values
        row: dict[str, float] = {"year": int(year), "mean": float(yearly.mean())}
        for q, value in zip(quantiles, np.quantile(yearly, quantiles), strict=True):
            row[f"p{round(q * 100):02d}"] = float(value)
        records.append(row)
    return pd.DataFrame(records)


def load_market(path: Any) -> FittedMarket:
    """Load a fit saved by :meth:`FittedMarket.save` (numpy/xarray only)."""
    return FittedMarket.load(path)  # type: ignore[return-value]


def market_series_forecast(dataset: Any, name: str | None = None, quarters: int = 4,
                           fitted: FittedMarket | None = None, **sampler: Any
                           ) -> pd.DataFrame | list[str]:
    """CLI helper for ``python cli.py series [NAME] --quarters N``: a quantile table.

    With ``name=None`` returns the available series names. Fits the model with default priors
    (sampler overrides in ``sampler``) unless ``fitted`` is given.
    """
    if name is None:
        if fitted is not None:
            return fitted.series_names()
        data = prepare_market_data(dataset)["observations"]
        return [s for s in FORECAST_SERIES if (data["series"] == s).any()]
    if fitted is None:
        fitted = MarketModel().fit(dataset, **sampler)
    return fitted.series_forecast(name, quarters=quarters)
