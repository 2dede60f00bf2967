"""The one registry of model classes: fitting, the fit store and simulation read it.

A stored model is found by its name (the part of its key before the first ``-``), its
fitted class loads it; a scenario's fit covers the models in :data:`SCENARIO_MODELS`.
Importing this module does not import PyMC (the builders import it when they run).
"""

from __future__ import annotations

from forecast.core.errors import FitError
from forecast.models.diffusion import DiffusionModel
from forecast.models.fitted import Fitted
from forecast.models.price import PriceModel
from forecast.models.protocol import BayesianModel
from forecast.models.spend.model import SpendModel

#: Every model of the package, by name.
MODELS: dict[str, type[BayesianModel]] = {
    model.name: model for model in (PriceModel, SpendModel, DiffusionModel)
}

#: The models a scenario's forecast needs, in fitting order: a model comes after the models
#: its inputs read (its ``upstream``; none of these reads another).
SCENARIO_MODELS: tuple[str, ...] = ("price", "spend")


def model_class(name: str) -> type[BayesianModel]:
    """The model class registered under ``name``."""
    try:
        return MODELS[name]
    except KeyError:
        known = ", ".join(sorted(MODELS))
        raise FitError(f"unknown model {name!r} (known: {known})") from None


def fitted_class(name: str) -> type[Fitted]:
    """The fitted class that loads a stored ``name`` model."""
    return model_class(name).fitted_class


def name_of_key(key: str) -> str:
    """The model name of a stored model key (``spend-1a2b...`` -> ``spend``)."""
    return key.split("-", 1)[0]
