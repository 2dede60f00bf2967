"""Input distributions: their specification, quantiles, CDF, mean and batched inverse CDF.

An :class:`InputSpec` is one uncertain quantity of a scenario (or one prior override): a
distribution from :data:`~forecast.scenarios.parameters.DISTRIBUTIONS` with validated
parameters, a unit and a rationale. Sampling turns the copula's standard normal scores into
values (:meth:`InputSpec.at_normal`, or :func:`inputs_at_normals` for many inputs at once),
through the inverse CDF (:meth:`InputSpec.ppf`) at ``ndtr(z)`` where it has no form in ``z``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from forecast.core.calendar import quarter_index, quarter_label

# Not scipy: importing scipy.special, and scipy.stats even more, would take a large part of a
# warm forecast's time budget. The functions sampling needs are in
# forecast.core.special (numpy); scipy.stats is imported on demand for the distributions only
# prior overrides use and for Latin hypercube sampling.
from forecast.core.special import betainc, betaincinv, ndtr, ndtri, truncnorm_ppf
from forecast.scenarios.locations import Where, check_keys, expect_str, expect_table, fmt
from forecast.scenarios.parameters import DISTRIBUTIONS, check_dist_params

#: Distributions evaluated through a frozen scipy distribution rather than a closed form.
_SCIPY_DISTS = ("truncnormal", "halfnormal", "gamma", "exponential", "studentt")
#: Of those, the ones whose inverse CDF comes from :mod:`forecast.core.special` instead, so that
#: sampling a scenario never imports scipy.
_SPECIAL_PPF = ("truncnormal",)
#: Keys describing a distribution for people; scenario inputs must have both.
_META_KEYS = ("unit", "rationale")


def parse_spec(name: str, table: Any, where: Where, *, require_meta: bool) -> InputSpec:
    """Validate one distribution table (an input or a prior) and build its :class:`InputSpec`.

    Parameters
    ----------
    name : str
        Name given to the spec.
    table : Any
        The value found in the file (checked to be a table).
    where : Where
        Location of the table, for error messages.
    require_meta : bool
        Require ``unit`` and ``rationale`` (as scenario inputs must).

    Returns
    -------
    InputSpec

    Raises
    ------
    ScenarioError
        On an unknown distribution, an unknown or missing key, or an impossible parameter.
    """
    table = expect_table(table, where)
    if "dist" not in table:
        raise where.child("dist").error("required key missing")
    dist_value = table["dist"]
    if not isinstance(dist_value, str) or dist_value.lower() not in DISTRIBUTIONS:
        raise where.child("dist").error(
            f"unknown distribution {fmt(dist_value)} (known: {', '.join(DISTRIBUTIONS)})"
        )
    dist = dist_value.lower()
    required, optional = DISTRIBUTIONS[dist]
    allowed = ("dist", *required, *optional, *_META_KEYS)
    needed = (*required, *_META_KEYS) if require_meta else required
    check_keys(table, allowed, needed, where)
    params = check_dist_params(dist, table, where)
    unit = expect_str(table["unit"], where.child("unit")) if "unit" in table else None
    rationale = (
        expect_str(table["rationale"], where.child("rationale")) if "rationale" in table else None
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
        return parse_spec(name, dict(spec), Where(source, name), require_meta=require_meta)

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
    def _quarter_scores(self) -> tuple[np.ndarray, np.ndarray]:
        """The quarter table with its cumulative probabilities as standard normal scores:
        ``ndtr(z) < c`` when ``z < ndtri(c)`` (up to the rounding of either, at a boundary no
        draw lands on), so a score needs no ``ndtr``."""
        indices, cumulative = self._quarter_table
        return indices, ndtri(cumulative)

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

    def at_normal(self, z: np.ndarray) -> np.ndarray:
        """The input at standard normal scores ``z``: ``ppf(ndtr(z))``.

        Normal and lognormal inputs, launch quarters and constants are functions of ``z``
        itself, so they skip the round trip through probabilities (the same values up to
        its rounding); the others go through :meth:`ppf`.
        """
        p = self.params
        match self.dist:
            case "normal":
                return p["mu"] + p["sigma"] * z
            case "lognormal":
                return p["median"] * np.exp(p["sigma"] * z)
            case "fixed":
                return np.full(np.shape(z), p["value"], dtype=float)
            case "quarter":
                indices, scores = self._quarter_scores
                position = np.searchsorted(scores, z, side="right")
                return indices[np.clip(position, 0, len(indices) - 1)]
        return self.ppf(ndtr(z))

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
            case "normal" | "lognormal":
                return self.at_normal(ndtri(u))
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
                # exp overflows a float past 709.78: such a mean is infinite, not an error.
                exponent = p["sigma"] ** 2 / 2.0
                return p["median"] * math.exp(exponent) if exponent < 709.0 else math.inf
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


def beta_quantiles(specs: Sequence[InputSpec], probabilities: np.ndarray) -> np.ndarray:
    """``specs[i].ppf(probabilities[i])`` for beta and PERT inputs, the same values, in one
    :func:`~forecast.core.special.betaincinv` call: a value does not depend on what else is
    in the call, and one call costs less than one per input.

    Parameters
    ----------
    specs : sequence of InputSpec
        Beta and PERT inputs (each with a :attr:`InputSpec.beta_form`).
    probabilities : numpy.ndarray
        ``(len(specs), m)`` probabilities.

    Returns
    -------
    numpy.ndarray
        ``(len(specs), m)`` quantiles.
    """
    forms = np.array([spec.beta_form for spec in specs], dtype=float).reshape(-1, 4)
    m = probabilities.shape[1]
    quantiles = betaincinv(np.repeat(forms[:, 0], m), np.repeat(forms[:, 1], m),
                           probabilities.ravel()).reshape(len(specs), m)
    return forms[:, 2:3] + forms[:, 3:4] * quantiles


def inputs_at_normals(specs: Sequence[InputSpec], normals: np.ndarray) -> list[np.ndarray]:
    """``specs[j].at_normal(normals[:, j])`` for every column ``j``, the same values.

    The beta and PERT columns go through one :func:`~forecast.core.special.ndtr` call and
    :func:`beta_quantiles`.
    """
    columns: list[np.ndarray | None] = [None] * len(specs)
    family = [j for j, spec in enumerate(specs) if spec.beta_form is not None]
    if family:
        quantiles = beta_quantiles([specs[j] for j in family], ndtr(normals[:, family].T))
        for row, j in enumerate(family):
            columns[j] = quantiles[row]
    for j, spec in enumerate(specs):
        if columns[j] is None:
            columns[j] = spec.at_normal(normals[:, j])
    return columns
