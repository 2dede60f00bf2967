"""M2 price erosion: hierarchical decay of price per chip-hour, with a market cycle.

Model
-----
For observation i of chip c (vendor v), pricing type k, at age a_i years since the chip's
launch and calendar quarter t_i::

    market price:  log P_i = alpha_c + offset_k + d_v * a_i + z_t + e_i
    list price:    log P_i = alpha_c + offset_k + premium + g * a_i + e_i

- ``alpha_c``: log launch price of chip c, on demand at market (neocloud) level.
- ``premium``: how far a hyperscaler's list price sits above the market price at launch.
- ``g``: the slow drift of list prices with age, one rate for all vendors.
- ``d_v``: vendor decay of log price per year of age, partially pooled:
  ``d_v = d_mu + tau * eta_v``. ``d_mu``'s prior is anchored on the published fall in cost per
  FLOP of 25-30% a year (Epoch AI: FLOP/s per dollar doubles every 2.1-2.5 years), i.e. a log
  change of about -0.30 a year. A vendor with no price history (AMD) gets a draw from the
  population, so its uncertainty is honest rather than borrowed from NVIDIA.
- ``z_t``: a market-wide mean-reverting deviation around the trend, an AR(1) over calendar
  quarters (non-centred), projected to have no level and no linear trend over the fitted
  window (:func:`detrend_matrix`). Without that constraint a cycle and a decay explain the
  same H100 quotes equally well and NUTS crawls along the ridge; with it the trend belongs to
  ``d`` and the level to the launch prices, and ``z`` keeps only the boom and bust (2023 peak,
  2024-25 fall). A forecast's deviation decays back towards the trend at ``rho`` a quarter.
- ``e_i``: Student-t noise (nu = 4), one scale for list prices and one for market prices:
  providers differ, and a few extreme quotes must not drag the fit.

Pricing types: list prices move rarely and in steps
----------------------------------------------------
Hyperscaler list prices (on-demand, 1- and 3-year commitments) stay flat for years and then
move in one cut; marketplace, spot, capacity-block and index prices move continuously. Only a
hyperscaler's (AWS, Google Cloud, Azure, Oracle) on-demand and commitment prices are list
prices; a neocloud's on-demand price (Lambda, RunPod, ...) moves with the market. Two choices
make this explicit:

1. *A held price is one observation.* For each (chip, provider, pricing type), a price equal to
   that series' previous observation is dropped (:func:`collapse_held_prices`): an AWS H100 at
   $12.29 seen in 2023 and again in 2025 is one piece of evidence, not two, so a flat list
   price cannot outvote the market.
2. *List prices have their own drift and no cycle.* List prices drift with age at one rate
   ``g`` shared by all vendors (their moves are pricing policy, and they barely moved in the
   data) and do not load on the market cycle. The vendor decay ``d_v`` is therefore identified
   by market prices only: a list price held high says nothing about what a chip-hour costs on
   the market. (A first version let list prices pass through a fraction of ``d_v``; list
   prices that rose slightly with age then dragged NVIDIA's market decay above zero, and the
   product of the fraction and ``d_v`` sampled slowly.)

Chips with any list price have their *list* level as the free parameter and their market
level derived as list level minus the premium. Most observations are list prices, so the
list level is what the data pin down; parameterised the other way round every chip's
intercept forms a ridge with the premium and NUTS mixes slowly. For the same reason the free
level is the level at the chip's mean observed age, not at launch (an intercept far from
the data correlates with the slope); the launch price is derived from it.

Each non-reference pricing type has its own offset ``offset_k`` (commitments sit below
on-demand; the data identify them well, so the prior is wide).

Prices of chips with no history (Trainium2, Trainium3, future chips) come from scenario inputs
as a launch price (or a ratio to a predecessor) and then follow the fitted vendor decay: see
:meth:`FittedPriceModel.forecast`.

Priors (defaults; every one can be overridden from a scenario's ``[priors.price]``)
-----------------------------------------------------------------------------------
=============  =================================  =========================================
parameter      default                            why
=============  =================================  =========================================
decay_mu       Normal(-0.30, 0.15) per year       Epoch AI 25-30%/yr fall in cost per FLOP
decay_tau      HalfNormal(0.15)                   vendors differ by about +-15%/yr
launch_price   Normal(1.0, 1.0) log USD/chip-h    e^1 = $2.7/h; 95% range $0.4-$19/h
type_offset    Normal(-0.3, 0.5)                  commitments and spot sit below on-demand
list_premium   Normal(0.5, 0.5)                   hyperscaler list above market at launch
list_drift     Normal(0, 0.1) per year            list prices barely move between cuts
cycle_rho      Beta(6, 2) per quarter             cycles last a few quarters to a few years
cycle_sigma    HalfNormal(0.15) per quarter       H100 market price halved in about 18 months
noise_list     HalfNormal(0.3)                    provider spread of list prices
noise_market   HalfNormal(0.5)                    wider spread of market quotes
=============  =================================  =========================================
"""


from forecast.models.price.builder import DEFAULT_PRIORS, SUMMARY_VARS, build_price_model
from forecast.models.price.crosscheck import (
    ols_cross_check,
    ols_decay_rates,
    simulate_price_observations,
)
from forecast.models.price.data import (
    DAYS_PER_YEAR,
    LIST_TYPES,
    REFERENCE_TYPE,
    VENDORS,
    PriceData,
    collapse_held_prices,
    identified_market_vendors,
    prepare_price_data,
    price_class,
)
from forecast.models.price.fitted import FittedPriceModel
from forecast.models.price.math import (
    NOISE_DOF,
    annual_change,
    ar1_loading_matrix,
    detrend_matrix,
    log_price_mean,
)
from forecast.models.price.model import PRICE_SAMPLER, PriceModel

__all__ = [
    "DAYS_PER_YEAR", "DEFAULT_PRIORS", "LIST_TYPES", "NOISE_DOF",
    "PRICE_SAMPLER", "REFERENCE_TYPE", "SUMMARY_VARS", "VENDORS", "FittedPriceModel",
    "PriceData", "PriceModel", "annual_change", "ar1_loading_matrix", "build_price_model",
    "collapse_held_prices", "detrend_matrix", "identified_market_vendors", "log_price_mean",
    "ols_cross_check", "ols_decay_rates", "prepare_price_data", "price_class",
    "simulate_price_observations",
]
