"""The fitted vendor-spend model: spend, TAM, shares and AWS's quantities from one posterior.

Numpy, pandas and xarray only: forecasting from a stored fit never imports PyMC.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.calendar import (
    fiscal_to_calendar_quarter,
    next_fiscal_labels,
    period_index,
    quarter_index,
    quarter_label,
    quarters_from,
)
from forecast.core.errors import ForecastError
from forecast.core.quantile_schema import level_columns
from forecast.models.fitted import Fitted
from forecast.models.spend.aws_paths import PATH_PARAMETERS, aws_silicon_paths
from forecast.models.spend.data import RAMP_WIDTH, lift_layout
from forecast.models.spend.evidence import FORECAST_SERIES, SERIES_GROUP, last_reported
from forecast.models.spend.fleet_math import merchant_price_path
from forecast.models.spend.likelihood import SERIES_NOISE, amd_cpu_curve, measurement_log_mean
from forecast.models.spend.math import (
    LATENT_GROUPS,
    RIVALS,
    VENDORS,
    ramp_curves,
    ramp_lifts,
    vendor_spend,
)
from forecast.models.spend.simulation import (
    PositionState,
    bound_lift,
    bounded_level,
    held_positions,
    hold_last,
    last_log_tam,
    simulate_level,
    simulate_positions,
)

#: Unit of the spend paths.
SPEND_UNIT = "USD billions per quarter"
#: Units of AWS's paths (each variable's ``unit`` attribute).
AWS_UNITS: dict[str, str] = {
    "spend_at_cost": "USD billions per quarter (AWS's accelerator spend at cost)",
    "shipments": "chips per quarter",
    "fleet": "chips in service at quarter end",
    "rental_revenue": "USD billions per quarter (Trainium rental revenue)",
    "merchant_value": "USD billions per quarter (merchant-equivalent value of the shipments)",
    "merchant_price": "USD per dense FP8 PFLOP of NVIDIA's compute (the merchant value's "
                      "price; the fit's prior in-sample, the cost paths' in a forecast)",
    "pflops": "dense FP8 PFLOPS per chip",
}
#: The trend's parameters and filtered state a forecast reads.
TREND_VARS = ("growth_persistence", "growth_longrun", "sigma_level", "sigma_growth",
              "growth_init", "level_last", "growth_last", "state_var_level", "state_cov",
              "state_var_growth")


class FittedSpend(Fitted):
    """A fitted vendor-spend model: joint paths of the five groups' spend and of AWS's fleet."""

    model_name: ClassVar[str] = "spend"
    model_version: ClassVar[str] = "2"

    @property
    def timeline(self) -> list[str]:
        """Calendar quarters of NVIDIA's reported Data Center revenue (the common level)."""
        return list(self.config["timeline"])

    @property
    def window(self) -> list[str]:
        """Calendar quarters of the rivals' positions and AWS's fleet: the in-sample quarters
        of every vendor's spend."""
        return list(self.config["window"])

    @property
    def generations(self) -> pd.DataFrame:
        """AWS's fitted generations: generation, ramp_midpoint, fp8_dense_tflops."""
        return self.data["aws_generations"].copy()

    def horizon_of(self, quarters: int | Sequence[str]) -> tuple[int, list[str]]:
        """(quarters to simulate after the data end, the labels asked for)."""
        last = self.window[-1]
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

    def sample_index(self, draws: int | None, seed: int) -> np.ndarray:
        """The posterior samples behind the paths of ``forecast(..., draws, seed)``: the
        same ones, so that a caller can read them first (the unit costs the cost paths
        share with the fleet)."""
        return self.draw_index(draws, np.random.default_rng(seed))

    def unit_costs(self, pick: np.ndarray) -> dict[str, np.ndarray]:
        """Each fitted AWS generation's unit cost at the samples ``pick`` (USD per chip)."""
        values = self.stacked("unit_cost", pick)
        return {str(name): values[:, k] for k, name in enumerate(self.generations["generation"])}

    def path_parameters(self, pick: np.ndarray) -> dict[str, Any]:
        """What AWS's fleet paths read, one posterior sample per path."""
        params: dict[str, Any] = {name: self.stacked(name, pick) for name in PATH_PARAMETERS}
        params["unit_cost"] = self.stacked("unit_cost", pick)
        params["fleet_end"] = self.stacked("fleet", pick)[:, :, -1]
        params["generations"] = self.generations
        params["data_end"] = self.window[-1]
        return params

    # ----------------------------------------------------------------- simulation

    def simulate(self, horizon: int, pick: np.ndarray, rng: np.random.Generator,
                 cost_gap: np.ndarray | None = None, bound: np.ndarray | None = None,
                 held: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Log spend of the latent groups over the window and ``horizon`` quarters after it,
        (draw, group, window + horizon), for the posterior samples ``pick``; and the log
        TAM the trend carries before the bound (draw, horizon).

        ``cost_gap`` (draw, rival, horizon): the rivals' log cost gaps to NVIDIA in the
        forecast quarters; None holds the last fitted quarter's. ``bound`` (draw, horizon):
        the tightest of M6's bounds, USD bn of accelerator spend a year, which the TAM's
        growth fades against (:func:`~forecast.models.spend.simulation.bounded_level`);
        None: no bound. ``held`` (draw,) bool: the paths whose rivals' positions are held
        where their reports left them (:meth:`held_paths`),
        their ramps going on, instead of moving towards their targets; None: none. Random
        numbers, in order: the positions' shocks, NVIDIA's level (state draw, scales,
        shocks), then the held positions' steps (only with ``held``).
        """
        history = self.stacked("log_spend", pick)                      # (d, G, W)
        if horizon <= 0:
            return history, np.empty((len(pick), 0))
        gap = (hold_last(self.data_cost_gap()[None], horizon).repeat(len(pick), axis=0)
               if cost_gap is None else np.asarray(cost_gap, dtype=float))
        if gap.shape != (len(pick), len(RIVALS), horizon):
            raise ForecastError(f"cost_gap must be (draws, {len(RIVALS)}, {horizon}), got "
                                f"{gap.shape}")
        t = np.arange(horizon, dtype=float) + quarter_index(self.window[-1]) + 1
        years = (t - quarter_index(self.window[0])) / 4.0
        adjusted = simulate_positions(self._position_state(pick), gap, years, rng)
        position = adjusted + self.ramp_lifts_at(pick, t)
        level = simulate_level({name: self.stacked(name, pick) for name in TREND_VARS},
                               horizon, rng)
        if held is not None:
            history, position = self._hold(np.asarray(held, dtype=bool), history, position,
                                           self.held_paths(pick, t, rng, history))
        weight = np.log1p(np.exp(position).sum(axis=1))
        demand = level + weight  # log TAM before the bound
        if bound is not None:
            level, _ = bounded_level(level, weight, bound, last_log_tam(history))
        future = np.concatenate([level[:, None, :], level[:, None, :] + position], axis=1)
        return np.concatenate([history, future], axis=2), demand

    def held_paths(self, pick: np.ndarray, t: np.ndarray, rng: np.random.Generator,
                   history: np.ndarray | None = None) -> np.ndarray:
        """The rivals' positions held where their reports left them, with their ramps going
        on (draw, rival, the window's quarters then quarters ``t`` after it): a ramp is a
        ramp on a held path too, so the part of each position the generations' ramps do not
        explain is held from the rival's last reported quarter (:meth:`last_reported`; its
        steps spread as that part's fitted changes) and the ramps, in the data or scheduled
        ahead, add their growth. ``history``: as in :meth:`unramped_positions`."""
        unramped = self.unramped_positions(pick, history)
        every_t = np.concatenate([self._window_t(), np.asarray(t, dtype=float)])
        return (held_positions(unramped, len(t), rng, self.last_reported())
                + self.ramp_lifts_at(pick, every_t))

    def last_reported(self) -> np.ndarray:
        """Each rival's last window quarter its own reports observe (rival,), indices into
        the window (:func:`~forecast.models.spend.evidence.last_reported`)."""
        return self.derived("last_reported", lambda: last_reported(
            self.data["observations"], self.data["guidance"], list(self.window), RIVALS))

    def _hold(self, held: np.ndarray, history: np.ndarray, position: np.ndarray,
              paths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``history`` and the future ``position`` with the ``held`` draws' rivals on their
        held ``paths`` after each rival's last reported quarter (NVIDIA's level as fitted)."""
        window = history.shape[2]
        after = np.arange(window)[None, :] > self.last_reported()[:, None]   # (rival, W)
        replace = held[:, None, None] & after[None]
        history = history.copy()
        history[:, 1:, :] = np.where(replace, history[:, :1, :] + paths[:, :, :window],
                                     history[:, 1:, :])
        return history, np.where(held[:, None, None], paths[:, :, window:], position)

    def _window_t(self) -> np.ndarray:
        return np.arange(len(self.window), dtype=float) + quarter_index(self.window[0])

    def unramped_positions(self, pick: np.ndarray, history: np.ndarray | None = None
                           ) -> np.ndarray:
        """The part of each rival's fitted position that the generations' ramps do not
        explain (draw, rival, window quarter): what a held path holds. ``history``: the
        samples' ``log_spend`` when the caller has it."""
        history = self.stacked("log_spend", pick) if history is None else history
        fitted = history[:, 1:, :] - history[:, :1, :]
        return fitted - self.ramp_lifts_at(pick, self._window_t())

    def data_cost_gap(self) -> np.ndarray:
        """The rivals' log cost gaps to NVIDIA the fit saw (rival, window quarter)."""
        return self.data["costs"][list(RIVALS)].to_numpy(float).T

    def _position_state(self, pick: np.ndarray) -> PositionState:
        return PositionState(
            adjusted=self.stacked("adjusted", pick)[:, :, -1],
            deviation=self.stacked("deviation", pick)[:, :, -1],
            ecosystem=self.stacked("ecosystem", pick),
            deviation_sd=self.stacked("deviation_sd", pick),
            erosion=self.stacked("ecosystem_erosion", pick),
            price_coefficient=self.stacked("price_coefficient", pick),
            speed=self.stacked("adjustment_speed", pick),
            persistence=self.stacked("deviation_persistence", pick))

    def ramp_lifts_at(self, pick: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Each rival's ramp lifts at quarter indices ``t`` (draw, rival, quarter)."""
        lifts = self.derived("lift_layout", lambda: lift_layout(self.data["ramps"]))
        heights = np.concatenate([self.stacked(name, pick) for name in ("ramp_lift",
                                  "ramp_lift_ahead") if name in self.posterior]
                                 or [np.zeros((len(pick), 0))], axis=1)
        curves = ramp_curves(t, lifts["midpoint"], RAMP_WIDTH)
        return ramp_lifts(heights, curves, lifts["owner"], len(RIVALS))

    # ----------------------------------------------------------------- forecasts

    def forecast(self, quarters: int | Sequence[str], draws: int | None = None,
                 seed: int = 0, cost_gap: np.ndarray | None = None,
                 include_history: bool = False, generations: Any = None,
                 ceiling: Any = None, utilisation_ratio: Any = None,
                 bound: np.ndarray | None = None, held: np.ndarray | None = None,
                 price_decline: np.ndarray | None = None,
                 merchant_price: np.ndarray | None = None) -> xr.Dataset:
        """Joint sample paths of every vendor's spend, the TAM and AWS's three quantities.

        Parameters
        ----------
        quarters
            The h quarters after the data end (an int), or calendar quarter labels after it.
        draws
            Number of paths (resampled from the posterior); default every posterior sample.
        seed
            Seed of the resampling and the forecast noise.
        cost_gap
            The rivals' log cost gaps to NVIDIA in every quarter after the data end up to
            the last asked for (draw, rival, quarter); None holds the last fitted quarter's.
        include_history
            Prepend the posterior of the in-sample quarters (the window).
        generations, ceiling, utilisation_ratio
            AWS generations beyond the fit (a scenario's roadmap), the rental revenue
            ceiling, AWS's MFU over NVIDIA's per path: see
            :func:`~forecast.models.spend.aws_paths.aws_silicon_paths`.
        bound
            The tightest of M6's bounds per path and forecast quarter (draw, quarter), USD
            bn a year; None: the TAM is unbounded.
        held
            The paths (draw,) bool whose rivals' positions are held where their reports left
            them (:meth:`simulate`): an out-of-sample stack of the model and constant shares.
        price_decline
            Yearly log fall of AWS's price per chip-hour after the data end (draw,), the
            cost paths' rate from the price model; None: the fit's ``price_decline``.
        merchant_price
            NVIDIA's price per dense FP8 PFLOP in every quarter after the data end up to the
            last asked for (draw, quarter), USD: the cost paths' (NVIDIA's cheapest launched
            chip, eroded at M2's rate), which the merchant-equivalent value then reads; None:
            the fit's ``merchant_price`` falling at ``merchant_price_decline``.

        Returns
        -------
        xarray.Dataset
            ``spend`` (draw, quarter, vendor) of the five groups, ``tam`` their sum,
            ``custom_other`` the custom part of ``other``, and (forecast quarters only)
            AWS's ``aws_*`` paths; USD bn per quarter unless their ``unit`` says otherwise.
            With a ``bound``, ``bound_lift`` (draw,): :func:`~forecast.models.spend.
            simulation.bound_lift`, the factor the bound was lifted by on each path.
        """
        horizon, labels = self.horizon_of(quarters)
        rng = np.random.default_rng(seed)
        pick = self.draw_index(draws, rng)
        log_latent, log_demand = self.simulate(horizon, pick, rng, cost_gap, bound, held)
        latent = np.exp(log_latent)
        split = vendor_spend(latent, self.stacked("google_fraction_of_custom", pick),
                             self.stacked("rest_custom_fraction", pick))
        n_hist = len(self.window)
        future = [n_hist - 1 + period_index(q) - period_index(self.window[-1]) for q in labels]
        columns = (list(range(n_hist)) + future) if include_history else future
        names = (self.window + labels) if include_history else labels
        demand = np.concatenate([np.full((len(pick), n_hist), np.nan), np.exp(log_demand)],
                                axis=1)
        result = _spend_dataset(split, demand, columns, names)
        if bound is not None:
            result["bound_lift"] = xr.DataArray(
                bound_lift(last_log_tam(log_latent[:, :, :n_hist]), bound), dims=("draw",),
                attrs={"unit": "factor lifting the bound to the last fitted quarter's TAM"})
        aws = self._aws_paths(pick, latent, horizon, generations, ceiling, utilisation_ratio,
                              price_decline, merchant_price)
        result = result.assign_coords(generation=aws.pop("generation")[0]).assign(
            {name: xr.DataArray(values[:, columns] if "quarter" in dims else values,
                                dims=dims, attrs={"unit": unit})
             for name, (values, dims, unit) in aws.items()})
        result.attrs.update({"model": self.model_name, "model_version": self.model_version,
                             "data_end": self.window[-1]})
        return result

    def _aws_paths(self, pick: np.ndarray, latent: np.ndarray, horizon: int, generations: Any,
                   ceiling: Any, utilisation_ratio: Any, price_decline: np.ndarray | None = None,
                   merchant_price: np.ndarray | None = None
                   ) -> dict[str, tuple[Any, tuple, str]]:
        """AWS's quantities over the window and the forecast quarters, as (values, dims,
        unit): the posterior of the in-sample quarters, then the fleet continued over the
        spend paths."""
        hist = {"shipments": self.stacked("shipments", pick), "fleet": self.stacked("fleet", pick),
                "rental_revenue": self.stacked("rental_revenue", pick),
                "merchant_value": self.stacked("merchant_equivalent_value", pick),
                "merchant_price": self._fitted_merchant_price(pick)}
        spend = latent[:, LATENT_GROUPS.index("aws")]
        n_hist = len(self.window)
        params = self.path_parameters(pick)
        if price_decline is not None:
            decline = np.asarray(price_decline, dtype=float)
            if decline.shape != (len(pick),) or not np.isfinite(decline).all():
                raise ForecastError(f"price_decline must be {len(pick)} finite values, one per "
                                    "path")
            params["price_decline"] = decline
        names = list(self.generations["generation"])
        unit_cost, survival = params["unit_cost"], None
        pflops = np.broadcast_to(self.generations["fp8_dense_tflops"].to_numpy(float) / 1000.0,
                                 unit_cost.shape)
        if horizon > 0:
            paths = aws_silicon_paths(
                params, spend[:, n_hist:],
                quarters_from(quarter_label(period_index(self.window[-1]) + 1), horizon),
                generations, ceiling, 1.0 if utilisation_ratio is None else utilisation_ratio,
                merchant_price)
            names, unit_cost, survival, pflops = (list(paths["generations"]), paths["unit_cost"],
                                                  paths["survival"], paths["pflops"])
        pad = len(names) - hist["shipments"].shape[1]
        per_gen = {}
        for key in ("shipments", "fleet"):
            past = np.pad(hist[key], ((0, 0), (0, pad), (0, 0))).transpose(0, 2, 1)
            per_gen[key] = past if horizon <= 0 else np.concatenate([past, paths[key]], axis=1)
        ahead = {"rental_revenue": "rental_revenue", "merchant_value": "merchant_equivalent_value",
                 "merchant_price": "merchant_price"}
        flows = {key: hist[key] if horizon <= 0 else np.concatenate(
            [hist[key], paths[path_key]], axis=1) for key, path_key in ahead.items()}
        if survival is None:
            survival = np.exp(-1.0 / (4.0 * params["useful_life"]))
        return {
            "aws_spend_at_cost": (spend, ("draw", "quarter"), AWS_UNITS["spend_at_cost"]),
            "aws_shipments": (per_gen["shipments"], ("draw", "quarter", "generation"),
                              AWS_UNITS["shipments"]),
            "aws_fleet": (per_gen["fleet"], ("draw", "quarter", "generation"),
                          AWS_UNITS["fleet"]),
            "aws_rental_revenue": (flows["rental_revenue"], ("draw", "quarter"),
                                   AWS_UNITS["rental_revenue"]),
            "aws_merchant_value": (flows["merchant_value"], ("draw", "quarter"),
                                   AWS_UNITS["merchant_value"]),
            "aws_merchant_price": (flows["merchant_price"], ("draw", "quarter"),
                                   AWS_UNITS["merchant_price"]),
            "aws_pflops": (np.asarray(pflops, dtype=float), ("draw", "generation"),
                           AWS_UNITS["pflops"]),
            "aws_unit_cost": (unit_cost, ("draw", "generation"), "USD per chip at cost"),
            "aws_survival": (survival, ("draw",),
                             "share of the fleet in service after a quarter"),
            "generation": (np.asarray(names, dtype=object), ("generation",), ""),
        }

    def _fitted_merchant_price(self, pick: np.ndarray) -> np.ndarray:
        """The fit's merchant price per dense FP8 PFLOP over the window (draw, quarter): its
        ``merchant_price`` at the data end, ``merchant_price_decline`` a year before it."""
        t = np.array([period_index(q) for q in self.window], dtype=float)
        return merchant_price_path(self.stacked("merchant_price", pick),
                                   self.stacked("merchant_price_decline", pick),
                                   (t - t[-1]) / 4.0)

    # ----------------------------------------------------------------- observed series

    def series_names(self) -> list[str]:
        """Reported series this fit can forecast (those with data)."""
        obs = self.data["observations"]
        return [name for name in FORECAST_SERIES if (obs["series"] == name).any()]

    def series_paths(self, name: str, quarters: int = 4, draws: int | None = None,
                     seed: int = 0, cost_gap: np.ndarray | None = None,
                     bound: np.ndarray | None = None, held: np.ndarray | None = None
                     ) -> tuple[pd.DataFrame, np.ndarray]:
        """Posterior predictive paths of a reported series for its next fiscal quarters.

        ``bound`` (draw, quarter): M6's tightest bound over at least the calendar quarters
        after the window that the fiscal quarters reach (:meth:`simulate`); None: unbounded.
        ``held`` (draw,) bool: the paths with the rivals' positions held (:meth:`simulate`).

        Returns
        -------
        periods
            fiscal_period, calendar_quarter_end (estimated: last end + 3 months per step),
            quarter (calendar).
        paths
            Array (draws, quarters) in USD bn: the latent spend through the measurement
            layer plus its noise.
        """
        if name not in self.series_names():
            raise ForecastError(f"unknown series {name!r} (available: "
                                f"{', '.join(self.series_names())})")
        if quarters < 1:
            raise ForecastError("quarters must be at least 1")
        rows = self.data["observations"]
        last = rows[rows["series"] == name].sort_values("calendar_quarter_end").iloc[-1]
        labels = next_fiscal_labels(str(last["fiscal_period"]), quarters)
        ends = [pd.Timestamp(last["calendar_quarter_end"]) + pd.DateOffset(months=3 * h)
                for h in range(1, quarters + 1)]
        cal = [quarter_label(fiscal_to_calendar_quarter(e)) for e in ends]
        idx = np.array([quarter_index(q) - quarter_index(self.window[0]) for q in cal])
        horizon = max(0, int(idx.max()) - (len(self.window) - 1))
        rng = np.random.default_rng(seed)
        pick = self.draw_index(draws, rng)
        if bound is not None:
            bound = np.asarray(bound, dtype=float)[:, :horizon]
            if bound.shape != (len(pick), horizon):
                raise ForecastError(f"bound must cover ({len(pick)}, {horizon}) draws and "
                                    f"quarters, got {bound.shape}")
        log_latent, _ = self.simulate(horizon, pick, rng, cost_gap, bound, held)
        mean = self._series_mean(name, log_latent, idx, pick)
        sigma = 0.0 if name not in SERIES_NOISE else self.stacked(SERIES_NOISE[name], pick)[:, None]
        # Each series its own noise: the series of one forecast share the latent paths,
        # never their measurement errors.
        stream = FORECAST_SERIES.index(name)
        noise = np.random.default_rng([seed, 1, stream]).standard_normal(mean.shape)
        periods = pd.DataFrame({"fiscal_period": labels, "calendar_quarter_end": ends,
                                "quarter": cal})
        return periods, np.exp(mean + sigma * noise)

    def _series_mean(self, name: str, log_latent: np.ndarray, idx: np.ndarray,
                     pick: np.ndarray) -> np.ndarray:
        """Expected log of a reported series at window-relative quarter indices ``idx``."""
        params = {key: self.stacked(key, pick)[:, None] for key in (
            "nvidia_compute_fraction", "broadcom_custom_fraction")}
        cpu = None
        if name == "amd_data_center":
            params.update({key: self.stacked(key, pick)[:, None] for key in (
                "amd_cpu_fraction_start", "amd_cpu_growth")})
            amd = self.data["observations"]
            first = amd[amd["series"] == name].sort_values("quarter").iloc[0]
            offset = quarter_index(str(first["quarter"])) - quarter_index(self.window[0])
            cpu = amd_cpu_curve(float(first["value"]), params, idx[None, :] - offset)
        group = LATENT_GROUPS.index(SERIES_GROUP[name])
        return measurement_log_mean(name, log_latent[:, group, idx], params, cpu=cpu)

    def series_forecast(self, name: str, quarters: int = 4, draws: int | None = None,
                        seed: int = 0,
                        quantiles: Sequence[float] = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95),
                        ) -> pd.DataFrame:
        """Quantiles of a reported series for its next ``quarters`` fiscal quarters.

        The quantile schema (:mod:`forecast.core.quantile_schema`): metric (the series),
        period (its fiscal period), key (empty), ``q5`` ... ``q95``, unit (USD bn per fiscal
        quarter); then the calendar quarter it ends in and the mean.
        """
        periods, paths = self.series_paths(name, quarters, draws, seed)
        table = pd.DataFrame({"metric": name, "period": periods["fiscal_period"].astype(str),
                              "key": ""})
        for column, values in zip(level_columns(quantiles),
                                  np.quantile(paths, quantiles, axis=0), strict=True):
            table[column] = values
        table["unit"] = "USD billions per fiscal quarter"
        table["calendar_quarter_end"] = periods["calendar_quarter_end"].to_numpy()
        table["quarter"] = periods["quarter"].to_numpy()
        table["mean"] = paths.mean(axis=0)
        return table


def _spend_dataset(split: dict[str, np.ndarray], demand: np.ndarray, columns: list[int],
                   names: list[str]) -> xr.Dataset:
    """The vendors' spend, the TAM and the trend's demand on the asked quarters' columns."""
    spend = split["spend"][:, :, columns].transpose(0, 2, 1)
    coords = {"draw": np.arange(len(spend)), "quarter": names, "vendor": list(VENDORS)}
    return xr.Dataset(
        {"tam_demand": (("draw", "quarter"), demand[:, columns], {
            "unit": "USD billions per quarter (the TAM the trend carries before M6's "
                    "bounds; NaN in-sample)"}),
         "spend": (("draw", "quarter", "vendor"), spend, {"unit": SPEND_UNIT}),
         "tam": (("draw", "quarter"), spend.sum(axis=2), {"unit": SPEND_UNIT}),
         "custom_other": (("draw", "quarter"), split["custom_other"][:, columns],
                          {"unit": SPEND_UNIT})}, coords=coords)
