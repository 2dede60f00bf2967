"""The contract every Bayesian model of the package follows.

In the spirit of pymc-marketing's ``ModelBuilder`` and statsmodels' ``Model.fit() ->
Results``:

- a model class holds *configuration only*: documented default priors (overridable, e.g. from
  a scenario's ``[priors.<model>]`` table) and sampler settings;
- ``Model.fit(dataset)`` runs NUTS and returns a fitted object (a :class:`FittedModel`
  subclass) that knows its data, its posterior, its convergence diagnostics and its
  provenance;
- the fitted object has ``summary()``, ``diagnostics()``, a model-specific ``forecast(...)``
  returning sample paths, and ``save(path)`` / ``load(path)``.

PyMC is imported only inside ``fit``: a stored fit is loaded and forecast from with numpy,
pandas and xarray alone (PyMC and PyTensor take seconds to import).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core import fastio
from forecast.core.errors import FitError, ForecastError

#: Sampler settings used unless the caller overrides them. ``nuts_sampler`` is chosen by the
#: benchmark in ``benchmarks/`` (see README).
DEFAULT_SAMPLER: dict[str, Any] = {
    "draws": 1000,
    "tune": 1000,
    "chains": 2,
    "target_accept": 0.9,
    "nuts_sampler": "pymc",
    "random_seed": 20251031,
    "progressbar": False,
    # nutpie only: a diagonal plus low-rank mass matrix, adapted from gradients; it follows
    # correlated posteriors (the market model's) at a fraction of the steps.
    "low_rank_mass_matrix": False,
}

#: Default convergence gate (DESIGN section 6).
DEFAULT_GATE = {"max_r_hat": 1.01, "min_ess_bulk": 400.0, "max_divergences": 0}


# --------------------------------------------------------------------------- priors


#: Each supported ``dist``: its PyMC class and its keyword arguments from the spec's
#: parameters ``p`` (a lognormal's median becomes ``mu = log(median)``).
_PRIOR_FORMS: dict[str, tuple[str, Any]] = {
    "normal": ("Normal", lambda p: {"mu": p["mu"], "sigma": p["sigma"]}),
    "lognormal": ("LogNormal", lambda p: {"mu": math.log(p["median"]), "sigma": p["sigma"]}),
    "halfnormal": ("HalfNormal", lambda p: {"sigma": p["sigma"]}),
    "truncnormal": ("TruncatedNormal", lambda p: {"mu": p["mu"], "sigma": p["sigma"],
                                                  "lower": p.get("lower"),
                                                  "upper": p.get("upper")}),
    "beta": ("Beta", lambda p: {"alpha": p["alpha"], "beta": p["beta"]}),
    "uniform": ("Uniform", lambda p: {"lower": p["lower"], "upper": p["upper"]}),
    "gamma": ("Gamma", lambda p: {"alpha": p["alpha"], "beta": p["beta"]}),
    "exponential": ("Exponential", lambda p: {"lam": p["lam"]}),
    "studentt": ("StudentT", lambda p: {"nu": p["nu"], "mu": p["mu"], "sigma": p["sigma"]}),
}


def prior_parameters(name: str, spec: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(dist, PyMC keyword arguments)`` of a prior spec, e.g. a lognormal's median becomes
    ``mu = log(median)``. Pure: no PyMC needed. Unbounded truncnormal sides are None.
    """
    dist = str(spec["dist"]).lower()
    p = {key: value for key, value in spec.items() if key not in ("dist", "rationale", "unit")}
    if dist not in _PRIOR_FORMS:
        raise ForecastError(f"prior {name}: unsupported dist {dist!r}")
    try:
        return dist, _PRIOR_FORMS[dist][1](p)
    except KeyError as missing:
        raise ForecastError(f"prior {name}: {dist} needs parameter {missing}") from None


def prior_data(name: str, spec: Mapping[str, Any]) -> dict[str, float]:
    """The ``pm.Data`` values of ``prior(name, spec, swappable=True)``, by data name."""
    _, params = prior_parameters(name, spec)
    return {f"{name}__{key}": float(value) for key, value in params.items() if value is not None}


def prior(name: str, spec: Mapping[str, Any], swappable: bool = False, **kwargs: Any) -> Any:
    """A PyMC random variable from a prior spec such as ``{"dist": "normal", "mu": 0, ...}``.

    Supported ``dist`` values: normal(mu, sigma), lognormal(median, sigma), halfnormal(sigma),
    truncnormal(mu, sigma, lower, upper), beta(alpha, beta), uniform(lower, upper),
    gamma(alpha, beta), exponential(lam), studentt(nu, mu, sigma). Must be called inside a
    ``pm.Model`` context; ``kwargs`` (e.g. ``dims``) pass through. With ``swappable`` the
    parameters are ``pm.Data`` (see :func:`prior_data`), so that models differing only in
    this prior's values share one compiled sampler.
    """
    import pymc as pm

    dist, params = prior_parameters(name, spec)
    if swappable:
        params = {key: value if value is None else pm.Data(f"{name}__{key}", float(value))
                  for key, value in params.items()}
    return getattr(pm, _PRIOR_FORMS[dist][0])(name, **params, **kwargs)


def prior_spec_dict(spec: Any) -> dict[str, Any]:
    """A prior spec as a plain dict (``dist`` plus parameters), without rationale or unit.

    Accepts a mapping or an object with ``dist`` and ``params`` (the scenario module's specs).
    """
    if isinstance(spec, Mapping):
        return {k: v for k, v in spec.items() if k not in ("rationale", "unit")}
    return {"dist": spec.dist, **dict(spec.params)}


def merge_priors(
    defaults: Mapping[str, Mapping[str, Any]],
    overrides: Mapping[str, Any] | None,
    model_name: str,
) -> dict[str, dict[str, Any]]:
    """Default priors with overrides applied; an override of an unknown parameter is an error.

    ``overrides`` values may be plain dicts or objects with ``dist`` and ``params`` attributes
    (the scenario module's specs).
    """
    merged = {key: dict(value) for key, value in defaults.items()}
    for key, value in (overrides or {}).items():
        if key not in merged:
            known = ", ".join(sorted(merged))
            raise ForecastError(f"priors.{model_name}.{key}: unknown prior (known: {known})")
        merged[key] = prior_spec_dict(value)
    return merged


# --------------------------------------------------------------------------- diagnostics


def posterior_summary(idata: Any, var_names: list[str]) -> pd.DataFrame:
    """ArviZ summary (mean, sd, 90% HDI, r_hat, ESS) of ``var_names``, one row per scalar."""
    import arviz as az

    summary = az.summary(idata, var_names=var_names, hdi_prob=0.9, round_to="none")
    return summary.rename_axis("parameter").reset_index()


def count_divergences(idata: Any) -> int:
    """Number of divergent transitions over all chains (0 when the sampler stores none)."""
    stats = getattr(idata, "sample_stats", None)
    if stats is None or "diverging" not in stats:
        return 0
    return int(stats["diverging"].values.sum())


def check_gate(
    diagnostics: Mapping[str, Any], gate: Mapping[str, float] | None = None
) -> list[str]:
    """Reasons a fit fails the convergence gate; empty when it passes."""
    gate = {**DEFAULT_GATE, **(gate or {})}
    reasons = []
    if not diagnostics["max_r_hat"] <= gate["max_r_hat"]:
        reasons.append(f"max r_hat {diagnostics['max_r_hat']:.3f} > {gate['max_r_hat']}")
    if not diagnostics["min_ess_bulk"] >= gate["min_ess_bulk"]:
        reasons.append(
            f"min bulk ESS {diagnostics['min_ess_bulk']:.0f} < {gate['min_ess_bulk']:.0f}"
        )
    if diagnostics["divergences"] > gate["max_divergences"]:
        reasons.append(f"{diagnostics['divergences']} divergences")
    return reasons


# --------------------------------------------------------------------------- fitted models


@dataclass
class FittedModel:
    """Base of every fitted model: posterior, prepared data, configuration, diagnostics.

    Subclasses set ``model_name`` and ``model_version`` and add ``forecast``. ``posterior`` is
    an xarray Dataset (chain, draw, ...); ``data`` holds the tidy frames the fit used, so the
    fitted object knows its data (as statsmodels results do).
    """

    model_name: ClassVar[str] = "base"
    model_version: ClassVar[str] = "0"

    posterior: xr.Dataset
    data: dict[str, pd.DataFrame]
    config: dict[str, Any]
    summary_table: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)

    # ----------------------------------------------------------------- reporting

    def summary(self) -> pd.DataFrame:
        """Posterior summary with r_hat and ESS per parameter; divergences in ``attrs``."""
        table = self.summary_table.copy()
        table.attrs["divergences"] = self.meta.get("divergences", 0)
        return table

    def diagnostics(self) -> dict[str, Any]:
        """max r_hat, min bulk/tail ESS, divergences, and whether the default gate passes."""
        table = self.summary_table
        result = {
            "max_r_hat": float(table["r_hat"].max()),
            "min_ess_bulk": float(table["ess_bulk"].min()),
            "min_ess_tail": float(table["ess_tail"].min()),
            "divergences": int(self.meta.get("divergences", 0)),
        }
        result["converged"] = not check_gate(result)
        return result

    def stacked(self, name: str, pick: np.ndarray | None = None) -> np.ndarray:
        """Posterior draws of one variable with chain and draw flattened into the first axis.

        Samples are in chain-major order (chain 0's draws, then chain 1's), as xarray's
        ``stack(sample=("chain", "draw"))`` orders them; the other axes keep their order.
        With ``pick`` (sample indices), only those samples, ``stacked(name)[pick]`` without
        copying the rest first. Returns a new array (a plain reshape: stacking through xarray
        cost about 10 ms a variable, a tenth of a warm forecast's budget).
        """
        values = self.posterior[name]
        rest = [dim for dim in values.dims if dim not in ("chain", "draw")]
        array = values.transpose("chain", "draw", *rest).values
        flat = array.reshape((-1, *array.shape[2:]))
        return flat.copy() if pick is None else flat[pick]

    @property
    def n_samples(self) -> int:
        return int(self.posterior.sizes["chain"] * self.posterior.sizes["draw"])

    # ----------------------------------------------------------------- persistence

    def save(self, path: str | Path) -> Path:
        """Write ``posterior.nc``, ``summary.csv``, data frames and ``config.json`` to a dir."""
        directory = Path(path)
        directory.mkdir(parents=True, exist_ok=True)
        self.posterior.to_netcdf(directory / "posterior.nc", engine="h5netcdf")
        fastio.save_posterior(self.posterior, directory)
        self.summary_table.to_csv(directory / "summary.csv", index=False)
        for key, frame in self.data.items():
            frame.to_parquet(directory / f"data_{key}.parquet")
        fastio.save_frames(self.data, directory)
        header = {
            "model_name": self.model_name,
            "model_version": self.model_version,
            "config": self.config,
            "meta": self.meta,
            "data_keys": sorted(self.data),
        }
        (directory / "config.json").write_text(json.dumps(header, indent=2, default=str))
        return directory

    @classmethod
    def load(cls, path: str | Path) -> FittedModel:
        """Load a fit saved by :meth:`save`; a fit of another model or version is a FitError."""
        directory = Path(path)
        try:
            header = json.loads((directory / "config.json").read_text())
        except FileNotFoundError:
            raise FitError(f"{directory}: no config.json: not a saved fit") from None
        except json.JSONDecodeError as exc:
            raise FitError(f"{directory / 'config.json'}: corrupt ({exc.msg})") from None
        name, version = header.get("model_name"), header.get("model_version")
        if name != cls.model_name:
            raise FitError(f"{directory}: holds a {name!r} fit, expected {cls.model_name!r}")
        if version != cls.model_version:
            raise FitError(
                f"{directory}: written by {name} model version {version}, this code reads "
                f"version {cls.model_version}; re-fit (python cli.py refit)"
            )
        # The fast copies when they are there and readable, else the archival files.
        posterior = fastio.load_posterior(directory)
        if posterior is None:
            with xr.open_dataset(directory / "posterior.nc", engine="h5netcdf") as stored:
                posterior = stored.load()
        data = fastio.load_frames(directory, header["data_keys"])
        if data is None:
            data = {key: pd.read_parquet(directory / f"data_{key}.parquet")
                    for key in header["data_keys"]}
        summary = pd.read_csv(directory / "summary.csv")
        return cls(posterior=posterior, data=data, config=header["config"],
                   summary_table=summary, meta=header["meta"])


#: Compiled nutpie models of this process by structure key: compiling a model through numba
#: takes most of a minute, sampling it often less; models that differ only in ``pm.Data``
#: values (e.g. the market model's TAM-ceiling prior per scenario) compile once.
_NUTPIE_COMPILED: dict[str, Any] = {}


def run_sampler(model: Any, sampler: Mapping[str, Any], cache_key: str | None = None,
                data: Mapping[str, Any] | None = None) -> tuple[Any, float]:
    """Sample a PyMC model with the given settings; returns (InferenceData, seconds).

    With nutpie and a ``cache_key`` naming the model's structure (everything but its
    ``pm.Data`` values), the compiled model is kept for the process and later calls with the
    same key only swap in ``data`` (``{pm.Data name: value}``) before sampling.
    """
    import pymc as pm

    settings = {**DEFAULT_SAMPLER, **sampler}
    start = time.perf_counter()
    if settings["nuts_sampler"] == "nutpie" and cache_key is not None:
        return _run_nutpie_cached(model, settings, cache_key, data or {}), \
            time.perf_counter() - start
    with model:
        idata = pm.sample(
            draws=settings["draws"],
            tune=settings["tune"],
            chains=settings["chains"],
            cores=min(settings["chains"], 2),
            target_accept=settings["target_accept"],
            nuts_sampler=settings["nuts_sampler"],
            nuts_sampler_kwargs=_nutpie_kwargs(settings),
            random_seed=settings["random_seed"],
            progressbar=settings["progressbar"],
            compute_convergence_checks=False,
        )
    return idata, time.perf_counter() - start


def _run_nutpie_cached(model: Any, settings: Mapping[str, Any], cache_key: str,
                       data: Mapping[str, Any]) -> Any:
    import nutpie

    compiled = _NUTPIE_COMPILED.get(cache_key)
    if compiled is None:
        compiled = nutpie.compile_pymc_model(model)
        _NUTPIE_COMPILED[cache_key] = compiled
    if data:
        compiled = compiled.with_data(**{k: np.asarray(v, dtype=float) for k, v in data.items()})
    return nutpie.sample(compiled, draws=settings["draws"], tune=settings["tune"],
                         chains=settings["chains"], cores=min(settings["chains"], 2),
                         target_accept=settings["target_accept"],
                         seed=settings["random_seed"], progress_bar=settings["progressbar"],
                         **_nutpie_kwargs(settings))


def _nutpie_kwargs(settings: Mapping[str, Any]) -> dict[str, Any]:
    """nutpie-only options from the sampler settings (none for PyMC's own NUTS)."""
    if settings["nuts_sampler"] != "nutpie" or not settings.get("low_rank_mass_matrix"):
        return {}
    return {"low_rank_modified_mass_matrix": True}
