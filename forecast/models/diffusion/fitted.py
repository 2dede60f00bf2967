"""The fitted diffusion model: parameter table and forecasts of units per period.

Numpy, pandas and xarray only: forecasting from a stored fit never imports PyMC.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.core.quantile_schema import level_columns
from forecast.models.diffusion.data import period_labels
from forecast.models.diffusion.math import bass_adoptions, gbass_paths, norton_bass_adoptions
from forecast.models.fitted import Fitted

#: The unit of each diffusion parameter.
PARAMETER_UNITS = {"p": "per period", "q": "per period", "m": "units",
                   "beta": "per unit of the covariate"}


class FittedDiffusion(Fitted):
    """A fitted diffusion model: posterior of p, q, m (beta), diagnostics and forecasts."""

    model_name: ClassVar[str] = "diffusion"
    model_version: ClassVar[str] = "2"

    @property
    def kind(self) -> str:
        """``"bass"``, ``"gbass"`` or ``"norton-bass"``."""
        return str(self.meta["kind"])

    def parameters(self, interval: float = 0.9) -> pd.DataFrame:
        """Posterior median and central interval of p, q, m (per generation) and beta.

        Returns
        -------
        DataFrame in the quantile schema (:mod:`forecast.core.quantile_schema`): metric (p,
        q, m or beta), period (empty), key (the generation of a Norton-Bass m, else empty),
        the interval's lower level, q50, its upper level (``q5``, ``q50``, ``q95`` at 0.9),
        unit (p and q per period, m in units); then ``parameter``, the label ``m[a]``.
        """
        if not 0 < interval < 1:
            raise ForecastError(f"interval must be in (0, 1), got {interval}")
        tail = (1 - interval) / 2
        levels = (tail, 0.5, 1 - tail)
        names = level_columns(levels)
        rows = []
        generations = self.meta["generations"]
        for name in ["p", "q", "m"] + (["beta"] if self.kind == "gbass" else []):
            draws = self.stacked(name)
            columns = draws.reshape(len(draws), -1)
            keys = (list(generations) if name == "m" and self.kind == "norton-bass"
                    else [""])
            for key, values in zip(keys, columns.T, strict=True):
                quantiles = np.quantile(values, levels)
                rows.append({"metric": name, "period": "", "key": str(key),
                             **dict(zip(names, map(float, quantiles), strict=True)),
                             "unit": PARAMETER_UNITS[name],
                             "parameter": f"{name}[{key}]" if key else name})
        return pd.DataFrame(rows)

    def forecast(
        self,
        quarters: int,
        draws: int | None = None,
        seed: int = 0,
        covariate: Sequence[float] | np.ndarray | None = None,
        noise: bool = False,
    ) -> xr.Dataset:
        """Sample paths of units per period after the last fitted period (numpy only).

        Parameters
        ----------
        quarters
            Number of future periods h: the h periods after the last fitted one. A diffusion
            series keeps its own periods (quarters for a quarterly series, years or plain
            integers for a user's series), and the result is labelled in them.
        draws, seed
            Number of sample paths (default: one per posterior sample) and the random seed
            (posterior samples picked by :meth:`draw_index`).
        covariate
            ``gbass`` only: future covariate levels, one per future period; default holds the
            last level (x = 1, Bass-like continuation).
        noise
            Add the lognormal observation noise (the posterior predictive of a measured
            series). Off by default, as for every model: a forecast is of the quantity
            itself, the mean curve of each posterior sample.

        Returns
        -------
        Dataset with ``units`` (draw, period), plus a ``generation`` dim for Norton-Bass.
        """
        if isinstance(quarters, bool) or not isinstance(quarters, int | np.integer):
            raise ForecastError(f"quarters must be a whole number of periods, got {quarters!r}")
        draws = self.n_samples if draws is None else int(draws)
        if quarters <= 0 or draws <= 0:
            raise ForecastError(f"quarters and draws must be > 0, got {quarters} and {draws}")
        ahead = int(quarters)
        rng = np.random.default_rng(seed)
        pick = self.draw_index(draws, rng)
        p, q, sigma = (self.stacked(name, pick) for name in ("p", "q", "sigma"))
        m = self.stacked("m", pick)
        fitted = self.meta["launch_offset"] + self.meta["n_span"]
        horizon = fitted + ahead
        if self.kind == "bass":
            path = bass_adoptions(horizon, p, q, m)
        elif self.kind == "gbass":
            log_change = np.concatenate([self.data["covariate"]["log_change"].to_numpy(),
                                         self._future_log_change(ahead, covariate)])
            path = gbass_paths(log_change, p, q, m, self.stacked("beta", pick))
        else:
            path = norton_bass_adoptions(horizon, self.meta["launch_periods"], p, q, m)
        future = path[:, fitted:]
        if noise:
            shape = (draws, ahead) + future.shape[2:]
            scale = sigma.reshape((draws,) + (1,) * (len(shape) - 1))
            future = future * np.exp(scale * rng.standard_normal(shape))
        return self._units_dataset(future, ahead, noise)

    def _future_log_change(self, ahead: int, covariate: Any) -> np.ndarray:
        """Log changes of the covariate over the future periods (0: the last level held)."""
        if covariate is None:
            return np.zeros(ahead)
        levels = np.asarray(covariate, dtype=float)
        if levels.shape != (ahead,) or np.any(~(levels > 0)):
            raise ForecastError(f"covariate: need {ahead} positive future levels")
        return np.diff(np.log(levels), prepend=math.log(self.meta["covariate_last"]))

    def _units_dataset(self, future: np.ndarray, ahead: int, noise: bool) -> xr.Dataset:
        """Paths (draw, period[, generation]) labelled by the series' own periods."""
        n_span = self.meta["n_span"]
        labels = period_labels(self.meta["index_kind"], self.meta["freq"],
                               self.meta["first_label"], np.arange(n_span + 1,
                                                                   n_span + ahead + 1))
        dims: tuple[str, ...] = ("draw", "period")
        coords: dict[str, Any] = {"draw": np.arange(len(future)), "period": labels}
        if self.kind == "norton-bass":
            dims += ("generation",)
            coords["generation"] = list(self.meta["generations"])
        units = xr.DataArray(future, dims=dims, coords=coords, name="units")
        units.attrs.update(kind=self.kind, noise=str(noise))
        return xr.Dataset({"units": units})
