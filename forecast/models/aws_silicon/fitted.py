"""The fitted AWS silicon model: its history and forecasts from spend paths (numpy only).

Forecasting from a stored fit never imports PyMC.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.models.aws_silicon.paths import (
    PATH_PARAMETERS,
    PATH_UNITS,
    aws_silicon_paths,
    quarters_after,
)
from forecast.models.fitted import Fitted

#: Quantities of the history table, with their units.
HISTORY_UNITS: dict[str, str] = {
    "spend_at_cost": "USD billions per quarter",
    "shipments_total": "chips per quarter",
    "fleet_total": "chips in service at quarter end",
    "rental_revenue": "USD billions per quarter",
    "rental_run_rate": "USD billions per year",
    "merchant_equivalent_value": "USD billions per quarter",
}


class FittedAwsSilicon(Fitted):
    """A fitted AWS silicon model: the fleet's history and its three quantities' forecasts."""

    model_name: ClassVar[str] = "aws_silicon"
    model_version: ClassVar[str] = "1"

    @property
    def timeline(self) -> list[str]:
        """Calendar quarters of the fit (the spend frame's, from Trainium1's launch)."""
        return list(self.config["timeline"])

    @property
    def generations(self) -> pd.DataFrame:
        """generation, ramp_midpoint, fp8_dense_tflops of the fit."""
        return self.data["generations"].copy()

    def path_parameters(self, pick: np.ndarray | None = None) -> dict[str, Any]:
        """What :func:`~forecast.models.aws_silicon.paths.aws_silicon_paths` reads: the
        parameters (sample,), unit costs and the last quarter's fleet (sample, generation),
        the generations and the data end."""
        params: dict[str, Any] = {name: self.stacked(name, pick) for name in PATH_PARAMETERS}
        params["unit_cost"] = self.stacked("unit_cost", pick)
        params["fleet_end"] = self.stacked("fleet", pick)[:, :, -1]
        params["generations"] = self.generations
        params["data_end"] = self.timeline[-1]
        return params

    def history_samples(self) -> dict[str, np.ndarray]:
        """Posterior samples (sample, quarter) of the in-sample quantities of
        :data:`HISTORY_UNITS`."""
        revenue = self.stacked("rental_revenue")
        return {
            "spend_at_cost": np.exp(self.stacked("log_spend")),
            "shipments_total": self.stacked("shipments").sum(axis=1),
            "fleet_total": self.stacked("fleet").sum(axis=1),
            "rental_revenue": revenue, "rental_run_rate": 4.0 * revenue,
            "merchant_equivalent_value": self.stacked("merchant_equivalent_value"),
        }

    def history(self, quantiles: Sequence[float] = (0.05, 0.5, 0.95)) -> pd.DataFrame:
        """Posterior quantiles of the in-sample quantities: quantity, unit, quarter, p05 ..."""
        frames = []
        for name, values in self.history_samples().items():
            q = np.quantile(values, quantiles, axis=0)
            frame = pd.DataFrame({"quantity": name, "unit": HISTORY_UNITS[name],
                                  "quarter": self.timeline})
            for level, row in zip(quantiles, q, strict=True):
                frame[f"p{round(level * 100):02d}"] = row
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def forecast(self, quarters: Any, draws: int | None = None, seed: int = 0,
                 spend_paths: np.ndarray | None = None,
                 generations: pd.DataFrame | None = None, ceiling: Any = None,
                 **drivers: Any) -> xr.Dataset:
        """Joint paths of the fleet and its three quantities over given spend paths.

        Parameters
        ----------
        quarters
            Labels of the spend columns (consecutive, from the quarter after the data end), or
            their number, as every model's ``forecast`` takes it.
        draws
            Ignored beyond a check: the paths are as many as the spend paths' rows.
        seed
            Seeds the choice of posterior sample behind each path.
        spend_paths
            AWS accelerator spend at cost, USD bn per quarter (draw, quarter): required.
        generations, ceiling
            See :func:`~forecast.models.aws_silicon.paths.aws_silicon_paths`.

        Returns
        -------
        xarray.Dataset
            Every path of :data:`~forecast.models.aws_silicon.paths.PATH_UNITS` over (draw,
            quarter[, generation]), each with its ``unit`` attribute.
        """
        if spend_paths is None:
            raise ForecastError("aws_silicon: a forecast needs spend_paths (draw, quarter), "
                                "USD bn per quarter: the market model's AWS spend")
        spend = np.asarray(spend_paths, dtype=float)
        if draws is not None and draws != spend.shape[0]:
            raise ForecastError(f"aws_silicon: draws={draws} but {spend.shape[0]} spend paths")
        labels = (quarters_after(self.timeline[-1], quarters) if isinstance(quarters, int)
                  else [str(q) for q in quarters])
        paths = aws_silicon_paths(self, spend, labels, np.random.default_rng(seed),
                                  generations=generations, ceiling=ceiling)
        return paths_dataset(paths, labels)


def paths_dataset(paths: dict[str, np.ndarray], quarters: list[str]) -> xr.Dataset:
    """The paths of :func:`aws_silicon_paths` as an xarray Dataset with units."""
    gens = [str(g) for g in paths["generations"]]
    coords = {"draw": np.arange(paths["spend_at_cost"].shape[0]), "quarter": quarters,
              "generation": gens}
    data = {}
    for name, unit in PATH_UNITS.items():
        values = paths[name]
        if name == "unit_cost":
            dims: tuple[str, ...] = ("draw", "generation")
        elif name == "survival":
            dims = ("draw",)
        else:
            dims = ("draw", "quarter", "generation")[:values.ndim]
        data[name] = xr.DataArray(values, dims=dims, attrs={"unit": unit})
    result = xr.Dataset(data, coords=coords)
    result.attrs.update({"model": FittedAwsSilicon.model_name,
                         "model_version": FittedAwsSilicon.model_version})
    return result


def load_aws_silicon(path: Any) -> FittedAwsSilicon:
    """Load a fit saved by :meth:`FittedAwsSilicon.save` (numpy/xarray only)."""
    return FittedAwsSilicon.load(path)  # type: ignore[return-value]
