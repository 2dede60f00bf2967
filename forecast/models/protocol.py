"""The one protocol every Bayesian model of the package follows (docs/DESIGN.md section 3).

In the spirit of pymc-marketing's ``ModelBuilder`` and statsmodels' ``Model.fit() ->
Results``, a model class holds *configuration only* (documented default priors, overridable
from a scenario's ``[priors.<model>]`` table, and sampler settings), and:

- ``prepare(dataset, scenario) -> inputs``: the tidy data the model is fitted to (pure);
- ``build(inputs) -> pm.Model``: the PyMC model (the only place PyMC is imported);
- ``fit(inputs, **sampler) -> Fitted``: one template for every model: build, sample, add
  the observed data and pointwise log likelihood to the InferenceData, summarise the
  parameters and the latent states forecasts start from, hand it all to the fitted class;
- ``prior_predictive(inputs)`` and ``posterior_predictive(inputs, fitted)``: draws of the
  observed variables, for checks.

Subclasses fill in the hooks (``prepare``, ``build``, ``check_inputs``, ``fitted_frames``
...); the fitted class (:class:`~forecast.models.fitted.Fitted`) forecasts with numpy.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ClassVar

from forecast.data.hashing import content_digest
from forecast.models.diagnostics import count_divergences, posterior_summary
from forecast.models.fitted import Fitted
from forecast.models.likelihood import pointwise_log_likelihood
from forecast.models.priors import merge_priors, prior_spec_dict
from forecast.models.sampling import DEFAULT_SAMPLER, run_sampler


class BayesianModel:
    """Base of the model classes: configuration, and the fit template.

    Parameters
    ----------
    priors
        Overrides of the class's ``default_priors`` (plain dicts with ``dist`` and
        parameters, or the scenario module's prior specs).
    sampler
        Overrides of the sampler settings (draws, tune, chains, target_accept,
        nuts_sampler, random_seed, progressbar, low_rank_mass_matrix).
    """

    #: Registry name; also the ``[priors.<name>]`` table of a scenario.
    name: ClassVar[str] = "base"
    fitted_class: ClassVar[type[Fitted]] = Fitted
    default_priors: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: The model's own sampler settings over :data:`DEFAULT_SAMPLER`.
    default_sampler: ClassVar[Mapping[str, Any]] = {}
    #: Parameters reported in the summary and gated.
    summary_vars: ClassVar[tuple[str, ...]] = ()
    #: Latent states a forecast starts from, by time dim: their last value is gated too.
    state_vars: ClassVar[Mapping[str, str]] = {}
    #: Posterior variables the fitted model does not need (non-centred innovations...):
    #: kept in the stored InferenceData, not in the forecast posterior.
    auxiliary_vars: ClassVar[tuple[str, ...]] = ()
    #: Models whose fits this model's inputs read (fitted before it; see
    #: :meth:`prepare_with`); none of the shipped models has one today.
    upstream: ClassVar[tuple[str, ...]] = ()

    def __init__(self, priors: Mapping[str, Any] | None = None,
                 sampler: Mapping[str, Any] | None = None):
        self.priors = merge_priors(self.default_priors, priors, self.name)
        self.sampler = {**DEFAULT_SAMPLER, **self.default_sampler, **(sampler or {})}

    # ----------------------------------------------------------------- scenario

    @classmethod
    def scenario_priors(cls, scenario: Any) -> dict[str, dict[str, Any]]:
        """The prior overrides a scenario sets for this model, as plain dicts.

        What a fit depends on besides its inputs; models whose priors also come from
        scenario inputs (the market's TAM ceiling) extend this.
        """
        table = getattr(scenario, "priors", {}).get(cls.name, {}) if scenario else {}
        return {key: prior_spec_dict(spec) for key, spec in table.items()}

    @classmethod
    def from_scenario(cls, scenario: Any, sampler: Mapping[str, Any] | None = None
                      ) -> BayesianModel:
        """The model configured with a scenario's priors."""
        return cls(priors=cls.scenario_priors(scenario), sampler=sampler)

    # ----------------------------------------------------------------- hooks

    def prepare(self, dataset: Any, scenario: Any = None) -> Any:
        """The inputs the model is fitted to, from a dataset (and scenario, if it matters)."""
        raise NotImplementedError

    def prepare_with(self, dataset: Any, scenario: Any, fitted: Mapping[str, Fitted]) -> Any:
        """The inputs given the fitted models of :attr:`upstream` (``fitted``, by name).

        Models without upstream models ignore ``fitted``: ``prepare(dataset, scenario)``.
        """
        return self.prepare(dataset, scenario)

    def build(self, inputs: Any) -> Any:
        """The PyMC model of ``inputs``."""
        raise NotImplementedError

    def check_inputs(self, inputs: Any) -> None:
        """Raise :class:`~forecast.core.errors.ForecastError` when ``inputs`` are too thin."""

    def compile_key(self, inputs: Any) -> str | None:
        """Identity of the model's structure (everything but its ``pm.Data`` values): fits
        with one key share one compiled nutpie sampler within a process."""
        return f"{self.name}-" + content_digest({"inputs": inputs, "priors": self.priors,
                                                 "version": self.fitted_class.model_version})

    def swappable_data(self, inputs: Any) -> dict[str, Any]:
        """``pm.Data`` values swapped into a cached compiled sampler."""
        return {}

    def fitted_frames(self, inputs: Any) -> dict[str, Any]:
        """The tidy frames the fitted model keeps (it knows its data)."""
        raise NotImplementedError

    def fitted_config(self, inputs: Any) -> dict[str, Any]:
        """Configuration the fitted model needs besides priors and sampler settings."""
        return {}

    def fitted_meta(self, inputs: Any) -> dict[str, Any]:
        """Provenance and shape facts of the fit (quarters, counts...)."""
        return {}

    # ----------------------------------------------------------------- template

    def fit(self, inputs: Any, **sampler: Any) -> Fitted:
        """Sample the posterior of ``inputs``; keyword arguments override sampler settings."""
        settings = {**self.sampler, **sampler}
        self.check_inputs(inputs)
        model = self.build(inputs)
        key = self.compile_key(inputs)
        idata, seconds = run_sampler(model, settings, cache_key=key,
                                     data=self.swappable_data(inputs))
        start = time.perf_counter()
        idata = complete_inference_data(idata, model, cache_key=key)
        summary = posterior_summary(idata, self.summary_vars, self.state_vars)
        keep = [name for name in idata.posterior.data_vars
                if name not in self.auxiliary_vars]
        meta = {"divergences": count_divergences(idata), "fit_seconds": round(seconds, 2),
                "log_likelihood_seconds": round(time.perf_counter() - start, 2),
                **self.fitted_meta(inputs)}
        config = {"priors": self.priors, "sampler": settings, **self.fitted_config(inputs)}
        return self.fitted_class(posterior=idata.posterior[keep],
                                 data=self.fitted_frames(inputs), config=config,
                                 summary_table=summary, meta=meta, idata=idata)

    def fit_dataset(self, dataset: Any, scenario: Any = None, **sampler: Any) -> Fitted:
        """``fit(prepare(dataset, scenario))``."""
        return self.fit(self.prepare(dataset, scenario), **sampler)

    # ----------------------------------------------------------------- predictive checks

    def prior_predictive(self, inputs: Any, draws: int = 500, seed: int = 0) -> Any:
        """Prior and prior-predictive draws (InferenceData groups ``prior``,
        ``prior_predictive``, ``observed_data``)."""
        import pymc as pm

        with self.build(inputs), _quiet_pymc():
            return pm.sample_prior_predictive(draws=draws, random_seed=seed)

    def posterior_predictive(self, inputs: Any, fitted: Fitted, seed: int = 0) -> Any:
        """Posterior-predictive draws of the observed variables, one per posterior sample
        of ``fitted`` (whose stored InferenceData holds every free variable)."""
        import pymc as pm

        idata = fitted.inference_data()
        with self.build(inputs), _quiet_pymc(), warnings.catch_warnings():
            # The draws come from the posterior, which the Potentials (censored statements)
            # already shaped; PyMC's warning concerns forward sampling from the prior.
            warnings.filterwarnings("ignore", message="The effect of Potentials")
            return pm.sample_posterior_predictive(idata, random_seed=seed, progressbar=False)


@contextmanager
def _quiet_pymc() -> Iterator[None]:
    """PyMC logs "Sampling: [...]" at INFO; a command's output should not carry it."""
    logger = logging.getLogger("pymc")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def complete_inference_data(idata: Any, model: Any, cache_key: str | None = None) -> Any:
    """Add ``observed_data`` and the pointwise ``log_likelihood`` of every observed variable
    (nutpie's trace has neither), so ArviZ's LOO and compare work on any stored fit.
    ``cache_key`` (the model's ``compile_key``) lets fits of one structure share the
    compiled log-likelihood function."""
    import arviz as az
    from pymc.backends.arviz import coords_and_dims_for_inferencedata, find_observations

    if not model.observed_RVs:
        return idata
    if "observed_data" not in idata.groups():
        observed = {name: value for name, value in find_observations(model).items()}
        idata.add_groups({"observed_data": az.from_dict(observed_data=observed).observed_data})
    if "log_likelihood" not in idata.groups():
        coords, dims = coords_and_dims_for_inferencedata(model)
        values = pointwise_log_likelihood(idata.posterior, model, cache_key)
        group = az.from_dict(log_likelihood=values, coords=coords, dims=dims).log_likelihood
        idata.add_groups({"log_likelihood": group.assign_coords(
            chain=idata.posterior["chain"].values, draw=idata.posterior["draw"].values)})
    return idata
