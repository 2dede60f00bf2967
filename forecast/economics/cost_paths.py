"""Observed dollar shares per vendor, with the uncertainty of their derivation (input to M4).

Nobody publishes vendor shares of accelerator *spend* per quarter, so they are derived here:

    dollars_v(t) = sum over the vendor's volume rows in quarter t of  units x price per unit

Units never meet dollars anywhere else: ``units`` are chips (Epoch AI's modelled quarterly
shipments, ``Dataset.volumes``), prices are USD per chip (``Dataset.unit_prices``), and
``dollars`` are USD billions.

Uncertainty is carried by Monte Carlo (``draws`` joint draws):

- **Units.** Epoch's volumes are model outputs, not disclosures (data README caveat 7). Each
  row is a lognormal with median ``units_median`` and log-sd fitted to the 5-95% band:
  ``sigma = (log p95 - log p5) / (2 x 1.645)`` (asymmetric bands are averaged). Rows are
  independent draws.
- **Price per unit**, one draw per (price key, calendar year), shared by every row that uses it
  (see :func:`pricing_rules` for the key of each chip):

  1. ``asp_range``: Epoch's annual average-selling-price range for that chip name (the ranges
     Epoch used to turn NVIDIA revenue into units), uniform on low..high, nearest year;
  2. ``observed``: every other price observation of that chip name (purchase prices, press
     prices, Epoch's *equivalent* TPU purchase prices), uniform on min(low)..max(high); a
     single point price is widened by +-``point_spread`` (default 25%, a documented default:
     one quote says little about the average price paid);
  3. ``imputed``: no observation at all (B300, MI325X, MI355X, TPU v5p, TPU v7, every
     Trainium): the price of the nearest-release priced chip of the same vendor group (for
     AWS, which has no priced chip, of the custom-silicon groups) times
     ``(BF16 TFLOPS ratio) ** u`` with ``u ~ Uniform(0, 1)``, i.e. anywhere between "same
     price per chip" and "same price per TFLOPS" as the neighbour.

  Volume rows recorded under a variant name (H20, MI300A) use that name's own prices when it
  has any; variants without prices (H800, A800, TPU v4i, MI350X) take their catalogue chip's.

Vendors covered: ``nvidia``, ``amd``, ``google`` and ``aws`` (Trainium). Intel Gaudi
(``other``) and Meta/Microsoft silicon (``other_custom``) have no unit data and are not
covered: shares here are shares of the covered vendors' spend, and a forecast that needs an
"other" share must supply it (see :meth:`forecast.models.share.FittedShareModel.forecast`).

Coverage differs by quarter (NVIDIA from 2021Q4, Google from 2022Q4, AMD and AWS from 2024Q1).
Shares are therefore passed to the model as **additive log-ratios against NVIDIA** of the
vendors present in each quarter: ``log(D_v / D_nvidia)`` does not depend on which other vendors
are observed (log-ratios are subcompositionally coherent), so the 2022Q4-2023Q4 Google/NVIDIA
ratios are usable although AMD and AWS are missing then. The per-quarter mean and covariance of
these log-ratios over the Monte Carlo draws is the measurement error the model's likelihood
uses. Caveats: Epoch derived NVIDIA units from revenue / ASP, so NVIDIA's unit and price errors
are really negatively correlated; independent draws overstate NVIDIA's dollar uncertainty
(conservative). Correlation of errors across quarters is not carried. Epoch's 2024 Trainium1
rows are a flat 110k a quarter (a placeholder-like annual split); they are used, with their
wide 5-95% band.

Cost per effective PFLOP-hour ``k_v(t)`` (the share model's covariate) is computed on one basis
for every vendor: **owner TCO per chip-hour**
(:func:`forecast.economics.chips.owner_tco_per_chip_hour`)
from the same per-chip prices (the median of each (key, year) price draw) and the scenario's TCO
inputs (medians of ``chip_life_years``, ``owner_utilisation``, ``pue``,
``electricity_usd_per_kwh``, ``overhead_fraction``), divided by dense PFLOPS (FP8 where the
chip has a figure, else BF16) x the vendor's MFU (``mfu_<vendor>`` median); the vendor's offer
is its best available chip with new chips ramping in (:func:`forecast.economics.chips.best_offer`).
Why this basis: rental prices are missing for AMD, Trainium2, TPU v5p and every Blackwell part
and differ up to 5x by pricing type, whereas a purchase (or equivalent) price exists or can be
imputed for every chip that ships; and it is the same price that weights the dollar shares.
A vendor-constant factor in ``k`` (e.g. a biased MFU) is absorbed by the vendor's ecosystem
term in the share model, so only relative changes over time identify the price coefficient.
Missing TDPs (Trainium1, Inferentia2) are imputed as the nearest-release same-group chip's
watts per BF16 TFLOPS times the chip's BF16 TFLOPS.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.calendar import quarter_index
from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.economics.chips import best_offer, dense_tflops_for, owner_tco_per_chip_hour

__all__ = [
    "COST_BASIS",
    "CUSTOM_SILICON_GROUPS",
    "REFERENCE_VENDOR",
    "SHARE_VENDORS",
    "PricingRule",
    "ShareData",
    "chip_capex",
    "historical_costs",
    "observed_shares",
    "pricing_rules",
    "pricing_table",
    "sample_unit_prices",
    "sample_vendor_dollars",
    "scenario_cost_paths",
    "share_inputs",
]

#: Vendor groups with unit data, in model order. NVIDIA first: it is the log-ratio reference.
SHARE_VENDORS: Final = ("nvidia", "amd", "google", "aws")
REFERENCE_VENDOR: Final = "nvidia"
#: Groups whose chips are custom silicon (ASICs); a chip of these groups with no priced chip
#: in its own group borrows a neighbour from them.
CUSTOM_SILICON_GROUPS: Final = ("google", "aws", "other_custom")
COST_BASIS: Final = (
    "owner TCO per chip-hour from unit prices (scenario TCO input medians) / "
    "(dense FP8-else-BF16 PFLOPS x vendor MFU median); best offer per vendor, ramp 2 quarters"
)
_ASP_PATTERN: Final = "average selling price"
_Z95: Final = 1.6448536269514722  # standard normal 95% quantile: fits sigma to a 5-95% band
DEFAULT_POINT_SPREAD: Final = 0.25
DEFAULT_MC_DRAWS: Final = 4000
_TCO_INPUTS: Final = ("chip_life_years", "owner_utilisation", "pue", "electricity_usd_per_kwh",
                      "overhead_fraction")


# --------------------------------------------------------------------------- pricing rules


@dataclass(frozen=True)
class PricingRule:
    """How one price key (a catalogue chip or a variant name) is priced per unit.

    Attributes
    ----------
    key
        Catalogue chip name, or a variant name recorded in the volume file (e.g. ``H20``).
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


def _catalogue(dataset: Dataset) -> pd.DataFrame:
    frame = dataset.accelerators
    return frame[frame["vendor_group"].isin(SHARE_VENDORS)].set_index("chip")


def pricing_rules(
    dataset: Dataset, point_spread: float = DEFAULT_POINT_SPREAD
) -> dict[str, PricingRule]:
    """One :class:`PricingRule` per catalogue chip of the covered vendors and per variant name.

    Parameters
    ----------
    dataset
        The loaded data.
    point_spread
        Relative half-width given to a price known only as a single point (default 0.25).

    Returns
    -------
    dict
        Price key -> rule. Variant names (e.g. ``H20``) appear only when they have price rows.
    """
    if not 0 <= point_spread < 1:
        raise ForecastError(f"point_spread must be in [0, 1), got {point_spread}")
    catalogue = _catalogue(dataset)
    group_of = {chip: str(group) for chip, group in
                zip(catalogue.index, catalogue["vendor_group"], strict=True)}
    aliases = dataset.chip_aliases
    relation = dict(zip(aliases["alias"], aliases["relation"], strict=True))
    alias_chip = dict(zip(aliases["alias"], aliases["chip"], strict=True))
    # The price rows as plain records: filtering the frame once per chip cost most of a
    # forecast's pricing step (every column copied, 30-odd times).
    prices = dataset.unit_prices
    recorded = prices["chip_as_recorded"].astype(str).tolist()
    chips = prices["chip"].tolist()
    own_name = [r == c or relation.get(r) in ("same", "family")
                for r, c in zip(recorded, chips, strict=True)]
    records = list(zip(chips, recorded, own_name, prices["price_type"].tolist(),
                       prices["date"].tolist(), prices["price_usd_low"].tolist(),
                       prices["price_usd_high"].tolist(), strict=True))
    asp_pattern = _ASP_PATTERN.casefold()

    def rule_from_rows(key: str, chip: str, rows: list[tuple]) -> PricingRule | None:
        group = group_of[chip]
        asp = [row for row in rows if asp_pattern in str(row[3]).casefold()]
        if asp:
            ranges = {int(d.year): (float(lo), float(hi)) for *_, d, lo, hi in asp}
            return PricingRule(key, chip, group, "asp_range", ranges)
        if rows:
            low, high = float(min(row[5] for row in rows)), float(max(row[6] for row in rows))
            if low == high:
                low, high = low * (1 - point_spread), high * (1 + point_spread)
            return PricingRule(key, chip, group, "observed", {0: (low, high)})
        return None

    rules: dict[str, PricingRule] = {}
    for chip in catalogue.index:
        rule = rule_from_rows(chip, chip, [row for row in records if row[0] == chip and row[2]])
        if rule is not None:
            rules[chip] = rule
    variants = ({r for r, own in zip(recorded, own_name, strict=True) if not own}
                | set(dataset.volumes["chip_as_recorded"].astype(str)))
    for name in sorted(variants):
        if name in catalogue.index or relation.get(name) in ("same", "family", None):
            continue
        rows = [row for row in records if row[1] == name]
        chip = str(alias_chip[name])
        if chip in catalogue.index and rows:
            rule = rule_from_rows(name, chip, rows)
            if rule is not None:
                rules[name] = rule

    # Imputation: every still-unpriced catalogue chip borrows from a priced neighbour.
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
        if not pool and group in CUSTOM_SILICON_GROUPS:
            pool = [c for c in priced if rules[c].vendor_group in CUSTOM_SILICON_GROUPS]
        if not pool:
            continue
        neighbour = min(pool, key=lambda c: (abs((release[c] - release[chip]).days), release[c]))
        ratio = float(bf16[chip] / bf16[neighbour])
        rules[chip] = PricingRule(chip, chip, group, "imputed", neighbour=neighbour,
                                  tflops_ratio=ratio)
    return rules


def price_key(recorded: str, chip: str, rules: Mapping[str, PricingRule]) -> str:
    """The price key of a volume row: its recorded name if priced, else its catalogue chip."""
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


# --------------------------------------------------------------------------- dollars and shares


def _lognormal_sigma(p5: np.ndarray, p95: np.ndarray) -> np.ndarray:
    """Log-sd of a lognormal fitted to a 5-95% band (the two half-bands averaged)."""
    return (np.log(p95) - np.log(p5)) / (2.0 * _Z95)


def sample_vendor_dollars(
    dataset: Dataset,
    draws: int = DEFAULT_MC_DRAWS,
    seed: int = 0,
    point_spread: float = DEFAULT_POINT_SPREAD,
) -> xr.DataArray:
    """Monte Carlo draws of each covered vendor's accelerator dollars per calendar quarter.

    Returns
    -------
    xarray.DataArray
        ``(draw, quarter, vendor)`` in USD billions; NaN where a vendor has no volume row in
        that quarter (not observed, which is not the same as zero).
    """
    if draws < 2:
        raise ForecastError(f"draws must be >= 2, got {draws}")
    rng = np.random.default_rng(seed)
    rules = pricing_rules(dataset, point_spread)
    volumes = dataset.volumes[dataset.volumes["vendor_group"].isin(SHARE_VENDORS)]
    if volumes.empty:
        raise ForecastError("no volume rows for the covered vendors")
    quarters = pd.period_range(volumes["quarter"].min(), volumes["quarter"].max(), freq="Q")
    years = sorted({int(q.year) for q in quarters})
    prices = sample_unit_prices(rules, years, draws, rng)
    median = volumes["units_median"].to_numpy(float)
    sigma = _lognormal_sigma(volumes["units_p5"].to_numpy(float),
                             volumes["units_p95"].to_numpy(float))
    units = np.exp(np.log(median)[None, :] + sigma[None, :] * rng.standard_normal(
        (draws, len(volumes))))  # units: chips
    dollars = np.full((draws, len(quarters), len(SHARE_VENDORS)), np.nan)
    q_pos = {str(q): i for i, q in enumerate(quarters)}
    for j, row in enumerate(volumes.itertuples(index=False)):
        key = price_key(str(row.chip_as_recorded), str(row.chip), rules)
        usd = units[:, j] * prices[key, int(row.quarter.year)] / 1e9  # chips x USD/chip -> $B
        t, v = q_pos[str(row.quarter)], SHARE_VENDORS.index(row.vendor_group)
        dollars[:, t, v] = np.where(np.isnan(dollars[:, t, v]), 0.0, dollars[:, t, v]) + usd
    return xr.DataArray(
        dollars, dims=("draw", "quarter", "vendor"),
        coords={"draw": np.arange(draws), "quarter": [str(q) for q in quarters],
                "vendor": list(SHARE_VENDORS)},
        name="dollars", attrs={"unit": "USD billions per quarter"},
    )


# --------------------------------------------------------------------------- costs


def _input_medians(scenario: Any, names: Sequence[str]) -> dict[str, float]:
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
) -> pd.DataFrame:
    """Median price per unit (USD per chip) of every priced catalogue chip, per calendar year.

    Returns a frame indexed by chip with one column per year (the capex of the TCO basis).
    The result depends only on its arguments, so it is kept per dataset object: repeated
    forecasts from one dataset (sensitivity runs) compute it once.
    """
    key = (id(dataset), tuple(int(y) for y in years), int(draws), int(seed),
           float(point_spread))
    cached = _CAPEX_CACHE.get(key)
    if cached is not None and cached[0]() is dataset:
        return cached[1].copy()
    rules = pricing_rules(dataset, point_spread)
    prices = sample_unit_prices(rules, list(years), draws, np.random.default_rng(seed))
    catalogue = _catalogue(dataset).index
    chips = [k for k in rules if k in catalogue]
    frame = pd.DataFrame({int(y): [float(np.median(prices[c, int(y)])) for c in chips]
                          for y in years}, index=pd.Index(chips, name="chip"))
    if len(_CAPEX_CACHE) >= 32:
        _CAPEX_CACHE.clear()
    _CAPEX_CACHE[key] = (weakref.ref(dataset), frame.copy())
    return frame


#: chip_capex results by (dataset id, years, draws, seed, spread), with a weak reference
#: that proves the id still names the same dataset object.
_CAPEX_CACHE: dict[tuple[Any, ...], tuple[weakref.ref, pd.DataFrame]] = {}


def _chip_specs(dataset: Dataset) -> pd.DataFrame:
    """Per catalogue chip: ``vendor_group``, ``release_qidx`` (quarter index), dense
    ``tflops`` (FP8 where known, else BF16) and ``tdp_w`` (missing ones imputed)."""
    catalogue = _catalogue(dataset)
    tflops, _ = dense_tflops_for(catalogue.reset_index())
    release = [r.year * 4 + (r.month - 1) // 3 for r in catalogue["release_date"]]
    return pd.DataFrame({"vendor_group": catalogue["vendor_group"],
                         "release_qidx": np.array(release, float),
                         "tflops": tflops.to_numpy(float),
                         "tdp_w": _impute_tdp(catalogue).to_numpy(float)},
                        index=catalogue.index)


def _cost_per_pflop(capex: np.ndarray, tflops: np.ndarray, tdp: np.ndarray,
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
) -> pd.DataFrame:
    """Cost per effective PFLOP-hour ``k_v(t)`` per covered vendor and quarter (see module doc).

    Returns
    -------
    pandas.DataFrame
        Index ``quarter`` (labels), one column per vendor, USD per effective PFLOP-hour.
    """
    periods = pd.PeriodIndex(list(quarters), freq="Q")
    years = sorted({int(p.year) for p in periods})
    capex = chip_capex(dataset, years, draws, seed, point_spread)
    cat = _chip_specs(dataset).loc[list(capex.index)]
    tflops, tdp = cat["tflops"].to_numpy(float), cat["tdp_w"].to_numpy(float)
    tco = _input_medians(scenario, _TCO_INPUTS)
    mfu = _input_medians(scenario, [f"mfu_{v}" for v in SHARE_VENDORS])
    util = np.array([mfu[f"mfu_{g}"] for g in cat["vendor_group"]])
    codes = np.array([SHARE_VENDORS.index(g) for g in cat["vendor_group"]])
    release = cat["release_qidx"].to_numpy(float)
    out = np.full((len(periods), len(SHARE_VENDORS)), np.nan)
    for i, period in enumerate(periods):
        cost = _cost_per_pflop(capex[int(period.year)].to_numpy(float), tflops, tdp, util, tco)
        best, _ = best_offer(release, cost[None, :], codes, period, n_vendors=len(SHARE_VENDORS))
        out[i] = best[0]
    return pd.DataFrame(out, index=pd.Index([str(p) for p in periods], name="quarter"),
                        columns=list(SHARE_VENDORS))


# --------------------------------------------------------------------------- model inputs


@dataclass(frozen=True)
class ShareData:
    """Everything the share model is fitted to.

    Attributes
    ----------
    quarters
        Consecutive calendar quarters of the fit window (labels).
    vendors
        Vendors in model order; ``vendors[0]`` is the log-ratio reference (NVIDIA).
    alr_mean, alr_cov
        ``(T, K-1)`` mean and ``(T, K-1, K-1)`` covariance of ``log(D_v / D_ref)`` over the
        Monte Carlo draws; NaN rows/columns for vendors not observed in a quarter.
    observed
        ``(T, K)`` boolean: the vendor has volume data in the quarter.
    log_cost
        ``(T, K)`` log cost per effective PFLOP-hour (the covariate).
    cost_basis
        Text naming the cost basis.
    """

    quarters: tuple[str, ...]
    vendors: tuple[str, ...]
    alr_mean: np.ndarray
    alr_cov: np.ndarray
    observed: np.ndarray
    log_cost: np.ndarray
    cost_basis: str = COST_BASIS

    def __post_init__(self) -> None:
        t, k = len(self.quarters), len(self.vendors)
        shapes = {"alr_mean": (t, k - 1), "alr_cov": (t, k - 1, k - 1), "observed": (t, k),
                  "log_cost": (t, k)}
        for name, shape in shapes.items():
            if getattr(self, name).shape != shape:
                raise ForecastError(f"ShareData.{name} has shape {getattr(self, name).shape},"
                                    f" expected {shape}")
        if not np.all(np.isfinite(self.log_cost)):
            raise ForecastError("ShareData.log_cost must be finite for every vendor and quarter")
        if not self.observed[:, 0].all():
            raise ForecastError("the reference vendor must be observed in every quarter")

    @property
    def n_observations(self) -> int:
        """Number of observed log-ratios."""
        return int(self.observed[:, 1:].sum())

    def window(self, first: str | None = None, last: str | None = None) -> ShareData:
        """The same data restricted to quarters first..last (labels, inclusive)."""
        labels = list(self.quarters)
        i = labels.index(first) if first else 0
        j = labels.index(last) + 1 if last else len(labels)
        return ShareData(tuple(labels[i:j]), self.vendors, self.alr_mean[i:j], self.alr_cov[i:j],
                         self.observed[i:j], self.log_cost[i:j], self.cost_basis)

    def to_frame(self) -> pd.DataFrame:
        """Tidy (quarter, vendor, observed, alr_mean, alr_sd, log_cost) frame for storage."""
        rows = []
        for t, quarter in enumerate(self.quarters):
            for k, vendor in enumerate(self.vendors):
                mean = 0.0 if k == 0 else self.alr_mean[t, k - 1]
                sd = 0.0 if k == 0 else np.sqrt(self.alr_cov[t, k - 1, k - 1])
                rows.append({"quarter": quarter, "vendor": vendor,
                             "observed": bool(self.observed[t, k]), "alr_mean": mean,
                             "alr_sd": sd, "log_cost": self.log_cost[t, k]})
        return pd.DataFrame(rows)


def _alr_moments(dollars: xr.DataArray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values = dollars.values  # (draw, T, K)
    observed = ~np.isnan(values[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = np.log(values[:, :, 1:] / values[:, :, :1])
    # Unobserved cells are NaN in every draw; the mean over draws stays NaN there.
    mean = ratios.mean(axis=0)
    t_count, k1 = mean.shape
    cov = np.full((t_count, k1, k1), np.nan)
    for t in range(t_count):
        present = np.flatnonzero(observed[t, 1:])
        if present.size:
            block = np.cov(ratios[:, t, present], rowvar=False).reshape(present.size, -1)
            cov[t][np.ix_(present, present)] = block
    return mean, cov, observed


def share_inputs(
    dataset: Dataset,
    scenario: Any,
    draws: int = DEFAULT_MC_DRAWS,
    seed: int = 0,
    point_spread: float = DEFAULT_POINT_SPREAD,
) -> ShareData:
    """The arrays the share model needs: log-ratio moments per quarter and log costs.

    The window runs from the first quarter in which the reference vendor and at least one
    other covered vendor are observed to the last quarter with volume data.
    """
    dollars = sample_vendor_dollars(dataset, draws, seed, point_spread)
    mean, cov, observed = _alr_moments(dollars)
    usable = observed[:, 0] & observed[:, 1:].any(axis=1)
    if usable.sum() < 2:
        raise ForecastError("fewer than two quarters with NVIDIA and another vendor observed")
    first, last = np.flatnonzero(usable)[[0, -1]]
    sel = slice(first, last + 1)
    quarters = tuple(str(q) for q in dollars["quarter"].values[sel])
    if not observed[sel, 0].all():
        raise ForecastError("NVIDIA volumes have a gap inside the fit window")
    costs = historical_costs(dataset, scenario, quarters, draws, seed, point_spread)
    return ShareData(quarters, SHARE_VENDORS, mean[sel], cov[sel], observed[sel],
                     np.log(costs.to_numpy(float)))


def observed_shares(
    dataset: Dataset,
    scenario: Any,
    draws: int = DEFAULT_MC_DRAWS,
    seed: int = 0,
    complete_only: bool = True,
    point_spread: float = DEFAULT_POINT_SPREAD,
) -> pd.DataFrame:
    """Derived dollar shares per quarter and vendor, with their Monte Carlo uncertainty.

    Parameters
    ----------
    dataset, scenario
        Data and the scenario whose input medians set the cost basis (MFU, TCO).
    draws, seed
        Monte Carlo draws and seed.
    complete_only
        Keep only quarters in which every covered vendor is observed (default). Otherwise a
        share is a share of the vendors observed in that quarter (see ``vendors_observed``).
    point_spread
        See :func:`pricing_rules`.

    Returns
    -------
    pandas.DataFrame
        Columns ``quarter, vendor, share_mean, share_p10, share_p90, dollars_median`` (USD
        billions), ``vendors_observed`` and ``cost_per_pflop_hour`` (USD per effective
        PFLOP-hour, the model covariate).
    """
    dollars = sample_vendor_dollars(dataset, draws, seed, point_spread)
    values = dollars.values
    observed = ~np.isnan(values[0])
    shares = values / np.nansum(values, axis=2, keepdims=True)
    quarters = [str(q) for q in dollars["quarter"].values]
    costs = historical_costs(dataset, scenario, quarters, draws, seed, point_spread)
    rows = []
    for t, quarter in enumerate(quarters):
        if complete_only and not observed[t].all():
            continue
        present = ",".join(v for v, o in zip(SHARE_VENDORS, observed[t], strict=True) if o)
        for k, vendor in enumerate(SHARE_VENDORS):
            if not observed[t, k]:
                continue
            s = shares[:, t, k]
            rows.append({
                "quarter": quarter, "vendor": vendor, "share_mean": float(s.mean()),
                "share_p10": float(np.quantile(s, 0.1)), "share_p90": float(np.quantile(s, 0.9)),
                "dollars_median": float(np.median(values[:, t, k])),
                "vendors_observed": present,
                "cost_per_pflop_hour": float(costs.loc[quarter, vendor]),
            })
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- scenario costs


def scenario_cost_paths(
    dataset: Dataset,
    inputs: pd.DataFrame,
    quarters: Sequence[str],
    price_year: int | None = None,
    point_spread: float = DEFAULT_POINT_SPREAD,
    seed: int = 0,
) -> xr.DataArray:
    """Cost per effective PFLOP-hour paths per vendor under scenario input draws (same basis
    as :func:`historical_costs`), for forecasting shares.

    Per draw: owner TCO of every catalogue chip at its latest median unit price (``price_year``,
    default the last year of volume data), held flat (a cost fall common to all vendors
    leaves shares unchanged, so none is applied), with scenario draws of MFU per vendor and of
    the TCO inputs; plus scenario chips: Trainium3 priced at Trainium2's capex x
    (``trainium3_price_usd_per_chip_hour`` / ``trainium2_price_usd_per_chip_hour``);
    Trainium4 at ``trainium4_launch_quarter`` with ``trainium4_fp8_multiplier`` x Trainium3's
    FP8 for ``trainium4_price_ratio`` x its capex; NVIDIA's next generation at
    ``nvidia_next_launch_quarter`` with ``nvidia_next_fp8_multiplier`` x B200's FP8 for
    ``nvidia_next_price_ratio`` x its capex (future chips keep their predecessor's TDP: an
    assumption); NVIDIA's capex falls by ``nvidia_price_response`` a year after the first
    quarter. Vendor cost = best offer (new chips ramp over 2 quarters).

    Parameters
    ----------
    dataset
        The data (catalogue and prices).
    inputs
        Scenario draws (``Scenario.sample``): one row per draw.
    quarters
        Consecutive forecast quarters (labels).

    Returns
    -------
    xarray.DataArray
        ``(draw, quarter, vendor)`` USD per effective PFLOP-hour for the covered vendors.
    """
    needed = [*(f"mfu_{v}" for v in SHARE_VENDORS), *_TCO_INPUTS,
              "trainium2_price_usd_per_chip_hour", "trainium3_price_usd_per_chip_hour",
              "trainium4_launch_quarter", "trainium4_fp8_multiplier", "trainium4_price_ratio",
              "nvidia_next_launch_quarter", "nvidia_next_fp8_multiplier",
              "nvidia_next_price_ratio", "nvidia_price_response"]
    missing = [n for n in needed if n not in inputs.columns]
    if missing:
        raise ForecastError(f"scenario inputs lack: {', '.join(missing)}")
    n = len(inputs)
    labels = [str(q) for q in pd.PeriodIndex(list(quarters), freq="Q")]
    if price_year is None:
        price_year = int(dataset.volumes["quarter"].max().year)
    capex = chip_capex(dataset, [price_year], seed=seed, point_spread=point_spread)[price_year]
    chips = [c for c in capex.index if c != "Trainium3"]
    specs = _chip_specs(dataset)
    cat = specs.loc[chips]
    col = {name: inputs[name].to_numpy(float) for name in needed}
    ones = np.ones(n)

    # Columns: catalogue chips, then Trainium3, Trainium4 and NVIDIA's next generation.
    t2_capex = float(capex["Trainium2"])
    t3_tflops, t3_tdp, t3_release = specs.loc["Trainium3", ["tflops", "tdp_w", "release_qidx"]]
    b200_tflops, b200_tdp = specs.loc["B200", ["tflops", "tdp_w"]]
    t3_capex = t2_capex * col["trainium3_price_usd_per_chip_hour"] / col[
        "trainium2_price_usd_per_chip_hour"]
    capex_m = np.column_stack([
        np.outer(ones, capex.loc[chips].to_numpy(float)), t3_capex,
        t3_capex * col["trainium4_price_ratio"],
        float(capex["B200"]) * col["nvidia_next_price_ratio"]])
    tflops_m = np.column_stack([
        np.outer(ones, cat["tflops"].to_numpy(float)), t3_tflops * ones,
        t3_tflops * col["trainium4_fp8_multiplier"], b200_tflops * col[
            "nvidia_next_fp8_multiplier"]])
    tdp_v = np.concatenate([cat["tdp_w"].to_numpy(float), [t3_tdp, t3_tdp, b200_tdp]])
    groups = [*cat["vendor_group"], "aws", "aws", "nvidia"]
    release_m = np.column_stack([
        np.outer(ones, cat["release_qidx"].to_numpy(float)), t3_release * ones,
        col["trainium4_launch_quarter"], col["nvidia_next_launch_quarter"]])
    codes = np.array([SHARE_VENDORS.index(g) for g in groups])
    mfu = np.column_stack([col[f"mfu_{g}"] for g in groups])
    nvidia = codes == SHARE_VENDORS.index("nvidia")
    tco = {name: col[name][:, None] for name in _TCO_INPUTS}
    # Only NVIDIA's capex moves over the quarters; every other chip's cost is computed once.
    steady = _cost_per_pflop(capex_m[:, ~nvidia], tflops_m[:, ~nvidia], tdp_v[None, ~nvidia],
                             mfu[:, ~nvidia], tco)
    start = quarter_index(labels[0])
    out = np.full((n, len(labels), len(SHARE_VENDORS)), np.nan)
    cost = np.empty((n, len(codes)))
    cost[:, ~nvidia] = steady
    for i, label in enumerate(labels):
        # One quarter per best_offer call: its (draws, chips) arrays stay in the CPU cache
        # (stacking quarters into one call measured 40% slower).
        quarter = quarter_index(label)
        erosion = (1.0 - col["nvidia_price_response"][:, None]) ** ((quarter - start) / 4.0)
        cost[:, nvidia] = _cost_per_pflop(capex_m[:, nvidia] * erosion, tflops_m[:, nvidia],
                                          tdp_v[None, nvidia], mfu[:, nvidia], tco)
        out[:, i, :], _ = best_offer(release_m, cost, codes, quarter,
                                     n_vendors=len(SHARE_VENDORS))
    return xr.DataArray(out, dims=("draw", "quarter", "vendor"),
                        coords={"draw": np.arange(n), "quarter": labels,
                                "vendor": list(SHARE_VENDORS)},
                        name="cost_per_pflop_hour",
                        attrs={"unit": "USD per effective PFLOP-hour", "basis": COST_BASIS})
