"""Price per unit (USD per chip) of every chip the spend model covers, with its uncertainty.

One draw per (price key, calendar year), shared by every chip that uses it. A *price key* is
a catalogue chip, or a variant name recorded in the unit-price file that has prices of its
own. Each key gets a :class:`PricingRule`:

1. ``asp_range``: Epoch's annual average-selling-price range for that chip name (the ranges
   Epoch used to turn NVIDIA revenue into units), uniform on low..high, nearest year;
2. ``observed``: every other price observation of that chip name (purchase prices, press
   prices, Epoch's *equivalent* TPU purchase prices), uniform on min(low)..max(high); a
   single point price is widened by +-``point_spread`` (default 25%, a documented default:
   one quote says little about the average price paid);
3. ``imputed``: no observation at all (B300, MI325X, MI355X, TPU v5p, TPU v7, every
   Trainium): the price of the nearest-release priced chip of the same vendor group (for a
   custom-silicon group with no priced chip, such as AWS, of the custom-silicon groups of
   ``data/vendor_groups.csv``) times ``(BF16 TFLOPS ratio) ** u`` with ``u ~ Uniform(0, 1)``,
   i.e. anywhere between "same price per chip" and "same price per TFLOPS" as the neighbour.

A variant name (H20, MI300A) uses its own prices when it has any; variants without prices
(H800, A800, TPU v4i, MI350X) take their catalogue chip's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.economics.throughput import dense_tflops_for
from forecast.economics.vendors import custom_silicon_groups, share_vendors

__all__ = [
    "DEFAULT_MC_DRAWS",
    "DEFAULT_POINT_SPREAD",
    "PricingRule",
    "covered_catalogue",
    "price_key",
    "pricing_rules",
    "pricing_table",
    "sample_unit_prices",
]

_ASP_PATTERN: Final = "average selling price"
DEFAULT_POINT_SPREAD: Final = 0.25
DEFAULT_MC_DRAWS: Final = 4000

#: One price observation: chip, name as recorded, recorded under the chip's own name,
#: price type, date, low and high (USD per chip).
_PriceRow = tuple[str, str, bool, str, pd.Timestamp, float, float]


@dataclass(frozen=True)
class PricingRule:
    """How one price key (a catalogue chip or a variant name) is priced per unit.

    Attributes
    ----------
    key
        Catalogue chip name, or a variant name recorded in the unit-price file (e.g. ``H20``).
    chip, vendor_group
        The catalogue chip the key belongs to and its vendor group.
    method
        ``asp_range``, ``observed`` or ``imputed`` (see the module docstring).
    ranges
        Year -> (low, high) USD per chip for ``asp_range``; ``{0: (low, high)}`` for
        ``observed`` (one range for all years); empty for ``imputed``.
    neighbour, tflops_ratio
        For ``imputed``: the priced key it borrows from and the BF16 TFLOPS ratio to it.
    """

    key: str
    chip: str
    vendor_group: str
    method: str
    ranges: dict[int, tuple[float, float]] = field(default_factory=dict)
    neighbour: str | None = None
    tflops_ratio: float | None = None

    def range_for(self, year: int) -> tuple[float, float]:
        """(low, high) for a calendar year: the nearest year's range (ties: the earlier)."""
        if not self.ranges:
            raise ForecastError(f"price key {self.key!r} ({self.method}) has no ranges")
        nearest = min(self.ranges, key=lambda y: (abs(y - year), y))
        return self.ranges[nearest]


#: The vendor group that holds every vendor no other group names (DESIGN section 4: ``other``
#: is Intel Gaudi, Meta MTIA, Microsoft Maia and the rest).
REST_GROUP: Final = "other"


def covered_catalogue(dataset: Dataset, vendors: Sequence[str] | None = None) -> pd.DataFrame:
    """Catalogue rows of ``vendors`` (default: the groups the spend model covers), by chip.

    On an axis with :data:`REST_GROUP`, the chips of the groups that are neither on the axis
    nor covered by the spend model (``other_custom``: Meta's MTIA, Microsoft's Maia) are the
    rest's and are relabelled so, as DESIGN's five groups say: the spend model counts their
    spend in ``other``, and the scenarios' ``[roadmap.other]`` generations (Maia 200 after
    Maia 100) build on them.
    """
    frame = dataset.accelerators
    groups = share_vendors(dataset) if vendors is None else tuple(vendors)
    if REST_GROUP in groups:
        named = {*groups, *share_vendors(dataset)}
        frame = frame.assign(vendor_group=frame["vendor_group"].where(
            frame["vendor_group"].isin(named), REST_GROUP))
    return frame[frame["vendor_group"].isin(groups)].set_index("chip")


def _custom_vendor_chips(dataset: Dataset, catalogue: pd.DataFrame) -> set[str]:
    """Catalogue chips whose vendor designs custom silicon (``vendor_groups.csv`` silicon).

    By vendor, not by group: a group such as ``other`` mixes merchant parts (Intel Gaudi)
    with custom ones (Meta MTIA, Microsoft Maia), and a custom chip borrows only a custom
    chip's price.
    """
    table = dataset.vendor_groups
    custom = set(table.loc[table["silicon"] == "custom", "vendor"].astype(str))
    return {str(chip) for chip, vendor in zip(catalogue.index, catalogue["vendor"], strict=True)
            if str(vendor) in custom}


def pricing_rules(
    dataset: Dataset, point_spread: float = DEFAULT_POINT_SPREAD,
    vendors: Sequence[str] | None = None,
) -> dict[str, PricingRule]:
    """One :class:`PricingRule` per catalogue chip of the covered vendors and per variant name.

    Parameters
    ----------
    dataset
        The loaded data.
    point_spread
        Relative half-width given to a price known only as a single point (default 0.25).
    vendors
        Vendor groups whose chips are priced (default: those the spend model covers).

    Returns
    -------
    dict
        Price key -> rule: chips priced by their own rows (catalogue order), then variant
        names with prices of their own (sorted), then imputed chips (catalogue order).
    """
    if not 0 <= point_spread < 1:
        raise ForecastError(f"point_spread must be in [0, 1), got {point_spread}")
    catalogue = covered_catalogue(dataset, vendors)
    group_of = {chip: str(group) for chip, group in
                zip(catalogue.index, catalogue["vendor_group"], strict=True)}
    aliases = dataset.chip_aliases
    relation = dict(zip(aliases["alias"], aliases["relation"], strict=True))
    records = _price_rows(dataset, relation)

    rules: dict[str, PricingRule] = {}
    for chip in catalogue.index:
        own = [row for row in records if row[0] == chip and row[2]]
        rule = _rule_from_rows(chip, chip, group_of[chip], own, point_spread)
        if rule is not None:
            rules[chip] = rule
    alias_chip = dict(zip(aliases["alias"], aliases["chip"], strict=True))
    variants = {row[1] for row in records if not row[2]}
    for name in sorted(variants):
        if name in catalogue.index or relation.get(name) in ("same", "family", None):
            continue
        rows = [row for row in records if row[1] == name]
        chip = str(alias_chip[name])
        if chip in catalogue.index and rows:
            rule = _rule_from_rows(name, chip, group_of[chip], rows, point_spread)
            if rule is not None:
                rules[name] = rule
    _impute(rules, catalogue, custom_silicon_groups(dataset),
            _custom_vendor_chips(dataset, catalogue))
    return rules


def _price_rows(dataset: Dataset, relation: Mapping[str, Any]) -> list[_PriceRow]:
    """The price rows as plain records.

    Filtering the frame once per chip cost most of a forecast's pricing step (every column
    copied, 30-odd times).
    """
    prices = dataset.unit_prices
    recorded = prices["chip_as_recorded"].astype(str).tolist()
    chips = prices["chip"].tolist()
    own_name = [r == c or relation.get(r) in ("same", "family")
                for r, c in zip(recorded, chips, strict=True)]
    return list(zip(chips, recorded, own_name, prices["price_type"].tolist(),
                    prices["date"].tolist(), prices["price_usd_low"].tolist(),
                    prices["price_usd_high"].tolist(), strict=True))


def _rule_from_rows(
    key: str, chip: str, group: str, rows: list[_PriceRow], point_spread: float
) -> PricingRule | None:
    """An ``asp_range`` rule if any row is an ASP range, else ``observed``; None without rows."""
    pattern = _ASP_PATTERN.casefold()
    asp = [row for row in rows if pattern in str(row[3]).casefold()]
    if asp:
        ranges = {int(d.year): (float(lo), float(hi)) for *_, d, lo, hi in asp}
        return PricingRule(key, chip, group, "asp_range", ranges)
    if rows:
        low, high = float(min(row[5] for row in rows)), float(max(row[6] for row in rows))
        if low == high:
            low, high = low * (1 - point_spread), high * (1 + point_spread)
        return PricingRule(key, chip, group, "observed", {0: (low, high)})
    return None


def _impute(
    rules: dict[str, PricingRule], catalogue: pd.DataFrame, custom_groups: Sequence[str],
    custom_chips: set[str],
) -> None:
    """Give every still-unpriced catalogue chip a rule borrowing from a priced neighbour."""
    _, _ = dense_tflops_for(catalogue.reset_index())  # validates the catalogue columns
    bf16 = catalogue["bf16_dense_tflops"].astype(float)
    release = catalogue["release_date"]
    # Only chips with their own price observations are neighbours: no chains of imputation.
    priced = [c for c in rules if c in catalogue.index]
    for chip in catalogue.index:
        if chip in rules:
            continue
        group = str(catalogue.loc[chip, "vendor_group"])
        pool = [c for c in priced if rules[c].vendor_group == group]
        if not pool and group in custom_groups:
            pool = [c for c in priced if rules[c].vendor_group in custom_groups
                    and c in custom_chips]
        if not pool:
            continue
        neighbour = min(pool, key=lambda c: (abs((release[c] - release[chip]).days), release[c]))
        ratio = float(bf16[chip] / bf16[neighbour])
        rules[chip] = PricingRule(chip, chip, group, "imputed", neighbour=neighbour,
                                  tflops_ratio=ratio)


def price_key(recorded: str, chip: str, rules: Mapping[str, PricingRule]) -> str:
    """The price key of a chip recorded under a name: that name if priced, else its catalogue
    chip."""
    if recorded in rules:
        return recorded
    if chip in rules:
        return chip
    raise ForecastError(f"no price rule for chip {chip!r} (recorded as {recorded!r})")


def pricing_table(dataset: Dataset, point_spread: float = DEFAULT_POINT_SPREAD) -> pd.DataFrame:
    """Which chips are priced how: one row per price key (for reports and the README)."""
    rows = []
    for rule in pricing_rules(dataset, point_spread).values():
        ranges = "; ".join(
            (f"{y}: " if y else "") + f"{lo:,.0f}-{hi:,.0f}" for y, (lo, hi) in
            sorted(rule.ranges.items()))
        rows.append({
            "price_key": rule.key, "chip": rule.chip, "vendor_group": rule.vendor_group,
            "method": rule.method, "usd_per_chip": ranges,
            "neighbour": rule.neighbour, "bf16_tflops_ratio": rule.tflops_ratio,
        })
    return pd.DataFrame(rows).sort_values(["vendor_group", "method", "price_key"],
                                          ignore_index=True)


def sample_unit_prices(
    rules: Mapping[str, PricingRule],
    years: Sequence[int],
    draws: int,
    rng: np.random.Generator,
) -> dict[tuple[str, int], np.ndarray]:
    """Price draws (USD per chip) for every (price key, year): arrays of shape ``(draws,)``."""
    out: dict[tuple[str, int], np.ndarray] = {}
    for year in years:
        for key, rule in rules.items():
            if rule.method != "imputed":
                low, high = rule.range_for(int(year))
                out[key, int(year)] = rng.uniform(low, high, size=draws)
        for key, rule in rules.items():
            if rule.method == "imputed":
                exponent = rng.uniform(0.0, 1.0, size=draws)
                base = out[rule.neighbour, int(year)]
                out[key, int(year)] = base * float(rule.tflops_ratio) ** exponent
    return out
