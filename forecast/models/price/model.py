"""The price-erosion model class: the protocol's hooks for M2 (see :mod:`forecast.models.price`)."""

from __future__ import annotations

from typing import Any, ClassVar

import pandas as pd

from forecast.core.errors import ForecastError
from forecast.models.price.builder import DEFAULT_PRIORS, SUMMARY_VARS, build_price_model
from forecast.models.price.data import PriceData, prepare_price_data
from forecast.models.price.fitted import FittedPrice
from forecast.models.protocol import BayesianModel

#: nutpie on the shipped data. Version 4's provider and series spreads traded against each
#: other (bulk ESS 0.02-0.05 per draw: 8,000 draws a chain). Version 5 pools the provider
#: names of one company and makes the companies' commitment and drift deviations sum to
#: zero: at 2 x 3,000 draws after 1,000 tuning steps, seeds 3-6 gave max r_hat 1.003-1.006,
#: min bulk ESS 859-1,042 (commitment_sd) and no divergence, in about 24 s a fit; 2 x 2,000
#: draws left r_hat 1.009 on one seed of three, too near the gate's 1.01. target_accept 0.9:
#: the base fit at seeds 1-5 and the default gave max r_hat 1.002-1.005, min bulk ESS
#: 660-1,142 and no divergence with 107-119 leapfrog steps a draw, against 192 at 0.95 (min
#: ESS 1,116; about 1.7x the steps, and 27 s against 13-15 s in the refit benchmark); 0.85
#: took more steps (131) and a diagonal plus low-rank mass matrix mixed worse (min ESS 397 at
#: 0.95). (One-off measurements, not kept as a script.)
PRICE_SAMPLER = {"nuts_sampler": "nutpie", "draws": 3000, "tune": 1000, "target_accept": 0.9}


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
    fitted_class = FittedPrice
    default_priors = DEFAULT_PRIORS
    default_sampler = PRICE_SAMPLER
    summary_vars = tuple(SUMMARY_VARS)
    #: Forecasts continue the market cycle from its last fitted quarter.
    state_vars = {"cycle": "quarter"}
    auxiliary_vars = ("cycle_eps", "price_level", "decay_eta", "provider_eta",
                      "premium_eta", "series_eta", "commitment_eta", "list_drift_eta")

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
        names = list(inputs.provider_classes)
        providers = pd.DataFrame({
            "provider_or_index": names,
            "provider_class": [inputs.provider_classes[n] for n in names],
            "company": [inputs.provider_companies.get(n, n) for n in names]})
        return {"observations": inputs.observations, "catalogue": inputs.catalogue.copy(),
                "providers": providers, "list_history": inputs.list_history}

    def fitted_meta(self, inputs: PriceData) -> dict[str, Any]:
        return {"n_observations": len(inputs.observations),
                "quarters": [str(q) for q in inputs.quarters]}
