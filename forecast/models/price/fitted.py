"""The fitted price-erosion model: decay table, predictions of observed prices, forecasts.

Numpy, pandas and xarray only: forecasting from a stored fit never imports PyMC.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.calendar import quarters_from
from forecast.core.errors import ForecastError
from forecast.core.quantile_schema import level_columns
from forecast.core.stats import simulate_ar1
from forecast.economics.chips import cost_per_effective_pflop_hour
from forecast.models.fitted import Fitted
from forecast.models.price.data import (
    DAYS_PER_YEAR,
    LIST_PROVIDER_CLASS,
    LIST_TYPES,
    MARKET_SUFFIX,
    REFERENCE_TYPE,
    identified_market_vendors,
    observation_frame,
)
from forecast.models.price.math import (
    NOISE_DOF,
    annual_change,
    chip_frontiers,
    log_price_mean,
    vintage_gap,
)
from forecast.models.price.steps import (
    SERIES_KEY,
    chip_step_layout,
    last_list_prices,
    step_log_change,
    step_paths,
)


class FittedPrice(Fitted):
    """A fitted price-erosion model: posterior, data, diagnostics, forecasts."""

    model_name: ClassVar[str] = "price"
    model_version: ClassVar[str] = "6"

    @property
    def provider_classes(self) -> dict[str, str]:
        """Provider name -> provider class of the data the model was fitted to."""
        table = self.data["providers"]
        return dict(zip(table["provider_or_index"].astype(str),
                        table["provider_class"].astype(str), strict=True))

    @property
    def provider_companies(self) -> dict[str, str]:
        """Provider name -> the company behind it, of the data the model was fitted to."""
        table = self.data["providers"]
        return dict(zip(table["provider_or_index"].astype(str),
                        table["company"].astype(str), strict=True))

    def decay_table(self, q: Sequence[float] = (0.05, 0.5, 0.95)) -> pd.DataFrame:
        """Posterior annual price change per vendor, as fractions, in the quantile schema
        (:mod:`forecast.core.quantile_schema`: metric ``annual_price_change``, an empty
        period, the vendor as key, the levels ``q``, unit), then ``identified_by_data``
        (False: no market prices of one chip at two ages, so the rate is a prior draw)."""
        change = annual_change(self.stacked("decay"))
        vendors = [str(v) for v in self.posterior["vendor"].values]
        identified = set(identified_market_vendors(self.data["observations"]))
        table = pd.DataFrame({"metric": "annual_price_change", "period": "", "key": vendors})
        for column, values in zip(level_columns(q), np.quantile(change, list(q), axis=0),
                                  strict=True):
            table[column] = values
        table["unit"] = "fraction a year"
        table["identified_by_data"] = [v in identified for v in vendors]
        return table

    def vendor_decay(self, draws: int | None = None, seed: int = 0) -> dict[str, np.ndarray]:
        """Each vendor's yearly change in log market price per chip-hour with age (the
        ``decay`` of the model, negative when prices fall), ``(draws,)`` per vendor, on the
        posterior samples :meth:`forecast` picks for the same ``draws`` and ``seed``: the
        price erosion a forecast's cost paths share with its price paths."""
        pick = self.draw_index(draws, np.random.default_rng(seed))
        decay = self.stacked("decay", pick)
        return {str(vendor): decay[:, j] for j, vendor in
                enumerate(self.posterior["vendor"].values)}

    def predict_observations(self, frame: pd.DataFrame, draws: int = 1000,
                             seed: int = 0) -> np.ndarray:
        """Posterior predictive samples of observed prices (draws x rows), USD per chip-hour.

        ``frame`` has the rental-price columns (date, chip, provider_or_index, pricing_type),
        e.g. observations after a backtest cut-off. Chips and pricing types must have been
        fitted. A provider name is read as its company (``data/providers.csv``; a name the
        fit did not see is its own company); a company not fitted gets a new draw of its
        class's provider effect and, for a list commitment price, of its deviation from the
        pooled commitment offset and list drift. Includes
        the cycle (simulated forward past the fitted window), the vintage gap at the row's
        date (successors from the fitted catalogue) and the Student-t observation noise of
        the row's price class.
        """
        if len(frame) == 0:
            return np.empty((draws, 0))
        rng = np.random.default_rng(seed)
        pick = self.draw_index(draws, rng)
        rows = observation_frame(frame, self.data["catalogue"], self.provider_classes,
                                 self.provider_companies)
        fitted_chips = [str(c) for c in self.posterior["chip"].values]
        types = self._types()
        unknown = sorted(set(rows["chip"]) - set(fitted_chips))
        unknown_types = sorted(set(rows["offset_type"]) - set(types))
        if unknown or unknown_types:
            raise ForecastError(f"no fitted parameters for chips {unknown} / pricing types "
                                f"{unknown_types}")
        fitted_quarters = pd.PeriodIndex(self.meta["quarters"], freq="Q")
        steps = max(0, (rows["quarter"].max() - fitted_quarters[-1]).n)
        cycle_all = self._cycle_path(pick, steps, rng)
        cycle_idx = np.clip([(q - fitted_quarters[0]).n for q in rows["quarter"]], 0,
                            cycle_all.shape[1] - 1)
        market = (rows["price_class"] == "market").to_numpy()
        vendors = [str(v) for v in self.posterior["vendor"].values]
        vendor_idx = [vendors.index(v) for v in rows["vendor_group"]]
        offsets_fit = np.concatenate([np.zeros((draws, 1)),
                                      self.stacked("type_offset", pick)], axis=1)
        drift_idx = [LIST_TYPES.index(k) if k in LIST_TYPES else 0 for k in rows["offset_type"]]
        list_slope = (self.stacked("list_drift", pick)[:, drift_idx]
                      + self._list_company_draws(pick, rows, rng, "list_drift_effect",
                                                 "list_drift_sd", "list_type"))
        slope = np.where(market[None, :], self.stacked("decay", pick)[:, vendor_idx],
                         list_slope)
        chip_idx = [fitted_chips.index(c) for c in rows["chip"]]
        hyperscaler = (rows["provider_class"] == LIST_PROVIDER_CLASS).to_numpy()
        level = (self.stacked("launch_log_price", pick)[:, chip_idx]
                 + offsets_fit[:, [types.index(t) for t in rows["offset_type"]]]
                 + self._provider_draws(pick, rows, rng)
                 + hyperscaler[None, :] * self.stacked("chip_premium", pick)[:, chip_idx]
                 + self._series_draws(pick, rows, rng)
                 + self._list_company_draws(pick, rows, rng, "commitment_effect",
                                            "commitment_sd", "commitment"))
        mean = log_price_mean(level, 0.0, slope, rows["age_years"].to_numpy()[None, :],
                              market[None, :].astype(float), cycle_all[:, cycle_idx],
                              self.stacked("vintage", pick)[:, None],
                              (market * rows["vintage_gap"].to_numpy())[None, :])
        scale = np.where(market[None, :], self.stacked("noise_market", pick)[:, None],
                         self.stacked("noise_list", pick)[:, None])
        noise = scale * rng.standard_t(NOISE_DOF, size=mean.shape)
        prices = np.exp(mean + noise)
        self._continue_list_series(prices, rows, pick, rng)
        return prices

    def list_move_params(self, pick: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per draw: list-price moves per year, and the mean and sd of a move's log size."""
        return (self.stacked("list_move_hazard", pick), self.stacked("list_move_size", pick),
                self.stacked("list_move_sd", pick))

    def _continue_list_series(self, prices: np.ndarray, rows: pd.DataFrame, pick: np.ndarray,
                              rng: np.random.Generator) -> None:
        """Overwrite the list-price rows whose series or company the fit saw listed: the last
        observed price (the series', or its company's for the chip and type when more
        recent), moved by the step process since its date (in place)."""
        history = self.data["list_history"]
        if history.empty:
            return
        lasts = last_list_prices(history)
        companies = self.provider_companies
        lasts["company"] = lasts["provider_or_index"].map(lambda n: companies.get(n, n))
        by_series = lasts.set_index(SERIES_KEY)
        by_company = lasts.sort_values("date").groupby(
            ["chip", "company", "pricing_type"]).last()
        params = self.list_move_params(pick)
        for j, row in enumerate(rows.itertuples(index=False)):
            if row.price_class != "list":
                continue
            key = (str(row.chip), str(row.provider_or_index), str(row.pricing_type))
            company = (str(row.chip), str(row.provider), str(row.pricing_type))
            last = by_series.loc[key] if key in by_series.index else None
            # A company listing the chip later under another name (a newer price page) is
            # the more recent word on its price.
            if company in by_company.index and (
                    last is None or by_company.loc[company, "date"] > last["date"]):
                last = by_company.loc[company]
            if last is None or last["date"] > row.date:
                continue
            years = (row.date - last["date"]).days / DAYS_PER_YEAR
            prices[:, j] = float(last["usd_per_chip_hour"]) * np.exp(
                step_log_change(*params, np.array([years]), rng)[:, 0])

    def _types(self) -> list[str]:
        return [REFERENCE_TYPE] + [str(t) for t in self.posterior["offset_type"].values]

    def class_mean(self, label: str, pick: np.ndarray) -> np.ndarray:
        """Per draw, the mean provider effect of a provider class (0 for the reference)."""
        if label == LIST_PROVIDER_CLASS:
            return self.stacked("list_premium", pick)
        if "class_other" in self.posterior.coords:
            others = [str(c) for c in self.posterior["class_other"].values]
            if label in others:
                return self.stacked("class_effect", pick)[:, others.index(label)]
        return np.zeros(len(pick))

    def _provider_draws(self, pick: np.ndarray, rows: pd.DataFrame,
                        rng: np.random.Generator) -> np.ndarray:
        """Provider effects (draws x rows): fitted ones, else a new draw of the class."""
        providers = [str(p) for p in self.posterior["provider"].values]
        fitted = self.stacked("provider_effect", pick)
        spread = self.stacked("provider_sd", pick)
        effects = np.empty((len(pick), len(rows)))
        new: dict[str, np.ndarray] = {}
        for j, (name, label) in enumerate(zip(rows["provider"].astype(str),
                                              rows["provider_class"], strict=True)):
            if name in providers:
                effects[:, j] = fitted[:, providers.index(name)]
                continue
            if name not in new:
                new[name] = self.class_mean(label, pick) + spread * rng.standard_normal(
                    len(pick))
            effects[:, j] = new[name]
        return effects

    def _list_company_draws(self, pick: np.ndarray, rows: pd.DataFrame,
                            rng: np.random.Generator, name: str, spread_name: str,
                            dim: str) -> np.ndarray:
        """A list company's deviation ``name`` (dims list_provider x ``dim``) for each row
        (draws x rows): the fitted one, else a new draw of spread ``spread_name``; 0 for rows
        that are not list prices of a type in ``dim``."""
        effects = np.zeros((len(pick), len(rows)))
        if name not in self.posterior:
            return effects
        companies = [str(c) for c in self.posterior["list_provider"].values]
        kinds = [str(k) for k in self.posterior[dim].values]
        fitted = self.stacked(name, pick)
        spread = self.stacked(spread_name, pick)
        new: dict[tuple[str, str], np.ndarray] = {}
        for j, (company, kind, listed) in enumerate(zip(rows["provider"].astype(str),
                                                        rows["offset_type"],
                                                        rows["price_class"] == "list",
                                                        strict=True)):
            if not listed or kind not in kinds:
                continue
            if company in companies:
                effects[:, j] = fitted[:, companies.index(company), kinds.index(kind)]
                continue
            if (company, kind) not in new:
                new[(company, kind)] = spread * rng.standard_normal(len(pick))
            effects[:, j] = new[(company, kind)]
        return effects

    def _series_draws(self, pick: np.ndarray, rows: pd.DataFrame,
                      rng: np.random.Generator) -> np.ndarray:
        """(chip, provider) series effects (draws x rows): fitted ones, else a new draw."""
        labels = [str(s) for s in self.posterior["series"].values]
        fitted = self.stacked("series_effect", pick)
        spread = self.stacked("series_sd", pick)
        effects = np.empty((len(pick), len(rows)))
        new: dict[str, np.ndarray] = {}
        for j, label in enumerate(rows["series"]):
            if label in labels:
                effects[:, j] = fitted[:, labels.index(label)]
            else:
                if label not in new:
                    new[label] = spread * rng.standard_normal(len(pick))
                effects[:, j] = new[label]
        return effects

    def _cycle_path(self, pick: np.ndarray, steps: int, rng: np.random.Generator
                    ) -> np.ndarray:
        """The fitted cycle followed by ``steps`` simulated quarters (draws x quarters)."""
        cycle_fit = self.stacked("cycle", pick)
        future = simulate_ar1(self.stacked("cycle_rho", pick), self.stacked("cycle_sigma", pick),
                              cycle_fit[:, -1], steps, rng)
        return np.concatenate([cycle_fit, future], axis=1)

    def forecast(
        self,
        quarters: int | Sequence[str] | pd.PeriodIndex,
        draws: int | None = None,
        seed: int = 0,
        chips: Sequence[str] | None = None,
        basis: str = "market",
        pricing_type: str = REFERENCE_TYPE,
        launch_prices: Mapping[str, Any] | None = None,
        new_chips: pd.DataFrame | None = None,
        utilisation: Mapping[str, Any] | None = None,
        frontier_tflops: Mapping[str, Any] | None = None,
    ) -> xr.Dataset:
        """Sample paths of price per chip-hour (and cost per effective PFLOP-hour).

        Parameters
        ----------
        quarters
            The h quarters after the last fitted quarter (an int), or calendar quarters
            ("2026Q1", ...) at or after the first fitted quarter.
        draws, seed
            Number of sample paths and the random seed (posterior samples picked by
            :meth:`draw_index`).
        chips
            Catalogue chips (default: every chip with price history). Chips without history
            need an entry in ``launch_prices``.
        basis
            "market" (a neocloud's price: decay, vintage term and the market cycle) or "list"
            (a hyperscaler's list price: the hyperscaler class effect, list drift, no cycle).
        pricing_type
            "on-demand" (default) or another fitted pricing type, whose offset is applied.
        launch_prices
            chip -> price per chip-hour at launch, at the forecast's basis (scalar or array of
            ``draws``), for chips with no price history, e.g. Trainium3 from scenario inputs.
        new_chips
            Rows (chip, vendor_group, release_date, fp8_dense_tflops, bf16_dense_tflops) for
            chips not in the catalogue (future chips from scenario inputs); they also move
            their vendor's frontier when ``frontier_tflops`` is not given.
        utilisation
            vendor_group -> model-FLOP utilisation (scalar or ``draws`` array); when given, the
            result also holds ``cost_per_pflop_hour`` (FP8 where available, else BF16).
        frontier_tflops
            vendor_group -> dense BF16 TFLOPS of the vendor's frontier chip per forecast
            quarter (scalar, ``(quarters,)`` or ``(draws, quarters)``), e.g. from a scenario
            roadmap; vendors left out take the frontier of the catalogue and ``new_chips``.

        Returns
        -------
        xarray.Dataset with ``price`` (draw, quarter, chip) in USD per chip-hour, NaN before a
        chip's launch, and optionally ``cost_per_pflop_hour``.
        """
        periods = self._periods(quarters)
        draws = self.n_samples if draws is None else int(draws)
        if draws <= 0:
            raise ForecastError(f"draws must be > 0, got {draws}")
        if basis not in ("market", "list"):
            raise ForecastError(f"basis must be 'market' or 'list', got {basis!r}")
        catalogue = self._catalogue(new_chips)
        chips = list(chips) if chips is not None else [str(c) for c in
                                                        self.posterior["chip"].values]
        launch_prices = dict(launch_prices or {})
        self._check_chips(chips, catalogue, launch_prices)
        rng = np.random.default_rng(seed)
        pick = self.draw_index(draws, rng)
        offsets = self._level_offsets(pick, basis, pricing_type)
        cycle = self._cycle(pick, periods, rng) if basis == "market" else np.zeros(
            (draws, len(periods)))
        gaps = self._vintage_gaps(periods, chips, catalogue, draws, frontier_tflops,
                                  own_catalogue=new_chips is None)
        prices = self._chip_prices(pick, periods, chips, catalogue, (basis, pricing_type),
                                   offsets, cycle, launch_prices, gaps, rng)
        coords = {"draw": np.arange(draws), "quarter": [str(p) for p in periods], "chip": chips}
        result = xr.Dataset({"price": (("draw", "quarter", "chip"), prices)}, coords=coords)
        result["price"].attrs.update(unit="USD per chip-hour", basis=basis,
                                     pricing_type=pricing_type)
        if utilisation is not None:
            cost = _cost_per_pflop_hour(prices, chips, catalogue, utilisation)
            result["cost_per_pflop_hour"] = (("draw", "quarter", "chip"), cost)
            result["cost_per_pflop_hour"].attrs["unit"] = "USD per effective PFLOP-hour"
        return result

    def _check_chips(self, chips: list[str], catalogue: pd.DataFrame,
                     launch_prices: Mapping[str, Any]) -> None:
        fitted_chips = {str(c) for c in self.posterior["chip"].values}
        for chip in chips:
            if chip not in catalogue.index:
                raise ForecastError(f"chip {chip!r} is not in the catalogue or new_chips")
            if chip not in fitted_chips and chip not in launch_prices:
                raise ForecastError(f"chip {chip!r} has no price history: give launch_prices")

    def _periods(self, quarters: int | Sequence[str] | pd.PeriodIndex) -> pd.PeriodIndex:
        fitted_quarters = pd.PeriodIndex(self.meta["quarters"], freq="Q")
        if isinstance(quarters, int | np.integer):
            following = str(fitted_quarters[-1] + 1)
            quarters = quarters_from(following, int(quarters))
        periods = pd.PeriodIndex(quarters, freq="Q")
        if len(periods) and periods.min() < fitted_quarters[0]:
            raise ForecastError(f"forecast quarters start before the fitted market-price "
                                f"window ({fitted_quarters[0]})")
        return periods

    def _catalogue(self, new_chips: pd.DataFrame | None) -> pd.DataFrame:
        catalogue = self.data["catalogue"]
        if new_chips is not None:
            catalogue = pd.concat([catalogue, new_chips], ignore_index=True)
        return catalogue.drop_duplicates("chip", keep="last").set_index("chip")

    def _level_offsets(self, pick: np.ndarray, basis: str, pricing_type: str) -> np.ndarray:
        """Log-price offset per draw of the pricing type (and the hyperscaler class effect,
        the list premium, on "list")."""
        types = self._types()
        if pricing_type not in types:
            raise ForecastError(f"pricing type {pricing_type!r}: fitted types are "
                                f"{', '.join(types)}")
        offsets = np.zeros(len(pick))
        if basis == "market" and pricing_type + MARKET_SUFFIX in types:
            pricing_type = pricing_type + MARKET_SUFFIX
        if pricing_type != REFERENCE_TYPE:
            offsets = self.stacked("type_offset", pick)[:, types.index(pricing_type) - 1]
        if basis == "list":
            offsets = offsets + self.class_mean(LIST_PROVIDER_CLASS, pick)
        return offsets

    def _cycle(self, pick: np.ndarray, periods: pd.PeriodIndex,
               rng: np.random.Generator) -> np.ndarray:
        """Cycle paths: the last fitted deviation continued, reverting at rho per quarter."""
        fitted_quarters = pd.PeriodIndex(self.meta["quarters"], freq="Q")
        steps = max(0, (periods.max() - fitted_quarters[-1]).n)
        cycle_all = self._cycle_path(pick, steps, rng)
        return cycle_all[:, np.array([(p - fitted_quarters[0]).n for p in periods])]

    def _vintage_gaps(self, periods: pd.PeriodIndex, chips: list[str], catalogue: pd.DataFrame,
                      draws: int, frontier_tflops: Mapping[str, Any] | None,
                      own_catalogue: bool) -> np.ndarray:
        """Vintage gap (draw, quarter, chip) at each quarter's midpoint, and at launch in the
        last slot of the quarter axis (for chips priced from ``launch_prices``).
        ``own_catalogue``: ``catalogue`` is the fit's own, so its frontiers are kept."""
        def compute() -> tuple[np.ndarray, list[str], np.ndarray]:
            return chip_frontiers(periods, chips, catalogue)

        frontiers, groups, chip_log_tflops = (
            self.derived(("frontiers", tuple(chips), tuple(periods.asi8)), compute)
            if own_catalogue else compute())
        gaps = np.zeros((draws, len(periods) + 1, len(chips)))
        given = dict(frontier_tflops or {})
        for j, group in enumerate(groups):
            frontier = np.broadcast_to(frontiers[:, j], (draws, len(periods) + 1)).copy()
            if group in given:
                path = np.broadcast_to(np.asarray(given[group], dtype=float),
                                       (draws, len(periods)))
                if not np.all(path > 0):
                    raise ForecastError(f"frontier_tflops[{group!r}] must be positive TFLOPS")
                frontier[:, :-1] = np.log(path)
            gaps[:, :, j] = vintage_gap(frontier, chip_log_tflops[j])
        return gaps

    def _chip_prices(self, pick: np.ndarray, periods: pd.PeriodIndex, chips: list[str],
                     catalogue: pd.DataFrame, kind: tuple[str, str], offsets: np.ndarray,
                     cycle: np.ndarray, launch_prices: Mapping[str, Any],
                     gaps: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Price paths (draw, quarter, chip); NaN before a chip's launch. ``kind`` is the
        forecast's (basis, pricing type)."""
        basis, pricing_type = kind
        draws = len(pick)
        fitted_chips = [str(c) for c in self.posterior["chip"].values]
        vendors = [str(v) for v in self.posterior["vendor"].values]
        decay = self.stacked("decay", pick)
        launch = self.stacked("launch_log_price", pick)
        list_drift = self.stacked("list_drift", pick)[
            :, LIST_TYPES.index(pricing_type) if pricing_type in LIST_TYPES else 0]
        vintage = self.stacked("vintage", pick) if basis == "market" else np.zeros(draws)
        # A hyperscaler's list price of a fitted chip carries the chip's own premium.
        premium = self.stacked("chip_premium", pick) * (basis == "list")
        quarter_mid = (periods.start_time + (periods.end_time - periods.start_time) / 2)
        prices = np.full((draws, len(periods), len(chips)), np.nan)
        for j, chip in enumerate(chips):
            row = catalogue.loc[chip]
            slope = decay[:, vendors.index(row["vendor_group"])] if basis == "market" \
                else list_drift
            age = ((quarter_mid - pd.Timestamp(row["release_date"])).days / DAYS_PER_YEAR)
            age = np.asarray(age, dtype=float)
            gap = gaps[:, :-1, j]
            if chip in fitted_chips:
                base = (launch[:, fitted_chips.index(chip)] + offsets
                        + premium[:, fitted_chips.index(chip)])
            else:
                # A launch price is quoted at the chip's launch, where its gap is gaps[:, -1].
                base = np.log(np.broadcast_to(np.asarray(launch_prices[chip], float), (draws,)))
                gap = gap - gaps[:, -1:, j]
            log_price = log_price_mean(base[:, None], 0.0, slope[:, None],
                                       np.maximum(age, 0.0)[None, :], 1.0, cycle,
                                       vintage[:, None], gap)
            prices[:, :, j] = np.where(age[None, :] >= 0, np.exp(log_price), np.nan)
            if basis == "list":
                self._listed_steps(prices[:, :, j], chip, pricing_type, quarter_mid, pick, rng)
        return prices

    def _listed_steps(self, prices: np.ndarray, chip: str, pricing_type: str,
                      dates: pd.DatetimeIndex, pick: np.ndarray,
                      rng: np.random.Generator) -> None:
        """A listed chip's list price held at what the clouds last listed and moved by the
        step process after (in place over the regression's paths, which stay where the
        chip was not listed yet)."""
        dates = pd.DatetimeIndex(dates)
        layout = self.derived(("step_layout", chip, pricing_type, tuple(dates.asi8)),
                              lambda: chip_step_layout(self.data["list_history"], chip,
                                                       pricing_type, self.provider_companies,
                                                       dates))
        if layout is None:
            return
        steps = step_paths(layout, self.list_move_params(pick), rng)
        prices[:] = np.where(np.isfinite(steps), steps, prices)


def _cost_per_pflop_hour(prices: np.ndarray, chips: list[str], catalogue: pd.DataFrame,
                         utilisation: Mapping[str, Any]) -> np.ndarray:
    """Price paths over effective PFLOPS (FP8 where the catalogue has it, else BF16)."""
    draws = prices.shape[0]
    tflops = catalogue.loc[chips, "fp8_dense_tflops"].fillna(
        catalogue.loc[chips, "bf16_dense_tflops"]).to_numpy(float)
    util = np.stack([np.broadcast_to(np.asarray(utilisation[catalogue.loc[c, "vendor_group"]],
                                                float), (draws,)) for c in chips], axis=1)
    return cost_per_effective_pflop_hour(prices, tflops[None, None, :], util[:, None, :])
