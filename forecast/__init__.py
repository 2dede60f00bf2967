"""Bayesian forecasts of the AI-accelerator market: prices, spend, shares, AWS revenue.

The public API for notebooks (``examples/quickstart.ipynb``): :func:`run_scenario` is the one
call, a scenario forecast from your own latest fit or else the published one. Each model
(``PriceModel``, ``SpendModel``, ``DiffusionModel``) fits to its fitted class
(``FittedPrice``, ``FittedSpend``, ``FittedDiffusion``). Importing this
package never imports PyMC: fitting does, and only when called. The models are described in
``docs/models/``.
"""

from forecast.core.errors import DataValidationError, FitError, ForecastError, ScenarioError
from forecast.data.dataset import Dataset, load_dataset, validate_data_dir
from forecast.models.diffusion import DiffusionModel, FittedDiffusion
from forecast.models.price import FittedPrice, PriceModel
from forecast.models.spend.fitted import FittedSpend
from forecast.models.spend.model import SpendModel
from forecast.pipeline.fitting import fit_all, load_or_fit
from forecast.pipeline.results import Forecast
from forecast.pipeline.runner import run_scenario
from forecast.pipeline.simulate import simulate
from forecast.scenarios import Scenario, list_scenarios, load_scenario
from forecast.store.bundles import FitBundle, list_fits, load_bundle

__all__ = [
    "DataValidationError",
    "Dataset",
    "DiffusionModel",
    "FitBundle",
    "FitError",
    "FittedDiffusion",
    "FittedPrice",
    "FittedSpend",
    "Forecast",
    "ForecastError",
    "PriceModel",
    "Scenario",
    "ScenarioError",
    "SpendModel",
    "fit_all",
    "list_fits",
    "load_bundle",
    "load_dataset",
    "load_or_fit",
    "list_scenarios",
    "run_scenario",
    "load_scenario",
    "simulate",
    "validate_data_dir",
]
