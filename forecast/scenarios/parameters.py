"""The catalogue of distributions and the validation of their parameters.

Distributions (``dist``, case-insensitive): ``normal(mu, sigma)``, ``lognormal(median, sigma)``
(sigma is the sd of the log), ``truncnormal(mu, sigma, lower, upper)``, ``beta(alpha, beta)``,
``uniform(lower, upper)``, ``triangular(lower, mode, upper)``, ``pert(lower, mode, upper,
lambda=4)``, ``fixed(value)`` and ``quarter(values, probs)`` (launch quarters, sampled as integer
quarter indices). The models' prior builder also understands ``halfnormal(sigma)``,
``gamma(alpha, beta)`` (beta a rate), ``exponential(lam)`` and ``studentt(nu, mu, sigma)``, so
those are accepted as well.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from forecast.core.calendar import QUARTER_PATTERN, quarter_index

# Not scipy: see forecast.scenarios.distributions on import time.
from forecast.core.special import ndtr
from forecast.scenarios.locations import Where, expect_number, fmt

#: distribution name -> (required parameters, optional parameters with defaults)
DISTRIBUTIONS: dict[str, tuple[tuple[str, ...], dict[str, float]]] = {
    "normal": (("mu", "sigma"), {}),
    "lognormal": (("median", "sigma"), {}),
    "truncnormal": (("mu", "sigma", "lower", "upper"), {}),
    "beta": (("alpha", "beta"), {}),
    "uniform": (("lower", "upper"), {}),
    "triangular": (("lower", "mode", "upper"), {}),
    "pert": (("lower", "mode", "upper"), {"lambda": 4.0}),
    "fixed": (("value",), {}),
    "quarter": (("values", "probs"), {}),
    # Also understood by the models' prior builder, so prior overrides may use them too.
    "halfnormal": (("sigma",), {}),
    "gamma": (("alpha", "beta"), {}),
    "exponential": (("lam",), {}),
    "studentt": (("nu", "mu", "sigma"), {}),
}

_PROB_TOLERANCE = 1e-6
#: Which parameters each distribution needs strictly positive.
_POSITIVE: dict[str, tuple[str, ...]] = {
    "normal": ("sigma",),
    "lognormal": ("sigma", "median"),
    "truncnormal": ("sigma",),
    "halfnormal": ("sigma",),
    "studentt": ("sigma", "nu"),
    "beta": ("alpha", "beta"),
    "gamma": ("alpha", "beta"),
    "exponential": ("lam",),
    "pert": ("lambda",),
}


def check_dist_params(dist: str, table: Mapping[str, Any], where: Where) -> dict[str, Any]:
    """Validate one distribution's parameters and return them normalised (floats, tuples).

    Parameters
    ----------
    dist : str
        A key of :data:`DISTRIBUTIONS` (lower case).
    table : mapping
        The distribution table; its keys were already checked against ``dist``.
    where : Where
        Location of the table, for error messages.

    Returns
    -------
    dict
        Floats by parameter name (optional ones filled with their defaults), or for
        ``quarter`` the tuples ``values`` and ``probs``.

    Raises
    ------
    ScenarioError
        On a non-numeric or impossible parameter.
    """
    required, optional = DISTRIBUTIONS[dist]
    if dist == "quarter":
        return _check_quarter_params(table, where)
    if dist == "fixed":
        return {"value": expect_number(table["value"], where.child("value"))}

    bounded = dist == "truncnormal"
    params: dict[str, Any] = {}
    for key in required:
        infinite_ok = bounded and key in ("lower", "upper")
        params[key] = expect_number(table[key], where.child(key), allow_infinite=infinite_ok)
    for key, default in optional.items():
        value = table.get(key, default)
        params[key] = expect_number(value, where.child(key))

    for key in _POSITIVE.get(dist, ()):
        if params[key] <= 0:
            raise where.child(key).error(f"must be > 0, got {fmt(params[key])}")
    _check_support(dist, params, where)
    return params


def _check_support(dist: str, params: dict[str, Any], where: Where) -> None:
    """Bounds in order, the mode between them, and some probability mass inside them."""
    if "lower" in params and params["lower"] >= params["upper"]:
        raise where.child("lower").error(
            f"must be < upper, got lower={fmt(params['lower'])}, upper={fmt(params['upper'])}"
        )
    if "mode" in params and not params["lower"] <= params["mode"] <= params["upper"]:
        raise where.child("mode").error(
            f"must lie in [lower, upper] = [{fmt(params['lower'])}, {fmt(params['upper'])}],"
            f" got {fmt(params['mode'])}"
        )
    if dist == "truncnormal":
        a = (params["lower"] - params["mu"]) / params["sigma"]
        b = (params["upper"] - params["mu"]) / params["sigma"]
        if float(ndtr(b) - ndtr(a)) < 1e-12:
            raise where.child("lower").error(
                "the interval [lower, upper] holds almost no probability under "
                f"normal(mu={fmt(params['mu'])}, sigma={fmt(params['sigma'])})"
            )


def _check_quarter_params(table: Mapping[str, Any], where: Where) -> dict[str, Any]:
    """Sorted quarter labels with one probability each, summing to 1."""
    values, probs = table["values"], table["probs"]
    if not isinstance(values, list) or not values:
        raise where.child("values").error("must be a non-empty list of quarter labels")
    if not isinstance(probs, list):
        raise where.child("probs").error("must be a list of probabilities")
    indices = []
    for i, label in enumerate(values):
        if not isinstance(label, str) or not QUARTER_PATTERN.match(label):
            raise (
                where.child("values")
                .child(i)
                .error(f"not a quarter label like '2027Q1', got {fmt(label)}")
            )
        indices.append(quarter_index(label))
    if any(later <= earlier for earlier, later in zip(indices, indices[1:], strict=False)):
        raise where.child("values").error("must be sorted ascending, without duplicates")
    if len(probs) != len(values):
        raise where.child("probs").error(
            f"must give one probability per value (got {len(values)} values, {len(probs)} probs)"
        )
    numbers = []
    for i, p in enumerate(probs):
        number = expect_number(p, where.child("probs").child(i))
        if number < 0:
            raise where.child("probs").child(i).error(f"must be >= 0, got {fmt(number)}")
        numbers.append(number)
    total = math.fsum(numbers)
    if abs(total - 1.0) > _PROB_TOLERANCE:
        raise where.child("probs").error(f"must sum to 1 (within 1e-6), got {total:.8g}")
    return {"values": tuple(values), "probs": tuple(numbers)}
