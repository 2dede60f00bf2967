"""Price observations arranged for the price-erosion model (pure pandas and numpy)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset

REFERENCE_TYPE = "on-demand"
LIST_TYPES = ("on-demand", "1-year commitment", "3-year commitment")
#: The ``provider_class`` (``data/providers.csv``) whose on-demand and commitment prices are
#: published list prices. Other providers' prices (neoclouds such as Lambda or RunPod,
#: marketplaces, indices) move with the market and are not list prices.
LIST_PROVIDER_CLASS = "hyperscaler"
VENDORS = ("nvidia", "amd", "google", "aws", "other_custom", "other")
DAYS_PER_YEAR = 365.25
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


def prepare_price_data(dataset: Dataset) -> PriceData:
    """Observations with age, vendor, provider and price class and quarter index; held prices
    collapsed. Which providers' prices are list prices comes from the dataset's
    ``providers`` table (``data/providers.csv``)."""
    classes = dataset.provider_classes
    prices = collapse_held_prices(dataset.rental_prices)
    catalogue = dataset.accelerators.set_index("chip")
    frame = prices[["date", "chip", "provider_or_index", "pricing_type", "usd_per_chip_hour",
                    "recalled"]].copy()
    frame["pricing_type"] = frame["pricing_type"].astype(str)
    frame["vendor_group"] = catalogue.loc[frame["chip"], "vendor_group"].to_numpy()
    release = catalogue.loc[frame["chip"], "release_date"].to_numpy()
    # Quotes dated before the catalogue's release month (pre-orders, early access) are age 0.
    frame["age_years"] = np.maximum((frame["date"].to_numpy() - release)
                                    / np.timedelta64(1, "D") / DAYS_PER_YEAR, 0.0)
    frame["provider_class"] = frame["provider_or_index"].map(classes)
    frame["price_class"] = price_class(frame["pricing_type"], frame["provider_or_index"],
                                       classes)
    frame["log_price"] = np.log(frame["usd_per_chip_hour"])
    frame["quarter"] = frame["date"].dt.to_period("Q")
    # The cycle only loads on market prices, so it spans the quarters that have them: a window
    # reaching back into list-only years would let the detrended cycle still carry a trend
    # over the market years.
    market_quarters = frame.loc[frame["price_class"] == "market", "quarter"]
    quarters = pd.period_range(market_quarters.min(), frame["quarter"].max(), freq="Q")
    types = (REFERENCE_TYPE,) + tuple(sorted(set(frame["pricing_type"]) - {REFERENCE_TYPE}))
    return PriceData(
        observations=frame.reset_index(drop=True),
        chips=tuple(sorted(set(frame["chip"]))),
        vendors=VENDORS,
        pricing_types=types,
        quarters=quarters,
        catalogue=dataset.accelerators[list(CATALOGUE_COLUMNS)].copy(),
        provider_classes=classes,
    )


def identified_market_vendors(observations: pd.DataFrame) -> list[str]:
    """Vendors with market prices of one chip at two or more ages.

    Only their decay is identified by data when every chip has its own level; the other
    vendors' decay rates are draws from the population.
    """
    market = observations[observations["price_class"] == "market"]
    ages_per_chip = market.groupby("chip")["age_years"].nunique()
    chips = set(ages_per_chip[ages_per_chip >= 2].index)
    return sorted(set(market.loc[market["chip"].isin(chips), "vendor_group"]))

