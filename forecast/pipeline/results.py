"""The ``Forecast`` object: joint sample paths and everything derived from them.

Paths are an xarray Dataset with dims ``draw`` x ``quarter`` (x ``vendor`` or ``chip``); each
quantile, probability and comparison is computed from them, so correlations across time and
vendors survive (a 2030 share and a 2030 TAM come from the same path). Numpy, pandas and
xarray only: nothing here imports PyMC.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.annual import annual_values
from forecast.core.errors import ForecastError
from forecast.core.presentation import UNITS
from forecast.core.quantile_schema import level_columns
from forecast.pipeline.theses import evaluate_theses

#: How quarters combine into a calendar year, per metric: flows (money, shipments) add up,
#: stocks (the fleet) and run rates take the fourth quarter's value, levels (shares, prices,
#: costs) average.
ANNUAL_AGGREGATE = {
    "tam": "sum",
    "tam_demand": "sum",
    "spend": "sum",
    "custom_silicon_spend": "sum",
    "aws_spend_at_cost": "sum",
    "aws_shipments": "sum",
    "aws_rental_revenue": "sum",
    "aws_merchant_value": "sum",
    "aws_fleet": "last",
    "aws_custom_chips_run_rate": "last",
    # Bounds are already USD billions a year: their annual value is the year's mean.
}
#: Metrics of the JSON summary, in order.
SUMMARY_METRICS = ("tam", "share", "spend", "aws_spend_at_cost", "aws_rental_revenue",
                   "aws_merchant_value", "aws_custom_chips_run_rate", "aws_shipments",
                   "aws_fleet", "custom_silicon_spend")


@dataclass
class Forecast:
    """Joint sample paths under one scenario, with quantiles, theses and exports.

    Attributes
    ----------
    data
        xarray Dataset of sample paths (dims draw, quarter and vendor or chip).
    scenario, fit_id, seed
        What produced the paths.
    theses_specs
        The scenario's thesis specifications (``forecast.scenarios.scenario.ThesisSpec``).
    history
        Observed values for fan charts: tidy (metric, quarter, vendor, value), may be empty.
    meta
        Horizon, data end, draws and the posterior's effective sample size.
    in_sample
        The fitted posterior of the in-sample quarters, path by path (dims draw, quarter and
        vendor; the metrics of
        :data:`~forecast.core.scenario_contract.IN_SAMPLE_METRICS`), or None. Only theses
        read it (a period the data have reached, or the ``change_from`` of a change); the
        quantile tables, charts and exports hold the forecast quarters only.
    """

    data: xr.Dataset
    scenario: str
    fit_id: str
    seed: int
    theses_specs: Sequence[Any] = ()
    history: pd.DataFrame = field(default_factory=pd.DataFrame)
    meta: dict[str, Any] = field(default_factory=dict)
    in_sample: xr.Dataset | None = None

    @property
    def draws(self) -> int:
        return int(self.data.sizes["draw"])

    @property
    def metrics(self) -> list[str]:
        return sorted(str(name) for name in self.data.data_vars)

    def paths(self, metric: str) -> xr.DataArray:
        """Sample paths of one metric."""
        if metric not in self.data:
            raise ForecastError(f"unknown metric {metric!r} (known: {', '.join(self.metrics)})")
        return self.data[metric]

    def history_for(self, metric: str, key: str | None = None) -> pd.DataFrame:
        """In-sample history of a metric (quarter, value), empty when there is none."""
        if self.history.empty:
            return pd.DataFrame(columns=["quarter", "value"])
        rows = self.history[(self.history["metric"] == metric)
                            & (self.history["key"] == (key or ""))]
        return rows[["quarter", "value"]].reset_index(drop=True)

    # ----------------------------------------------------------------- quantiles

    def annual(self, metric: str) -> xr.DataArray:
        """Calendar-year values per draw (sum, mean or fourth quarter, per metric;
        :func:`~forecast.core.annual.annual_values`), dims ``(period, draw, ...)``.

        Only years whose four quarters are all in the paths appear.
        """
        values = self.paths(metric)
        rest = [str(d) for d in values.dims if d not in ("draw", "quarter")]
        values = values.transpose("draw", "quarter", *rest)
        years, array = annual_values(values.values, [str(q) for q in values["quarter"].values],
                                     ANNUAL_AGGREGATE.get(metric, "mean"))
        if not years:
            raise ForecastError(f"{metric}: no complete calendar year in the forecast")
        coords = {"period": years, "draw": values["draw"].values,
                  **{d: values[d].values for d in rest}}
        return xr.DataArray(np.moveaxis(array, 1, 0), dims=("period", "draw", *rest),
                            coords=coords, name=values.name)

    def quantiles(self, metric: str, q: Sequence[float] = (0.1, 0.5, 0.9),
                  freq: str = "year") -> pd.DataFrame:
        """Tidy quantiles: columns metric, period, key (the vendor, chip or generation; empty
        for a metric without one), q10, q50, q90 (the levels ``q``) and unit.

        ``freq`` is "year" (calendar years, complete ones only) or "quarter". Quantiles skip
        NaN (a chip before its launch), interpolating linearly between order statistics.

        Computed in numpy on the path arrays, with the same arithmetic as
        ``self.annual(metric).quantile(q, dim="draw", skipna=True)`` (a test checks the two
        agree exactly), without the cost of going through xarray and a pandas pivot.
        """
        if freq not in ("year", "quarter"):
            raise ForecastError(f"freq must be 'year' or 'quarter', got {freq!r}")
        values = self.paths(metric)
        extras = [str(d) for d in values.dims if d not in ("draw", "quarter")]
        if len(extras) > 1:
            raise ForecastError(f"{metric}: quantiles take at most one dimension besides "
                                f"draw and quarter, got {', '.join(extras)}")
        extra = extras[0] if extras else None
        array = values.transpose("draw", "quarter", *extras).values
        labels = [str(label) for label in values["quarter"].values]
        if freq == "year":
            periods, array = annual_values(array, labels, ANNUAL_AGGREGATE.get(metric, "mean"))
            if not periods:
                raise ForecastError(f"{metric}: no complete calendar year in the forecast")
        else:
            periods = labels
        levels = list(q)
        names = level_columns(levels)
        with warnings.catch_warnings():
            # A chip not yet launched in any draw has no quantile: NaN, as xarray gives.
            warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
            quant = (np.nanquantile(array, levels, axis=0) if np.isnan(array).any()
                     else np.quantile(array, levels, axis=0))
        keys = [str(key) for key in values[extra].values] if extra else [""]
        columns: dict[str, Any] = {
            "metric": metric,
            "period": np.repeat(np.asarray(periods, dtype=object), len(keys)),
            "key": np.tile(np.asarray(keys, dtype=object), len(periods)),
        }
        for name, row in zip(names, quant, strict=True):
            columns[name] = row.reshape(-1)
        frame = pd.DataFrame(columns)
        frame["unit"] = UNITS.get(metric, "")
        return frame.sort_values(list(frame.columns[:3])).reset_index(drop=True)

    # ----------------------------------------------------------------- theses

    def theses(self) -> pd.DataFrame:
        """Probability, Monte Carlo standard error and metric quantiles of every thesis."""
        return evaluate_theses(self.data, self.theses_specs,
                               posterior_ess=self.meta.get("posterior_ess"),
                               history=self.in_sample)

    def compare(self, other: Forecast, metric: str = "tam",
                q: Sequence[float] = (0.1, 0.5, 0.9)) -> pd.DataFrame:
        """Annual quantiles of one metric for this and another forecast, side by side."""
        mine = self.quantiles(metric, q).assign(scenario=self.scenario)
        theirs = other.quantiles(metric, q).assign(scenario=other.scenario)
        return pd.concat([mine, theirs], ignore_index=True)

    # ----------------------------------------------------------------- exports

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary: provenance, annual quantiles of headline metrics, theses."""
        headline = [m for m in SUMMARY_METRICS if m in self.data]
        quantiles = pd.concat([self.quantiles(m)
                               for m in headline], ignore_index=True)
        theses = self.theses()
        return {
            "scenario": self.scenario,
            "fit_id": self.fit_id,
            "draws": self.draws,
            "seed": self.seed,
            "meta": self.meta,
            "quantiles": _json_records(quantiles),
            "theses": json.loads(theses.to_json(orient="records", double_precision=6)),
            "bounds_binding": _json_records(self.bounds_binding()),
        }

    def bounds_binding(self) -> pd.DataFrame:
        """How often each of M6's bounds binds, per calendar year: the share of paths in
        which, in the year's last quarter, the TAM the trend carries exceeds the bound and
        that bound is the tightest (``none``: no bound binds).

        Returns
        -------
        pandas.DataFrame
            year, bound (``funding``, ``power``, ``supply``, ``none``), share; empty without
            bound paths.
        """
        names = [m for m in ("bound_funding", "bound_power", "bound_supply") if m in self.data]
        if not names or "tam_demand" not in self.data:
            return pd.DataFrame(columns=["year", "bound", "share"])
        quarters = [str(q) for q in self.data["quarter"].values if str(q).endswith("Q4")]
        rows = []
        for quarter in quarters:
            bounds = np.stack([self.data[m].sel(quarter=quarter).values for m in names])
            demand = 4.0 * self.data["tam_demand"].sel(quarter=quarter).values
            which = np.argmin(bounds, axis=0)
            binds = demand > bounds.min(axis=0)
            for k, name in enumerate(names):
                rows.append({"year": int(quarter[:4]), "bound": name.removeprefix("bound_"),
                             "share": float(np.mean(binds & (which == k)))})
            rows.append({"year": int(quarter[:4]), "bound": "none",
                         "share": float(np.mean(~binds))})
        return pd.DataFrame(rows)

    def tidy_paths(self) -> pd.DataFrame:
        """Long table (metric, draw, quarter, vendor/chip, value) of every path."""
        frames = []
        for metric in self.metrics:
            frame = self.data[metric].to_dataframe(name="value").reset_index()
            key = next((str(d) for d in self.data[metric].dims
                        if d not in ("draw", "quarter")), None)
            frame["key"] = frame[key].astype(str) if key else ""
            if "quarter" not in frame:  # a per-draw quantity (a unit cost, a survival)
                frame["quarter"] = ""
            frames.append(frame[["draw", "quarter", "key", "value"]].assign(metric=metric))
        return pd.concat(frames, ignore_index=True)[["metric", "draw", "quarter", "key",
                                                      "value"]]

    def to_parquet(self, path: str | Path) -> Path:
        """Every path as one long Parquet table."""
        self.tidy_paths().to_parquet(path, index=False)
        return Path(path)

    def to_csv(self, path: str | Path, q: Sequence[float] = (0.1, 0.5, 0.9)) -> Path:
        """Annual quantiles of every metric as a tidy CSV."""
        frames = [self.quantiles(m, q)
                  for m in self.metrics if _has_complete_year(self.data[m])]
        pd.concat(frames, ignore_index=True).to_csv(path, index=False, float_format="%.6g")
        return Path(path)

    def to_netcdf(self, path: str | Path) -> Path:
        """The paths as NetCDF, with scenario, fit id and seed in the attributes."""
        data = self.data.copy()
        data.attrs.update(scenario=self.scenario, fit_id=self.fit_id, seed=self.seed)
        data.to_netcdf(path, engine="h5netcdf")
        return Path(path)


def _json_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``frame`` for JSON, numbers to 6 significant digits and NaN as None.

    Significant digits keep quantiles in order: a fixed number of decimals (``to_json``'s
    ``double_precision``) wrote 1e-13 as 0.0 next to 5e-16 (the chips a retired generation
    still ships).
    """
    def clean(value: Any) -> Any:
        if isinstance(value, float | np.floating):
            return float(f"{value:.6g}") if np.isfinite(value) else None
        return value

    return [{key: clean(value) for key, value in row.items()}
            for row in frame.to_dict("records")]


def _has_complete_year(values: xr.DataArray) -> bool:
    if "quarter" not in values.dims:  # per draw, not over time: no annual quantiles
        return False
    labels = {str(q) for q in values["quarter"].values}
    return any(all(f"{label[:4]}Q{k}" in labels for k in range(1, 5)) for label in labels)


def quantile_table(forecast: Forecast, metrics: Sequence[str],
                   years: Sequence[str] | None = None) -> pd.DataFrame:
    """Annual 10/50/90% of several metrics, optionally restricted to some years."""
    frames = [forecast.quantiles(metric)
              for metric in metrics if metric in forecast.data]
    table = pd.concat(frames, ignore_index=True)
    if years is not None:
        table = table[table["period"].isin([str(y) for y in years])]
    return table.reset_index(drop=True)


def check_paths(data: xr.Dataset) -> None:
    """Sanity of paths: shares on the simplex, money non-negative; raises on violation."""
    if "share" in data:
        total = data["share"].sum("vendor")
        if not np.allclose(total.values, 1.0, atol=1e-6):
            raise ForecastError("shares do not sum to 1 in every draw and quarter")
    for metric, how in ANNUAL_AGGREGATE.items():
        if metric in data and how == "sum" and (data[metric] < 0).any():
            raise ForecastError(f"{metric} has negative values")
