"""Observed dollar shares per vendor, with the uncertainty of their derivation (input to M4).

Dollars per vendor and quarter are Monte Carlo draws of units x price per unit
(:mod:`forecast.economics.dollars`, :mod:`forecast.economics.pricing`); the cost covariate is
the owner-TCO cost per effective PFLOP-hour (:mod:`forecast.economics.chip_costs`).

Vendors covered are the groups of ``data/vendor_groups.csv`` with a ``share_model_order``
(today ``nvidia``, ``amd``, ``google`` and ``aws``). Intel Gaudi (``other``) and Meta/Microsoft
silicon (``other_custom``) have no unit data and are not covered: shares here are shares of the
covered vendors' spend, and a forecast that needs an "other" share must supply it (see
:meth:`forecast.models.share.FittedShareModel.forecast`).

Coverage differs by quarter (NVIDIA from 2021Q4, Google from 2022Q4, AMD and AWS from 2024Q1).
Shares are therefore passed to the model as **additive log-ratios against the reference
vendor** (the first covered group, NVIDIA) of the vendors present in each quarter:
``log(D_v / D_nvidia)`` does not depend on which other vendors are observed (log-ratios are
subcompositionally coherent), so the 2022Q4-2023Q4 Google/NVIDIA ratios are usable although
AMD and AWS are missing then. The per-quarter mean and covariance of these log-ratios over the
Monte Carlo draws is the measurement error the model's likelihood uses. Caveats: Epoch derived
NVIDIA units from revenue / ASP, so NVIDIA's unit and price errors are really negatively
correlated; independent draws overstate NVIDIA's dollar uncertainty (conservative).
Correlation of errors across quarters is not carried.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.economics.chip_costs import COST_BASIS, cost_basis, historical_costs
from forecast.economics.dollars import sample_vendor_dollars
from forecast.economics.offers import ramp_quarters_of
from forecast.economics.pricing import DEFAULT_MC_DRAWS, DEFAULT_POINT_SPREAD
from forecast.economics.vendors import share_vendors

__all__ = ["ShareData", "observed_shares", "share_inputs"]


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
    ramp_quarters: int | None = None,
) -> ShareData:
    """The arrays the share model needs: log-ratio moments per quarter and log costs.

    The window runs from the first quarter in which the reference vendor and at least one
    other covered vendor are observed to the last quarter with volume data.

    Parameters
    ----------
    dataset, scenario
        Data and the scenario whose input medians set the cost basis (MFU, TCO).
    draws, seed, point_spread
        Of the Monte Carlo dollars and unit prices.
    ramp_quarters
        Quarters a new chip takes to ramp in the cost covariate; None: the scenario's
        ``new_chip_ramp_quarters`` setting (:func:`~forecast.economics.offers.ramp_quarters_of`).

    Returns
    -------
    ShareData
        Log-ratio moments, observation flags and log costs of the fit window.
    """
    if ramp_quarters is None:
        ramp_quarters = ramp_quarters_of(scenario)
    vendors = share_vendors(dataset)
    dollars = sample_vendor_dollars(dataset, draws, seed, point_spread)
    mean, cov, observed = _alr_moments(dollars)
    usable = observed[:, 0] & observed[:, 1:].any(axis=1)
    if usable.sum() < 2:
        raise ForecastError(f"fewer than two quarters with {vendors[0]} and another vendor "
                            "observed")
    first, last = np.flatnonzero(usable)[[0, -1]]
    sel = slice(first, last + 1)
    quarters = tuple(str(q) for q in dollars["quarter"].values[sel])
    if not observed[sel, 0].all():
        raise ForecastError(f"{vendors[0]} volumes have a gap inside the fit window")
    costs = historical_costs(dataset, scenario, quarters, draws, seed, point_spread,
                             ramp_quarters)
    return ShareData(quarters, vendors, mean[sel], cov[sel], observed[sel],
                     np.log(costs.to_numpy(float)), cost_basis(ramp_quarters))


def observed_shares(
    dataset: Dataset,
    scenario: Any,
    draws: int = DEFAULT_MC_DRAWS,
    seed: int = 0,
    complete_only: bool = True,
    point_spread: float = DEFAULT_POINT_SPREAD,
    ramp_quarters: int | None = None,
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
        See :func:`~forecast.economics.pricing.pricing_rules`.
    ramp_quarters
        Quarters a new chip takes to ramp in the cost covariate; None: the scenario's
        ``new_chip_ramp_quarters`` setting (:func:`~forecast.economics.offers.ramp_quarters_of`).

    Returns
    -------
    pandas.DataFrame
        Columns ``quarter, vendor, share_mean, share_p10, share_p90, dollars_median`` (USD
        billions), ``vendors_observed`` and ``cost_per_pflop_hour`` (USD per effective
        PFLOP-hour, the model covariate).
    """
    if ramp_quarters is None:
        ramp_quarters = ramp_quarters_of(scenario)
    vendors = share_vendors(dataset)
    dollars = sample_vendor_dollars(dataset, draws, seed, point_spread)
    values = dollars.values
    observed = ~np.isnan(values[0])
    shares = values / np.nansum(values, axis=2, keepdims=True)
    quarters = [str(q) for q in dollars["quarter"].values]
    costs = historical_costs(dataset, scenario, quarters, draws, seed, point_spread,
                             ramp_quarters)
    rows = []
    for t, quarter in enumerate(quarters):
        if complete_only and not observed[t].all():
            continue
        present = ",".join(v for v, o in zip(vendors, observed[t], strict=True) if o)
        for k, vendor in enumerate(vendors):
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
