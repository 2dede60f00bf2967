"""M4 market share: a state space over the five vendor groups, driven by costs.

Model
-----
For each rival v of NVIDIA (``amd``, ``google``, ``aws``, ``other``) and quarter t, with
``k_v(t)`` its cost per effective PFLOP-hour (:mod:`forecast.economics.chip_costs`)::

    mu*_v(t) = a_v - b (log k_v(t) - log k_nvidia(t))          cost-driven target
    d_v(t)   = rho d_v(t-1) + sigma_v eps_v(t)                  persistent deviation
    m_v(t)   = m_v(t-1) + lambda (mu*_v(t) - m_v(t-1)) + d_v(t)  log(spend_v / spend_nvidia)
    y_v(t)   = m_v(t) + tau_v nu_v(t)                           the market model's measurement

- ``b > 0`` (``price_coefficient``): a cheaper effective compute than NVIDIA's raises the
  target; ``a_v = offset_v - ecosystem_nvidia`` carries lock-in (NVIDIA's CUDA lead is the
  scenario's ``ecosystem_nvidia`` prior); ``lambda`` (``adjustment_speed``) is the speed of
  switching; ``d_v`` a deviation that persists at rate ``rho`` (``deviation_persistence``):
  a ramp keeps going for a few quarters.
- Shares are ``softmax(0, m(t))`` over the five groups: they sum to one on every path.
- The measurements ``y`` are the market model's posterior mean log-ratios
  (:mod:`forecast.models.share.data`) in the quarters where a reported series informs the
  vendor: one answer to "how much did AMD sell" across the package.
- The latent states are integrated out by a Kalman filter
  (:mod:`forecast.models.share.statespace`); forecasts start from the filtered state of the
  last quarter (or from the market model's own draws of it) with the deviation's shocks on,
  so intervals widen with the horizon.

Scenario levers at forecast time: ``switching_speed`` multiplies lambda (capped at 1),
``ecosystem_shift`` lowers NVIDIA's advantage by that many log-ratio units a year after the
data, ``supply_caps`` caps target shares (:func:`apply_supply_caps`).

Elasticity of vendor i's target share to vendor j's cost:
``d log s*_i / d log k_j = -b (delta_ij - s*_j)`` (:func:`share_elasticities`).

Modules
-------
``statespace`` (targets, filter, simulation: numpy and PyTensor), ``math`` (simplex math),
``data`` (measurements from a market fit), ``builder`` (default priors, the PyMC model),
``alignment`` (forecast inputs), ``fitted`` (:class:`FittedShareModel`, no PyMC), ``model``
(:class:`ShareModel`: the protocol's hooks), ``elasticities`` and ``simulation``. The
rolling-origin backtest is evaluation, not model: see ``forecast.evaluation``.
"""

from forecast.models.share.builder import DEFAULT_PRIORS, SUMMARY_VARS, build_share_model
from forecast.models.share.data import (
    NVIDIA,
    market_log_ratios,
    measured_cells,
    share_data_from_market,
)
from forecast.models.share.elasticities import elasticities
from forecast.models.share.fitted import FittedShareModel
from forecast.models.share.math import (
    additive_log_ratios,
    apply_supply_caps,
    from_log_ratios,
    share_elasticities,
    softmax,
)
from forecast.models.share.model import SHARE_SAMPLER, ShareModel
from forecast.models.share.simulation import simulate_share_data
from forecast.models.share.statespace import (
    StateParams,
    share_filter,
    simulate_states,
    target_log_ratios,
)

__all__ = [
    "DEFAULT_PRIORS", "NVIDIA", "SHARE_SAMPLER", "SUMMARY_VARS", "FittedShareModel",
    "ShareModel", "StateParams", "additive_log_ratios", "apply_supply_caps",
    "build_share_model", "elasticities", "from_log_ratios", "market_log_ratios",
    "measured_cells", "share_data_from_market", "share_elasticities", "share_filter",
    "simulate_share_data", "simulate_states", "softmax", "target_log_ratios",
]
