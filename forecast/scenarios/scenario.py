"""Scenario files: input distributions, prior overrides, correlations and theses.

A scenario is a TOML file in ``scenarios/`` (read with :mod:`tomllib`). It names the
assumptions a forecast runs under: one distribution per uncertain input (with a unit and a
rationale), prior overrides for the Bayesian models, rank correlations between inputs, the
mapping from catalogue chips to the input that prices them, and the theses to evaluate.

A file may ``extends`` another scenario of the same directory and override parts of it:

- ``[scenario]`` metadata keys override the parent's;
- an input of the same name replaces the parent's input wholesale;
- ``[priors.<model>]`` tables merge key by key;
- theses merge by name (a child thesis replaces the parent's of the same name);
- ``[chip_prices]`` merges key by key;
- ``[[correlations]]`` merge by unordered input pair (the child's rho replaces the parent's).

Distributions (``dist``, case-insensitive): ``normal(mu, sigma)``, ``lognormal(median, sigma)``
(sigma is the sd of the log), ``truncnormal(mu, sigma, lower, upper)``, ``beta(alpha, beta)``,
``uniform(lower, upper)``, ``triangular(lower, mode, upper)``, ``pert(lower, mode, upper,
lambda=4)``, ``fixed(value)`` and ``quarter(values, probs)`` (launch quarters, sampled as integer
quarter indices). The models' prior builder also understands ``halfnormal(sigma)``,
``gamma(alpha, beta)`` (beta a rate), ``exponential(lam)`` and ``studentt(nu, mu, sigma)``, so
those are accepted as well.

Every problem is raised as a :class:`~forecast.core.errors.ScenarioError` with a one-line message
``<file>: <key path>: <what is wrong>``.

Correlated sampling uses a Gaussian copula. Each requested Spearman rank correlation ``rho`` is
converted to the Pearson correlation of the underlying normals, ``r = 2 sin(pi rho / 6)``, so
that continuous marginals show the requested rank correlation. With Latin hypercube sampling the
correlated columns are reordered with the Iman-Conover method instead, which keeps every column's
stratification intact (values are permuted, never moved).

Correlations on ``quarter`` inputs are allowed: the copula still orders launch dates by the
partner input, but ties between equal quarters make the realised rank correlation smaller in
magnitude than the requested one. Correlations on ``fixed`` inputs are rejected (a constant has
no ranks to correlate).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import QUARTER_PATTERN, parse_period, quarter_index, quarter_label
from forecast.core.errors import ScenarioError

# Not scipy: scipy.special takes 0.3-0.5 s to import and scipy.stats about a second more, a
# large part of a warm forecast's budget. The functions sampling needs are in
# forecast.core.special (numpy); scipy.stats is imported on demand for the distributions only
# prior overrides use and for Latin hypercube sampling.
from forecast.core.special import betainc, betaincinv, ndtr, ndtri, truncnorm_ppf

__all__ = [
    "DEFAULT_SCENARIOS_DIR",
    "DISTRIBUTIONS",
    "PRIOR_MODELS",
    "InputSpec",
    "Scenario",
    "ThesisSpec",
    "list_scenarios",
    "load_scenario",
    "load_scenario_file",
    "parse_period",
    "quarter_index",
    "quarter_label",
    "scenario_names",
]

DEFAULT_SCENARIOS_DIR = Path(__file__).resolve().parents[2] / "scenarios"

# Scenario names double as file stems, so they must not be able to spell a path.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]+$")
# Input, prior-key and thesis names become DataFrame columns and attribute-like keys.
IDENTIFIER_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

PRIOR_MODELS: tuple[str, ...] = ("price", "market", "share", "diffusion")
COMPARATORS: tuple[str, ...] = ("<", "<=", ">", ">=")
AGGREGATES: tuple[str, ...] = ("mean", "sum", "last")
SAMPLING_METHODS: tuple[str, ...] = ("mc", "lhs")

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
#: Distributions evaluated through a frozen scipy distribution rather than a closed form.
_SCIPY_DISTS = ("truncnormal", "halfnormal", "gamma", "exponential", "studentt")
#: Of those, the ones whose inverse CDF comes from :mod:`forecast.core.special` instead, so that
#: sampling a scenario never imports scipy.
_SPECIAL_PPF = ("truncnormal",)

_TOP_LEVEL_KEYS = ("scenario", "inputs", "chip_prices", "correlations", "priors", "theses")
_SCENARIO_KEYS = ("name", "description", "extends", "horizon", "draws", "seed")
_REQUIRED_METADATA = ("description", "horizon", "draws", "seed")
_META_KEYS = ("unit", "rationale")
_THESIS_REQUIRED = ("statement", "metric", "period", "comparator", "threshold")
_THESIS_OPTIONAL = ("vendor", "aggregate", "numerator", "denominator", "unit")
_CORRELATION_KEYS = ("inputs", "rho")

_PROB_TOLERANCE = 1e-6
_PSD_TOLERANCE = -1e-10
_HORIZON_RANGE = (2000, 2100)
_MAX_DRAWS = 10_000_000
_MAX_EXTENDS_DEPTH = 32
# Uniforms are kept off 0 and 1 so unbounded inverse CDFs stay finite.
_U_MIN = 1e-15
_U_MAX = 1.0 - 1e-15


# --------------------------------------------------------------------------- errors


def _display(path: Path) -> str:
    """Show a path relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _format_key(key: str | int) -> str:
    if isinstance(key, int):
        return f"[{key}]"
    return key if NAME_PATTERN.match(key) else json.dumps(key)


@dataclass(frozen=True)
class _Where:
    """A location in a scenario file, used to build one-line error messages."""

    file: str
    path: str = ""

    def child(self, key: str | int) -> _Where:
        part = _format_key(key)
        if isinstance(key, int) or not self.path:
            return _Where(self.file, f"{self.path}{part}")
        return _Where(self.file, f"{self.path}.{part}")

    def error(self, message: str) -> ScenarioError:
        location = f"{self.file}: {self.path}: " if self.path else f"{self.file}: "
        # One line always: the CLI prints the message as is.
        return ScenarioError(location + " ".join(str(message).split()))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value) if isinstance(value, str) else str(value)


def _check_keys(
    table: Mapping[str, Any],
    allowed: Sequence[str],
    required: Sequence[str],
    where: _Where,
) -> None:
    """Reject unknown keys (with a spelling hint) first, then missing required keys."""
    for key in table:
        if key not in allowed:
            hint = difflib.get_close_matches(str(key), list(allowed), n=1)
            suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
            raise where.child(key).error(f"unknown key (allowed: {', '.join(allowed)}){suggestion}")
    for key in required:
        if key not in table:
            raise where.child(key).error("required key missing")


def _expect_table(value: Any, where: _Where) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise where.error(f"must be a table, got {type(value).__name__}")
    return value


def _expect_str(value: Any, where: _Where) -> str:
    if not isinstance(value, str) or not value.strip():
        raise where.error(f"must be a non-empty string, got {_fmt(value)}")
    return value


def _expect_int(value: Any, where: _Where) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.error(f"must be an integer, got {_fmt(value)}")
    return value


def _expect_number(value: Any, where: _Where, *, allow_infinite: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise where.error(f"must be a number, got {_fmt(value)}")
    number = float(value)
    if math.isnan(number) or (math.isinf(number) and not allow_infinite):
        raise where.error(f"must be a finite number, got {_fmt(value)}")
    return number


def _expect_name(value: Any, where: _Where, pattern: re.Pattern[str], what: str) -> str:
    if not isinstance(value, str) or not pattern.match(value):
        raise where.error(f"{what} must match {pattern.pattern}, got {_fmt(value)}")
    return value


# --------------------------------------------------------------------------- distributions


def _check_dist_params(dist: str, table: Mapping[str, Any], where: _Where) -> dict[str, Any]:
    """Validate one distribution's parameters and return them normalised (floats, tuples)."""
    required, optional = DISTRIBUTIONS[dist]
    if dist == "quarter":
        return _check_quarter_params(table, where)
    if dist == "fixed":
        return {"value": _expect_number(table["value"], where.child("value"))}

    bounded = dist == "truncnormal"
    params: dict[str, Any] = {}
    for key in required:
        infinite_ok = bounded and key in ("lower", "upper")
        params[key] = _expect_number(table[key], where.child(key), allow_infinite=infinite_ok)
    for key, default in optional.items():
        value = table.get(key, default)
        params[key] = _expect_number(value, where.child(key))

    def positive(key: str) -> None:
        if params[key] <= 0:
            raise where.child(key).error(f"must be > 0, got {_fmt(params[key])}")

    if dist in ("normal", "lognormal", "truncnormal", "halfnormal", "studentt"):
        positive("sigma")
    if dist == "lognormal":
        positive("median")
    if dist in ("beta", "gamma"):
        positive("alpha")
        positive("beta")
    if dist == "exponential":
        positive("lam")
    if dist == "studentt":
        positive("nu")
    if dist == "pert":
        positive("lambda")
    if "lower" in params and params["lower"] >= params["upper"]:
        raise where.child("lower").error(
            f"must be < upper, got lower={_fmt(params['lower'])}, upper={_fmt(params['upper'])}"
        )
    if "mode" in params and not params["lower"] <= params["mode"] <= params["upper"]:
        raise where.child("mode").error(
            f"must lie in [lower, upper] = [{_fmt(params['lower'])}, {_fmt(params['upper'])}],"
            f" got {_fmt(params['mode'])}"
        )
    if dist == "truncnormal":
        a = (params["lower"] - params["mu"]) / params["sigma"]
        b = (params["upper"] - params["mu"]) / params["sigma"]
        if float(ndtr(b) - ndtr(a)) < 1e-12:
            raise where.child("lower").error(
                "the interval [lower, upper] holds almost no probability under "
                f"normal(mu={_fmt(params['mu'])}, sigma={_fmt(params['sigma'])})"
            )
    return params


def _check_quarter_params(table: Mapping[str, Any], where: _Where) -> dict[str, Any]:
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
                .error(f"not a quarter label like '2027Q1', got {_fmt(label)}")
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
        number = _expect_number(p, where.child("probs").child(i))
        if number < 0:
            raise where.child("probs").child(i).error(f"must be >= 0, got {_fmt(number)}")
        numbers.append(number)
    total = math.fsum(numbers)
    if abs(total - 1.0) > _PROB_TOLERANCE:
        raise where.child("probs").error(f"must sum to 1 (within 1e-6), got {total:.8g}")
    return {"values": tuple(values), "probs": tuple(numbers)}


def _parse_spec(name: str, table: Any, where: _Where, *, require_meta: bool) -> InputSpec:
    """Validate one distribution table (an input or a prior) and build its :class:`InputSpec`."""
    table = _expect_table(table, where)
    if "dist" not in table:
        raise where.child("dist").error("required key missing")
    dist_value = table["dist"]
    if not isinstance(dist_value, str) or dist_value.lower() not in DISTRIBUTIONS:
        raise where.child("dist").error(
            f"unknown distribution {_fmt(dist_value)} (known: {', '.join(DISTRIBUTIONS)})"
        )
    dist = dist_value.lower()
    required, optional = DISTRIBUTIONS[dist]
    allowed = ("dist", *required, *optional, *_META_KEYS)
    needed = (*required, *_META_KEYS) if require_meta else required
    _check_keys(table, allowed, needed, where)
    params = _check_dist_params(dist, table, where)
    unit = _expect_str(table["unit"], where.child("unit")) if "unit" in table else None
    rationale = (
        _expect_str(table["rationale"], where.child("rationale")) if "rationale" in table else None
    )
    return InputSpec(name=name, dist=dist, params=params, unit=unit, rationale=rationale)


@dataclass(frozen=True)
class InputSpec:
    """One uncertain quantity: a distribution with its unit and the reason for it.

    Parameters
    ----------
    name : str
        The input name (a column of :meth:`Scenario.sample`).
    dist : str
        One of :data:`DISTRIBUTIONS` (lower case).
    params : dict
        Validated parameters: floats, except ``quarter`` (``values``: tuple of labels,
        ``probs``: tuple of floats). ``pert`` always carries ``lambda``.
    unit : str or None
        Unit of the sampled values (required for scenario inputs, optional for priors).
    rationale : str or None
        Why these numbers: data rows or published anchors, or a stated assumption.

    Notes
    -----
    Build instances with :meth:`from_dict`, which validates; the constructor trusts its
    arguments. ``quarter`` inputs are sampled as integer quarter indices
    (see :func:`quarter_index`).
    """

    name: str
    dist: str
    params: dict[str, Any]
    unit: str | None = None
    rationale: str | None = None

    @classmethod
    def from_dict(
        cls,
        name: str,
        spec: Mapping[str, Any],
        *,
        require_meta: bool = False,
        source: str = "<dict>",
    ) -> InputSpec:
        """Validate a distribution table such as ``{"dist": "normal", "mu": 0, "sigma": 1}``.

        Parameters
        ----------
        name : str
            Name given to the spec (also used as the key path in error messages).
        spec : mapping
            The table, as it would appear in a scenario file.
        require_meta : bool, default False
            Require ``unit`` and ``rationale`` (as scenario inputs must).
        source : str, default "<dict>"
            Label standing in for the file name in error messages.

        Returns
        -------
        InputSpec
            The validated spec.

        Raises
        ------
        ScenarioError
            On any unknown key, missing key or impossible parameter.
        """
        return _parse_spec(name, dict(spec), _Where(source, name), require_meta=require_meta)

    # ---------------------------------------------------------------- properties

    @property
    def is_quarter(self) -> bool:
        """True for launch-quarter inputs (sampled as integer quarter indices)."""
        return self.dist == "quarter"

    @property
    def is_fixed(self) -> bool:
        """True for constants."""
        return self.dist == "fixed"

    @cached_property
    def _quarter_table(self) -> tuple[np.ndarray, np.ndarray]:
        indices = np.array([quarter_index(v) for v in self.params["values"]], dtype=np.int64)
        cumulative = np.cumsum(np.asarray(self.params["probs"], dtype=float))
        # Renormalise so rounding inside the 1e-6 tolerance cannot leave a gap below 1.
        return indices, cumulative / cumulative[-1]

    @cached_property
    def _scipy(self) -> Any:
        """Frozen scipy distribution for the cases without a short closed form (else None)."""
        from scipy import stats

        p = self.params
        match self.dist:
            case "truncnormal":
                a = (p["lower"] - p["mu"]) / p["sigma"]
                b = (p["upper"] - p["mu"]) / p["sigma"]
                return stats.truncnorm(a, b, loc=p["mu"], scale=p["sigma"])
            case "halfnormal":
                return stats.halfnorm(scale=p["sigma"])
            case "gamma":
                # beta is a rate, as in PyMC.
                return stats.gamma(p["alpha"], scale=1.0 / p["beta"])
            case "exponential":
                return stats.expon(scale=1.0 / p["lam"])
            case "studentt":
                return stats.t(p["nu"], loc=p["mu"], scale=p["sigma"])
        return None

    @property
    def beta_form(self) -> tuple[float, float, float, float] | None:
        """``(a, b, lower, width)`` with X = lower + width * Beta(a, b), for beta and PERT
        inputs; None for the others."""
        p = self.params
        if self.dist == "beta":
            return p["alpha"], p["beta"], 0.0, 1.0
        if self.dist != "pert":
            return None
        width = p["upper"] - p["lower"]
        a = 1.0 + p["lambda"] * (p["mode"] - p["lower"]) / width
        b = 1.0 + p["lambda"] * (p["upper"] - p["mode"]) / width
        return a, b, p["lower"], width

    # ---------------------------------------------------------------- distribution functions

    def ppf(self, u: np.ndarray | float) -> np.ndarray:
        """Vectorised inverse CDF.

        Parameters
        ----------
        u : array_like
            Probabilities in [0, 1].

        Returns
        -------
        numpy.ndarray
            Quantiles with the shape of ``u``: float, or int64 quarter indices for
            ``quarter`` inputs.
        """
        u = np.asarray(u, dtype=float)
        p = self.params
        if self.dist in _SPECIAL_PPF:
            a = (p["lower"] - p["mu"]) / p["sigma"]
            b = (p["upper"] - p["mu"]) / p["sigma"]
            return truncnorm_ppf(u, a, b, loc=p["mu"], scale=p["sigma"])
        if self.dist in _SCIPY_DISTS:
            return np.asarray(self._scipy.ppf(u), dtype=float)
        match self.dist:
            case "normal":
                return p["mu"] + p["sigma"] * ndtri(u)
            case "lognormal":
                return p["median"] * np.exp(p["sigma"] * ndtri(u))
            case "beta" | "pert":
                a, b, lower, width = self.beta_form
                return lower + width * betaincinv(a, b, u)
            case "uniform":
                return p["lower"] + (p["upper"] - p["lower"]) * u
            case "triangular":
                lower, mode, upper = p["lower"], p["mode"], p["upper"]
                width = upper - lower
                split = (mode - lower) / width
                left = lower + np.sqrt(u * width * (mode - lower))
                right = upper - np.sqrt((1.0 - u) * width * (upper - mode))
                return np.where(u < split, left, right)
            case "fixed":
                return np.full(u.shape, p["value"], dtype=float)
            case "quarter":
                indices, cumulative = self._quarter_table
                position = np.searchsorted(cumulative, u, side="right")
                return indices[np.clip(position, 0, len(indices) - 1)]
        raise AssertionError(f"unhandled distribution {self.dist}")  # pragma: no cover

    def cdf(self, x: np.ndarray | float) -> np.ndarray:
        """Vectorised cumulative distribution function.

        Parameters
        ----------
        x : array_like
            Values (quarter indices for ``quarter`` inputs).

        Returns
        -------
        numpy.ndarray
            P(X <= x), with the shape of ``x``.
        """
        x = np.asarray(x, dtype=float)
        p = self.params
        if self.dist in _SCIPY_DISTS:
            return np.asarray(self._scipy.cdf(x), dtype=float)
        match self.dist:
            case "normal":
                return ndtr((x - p["mu"]) / p["sigma"])
            case "lognormal":
                with np.errstate(divide="ignore", invalid="ignore"):
                    z = np.log(np.where(x > 0, x, np.nan) / p["median"]) / p["sigma"]
                return np.where(x > 0, ndtr(z), 0.0)
            case "beta" | "pert":
                a, b, lower, width = self.beta_form
                return betainc(a, b, np.clip((x - lower) / width, 0.0, 1.0))
            case "uniform":
                return np.clip((x - p["lower"]) / (p["upper"] - p["lower"]), 0.0, 1.0)
            case "triangular":
                lower, mode, upper = p["lower"], p["mode"], p["upper"]
                width = upper - lower
                with np.errstate(divide="ignore", invalid="ignore"):
                    left = (x - lower) ** 2 / (width * (mode - lower))
                    right = 1.0 - (upper - x) ** 2 / (width * (upper - mode))
                inside = np.where(x <= mode, left, right)
                return np.where(x <= lower, 0.0, np.where(x >= upper, 1.0, inside))
            case "fixed":
                return np.where(x >= p["value"], 1.0, 0.0)
            case "quarter":
                indices, cumulative = self._quarter_table
                position = np.searchsorted(indices, x, side="right")
                padded = np.concatenate([[0.0], cumulative])
                return padded[position]
        raise AssertionError(f"unhandled distribution {self.dist}")  # pragma: no cover

    def quantile(self, q: float | np.ndarray) -> float | np.ndarray:
        """Quantile(s) of the distribution.

        Parameters
        ----------
        q : float or array_like
            Probabilities in [0, 1].

        Returns
        -------
        float or numpy.ndarray
            A float (an int quarter index for ``quarter`` inputs) for scalar ``q``, an array
            otherwise.
        """
        values = self.ppf(q)
        if values.ndim == 0:
            return int(values) if self.is_quarter else float(values)
        return values

    def median(self) -> float:
        """The median (an int quarter index for ``quarter`` inputs)."""
        return self.quantile(0.5)  # type: ignore[return-value]

    def mean(self) -> float:
        """The mean (a fractional quarter index for ``quarter`` inputs; NaN if undefined)."""
        p = self.params
        if self.dist in _SCIPY_DISTS:
            return float(self._scipy.mean())
        match self.dist:
            case "normal":
                return p["mu"]
            case "lognormal":
                return p["median"] * math.exp(p["sigma"] ** 2 / 2.0)
            case "beta":
                return p["alpha"] / (p["alpha"] + p["beta"])
            case "uniform":
                return (p["lower"] + p["upper"]) / 2.0
            case "triangular":
                return (p["lower"] + p["mode"] + p["upper"]) / 3.0
            case "pert":
                return (p["lower"] + p["lambda"] * p["mode"] + p["upper"]) / (p["lambda"] + 2.0)
            case "fixed":
                return p["value"]
            case "quarter":
                indices, _ = self._quarter_table
                return float(np.dot(indices, np.asarray(p["probs"])))
        raise AssertionError(f"unhandled distribution {self.dist}")  # pragma: no cover

    # ---------------------------------------------------------------- presentation

    def format_value(self, value: float) -> str:
        """Format one value of this input for people (quarter labels for quarter inputs)."""
        if self.is_quarter:
            return quarter_label(int(round(value)))
        return f"{value:.4g}"

    def params_text(self) -> str:
        """Parameters as a short readable string, e.g. ``"alpha=6, beta=10"``."""
        if self.is_quarter:
            pairs = zip(self.params["values"], self.params["probs"], strict=True)
            return ", ".join(f"{label}: {prob:g}" for label, prob in pairs)
        return ", ".join(f"{key}={value:g}" for key, value in self.params.items())

    def to_dict(self) -> dict[str, Any]:
        """The spec as a plain table (the form it takes in a scenario file)."""
        table: dict[str, Any] = {"dist": self.dist}
        for key, value in self.params.items():
            table[key] = list(value) if isinstance(value, tuple) else value
        if self.unit is not None:
            table["unit"] = self.unit
        if self.rationale is not None:
            table["rationale"] = self.rationale
        return table


def inverse_cdfs(specs: Sequence[InputSpec], uniforms: np.ndarray) -> list[np.ndarray]:
    """``specs[j].ppf(uniforms[:, j])`` for every column ``j``, the same values.

    The beta and PERT columns go through one :func:`~forecast.core.special.betaincinv` call, as
    its values do not depend on what else is in the call: for a handful of such inputs at a
    few thousand draws that is about a third faster than one call each.
    """
    columns: list[np.ndarray | None] = [None] * len(specs)
    family = [j for j, spec in enumerate(specs) if spec.beta_form is not None]
    if family:
        n = uniforms.shape[0]
        forms = np.array([specs[j].beta_form for j in family])
        quantiles = betaincinv(np.repeat(forms[:, 0], n), np.repeat(forms[:, 1], n),
                               uniforms[:, family].T.ravel()).reshape(len(family), n)
        for row, j in enumerate(family):
            columns[j] = forms[row, 2] + forms[row, 3] * quantiles[row]
    for j, spec in enumerate(specs):
        if columns[j] is None:
            columns[j] = spec.ppf(uniforms[:, j])
    return columns


# --------------------------------------------------------------------------- theses


@dataclass(frozen=True)
class ThesisSpec:
    """A named claim: ``aggregate(metric over period) comparator threshold``.

    Parameters
    ----------
    name : str
        Thesis identifier.
    statement : str
        The claim in words.
    metric : str
        A forecast output name (``share``, ``spend``, ``tam``, ``aws_revenue_topdown``,
        ``aws_revenue_bottomup``, ``custom_silicon_spend``, ``cost_per_pflop_hour_ratio``...).
        Only its spelling is checked here; the thesis evaluator checks it exists.
    period : str
        ``"2030"``, ``"2030Q4"`` or ``"2026..2030"`` (see :func:`parse_period`).
    comparator : str
        One of ``<``, ``<=``, ``>``, ``>=``.
    threshold : float
        Value compared against, in the metric's unit.
    vendor : str or None
        Optional vendor selector (``nvidia``, ``aws``...).
    aggregate : str, default "mean"
        How the quarters of the period combine: ``mean``, ``sum`` or ``last``.
    numerator, denominator : str or None
        Catalogue chip names for ratio metrics.
    unit : str or None
        Optional unit of the threshold, for people.
    """

    name: str
    statement: str
    metric: str
    period: str
    comparator: str
    threshold: float
    vendor: str | None = None
    aggregate: str = "mean"
    numerator: str | None = None
    denominator: str | None = None
    unit: str | None = None

    @property
    def period_kind(self) -> str:
        """``"year"``, ``"quarter"`` or ``"range"``."""
        return parse_period(self.period)[0]

    @property
    def first_quarter(self) -> int:
        """Quarter index of the period's first quarter."""
        return parse_period(self.period)[1]

    @property
    def last_quarter(self) -> int:
        """Quarter index of the period's last quarter (inclusive)."""
        return parse_period(self.period)[2]

    @property
    def quarter_labels(self) -> list[str]:
        """Labels of every quarter in the period, in order."""
        return [quarter_label(i) for i in range(self.first_quarter, self.last_quarter + 1)]

    def holds(self, values: np.ndarray | float) -> np.ndarray:
        """Apply the comparator: which aggregated values satisfy the thesis.

        Parameters
        ----------
        values : array_like
            The aggregated metric, one value per draw.

        Returns
        -------
        numpy.ndarray of bool
        """
        values = np.asarray(values, dtype=float)
        match self.comparator:
            case "<":
                return values < self.threshold
            case "<=":
                return values <= self.threshold
            case ">":
                return values > self.threshold
            case ">=":
                return values >= self.threshold
        raise AssertionError(f"unhandled comparator {self.comparator}")  # pragma: no cover

    def to_dict(self) -> dict[str, Any]:
        """The thesis as a plain table (the form it takes in a scenario file)."""
        table: dict[str, Any] = {
            key: getattr(self, key) for key in (*_THESIS_REQUIRED, "aggregate")
        }
        for key in ("vendor", "numerator", "denominator", "unit"):
            if getattr(self, key) is not None:
                table[key] = getattr(self, key)
        return table


def _parse_thesis(name: str, table: Any, where: _Where) -> ThesisSpec:
    table = _expect_table(table, where)
    _check_keys(table, (*_THESIS_REQUIRED, *_THESIS_OPTIONAL), _THESIS_REQUIRED, where)
    statement = _expect_str(table["statement"], where.child("statement"))
    metric = _expect_name(table["metric"], where.child("metric"), IDENTIFIER_PATTERN, "metric")
    period = table["period"]
    try:
        parse_period(period)
    except ScenarioError as exc:
        raise where.child("period").error(str(exc)) from None
    comparator = table["comparator"]
    if comparator not in COMPARATORS:
        raise where.child("comparator").error(
            f"must be one of {', '.join(COMPARATORS)}, got {_fmt(comparator)}"
        )
    threshold = _expect_number(table["threshold"], where.child("threshold"))
    aggregate = table.get("aggregate", "mean")
    if aggregate not in AGGREGATES:
        raise where.child("aggregate").error(
            f"must be one of {', '.join(AGGREGATES)}, got {_fmt(aggregate)}"
        )
    vendor = table.get("vendor")
    if vendor is not None:
        _expect_name(vendor, where.child("vendor"), NAME_PATTERN, "vendor")
    numerator = table.get("numerator")
    denominator = table.get("denominator")
    if (numerator is None) != (denominator is None):
        missing = "denominator" if denominator is None else "numerator"
        raise where.child(missing).error("numerator and denominator must be given together")
    if numerator is not None:
        _expect_str(numerator, where.child("numerator"))
        _expect_str(denominator, where.child("denominator"))
    unit = table.get("unit")
    if unit is not None:
        _expect_str(unit, where.child("unit"))
    return ThesisSpec(
        name=name,
        statement=statement,
        metric=metric,
        period=period,
        comparator=comparator,
        threshold=threshold,
        vendor=vendor,
        aggregate=aggregate,
        numerator=numerator,
        denominator=denominator,
        unit=unit,
    )


# --------------------------------------------------------------------------- correlation


def spearman_to_pearson(rho: np.ndarray | float) -> np.ndarray:
    """Pearson correlation of a Gaussian copula giving Spearman correlation ``rho``.

    Parameters
    ----------
    rho : array_like
        Spearman rank correlation(s) in [-1, 1].

    Returns
    -------
    numpy.ndarray
        ``2 sin(pi rho / 6)``.
    """
    return 2.0 * np.sin(np.pi * np.asarray(rho, dtype=float) / 6.0)


def _factor(matrix: np.ndarray) -> np.ndarray:
    """A matrix ``F`` with ``F @ F.T == matrix``: Cholesky, or eigen for singular PSD ones."""
    try:
        return np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        # Singular but PSD (e.g. rho = 1): the eigen factor still reproduces the matrix.
        eigenvalues, eigenvectors = np.linalg.eigh(matrix)
        return eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))


def _iman_conover(uniforms: np.ndarray, target: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Reorder each column of ``uniforms`` so the ranks follow correlated normal scores.

    Values inside each column are only permuted, so Latin hypercube stratification survives.
    ``target`` is the Pearson matrix of the normal scores (the Gaussian-copula matrix).
    """
    n, k = uniforms.shape
    whitening = None
    if n > k + 1:
        scores = ndtri(np.arange(1, n + 1) / (n + 1.0))
        shuffled = np.column_stack([rng.permutation(scores) for _ in range(k)])
        try:
            whitening = np.linalg.inv(np.linalg.cholesky(np.corrcoef(shuffled, rowvar=False)))
        except np.linalg.LinAlgError:
            whitening = None
    if whitening is None:
        # Too few rows to whiten: fall back to the copula transform (stratification is lost).
        normals = ndtri(uniforms) @ _factor(target).T
        return ndtr(normals)
    targets = shuffled @ whitening.T @ _factor(target).T
    result = np.empty_like(uniforms)
    for j in range(k):
        ranks = np.argsort(np.argsort(targets[:, j], kind="stable"), kind="stable")
        result[:, j] = np.sort(uniforms[:, j])[ranks]
    return result


# --------------------------------------------------------------------------- scenario


@dataclass(frozen=True)
class Scenario:
    """A validated scenario with its ``extends`` chain already merged in.

    Parameters
    ----------
    name, description : str
        Metadata; ``name`` equals the file stem.
    horizon : int
        Last calendar year forecast.
    draws : int
        Default number of draws for :meth:`sample`.
    seed : int
        Default seed for :meth:`sample`.
    inputs : dict of str to InputSpec
        Inputs in file order (parent's first, then the child's new ones).
    correlations : dict of (str, str) to float
        Requested Spearman rank correlations by input pair (names sorted).
    correlation_names : tuple of str
        Inputs involved in any correlation, in input order.
    correlation_matrix : numpy.ndarray
        Requested Spearman matrix over ``correlation_names`` (read-only).
    chip_prices : dict of str to str
        Catalogue chip name -> input giving its price per chip-hour.
    priors : dict of str to dict of str to InputSpec
        Model name -> parameter -> prior distribution.
    theses : dict of str to ThesisSpec
        Theses by name.
    path : pathlib.Path
        The scenario file.
    extends : str or None
        Name of the direct parent scenario.
    lineage : tuple of str
        Every ancestor, nearest first.
    """

    name: str
    description: str
    horizon: int
    draws: int
    seed: int
    inputs: dict[str, InputSpec]
    correlations: dict[tuple[str, str], float]
    correlation_names: tuple[str, ...]
    correlation_matrix: np.ndarray = field(compare=False, repr=False)
    chip_prices: dict[str, str] = field(default_factory=dict)
    priors: dict[str, dict[str, InputSpec]] = field(default_factory=dict)
    theses: dict[str, ThesisSpec] = field(default_factory=dict)
    path: Path = field(default=Path(), compare=False)
    extends: str | None = None
    lineage: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"Scenario(name={self.name!r}, extends={self.extends!r}, "
            f"inputs={len(self.inputs)}, theses={len(self.theses)}, path='{self.path}')"
        )

    @property
    def input_names(self) -> list[str]:
        """Input names in order (the columns of :meth:`sample`)."""
        return list(self.inputs)

    @property
    def correlation_pearson(self) -> np.ndarray:
        """Pearson matrix of the Gaussian copula over :attr:`correlation_names`."""
        pearson = spearman_to_pearson(self.correlation_matrix)
        np.fill_diagonal(pearson, 1.0)
        return pearson

    def prior(self, model: str, key: str) -> InputSpec | None:
        """The scenario's prior override for ``model.key``, or None if it sets none."""
        return self.priors.get(model, {}).get(key)

    # ---------------------------------------------------------------- sampling

    def sample(
        self, n: int | None = None, seed: int | None = None, method: str = "mc"
    ) -> pd.DataFrame:
        """Draw the inputs jointly.

        Parameters
        ----------
        n : int, optional
            Number of draws (default: the scenario's ``draws``).
        seed : int, optional
            Seed of the numpy Generator (default: the scenario's ``seed``). The same seed
            gives identical draws.
        method : {"mc", "lhs"}, default "mc"
            Plain Monte Carlo through the Gaussian copula, or Latin hypercube uniforms
            (scipy ``qmc.LatinHypercube``) with correlated columns reordered by Iman-Conover.

        Returns
        -------
        pandas.DataFrame
            ``n`` rows (index ``draw``) and one column per input; quarter inputs are int64
            quarter indices, everything else float64.

        Raises
        ------
        ScenarioError
            If ``n`` is not a positive integer, ``seed`` is negative or ``method`` is unknown.
        """
        n = self.draws if n is None else n
        seed = self.seed if seed is None else seed
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n <= 0:
            raise ScenarioError(f"scenario {self.name}: n must be a positive integer, got {n!r}")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ScenarioError(
                f"scenario {self.name}: seed must be a non-negative integer, got {seed!r}"
            )
        if method not in SAMPLING_METHODS:
            raise ScenarioError(
                f"scenario {self.name}: method must be one of {', '.join(SAMPLING_METHODS)},"
                f" got {method!r}"
            )
        n = int(n)
        names = self.input_names
        rng = np.random.default_rng(int(seed))
        columns = [names.index(name) for name in self.correlation_names]
        correlated = len(columns) >= 2
        if method == "mc":
            normals = rng.standard_normal((n, len(names)))
            if correlated:
                normals[:, columns] = normals[:, columns] @ _factor(self.correlation_pearson).T
            uniforms = ndtr(normals)
        else:
            from scipy.stats import qmc

            uniforms = qmc.LatinHypercube(d=len(names), rng=rng).random(n)
            if correlated:
                uniforms[:, columns] = _iman_conover(
                    uniforms[:, columns], self.correlation_pearson, rng
                )
        uniforms = np.clip(uniforms, _U_MIN, _U_MAX)
        specs = [self.inputs[name] for name in names]
        frame = pd.DataFrame(dict(zip(names, inverse_cdfs(specs, uniforms), strict=True)),
                             columns=names)
        frame.index.name = "draw"
        return frame

    # ---------------------------------------------------------------- presentation

    def to_table(self) -> pd.DataFrame:
        """One row per input: distribution, readable parameters, unit, quantiles, rationale.

        Returns
        -------
        pandas.DataFrame
            Columns ``input, dist, params, unit, mean, median, p10, p90, summary, rationale``.
            Quantiles are numeric (quarter indices for quarter inputs); ``summary`` is the
            readable ``median [p10, p90]`` with quarter labels where relevant.
        """
        rows = []
        for name, spec in self.inputs.items():
            median, p10, p90 = spec.quantile(np.array([0.5, 0.1, 0.9]))
            rows.append(
                {
                    "input": name,
                    "dist": spec.dist,
                    "params": spec.params_text(),
                    "unit": spec.unit,
                    "mean": float(spec.mean()),
                    "median": float(median),
                    "p10": float(p10),
                    "p90": float(p90),
                    "summary": f"{spec.format_value(median)} "
                    f"[{spec.format_value(p10)}, {spec.format_value(p90)}]",
                    "rationale": spec.rationale,
                }
            )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        """The merged scenario as plain JSON-able data (what a fit records)."""
        return {
            "name": self.name,
            "description": self.description,
            "extends": self.extends,
            "lineage": list(self.lineage),
            "horizon": self.horizon,
            "draws": self.draws,
            "seed": self.seed,
            "inputs": {name: spec.to_dict() for name, spec in self.inputs.items()},
            "correlations": [
                {"inputs": list(pair), "rho": rho} for pair, rho in self.correlations.items()
            ],
            "chip_prices": dict(self.chip_prices),
            "priors": {
                model: {key: spec.to_dict() for key, spec in specs.items()}
                for model, specs in self.priors.items()
            },
            "theses": {name: thesis.to_dict() for name, thesis in self.theses.items()},
        }

    def digest(self) -> str:
        """SHA-256 of :meth:`to_dict` (stable across runs), to tag fits and forecasts."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- loading


@dataclass
class _Layer:
    """One file's validated content, before merging with its parents."""

    path: Path
    where: _Where
    name: str
    extends: str | None
    metadata: dict[str, Any]
    inputs: dict[str, InputSpec]
    chip_prices: dict[str, tuple[str, _Where]]
    correlations: dict[tuple[str, str], tuple[float, _Where]]
    priors: dict[str, dict[str, InputSpec]]
    theses: dict[str, tuple[ThesisSpec, _Where]]


def _read_toml(path: Path, where: _Where) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise where.error(f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise where.error(f"cannot read file ({exc.strerror or exc})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise where.error(f"invalid TOML: {exc}") from None


def _parse_layer(path: Path) -> _Layer:
    """Read and validate one scenario file on its own (references are checked after merging)."""
    root = _Where(_display(path))
    document = _read_toml(path, root)
    _check_keys(document, _TOP_LEVEL_KEYS, ("scenario",), root)

    meta_where = root.child("scenario")
    meta_table = _expect_table(document["scenario"], meta_where)
    _check_keys(meta_table, _SCENARIO_KEYS, ("name",), meta_where)
    name = _expect_name(meta_table["name"], meta_where.child("name"), NAME_PATTERN, "name")
    if name != path.stem:
        raise meta_where.child("name").error(
            f"must equal the file name stem {path.stem!r}, got {name!r}"
        )
    extends = None
    if "extends" in meta_table:
        extends = _expect_name(
            meta_table["extends"], meta_where.child("extends"), NAME_PATTERN, "extends"
        )
    metadata: dict[str, Any] = {}
    if "description" in meta_table:
        metadata["description"] = _expect_str(
            meta_table["description"], meta_where.child("description")
        )
    if "horizon" in meta_table:
        horizon = _expect_int(meta_table["horizon"], meta_where.child("horizon"))
        low, high = _HORIZON_RANGE
        if not low <= horizon <= high:
            raise meta_where.child("horizon").error(
                f"must be a calendar year in {low}..{high}, got {horizon}"
            )
        metadata["horizon"] = horizon
    if "draws" in meta_table:
        draws = _expect_int(meta_table["draws"], meta_where.child("draws"))
        if not 0 < draws <= _MAX_DRAWS:
            raise meta_where.child("draws").error(f"must be in 1..{_MAX_DRAWS}, got {draws}")
        metadata["draws"] = draws
    if "seed" in meta_table:
        seed = _expect_int(meta_table["seed"], meta_where.child("seed"))
        if seed < 0:
            raise meta_where.child("seed").error(f"must be >= 0, got {seed}")
        metadata["seed"] = seed

    inputs: dict[str, InputSpec] = {}
    inputs_where = root.child("inputs")
    for input_name, table in _expect_table(document.get("inputs", {}), inputs_where).items():
        where = inputs_where.child(input_name)
        _expect_name(input_name, where, IDENTIFIER_PATTERN, "input name")
        inputs[input_name] = _parse_spec(input_name, table, where, require_meta=True)

    chip_prices: dict[str, tuple[str, _Where]] = {}
    chips_where = root.child("chip_prices")
    for chip, target in _expect_table(document.get("chip_prices", {}), chips_where).items():
        where = chips_where.child(chip)
        if not chip.strip():
            raise where.error("chip name must not be empty")
        chip_prices[chip] = (_expect_name(target, where, IDENTIFIER_PATTERN, "input"), where)

    correlations: dict[tuple[str, str], tuple[float, _Where]] = {}
    corr_where = root.child("correlations")
    entries = document.get("correlations", [])
    if not isinstance(entries, list):
        raise corr_where.error("must be an array of tables ([[correlations]])")
    for i, entry in enumerate(entries):
        where = corr_where.child(i)
        entry = _expect_table(entry, where)
        _check_keys(entry, _CORRELATION_KEYS, _CORRELATION_KEYS, where)
        pair = entry["inputs"]
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(item, str) for item in pair)
        ):
            raise where.child("inputs").error(
                f"must be a list of two input names, got {_fmt(pair)}"
            )
        if pair[0] == pair[1]:
            raise where.child("inputs").error(f"an input cannot correlate with itself: {pair[0]}")
        rho = _expect_number(entry["rho"], where.child("rho"))
        if not -1.0 <= rho <= 1.0:
            raise where.child("rho").error(f"must lie in [-1, 1], got {_fmt(rho)}")
        key = (min(pair), max(pair))
        if key in correlations:
            raise where.child("inputs").error(
                f"pair {key[0]} ~ {key[1]} is already correlated at {correlations[key][1].path}"
            )
        correlations[key] = (rho, where.child("inputs"))

    priors: dict[str, dict[str, InputSpec]] = {}
    priors_where = root.child("priors")
    priors_table = _expect_table(document.get("priors", {}), priors_where)
    _check_keys(priors_table, PRIOR_MODELS, (), priors_where)
    for model, specs in priors_table.items():
        model_where = priors_where.child(model)
        priors[model] = {}
        for key, table in _expect_table(specs, model_where).items():
            where = model_where.child(key)
            _expect_name(key, where, IDENTIFIER_PATTERN, "prior name")
            priors[model][key] = _parse_spec(f"{model}.{key}", table, where, require_meta=False)

    theses: dict[str, tuple[ThesisSpec, _Where]] = {}
    theses_where = root.child("theses")
    for thesis_name, table in _expect_table(document.get("theses", {}), theses_where).items():
        where = theses_where.child(thesis_name)
        _expect_name(thesis_name, where, IDENTIFIER_PATTERN, "thesis name")
        theses[thesis_name] = (_parse_thesis(thesis_name, table, where), where)

    return _Layer(
        path=path,
        where=root,
        name=name,
        extends=extends,
        metadata=metadata,
        inputs=inputs,
        chip_prices=chip_prices,
        correlations=correlations,
        priors=priors,
        theses=theses,
    )


def _resolve_name(name: str, directory: Path, where: _Where) -> Path:
    """Map a scenario name to ``directory/<name>.toml``, refusing anything outside it."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise where.error(
            f"{name!r} is not a scenario name (letters, digits, '_' and '-' only); "
            "load a file by path with load_scenario_file() or `scenarios validate FILE`"
        )
    base = directory.resolve()
    candidate = (base / f"{name}.toml").resolve()
    # resolve() follows symlinks, so a link pointing elsewhere is caught here too.
    if not candidate.is_relative_to(base):
        raise where.error(f"scenario {name!r} resolves outside {_display(base)}")
    if not candidate.is_file():
        available = ", ".join(sorted(p.stem for p in base.glob("*.toml"))) or "none"
        raise where.error(
            f"no scenario named {name!r} in {_display(base)} (available: {available})"
        )
    return candidate


def _load_chain(path: Path) -> list[_Layer]:
    """Parse a file and every ancestor it extends, leaf first; detect cycles."""
    layers = [_parse_layer(path)]
    seen = [path.resolve()]
    while layers[-1].extends is not None:
        child = layers[-1]
        where = child.where.child("scenario").child("extends")
        parent_path = _resolve_name(child.extends, child.path.parent, where)
        if parent_path in seen:
            names = [layer.name for layer in layers] + [parent_path.stem]
            raise where.error(f"cyclic extends: {' -> '.join(names)}")
        if len(layers) >= _MAX_EXTENDS_DEPTH:
            raise where.error(f"extends chain deeper than {_MAX_EXTENDS_DEPTH} files")
        seen.append(parent_path)
        layers.append(_parse_layer(parent_path))
    return layers


def _merge(layers: list[_Layer]) -> Scenario:
    """Merge a chain (leaf first) root to leaf, then check cross-references."""
    leaf = layers[0]
    metadata: dict[str, Any] = {}
    inputs: dict[str, InputSpec] = {}
    chip_prices: dict[str, tuple[str, _Where]] = {}
    correlations: dict[tuple[str, str], tuple[float, _Where]] = {}
    priors: dict[str, dict[str, InputSpec]] = {}
    theses: dict[str, tuple[ThesisSpec, _Where]] = {}
    for layer in reversed(layers):
        metadata.update(layer.metadata)
        inputs.update(layer.inputs)
        chip_prices.update(layer.chip_prices)
        correlations.update(layer.correlations)
        for model, specs in layer.priors.items():
            priors.setdefault(model, {}).update(specs)
        theses.update(layer.theses)

    meta_where = leaf.where.child("scenario")
    for key in _REQUIRED_METADATA:
        if key not in metadata:
            raise meta_where.child(key).error(
                "required key missing (set it here or in a scenario this one extends)"
            )

    for chip, (target, where) in chip_prices.items():
        if target not in inputs:
            raise where.error(f"unknown input {target!r} for chip {chip!r}")
        if inputs[target].is_quarter:
            raise where.error(f"input {target!r} is a launch quarter, not a price")

    for (first, second), (_, where) in correlations.items():
        for name in (first, second):
            if name not in inputs:
                raise where.error(f"unknown input {name!r}")
            if inputs[name].is_fixed:
                raise where.error(f"input {name!r} is fixed; a constant cannot be correlated")

    # Zero correlations carry no information; dropping them keeps the copula small.
    active = {pair: rho for pair, (rho, _) in correlations.items() if rho != 0.0}
    involved = {name for pair in active for name in pair}
    names = tuple(name for name in inputs if name in involved)
    spearman = np.eye(len(names))
    position = {name: i for i, name in enumerate(names)}
    for (first, second), rho in active.items():
        i, j = position[first], position[second]
        spearman[i, j] = spearman[j, i] = rho
    if names:
        pearson = spearman_to_pearson(spearman)
        np.fill_diagonal(pearson, 1.0)
        smallest = float(np.linalg.eigvalsh(pearson).min())
        if smallest < _PSD_TOLERANCE:
            raise leaf.where.child("correlations").error(
                "the implied correlation matrix is not positive semi-definite "
                f"(smallest eigenvalue {smallest:.3g}); the requested rank correlations "
                "contradict each other, reduce some |rho|"
            )
    spearman.setflags(write=False)

    horizon = metadata["horizon"]
    for thesis, where in theses.values():
        if thesis.last_quarter > horizon * 4 + 3:
            raise where.child("period").error(
                f"{thesis.period} ends after the scenario horizon {horizon}"
            )

    return Scenario(
        name=leaf.name,
        description=metadata["description"],
        horizon=horizon,
        draws=metadata["draws"],
        seed=metadata["seed"],
        inputs=inputs,
        correlations={pair: rho for pair, (rho, _) in correlations.items()},
        correlation_names=names,
        correlation_matrix=spearman,
        chip_prices={chip: target for chip, (target, _) in chip_prices.items()},
        priors=priors,
        theses={name: thesis for name, (thesis, _) in theses.items()},
        path=leaf.path,
        extends=leaf.extends,
        lineage=tuple(layer.name for layer in layers[1:]),
    )


def load_scenario(name_or_path: str, scenarios_dir: Path | None = None) -> Scenario:
    """Load a scenario by name from the scenarios directory.

    Parameters
    ----------
    name_or_path : str
        A scenario name (``[A-Za-z0-9_-]+``), e.g. ``"bull"``. Paths are refused here so a
        name can never reach outside the directory; use :func:`load_scenario_file` for a file.
    scenarios_dir : pathlib.Path, optional
        Directory of scenario files (default: the project's ``scenarios/``).

    Returns
    -------
    Scenario
        The validated scenario with its ``extends`` chain merged.

    Raises
    ------
    ScenarioError
        If the name is not a plain name, resolves outside the directory, does not exist, or
        the file (or one it extends) is invalid.
    """
    directory = Path(scenarios_dir) if scenarios_dir is not None else DEFAULT_SCENARIOS_DIR
    where = _Where(_display(directory))
    if not isinstance(name_or_path, str):
        raise where.error(
            f"{str(name_or_path)!r} is not a scenario name; "
            "load a file by path with load_scenario_file()"
        )
    if not directory.is_dir():
        raise where.error("scenarios directory not found")
    return _merge(_load_chain(_resolve_name(name_or_path, directory, where)))


def load_scenario_file(path: str | Path) -> Scenario:
    """Load a scenario from an explicit file path (``scenarios validate FILE``).

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.toml`` file; its ``extends`` names resolve in the file's own directory.

    Returns
    -------
    Scenario
        The validated scenario with its ``extends`` chain merged.

    Raises
    ------
    ScenarioError
        If the file is missing or invalid.
    """
    path = Path(path)
    where = _Where(_display(path))
    if path.suffix != ".toml":
        raise where.error("a scenario file must have the .toml suffix")
    if not path.is_file():
        raise where.error("no such file")
    if not NAME_PATTERN.match(path.stem):
        raise where.error(f"file stem {path.stem!r} is not a scenario name ([A-Za-z0-9_-]+)")
    return _merge(_load_chain(path.resolve()))


def scenario_names(scenarios_dir: Path | None = None) -> list[str]:
    """Names of the scenario files in a directory, sorted (files are not validated).

    Parameters
    ----------
    scenarios_dir : pathlib.Path, optional
        Directory of scenario files (default: the project's ``scenarios/``).

    Returns
    -------
    list of str
    """
    directory = Path(scenarios_dir) if scenarios_dir is not None else DEFAULT_SCENARIOS_DIR
    if not directory.is_dir():
        raise ScenarioError(f"{_display(directory)}: scenarios directory not found")
    return sorted(p.stem for p in directory.glob("*.toml") if NAME_PATTERN.match(p.stem))


def list_scenarios(scenarios_dir: Path | None = None) -> list[Scenario]:
    """Load every scenario of a directory, sorted by name.

    Parameters
    ----------
    scenarios_dir : pathlib.Path, optional
        Directory of scenario files (default: the project's ``scenarios/``).

    Returns
    -------
    list of Scenario

    Raises
    ------
    ScenarioError
        On the first invalid file (the message names it).
    """
    directory = Path(scenarios_dir) if scenarios_dir is not None else DEFAULT_SCENARIOS_DIR
    return [load_scenario(name, directory) for name in scenario_names(directory)]
