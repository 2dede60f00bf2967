"""Joint sample paths: posterior draws of every model x scenario input draws.

For each of ``draws`` paths, one row of scenario inputs (correlated through the scenario's
copula) and one resampled posterior draw of each model are combined quarter by quarter:

1. **TAM**: the market model's total spend (USD billions a quarter) after the data end.
2. **Cost per effective PFLOP-hour per vendor**: the share model's cost basis under the
   scenario's draws of utilisation, TCO inputs, Trainium3/4 and NVIDIA-next specs, prices and
   launch quarters (:func:`forecast.economics.cost_paths.scenario_cost_paths`).
3. **Shares**: the share model driven by those costs, with the scenario's supply cap on AWS,
   switching-speed multiplier and erosion of NVIDIA's ecosystem advantage.
4. **Spend per vendor** = TAM x share; ``google_aws_silicon_spend`` = Google TPU + AWS
   Trainium/Inferentia: the custom-silicon groups (``data/vendor_groups.csv``) the share model
   covers. Other custom silicon (Meta MTIA, Microsoft Maia) has no share of its own yet, so the
   name says what the sum holds rather than "custom silicon".
5. **Prices**: price per chip-hour at hyperscaler list prices for H100, B200, Trainium2 and
   Trainium3 (Trainium launch prices from scenario draws, then the fitted list drift), and the
   cost per effective PFLOP-hour through each vendor's utilisation draw. List prices are the
   basis on which AWS's "up to 50% cheaper than GPU systems" claim is made.
6. **AWS revenue**: top-down TAM x AWS share; bottom-up deployed Trainium chips (Epoch's
   modelled fleet, growing at the scenario's rate) x the newest Trainium's price x hours x
   billed utilisation. Both are reported; neither is added to the other.

Only numpy, pandas and xarray run here: forecasting from a stored fit never imports PyMC.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.calendar import quarter_index, quarter_labels, year_of
from forecast.core.errors import ForecastError
from forecast.core.scenario_contract import PRICED_CHIPS
from forecast.data.dataset import Dataset
from forecast.economics.aws_revenue import (
    aws_revenue_bottomup,
    aws_revenue_topdown,
    epoch_trainium_start,
    trainium_fleet,
)
from forecast.economics.cost_paths import launch_prices, scenario_cost_paths
from forecast.economics.vendors import custom_silicon_groups
from forecast.pipeline.results import Forecast, check_paths
from forecast.store.bundles import FitBundle


def _column(inputs: pd.DataFrame, name: str) -> np.ndarray:
    if name not in inputs:
        raise ForecastError(f"scenario has no input {name!r}")
    return inputs[name].to_numpy(float)


def fitted_history(market: Any, share: Any) -> pd.DataFrame:
    """In-sample posterior medians for fan charts: TAM (market model), shares (share model).

    These are model estimates of the past (the data are vendor proxies, not TAM), labelled
    as such in charts. Tidy: metric, key, quarter, value.
    """
    spend = market.spend_history()
    total = spend[spend["group"] == "total"]
    frames = [pd.DataFrame({"metric": "tam", "key": "", "quarter": total["quarter"],
                            "value": total["p50"]})]
    shares = share.fitted_shares()
    frames.append(pd.DataFrame({"metric": "share", "key": shares["vendor"],
                                "quarter": shares["quarter"], "value": shares["median"]}))
    return pd.concat(frames, ignore_index=True)


def simulate(bundle: FitBundle, dataset: Dataset, scenario: Any, draws: int | None = None,
             seed: int | None = None, horizon: int | None = None,
             inputs: pd.DataFrame | None = None) -> Forecast:
    """Joint sample paths of every output under ``scenario``; see the module docstring.

    ``inputs`` replaces the scenario's own input draws (``scenario.sample(draws, seed)``): a
    frame with one row per path and a column per input, e.g. every input held at a quantile
    for a one-at-a-time sensitivity run. ``draws`` defaults to its length and must equal it.
    """
    if inputs is not None and draws is None:
        draws = len(inputs)
    draws = scenario.draws if draws is None else int(draws)
    seed = scenario.seed if seed is None else int(seed)
    horizon = scenario.horizon if horizon is None else int(horizon)
    if draws <= 0:
        raise ForecastError(f"draws must be > 0, got {draws}")
    market, share, price = (bundle.models[name] for name in ("market", "share", "price"))
    data_end = market.timeline[-1]
    if horizon < year_of(data_end) + 1:
        raise ForecastError(f"horizon {horizon} is not after the end of the data "
                            f"({data_end}); give a later year")
    # Every model forecasts the same quarters: from the market data's end to the horizon.
    quarters = quarter_labels(quarter_index(data_end) + 1, quarter_index(f"{horizon}Q4"))
    if inputs is None:
        inputs = scenario.sample(draws, seed=seed)
    elif len(inputs) != draws:
        raise ForecastError(f"inputs have {len(inputs)} rows, not one per draw ({draws})")
    else:
        inputs = inputs.reset_index(drop=True)

    tam = market.forecast(quarters, draws=draws, seed=seed)["total"].values
    # A share fit whose data end earlier than the market's simulates the quarters in
    # between (a refit that moved the revenue data on reuses an unchanged share fit).
    cost_start = min(quarter_index(share.quarters[-1]) + 1, quarter_index(quarters[0]))
    cost_quarters = quarter_labels(cost_start, quarter_index(quarters[-1]))
    costs = scenario_cost_paths(dataset, inputs, cost_quarters, seed=seed,
                                chip_prices=scenario.chip_prices,
                                ramp_quarters=scenario.setting("new_chip_ramp_quarters"),
                                roadmap=scenario.roadmap,
                                price_erosion=scenario.price_erosion)
    shares = _shares(share, quarters, draws, seed, costs, inputs)
    costs = costs.sel(quarter=quarters)
    prices = _prices(price, quarters, draws, seed, scenario, inputs)
    data = _paths(tam, shares, costs, prices, quarters, custom_silicon_groups(dataset))
    data["aws_revenue_topdown"] = (("draw", "quarter"), np.asarray(
        aws_revenue_topdown(tam, shares.sel(vendor="aws").values)))
    data["aws_revenue_bottomup"] = (("draw", "quarter"),
                                    _bottom_up(dataset, inputs, prices, draws, seed))
    check_paths(data)
    return Forecast(
        data=data, scenario=scenario.name, fit_id=bundle.fit_id, seed=seed,
        theses_specs=list(scenario.theses.values()), history=fitted_history(market, share),
        meta={"horizon": horizon, "data_end": data_end, "draws": draws,
              # Thesis errors count the posterior's effective samples, not the paths.
              "posterior_ess": min(model.diagnostics()["min_ess_bulk"]
                                   for model in (market, share, price))},
    )


def _shares(share: Any, quarters: list[str], draws: int, seed: int, costs: xr.DataArray,
            inputs: pd.DataFrame) -> xr.DataArray:
    """Vendor shares (draw, quarter, vendor) driven by the cost paths and scenario inputs."""
    paths = share.forecast(
        quarters, draws=draws, seed=seed, cost_paths=costs,
        supply_caps={"aws": _column(inputs, "aws_supply_cap_share")},
        ecosystem_shift=_column(inputs, "ecosystem_shift_per_year"),
        switching_speed=_column(inputs, "switching_speed_multiplier"),
    )
    return paths["share"].transpose("draw", "quarter", "vendor")


def _prices(price: Any, quarters: list[str], draws: int, seed: int, scenario: Any,
            inputs: pd.DataFrame) -> xr.Dataset:
    """List prices per chip-hour and cost per effective PFLOP-hour of the priced chips."""
    utilisation = {group: _column(inputs, f"mfu_{group}")
                   for group in ("nvidia", "amd", "google", "aws")}
    # Chips with no price history start from the scenario's [chip_prices] inputs.
    launch = launch_prices(scenario.chip_prices, inputs)
    return price.forecast(quarters, draws=draws, seed=seed, chips=list(PRICED_CHIPS),
                          basis="list", launch_prices=launch, utilisation=utilisation)


def _paths(tam: np.ndarray, shares: xr.DataArray, costs: xr.DataArray, prices: xr.Dataset,
           quarters: list[str], custom_groups: Sequence[str]) -> xr.Dataset:
    """TAM, shares, spend per vendor, Google + AWS silicon spend, vendor costs, chip prices."""
    spend = xr.DataArray(tam[:, :, None] * shares.values, coords=shares.coords,
                         dims=shares.dims)
    custom = spend.sel(vendor=[v for v in custom_groups if v in spend["vendor"].values])
    coords = {"draw": np.arange(len(tam)), "quarter": quarters}
    return xr.Dataset(
        {
            "tam": (("draw", "quarter"), tam),
            "share": shares.assign_coords(draw=coords["draw"]),
            "spend": spend.assign_coords(draw=coords["draw"]),
            "google_aws_silicon_spend": (("draw", "quarter"), custom.sum("vendor").values),
            "vendor_cost": costs.transpose("draw", "quarter", "vendor").assign_coords(
                draw=coords["draw"]).rename(vendor="cost_vendor"),
            "price": prices["price"],
            "cost_per_pflop_hour": prices["cost_per_pflop_hour"],
        },
        coords=coords,
    )


def _bottom_up(dataset: Dataset, inputs: pd.DataFrame, prices: xr.Dataset, draws: int,
               seed: int) -> np.ndarray:
    """Deployed Trainium fleet x the newest Trainium's price x hours x billed utilisation."""
    _, start_units = epoch_trainium_start(dataset, draws=draws, seed=seed)
    fleet = trainium_fleet(start_units, _column(inputs, "trainium_fleet_growth_per_year"),
                           prices.sizes["quarter"])
    # The fleet is billed at the newest Trainium's price once it has launched.
    newest = prices["price"].sel(chip="Trainium3").values
    fleet_price = np.where(np.isnan(newest), prices["price"].sel(chip="Trainium2").values,
                           newest)
    return np.asarray(aws_revenue_bottomup(fleet, fleet_price,
                                           _column(inputs, "trainium_utilisation")[:, None]))
