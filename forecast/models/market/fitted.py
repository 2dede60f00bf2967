"""The fitted market model: spend paths per vendor, observed-series forecasts, history.

Numpy, pandas and xarray only: forecasting from a stored fit never imports PyMC.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.annual import annual_values
from forecast.core.calendar import (
    fiscal_to_calendar_quarter,
    next_fiscal_labels,
    period_index,
    quarter_label,
    quarters_from,
)
from forecast.core.errors import ForecastError
from forecast.models.fitted import Fitted
from forecast.models.market.data import FORECAST_SERIES, LATENT_GROUPS, RATIO_GROUPS, VENDORS
from forecast.models.market.math import (
    SERIES_GROUP,
    SERIES_SIGMA,
    measurement_log_mean,
    vendor_log_shares,
)
from forecast.models.market.trend import (
    FilteredState,
    TrendParams,
    draw_shock_scales,
    sample_state,
    simulate_trend,
)

#: Units of the forecast variables.
SPEND_UNIT = "USD billions per quarter"


class FittedMarket(Fitted):
    """A fitted market model: latent spend paths, forecasts and per-series predictions."""

    model_name: ClassVar[str] = "market"
    model_version: ClassVar[str] = "4"

    @property
    def timeline(self) -> list[str]:
        """Calendar quarters of the fit (first NVIDIA observation to the last data quarter)."""
        return list(self.config["timeline"])

    # ----------------------------------------------------------------- simulation

    def _simulate(self, horizon: int, draws: int | None, seed: int
                  ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """(log spend per latent group, AMD CPU, sample index) over history + horizon.

        Shapes: (draws, group, n_history + horizon), (draws, n_history + horizon), (draws,).
        NVIDIA's compute spend continues the damped trend from a draw of its last state (the
        state of the quarter after the data when a guide was read there: that draw is the
        first forecast quarter); the shares continue their random walks and the total is
        NVIDIA over its share. Each future quarter draws its shock variance scale, shared by
        the trend and the custom group's walk (as in the fit; the nowcast quarter's scale is
        the posterior's). Random numbers, in order: the sample index, the state draw, the
        scales, the trend's shocks, the share walks' steps.
        """
        rng = np.random.default_rng(seed)
        pick = self.draw_index(draws, rng)
        n = len(self.timeline)
        log_hist = self.stacked("log_spend", pick)                  # (d, G, n)
        if horizon <= 0:
            return log_hist, self._cpu(pick, n), pick
        s = {name: self.stacked(name, pick) for name in (
            "growth_persistence", "growth_longrun", "sigma_level", "sigma_growth",
            "growth_init", "level_last", "growth_last", "state_var_level", "state_cov",
            "state_var_growth")}
        trend = TrendParams(s["growth_persistence"], s["growth_longrun"], s["sigma_level"],
                            s["sigma_growth"], s["growth_init"])
        state = FilteredState(s["level_last"], s["growth_last"], s["state_var_level"],
                              s["state_cov"], s["state_var_growth"], None)
        level, growth = sample_state(state, rng)
        scales = draw_shock_scales(rng, (len(pick), horizon))
        if self.config.get("nowcast"):
            scales[:, 0] = self.stacked("shock_scale_nowcast", pick)
            later = simulate_trend(level, growth, trend, horizon - 1, rng, scales[:, 1:])
            log_nv = np.concatenate([level[:, None], later], axis=1)
        else:
            log_nv = simulate_trend(level, growth, trend, horizon, rng, scales)
        eta_last = self.stacked("log_ratio", pick)[:, :, -1]         # (d, R)
        share_sigma = self.stacked("share_sigma", pick)               # (d, R)
        steps = share_sigma[:, :, None] * rng.standard_normal(
            (len(pick), len(RATIO_GROUPS), horizon))
        custom = RATIO_GROUPS.index("custom")
        steps[:, custom] *= np.sqrt(scales)
        eta = eta_last[:, :, None] + np.cumsum(steps, axis=2)
        log_shares = vendor_log_shares(eta, axis=1)
        log_future = (log_nv[:, None, :] - log_shares[:, :1]) + log_shares
        return (np.concatenate([log_hist, log_future], axis=2),
                self._cpu(pick, n + horizon), pick)

    def _cpu(self, pick: np.ndarray, length: int) -> np.ndarray | None:
        """AMD's CPU revenue curve over ``length`` quarters from the first (None without AMD)."""
        if "amd_cpu" not in self.posterior:
            return None
        hist = self.stacked("amd_cpu", pick)
        n = hist.shape[1]
        if length <= n:
            return hist[:, :length]
        growth = self.stacked("amd_cpu_growth", pick)
        extra = hist[:, -1:] * np.exp(growth[:, None] * np.arange(1, length - n + 1)[None, :])
        return np.concatenate([hist, extra], axis=1)

    def _horizon(self, quarters: int | Sequence[str]) -> tuple[int, list[str]]:
        """(quarters to simulate after the data end, the labels asked for)."""
        last = self.timeline[-1]
        if isinstance(quarters, int | np.integer):
            if quarters < 0:
                raise ForecastError(f"quarters must be >= 0, got {quarters}")
            return int(quarters), quarters_from(quarter_label(period_index(last) + 1),
                                                int(quarters))
        labels = [str(q) for q in quarters]
        steps = [period_index(q) - period_index(last) for q in labels]
        early = [q for q, h in zip(labels, steps, strict=True) if h < 1]
        if early:
            raise ForecastError(f"forecast quarters {', '.join(early)} are not after the data "
                                f"end {last}")
        return max(steps, default=0), labels

    # ----------------------------------------------------------------- forecasts

    def forecast(self, quarters: int | Sequence[str], draws: int | None = None,
                 seed: int = 0, include_history: bool = False) -> xr.Dataset:
        """Joint sample paths of spend per vendor and of the total, USD bn per quarter.

        Parameters
        ----------
        quarters
            The h quarters after the last data quarter (an int), or calendar quarter labels
            after it (``"2030Q4"``); quarters in between are simulated, not returned.
        draws
            Number of paths (resampled from the posterior); default every posterior sample.
        seed
            Seed of the resampling and the forecast noise.
        include_history
            Prepend the posterior of the in-sample quarters.

        Returns
        -------
        xarray.Dataset
            ``spend`` (draw, quarter, vendor) with the five vendor groups :data:`VENDORS`,
            ``total`` (draw, quarter), their sum, and ``custom_other`` (draw, quarter), the
            custom (cloud-designed) part of ``other``; quarter labels like ``"2026Q1"``.
        """
        horizon, labels = self._horizon(quarters)
        log_a, _, pick = self._simulate(horizon, draws, seed)
        n_hist = len(self.timeline)
        last = period_index(self.timeline[-1])
        columns = [n_hist - 1 + period_index(q) - last for q in labels]
        if include_history:
            columns, labels = list(range(n_hist)) + columns, self.timeline + labels
        spend_groups = np.exp(log_a[:, :, columns])                   # (d, G, T)
        group = {name: spend_groups[:, k] for k, name in enumerate(LATENT_GROUPS)}
        google = self.stacked("google_fraction_of_custom", pick)[:, None]
        rest_custom = self.stacked("rest_custom_fraction", pick)[:, None]
        other_custom = group["custom"] * (1.0 - google)
        spend = np.stack([group["nvidia"], group["amd"], group["custom"] * google,
                          group["aws"], other_custom + group["rest"]], axis=2)
        coords = {"draw": np.arange(spend.shape[0]), "quarter": labels,
                  "vendor": list(VENDORS)}
        result = xr.Dataset(
            {"spend": (("draw", "quarter", "vendor"), spend),
             "total": (("draw", "quarter"), spend.sum(axis=2)),
             "custom_other": (("draw", "quarter"),
                              other_custom + group["rest"] * rest_custom)},
            coords=coords,
        )
        result["spend"].attrs["unit"] = SPEND_UNIT
        result["total"].attrs["unit"] = SPEND_UNIT
        result["custom_other"].attrs["unit"] = SPEND_UNIT
        result.attrs.update({"model": self.model_name, "model_version": self.model_version,
                             "data_end": self.timeline[-1]})
        return result

    # ----------------------------------------------------------------- observed series

    def series_names(self) -> list[str]:
        """Observed series this fit can forecast (those with data)."""
        obs = self.data["observations"]
        return [name for name in FORECAST_SERIES if (obs["series"] == name).any()]

    def series_paths(self, name: str, quarters: int = 4, draws: int | None = None,
                     seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
        """Posterior predictive paths of an observed series for its next fiscal quarters.

        Returns
        -------
        periods
            fiscal_period, calendar_quarter_end (estimated: last end + 3 months per step),
            quarter (calendar).
        paths
            Array (draws, quarters) in USD bn: latent spend through the measurement model
            plus measurement noise.
        """
        if name not in self.series_names():
            raise ForecastError(f"unknown series {name!r} (available: "
                                f"{', '.join(self.series_names())})")
        if quarters < 1:
            raise ForecastError("quarters must be at least 1")
        rows = self.data["observations"]
        rows = rows[rows["series"] == name].sort_values("calendar_quarter_end")
        last = rows.iloc[-1]
        labels = next_fiscal_labels(str(last["fiscal_period"]), quarters)
        ends = [pd.Timestamp(last["calendar_quarter_end"]) + pd.DateOffset(months=3 * h)
                for h in range(1, quarters + 1)]
        cal = [fiscal_to_calendar_quarter(e) for e in ends]
        start = pd.Period(self.timeline[0], freq="Q")
        idx = np.array([(q - start).n for q in cal])
        horizon = max(0, int(idx.max()) - (len(self.timeline) - 1))
        log_a, cpu, pick = self._simulate(horizon, draws, seed)
        group = LATENT_GROUPS.index(SERIES_GROUP[name])
        params = {key: self.stacked(key, pick)[:, None]
                  for key in ("nvidia_compute_fraction", "broadcom_custom_fraction")}
        mean = measurement_log_mean(name, log_a[:, group, idx], params,
                                    cpu=None if cpu is None else cpu[:, idx])
        noise = SERIES_SIGMA[name]
        sigma = 0.0 if noise is None else self.stacked(noise, pick)[:, None]
        rng = np.random.default_rng(seed + 1)
        paths = np.exp(mean + sigma * rng.standard_normal(mean.shape))
        periods = pd.DataFrame({"fiscal_period": labels, "calendar_quarter_end": ends,
                                "quarter": [quarter_label(q) for q in cal]})
        return periods, paths

    def series_forecast(self, name: str, quarters: int = 4, draws: int | None = None,
                        seed: int = 0,
                        quantiles: Sequence[float] = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95),
                        ) -> pd.DataFrame:
        """Quantiles of an observed series for its next ``quarters`` fiscal quarters.

        One row per fiscal quarter: fiscal_period, calendar_quarter_end, quarter, mean and
        ``q05`` ... ``q95`` (USD bn).
        """
        periods, paths = self.series_paths(name, quarters, draws, seed)
        table = periods.copy()
        table.insert(0, "series", name)
        table["mean"] = paths.mean(axis=0)
        for q, values in zip(quantiles, np.quantile(paths, quantiles, axis=0), strict=True):
            table[f"q{round(q * 100):02d}"] = values
        return table

    def spend_history(self) -> pd.DataFrame:
        """Posterior median and 90% band of in-sample spend per latent group and total."""
        spend = np.exp(self.stacked("log_spend"))                   # (samples, G, T)
        values = np.concatenate([spend, spend.sum(axis=1, keepdims=True)], axis=1)
        q = np.quantile(values, [0.05, 0.5, 0.95], axis=0)          # (3, G + 1, T)
        groups, timeline = (*LATENT_GROUPS, "total"), self.timeline
        return pd.DataFrame({
            "group": np.repeat(np.asarray(groups, dtype=object), len(timeline)),
            "quarter": np.tile(np.asarray(timeline, dtype=object), len(groups)),
            "p05": q[0].reshape(-1), "p50": q[1].reshape(-1), "p95": q[2].reshape(-1),
        })


# --------------------------------------------------------------------------- summaries


def annual_totals(paths: xr.Dataset | xr.DataArray,
                  quantiles: Sequence[float] = (0.1, 0.5, 0.9),
                  vendor: str | None = None) -> pd.DataFrame:
    """Calendar-year spend quantiles from quarterly sample paths (complete years only).

    Parameters
    ----------
    paths
        A :meth:`FittedMarket.forecast` Dataset (its ``total``, or ``spend`` of ``vendor``), or a
        DataArray (draw, quarter[, vendor]) summed over vendors.
    quantiles
        Quantile levels, reported as columns ``p10`` ...
    vendor
        One vendor instead of the total.

    Returns
    -------
    pandas.DataFrame
        year, mean and one column per quantile, USD bn per year.
    """
    if isinstance(paths, xr.Dataset):
        values = paths["total"] if vendor is None else paths["spend"].sel(vendor=vendor)
    else:
        values = paths
        if "vendor" in values.dims:
            values = values.sum("vendor") if vendor is None else values.sel(vendor=vendor)
    values = values.transpose("draw", "quarter")
    years, annual = annual_values(values.values, [str(q) for q in values["quarter"].values])
    records = []
    for k, year in enumerate(years):
        yearly = annual[:, k]
        row: dict[str, float] = {"year": int(year), "mean": float(yearly.mean())}
        for q, value in zip(quantiles, np.quantile(yearly, quantiles), strict=True):
            row[f"p{round(q * 100):02d}"] = float(value)
        records.append(row)
    return pd.DataFrame(records)


def load_market(path: Any) -> FittedMarket:
    """Load a fit saved by :meth:`FittedMarket.save` (numpy/xarray only)."""
    return FittedMarket.load(path)  # type: ignore[return-value]
