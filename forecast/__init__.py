"""Bayesian forecasts of the AI-accelerator market: prices, spend, shares, AWS revenue.

The public API for notebooks. Importing this package never imports PyMC: fitting does, and
only when called.
"""

from forecast.data import Dataset, load_dataset, validate_data_dir
from forecast.errors import DataValidationError, FitError, ForecastError, ScenarioError

__all__ = [
    "DataValidationError",
    "Dataset",
    "FitError",
    "ForecastError",
    "ScenarioError",
    "load_dataset",
    "validate_data_dir",
]
