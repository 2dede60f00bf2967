"""Monte Carlo draws of each covered vendor's accelerator dollars per calendar quarter.

Nobody publishes vendor shares of accelerator *spend* per quarter, so they are derived:

    dollars_v(t) = sum over the vendor's volume rows in quarter t of  units x price per unit

Units never meet dollars anywhere else: ``units`` are chips (Epoch AI's modelled quarterly
shipments, ``Dataset.volumes``), prices are USD per chip (:mod:`forecast.economics.pricing`)
and ``dollars`` are USD billions.

**Units.** Epoch's volumes are model outputs, not disclosures (data README caveat 7). Each row
is a lognormal with median ``units_median`` and log-sd fitted to the 5-95% band:
``sigma = (log p95 - log p5) / (2 x 1.645)`` (asymmetric bands are averaged). Rows are
independent draws. Epoch's 2024 Trainium1 rows are a flat 110k a quarter (a placeholder-like
annual split); they are used, with their wide 5-95% band.

**Price per unit**: one draw per (price key, calendar year), shared by every row that uses it.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.economics.pricing import (
    DEFAULT_MC_DRAWS,
    DEFAULT_POINT_SPREAD,
    price_key,
    pricing_rules,
    sample_unit_prices,
)
from forecast.economics.vendors import share_vendors

__all__ = ["sample_vendor_dollars"]

_Z95: Final = 1.6448536269514722  # standard normal 95% quantile: fits sigma to a 5-95% band


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

    Parameters
    ----------
    dataset
        The data (volumes, prices, vendor groups).
    draws, seed
        Monte Carlo draws (>= 2) and the seed of their generator.
    point_spread
        See :func:`~forecast.economics.pricing.pricing_rules`.

    Returns
    -------
    xarray.DataArray
        ``(draw, quarter, vendor)`` in USD billions; NaN where a vendor has no volume row in
        that quarter (not observed, which is not the same as zero).
    """
    if draws < 2:
        raise ForecastError(f"draws must be >= 2, got {draws}")
    vendors = share_vendors(dataset)
    rng = np.random.default_rng(seed)
    rules = pricing_rules(dataset, point_spread)
    volumes = dataset.volumes[dataset.volumes["vendor_group"].isin(vendors)]
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
    dollars = np.full((draws, len(quarters), len(vendors)), np.nan)
    q_pos = {str(q): i for i, q in enumerate(quarters)}
    for j, row in enumerate(volumes.itertuples(index=False)):
        key = price_key(str(row.chip_as_recorded), str(row.chip), rules)
        usd = units[:, j] * prices[key, int(row.quarter.year)] / 1e9  # chips x USD/chip -> $B
        t, v = q_pos[str(row.quarter)], vendors.index(row.vendor_group)
        dollars[:, t, v] = np.where(np.isnan(dollars[:, t, v]), 0.0, dollars[:, t, v]) + usd
    return xr.DataArray(
        dollars, dims=("draw", "quarter", "vendor"),
        coords={"draw": np.arange(draws), "quarter": [str(q) for q in quarters],
                "vendor": list(vendors)},
        name="dollars", attrs={"unit": "USD billions per quarter"},
    )
