"""The share model class: the protocol's hooks for M4 (see :mod:`forecast.models.share`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.data.hashing import content_digest
from forecast.economics.cost_paths import ShareData, share_inputs
from forecast.models.protocol import BayesianModel
from forecast.models.share.builder import DEFAULT_PRIORS, SUMMARY_VARS, build_share_model
from forecast.models.share.data import DEFAULT_REFERENCE, centred_log_cost
from forecast.models.share.fitted import FittedShareModel

#: Default sampler settings of the share model (see the fit report in the README section).
SHARE_SAMPLER: dict[str, Any] = {"nuts_sampler": "nutpie", "draws": 2000, "tune": 1500,
                                 "target_accept": 0.97}


class ShareModel(BayesianModel):
    """Configuration of the share model; :meth:`fit` returns a :class:`FittedShareModel`.

    Parameters
    ----------
    priors
        Overrides of :data:`~forecast.models.share.builder.DEFAULT_PRIORS` (e.g. a
        scenario's ``[priors.share]`` table).
    sampler
        Overrides of the sampler settings.
    reference_vendor
        The vendor whose ecosystem term is fixed at 0 (default ``google``).
    """

    name: ClassVar[str] = "share"
    fitted_class = FittedShareModel
    default_priors = DEFAULT_PRIORS
    default_sampler = SHARE_SAMPLER
    summary_vars = tuple(SUMMARY_VARS)
    #: Forecasts start from the latent shares of the last fitted quarter.
    state_vars = {"share": "quarter"}
    #: Copied into ``ecosystem`` (with the reference vendor's 0).
    auxiliary_vars = ("ecosystem_nvidia", "ecosystem_other")

    def __init__(self, priors: Mapping[str, Any] | None = None,
                 sampler: Mapping[str, Any] | None = None, *,
                 reference_vendor: str = DEFAULT_REFERENCE):
        super().__init__(priors, sampler)
        self.reference_vendor = reference_vendor

    def prepare(self, dataset: Any, scenario: Any = None) -> ShareData:
        """Log-ratio moments and log costs (:func:`~forecast.economics.cost_paths.share_inputs`):
        the costs are on the scenario's cost basis, so a scenario is required."""
        if scenario is None:
            raise ForecastError("share model: the inputs depend on a scenario's cost basis; "
                                "give a scenario")
        return share_inputs(dataset, scenario)

    def check_inputs(self, inputs: ShareData) -> None:
        if inputs.n_observations < 3 or len(inputs.quarters) < 3:
            raise ForecastError(f"share model: {inputs.n_observations} observed log-ratios over "
                                f"{len(inputs.quarters)} quarters; need at least 3 of each")

    def build(self, inputs: ShareData) -> Any:
        return build_share_model(inputs, self.priors, self.reference_vendor)

    def compile_key(self, inputs: ShareData) -> str:
        # Same structure, same compiled sampler: scenarios differ only in the (centred) log
        # costs, which are swapped in as data; a warm refit skips the compile too.
        structure = {name: getattr(inputs, name) for name in ("quarters", "vendors", "alr_mean",
                                                             "alr_cov", "observed")}
        return f"{self.name}-" + content_digest({"data": structure, "priors": self.priors,
                                                 "reference": self.reference_vendor,
                                                 "version": self.fitted_class.model_version})

    def swappable_data(self, inputs: ShareData) -> dict[str, np.ndarray]:
        return {"log_cost_centred": centred_log_cost(inputs)}

    def fitted_frames(self, inputs: ShareData) -> dict[str, pd.DataFrame]:
        return {"observations": inputs.to_frame()}

    def fitted_config(self, inputs: ShareData) -> dict[str, Any]:
        return {"reference_vendor": self.reference_vendor}

    def fitted_meta(self, inputs: ShareData) -> dict[str, Any]:
        return {"quarters": list(inputs.quarters), "vendors": list(inputs.vendors),
                "reference_vendor": self.reference_vendor,
                "n_observations": inputs.n_observations, "cost_basis": inputs.cost_basis}
