"""M4 market share: attraction (multinomial-logit) model with partial adjustment.

Model
-----
For vendor v in quarter t, with ``k_v(t)`` its cost per effective PFLOP-hour::

    utility      U_v(t)  = a_v + b * log(1 / k_v(t))
    target       s*(t)   = cap(softmax(U(t)))                       (supply caps, forecast only)
    share        s(t)    = s(t-1) + lambda * (s*(t) - s(t-1)),      s(t0) = softmax(0, z)

- ``b > 0`` (lognormal prior ``price_coefficient``): cheaper effective compute attracts spend;
  b = 1 makes attraction proportional to compute per dollar.
- ``a_v`` is the vendor's ecosystem term (CUDA lock-in for NVIDIA). Only differences of
  utilities matter, so one vendor's ``a`` is fixed at 0 (``reference_vendor``, default
  ``google``: the rival observed longest, 2022Q4 on; with AMD as the reference the other
  ecosystem terms were strongly correlated through AMD's short series and NUTS mixed
  slower); ``a_nvidia`` has the scenario's prior ``ecosystem_nvidia`` and the remaining
  vendors ``ecosystem_other``.
- ``lambda`` in (0, 1) is the share of the gap to the target closed each quarter
  (``adjustment_speed``); a convex combination of two points of the simplex stays on it.
- ``z``: log-ratios of the first fitted quarter's shares to NVIDIA's (``initial_logit``) for
  the vendors observed in that quarter. A vendor with no data in the first quarter (AMD and
  AWS before 2024) starts at its target log-ratio ``U_v(t0) - U_nvidia(t0)``: a free start
  that only later data can see is identified only when lambda is small, a funnel on which
  NUTS diverged.

Likelihood. The data are the additive log-ratios ``y_v(t) = log(D_v / D_nvidia)`` of derived
vendor dollars (:mod:`forecast.economics.cost_paths`), for the vendors observed in each quarter::

    y(t) ~ MvNormal(log s_v(t) - log s_nvidia(t),  Sigma_t + sigma^2 I)

(logistic-normal). ``Sigma_t`` is the Monte Carlo covariance of the share derivation (units x
prices), ``sigma`` (``noise_sigma``) the model error on top of it. Log-ratios of the vendors
present are coherent whatever other vendors are missing, so quarters with partial coverage
count.

Scenario levers at forecast time: ``switching_speed`` multiplies lambda (capped at 1),
``ecosystem_shift`` lowers NVIDIA's ``a`` by that many utility units per year after the last
fitted quarter, ``supply_caps`` caps target shares and redistributes the excess
proportionally to the uncapped vendors (:func:`apply_supply_caps`).

Priors (defaults; override from a scenario's ``[priors.share]``)
-----------------------------------------------------------------
==================  ==========================  ============================================
parameter           default                     why
==================  ==========================  ============================================
price_coefficient   LogNormal(median 1, 0.6)    the scenario's prior; 80% range 0.46-2.2
ecosystem_nvidia    Normal(2, 1)                the scenario's prior: CUDA advantage
ecosystem_other     Normal(0, 2)                other vendors vs the reference: wide
adjustment_speed    Beta(2, 3) per quarter      mean 0.4: spend on new chips moves within a
                                                year, contracts and lock-in slow it
initial_logit       Normal(-2, 2)               vendors start well below NVIDIA (e^-2 = 0.14)
noise_sigma         Gamma(2, 6)                 model error in log-ratio units, mean 0.33;
                                                zero-avoiding: derived shares surely miss
                                                more than the derivation error (a HalfNormal
                                                let NUTS diverge near 0)
==================  ==========================  ============================================

Elasticity of vendor i's target share to vendor j's cost:
``d log s*_i / d log k_j = -b (delta_ij - s*_j)`` (:func:`share_elasticities`).

Modules
-------
``data`` (vendor roles, the observation layout, the centred cost covariate; the inputs come
from :func:`forecast.economics.cost_paths.share_inputs`), ``math`` (numpy: softmax targets,
supply caps, partial adjustment), ``builder`` (default priors and the PyMC model), ``fitted``
(:class:`FittedShareModel`: fitted shares and forecasts, no PyMC), ``model``
(:class:`ShareModel`: the protocol's hooks), ``elasticities`` and ``simulation``. The
rolling-origin backtest against a constant-share forecast is evaluation, not model: see
``forecast.evaluation``.
"""

from forecast.models.share.builder import DEFAULT_PRIORS, SUMMARY_VARS, build_share_model
from forecast.models.share.data import (
    DEFAULT_REFERENCE,
    NVIDIA,
    centred_log_cost,
    observation_layout,
)
from forecast.models.share.elasticities import elasticities
from forecast.models.share.fitted import FittedShareModel
from forecast.models.share.math import (
    apply_supply_caps,
    partial_adjustment,
    share_elasticities,
    share_paths,
    softmax,
    target_shares,
)
from forecast.models.share.model import SHARE_SAMPLER, ShareModel
from forecast.models.share.simulation import simulate_share_data

__all__ = [
    "DEFAULT_PRIORS", "DEFAULT_REFERENCE", "NVIDIA", "SHARE_SAMPLER", "SUMMARY_VARS",
    "FittedShareModel", "ShareModel", "apply_supply_caps", "build_share_model",
    "centred_log_cost", "elasticities", "observation_layout", "partial_adjustment",
    "share_elasticities", "share_paths", "simulate_share_data", "softmax", "target_shares",
]
