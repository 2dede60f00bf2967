"""The AWS silicon model class: the protocol's hooks for M5 (see
:mod:`forecast.models.aws_silicon`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from forecast.core.errors import FitError
from forecast.data.hashing import content_digest
from forecast.models.aws_silicon.builder import (
    DEFAULT_PRIORS,
    SCALAR_VARS,
    build_aws_silicon_model,
)
from forecast.models.aws_silicon.data import (
    RAMP_WIDTH,
    REFERENCE_GENERATION,
    UTILISATION_READINGS,
    check_spend,
    prepare_aws_silicon_data,
    spend_frame_from_market,
    timeline_of,
)
from forecast.models.aws_silicon.fitted import FittedAwsSilicon
from forecast.models.market.data import statement_readings
from forecast.models.protocol import BayesianModel

#: nutpie. PyMC's own NUTS took 20-30 s a fit; nutpie compiles once a process (about 35 s,
#: numba; bull, base and bear share it, the market fit's spend being ``pm.Data``) and then
#: samples in about 1.5 s. On the shipped data (bull, base, bear; seeds 1 and 2): max r_hat
#: 1.0033, min bulk ESS 1,603, 0 divergences. With PyMC's sampler and 1,000 draws r_hat
#: reached 1.0095 on a prior-only parameter (merchant_price_decline): hence 2,000 draws.
AWS_SILICON_SAMPLER: dict[str, Any] = {"nuts_sampler": "nutpie", "target_accept": 0.95,
                                       "tune": 1000, "draws": 2000, "chains": 2}


class AwsSiliconModel(BayesianModel):
    """Configuration of the AWS silicon model; :meth:`fit` returns a
    :class:`~forecast.models.aws_silicon.fitted.FittedAwsSilicon`.

    Parameters
    ----------
    priors
        Overrides of :data:`~forecast.models.aws_silicon.builder.DEFAULT_PRIORS` (the
        scenario's ``[priors.aws_silicon]`` table through :meth:`from_scenario`).
    sampler
        Overrides of the sampler settings (:data:`AWS_SILICON_SAMPLER` over the defaults).
    """

    name: ClassVar[str] = "aws_silicon"
    fitted_class = FittedAwsSilicon
    default_priors = DEFAULT_PRIORS
    default_sampler = AWS_SILICON_SAMPLER
    #: Unit costs of every generation (one ``unit_cost`` row each) and the scalars.
    summary_vars = ("unit_cost", *SCALAR_VARS)
    #: Forecasts continue the fleet of every generation from its last quarter.
    state_vars = {"fleet": "quarter"}
    #: The spend's non-centred innovations (``log_spend`` keeps what they mean).
    auxiliary_vars = ("z_spend",)
    #: Fitted after the market model, from its AWS spend.
    upstream = ("market",)

    def prepare(self, dataset: Any, scenario: Any = None, spend: pd.DataFrame | None = None
                ) -> dict[str, pd.DataFrame]:
        """The frames the model fits; see
        :func:`~forecast.models.aws_silicon.data.prepare_aws_silicon_data`.

        ``spend`` (quarter, log_mean, log_sd: log USD bn per quarter) is required: the market
        model's AWS spend, e.g. ``spend_frame_from_market(fitted_market)``. Run-rate phrases
        and stated numbers are read as the scenario's ``[readings]`` say, with
        ``scenario=None`` as the documented defaults :data:`RUN_RATE_READINGS` and
        :data:`NUMBER_FACTORS`; utilisation phrases as :data:`UTILISATION_READINGS`.
        """
        if spend is None:
            raise FitError("aws_silicon: prepare needs the spend frame (quarter, log_mean, "
                           "log_sd): spend_frame_from_market(fitted_market)")
        # No scenario (or one without [readings]): the documented defaults.
        phrases, factors = statement_readings(scenario)
        return prepare_aws_silicon_data(dataset, spend, run_rate_readings=phrases,
                                        number_factors=factors,
                                        utilisation_readings=UTILISATION_READINGS)

    def prepare_with(self, dataset: Any, scenario: Any, fitted: Mapping[str, Any]
                     ) -> dict[str, pd.DataFrame]:
        """:meth:`prepare` with the spend of the fitted market model ``fitted["market"]``
        (:func:`~forecast.models.aws_silicon.data.spend_frame_from_market`)."""
        if "market" not in fitted:
            raise FitError("aws_silicon: fitted after the market model, which is missing")
        return self.prepare(dataset, scenario, spend=spend_frame_from_market(fitted["market"]))

    def check_inputs(self, inputs: Mapping[str, pd.DataFrame]) -> None:
        check_spend(inputs["spend"])
        missing = [f"unit_cost_{str(g).lower()}" for g in inputs["generations"]["generation"]
                   if f"unit_cost_{str(g).lower()}" not in self.priors]
        if missing:
            raise FitError(f"aws_silicon: no prior for {', '.join(missing)}")

    def build(self, inputs: Mapping[str, pd.DataFrame]) -> Any:
        return build_aws_silicon_model(inputs, self.priors)

    def compile_key(self, inputs: Mapping[str, pd.DataFrame]) -> str:
        """Inputs and priors with the spend's values left out (they are ``pm.Data``, see
        :meth:`swappable_data`): bull, base and bear compile once per process."""
        structure = {key: value for key, value in inputs.items() if key != "spend"}
        structure["spend_quarters"] = list(inputs["spend"]["quarter"].astype(str))
        return f"{self.name}-" + content_digest({
            "data": structure, "priors": self.priors,
            "version": self.fitted_class.model_version})

    def swappable_data(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, np.ndarray]:
        spend = inputs["spend"]
        return {"spend_log_mean": spend["log_mean"].to_numpy(float),
                "spend_log_sd": spend["log_sd"].to_numpy(float)}

    def fitted_frames(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
        frames = {key: inputs[key].copy() for key in ("spend", "generations", "cumulative",
                                                      "statements")}
        # Stored as parquet: numeric bounds, no infinities (an open bound is NaN).
        frames["statements"] = frames["statements"].astype(
            {"lower": float, "upper": float}).replace({np.inf: np.nan})
        return frames

    def fitted_config(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
        return {"timeline": timeline_of(inputs), "reference_generation": REFERENCE_GENERATION,
                "ramp_width": RAMP_WIDTH}

    def fitted_meta(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
        return {"data_end": timeline_of(inputs)[-1],
                "n_cumulative": int(len(inputs["cumulative"])),
                "n_statements": int(len(inputs["statements"]))}
