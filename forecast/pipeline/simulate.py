"""Joint sample paths: posterior draws of the spend and price models x scenario input draws.

For each of ``draws`` paths, one row of scenario inputs (correlated through the scenario's
copula) and one resampled posterior draw of each model are combined quarter by quarter:

1. **Cost per effective PFLOP-hour per vendor group** under the scenario's draws of
   utilisation, TCO inputs, roadmap chips, prices and launch quarters
   (:func:`forecast.economics.cost_paths.scenario_costs`), every chip's price falling with
   age at M2's posterior rate for its vendor (on the same posterior samples as the price
   paths of step 6) shifted by the scenario's ``[price_erosion]`` inputs; the rivals' log
   gaps to NVIDIA drive their relative positions.
2. **Vendor spend** (:mod:`forecast.models.spend`): the common level continues its damped
   trend, each rival's position moves towards its cost-driven target, ramps lift it; the
   five groups' spend (``nvidia``, ``amd``, ``google``, ``aws``, ``other``) comes from the
   one posterior, and ``tam`` is their sum on every path; ``share`` = spend / tam;
   ``custom_silicon_spend`` = Google + AWS + the custom part of ``other``.
3. **AWS custom silicon** (M5, inside the same posterior): the fleet continues from its
   fitted last quarter over AWS's own spend paths, with the scenario's ``[roadmap.aws]``
   generations (:func:`aws_roadmap`), rental prices falling at the cost paths' rate for
   AWS's chips (M2's, shifted by the scenario), rental revenue capped at the scenario's ceiling
   (``aws_rental_revenue_ceiling_usd_billions``), and the merchant-equivalent value of the
   shipments' effective compute; the Graviton-inclusive run rate adds the scenario's
   Graviton run rate to 4 x the quarter's rental revenue.
4. **The stack**: the rivals' positions are the out-of-sample stack the published share
   backtest learnt (:func:`~forecast.store.shipped.published_stack_weight`): each path
   keeps the model's positions with the learnt weight, else holds them where each rival's
   last report left them (:func:`~forecast.models.spend.simulation.held_positions`); TAM
   and shares stay the one posterior's sum and ratios on every path.
5. **Bounds** (M6, :mod:`forecast.economics.bounds`): what can be funded, powered and built,
   each a path of accelerator dollars a year from the scenario's inputs (``bound_funding``,
   ``bound_power``, ``bound_supply``); the TAM's growth fades against the tightest.
6. **Prices**: price per chip-hour at hyperscaler list prices for the priced chips (M2) and
   the cost per effective PFLOP-hour through each vendor's utilisation draw; the same chips'
   owner-TCO cost beside each vendor's best offer (the ``owner_cost_ratio`` theses).

In-sample quarters (the spend model's window) are kept beside the paths
(``Forecast.in_sample``) for theses over a period the data have reached. They are model
estimates of the past (the data are vendor proxies, not the TAM), not data.

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
from forecast.economics.bounds import BOUND_INPUTS, BOUND_UNIT, bound_paths, quarter_years, tightest
from forecast.economics.cost_paths import launch_prices, scenario_costs, yearly_log_price_change
from forecast.models.spend.math import COST_VENDOR, RIVALS, VENDORS
from forecast.models.spend.statements import graviton_run_rate_paths
from forecast.pipeline.results import Forecast, check_paths
from forecast.scenarios.supports import check_draws
from forecast.store.bundles import FitBundle
from forecast.store.shipped import published_stack_weight

#: Stream of the stack's choice of paths, apart from every other random number of the seed.
STACK_STREAM = 1729
#: The spend model's metrics of the forecast (the AWS ones keep their units).
SPEND_METRICS = ("aws_spend_at_cost", "aws_shipments", "aws_fleet", "aws_rental_revenue",
                 "aws_merchant_value")


def _column(inputs: pd.DataFrame, name: str) -> np.ndarray:
    if name not in inputs:
        raise ForecastError(f"scenario has no input {name!r}")
    return inputs[name].to_numpy(float)


def fitted_history(paths: xr.Dataset) -> pd.DataFrame:
    """In-sample posterior medians for fan charts (tidy: metric, key, quarter, value): TAM,
    the five vendors' shares and AWS's three quantities. Model estimates of the past."""
    quarters = np.array([str(q) for q in paths["quarter"].values], dtype=object)
    vendors = np.array([str(v) for v in paths["vendor"].values], dtype=object)
    share = np.median(paths["share"].transpose("draw", "quarter", "vendor").values, axis=0)
    # (metric, keys, medians by quarter then key), in the order the rows go.
    parts = [("tam", np.array([""], dtype=object), np.median(paths["tam"].values, axis=0)),
             ("share", vendors, share.reshape(-1))]
    parts += [(metric, np.array([""], dtype=object), np.median(paths[metric].values, axis=0))
              for metric in ("aws_spend_at_cost", "aws_rental_revenue", "aws_merchant_value")]
    # One frame from whole columns, not one frame per metric concatenated.
    return pd.DataFrame({
        "metric": np.concatenate([np.full(len(values), metric, dtype=object)
                                  for metric, _, values in parts]),
        "key": np.concatenate([np.tile(keys, len(quarters)) for _, keys, _ in parts]),
        "quarter": np.concatenate([np.repeat(quarters, len(keys)) for _, keys, _ in parts]),
        "value": np.concatenate([values for _, _, values in parts])})


def simulate(bundle: FitBundle, dataset: Dataset, scenario: Any, draws: int | None = None,
             seed: int | None = None, horizon: int | None = None,
             inputs: pd.DataFrame | None = None, stack: bool = True) -> Forecast:
    """Joint sample paths of every output under ``scenario``; see the module docstring.

    ``inputs`` replaces the scenario's own input draws (``scenario.sample(draws, seed)``): a
    frame with one row per path and a column per input, e.g. every input held at a quantile
    for a one-at-a-time sensitivity run. ``draws`` defaults to its length and must equal it.
    ``stack`` False publishes the model's own positions on every path.
    """
    if inputs is not None and draws is None:
        draws = len(inputs)
    draws = scenario.draws if draws is None else int(draws)
    seed = scenario.seed if seed is None else int(seed)
    horizon = scenario.horizon if horizon is None else int(horizon)
    if draws <= 0:
        raise ForecastError(f"draws must be > 0, got {draws}")
    spend_model, price = bundle.models["spend"], bundle.models["price"]
    data_end = spend_model.window[-1]
    if horizon < year_of(data_end) + 1:
        raise ForecastError(f"horizon {horizon} is not after the end of the data "
                            f"({data_end}); give a later year")
    quarters = quarter_labels(quarter_index(data_end) + 1, quarter_index(f"{horizon}Q4"))
    if inputs is None:
        inputs = scenario.sample(draws, seed=seed)
    elif len(inputs) != draws:
        raise ForecastError(f"inputs have {len(inputs)} rows, not one per draw ({draws})")
    else:
        inputs = inputs.reset_index(drop=True)
    # A value no reader can take is refused here, by input, not deep in the cost paths.
    check_draws(scenario, inputs)
    # One unit cost per chip: the cost paths price AWS's chips at the posterior draws behind
    # each path's fleet.
    unit_costs = spend_model.unit_costs(spend_model.sample_index(draws, seed))
    # One price per chip: the cost paths' prices and AWS's rental prices fall at M2's rate,
    # on the same posterior samples as the price paths below.
    decay = price.vendor_decay(draws, seed)
    # The chips' capex basis (median unit prices) is the one the spend model was fitted on
    # (scenario_costs' default seed, as historical_costs'), not redrawn with this seed.
    costs = scenario_costs(dataset, inputs, quarters, **scenario.cost_tables(),
                           price_decay=decay,
                           ramp_quarters=scenario.setting("new_chip_ramp_quarters"),
                           vendors=VENDORS, chips=PRICED_CHIPS, unit_costs=unit_costs)
    bounds = bound_paths({name: _column(inputs, name) for names in BOUND_INPUTS.values()
                          for name in names}, quarter_years(quarters))
    weight = published_stack_weight() if stack else None
    held = stacked_paths(weight, draws, seed)
    aws_fall = yearly_log_price_change(
        decay, {"aws": _column(inputs, scenario.price_erosion["aws"])}, draws)["aws"]
    paths = _spend_paths(spend_model, scenario, inputs, costs, quarters, draws,
                         seed, tightest(bounds)[0], held, -aws_fall)
    history = paths.isel(quarter=slice(0, len(spend_model.window)))
    data = paths.sel(quarter=quarters)
    draw = data["draw"].values
    prices = _prices(price, quarters, draws, seed, scenario, inputs)
    # The bounds as the TAM met them: lifted where they start below realised spend.
    lift = data["bound_lift"].values[:, None]
    # One assign: each Dataset.__setitem__ would align the whole dataset again.
    data = data.drop_vars("bound_lift").assign(
        **_cost_variables(costs, draw),
        price=prices["price"], cost_per_pflop_hour=prices["cost_per_pflop_hour"],
        aws_custom_chips_run_rate=_run_rate(data, spend_model, quarters, inputs),
        **{f"bound_{name}": xr.DataArray(values * lift, dims=("draw", "quarter"),
                                         attrs={"unit": BOUND_UNIT})
           for name, values in bounds.items()})
    check_paths(data)
    models = (spend_model, price)
    return Forecast(
        data=data, scenario=scenario.name, fit_id=bundle.fit_id, seed=seed,
        theses_specs=list(scenario.theses.values()),
        history=fitted_history(history),
        in_sample=xr.Dataset({name: history[name] for name in IN_SAMPLE_METRICS}),
        meta={"horizon": horizon, "data_end": data_end, "draws": draws,
              # Thesis errors count the posterior's effective samples, not the paths.
              "posterior_ess": min(model.effective_samples() for model in models),
              "stack": None if held is None else {"weight": weight,
                                                  "held_paths": int(held.sum())}},
    )


def _cost_variables(costs: xr.Dataset, draw: np.ndarray) -> dict[str, xr.DataArray]:
    """The cost paths' variables a forecast publishes, on the forecast's draws."""
    return {
        "vendor_cost": costs["vendor_cost"].transpose("draw", "quarter", "vendor").rename(
            vendor="cost_vendor").assign_coords(draw=draw),
        "owner_cost_per_pflop_hour": costs["chip_cost"].assign_coords(draw=draw).transpose(
            "draw", "quarter", "chip").assign_attrs(
            unit="USD per effective PFLOP-hour (owner TCO basis)"),
        "chip_unit_cost": costs["chip_unit_cost"].assign_coords(draw=draw)}


def stacked_paths(weight: float | None, draws: int, seed: int) -> np.ndarray | None:
    """Which paths hold the rivals' positions in a stack giving the model ``weight``: each
    path independently with probability ``1 - weight`` (None: no stack)."""
    if weight is None:
        return None
    rng = np.random.default_rng(np.random.SeedSequence([seed, STACK_STREAM]))
    return rng.random(draws) >= weight


def cost_gaps(vendor_cost: xr.DataArray) -> np.ndarray:
    """The rivals' log cost gaps to NVIDIA (draw, rival, quarter) from the vendor groups'
    cost paths (draw, quarter, vendor)."""
    log_cost = np.log(vendor_cost.transpose("draw", "quarter", "vendor"))
    nvidia = log_cost.sel(vendor="nvidia").values
    gaps = [log_cost.sel(vendor=COST_VENDOR[rival]).values - nvidia for rival in RIVALS]
    return np.stack(gaps, axis=1)


def _spend_paths(spend_model: Any, scenario: Any, inputs: pd.DataFrame,
                 costs: xr.Dataset, quarters: list[str], draws: int,
                 seed: int, bound: np.ndarray, held: np.ndarray | None,
                 price_decline: np.ndarray) -> xr.Dataset:
    """The spend model's paths over its window and ``quarters`` (the rivals driven by the
    cost paths ``costs``; the TAM's growth fading against ``bound``, the tightest of M6's
    bounds; the rivals' positions held on the ``held`` paths; AWS's rental prices falling by
    ``price_decline`` a year; AWS's shipments valued at the cost paths' NVIDIA price per
    dense PFLOP), with shares and custom silicon spend."""
    ratio = _column(inputs, "mfu_aws") / _column(inputs, "mfu_nvidia")
    nvidia_price = costs["price_per_pflop"].sel(vendor="nvidia").transpose("draw", "quarter")
    paths = spend_model.forecast(
        quarters, draws=draws, seed=seed, cost_gap=cost_gaps(costs["vendor_cost"]),
        include_history=True,
        generations=aws_roadmap(scenario.roadmap, inputs, spend_model.generations),
        ceiling=_column(inputs, "aws_rental_revenue_ceiling_usd_billions")[:, None],
        utilisation_ratio=ratio, bound=bound, held=held, price_decline=price_decline,
        merchant_price=nvidia_price.values)
    return paths.assign(
        share=(paths["spend"] / paths["tam"]).assign_attrs(
            unit="fraction of spend (five vendor groups)"),
        custom_silicon_spend=(paths["spend"].sel(vendor="google")
                              + paths["spend"].sel(vendor="aws")
                              + paths["custom_other"]).assign_attrs(
            unit="USD billions per quarter")).drop_vars("custom_other")


def _run_rate(data: xr.Dataset, spend_model: Any, quarters: list[str],
              inputs: pd.DataFrame) -> xr.DataArray:
    """The Graviton-inclusive run rate: 4 x the quarter's rental revenue plus the scenario's
    Graviton run rate at the data end growing at its yearly rate (USD bn a year)."""
    start = quarter_index(spend_model.window[-1])
    years = np.array([quarter_index(q) - start for q in quarters]) / 4.0
    graviton = graviton_run_rate_paths(_column(inputs, "graviton_run_rate_usd_billions"),
                                       _column(inputs, "graviton_growth_per_year"), years)
    values = 4.0 * data["aws_rental_revenue"].transpose("draw", "quarter").values + graviton
    return xr.DataArray(values, dims=("draw", "quarter"), attrs={
        "unit": "USD billions per year (4 x the quarter's Trainium rental revenue + the "
                "Graviton run rate)"})


def _prices(price: Any, quarters: list[str], draws: int, seed: int, scenario: Any,
            inputs: pd.DataFrame) -> xr.Dataset:
    """List prices per chip-hour and cost per effective PFLOP-hour of the priced chips."""
    utilisation = {group: _column(inputs, f"mfu_{group}")
                   for group in ("nvidia", "amd", "google", "aws")}
    # Chips with no price history start from the scenario's [chip_prices] inputs.
    launch = launch_prices(scenario.chip_prices, inputs)
    return price.forecast(quarters, draws=draws, seed=seed, chips=list(PRICED_CHIPS),
                          basis="list", launch_prices=launch, utilisation=utilisation)


def aws_roadmap(roadmap: Sequence[Any], inputs: pd.DataFrame, fitted: pd.DataFrame
                ) -> list[dict[str, Any]]:
    """The scenario's AWS generations after the fitted ones, per draw, for the fleet paths
    (:func:`~forecast.models.spend.aws_paths.generation_arrays`).

    Each takes over AWS's spend around its launch quarter (its ramp midpoint, never before
    the quarter after its predecessor's), with its predecessor's dense FP8 compute x its
    ``performance`` input, at its predecessor's unit cost x its ``price`` input.

    Raises
    ------
    ForecastError
        If an AWS generation does not follow the one before it (the fleet's generations are
        a chain).
    """
    names = [str(g) for g in fitted["generation"]]
    tflops: dict[str, Any] = dict(zip(names, fitted["fp8_dense_tflops"].astype(float),
                                      strict=True))
    midpoint: Any = float(fitted["ramp_midpoint"].iloc[-1])
    previous, rows = names[-1], []
    for chip in roadmap:
        if chip.vendor != "aws" or chip.name in tflops:
            continue
        if chip.after != previous:
            raise ForecastError(f"roadmap.aws.{chip.name}: the AWS fleet forecast needs it "
                                f"to follow {previous}, not {chip.after}")
        midpoint = np.maximum(inputs[chip.launch].to_numpy(float), midpoint + 1.0)
        tflops[chip.name] = tflops[previous] * inputs[chip.performance].to_numpy(float)
        rows.append({"generation": chip.name, "ramp_midpoint": midpoint,
                     "fp8_dense_tflops": tflops[chip.name],
                     "cost_ratio": inputs[chip.price].to_numpy(float)})
        previous = chip.name
    return rows
