"""The price-erosion model class: the protocol's hooks for M2 (see :mod:`forecast.models.price`)."""

from __future__ import annotations

from typing import Any, ClassVar

import pandas as pd

from forecast.core.errors import ForecastError
from forecast.models.price.builder import DEFAULT_PRIORS, SUMMARY_VARS, build_price_model
from forecast.models.price.data import PriceData, prepare_price_data
from forecast.models.price.fitted import FittedPriceModel
from forecast.models.protocol import BayesianModel

#: nutpie reached bulk ESS >= 400 on every parameter in a third of PyMC's NUTS time on the
#: shipped data (benchmarks/bench_price.py); decay_mu mixes slowest (ESS ~0.19 per draw), so
#: 3,000 draws a chain.
PRICE_SAMPLER = {"nuts_sampler": "nutpie", "draws": 3000, "tune": 1000}


class PriceModel(BayesianModel):
    """Configuration of the price-erosion model; :meth:`fit` returns a fitted model.

    Parameters
    ----------
    priors
        Overrides of :data:`~forecast.models.price.builder.DEFAULT_PRIORS`, e.g. a
        scenario's ``[priors.price]`` table.
    sampler
        Overrides of the sampler settings.
    """

    name: ClassVar[str] = "price"
    fitted_class = FittedPriceModel
    default_priors = DEFAULT_PRIORS
    default_sampler = PRICE_SAMPLER
    summary_vars = tuple(SUMMARY_VARS)
    #: Forecasts continue the market cycle from its last fitted quarter.
    state_vars = {"cycle": "quarter"}
    auxiliary_vars = ("cycle_eps", "price_level", "decay_eta", "provider_eta",
                      "premium_eta",
                      "series_eta")

    def prepare(self, dataset: Any, scenario: Any = None) -> PriceData:
        """Rental prices with age, vendor and price class (the scenario does not matter)."""
        return prepare_price_data(dataset)

    def check_inputs(self, inputs: PriceData) -> None:
        if len(inputs.observations) < 10:
            raise ForecastError(f"price model: {len(inputs.observations)} price observations, "
                                "need at least 10")

    def build(self, inputs: PriceData) -> Any:
        return build_price_model(inputs, self.priors)

    def fitted_frames(self, inputs: PriceData) -> dict[str, pd.DataFrame]:
        providers = pd.DataFrame({"provider_or_index": list(inputs.provider_classes),
                                  "provider_class": list(inputs.provider_classes.values())})
        return {"observations": inputs.observations, "catalogue": inputs.catalogue.copy(),
                "providers": providers}

    def fitted_meta(self, inputs: PriceData) -> dict[str, Any]:
        return {"n_observations": len(inputs.observations),
                "quarters": [str(q) for q in inputs.quarters]}
