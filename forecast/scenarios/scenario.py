"""The :class:`Scenario`: a validated, merged scenario, and its joint sampling.

A scenario is a TOML file in ``scenarios/`` naming the assumptions a forecast runs under (see
:mod:`forecast.scenarios`). Files are read by :mod:`forecast.scenarios.loading`; this module
holds the result: the inputs, correlations, priors, readings, settings and theses, with joint
sampling of the inputs (:meth:`Scenario.sample`) and their presentation.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ScenarioError
from forecast.scenarios.copula import SAMPLING_METHODS, copula_matrix, correlated_normals
from forecast.scenarios.distributions import InputSpec, inputs_at_normals
from forecast.scenarios.locations import Where, display
from forecast.scenarios.readings import Reading, Setting
from forecast.scenarios.roadmap import Generation
from forecast.scenarios.theses import ThesisSpec

__all__ = ["Scenario"]


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
    roadmap : tuple of Generation
        Announced chip generations beyond the catalogue, every predecessor before its
        successors (:mod:`forecast.scenarios.roadmap`).
    price_erosion : dict of str to str
        Vendor group -> input giving the yearly fall of its chips' prices.
    priors : dict of str to dict of str to InputSpec
        Model name -> parameter -> prior distribution.
    theses : dict of str to ThesisSpec
        Theses by name.
    readings : dict of str to Reading
        How statements are read (``[readings]``): a phrase, or ``stated_number``, -> bounds.
    settings : dict of str to Setting
        Values the forecast reads as they are (``[settings]``), e.g.
        ``new_chip_ramp_quarters``; see :meth:`setting`.
    path : pathlib.Path
        The scenario file.
    extends : str or None
        Name of the direct parent scenario.
    lineage : tuple of str
        Every ancestor, nearest first.
    sources : dict of str to str
        The file (as shown to people) of the chain that set each input, chip price and
        roadmap generation, by key path (``inputs.mfu_aws``, ``chip_prices.Trainium3``,
        ``roadmap.aws.Trainium4``): where :meth:`error` locates a problem with it.
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
    roadmap: tuple[Generation, ...] = ()
    price_erosion: dict[str, str] = field(default_factory=dict)
    priors: dict[str, dict[str, InputSpec]] = field(default_factory=dict)
    theses: dict[str, ThesisSpec] = field(default_factory=dict)
    readings: dict[str, Reading] = field(default_factory=dict)
    settings: dict[str, Setting] = field(default_factory=dict)
    path: Path = field(default=Path(), compare=False)
    extends: str | None = None
    lineage: tuple[str, ...] = ()
    sources: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

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
        return copula_matrix(self.correlation_matrix)

    def error(self, *keys: str | int, message: str) -> ScenarioError:
        """A one-line :class:`ScenarioError` at the key path ``keys`` (``"inputs",
        "mfu_aws"``) of the file of the chain that set it (:attr:`sources`; the scenario's
        own file for what no file of the chain set alone)."""
        source = self.sources.get(".".join(str(key) for key in keys[:3]))
        source = source or self.sources.get(".".join(str(key) for key in keys[:2]))
        where = Where(source or display(self.path))
        for key in keys:
            where = where.child(key)
        return where.error(message)

    def prior(self, model: str, key: str) -> InputSpec | None:
        """The scenario's prior override for ``model.key``, or None if it sets none."""
        return self.priors.get(model, {}).get(key)

    def setting(self, name: str) -> int:
        """The value of the ``[settings.<name>]`` table.

        Raises
        ------
        ScenarioError
            If the scenario (and every scenario it extends) sets no such setting.
        """
        if name not in self.settings:
            raise ScenarioError(f"{display(self.path)}: settings: {name}: not set (set it "
                                "here or in a scenario this one extends)")
        return self.settings[name].value

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
        normals = correlated_normals(
            n, len(names), columns, self.correlation_pearson, rng, method
        )
        specs = [self.inputs[name] for name in names]
        frame = pd.DataFrame(dict(zip(names, inputs_at_normals(specs, normals), strict=True)),
                             columns=names)
        frame.index.name = "draw"
        return frame

    # ---------------------------------------------------------------- presentation

    def to_table(self) -> pd.DataFrame:
        """One row per input in the quantile schema (:mod:`forecast.core.quantile_schema`),
        then its distribution, readable parameters, mean, summary and rationale.

        Returns
        -------
        pandas.DataFrame
            Columns ``metric`` (the input), ``period`` and ``key`` (empty), ``q10, q50, q90``,
            ``unit``, ``dist, params, mean, summary, rationale``. Quantiles are numeric
            (quarter indices for quarter inputs); ``summary`` is the readable
            ``median [p10, p90]`` with quarter labels where relevant.
        """
        rows = []
        for name, spec in self.inputs.items():
            q10, q50, q90 = spec.quantile(np.array([0.1, 0.5, 0.9]))
            rows.append({
                "metric": name, "period": "", "key": "",
                "q10": float(q10), "q50": float(q50), "q90": float(q90),
                "unit": spec.unit, "dist": spec.dist, "params": spec.params_text(),
                "mean": float(spec.mean()),
                "summary": f"{spec.format_value(q50)} "
                f"[{spec.format_value(q10)}, {spec.format_value(q90)}]",
                "rationale": spec.rationale,
            })
        return pd.DataFrame(rows)

    def settings_table(self) -> pd.DataFrame:
        """One row per reading and setting (the fixed, not sampled, assumptions).

        Returns
        -------
        pandas.DataFrame
            Columns ``kind`` (``reading`` or ``setting``), ``name``, ``summary`` (the value
            with its unit), ``unit`` and ``rationale``.
        """
        rows = [{"kind": "reading", "name": name, "summary": reading.summary(),
                 "unit": reading.unit, "rationale": reading.rationale}
                for name, reading in self.readings.items()]
        rows += [{"kind": "setting", "name": name, "summary": setting.summary(),
                  "unit": setting.unit, "rationale": setting.rationale}
                 for name, setting in self.settings.items()]
        return pd.DataFrame(rows, columns=["kind", "name", "summary", "unit", "rationale"])

    def cost_tables(self) -> dict[str, Any]:
        """The tables the cost paths read (``chip_prices``, ``roadmap``, ``price_erosion``),
        as keyword arguments of :func:`forecast.economics.cost_paths.scenario_costs`."""
        return {"chip_prices": self.chip_prices, "roadmap": self.roadmap,
                "price_erosion": self.price_erosion}

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
            "roadmap": [generation.to_dict() for generation in self.roadmap],
            "price_erosion": dict(self.price_erosion),
            "priors": {
                model: {key: spec.to_dict() for key, spec in specs.items()}
                for model, specs in self.priors.items()
            },
            "theses": {name: thesis.to_dict() for name, thesis in self.theses.items()},
            "readings": {name: reading.to_dict() for name, reading in self.readings.items()},
            "settings": {name: setting.to_dict() for name, setting in self.settings.items()},
        }

    def digest(self) -> str:
        """SHA-256 of :meth:`to_dict` (stable across runs), to tag fits and forecasts."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
