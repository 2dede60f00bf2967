"""The spend backtest's forecasters: the Bayesian spend model refitted at each cut-off, with
M6's bound and without it, and any baseline of :mod:`forecast.evaluation.baselines`.

A forecaster is a callable ``(dataset_as_of, series_names, quarters, draws, seed) ->
{series: ndarray (draws, quarters)}`` of sample paths of each series' next ``quarters`` fiscal
quarters after its last observation in ``dataset_as_of``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from forecast.core.calendar import quarters_from
from forecast.core.errors import ForecastError
from forecast.economics.bounds import tightest_bound
from forecast.models.spend.evidence import observed_series
from forecast.models.spend.model import SpendModel

#: Key of a :class:`SeriesPaths` ``info`` holding the same fit's paths without M6's bound.
UNBOUNDED_PATHS = "unbounded_paths"
#: Key of the info holding the same fit's paths with the rivals' positions held.
HELD_PATHS = "held_paths"


class SeriesPaths(dict):
    """Paths per series (a plain dict to its callers) with the fit's diagnostics in ``info``."""

    info: dict[str, Any]


class BaselineForecaster:
    """Adapter: fit a baseline on each series' history (as of the cut-off) and simulate."""

    def __init__(self, baseline: Any):
        self.baseline = baseline

    def __call__(self, dataset: Any, series: Sequence[str], quarters: int, draws: int,
                 seed: int) -> dict[str, np.ndarray]:
        paths = {}
        for name in series:
            history = observed_series(dataset, name)
            try:
                fitted = self.baseline.fit(history["value"].to_numpy())
            except ForecastError:
                continue  # too short a history at this origin: not scored there
            paths[name] = fitted.forecast(quarters, draws=draws, seed=seed)
        return paths


#: Fits kept inside :func:`shared_fits`: (as-of date, scenario, sampler, seed) -> fitted model.
_SHARED_FITS: dict[tuple[str, str, str, int], Any] | None = None


@contextlib.contextmanager
def shared_fits() -> Iterator[None]:
    """Within this block a :class:`SpendForecaster` fits each cut-off once per scenario,
    sampler and seed: the spend and share backtests of one process share their fits (the
    fits are seeded, so a shared fit is the fit either backtest would make). A block inside
    another shares the outer one's fits."""
    global _SHARED_FITS
    previous = _SHARED_FITS
    if previous is None:
        _SHARED_FITS = {}
    try:
        yield
    finally:
        _SHARED_FITS = previous


class SpendForecaster:
    """Adapter: fit the spend model on the cut data, forecast each reported series.

    The model's cost basis is the ``scenario``'s (base by default): its MFU and TCO inputs
    and readings of Amazon's statements. The TAM's growth fades against M6's tightest bound,
    from the scenario's input draws, as in a forecast; with ``unbounded_twin`` the same
    fit's paths without the bound, on the same random numbers, are in
    ``info[UNBOUNDED_PATHS]``; with ``held_twin`` its paths with the rivals' positions held
    where their reports left them (the baseline a forecast's stack mixes in) in
    ``info[HELD_PATHS]``. Returns a
    :class:`SeriesPaths` whose ``info`` holds the fit's diagnostics (cut-off date,
    convergence, ``fit_seconds``).
    """

    def __init__(self, scenario: Any = None, unbounded_twin: bool = False,
                 held_twin: bool = False, **sampler: Any):
        # The model's own default sampler: a light sampler would score a different model.
        self.scenario = scenario
        self.unbounded_twin = unbounded_twin
        self.held_twin = held_twin
        self.sampler = dict(sampler)

    def __call__(self, dataset: Any, series: Sequence[str], quarters: int, draws: int,
                 seed: int) -> SeriesPaths:
        from forecast.scenarios import load_scenario

        scenario = self.scenario or load_scenario("base")
        key = (str(dataset.as_of_date), scenario.name, repr(sorted(self.sampler.items())), seed)
        fitted = None if _SHARED_FITS is None else _SHARED_FITS.get(key)
        if fitted is None:
            model = SpendModel.from_scenario(scenario)
            fitted = model.fit_dataset(dataset, scenario, random_seed=seed, **self.sampler)
            if _SHARED_FITS is not None:
                _SHARED_FITS[key] = fitted
        names = [name for name in series if name in fitted.series_names()]
        # A fiscal quarter can end up to two calendar quarters after the window's last.
        labels = quarters_from(fitted.window[-1], quarters + 3)[1:]
        bound = tightest_bound(scenario.sample(draws, seed=seed), labels)
        paths = SeriesPaths({name: fitted.series_paths(name, quarters, draws=draws, seed=seed,
                                                       bound=bound)[1] for name in names})
        paths.info = {"as_of": str(dataset.as_of_date), **fitted.diagnostics(),
                      "fit_seconds": fitted.meta.get("fit_seconds")}
        if self.unbounded_twin:
            paths.info[UNBOUNDED_PATHS] = {
                name: fitted.series_paths(name, quarters, draws=draws, seed=seed)[1]
                for name in names}
        if self.held_twin:
            held = np.ones(draws, dtype=bool)
            paths.info[HELD_PATHS] = {
                name: fitted.series_paths(name, quarters, draws=draws, seed=seed, bound=bound,
                                          held=held)[1] for name in names}
        return paths
