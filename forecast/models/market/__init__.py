"""M3: data-center AI-accelerator spend per calendar quarter, by vendor group.

Structure
---------
Nobody reports "accelerator spend": vendors report segments that contain it. The model keeps
a latent quarterly spend per vendor group and links each reported figure to it through a
measurement layer whose factors are priors, not constants.

Latent state (calendar quarter t)::

    g_t     = g* + phi (g_{t-1} - g*) + sigma_growth eta_t       growth of total spend
    log S_t = log S_{t-1} + g_t + sigma_level eps_t              total spend (five groups)
    eta_v,t = eta_v,t-1 + tau_v e_v,t    v in (amd, custom, aws, rest)   log-ratios to NVIDIA
    share_t = softmax(0, eta_t),   A_v,t = S_t share_v,t

The total follows a damped local linear trend in log dollars: growth is a state that
persists (``phi`` near 1 a priori) and fades towards the long-run growth ``g*``, whose prior
the scenario's ``[priors.market]`` sets. The trend's states are integrated out by a Kalman
filter (:mod:`~forecast.models.market.trend`); forecasts start from a draw of the filtered
last state, so they keep the momentum the data show. The scenario's TAM ceiling is a soft
upper bound on the expected level 20 quarters after the data (about 2030), not a curve that
pulls the next quarter back. Vendor shares are driftless random walks in log-ratio space:
share dynamics (price-performance, lock-in) belong to the share model M4.

The five groups (DESIGN section 4): ``nvidia``, ``amd``, ``google`` and the rest of Broadcom's
custom accelerators (one latent ``custom`` group split by a prior-only fraction), ``aws``, and
``rest`` (Intel Gaudi, Microsoft Maia, Huawei Ascend, other custom and start-up chips). The
output's ``other`` is Broadcom's non-Google custom chips plus ``rest``; ``custom_other`` its
custom (cloud-designed) part. The TAM counts each group's dollars once.

Measurement layer (log scale, Normal noise unless said otherwise):

- NVIDIA ``Data Center`` = A_nvidia / f_nv (compute / compute fraction): exact given f_nv;
  the ``- networking`` rows observe A_nvidia (1 - f_nv) / f_nv and the ``- compute`` row
  A_nvidia, so the data inform f_nv.
- AMD ``Data Center`` = A_amd + C_t, C_t = C_0 exp(g (t - t_0)) the EPYC CPU part; AMD's
  "Instinct > $5B in 2024" is a soft lower bound on the year's A_amd.
- Broadcom ``AI semiconductor revenue`` = A_custom / f_bc (custom XPUs / XPU fraction).
- AWS: Epoch's modelled Trainium2 shipments x a per-chip value (prior) = A_aws. Amazon's
  run-rate statements are rental revenue, read by the AWS silicon model (M5), not here.
- ``rest``: its own walk and start prior, and NVIDIA's share of 2024 spend in a soft
  interval read from published share estimates (:data:`NVIDIA_SHARE_2024`).
- Guidance (``vendor_guidance.csv``): NVIDIA's next-quarter total-revenue guide x the Data
  Center share of the quarter released with it reads as Data Center revenue; Broadcom guides
  AI revenue. Guides whose quarter was reported teach each vendor's beat (log actual /
  guided) and its scatter; NVIDIA's guide of the quarter after the data is one more filter
  step (a nowcast), and Broadcom's guide of a quarter it has not reported observes the
  custom group there.

Priors
------
Every prior carries its rationale in :data:`DEFAULT_PRIORS` and can be overridden from a
scenario's ``[priors.market]`` table; the TAM ceiling is matched to the scenario's
``tam_ceiling_usd_billions`` input (:meth:`MarketModel.scenario_priors`). The ceiling's and
the long-run growth's parameters are ``pm.Data``, so scenarios differing only in them share
one compiled sampler.

Modules
-------
``data`` (inputs from a dataset, pure pandas), ``math`` (walks, shares, measurement links for
numpy and PyTensor), ``trend`` (the damped trend's filter and simulation), ``defaults``
(priors), ``evidence`` (guidance and soft bounds), ``builder`` (the PyMC model),
``simulate`` (observations from the model's own math), ``fitted`` (forecasts from a stored
fit, numpy only), ``model`` (the protocol's hooks). Quantities are USD billions per
calendar quarter.
"""

from forecast.models.market.builder import (
    INNOVATION_VARS,
    SUMMARY_VARS,
    build_market_model,
    ceiling_prior,
)
from forecast.models.market.data import (
    FORECAST_SERIES,
    LATENT_GROUPS,
    NVIDIA_SHARE_2024,
    QUALITATIVE_BILLIONS,
    RATIO_GROUPS,
    SERIES,
    VENDORS,
    market_timeline,
    observed_series,
    prepare_market_data,
)
from forecast.models.market.defaults import DEFAULT_PRIORS
from forecast.models.market.evidence import CENSOR_SOFTNESS
from forecast.models.market.fitted import FittedMarket, annual_totals, load_market
from forecast.models.market.math import (
    SERIES_GROUP,
    SERIES_SIGMA,
    bridge_walk,
    measurement_log_mean,
    vendor_log_shares,
)
from forecast.models.market.model import MARKET_SAMPLER, MarketModel, market_series_forecast
from forecast.models.market.simulate import simulate_market
from forecast.models.market.trend import (
    TrendParams,
    damped_trend_filter,
    expected_level,
    simulate_trend,
)

__all__ = [
    "CENSOR_SOFTNESS", "DEFAULT_PRIORS", "FORECAST_SERIES", "INNOVATION_VARS", "LATENT_GROUPS",
    "MARKET_SAMPLER", "NVIDIA_SHARE_2024", "QUALITATIVE_BILLIONS", "RATIO_GROUPS", "SERIES",
    "SERIES_GROUP", "SERIES_SIGMA", "SUMMARY_VARS", "VENDORS", "FittedMarket", "MarketModel",
    "TrendParams", "annual_totals", "bridge_walk", "build_market_model", "ceiling_prior",
    "damped_trend_filter", "expected_level", "load_market", "market_series_forecast",
    "market_timeline", "measurement_log_mean", "observed_series", "prepare_market_data",
    "simulate_market", "simulate_trend", "vendor_log_shares",
]
