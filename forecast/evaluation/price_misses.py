"""The price backtest's misses: the observations outside the model's 80% interval."""

from __future__ import annotations

import pandas as pd

from forecast.data.dataset import Dataset
from forecast.evaluation import harness
from forecast.evaluation.price_backtest import BAYES, later_prices


def missed_observations(tidy: pd.DataFrame, dataset: Dataset, model: str = BAYES
                        ) -> pd.DataFrame:
    """The scored observations outside ``model``'s 80% interval, with what they were.

    ``tidy`` is :func:`backtest_price_cli`'s scored frame; returns one row per miss: origin,
    quarters ahead, the observation's date, chip, provider and pricing type, the price, the
    forecast median and the PIT, sorted by chip, provider and date.
    """
    mine = tidy[(tidy["forecaster"] == model) & ~tidy["in_80"].astype(bool)]
    rows = []
    for origin, group in mine.groupby("origin", sort=True):
        test = later_prices(dataset, pd.Timestamp(origin)).reset_index(drop=True)
        rows.append(test.iloc[group["key"].astype(int)].reset_index(drop=True).assign(
            origin=harness.origin_label(origin), quarters_ahead=group["quarters_ahead"].to_numpy(),
            median=group["median"].to_numpy(), pit=group["pit"].to_numpy()))
    columns = ["origin", "quarters_ahead", "date", "chip", "provider_or_index", "pricing_type",
               "usd_per_chip_hour", "median", "pit"]
    if not rows:
        return pd.DataFrame(columns=columns)
    misses = pd.concat(rows, ignore_index=True)[columns]
    misses["date"] = pd.to_datetime(misses["date"]).dt.date
    return misses.sort_values(["chip", "provider_or_index", "date", "origin"],
                              ignore_index=True)
