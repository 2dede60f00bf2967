"""Prior specs: plain dicts (``{"dist": "normal", "mu": 0, "sigma": 1}``) into PyMC variables.

One table of supported forms; pure translation (:func:`prior_parameters`) separate from the
PyMC builder (:func:`prior`), so scenarios and stores handle specs without importing PyMC.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from forecast.core.errors import ForecastError

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
    # Normal values that sum to zero along their (last) dimension: offsets around a mean.
    "zerosumnormal": ("ZeroSumNormal", lambda p: {"sigma": p["sigma"]}),
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
    gamma(alpha, beta), exponential(lam), studentt(nu, mu, sigma), zerosumnormal(sigma)
    (values summing to zero along their dims). Must be called inside a
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
