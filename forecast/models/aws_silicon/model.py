"""The AWS silicon model class: the protocol's hooks for M5 (see
:mod:`forecast.models.aws_silicon`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from forecast.core.errors import FitError
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

#: PyMC's NUTS (compiles in seconds; nutpie's numba compile would cost more than the whole
#: fit). Measured on the shipped data with the spend of the market fits of bear, base, bull
#: and the test fixture, 2 seeds each (8 fits): 0 divergences, max r_hat 1.0038, min bulk
#: ESS 2,694, 18-30 s per fit on 2 shared cores. With 1,000 draws r_hat reached 1.0095 on a
#: prior-only parameter (merchant_price_decline): too close to the gate's 1.01.
AWS_SILICON_SAMPLER: dict[str, Any] = {"nuts_sampler": "pymc", "target_accept": 0.95,
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
