"""Frequentist baselines on one revenue series, behind one forecast interface.

Each baseline works on log revenue and has ``fit(series) -> fitted`` where the fitted object
has ``forecast(quarters, draws, seed) -> ndarray (draws, quarters)`` of sample paths in the
series' units (exponentiated back). They are what the Bayesian spend model must beat in the
backtest (docs/DESIGN.md section 4, M3):

- :class:`RandomWalkDrift`: log revenue is a random walk with drift; the drift's estimation
  error is added to the paths (its standard error is sd / sqrt(n)).
- :class:`ETSBaseline`: statsmodels ``ETSModel`` with additive error and a damped additive
  trend; paths from ``ETSResults.simulate``. Fitted from two initialisations (estimated and
  heuristic) and the better likelihood kept: on short series with a break the estimated start
  often stops at a poor optimum.
- :class:`UCBaseline`: statsmodels ``UnobservedComponents`` local linear trend; paths from
  ``simulate(anchor="end")``.

statsmodels is imported inside ``fit`` only.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError


def _log_values(series: pd.Series | np.ndarray | list[float], minimum: int) -> np.ndarray:
    values = np.asarray(series, dtype=float)
    if values.ndim != 1 or len(values) < minimum:
        raise ForecastError(f"baseline needs a 1-d series of at least {minimum} values, "
                            f"got {values.shape}")
    if np.any(~np.isfinite(values)) or np.any(values <= 0):
        raise ForecastError("baseline needs positive, finite values (it models log revenue)")
    return np.log(values)


def _check(quarters: int, draws: int) -> None:
    if quarters < 1 or draws < 1:
        raise ForecastError("quarters and draws must be at least 1")


# --------------------------------------------------------------------------- random walk


@dataclass
class FittedRandomWalkDrift:
    """Random walk with drift on log revenue: last value, drift, step sd, n steps."""

    last: float
    drift: float
    sd: float
    n_steps: int
    name: str = "rw_drift"

    def forecast(self, quarters: int, draws: int = 1000, seed: int = 0) -> np.ndarray:
        """Sample paths (draws, quarters) of the series (exponentiated log-level paths)."""
        _check(quarters, draws)
        rng = np.random.default_rng(seed)
        # Parameter uncertainty: one drift per path, N(drift, sd^2 / n).
        drift = self.drift + self.sd / np.sqrt(self.n_steps) * rng.standard_normal(draws)
        steps = drift[:, None] + self.sd * rng.standard_normal((draws, quarters))
        return np.exp(self.last + np.cumsum(steps, axis=1))


class RandomWalkDrift:
    """Random walk with drift on log revenue (the naive benchmark)."""

    name = "rw_drift"

    def fit(self, series: pd.Series | np.ndarray | list[float]) -> FittedRandomWalkDrift:
        """Fit to positive values in time order (at least three)."""
        logs = _log_values(series, 3)
        diffs = np.diff(logs)
        return FittedRandomWalkDrift(last=float(logs[-1]), drift=float(diffs.mean()),
                                     sd=float(diffs.std(ddof=1)), n_steps=len(diffs))


# --------------------------------------------------------------------------- statsmodels


@dataclass
class FittedStatsmodels:
    """A fitted statsmodels state-space/ETS result on log revenue."""

    result: Any
    name: str

    def forecast(self, quarters: int, draws: int = 1000, seed: int = 0) -> np.ndarray:
        """Sample paths (draws, quarters) simulated from the end of the sample."""
        _check(quarters, draws)
        rng = np.random.default_rng(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = self.result.simulate(nsimulations=quarters, repetitions=draws,
                                       anchor="end", rng=rng)
        paths = np.asarray(sim, dtype=float).reshape(quarters, draws).T
        return np.exp(paths)

    def summary(self) -> Any:
        """The statsmodels results summary."""
        return self.result.summary()


class ETSBaseline:
    """ETS(A, Ad, N) on log revenue: additive error, damped additive trend, no season."""

    name = "ets"

    def fit(self, series: pd.Series | np.ndarray | list[float]) -> FittedStatsmodels:
        """Fit by maximum likelihood (best of two initialisations); at least 6 values."""
        from statsmodels.tsa.exponential_smoothing.ets import ETSModel

        logs = _log_values(series, 6)
        best = None
        # The heuristic initialisation needs ten values.
        methods = ("estimated", "heuristic") if len(logs) >= 10 else ("estimated",)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for method in methods:
                try:
                    result = ETSModel(logs, error="add", trend="add", damped_trend=True,
                                      initialization_method=method).fit(disp=False)
                except (ValueError, np.linalg.LinAlgError):
                    continue
                if best is None or result.llf > best.llf:
                    best = result
        if best is None:
            raise ForecastError("ETS baseline: every fit failed")
        return FittedStatsmodels(best, self.name)


class UCBaseline:
    """Unobserved components, local linear trend, on log revenue."""

    name = "uc"

    def fit(self, series: pd.Series | np.ndarray | list[float]) -> FittedStatsmodels:
        """Fit by maximum likelihood; at least 6 values."""
        from statsmodels.tsa.statespace.structural import UnobservedComponents

        logs = _log_values(series, 6)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = UnobservedComponents(logs, level="local linear trend").fit(disp=False)
        return FittedStatsmodels(result, self.name)


#: The baselines by name, as the backtest uses them.
BASELINES: dict[str, Any] = {
    "rw_drift": RandomWalkDrift,
    "ets": ETSBaseline,
    "uc": UCBaseline,
}
