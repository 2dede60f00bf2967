"""Cost per effective PFLOP-hour on the owner-TCO basis: per chip, and per vendor over history.

Cost per effective PFLOP-hour ``k_v(t)`` (the spend model's covariate) is computed on one basis
for every vendor: **owner TCO per chip-hour**
(:func:`forecast.economics.tco.owner_tco_per_chip_hour`) from the per-chip unit prices (the
median of each (key, year) price draw, :func:`chip_capex`) and the scenario's TCO inputs
(medians of ``chip_life_years``, ``owner_utilisation``, ``pue``, ``electricity_usd_per_kwh``,
``overhead_fraction``), divided by dense PFLOPS (FP8 where the chip has a figure, else BF16) x
the vendor's MFU (``mfu_<vendor>`` median); the vendor's offer is its best available chip with
new chips ramping in (:func:`forecast.economics.offers.best_offer`).

Why this basis: rental prices are missing for AMD, Trainium2, TPU v5p and every Blackwell part
and differ up to 5x by pricing type, whereas a purchase (or equivalent) price exists or can be
imputed for every chip that ships; and it is the same price that weights the dollar shares.
A vendor-constant factor in ``k`` (e.g. a biased MFU) is absorbed by the vendor's ecosystem
term in the spend model, so only relative changes over time identify the price coefficient.
Missing TDPs (Trainium1, Inferentia2) are imputed as the nearest-release same-group chip's
watts per BF16 TFLOPS times the chip's BF16 TFLOPS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.data.memo import per_dataset
from forecast.economics.offers import DEFAULT_RAMP_QUARTERS, best_offer, ramp_quarters_of
from forecast.economics.pricing import (
    DEFAULT_MC_DRAWS,
    DEFAULT_POINT_SPREAD,
    covered_catalogue,
    pricing_rules,
    sample_unit_prices,
)
from forecast.economics.tco import owner_tco_per_chip_hour
from forecast.economics.throughput import dense_tflops_for
from forecast.economics.vendors import share_vendors

__all__ = [
    "COST_BASIS",
    "TCO_INPUTS",
    "UNIT_COST_INPUTS",
    "chip_capex",
    "chip_specs",
    "cost_basis",
    "cost_per_pflop",
    "historical_costs",
    "input_medians",
    "unit_cost_medians",
]

#: Scenario inputs of the owner-TCO basis (their medians for history, their draws ahead).
TCO_INPUTS: Final = ("chip_life_years", "owner_utilisation", "pue", "electricity_usd_per_kwh",
                     "overhead_fraction")
#: Chips whose unit cost no source states: one documented imputation with its uncertainty,
#: a scenario input each. The same draws are M5's fleet's unit costs (the spend model's
#: prior is matched to them), M1's owner TCO of these chips and the Trainium theses': one
#: unit cost per chip everywhere.
UNIT_COST_INPUTS: Final = {"Trainium1": "trainium1_unit_cost_usd",
                           "Trainium2": "trainium2_unit_cost_usd",
                           "Trainium3": "trainium3_unit_cost_usd"}


def cost_basis(ramp_quarters: int = DEFAULT_RAMP_QUARTERS) -> str:
    """Text naming the cost basis (stored with the spend model's inputs)."""
    return ("owner TCO per chip-hour from unit prices (scenario TCO input medians) / "
            "(dense FP8-else-BF16 PFLOPS x vendor MFU median); best offer per vendor, "
            f"ramp {ramp_quarters} quarters")


COST_BASIS: Final = cost_basis()


def input_medians(scenario: Any, names: Sequence[str]) -> dict[str, float]:
    """Median of each named scenario input; ForecastError naming the missing ones."""
    missing = [n for n in names if n not in scenario.inputs]
    if missing:
        raise ForecastError(f"scenario {scenario.name!r} lacks input(s): {', '.join(missing)}")
    return {n: float(scenario.inputs[n].median()) for n in names}


def _impute_tdp(catalogue: pd.DataFrame) -> pd.Series:
    """TDP in watts, missing ones from the nearest-release same-group chip's W per BF16 TFLOPS
    (ties: the first such chip in catalogue order)."""
    tdp = catalogue["tdp_w"].to_numpy(float).copy()
    known = ~np.isnan(tdp)
    groups = catalogue["vendor_group"].to_numpy()
    released = catalogue["release_date"].to_numpy("datetime64[D]").astype(np.int64)
    bf16 = catalogue["bf16_dense_tflops"].to_numpy(float)
    for chip in np.flatnonzero(~known):
        pool = np.flatnonzero(known & (groups == groups[chip]))
        if pool.size:
            neighbour = pool[np.argmin(np.abs(released[pool] - released[chip]))]
            tdp[chip] = tdp[neighbour] / bf16[neighbour] * bf16[chip]
    return pd.Series(tdp, index=catalogue.index, name="tdp_w")


def chip_capex(
    dataset: Dataset,
    years: Sequence[int],
    draws: int = DEFAULT_MC_DRAWS,
    seed: int = 0,
    point_spread: float = DEFAULT_POINT_SPREAD,
    vendors: Sequence[str] | None = None,
    unit_costs: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Median price per unit (USD per chip) of every priced catalogue chip, per calendar year.

    Returns a frame indexed by chip with one column per year (the capex of the TCO basis), for
    the chips of ``vendors`` (default: the vendor groups the spend model covers).
    ``unit_costs`` (chip -> USD) replaces the prices of the chips of
    :data:`UNIT_COST_INPUTS` in every year. The result depends only on its arguments, so it
    is kept per dataset object (:func:`~forecast.data.memo.per_dataset`): repeated
    forecasts from one dataset compute it once.
    """
    groups = None if vendors is None else tuple(vendors)
    years = [int(y) for y in years]

    def compute() -> pd.DataFrame:
        rules = pricing_rules(dataset, point_spread, groups)
        prices = sample_unit_prices(rules, years, draws, np.random.default_rng(seed))
        catalogue = covered_catalogue(dataset, groups).index
        chips = [k for k in rules if k in catalogue]
        return pd.DataFrame({y: [float(np.median(prices[c, y])) for c in chips]
                             for y in years}, index=pd.Index(chips, name="chip"))

    frame = per_dataset(dataset, ("chip_capex", tuple(years), int(draws), int(seed),
                                  float(point_spread), groups), compute)
    return _with_unit_costs(frame.copy(), unit_costs)


def _with_unit_costs(frame: pd.DataFrame, unit_costs: Mapping[str, float] | None
                     ) -> pd.DataFrame:
    for chip, value in (unit_costs or {}).items():
        if chip in frame.index:
            frame.loc[chip] = float(value)
    return frame


def unit_cost_medians(scenario: Any) -> dict[str, float]:
    """The scenario's median unit cost of each chip of :data:`UNIT_COST_INPUTS` it has."""
    names = {chip: name for chip, name in UNIT_COST_INPUTS.items() if name in scenario.inputs}
    medians = input_medians(scenario, list(names.values()))
    return {chip: medians[name] for chip, name in names.items()}


def chip_specs(dataset: Dataset, vendors: Sequence[str] | None = None) -> pd.DataFrame:
    """Per catalogue chip of ``vendors`` (default: the spend model's): ``vendor_group``,
    ``release_qidx`` (quarter index), dense ``tflops`` (FP8 where known, else BF16) and
    ``tdp_w`` (missing ones imputed)."""
    groups = None if vendors is None else tuple(vendors)

    def compute() -> pd.DataFrame:
        catalogue = covered_catalogue(dataset, groups)
        tflops, _ = dense_tflops_for(catalogue.reset_index())
        release = [r.year * 4 + (r.month - 1) // 3 for r in catalogue["release_date"]]
        return pd.DataFrame({"vendor_group": catalogue["vendor_group"],
                             "release_qidx": np.array(release, float),
                             "tflops": tflops.to_numpy(float),
                             "tdp_w": _impute_tdp(catalogue).to_numpy(float)},
                            index=catalogue.index)

    return per_dataset(dataset, ("chip_specs", groups), compute).copy()


def cost_per_pflop(capex: np.ndarray, tflops: np.ndarray, tdp: np.ndarray,
                   mfu: np.ndarray, tco: Mapping[str, Any]) -> np.ndarray:
    """Owner TCO per chip-hour / effective PFLOPS; broadcasts over draws and chips."""
    per_hour = owner_tco_per_chip_hour(
        capex, tco["chip_life_years"], tco["owner_utilisation"], tdp, tco["pue"],
        tco["electricity_usd_per_kwh"], tco["overhead_fraction"])
    return np.asarray(per_hour) / (tflops / 1000.0 * mfu)


def historical_costs(
    dataset: Dataset,
    scenario: Any,
    quarters: Sequence[str],
    draws: int = DEFAULT_MC_DRAWS,
    seed: int = 0,
    point_spread: float = DEFAULT_POINT_SPREAD,
    ramp_quarters: int | None = None,
    vendors: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Cost per effective PFLOP-hour ``k_v(t)`` per vendor and quarter (module doc).

    Parameters
    ----------
    dataset, scenario
        Data and the scenario whose input medians set the basis (MFU, TCO).
    quarters
        Quarter labels.
    draws, seed, point_spread
        Of the unit-price draws whose medians are the capex (:func:`chip_capex`).
    ramp_quarters
        Quarters a new chip takes to ramp (:func:`~forecast.economics.offers.best_offer`);
        None: the scenario's ``new_chip_ramp_quarters`` setting
        (:func:`~forecast.economics.offers.ramp_quarters_of`).
    vendors
        The vendor axis (default: the groups of :func:`share_vendors`). A vendor beyond
        them (``other``) is priced alongside them, as the forecast's cost paths do, so
        asking for it changes no other vendor's costs.

    Returns
    -------
    pandas.DataFrame
        Index ``quarter`` (labels), one column per vendor, USD per effective PFLOP-hour.
    """
    if ramp_quarters is None:
        ramp_quarters = ramp_quarters_of(scenario)
    covered = share_vendors(dataset)
    vendors = covered if vendors is None else tuple(vendors)
    periods = pd.PeriodIndex(list(quarters), freq="Q")
    years = sorted({int(p.year) for p in periods})
    fixed = unit_cost_medians(scenario)
    capex = chip_capex(dataset, years, draws, seed, point_spread, unit_costs=fixed)
    extra = [v for v in vendors if v not in covered]
    if extra:
        wider = chip_capex(dataset, years, draws, seed, point_spread,
                           vendors=[*covered, *extra], unit_costs=fixed)
        capex = pd.concat([capex, wider.drop(capex.index, errors="ignore")])
    cat = chip_specs(dataset, [*covered, *extra])
    cat = cat[cat["vendor_group"].isin(vendors)]
    capex = capex.loc[[chip for chip in capex.index if chip in cat.index]]
    cat = cat.loc[list(capex.index)]
    tflops, tdp = cat["tflops"].to_numpy(float), cat["tdp_w"].to_numpy(float)
    tco = input_medians(scenario, TCO_INPUTS)
    mfu = input_medians(scenario, [f"mfu_{v}" for v in vendors])
    util = np.array([mfu[f"mfu_{g}"] for g in cat["vendor_group"]])
    codes = np.array([vendors.index(g) for g in cat["vendor_group"]])
    release = cat["release_qidx"].to_numpy(float)
    out = np.full((len(periods), len(vendors)), np.nan)
    for i, period in enumerate(periods):
        cost = cost_per_pflop(capex[int(period.year)].to_numpy(float), tflops, tdp, util, tco)
        best, _ = best_offer(release, cost[None, :], codes, period,
                             ramp_quarters=ramp_quarters, n_vendors=len(vendors))
        out[i] = best[0]
    return pd.DataFrame(out, index=pd.Index([str(p) for p in periods], name="quarter"),
                        columns=list(vendors))
