"""The share model class: the protocol's hooks for M4 (see :mod:`forecast.models.share`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.data.hashing import content_digest
from forecast.economics.chip_costs import cost_basis, historical_costs
from forecast.economics.offers import ramp_quarters_of
from forecast.economics.share_inputs import ShareData
from forecast.models.protocol import BayesianModel
from forecast.models.share.builder import (
    DEFAULT_PRIORS,
    SUMMARY_VARS,
    build_share_model,
    swappable_values,
)
from forecast.models.share.data import market_log_ratios, share_data_from_market
from forecast.models.share.fitted import FittedShareModel

#: nutpie, four chains with a low-rank mass matrix at target_accept 0.95. With two chains some
#: fits sat in different modes (r_hat 2.2); four expose that. PyMC's own NUTS spent 65-85 s
#: per fit (about 0.7 ms a leapfrog step, most of it the Python sampler's overhead around
#: the filter's scan); nutpie compiles once a process (about a minute, numba; bull, base and
#: bear share it, see ``compile_key``) and then samples in about 6 s. On the shipped data
#: (bull, base, bear; seeds 1 and 2): max r_hat 1.006, min bulk ESS 1,196, 0 divergences.
SHARE_SAMPLER: dict[str, Any] = {"nuts_sampler": "nutpie", "chains": 4, "draws": 1000,
                                 "tune": 1000, "target_accept": 0.95,
                                 "low_rank_mass_matrix": True}


class ShareModel(BayesianModel):
    """Configuration of the share model; :meth:`fit` returns a :class:`FittedShareModel`.

    Parameters
    ----------
    priors
        Overrides of :data:`~forecast.models.share.builder.DEFAULT_PRIORS` (e.g. a
        scenario's ``[priors.share]`` table).
    sampler
        Overrides of the sampler settings.
    """

    name: ClassVar[str] = "share"
    fitted_class = FittedShareModel
    default_priors = DEFAULT_PRIORS
    default_sampler = SHARE_SAMPLER
    summary_vars = tuple(SUMMARY_VARS)
    #: The latent offsets are copied into ``ecosystem`` (less NVIDIA's lead).
    auxiliary_vars = ("ecosystem_offset",)
    #: Fitted after the market model, from what it measures.
    upstream = ("market",)

    def prepare(self, dataset: Any, scenario: Any = None,
                upstream: Mapping[str, Any] | None = None) -> ShareData:
        """The market fit's measured log-ratios and the scenario's historical costs
        (:func:`~forecast.models.share.data.share_data_from_market`).

        The costs are on the scenario's cost basis and the measurements come from the
        scenario's market fit, so both a scenario and ``upstream["market"]`` are required.
        """
        market = (upstream or {}).get("market")
        if scenario is None or market is None:
            raise ForecastError("share model: the inputs depend on a scenario's cost basis "
                                "and on its market fit; give a scenario and "
                                "upstream={'market': fitted_market}")
        ramp = ramp_quarters_of(scenario)
        quarters, vendors, _ = market_log_ratios(market)
        costs = historical_costs(dataset, scenario, quarters, ramp_quarters=ramp,
                                 vendors=vendors)
        return share_data_from_market(market, np.log(costs), cost_basis(ramp))

    def prepare_with(self, dataset: Any, scenario: Any, fitted: Mapping[str, Any]) -> ShareData:
        """:meth:`prepare` from the scenario's fitted models (its market fit)."""
        return self.prepare(dataset, scenario, upstream=fitted)

    def check_inputs(self, inputs: ShareData) -> None:
        if inputs.n_observations < 3 or len(inputs.quarters) < 3:
            raise ForecastError(f"share model: {inputs.n_observations} measured log-ratios "
                                f"over {len(inputs.quarters)} quarters; need at least 3 of "
                                "each")

    def build(self, inputs: ShareData) -> Any:
        return build_share_model(inputs, self.priors)

    def compile_key(self, inputs: ShareData) -> str:
        # Scenarios differ in the measured values and the costs, both pm.Data: the same
        # quarters, vendors and measured cells share one compiled sampler.
        structure = {"quarters": inputs.quarters, "vendors": inputs.vendors,
                     "observed": inputs.observed}
        return f"{self.name}-" + content_digest({"data": structure, "priors": self.priors,
                                                 "version": self.fitted_class.model_version})

    def swappable_data(self, inputs: ShareData) -> dict[str, np.ndarray]:
        return swappable_values(inputs)

    def fitted_frames(self, inputs: ShareData) -> dict[str, pd.DataFrame]:
        return {"observations": inputs.to_frame()}

    def fitted_meta(self, inputs: ShareData) -> dict[str, Any]:
        return {"quarters": list(inputs.quarters), "vendors": list(inputs.vendors),
                "n_observations": inputs.n_observations, "cost_basis": inputs.cost_basis}
