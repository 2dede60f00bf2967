"""Bass diffusion of accelerator unit shipments: Bass, generalised Bass and Norton-Bass.

How a chip's unit shipments rise and fall after its launch (Bass), how a covariate such as
price-performance speeds or slows that (generalised Bass), and how a new generation takes
over from the one before it (Norton-Bass, gross sales); each a pure numpy/PyTensor curve and
a PyMC model with a lognormal likelihood, fitted to a unit series per quarter.

The model card is docs/models/diffusion.md.
"""

from forecast.models.diffusion.builder import (
    DEFAULT_PRIORS,
    TINY,
    build_diffusion_model,
    summary_vars,
)
from forecast.models.diffusion.data import (
    KINDS,
    MIN_OBSERVATIONS,
    DiffusionData,
    period_labels,
    period_positions,
    prepare_diffusion_data,
)
from forecast.models.diffusion.fitted import FittedDiffusion
from forecast.models.diffusion.math import (
    bass_adoptions,
    bass_cdf,
    bass_pdf,
    bass_peak_time,
    effective_time,
    gbass_adoptions,
    norton_bass_adoptions,
    norton_bass_cumulative,
)
from forecast.models.diffusion.model import DIFFUSION_SAMPLER, DiffusionModel
from forecast.models.diffusion.report import diffusion_report
from forecast.models.diffusion.simulate import simulate_units
from forecast.models.diffusion.units_io import fit_units_csv, read_units_csv

__all__ = [
    "DEFAULT_PRIORS", "DIFFUSION_SAMPLER", "KINDS", "MIN_OBSERVATIONS", "TINY",
    "DiffusionData", "DiffusionModel", "FittedDiffusion", "bass_adoptions", "bass_cdf",
    "bass_pdf", "bass_peak_time", "build_diffusion_model", "diffusion_report", "effective_time",
    "fit_units_csv", "gbass_adoptions", "norton_bass_adoptions",
    "norton_bass_cumulative", "period_labels", "period_positions", "prepare_diffusion_data",
    "read_units_csv", "simulate_units", "summary_vars",
]
