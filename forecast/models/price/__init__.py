"""M2 price erosion: a hierarchical model of price per chip-hour.

Log price = chip level + provider effect (pooled by company within its class) + pricing-type
offset + vendor decay x age + a vintage term (a chip gets cheaper as its successors ship) +
a market-wide AR(1) cycle + Student-t noise. Hyperscaler list prices hold until a cloud
moves them: a step process learnt from the list histories, from which every list forecast
starts at the last listing. Forecasts give price paths per chip and the cost per effective
PFLOP-hour.

The model card is docs/models/price.md.
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
from forecast.models.price.fitted import FittedPrice
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
    "QUOTED_TYPES", "REFERENCE_TYPE", "SUMMARY_VARS", "VENDORS", "FittedPrice",
    "PriceData", "PriceModel", "SimulationTruth", "annual_change", "ar1_loading_matrix",
    "build_price_model", "collapse_held_prices", "frontier_log_tflops",
    "identified_market_vendors", "log_price_mean", "observation_frame", "offset_types",
    "ols_cross_check", "ols_decay_rates", "ols_vintage", "prepare_price_data", "price_class",
    "simulate_price_observations", "vintage_gap",
]
