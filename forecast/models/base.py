"""Transitional re-exports of the model protocol's pieces (removed once every model is
converted): priors, sampling, diagnostics and the fitted base class."""

from forecast.models.diagnostics import (  # noqa: F401
    DEFAULT_GATE,
    check_gate,
    count_divergences,
    posterior_summary,
)
from forecast.models.fitted import Fitted as FittedModel  # noqa: F401
from forecast.models.priors import (  # noqa: F401
    merge_priors,
    prior,
    prior_data,
    prior_parameters,
    prior_spec_dict,
)
from forecast.models.sampling import DEFAULT_SAMPLER, run_sampler  # noqa: F401
