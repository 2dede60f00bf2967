"""The diffusion model class: the protocol's hooks for the Bass family (see
:mod:`forecast.models.diffusion`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.models.diffusion.builder import DEFAULT_PRIORS, build_diffusion_model, summary_vars
from forecast.models.diffusion.data import (
    MIN_OBSERVATIONS,
    DiffusionData,
    check_kind,
    prepare_diffusion_data,
)
from forecast.models.diffusion.fitted import FittedDiffusion
from forecast.models.protocol import BayesianModel

#: nutpie: for a model this small PyMC's compile and process start-up dominate. p and q are
#: strongly correlated in the posterior (a later peak is a smaller p or a larger q), which
#: lowers the ESS per draw: 2,000 draws a chain keep bulk ESS above the default gate's 400.
#: A short series before its peak leaves m loose; target_accept 0.95 keeps its sampler clear
#: of divergences.
DIFFUSION_SAMPLER: dict[str, Any] = {"nuts_sampler": "nutpie", "draws": 2000, "target_accept": 0.95}

class DiffusionModel(BayesianModel):
    """Configuration of a Bass-family diffusion model; :meth:`fit` returns a fitted model.

    Parameters
    ----------
    priors
        Overrides of :data:`~forecast.models.diffusion.builder.DEFAULT_PRIORS` (p, q,
        m_ratio, sigma, beta), e.g. a scenario's ``[priors.diffusion]`` table.
    sampler
        Overrides of the sampler settings (draws, tune, chains, target_accept, nuts_sampler,
        random_seed, progressbar).
    kind
        ``"bass"``, ``"gbass"`` (generalised Bass with a covariate) or ``"norton-bass"``
        (successive generations sharing p and q).
    """

    name: ClassVar[str] = "diffusion"
    fitted_class = FittedDiffusion
    default_priors = DEFAULT_PRIORS
    default_sampler = DIFFUSION_SAMPLER
    #: The Bass set; an instance's depends on its kind (beta for gbass), set in __init__.
    summary_vars = summary_vars("bass")

    def __init__(self, priors: Mapping[str, Any] | None = None,
                 sampler: Mapping[str, Any] | None = None, *, kind: str = "bass"):
        self.kind = check_kind(kind)
        self.summary_vars = summary_vars(kind)
        super().__init__(priors=priors, sampler=sampler)

    # ----------------------------------------------------------------- inputs

    def prepare(self, dataset: Any, scenario: Any = None, *,
                series: pd.Series | pd.DataFrame | None = None,
                covariate: pd.Series | Sequence[float] | np.ndarray | None = None,
                launch_offset: int = 0) -> DiffusionData:
        """A unit series arranged for the model, as :meth:`prepare_series` does.

        The shipped data hold no unit shipments: Epoch AI's modelled chip volumes were
        generated after the data's as-of date and left ``data/``. ``series`` is therefore
        required (a user's own series; ``python cli.py diffusion FILE.csv`` reads one from a
        file); the dataset and scenario do not matter.

        Raises
        ------
        ForecastError
            Without ``series``.
        """
        if series is None:
            raise ForecastError(
                "the diffusion model needs a unit series: the data hold none (Epoch's modelled "
                "volumes, generated after the as-of date, were removed); pass series=, or fit "
                "a file with python cli.py diffusion FILE.csv")
        return self.prepare_series(series, covariate=covariate, launch_offset=launch_offset)

    def prepare_series(
        self,
        series: pd.Series | pd.DataFrame,
        covariate: pd.Series | Sequence[float] | np.ndarray | None = None,
        launch_offset: int = 0,
    ) -> DiffusionData:
        """A user's own unit series arranged for the model.

        Parameters
        ----------
        series
            Positive units per period, indexed by period (pandas Periods, dates, integers or
            labels like ``2024Q1``); NaN marks a missing period. For ``norton-bass`` a
            DataFrame with one column per generation, in launch order, NaN before launch.
        covariate
            ``gbass`` only: positive covariate levels (e.g. price-performance), a Series on
            the same periods or an array over every period from the first to the last.
        launch_offset
            Whole periods between (generation 1's) launch and the series' first period, for
            a series that starts after launch; 0 means the first period is the launch period.
        """
        return prepare_diffusion_data(series, self.kind, covariate, launch_offset)

    # ----------------------------------------------------------------- hooks

    def check_inputs(self, inputs: DiffusionData) -> None:
        if inputs.kind != self.kind:
            raise ForecastError(f"diffusion model of kind {self.kind!r} given data prepared "
                                f"for {inputs.kind!r}")
        if len(inputs.observations) < MIN_OBSERVATIONS:
            raise ForecastError(f"diffusion series has {len(inputs.observations)} "
                                f"observations, need at least {MIN_OBSERVATIONS}")

    def build(self, inputs: DiffusionData) -> Any:
        return build_diffusion_model(inputs, self.priors)

    def fitted_frames(self, inputs: DiffusionData) -> dict[str, pd.DataFrame]:
        frames = {"observations": inputs.observations}
        if inputs.log_change is not None:
            frames["covariate"] = pd.DataFrame({"log_change": inputs.log_change})
        return frames

    def fitted_config(self, inputs: DiffusionData) -> dict[str, Any]:
        return {"kind": self.kind}

    def fitted_meta(self, inputs: DiffusionData) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "n_observations": len(inputs.observations),
            "generations": list(inputs.generations),
            "n_span": inputs.n_span,
            "launch_offset": inputs.launch_offset,
            "launch_periods": list(inputs.launch_periods),
            "totals": list(inputs.totals),
            "index_kind": inputs.index_kind,
            "freq": inputs.freq,
            "first_label": inputs.first_label,
            "covariate_last": inputs.covariate_last,
        }
