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
    epoch_units,
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

#: The Epoch series :meth:`DiffusionModel.prepare` fits when given no chip: H100 (13 quarters,
#: past its peak) for one series, three NVIDIA data-centre generations for Norton-Bass.
DEFAULT_CHIPS: dict[str, str | tuple[str, ...]] = {
    "bass": "H100", "gbass": "H100", "norton-bass": ("A100", "H100", "B200"),
}


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
                chip: str | Sequence[str] | None = None, vendor_group: str | None = None,
                value: str = "units_median",
                covariate: pd.Series | Sequence[float] | np.ndarray | None = None,
                launch_offset: int = 0) -> DiffusionData:
        """Epoch's modelled unit shipments of a chip (or generations of chips) per quarter.

        The scenario does not matter. ``chip``, ``vendor_group`` and ``value`` pick the
        series as in :func:`~forecast.models.diffusion.data.epoch_units`; with neither chip
        nor vendor group, :data:`DEFAULT_CHIPS` of the model's kind. ``covariate`` (gbass,
        e.g. price-performance per quarter) and ``launch_offset`` as in
        :meth:`prepare_series`.
        """
        if chip is None and vendor_group is None:
            chip = DEFAULT_CHIPS[self.kind]
        units = epoch_units(dataset, vendor_group=vendor_group, chip=chip, value=value)
        return self.prepare_series(units, covariate=covariate, launch_offset=launch_offset)

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
