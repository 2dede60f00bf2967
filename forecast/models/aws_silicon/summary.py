"""Calendar-year quantiles of the AWS silicon paths, each quantity with its unit (numpy,
pandas, xarray): the table a forecast prints."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.annual import annual_values

#: The yearly quantities, their units and how each is made from the quarterly paths.
ANNUAL_UNITS: dict[str, str] = {
    "spend_at_cost": "USD billions per year",
    "rental_revenue": "USD billions per year",
    "merchant_equivalent_value": "USD billions per year",
    "revenue_to_spend": "ratio (rental revenue / spend at cost, same year)",
    "merchant_to_spend": "ratio (merchant-equivalent value / spend at cost, same year)",
    "rental_run_rate_q4": "USD billions per year (4 x Q4 rental revenue)",
    "fleet_q4": "chips in service at the end of Q4",
    "custom_chips_run_rate_q4": "USD billions per year (Q4 Trainium run rate + Graviton)",
}


def annual_samples(paths: xr.Dataset, graviton_run_rate: np.ndarray | None = None
                   ) -> tuple[list[str], dict[str, np.ndarray]]:
    """Per-path yearly values (draw, year) of :data:`ANNUAL_UNITS` (complete years only).

    ``graviton_run_rate`` (draw, quarter), USD bn a year over the paths' quarters, adds the
    custom-chips run rate (see :mod:`forecast.models.aws_silicon.graviton`).
    """
    labels = [str(q) for q in paths["quarter"].values]
    values = {}
    years: list[str] = []
    for name in ("spend_at_cost", "rental_revenue", "merchant_equivalent_value"):
        years, values[name] = annual_values(paths[name].values, labels)
    values["revenue_to_spend"] = values["rental_revenue"] / values["spend_at_cost"]
    values["merchant_to_spend"] = values["merchant_equivalent_value"] / values["spend_at_cost"]
    q4 = [labels.index(f"{year}Q4") for year in years]
    values["rental_run_rate_q4"] = paths["rental_run_rate"].values[:, q4]
    values["fleet_q4"] = paths["fleet_total"].values[:, q4]
    if graviton_run_rate is not None:
        graviton = np.asarray(graviton_run_rate, dtype=float)[:, q4]
        values["custom_chips_run_rate_q4"] = values["rental_run_rate_q4"] + graviton
    return years, values


def annual_table(paths: xr.Dataset, quantiles: Sequence[float] = (0.1, 0.5, 0.9),
                 graviton_run_rate: np.ndarray | None = None) -> pd.DataFrame:
    """quantity, unit, year, mean and one column per quantile (``p10`` ...), one row per
    quantity and complete calendar year of ``paths`` (a ``FittedAwsSilicon.forecast``)."""
    years, values = annual_samples(paths, graviton_run_rate)
    rows = []
    for name, samples in values.items():
        q = np.quantile(samples, quantiles, axis=0)
        for k, year in enumerate(years):
            row = {"quantity": name, "unit": ANNUAL_UNITS[name], "year": int(year),
                   "mean": float(samples[:, k].mean())}
            row.update({f"p{round(level * 100):02d}": float(q[j, k])
                        for j, level in enumerate(quantiles)})
            rows.append(row)
    return pd.DataFrame(rows)
