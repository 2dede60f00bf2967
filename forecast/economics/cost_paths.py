"""Cost per effective PFLOP-hour paths per vendor under scenario draws, for forecasting shares.

The basis is the one the spend model was fitted on (:mod:`forecast.economics.chip_costs`):
owner TCO per chip-hour from unit prices, over dense PFLOPS x the vendor's MFU, best offer per
vendor with new chips ramping in. Ahead of the data, per draw:

- every catalogue chip of the vendor axis starts from its median unit price of
  ``price_year`` (default the year of the data's latest observation);
- the scenario's ``[chip_prices]`` table names the input giving a chip's price per chip-hour.
  Cost paths use those prices as ratios within a vendor group: the earliest-released mapped
  chip of a group keeps its unit-price capex, and each later mapped chip of the group is
  priced at that capex x (its price / the first chip's price);
- a chip with a unit-cost input (the Trainiums, ``UNIT_COST_INPUTS`` in
  :mod:`forecast.economics.chip_costs`) takes that input's draw as its capex instead, so
  the shipped scenarios' ``[chip_prices]`` table leaves their cost paths unchanged;
- every vendor group's announced generations (the scenario's ``[roadmap]``,
  :mod:`forecast.economics.roadmap`) launch at a scenario quarter with a multiple of their
  predecessor's dense FLOPS for a multiple of its price per chip;
- every chip's price falls with age at M2's rate for its vendor group, from its launch or
  from the first forecast quarter: the price model's posterior yearly change in log price
  per chip-hour (``price_decay``, :meth:`~forecast.models.price.fitted.FittedPrice.vendor_decay`,
  one posterior sample per path), less the input the scenario's ``[price_erosion]`` names
  for the group (an extra log fall a year, 0 in base; a scenario shifts M2 with it and its
  rationale). The sum is capped at 0: a chip's price does not rise with age here, where a
  few of M2's samples read a market upswing as age.

The vendor axis is the spend model's groups (``data/vendor_groups.csv``) unless the caller
asks for others (``vendors``), e.g. all five groups including ``other``.

The modules this layer is split into are re-exported here (``COST_BASIS``, the pricing rules,
the vendor groups).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.calendar import quarter_index
from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.economics.chip_costs import (
    COST_BASIS,
    TCO_INPUTS,
    UNIT_COST_INPUTS,
    chip_capex,
    chip_specs,
    cost_basis,
    cost_per_pflop,
    historical_costs,
)
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
from forecast.economics.roadmap import (
    ChipColumns,
    GenerationLike,
    add_generations,
    erosion_factor,
    price_per_pflop,
    roadmap_inputs,
    yearly_log_price_change,
)
from forecast.economics.vendors import custom_silicon_groups, reference_vendor, share_vendors

__all__ = [
    "COST_BASIS",
    "DEFAULT_MC_DRAWS",
    "DEFAULT_POINT_SPREAD",
    "PricingRule",
    "chip_capex",
    "custom_silicon_groups",
    "frontier_tflops",
    "historical_costs",
    "launch_prices",
    "price_key",
    "pricing_rules",
    "pricing_table",
    "reference_vendor",
    "sample_unit_prices",
    "scenario_chips",
    "scenario_cost_paths",
    "scenario_costs",
    "share_vendors",
    "yearly_log_price_change",
]


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


def scenario_cost_paths(dataset: Dataset, inputs: pd.DataFrame, quarters: Sequence[str], *,
                        chip_prices: Mapping[str, str], roadmap: Iterable[GenerationLike],
                        price_erosion: Mapping[str, str],
                        price_decay: Mapping[str, np.ndarray], **options: Any) -> xr.DataArray:
    """Cost per effective PFLOP-hour paths per vendor group under scenario input draws.

    The ``vendor_cost`` of :func:`scenario_costs`; ``options`` are its keyword arguments
    but ``chips``.

    Parameters
    ----------
    dataset
        The data (catalogue, prices, vendor groups).
    inputs
        Scenario draws (``Scenario.sample``): one row per draw.
    quarters
        Consecutive forecast quarters (labels).
    price_year
        Year of the unit prices the paths start from (default: the year of the data's latest
        observation).
    point_spread, seed
        Of the unit-price draws whose medians are the capex (defaults: the fitted basis's).
    chip_prices
        The scenario's ``[chip_prices]`` table (``Scenario.chip_prices``).
    ramp_quarters
        Quarters a new chip takes to ramp (:func:`~forecast.economics.offers.best_offer`): the
        scenario's ``new_chip_ramp_quarters`` setting
        (:func:`~forecast.economics.offers.ramp_quarters_of`); the default
        :data:`~forecast.economics.offers.DEFAULT_RAMP_QUARTERS` is for callers without one.
    roadmap, price_erosion
        The scenario's ``[roadmap]`` generations and ``[price_erosion]`` table
        (``Scenario.roadmap``, ``Scenario.price_erosion``); ``**scenario.cost_tables()``
        passes the three tables.
    price_decay
        Vendor group -> ``(draws,)`` yearly change in log price per chip-hour with age, M2's
        posterior (:meth:`~forecast.models.price.fitted.FittedPrice.vendor_decay`), one per
        row of ``inputs``.
    vendors
        The vendor axis (default: the spend model's groups, :func:`share_vendors`).

    Returns
    -------
    xarray.DataArray
        ``(draw, quarter, vendor)`` USD per effective PFLOP-hour.

    Raises
    ------
    ForecastError
        As :func:`scenario_costs`.
    """
    costs = scenario_costs(dataset, inputs, quarters, chip_prices=chip_prices, roadmap=roadmap,
                           price_erosion=price_erosion, price_decay=price_decay, **options)
    return costs["vendor_cost"].rename("cost_per_pflop_hour")


def scenario_costs(
    dataset: Dataset,
    inputs: pd.DataFrame,
    quarters: Sequence[str],
    *,
    chip_prices: Mapping[str, str],
    roadmap: Iterable[GenerationLike],
    price_erosion: Mapping[str, str],
    price_decay: Mapping[str, np.ndarray],
    price_year: int | None = None,
    point_spread: float = DEFAULT_POINT_SPREAD,
    seed: int = 0,
    ramp_quarters: int = DEFAULT_RAMP_QUARTERS,
    vendors: Sequence[str] | None = None,
    chips: Sequence[str] = (),
    unit_costs: Mapping[str, np.ndarray] | None = None,
) -> xr.Dataset:
    """:func:`scenario_cost_paths` and, on the same draws, the own cost of some chips.

    Arguments as :func:`scenario_cost_paths`, and ``chips``: chips of the vendor axis (the
    catalogue's or a roadmap generation) whose own cost per effective PFLOP-hour is wanted,
    e.g. to compare one chip with a vendor's best offer on one basis; ``unit_costs``: chip ->
    its unit cost per draw (USD), for the chips of
    :data:`~forecast.economics.chip_costs.UNIT_COST_INPUTS` (the spend model's posterior
    draws, so that M1 and M5 read one unit cost per chip). A chip of that table without one
    takes its scenario input's draws.

    Returns
    -------
    xarray.Dataset
        ``vendor_cost`` (draw, quarter, vendor): each vendor's best offer (what
        :func:`scenario_cost_paths` returns); ``chip_cost`` (draw, quarter, chip): each of
        ``chips`` at its own eroded price, utilisation and TCO (no ramp blending), NaN
        before its launch in that draw. Both USD per effective PFLOP-hour, owner TCO basis.
        ``chip_unit_cost`` (draw, chip): each of ``chips``' unit cost before erosion.
        ``price_per_pflop`` (draw, quarter, vendor): the vendor's lowest price per dense
        PFLOP among its launched chips, eroded as the costs (what buying a vendor's compute
        costs: the merchant price M5 values AWS's shipments at).

    Raises
    ------
    ForecastError
        When an input is missing, a vendor has no ``[price_erosion]`` entry or no
        ``price_decay`` of one value per draw, ``chip_prices``
        names a chip not in the catalogue, a generation's predecessor is unknown, or a chip
        of ``chips`` is not on the vendor axis's chip columns (not in the catalogue,
        unpriced, or of another vendor group).
    """
    vendors = share_vendors(dataset) if vendors is None else tuple(vendors)
    erosion = dict(price_erosion)
    unsaid = [v for v in vendors if v not in erosion]
    if unsaid:
        raise ForecastError(f"the scenario's [price_erosion] has no input for {unsaid}: a "
                            "price held constant is said with an input fixed at 0")
    labels = [str(q) for q in pd.PeriodIndex(list(quarters), freq="Q")]
    columns, col = _columns(dataset, inputs, _Basis(price_year, point_spread, seed),
                            chip_prices, roadmap, vendors,
                            [*(f"mfu_{v}" for v in vendors), *TCO_INPUTS,
                             *(erosion[v] for v in vendors)],
                            _unit_costs(inputs, unit_costs))
    unknown = [chip for chip in chips if chip not in columns.names]
    if unknown:
        raise ForecastError(f"no cost path for {unknown}: the cost paths of {list(vendors)} "
                            f"hold {', '.join(columns.names)}")
    keep = [columns.names.index(chip) for chip in chips]
    rates = yearly_log_price_change(price_decay, {v: col[erosion[v]] for v in vendors},
                                    len(inputs))
    out, own, price = _vendor_costs(columns, col, rates, vendors, labels, ramp_quarters, keep)
    capex = np.column_stack([columns.capex[k] for k in keep]) if keep else np.empty(
        (len(inputs), 0))
    return _costs_dataset(out, own, capex, price, cost_basis(ramp_quarters),
                          {"draw": np.arange(len(inputs)), "quarter": labels,
                           "vendor": list(vendors), "chip": list(chips)})


def _costs_dataset(out: np.ndarray, own: np.ndarray, capex: np.ndarray, price: np.ndarray,
                   basis: str, coords: Mapping[str, object]) -> xr.Dataset:
    """:func:`scenario_costs`' arrays as one dataset, each with its unit."""
    unit = "USD per effective PFLOP-hour"
    return xr.Dataset(
        {"vendor_cost": xr.DataArray(out, dims=("draw", "quarter", "vendor"),
                                     attrs={"unit": unit, "basis": basis}),
         "chip_cost": xr.DataArray(own, dims=("draw", "quarter", "chip"),
                                   attrs={"unit": unit, "basis": "owner TCO per chip-hour "
                                          "over dense PFLOPS x the vendor's MFU"}),
         "chip_unit_cost": xr.DataArray(capex, dims=("draw", "chip"), attrs={
             "unit": "USD per chip (the capex at launch the owner TCO starts from)"}),
         "price_per_pflop": xr.DataArray(price, dims=("draw", "quarter", "vendor"), attrs={
             "unit": "USD per dense PFLOP (the vendor's cheapest launched chip, eroded)"})},
        coords=coords)


def scenario_chips(
    dataset: Dataset,
    inputs: pd.DataFrame,
    *,
    chip_prices: Mapping[str, str],
    roadmap: Iterable[GenerationLike],
    price_year: int | None = None,
    point_spread: float = DEFAULT_POINT_SPREAD,
    seed: int = 0,
    vendors: Sequence[str] | None = None,
) -> xr.Dataset:
    """Every chip the cost paths weigh, per draw: the catalogue's and the roadmaps'.

    For models that take a scenario's future chips or each vendor's frontier (the price
    model's ``new_chips`` and ``frontier_tflops``, the AWS generations of the spend model's
    M5 part), so that they read the same roadmap draws as the cost paths. Arguments as
    :func:`scenario_cost_paths`.

    Returns
    -------
    xarray.Dataset
        ``(draw, chip)`` variables ``capex`` (USD per chip at launch, before erosion),
        ``dense_tflops`` (FP8 where known, else BF16, per chip) and ``launch_quarter``
        (quarter index); per chip the coordinates ``vendor``, ``tdp_w`` and ``roadmap``
        (True for a scenario generation); ``attrs["vendors"]``, the vendor axis.
    """
    vendors = share_vendors(dataset) if vendors is None else tuple(vendors)
    columns, _ = _columns(dataset, inputs, _Basis(price_year, point_spread, seed), chip_prices,
                          roadmap, vendors, [])
    capex, tflops, release, tdp = columns.matrices()
    generations = {g.name for g in roadmap}
    dims = ("draw", "chip")
    return xr.Dataset(
        {"capex": (dims, capex, {"unit": "USD per chip"}),
         "dense_tflops": (dims, tflops, {"unit": "dense TFLOPS per chip"}),
         "launch_quarter": (dims, release, {"unit": "quarter index (year x 4 + quarter - 1)"})},
        coords={"draw": np.arange(len(inputs)), "chip": columns.names,
                "vendor": ("chip", columns.groups), "tdp_w": ("chip", tdp),
                "roadmap": ("chip", [name in generations for name in columns.names])},
        attrs={"vendors": list(vendors)})


def frontier_tflops(chips: xr.Dataset, quarters: Sequence[str]) -> xr.DataArray:
    """Dense TFLOPS of each vendor's fastest chip launched by each quarter, per draw.

    Parameters
    ----------
    chips
        :func:`scenario_chips`.
    quarters
        Quarter labels.

    Returns
    -------
    xarray.DataArray
        ``(draw, quarter, vendor)`` dense TFLOPS per chip (FP8 where known, else BF16); NaN
        before a vendor's first chip. Vendors in the order of ``chips.attrs["vendors"]``.
    """
    vendors = list(chips.attrs.get("vendors")
                   or dict.fromkeys(str(v) for v in chips["vendor"].values))
    labels = [str(q) for q in pd.PeriodIndex(list(quarters), freq="Q")]
    index = np.array([quarter_index(q) for q in labels], dtype=float)
    release, tflops = chips["launch_quarter"].values, chips["dense_tflops"].values
    out = np.full((release.shape[0], len(labels), len(vendors)), np.nan)
    for j, vendor in enumerate(vendors):
        cols = np.asarray(chips["vendor"].values == vendor)
        launched = release[:, None, cols] <= index[None, :, None]
        best = np.where(launched, tflops[:, None, cols], -np.inf).max(axis=2)
        out[:, :, j] = np.where(np.isfinite(best), best, np.nan)
    return xr.DataArray(out, dims=("draw", "quarter", "vendor"),
                        coords={"draw": chips["draw"].values, "quarter": labels,
                                "vendor": vendors},
                        name="frontier_tflops", attrs={"unit": "dense TFLOPS per chip"})


@dataclass(frozen=True)
class _Basis:
    """The unit-price draws behind the capex: year (None: the year of the data's latest
    observation), point spread and seed."""

    price_year: int | None
    point_spread: float
    seed: int


def _unit_costs(inputs: pd.DataFrame, given: Mapping[str, np.ndarray] | None
                ) -> dict[str, np.ndarray]:
    """Unit cost draws of the chips of ``UNIT_COST_INPUTS``: ``given``, else the inputs'."""
    out = {chip: inputs[name].to_numpy(float) for chip, name in UNIT_COST_INPUTS.items()
           if name in inputs}
    out.update({chip: np.asarray(values, dtype=float) for chip, values in (given or {}).items()})
    return out


def _columns(dataset: Dataset, inputs: pd.DataFrame, basis: _Basis,
             chip_prices: Mapping[str, str], roadmap: Iterable[GenerationLike],
             vendors: Sequence[str], also: Sequence[str],
             unit_costs: Mapping[str, np.ndarray] | None = None
             ) -> tuple[ChipColumns, dict[str, np.ndarray]]:
    """The chip columns of ``vendors`` (a chip of ``unit_costs`` at those draws of its unit
    cost) and the input draws they and ``also`` read."""
    generations = list(roadmap)
    specs = chip_specs(dataset, vendors)
    priced = _covered_chip_prices(chip_prices, dataset, specs)
    needed = list(dict.fromkeys([*also, *priced.values(),
                                 *roadmap_inputs(generations, vendors)]))
    missing = [n for n in needed if n not in inputs.columns]
    if missing:
        raise ForecastError(f"scenario inputs lack: {', '.join(missing)}")
    year = basis.price_year
    if year is None:
        # The data's last year: its latest revenue quarter or rental price.
        year = int(dataset.last_observation.year)
    capex = _axis_capex(dataset, year, basis.seed, basis.point_spread, vendors)
    col = {name: inputs[name].to_numpy(float) for name in needed}
    columns = _chip_columns(capex, specs, priced, col, len(inputs))
    for chip, values in (unit_costs or {}).items():
        if chip in columns.names:
            columns.capex[columns.names.index(chip)] = values
    add_generations(columns, generations, vendors, col)
    return columns, col


def _axis_capex(dataset: Dataset, year: int, seed: int, point_spread: float,
                vendors: Sequence[str]) -> pd.Series:
    """Capex of every priced chip of ``vendors``, each vendor's independent of the axis.

    The spend model's vendors are priced exactly as their fitted basis was (a price draw
    depends on the other rules of its sampling, and imputed chips on their neighbours); a
    vendor beyond them is priced alongside them, so asking for ``other`` changes no other
    vendor's path.
    """
    fitted = share_vendors(dataset)
    own = chip_capex(dataset, [year], seed=seed, point_spread=point_spread)[year]
    extra = [v for v in vendors if v not in fitted]
    if extra:
        wider = chip_capex(dataset, [year], seed=seed, point_spread=point_spread,
                           vendors=[*fitted, *extra])[year]
        own = pd.concat([own, wider.drop(own.index, errors="ignore")])
    groups = chip_specs(dataset, [*fitted, *extra])["vendor_group"]
    return own[[groups[chip] in vendors for chip in own.index]]


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
                  col: Mapping[str, np.ndarray], n: int) -> ChipColumns:
    """Catalogue chips with a unit price, then the chips priced from another (``priced``)."""
    relative = _relative_chips(priced, specs, capex)
    ones = np.ones(n)
    columns = ChipColumns()
    for chip in (c for c in capex.index if c not in relative):
        row = specs.loc[chip]
        columns.add(str(chip), str(row["vendor_group"]), float(capex[chip]) * ones,
                    float(row["tflops"]) * ones, float(row["release_qidx"]) * ones,
                    float(row["tdp_w"]))
    for chip, anchor in relative.items():
        row = specs.loc[chip]
        columns.add(chip, str(row["vendor_group"]),
                    float(capex[anchor]) * col[priced[chip]] / col[priced[anchor]],
                    float(row["tflops"]) * ones, float(row["release_qidx"]) * ones,
                    float(row["tdp_w"]))
    return columns


def _vendor_costs(columns: ChipColumns, col: Mapping[str, np.ndarray],
                  rates: Mapping[str, np.ndarray], vendors: Sequence[str],
                  labels: Sequence[str], ramp_quarters: int, keep: Sequence[int] = ()
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(draws, quarters, vendors)`` best offer per vendor, quarter by quarter,
    ``(draws, quarters, len(keep))`` the own cost of the chip columns ``keep`` (NaN before
    their launch) and ``(draws, quarters, vendors)`` each vendor's lowest eroded price per
    dense PFLOP (:func:`price_per_pflop`)."""
    capex, tflops, release, tdp = columns.matrices()
    n, n_v = capex.shape[0], len(vendors)
    own = np.full((n, len(labels), len(keep)), np.nan)
    price = np.full((n, len(labels), n_v), np.nan)
    codes = np.array([vendors.index(g) for g in columns.groups])
    mfu = np.column_stack([col[f"mfu_{g}"] for g in columns.groups])
    rate = np.column_stack([rates[g] for g in columns.groups])
    tco = {name: col[name][:, None] for name in TCO_INPUTS}
    start = quarter_index(labels[0])
    out = np.full((n, len(labels), n_v), np.nan)
    # The owner's TCO is affine in the chip's price: the cost at price 0 (power, overhead)
    # plus the price's part times what erosion left of the price; one TCO per path.
    unpriced = cost_per_pflop(np.zeros_like(capex), tflops, tdp[None, :], mfu, tco)
    priced = cost_per_pflop(capex, tflops, tdp[None, :], mfu, tco) - unpriced
    for i, label in enumerate(labels):
        # One quarter per best_offer call: its (draws, chips) arrays stay in the CPU cache,
        # which stacking quarters into one call would not.
        quarter = quarter_index(label)
        left = erosion_factor(release, rate, quarter, start)
        cost = unpriced + priced * left
        out[:, i, :], _ = best_offer(release, cost, codes, quarter, ramp_quarters=ramp_quarters,
                                     n_vendors=n_v)
        price[:, i, :] = price_per_pflop(capex * left, tflops, release, codes, quarter, n_v)
        if keep:
            own[:, i, :] = np.where(release[:, keep] <= quarter, cost[:, keep], np.nan)
    return out, own, price
