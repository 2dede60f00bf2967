"""Joint sample paths: posterior draws of every model x scenario input draws.

For each of ``draws`` paths, one row of scenario inputs (correlated through the scenario's
copula) and one resampled posterior draw of each model are combined quarter by quarter:

1. **TAM**: the market model's total spend (USD billions a quarter) after the data end.
2. **Cost per effective PFLOP-hour per vendor**: the share model's cost basis under the
   scenario's draws of utilisation, TCO inputs, Trainium3/4 and NVIDIA-next specs, prices and
   launch quarters (:func:`forecast.economics.cost_paths.scenario_cost_paths`).
3. **Shares**: the share model driven by those costs, with the scenario's supply cap on AWS,
   switching-speed multiplier and erosion of NVIDIA's ecosystem advantage.
   The shares start from the market model's own draw of the last data quarter (one
   history for both models).
4. **Spend per vendor** = TAM x share over the five groups (``nvidia``, ``amd``, ``google``,
   ``aws``, ``other``); ``custom_silicon_spend`` = Google TPU + AWS Trainium/Inferentia + the
   custom part of ``other`` (Meta MTIA, Microsoft Maia, OpenAI's and other Broadcom/Marvell
   XPUs: the market model's split of the group, per draw).
5. **Prices**: price per chip-hour at hyperscaler list prices for H100, B200, Trainium2 and
   Trainium3 (Trainium launch prices from scenario draws, then the fitted list drift), and the
   cost per effective PFLOP-hour through each vendor's utilisation draw
   (``cost_per_pflop_hour``). The same chips' cost per effective PFLOP-hour on the owner-TCO
   basis of step 2 (``owner_cost_per_pflop_hour``: each chip's own, no ramp blending) sits
   beside each vendor's best offer on that basis (``vendor_cost``), so that a chip can be set
   against a vendor's best part of the day (the ``owner_cost_ratio`` theses).
6. **AWS custom silicon** (:mod:`forecast.models.aws_silicon`): AWS's spend at cost = TAM x
   AWS share (the ``aws`` row of step 4) continues the fitted AWS fleet: shipments = spend /
   the unit cost of the generation being bought (the fitted Trainium1-3, then the scenario's
   ``[roadmap.aws]`` generations at their launch, compute and price multiples:
   :func:`aws_roadmap`), fleet = last quarter's fleet x survival +
   shipments, rental revenue from the fleet (capped at the scenario's ceiling,
   ``aws_rental_revenue_ceiling_usd_billions``, by lowering billed utilisation), and the
   merchant-equivalent value of the quarter's shipments. The Graviton-inclusive run rate adds
   the scenario's Graviton run rate (``graviton_run_rate_usd_billions``, growing at
   ``graviton_growth_per_year``) to 4 x the quarter's rental revenue. Every path carries its
   unit in its ``unit`` attribute; the unit cost and the survival behind each path are the
   coordinates ``aws_unit_cost`` and ``aws_survival`` (draw, generation) of the shipments and
   fleet, so the stock-and-flow identities can be checked on the output.

In-sample quarters: the market model's posterior of the quarters it was fitted to (TAM,
spend and shares of the five groups, custom silicon spend), draw by draw the same posterior
draws as the forecast, are kept beside the paths (``Forecast.in_sample``, metrics
:data:`~forecast.core.scenario_contract.IN_SAMPLE_METRICS`) for theses over a period the data
have reached, such as calendar 2025 when the data end in 2025Q3. They are model estimates of
the past (the data are vendor proxies, not the TAM), not data.

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
from forecast.core.scenario_contract import IN_SAMPLE_METRICS, PRICED_CHIPS
from forecast.data.dataset import Dataset
from forecast.economics.cost_paths import launch_prices, scenario_costs
from forecast.models.aws_silicon import (
    aws_silicon_paths,
    custom_chips_run_rate,
    graviton_run_rate_paths,
)
from forecast.pipeline.results import Forecast, check_paths
from forecast.scenarios.supports import check_draws
from forecast.store.bundles import FitBundle


def _column(inputs: pd.DataFrame, name: str) -> np.ndarray:
    if name not in inputs:
        raise ForecastError(f"scenario has no input {name!r}")
    return inputs[name].to_numpy(float)


#: The AWS silicon model's in-sample quantities behind the history of each forecast path.
AWS_HISTORY = {"aws_spend_at_cost": "spend_at_cost", "aws_rental_revenue": "rental_revenue",
               "aws_merchant_value": "merchant_equivalent_value"}


def fitted_history(market: Any, aws_silicon: Any = None) -> pd.DataFrame:
    """In-sample posterior medians for fan charts: TAM and the five vendors' shares (the
    market model's: the share model is fitted to its measurements, so there is one history)
    and AWS's spend at cost, rental revenue and merchant-equivalent value (AWS silicon model).

    These are model estimates of the past (the data are vendor proxies, not TAM), labelled
    as such in charts. Tidy: metric, key, quarter, value.
    """
    history = market.forecast([], include_history=True)
    quarters = [str(q) for q in history["quarter"].values]
    total = history["total"].transpose("draw", "quarter").values
    frames = [pd.DataFrame({"metric": "tam", "key": "", "quarter": quarters,
                            "value": np.median(total, axis=0)})]
    spend = history["spend"].transpose("draw", "quarter", "vendor").values
    share = np.median(spend / total[:, :, None], axis=0)
    vendors = [str(v) for v in history["vendor"].values]
    frames.append(pd.DataFrame({"metric": "share", "key": np.tile(vendors, len(quarters)),
                                "quarter": np.repeat(quarters, len(vendors)),
                                "value": share.reshape(-1)}))
    if aws_silicon is not None:
        samples = aws_silicon.history_samples()
        for metric, name in AWS_HISTORY.items():
            frames.append(pd.DataFrame({"metric": metric, "key": "",
                                        "quarter": aws_silicon.timeline,
                                        "value": np.median(samples[name], axis=0)}))
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
    market, share, price, aws_silicon = (bundle.models[name] for name in
                                         ("market", "share", "price", "aws_silicon"))
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
    # A value no reader can take is refused here, by input, not deep in the cost paths.
    check_draws(scenario, inputs)

    tam, shares, costs, other_custom, in_sample = _vendor_split(
        market, share, dataset, scenario, inputs, quarters, draws, seed)
    prices = _prices(price, quarters, draws, seed, scenario, inputs)
    data = _paths(tam, shares, costs["vendor_cost"], prices, quarters, other_custom)
    data["owner_cost_per_pflop_hour"] = costs["chip_cost"].assign_coords(
        draw=data["draw"].values).transpose("draw", "quarter", "chip").assign_attrs(
        unit="USD per effective PFLOP-hour (owner TCO basis)")
    aws = _aws_silicon(aws_silicon, data["spend"].sel(vendor="aws").values, quarters, seed,
                       inputs, aws_roadmap(scenario.roadmap, inputs, aws_silicon.generations))
    data["aws_spend_at_cost"] = aws["spend_at_cost"]
    data["aws_shipments"] = aws["shipments"]
    data["aws_fleet"] = aws["fleet"]
    data["aws_rental_revenue"] = aws["rental_revenue"]
    data["aws_merchant_value"] = aws["merchant_value"]
    data["aws_custom_chips_run_rate"] = aws["custom_chips_run_rate"]
    check_paths(data)
    models = (market, share, price, aws_silicon)
    return Forecast(
        data=data, scenario=scenario.name, fit_id=bundle.fit_id, seed=seed,
        theses_specs=list(scenario.theses.values()),
        history=fitted_history(market, aws_silicon), in_sample=in_sample,
        meta={"horizon": horizon, "data_end": data_end, "draws": draws,
              # Thesis errors count the posterior's effective samples, not the paths.
              "posterior_ess": min(model.diagnostics()["min_ess_bulk"] for model in models)},
    )


def _vendor_split(market: Any, share: Any, dataset: Dataset, scenario: Any,
                  inputs: pd.DataFrame, quarters: list[str], draws: int, seed: int
                  ) -> tuple[np.ndarray, xr.DataArray, xr.Dataset, np.ndarray, xr.Dataset]:
    """(TAM (draw, quarter), shares of the five groups, their cost paths with the priced
    chips' own costs (:func:`scenario_costs`), the custom fraction of ``other`` (draw,
    quarter)) over ``quarters``, and the in-sample posterior (:func:`in_sample_paths`)."""
    spend = market.forecast(quarters, draws=draws, seed=seed, include_history=True)
    future = spend.sel(quarter=quarters)
    tam = future["total"].transpose("draw", "quarter").values
    last = spend["spend"].sel(quarter=market.timeline[-1]).transpose("draw", "vendor")
    # The shares continue from the market model's own draws of the last quarter.
    start = (np.log(last.sel(vendor=share.vendors[1:]).values)
             - np.log(last.sel(vendor=share.vendors[0]).values)[:, None])
    costs = scenario_costs(dataset, inputs, quarters, seed=seed,
                           chip_prices=scenario.chip_prices,
                           ramp_quarters=scenario.setting("new_chip_ramp_quarters"),
                           roadmap=scenario.roadmap, price_erosion=scenario.price_erosion,
                           vendors=share.vendors, chips=PRICED_CHIPS)
    shares = _shares(share, quarters, draws, seed, costs["vendor_cost"].rename(
        "cost_per_pflop_hour"), inputs, start)
    # The custom (cloud-designed) part of ``other``: the market model's own split of the
    # group, applied to the share model's ``other`` spend.
    other_custom = (future["custom_other"] / future["spend"].sel(vendor="other")).transpose(
        "draw", "quarter").values
    history = spend.sel(quarter=list(market.timeline))
    return tam, shares, costs, other_custom, in_sample_paths(history, list(share.vendors))


def in_sample_paths(history: xr.Dataset, vendors: list[str]) -> xr.Dataset:
    """The market model's in-sample posterior as the forecast's metrics, draw by draw.

    Parameters
    ----------
    history
        The in-sample quarters of ``FittedMarket.forecast(..., include_history=True)``: the
        same call, hence the same posterior draws, as the forecast's TAM.
    vendors
        The forecast's vendor axis (the share paths' order).

    Returns
    -------
    xarray.Dataset
        :data:`~forecast.core.scenario_contract.IN_SAMPLE_METRICS` over (draw, quarter[,
        vendor]): ``tam`` = the total, ``spend`` per vendor, ``share`` = spend / total,
        ``custom_silicon_spend`` = Google + AWS + the custom part of ``other``.
    """
    spend = history["spend"].sel(vendor=vendors).transpose("draw", "quarter", "vendor")
    total = history["total"].transpose("draw", "quarter")
    custom = (spend.sel(vendor="google") + spend.sel(vendor="aws")
              + history["custom_other"].transpose("draw", "quarter"))
    values = {"tam": total, "share": spend / total, "spend": spend,
              "custom_silicon_spend": custom}
    return xr.Dataset({name: values[name] for name in IN_SAMPLE_METRICS})


def _shares(share: Any, quarters: list[str], draws: int, seed: int, costs: xr.DataArray,
            inputs: pd.DataFrame, start: np.ndarray) -> xr.DataArray:
    """Vendor shares (draw, quarter, vendor) driven by the cost paths and scenario inputs,
    from the log-ratios ``start`` (draws, rivals) of the last data quarter."""
    paths = share.forecast(
        quarters, draws=draws, seed=seed, cost_paths=costs, start_log_ratios=start,
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
           quarters: list[str], other_custom: np.ndarray) -> xr.Dataset:
    """TAM, shares, spend per vendor, custom silicon spend (Google + AWS + the custom
    fraction ``other_custom`` of ``other``), vendor costs, chip prices."""
    spend = xr.DataArray(tam[:, :, None] * shares.values, coords=shares.coords,
                         dims=shares.dims)
    custom = (spend.sel(vendor="google") + spend.sel(vendor="aws")
              + other_custom * spend.sel(vendor="other"))
    coords = {"draw": np.arange(len(tam)), "quarter": quarters}
    return xr.Dataset(
        {
            "tam": (("draw", "quarter"), tam),
            "share": shares.assign_coords(draw=coords["draw"]),
            "spend": spend.assign_coords(draw=coords["draw"]),
            "custom_silicon_spend": (("draw", "quarter"), custom.transpose(
                "draw", "quarter").values),
            "vendor_cost": costs.transpose("draw", "quarter", "vendor").assign_coords(
                draw=coords["draw"]).rename(vendor="cost_vendor"),
            "price": prices["price"],
            "cost_per_pflop_hour": prices["cost_per_pflop_hour"],
        },
        coords=coords,
    )


#: Units of the AWS silicon paths (each path's ``unit`` attribute): money per quarter, except
#: the run rate, a yearly rate at each quarter.
AWS_PATH_UNITS = {
    "spend_at_cost": "USD billions per quarter (AWS's accelerator spend at cost)",
    "shipments": "chips per quarter",
    "fleet": "chips in service at quarter end",
    "rental_revenue": "USD billions per quarter (Trainium rental revenue)",
    "merchant_value": "USD billions per quarter (merchant-equivalent value of the shipments)",
    "custom_chips_run_rate": "USD billions per year (4 x the quarter's Trainium rental revenue "
                             "+ the Graviton run rate)",
}


def aws_roadmap(roadmap: Sequence[Any], inputs: pd.DataFrame, fitted: pd.DataFrame
                ) -> list[dict[str, Any]]:
    """The scenario's AWS generations after the fitted ones, per draw, for the AWS silicon
    paths (:func:`~forecast.models.aws_silicon.paths.generation_arrays`).

    Each takes over AWS's spend around its launch quarter (its ramp midpoint, never before
    the quarter after its predecessor's), with its predecessor's dense FP8 compute x its
    ``performance`` input, at its predecessor's unit cost x its ``price`` input (the
    roadmap's price per chip as a multiple of the predecessor's, as the cost paths read it).

    Parameters
    ----------
    roadmap
        The scenario's ``[roadmap]`` generations (``scenario.roadmap``); other vendors' and
        generations already fitted are skipped.
    inputs
        The scenario's input draws, one row per path.
    fitted
        The fit's generations (generation, ramp_midpoint, fp8_dense_tflops).

    Raises
    ------
    ForecastError
        If an AWS generation does not follow the one before it (the fleet's generations are
        a chain).
    """
    names = [str(g) for g in fitted["generation"]]
    tflops: dict[str, Any] = dict(zip(names, fitted["fp8_dense_tflops"].astype(float),
                                      strict=True))
    midpoint: Any = float(quarter_index(str(fitted["ramp_midpoint"].iloc[-1])))
    previous, rows = names[-1], []
    for chip in roadmap:
        if chip.vendor != "aws" or chip.name in tflops:
            continue
        if chip.after != previous:
            raise ForecastError(f"roadmap.aws.{chip.name}: the AWS silicon forecast needs it "
                                f"to follow {previous}, not {chip.after}")
        midpoint = np.maximum(inputs[chip.launch].to_numpy(float), midpoint + 1.0)
        tflops[chip.name] = tflops[previous] * inputs[chip.performance].to_numpy(float)
        rows.append({"generation": chip.name, "ramp_midpoint": midpoint,
                     "fp8_dense_tflops": tflops[chip.name],
                     "cost_ratio": inputs[chip.price].to_numpy(float)})
        previous = chip.name
    return rows


def _aws_silicon(fitted: Any, spend: np.ndarray, quarters: list[str], seed: int,
                 inputs: pd.DataFrame, roadmap: list[dict[str, Any]]
                 ) -> dict[str, xr.DataArray]:
    """The AWS silicon paths over AWS's spend at cost (draw, quarter; USD bn a quarter), with
    the generations of :func:`aws_roadmap` after the fitted ones.

    Rental revenue is capped at the scenario's ceiling; the Graviton run rate is the
    scenario's level at the data end growing at its yearly rate. Shipments and fleet are per
    generation, with the unit costs and survival behind them as coordinates.
    """
    ceiling = _column(inputs, "aws_rental_revenue_ceiling_usd_billions")[:, None]
    paths = aws_silicon_paths(fitted, spend, quarters, np.random.default_rng(seed),
                              generations=roadmap, ceiling=ceiling)
    start = quarter_index(fitted.timeline[-1])
    years = np.array([quarter_index(q) - start for q in quarters]) / 4.0
    graviton = graviton_run_rate_paths(_column(inputs, "graviton_run_rate_usd_billions"),
                                       _column(inputs, "graviton_growth_per_year"), years)
    generations = [str(g) for g in paths["generations"]]
    per_chip = {"aws_unit_cost": (("draw", "generation"), paths["unit_cost"],
                                  {"unit": "USD per chip at cost"}),
                "aws_survival": (("draw", "generation"), np.repeat(
                    paths["survival"][:, None], len(generations), axis=1),
                    {"unit": "share of the fleet in service after a quarter"})}
    coords = {"draw": np.arange(spend.shape[0]), "quarter": quarters,
              "generation": generations, **per_chip}
    flows = {"spend_at_cost": paths["spend_at_cost"], "rental_revenue": paths["rental_revenue"],
             "merchant_value": paths["merchant_equivalent_value"],
             "custom_chips_run_rate": custom_chips_run_rate(paths["rental_run_rate"], graviton)}
    result = {name: xr.DataArray(values, dims=("draw", "quarter"),
                                 coords={"draw": coords["draw"], "quarter": quarters},
                                 attrs={"unit": AWS_PATH_UNITS[name]})
              for name, values in flows.items()}
    for name in ("shipments", "fleet"):
        result[name] = xr.DataArray(paths[name], dims=("draw", "quarter", "generation"),
                                    coords=coords, attrs={"unit": AWS_PATH_UNITS[name]})
    return result
