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
  annualised business is an interval-censored observation of 4 A_aws in that quarter
  ("several billion" read as USD 2-9 bn a year: :data:`QUALITATIVE_BILLIONS`, an argument
  of :func:`prepare_market_data`). (Trainium1 rows are a flat placeholder in the volume
  file and are not used.)
- Other vendors (Intel Gaudi: < $0.5B in FY2024 per the data) are left out: below the noise.

Priors
------
Every prior carries its rationale in :data:`DEFAULT_PRIORS` and can be overridden from a
scenario's ``[priors.market]`` table; the TAM ceiling is matched to the scenario's
``tam_ceiling_usd_billions`` input (:meth:`MarketModel.scenario_priors`). The ceiling's
parameters are ``pm.Data``, so scenarios differing only in it share one compiled sampler.

Modules
-------
``data`` (inputs from a dataset, pure pandas), ``math`` (curve, AR(1), walks, shares,
measurement links for numpy and PyTensor), ``builder`` (priors and the PyMC model),
``simulate`` (observations from the model's own math), ``fitted`` (forecasts from a stored
fit, numpy only), ``model`` (the protocol's hooks). Quantities are USD billions per
calendar quarter.
"""

from forecast.models.market.builder import (
    CENSOR_SOFTNESS,
    DEFAULT_PRIORS,
    INNOVATION_VARS,
    SUMMARY_VARS,
    build_market_model,
    ceiling_prior,
)
from forecast.models.market.data import (
    FORECAST_SERIES,
    LATENT_GROUPS,
    QUALITATIVE_BILLIONS,
    RATIO_GROUPS,
    SERIES,
    VENDORS,
    market_timeline,
    observed_series,
    prepare_market_data,
)
from forecast.models.market.fitted import FittedMarket, annual_totals, load_market
from forecast.models.market.math import (
    SERIES_GROUP,
    SERIES_SIGMA,
    ar1_deviations,
    ar1_logp,
    bridge_walk,
    gompertz_log,
    measurement_log_mean,
    vendor_log_shares,
)
from forecast.models.market.model import MARKET_SAMPLER, MarketModel, market_series_forecast
from forecast.models.market.simulate import simulate_market

__all__ = [
    "CENSOR_SOFTNESS", "DEFAULT_PRIORS", "FORECAST_SERIES", "INNOVATION_VARS", "LATENT_GROUPS",
    "MARKET_SAMPLER", "QUALITATIVE_BILLIONS", "RATIO_GROUPS", "SERIES", "SERIES_GROUP",
    "SERIES_SIGMA", "SUMMARY_VARS", "VENDORS", "FittedMarket", "MarketModel",
    "annual_totals", "ar1_deviations", "ar1_logp", "bridge_walk", "build_market_model",
    "ceiling_prior", "gompertz_log", "load_market", "market_series_forecast",
    "market_timeline", "measurement_log_mean", "observed_series", "prepare_market_data",
    "simulate_market", "vendor_log_shares",
]
