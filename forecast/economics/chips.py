"""M1 chip economics: price-performance, owner TCO and each vendor's best offer.

Pure numpy/pandas, no inference and no I/O. Every array function broadcasts, so the same call
works for one point estimate or for a ``(draws, chips)`` array of scenario draws. No number
about the world (prices, MFU, electricity tariffs, PUE...) lives in these modules; they arrive
as arguments from the data or from a scenario.

The functions live in one module per idea and are gathered here:

- :mod:`~forecast.economics.throughput`: dense TFLOPS per chip, effective PFLOPS and cost per
  effective PFLOP-hour (the units are described there);
- :mod:`~forecast.economics.tco`: owner's total cost of ownership per utilised chip-hour;
- :mod:`~forecast.economics.tables`: the per-chip price-performance table;
- :mod:`~forecast.economics.offers`: each vendor's best offer, with new chips ramping in;
- :mod:`~forecast.economics.checks`: the argument checks and :class:`EconomicsInputError`.
"""

from __future__ import annotations

from forecast.economics.checks import EconomicsInputError
from forecast.economics.offers import DEFAULT_RAMP_QUARTERS, best_offer, vendor_offers
from forecast.economics.tables import DATA_PRICE_SOURCE, economics_table
from forecast.economics.tco import owner_tco_per_chip_hour
from forecast.economics.throughput import (
    PRECISIONS,
    cost_per_effective_pflop_hour,
    dense_tflops_for,
    effective_pflops,
)

__all__ = [
    "DATA_PRICE_SOURCE",
    "DEFAULT_RAMP_QUARTERS",
    "PRECISIONS",
    "EconomicsInputError",
    "best_offer",
    "cost_per_effective_pflop_hour",
    "dense_tflops_for",
    "economics_table",
    "effective_pflops",
    "owner_tco_per_chip_hour",
    "vendor_offers",
]
