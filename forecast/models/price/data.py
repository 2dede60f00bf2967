"""Price observations arranged for the price-erosion model (pure pandas and numpy)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.models.price.math import frontier_log_tflops, vintage_gap
from forecast.models.price.steps import DAYS_PER_YEAR, list_history

REFERENCE_TYPE = "on-demand"
LIST_TYPES = ("on-demand", "1-year commitment", "3-year commitment")
#: The ``provider_class`` (``data/providers.csv``) whose on-demand and commitment prices are
#: published list prices. Other providers' prices (neoclouds such as Lambda or RunPod,
#: marketplaces, indices) move with the market and are not list prices.
LIST_PROVIDER_CLASS = "hyperscaler"
VENDORS = ("nvidia", "amd", "google", "aws", "other_custom", "other")
#: The provider class whose prices the chip levels describe (a neocloud's on-demand price):
#: every other class has an effect relative to it.
REFERENCE_CLASS = "neocloud"
#: Pricing types recorded only for market-wide figures (indices, reported market levels),
#: read as the type they quote, so that their level is the index class's effect and not a
#: type offset that only those rows identify.
QUOTED_TYPES = {"market": "on-demand", "market/resale": "on-demand",
                "on-demand/market": "on-demand", "index (contract)": "1-year commitment"}
#: Suffix of the offset type of a commitment at a market price (see :func:`offset_types`).
MARKET_SUFFIX = " (market)"
CATALOGUE_COLUMNS = ("chip", "vendor", "vendor_group", "release_date", "fp8_dense_tflops",
                     "bf16_dense_tflops")


def collapse_held_prices(prices: pd.DataFrame) -> pd.DataFrame:
    """Drop observations that repeat the previous price of the same provider series.

    A series is (chip, provider_or_index, pricing_type); within it, sorted by date, a row whose
    price equals the previous row's is dropped: a held list price is one observation.
    """
    ordered = prices.sort_values(["chip", "provider_or_index", "pricing_type", "date"],
                                 kind="stable")
    keys = ["chip", "provider_or_index", "pricing_type"]
    previous = ordered.groupby(keys, observed=True)["usd_per_chip_hour"].shift(1)
    kept = ordered[~np.isclose(ordered["usd_per_chip_hour"], previous)]
    return kept.sort_values(["chip", "date"], kind="stable").reset_index(drop=True)


def price_class(pricing_type: pd.Series, provider: pd.Series,
                classes: Mapping[str, str]) -> np.ndarray:
    """"list" for a hyperscaler's on-demand or commitment price, else "market".

    Parameters
    ----------
    pricing_type : pandas.Series
        Each row's ``pricing_type``.
    provider : pandas.Series
        Each row's ``provider_or_index``.
    classes : Mapping of str to str
        Provider name -> ``provider_class`` (``data/providers.csv``:
        :attr:`Dataset.provider_classes <forecast.data.dataset.Dataset.provider_classes>`,
        :attr:`PriceData.provider_classes`); a hyperscaler's list-type prices are list
        prices.

    Returns
    -------
    numpy.ndarray
        ``"list"`` or ``"market"`` per row.

    Raises
    ------
    ForecastError
        If ``classes`` lacks a provider of the rows.
    """
    missing = sorted(set(provider.astype(str)) - set(classes))
    if missing:
        raise ForecastError(f"no provider_class for provider(s) {', '.join(map(repr, missing))}"
                            " (add them to data/providers.csv)")
    hyperscaler = provider.astype(str).map(classes) == LIST_PROVIDER_CLASS
    return np.where(pricing_type.isin(LIST_TYPES) & hyperscaler.to_numpy(bool), "list",
                    "market")



# --------------------------------------------------------------------------- data preparation


@dataclass(frozen=True)
class PriceData:
    """Observations arranged for the model, with the index maps that decode them."""

    observations: pd.DataFrame
    chips: tuple[str, ...]
    vendors: tuple[str, ...]
    pricing_types: tuple[str, ...]
    quarters: pd.PeriodIndex
    #: The chips' catalogue rows (vendor group, release date, dense TFLOPS).
    catalogue: pd.DataFrame
    #: Provider name -> ``provider_class`` (``data/providers.csv``), for :func:`price_class`.
    provider_classes: Mapping[str, str] = field(default_factory=dict)
    #: Provider name -> the company behind it (``data/providers.csv``): regions and instance
    #: types of one cloud quote one list with one set of commitment discounts.
    provider_companies: Mapping[str, str] = field(default_factory=dict)
    #: Companies with observations (one partially pooled provider effect each).
    providers: tuple[str, ...] = ()
    #: Provider classes with observations other than :data:`REFERENCE_CLASS`.
    classes: tuple[str, ...] = ()
    #: (chip, provider) series with observations, labelled by :func:`series_label`.
    series: tuple[str, ...] = ()
    #: Every list price observation, held ones included
    #: (:func:`~forecast.models.price.steps.list_history`): the step process's data.
    list_history: pd.DataFrame = field(default_factory=pd.DataFrame)


def prepare_price_data(dataset: Dataset) -> PriceData:
    """Observations with age, vendor, provider and price class, vintage gap and quarter; held
    prices collapsed. Which providers' prices are list prices, each provider's class and the
    company behind it come from the dataset's ``providers`` table (``data/providers.csv``)."""
    classes = dataset.provider_classes
    companies = dataset.provider_companies
    prices = collapse_held_prices(dataset.rental_prices)
    if prices.empty:
        raise ForecastError("price model: no rental prices to fit")
    catalogue = dataset.accelerators[list(CATALOGUE_COLUMNS)].copy()
    frame = observation_frame(prices, catalogue, classes, companies)
    _check_company_classes(frame)
    # The cycle only loads on market prices, so it spans the quarters that have them.
    market_quarters = frame.loc[frame["price_class"] == "market", "quarter"]
    first = market_quarters.min() if len(market_quarters) else frame["quarter"].max()
    quarters = pd.period_range(first, frame["quarter"].max(), freq="Q")
    types = (REFERENCE_TYPE,) + tuple(sorted(set(frame["offset_type"]) - {REFERENCE_TYPE}))
    present = set(frame["provider_class"])
    return PriceData(
        observations=frame,
        chips=tuple(sorted(set(frame["chip"]))),
        vendors=VENDORS,
        pricing_types=types,
        quarters=quarters,
        catalogue=catalogue,
        provider_classes=classes,
        provider_companies=companies,
        providers=tuple(sorted(set(frame["provider"]))),
        classes=tuple(sorted(present - {REFERENCE_CLASS})),
        series=tuple(sorted(set(frame["series"]))),
        list_history=list_history(dataset.rental_prices, price_class(
            dataset.rental_prices["pricing_type"].astype(str),
            dataset.rental_prices["provider_or_index"], classes) == "list"),
    )


def observation_frame(prices: pd.DataFrame, catalogue: pd.DataFrame,
                      classes: Mapping[str, str],
                      companies: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Rental-price rows with the model's covariates (pure; also used for predictions).

    Adds ``provider`` (the company behind ``provider_or_index`` in ``companies``; a name
    without one is its own company), ``vendor_group``, ``age_years`` (0 before the
    catalogue's release month: pre-orders), ``provider_class``, ``price_class``,
    ``offset_type`` (:data:`QUOTED_TYPES`),
    ``vintage_gap`` (:func:`~forecast.models.price.math.vintage_gap` of the chip at the
    row's date), ``log_price`` (when prices are given) and ``quarter``.
    """
    spec = catalogue.drop_duplicates("chip", keep="last").set_index("chip")
    unknown = sorted(set(prices["chip"]) - set(spec.index))
    if unknown:
        raise ForecastError(f"chips not in the catalogue: {', '.join(map(repr, unknown))}")
    frame = prices[[c for c in ("date", "chip", "provider_or_index", "pricing_type",
                                "usd_per_chip_hour", "recalled") if c in prices]].copy()
    frame["pricing_type"] = frame["pricing_type"].astype(str)
    frame["vendor_group"] = spec.loc[frame["chip"], "vendor_group"].to_numpy()
    release = pd.to_datetime(spec.loc[frame["chip"], "release_date"]).to_numpy()
    frame["age_years"] = np.maximum((frame["date"].to_numpy() - release)
                                    / np.timedelta64(1, "D") / DAYS_PER_YEAR, 0.0)
    names = frame["provider_or_index"].astype(str)
    frame["provider"] = [(companies or {}).get(name, name) for name in names]
    frame["provider_class"] = names.map(classes)
    frame["price_class"] = price_class(frame["pricing_type"], frame["provider_or_index"],
                                       classes)
    frame["offset_type"] = offset_types(frame["pricing_type"], frame["price_class"])
    frontier = frontier_log_tflops(catalogue, frame["vendor_group"], frame["date"])
    chip_tflops = np.log(spec.loc[frame["chip"], "bf16_dense_tflops"].to_numpy(float))
    frame["vintage_gap"] = vintage_gap(frontier, chip_tflops)
    if "usd_per_chip_hour" in frame:
        frame["log_price"] = np.log(frame["usd_per_chip_hour"].to_numpy(float))
    frame["quarter"] = frame["date"].dt.to_period("Q")
    frame["series"] = series_label(frame["chip"], frame["provider_or_index"])
    return frame.reset_index(drop=True)


def _check_company_classes(frame: pd.DataFrame) -> None:
    """A company's provider names must share one class (its effect is pooled in that class)."""
    counts = frame.groupby("provider")["provider_class"].nunique()
    mixed = sorted(counts[counts > 1].index)
    if mixed:
        raise ForecastError(f"providers of company {mixed[0]!r} have different provider_class "
                            "values in data/providers.csv")


def offset_types(pricing_type: pd.Series, price_class: Any) -> list[str]:
    """The type whose offset a row takes: :data:`QUOTED_TYPES` read as the type they quote,
    and a commitment at a market price (a neocloud's, an index's contract rate) apart from a
    hyperscaler's list commitment (their discounts differ: Oblivus's 1-year H100 price was 5%
    below its on-demand price, a hyperscaler's about 30%)."""
    quoted = [QUOTED_TYPES.get(k, k) for k in pricing_type.astype(str)]
    return [f"{k}{MARKET_SUFFIX}" if k in LIST_TYPES[1:] and c == "market" else k
            for k, c in zip(quoted, np.asarray(price_class), strict=True)]


def series_label(chips: pd.Series, providers: pd.Series) -> list[str]:
    """Label of each (chip, provider) series: ``"chip @ provider"``."""
    return [f"{chip} @ {provider}" for chip, provider in zip(chips.astype(str),
                                                             providers.astype(str), strict=True)]


def identified_market_vendors(observations: pd.DataFrame) -> list[str]:
    """Vendors with market prices of one chip at two or more ages.

    Only their decay is identified by data when every chip has its own level; the other
    vendors' decay rates are draws from the population.
    """
    market = observations[observations["price_class"] == "market"]
    ages_per_chip = market.groupby("chip")["age_years"].nunique()
    chips = set(ages_per_chip[ages_per_chip >= 2].index)
    return sorted(set(market.loc[market["chip"].isin(chips), "vendor_group"]))

