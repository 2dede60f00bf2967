"""The vendor-spend model class: the protocol's hooks for M3 with M5 inside (see
:mod:`forecast.models.spend`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.core.stats import lognormal_sigma_from_band
from forecast.data.hashing import content_digest
from forecast.economics.chip_costs import (
    UNIT_COST_INPUTS,
    cost_basis,
    historical_costs,
    input_medians,
)
from forecast.economics.offers import ramp_quarters_of
from forecast.models.protocol import BayesianModel
from forecast.models.spend.builder import (
    INNOVATION_VARS,
    SHIFTED_VARS,
    STATE_VARS,
    SUMMARY_VARS,
    build_spend_model,
)
from forecast.models.spend.data import (
    model_quarters,
    position_window,
    prepare_spend_data,
    spend_timeline,
)
from forecast.models.spend.defaults import DEFAULT_PRIORS
from forecast.models.spend.fitted import FittedSpend
from forecast.models.spend.fleet import AWS_VARS
from forecast.models.spend.likelihood import nowcast_quarter
from forecast.models.spend.math import VENDORS
from forecast.models.spend.statements import readings_of

#: nutpie with a low-rank mass matrix (the trend's and the positions' parameters are
#: correlated), four chains to expose a second mode, target_accept 0.99 and 1,500 tuning
#: steps. Broadcom's custom fraction trades off against the custom group's ecosystem term
#: (Broadcom reports their product) and mixes slowest: 3,000 draws a chain keep its bulk ESS
#: well above the gate's 400 under every scenario.
SPEND_SAMPLER: dict[str, Any] = {"nuts_sampler": "nutpie", "chains": 4, "draws": 3000,
                                 "tune": 1500, "target_accept": 0.99,
                                 "low_rank_mass_matrix": True}
#: The ``pm.Data`` a scenario changes: bull, base and bear share one compiled sampler.
SWAPPABLE_DATA: tuple[str, ...] = ("cost_gap", "utilisation_ratio")


class SpendModel(BayesianModel):
    """Configuration of the vendor-spend model; :meth:`fit` returns a :class:`FittedSpend`.

    Parameters
    ----------
    priors
        Overrides of :data:`~forecast.models.spend.defaults.DEFAULT_PRIORS` (a scenario's
        ``[priors.spend]`` table).
    sampler
        Overrides of the sampler settings (:data:`SPEND_SAMPLER` over the defaults).
    """

    name: ClassVar[str] = "spend"
    fitted_class = FittedSpend
    default_priors = DEFAULT_PRIORS
    default_sampler = SPEND_SAMPLER
    summary_vars = (*SUMMARY_VARS, "unit_cost", *AWS_VARS)
    state_vars = STATE_VARS
    auxiliary_vars = (*INNOVATION_VARS, *SHIFTED_VARS)

    @classmethod
    def scenario_priors(cls, scenario: Any) -> dict[str, dict[str, Any]]:
        """The scenario's ``[priors.spend]`` table, with each AWS generation's unit cost
        matched to the P10-P90 of the scenario's unit cost input (the one unit cost of the
        chip, :data:`~forecast.economics.chip_costs.UNIT_COST_INPUTS`)."""
        priors = super().scenario_priors(scenario)
        inputs = getattr(scenario, "inputs", None) or {}
        for chip, name in UNIT_COST_INPUTS.items():
            if inputs.get(name) is not None:
                priors[f"unit_cost_{chip.lower()}"] = lognormal_prior(inputs[name])
        return priors

    def prepare(self, dataset: Any, scenario: Any = None) -> dict[str, pd.DataFrame]:
        """The frames of :func:`~forecast.models.spend.data.prepare_spend_data` on the
        scenario's cost basis (its MFU and TCO input medians, its chip ramp) and readings of
        Amazon's statements.

        Raises
        ------
        ForecastError
            Without a scenario: the relative positions' costs depend on one.
        """
        if scenario is None:
            raise ForecastError("spend model: its cost driver depends on a scenario's MFU and "
                                "TCO inputs; give a scenario (forecast.load_scenario('base'))")
        from forecast.models.spend.evidence import observation_frames

        quarters = model_quarters(observation_frames(dataset))
        costs = historical_costs(dataset, scenario, position_window(quarters),
                                 ramp_quarters=ramp_quarters_of(scenario), vendors=VENDORS)
        frames = prepare_spend_data(dataset, costs, readings_of(scenario))
        mfu = input_medians(scenario, ["mfu_aws", "mfu_nvidia"])
        frames["utilisation"] = pd.DataFrame({"ratio": [mfu["mfu_aws"] / mfu["mfu_nvidia"]],
                                              "basis": [cost_basis(ramp_quarters_of(scenario))]})
        return frames

    def check_inputs(self, inputs: Mapping[str, pd.DataFrame]) -> None:
        window = position_window(model_quarters(inputs))
        if len(window) < 4:
            raise ForecastError(f"spend model: {len(window)} quarters from the rivals' first "
                                "position quarter; need at least 4")

    def build(self, inputs: Mapping[str, pd.DataFrame]) -> Any:
        return build_spend_model(inputs, self.priors)

    def compile_key(self, inputs: Mapping[str, pd.DataFrame]) -> str:
        """Inputs and priors without the swappable data's values (:data:`SWAPPABLE_DATA`):
        bull, base and bear compile once per process."""
        structure = {key: inputs[key] for key in sorted(inputs)
                     if key not in ("costs", "utilisation")}
        structure["cost_quarters"] = list(inputs["costs"]["quarter"])
        return f"{self.name}-" + content_digest({
            "data": structure, "priors": self.priors,
            "version": self.fitted_class.model_version})

    def swappable_data(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
        costs = inputs["costs"]
        return {"cost_gap": costs.drop(columns="quarter").to_numpy(float).T,
                "utilisation_ratio": np.asarray(float(inputs["utilisation"]["ratio"].iloc[0]))}

    def fitted_frames(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
        frames = {key: value.copy() for key, value in inputs.items()}
        frames["observations"]["calendar_quarter_end"] = pd.to_datetime(
            frames["observations"]["calendar_quarter_end"])
        # Stored as parquet: numeric columns, no infinities (an open bound is NaN).
        for key in ("censored", "aws_statements"):
            frames[key] = frames[key].astype({"lower": float, "upper": float}).replace(
                {np.inf: np.nan})
        frames["guidance"] = frames["guidance"].astype({"guided": float, "actual": float})
        frames["visibility"] = frames["visibility"].astype(
            {"first": str, "last": str, "value": float, "label": str})
        return frames

    def fitted_config(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
        timeline = spend_timeline(inputs)
        return {"timeline": timeline, "window": position_window(model_quarters(inputs)),
                "nowcast": nowcast_quarter(inputs.get("guidance"), timeline)}

    def fitted_meta(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
        return {"data_end": model_quarters(inputs)[-1],
                "n_observations": int(len(inputs["observations"])),
                "cost_basis": str(inputs["utilisation"]["basis"].iloc[0])}


def lognormal_prior(distribution: Any) -> dict[str, Any]:
    """A lognormal prior matched to a distribution's P10-P90 (anything with ``quantile``):
    its median the P50, its sigma putting P10 and P90 at the lognormal's 10% and 90%."""
    p10, p50, p90 = (float(distribution.quantile(q)) for q in (0.1, 0.5, 0.9))
    return {"dist": "lognormal", "median": p50,
            "sigma": round(float(lognormal_sigma_from_band(p10, p90, 0.8)), 10)}
