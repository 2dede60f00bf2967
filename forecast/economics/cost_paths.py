"""Cost per effective PFLOP-hour paths per vendor under scenario draws, for forecasting shares.

The basis is the one the share model was fitted on (:mod:`forecast.economics.chip_costs`):
owner TCO per chip-hour from unit prices, over dense PFLOPS x the vendor's MFU, best offer per
vendor with new chips ramping in. Ahead of the data, per draw:

- every covered catalogue chip keeps its median unit price of ``price_year`` (default the last
  year of volume data), held flat: a cost fall common to all vendors leaves shares unchanged,
  so none is applied;
- the scenario's ``[chip_prices]`` table names the input giving a chip's price per chip-hour.
  Cost paths use those prices as ratios within a vendor group: the earliest-released mapped
  chip of a group keeps its unit-price capex, and each later mapped chip of the group is
  priced at that capex x (its price / the first chip's price). In the shipped scenarios
  Trainium3 is priced at Trainium2's capex x (``trainium3_price_usd_per_chip_hour`` /
  ``trainium2_price_usd_per_chip_hour``);
- future chips (:data:`FUTURE_CHIPS`) launch at a scenario quarter with a multiple of a base
  chip's FP8 throughput for a multiple of its capex, and keep its TDP (an assumption);
- the capex of :data:`PRICE_RESPONSE`'s vendor group (NVIDIA) falls by its input's yearly rate
  from the first forecast quarter on.

The modules this layer is split into are re-exported here, so the former import surface
(``from forecast.economics.cost_paths import share_inputs, ShareData, COST_BASIS, ...``) keeps
working.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.calendar import quarter_index
from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.economics.chip_costs import (
    COST_BASIS,
    TCO_INPUTS,
    chip_capex,
    chip_specs,
    cost_basis,
    cost_per_pflop,
    historical_costs,
)
from forecast.economics.dollars import sample_vendor_dollars
from forecast.economics.offers import DEFAULT_RAMP_QUARTERS, best_offer
from forecast.economics.pricing import (
    DEFAULT_MC_DRAWS,
    DEFAULT_POINT_SPREAD,
    PricingRule,
    price_key,
    pricing_rules,
    pricing_table,
    sample_unit_prices,
)
from forecast.economics.share_inputs import ShareData, observed_shares, share_inputs
from forecast.economics.vendors import custom_silicon_groups, reference_vendor, share_vendors

__all__ = [
    "COST_BASIS",
    "DEFAULT_MC_DRAWS",
    "DEFAULT_POINT_SPREAD",
    "FUTURE_CHIPS",
    "PRICE_RESPONSE",
    "UNWIRED_CHIP_PRICES",
    "FutureChip",
    "PricingRule",
    "ShareData",
    "chip_capex",
    "custom_silicon_groups",
    "historical_costs",
    "launch_prices",
    "observed_shares",
    "price_key",
    "pricing_rules",
    "pricing_table",
    "reference_vendor",
    "sample_unit_prices",
    "sample_vendor_dollars",
    "scenario_cost_paths",
    "share_inputs",
    "share_vendors",
]


@dataclass(frozen=True)
class FutureChip:
    """A chip beyond the catalogue, defined by scenario inputs relative to a base chip.

    Attributes
    ----------
    name
        Column label.
    base
        The catalogue (or ``[chip_prices]``-priced) chip it is measured against; it takes the
        base chip's vendor group and TDP.
    launch_input, fp8_input, price_input
        Inputs giving its launch quarter, its FP8 throughput as a multiple of the base chip's
        and its capex as a multiple of the base chip's.
    """

    name: str
    base: str
    launch_input: str
    fp8_input: str
    price_input: str


#: The future chips of the shipped scenarios' inputs (the input names fix which chips they are).
FUTURE_CHIPS: Final = (
    FutureChip("Trainium4", "Trainium3", "trainium4_launch_quarter",
               "trainium4_fp8_multiplier", "trainium4_price_ratio"),
    FutureChip("NVIDIA next generation", "B200", "nvidia_next_launch_quarter",
               "nvidia_next_fp8_multiplier", "nvidia_next_price_ratio"),
)
#: The vendor group whose capex erodes over the forecast and the input of its yearly fall.
PRICE_RESPONSE: Final = ("nvidia", "nvidia_price_response")
#: The ``[chip_prices]`` table of the shipped scenarios, for callers that do not pass their
#: scenario's table yet (``forecast.pipeline.simulate``); remove once every caller passes it.
#: It cannot be read from the scenario here: models import this module, and models never read
#: scenario files. A test holds it equal to ``scenarios/base.toml``.
UNWIRED_CHIP_PRICES: Final = {
    "Trainium2": "trainium2_price_usd_per_chip_hour",
    "Trainium3": "trainium3_price_usd_per_chip_hour",
}


def launch_prices(chip_prices: Mapping[str, str], inputs: pd.DataFrame) -> dict[str, np.ndarray]:
    """The draws of each chip's price per chip-hour, as the scenario's ``[chip_prices]`` maps.

    Parameters
    ----------
    chip_prices : Mapping of str to str
        Catalogue chip -> input name (``Scenario.chip_prices``).
    inputs : pandas.DataFrame
        Scenario draws, one row per draw (``Scenario.sample``).

    Returns
    -------
    dict of str to numpy.ndarray
        Chip -> ``(draws,)`` USD per chip-hour, in the table's order.

    Raises
    ------
    ForecastError
        When an input the table names is not a column of ``inputs``.
    """
    missing = [name for name in chip_prices.values() if name not in inputs]
    if missing:
        raise ForecastError(f"scenario has no input {missing[0]!r}")
    return {chip: inputs[name].to_numpy(float) for chip, name in chip_prices.items()}


@dataclass(frozen=True)
class _Columns:
    """Every chip column of the forecast: per-draw capex, TFLOPS and launch; TDP and group."""

    names: list[str]
    groups: list[str]
    capex: np.ndarray
    tflops: np.ndarray
    release: np.ndarray
    tdp: np.ndarray


def scenario_cost_paths(
    dataset: Dataset,
    inputs: pd.DataFrame,
    quarters: Sequence[str],
    price_year: int | None = None,
    point_spread: float = DEFAULT_POINT_SPREAD,
    seed: int = 0,
    chip_prices: Mapping[str, str] | None = None,
    ramp_quarters: int = DEFAULT_RAMP_QUARTERS,
) -> xr.DataArray:
    """Cost per effective PFLOP-hour paths per covered vendor under scenario input draws.

    Parameters
    ----------
    dataset
        The data (catalogue, prices, vendor groups).
    inputs
        Scenario draws (``Scenario.sample``): one row per draw.
    quarters
        Consecutive forecast quarters (labels).
    price_year
        Year of the unit prices held flat (default: the last year of volume data).
    point_spread, seed
        Of the unit-price draws whose medians are the capex.
    chip_prices
        The scenario's ``[chip_prices]`` table (``Scenario.chip_prices``). None stands for
        :data:`UNWIRED_CHIP_PRICES` (the shipped scenarios' table) until every caller passes
        its own.
    ramp_quarters
        Quarters a new chip takes to ramp (:func:`~forecast.economics.offers.best_offer`): the
        scenario's ``new_chip_ramp_quarters`` setting
        (:func:`~forecast.economics.offers.ramp_quarters_of`); the default
        :data:`~forecast.economics.offers.DEFAULT_RAMP_QUARTERS` is for callers without one.

    Returns
    -------
    xarray.DataArray
        ``(draw, quarter, vendor)`` USD per effective PFLOP-hour for the covered vendors.

    Raises
    ------
    ForecastError
        When an input is missing or ``chip_prices`` names a chip not in the catalogue.
    """
    vendors = share_vendors(dataset)
    specs = chip_specs(dataset)
    table = UNWIRED_CHIP_PRICES if chip_prices is None else chip_prices
    priced = _covered_chip_prices(table, dataset, specs)
    needed = [*(f"mfu_{v}" for v in vendors), *TCO_INPUTS, *dict.fromkeys(priced.values()),
              *(name for chip in FUTURE_CHIPS
                for name in (chip.launch_input, chip.fp8_input, chip.price_input)),
              PRICE_RESPONSE[1]]
    missing = [n for n in needed if n not in inputs.columns]
    if missing:
        raise ForecastError(f"scenario inputs lack: {', '.join(missing)}")
    labels = [str(q) for q in pd.PeriodIndex(list(quarters), freq="Q")]
    if price_year is None:
        price_year = int(dataset.volumes["quarter"].max().year)
    capex = chip_capex(dataset, [price_year], seed=seed, point_spread=point_spread)[price_year]
    col = {name: inputs[name].to_numpy(float) for name in needed}
    columns = _chip_columns(capex, specs, priced, col, len(inputs))
    out = _vendor_costs(columns, col, vendors, labels, ramp_quarters)
    return xr.DataArray(out, dims=("draw", "quarter", "vendor"),
                        coords={"draw": np.arange(len(inputs)), "quarter": labels,
                                "vendor": list(vendors)},
                        name="cost_per_pflop_hour",
                        attrs={"unit": "USD per effective PFLOP-hour",
                               "basis": cost_basis(ramp_quarters)})


def _covered_chip_prices(
    chip_prices: Mapping[str, str], dataset: Dataset, specs: pd.DataFrame
) -> dict[str, str]:
    """The table's entries for chips of the covered vendors (others do not enter the paths)."""
    catalogue = set(dataset.accelerators["chip"])
    unknown = [chip for chip in chip_prices if chip not in catalogue]
    if unknown:
        raise ForecastError(f"[chip_prices] names chips not in accelerators.csv: {unknown}")
    return {chip: name for chip, name in chip_prices.items() if chip in specs.index}


def _relative_chips(
    priced: Mapping[str, str], specs: pd.DataFrame, capex: pd.Series
) -> dict[str, str]:
    """Chip -> the chip its capex is scaled from: the earliest-released mapped chip of its group.

    The first mapped chip of each group (by release quarter, then table order) keeps its
    unit-price capex and is not in the result.
    """
    firsts: dict[str, str] = {}
    for chip in sorted(priced, key=lambda c: specs.loc[c, "release_qidx"]):
        firsts.setdefault(str(specs.loc[chip, "vendor_group"]), chip)
    relative = {chip: firsts[str(specs.loc[chip, "vendor_group"])] for chip in priced}
    relative = {chip: anchor for chip, anchor in relative.items() if chip != anchor}
    for chip, anchor in relative.items():
        if anchor not in capex.index:
            raise ForecastError(f"cannot price {chip} from {anchor}: {anchor} has no unit price")
    return relative


def _chip_columns(capex: pd.Series, specs: pd.DataFrame, priced: Mapping[str, str],
                  col: Mapping[str, np.ndarray], n: int) -> _Columns:
    """Catalogue chips, then the chips priced from another, then :data:`FUTURE_CHIPS`."""
    relative = _relative_chips(priced, specs, capex)
    chips = [c for c in capex.index if c not in relative]
    cat = specs.loc[chips]
    ones = np.ones(n)
    capex_m = np.outer(ones, capex.loc[chips].to_numpy(float))
    tflops_m = np.outer(ones, cat["tflops"].to_numpy(float))
    names, groups = list(chips), [str(g) for g in cat["vendor_group"]]
    extra: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    tdp = list(cat["tdp_w"].to_numpy(float))
    for chip, anchor in relative.items():
        chip_capex_draws = float(capex[anchor]) * col[priced[chip]] / col[priced[anchor]]
        tflops, watts, release = specs.loc[chip, ["tflops", "tdp_w", "release_qidx"]]
        extra.append((chip_capex_draws, tflops * ones, release * ones))
        names.append(chip)
        groups.append(str(specs.loc[chip, "vendor_group"]))
        tdp.append(watts)

    def base_columns(name: str) -> tuple[np.ndarray, np.ndarray]:
        j = names.index(name)
        if j < len(chips):
            return capex_m[:, j], tflops_m[:, j]
        return extra[j - len(chips)][0], extra[j - len(chips)][1]

    for future in FUTURE_CHIPS:
        base_capex, base_tflops = base_columns(future.base)
        extra.append((base_capex * col[future.price_input],
                      base_tflops * col[future.fp8_input], col[future.launch_input]))
        j = names.index(future.base)
        names.append(future.name)
        groups.append(groups[j])
        tdp.append(tdp[j])
    release_m = np.outer(ones, cat["release_qidx"].to_numpy(float))
    return _Columns(
        names=names, groups=groups,
        capex=np.column_stack([capex_m, *(e[0] for e in extra)]),
        tflops=np.column_stack([tflops_m, *(e[1] for e in extra)]),
        release=np.column_stack([release_m, *(e[2] for e in extra)]),
        tdp=np.asarray(tdp, dtype=float),
    )


def _vendor_costs(columns: _Columns, col: Mapping[str, np.ndarray], vendors: Sequence[str],
                  labels: Sequence[str], ramp_quarters: int) -> np.ndarray:
    """``(draws, quarters, vendors)`` best offer per vendor, quarter by quarter."""
    n = columns.capex.shape[0]
    codes = np.array([vendors.index(g) for g in columns.groups])
    mfu = np.column_stack([col[f"mfu_{g}"] for g in columns.groups])
    group, response = PRICE_RESPONSE
    moving = np.array([g == group for g in columns.groups])
    tco = {name: col[name][:, None] for name in TCO_INPUTS}
    # Only the responding vendor's capex moves over the quarters; every other chip's cost is
    # computed once.
    steady = cost_per_pflop(columns.capex[:, ~moving], columns.tflops[:, ~moving],
                            columns.tdp[None, ~moving], mfu[:, ~moving], tco)
    start = quarter_index(labels[0])
    out = np.full((n, len(labels), len(vendors)), np.nan)
    cost = np.empty((n, len(codes)))
    cost[:, ~moving] = steady
    for i, label in enumerate(labels):
        # One quarter per best_offer call: its (draws, chips) arrays stay in the CPU cache
        # (stacking quarters into one call measured 40% slower).
        quarter = quarter_index(label)
        erosion = (1.0 - col[response][:, None]) ** ((quarter - start) / 4.0)
        cost[:, moving] = cost_per_pflop(columns.capex[:, moving] * erosion,
                                         columns.tflops[:, moving], columns.tdp[None, moving],
                                         mfu[:, moving], tco)
        out[:, i, :], _ = best_offer(columns.release, cost, codes, quarter,
                                     ramp_quarters=ramp_quarters, n_vendors=len(vendors))
    return out
