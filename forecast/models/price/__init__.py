"""M2 price erosion: hierarchical model of price per chip-hour with provider effects, a
vintage term and a market cycle.

Model
-----
For observation i of chip c (vendor v) at provider p (class k), pricing type j, age a_i years
since the chip's launch, vintage gap g_i and calendar quarter t_i::

    market price:  log P_i = alpha_c + u_p + offset_j + d_v * a_i + b * g_i + z_t + e_i
    list price:    log P_i = alpha_c + u_p + offset_j + c_pj + g_list * a_i + e_i

- ``alpha_c``: log launch price of chip c, on demand at a neocloud (the reference class).
  Form factors are different chips (an H100 PCIe is not an H100 SXM5).
- ``u_p = m_k + s * eta_p``: provider effects, partially pooled within the provider's class
  (``data/providers.csv`` column ``provider_class``: hyperscaler, neocloud, marketplace or
  index). ``m_neocloud = 0``; ``m_hyperscaler`` is the ``list_premium`` (how far a
  hyperscaler's price sits above the market); other classes have a ``class_effect``.
  Without provider effects the changing mix of cheap and expensive providers over time reads
  as an age slope. A provider is a company (column ``company``): the regions and instance
  names a cloud quotes under (``Google Cloud (Belgium)``, ``AWS p4d.24xlarge``) share its
  effect, and each (chip, provider name) series has its own pooled effect on top.
- ``c_pj = s_c * eta_pj``: a hyperscaler's own deviation from the pooled offset of
  commitment type j (1- or 3-year), so that Google Cloud's deeper discounts (37% and 55% off
  on-demand) are its own and reach its new chips and regions (model version 5).
- ``d_v``: vendor decay of log price per year of age, partially pooled,
  ``d_v = d_mu + tau * eta_v``. ``d_mu``'s prior is anchored on Epoch AI's 23-30%/yr fall in
  the cost of a FLOP (a log change of about -0.30 a year).
- ``g_i = log(F_v(t_i) / f_c)``: how far chip c sits behind its vendor's frontier chip at the
  quote's date (dense BF16 TFLOPS, the frontier the fastest chip of the vendor released by
  then; :func:`~forecast.models.price.math.frontier_log_tflops`); ``b`` (``vintage``) is
  the change in log price per log unit behind, so prices fall as successors ship. Its
  prior is truncated at 0: a successor's arrival does not raise an older chip's price.
- ``z_t``: a market-wide AR(1) cycle over calendar quarters (non-centred, stationary start),
  with no zero-trend constraint: a stationary cycle cannot carry a lasting trend, so the
  long-run fall belongs to ``d`` (anchored by its prior) and ``b``. Forecasts continue it from
  its last fitted quarter, reverting at ``rho`` a quarter.
- ``e_i``: Student-t noise (nu = 4), one scale for list and one for market prices.

List prices (a hyperscaler's on-demand and commitment prices) move rarely and in steps: a held
price is one observation (:func:`collapse_held_prices`), they drift with age at one rate
``g_list`` and load neither on the cycle nor on the vintage term (AWS's A100 list price stayed
at $4.10 an hour from 2021 to 2025 through two NVIDIA launches).

Identification: the free level of each chip is its level where its data sit (the list level at
its mean age for a listed chip); the launch price is derived. Pricing types recorded only for
market-wide figures read as the type they quote (:data:`~forecast.models.price.data.QUOTED_TYPES`).

Priors (defaults; the names of ``scenario_contract.MODEL_PRIORS`` can be overridden from a
scenario's ``[priors.price]``)
------------------------------------------------------------------------------------------
=============  =================================  =========================================
parameter      default                            why
=============  =================================  =========================================
decay_mu       Normal(-0.30, 0.15) per year       Epoch AI 23-30%/yr fall in cost per FLOP
decay_tau      HalfNormal(0.05)                   vendors differ by a few %/yr
vintage        Normal(-0.3, 0.3), <= 0            successors lower a chip's price
launch_price   Normal(1.0, 1.0) log USD/chip-h    e^1 = $2.7/h; 95% range $0.4-$19/h
type_offset    Normal(-0.3, 0.5)                  commitments and spot sit below on-demand
list_premium   Normal(0.5, 0.5)                   hyperscalers above the market
class_effect   Normal(0, 0.5)                     index and marketplace levels
provider_sd    HalfNormal(0.3)                    providers within a class differ
commitment_sd  HalfNormal(0.2)                    clouds' commitment discounts differ
list_drift     Normal(0, 0.1) per year            list prices barely move between cuts
cycle_rho      Beta(6, 2) per quarter             cycles last a few quarters to a few years
cycle_sigma    HalfNormal(0.15) per quarter       H100 market price halved in about 18 months
noise_list     HalfNormal(0.3)                    spread of list prices
noise_market   HalfNormal(0.5)                    wider spread of market quotes
=============  =================================  =========================================

Chips with no price history (Trainium2, Trainium3, future chips) take a launch price from
scenario inputs and then follow the fitted decay and vintage term; the frontier path can be
given (``frontier_tflops``), e.g. from a scenario roadmap: see
:meth:`FittedPriceModel.forecast`.
"""

from forecast.models.price.builder import DEFAULT_PRIORS, SUMMARY_VARS, build_price_model
from forecast.models.price.crosscheck import (
    SimulationTruth,
    ols_cross_check,
    ols_decay_rates,
    ols_vintage,
    simulate_price_observations,
)
from forecast.models.price.data import (
    DAYS_PER_YEAR,
    LIST_TYPES,
    QUOTED_TYPES,
    REFERENCE_TYPE,
    VENDORS,
    PriceData,
    collapse_held_prices,
    identified_market_vendors,
    observation_frame,
    offset_types,
    prepare_price_data,
    price_class,
)
from forecast.models.price.fitted import FittedPriceModel
from forecast.models.price.math import (
    NOISE_DOF,
    annual_change,
    ar1_loading_matrix,
    frontier_log_tflops,
    log_price_mean,
    vintage_gap,
)
from forecast.models.price.model import PRICE_SAMPLER, PriceModel

__all__ = [
    "DAYS_PER_YEAR", "DEFAULT_PRIORS", "LIST_TYPES", "NOISE_DOF", "PRICE_SAMPLER",
    "QUOTED_TYPES", "REFERENCE_TYPE", "SUMMARY_VARS", "VENDORS", "FittedPriceModel",
    "PriceData", "PriceModel", "SimulationTruth", "annual_change", "ar1_loading_matrix",
    "build_price_model", "collapse_held_prices", "frontier_log_tflops",
    "identified_market_vendors", "log_price_mean", "observation_frame", "offset_types",
    "ols_cross_check", "ols_decay_rates", "ols_vintage", "prepare_price_data", "price_class",
    "simulate_price_observations", "vintage_gap",
]
