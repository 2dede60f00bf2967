"""The market-size model class: the protocol's hooks for M3 (see :mod:`forecast.models.market`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from forecast.data.hashing import content_digest
from forecast.models.market.builder import (
    INNOVATION_VARS,
    SUMMARY_VARS,
    build_market_model,
    ceiling_prior,
)
from forecast.models.market.data import (
    FORECAST_SERIES,
    GUIDANCE_COLUMNS,
    market_timeline,
    prepare_market_data,
    statement_readings,
)
from forecast.models.market.defaults import DEFAULT_PRIORS
from forecast.models.market.evidence import nowcast_quarter
from forecast.models.market.fitted import FittedMarket
from forecast.models.priors import prior_data
from forecast.models.protocol import BayesianModel

#: nutpie with a low-rank mass matrix at target_accept 0.98, 2 x 2,000 draws after 600 tuning
#: steps. On the shipped data (bull, base and bear, seeds 1, 2 and the default): 0 divergences
#: in 9 fits, max r_hat 1.006, min bulk ESS 749-945, 13-15 s a fit; 1,000 tuning steps gave
#: min ESS 665-816 in about 2 s more. At 0.95 (1,000 tuning steps) 18 single fits over six
#: seeds had none, but one scenario's fit in a whole refit left one divergence in each of
#: the refit benchmark's three runs (so every refit was gated); at 0.9 one single fit of 15
#: left one. (One-off measurements, not kept as a script.) The first fit in a process
#: compiles for about 90 s (numba); bull, base and bear share it.
MARKET_SAMPLER: dict[str, Any] = {"nuts_sampler": "nutpie", "target_accept": 0.98,
                                  "tune": 600, "draws": 2000, "low_rank_mass_matrix": True}

#: The scenario input the ceiling prior is matched to.
CEILING_INPUT = "tam_ceiling_usd_billions"
#: Priors whose parameters are ``pm.Data``: scenarios differing only in them share one
#: compiled sampler.
SWAPPABLE_PRIORS: tuple[str, ...] = ("ceiling", "growth_longrun")


class MarketModel(BayesianModel):
    """Configuration of the market-size model; :meth:`fit` returns a :class:`FittedMarket`.

    Parameters
    ----------
    priors
        Overrides of :data:`~forecast.models.market.builder.DEFAULT_PRIORS`, e.g.
        :meth:`scenario_priors` (the scenario's ``[priors.market]`` table and the TAM
        ceiling), or ``{"ceiling": {"dist": "lognormal", "median": 900, "sigma": 0.3}}``.
    sampler
        Overrides of the sampler settings (:data:`MARKET_SAMPLER` over the defaults).
    """

    name: ClassVar[str] = "market"
    fitted_class = FittedMarket
    default_priors = DEFAULT_PRIORS
    default_sampler = MARKET_SAMPLER
    summary_vars = tuple(SUMMARY_VARS)
    #: Forecasts continue the share walks from their last quarter (the total's trend starts
    #: from ``level_last`` and ``growth_last``, gated as summary variables).
    state_vars = {"log_ratio": "quarter"}
    #: The share walks' non-centred innovations (those a fit's data leave in the model).
    auxiliary_vars = INNOVATION_VARS

    @classmethod
    def scenario_priors(cls, scenario: Any) -> dict[str, dict[str, Any]]:
        """The scenario's ``[priors.market]`` table, with ``ceiling`` matched to the P10-P90
        of its ``tam_ceiling_usd_billions`` input when it has one (the input wins over a
        ``ceiling`` entry of the table)."""
        priors = super().scenario_priors(scenario)
        inputs = getattr(scenario, "inputs", None) or {}
        if inputs.get(CEILING_INPUT) is not None:
            priors["ceiling"] = ceiling_prior(inputs[CEILING_INPUT])
        return priors

    def prepare(self, dataset: Any, scenario: Any = None) -> dict[str, pd.DataFrame]:
        """Observed series, censored statements and Trainium2 volumes of ``dataset``; see
        :func:`prepare_market_data`.

        Amazon's run-rate statements are read as the scenario's ``[readings]`` say
        (:func:`~forecast.models.market.data.statement_readings`); with ``scenario=None``
        (notebooks) as the documented defaults ``QUALITATIVE_BILLIONS`` and
        ``STATED_NUMBER_FACTORS``."""
        qualitative, number_factors = statement_readings(scenario)
        return prepare_market_data(dataset, qualitative, number_factors)

    def check_inputs(self, inputs: Mapping[str, pd.DataFrame]) -> None:
        market_timeline(inputs)  # the anchor series, present and gap-free

    def build(self, inputs: Mapping[str, pd.DataFrame]) -> Any:
        return build_market_model(inputs, self.priors)

    def compile_key(self, inputs: Mapping[str, pd.DataFrame]) -> str:
        """Inputs and priors, with the values of the swappable priors (ceiling, long-run
        growth) left out (they are ``pm.Data``, see :meth:`swappable_data`): bull, base and
        bear compile once per process."""
        swapped = {name: {"dist": self.priors[name]["dist"],
                          "data": sorted(prior_data(name, self.priors[name]))}
                   for name in SWAPPABLE_PRIORS}
        structure = content_digest({
            "data": {key: inputs[key] for key in sorted(inputs)},
            "priors": {**self.priors, **swapped},
            "version": self.fitted_class.model_version})
        return f"{self.name}-{structure}"

    def swappable_data(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, float]:
        data: dict[str, float] = {}
        for name in SWAPPABLE_PRIORS:
            data.update(prior_data(name, self.priors[name]))
        return data

    def fitted_frames(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
        frames = {key: inputs[key].copy() for key in ("observations", "censored", "volumes")}
        frames["guidance"] = inputs.get("guidance", pd.DataFrame(columns=GUIDANCE_COLUMNS)
                                        ).astype({"guided": float, "actual": float})
        frames["observations"]["calendar_quarter_end"] = pd.to_datetime(
            frames["observations"]["calendar_quarter_end"])
        # Stored as parquet: numeric columns, no infinities (an open bound is NaN).
        frames["censored"] = frames["censored"].astype(
            {"lower": float, "upper": float}).replace({np.inf: np.nan})
        frames["volumes"] = frames["volumes"].astype({"units": float, "sd_log": float})
        return frames

    def fitted_config(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
        timeline = market_timeline(inputs)
        return {"timeline": timeline,
                "nowcast": nowcast_quarter(inputs.get("guidance"), timeline)}

    def fitted_meta(self, inputs: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
        return {"data_end": market_timeline(inputs)[-1],
                "n_observations": int(len(inputs["observations"]))}


def market_series_forecast(dataset: Any, name: str | None = None, quarters: int = 4,
                           fitted: FittedMarket | None = None, **sampler: Any
                           ) -> pd.DataFrame | list[str]:
    """CLI helper for ``python cli.py series [NAME] --quarters N``: a quantile table.

    With ``name=None`` returns the available series names. Fits the model with default priors
    (sampler overrides in ``sampler``) unless ``fitted`` is given.
    """
    if name is None:
        if fitted is not None:
            return fitted.series_names()
        data = prepare_market_data(dataset)["observations"]
        return [s for s in FORECAST_SERIES if (data["series"] == s).any()]
    if fitted is None:
        fitted = MarketModel().fit_dataset(dataset, **sampler)
    return fitted.series_forecast(name, quarters=quarters)
