"""M5 AWS custom-silicon revenue: top-down (TAM x share) and a bottom-up cross-check.

Pure numpy/xarray functions, no inference. Units are named in every signature and never mixed:

- *chips* (units): deployed Trainium chips, a count;
- *USD per chip-hour*: a price;
- *fraction*: a share of spend or a utilisation;
- *USD billions per quarter*: revenue (the only dollar output).

Top-down: ``revenue = TAM x s_aws`` (the revenue-equivalent of AWS's share of accelerator
spend). Bottom-up: ``revenue = deployed chips x price per chip-hour x hours x utilisation``.
The two answer different questions (a share of spend valued at the market's prices vs rental
revenue of AWS's own fleet) and are reported side by side, never summed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset

__all__ = [
    "HOURS_PER_QUARTER",
    "aws_revenue_bottomup",
    "aws_revenue_topdown",
    "epoch_trainium_start",
    "trainium_fleet",
]

#: Average hours in a calendar quarter (365.25 x 24 / 4): a unit conversion.
HOURS_PER_QUARTER: Final = 365.25 * 24.0 / 4.0
_USD_PER_BILLION: Final = 1e9
_Z95: Final = 1.6448536269514722
_EPOCH_METRIC: Final = "Epoch AI estimate: cumulative Trainium chips deployed"

ArrayLike = np.ndarray | xr.DataArray | float


def _check_same_shape(**arrays: Any) -> None:
    shapes = {name: np.shape(value) for name, value in arrays.items()}
    if len(set(shapes.values())) != 1:
        text = ", ".join(f"{name}{shape}" for name, shape in shapes.items())
        raise ForecastError(f"shapes differ: {text}")


def aws_revenue_topdown(tam_paths: ArrayLike, aws_share_paths: ArrayLike) -> ArrayLike:
    """AWS custom-silicon revenue-equivalent: TAM x AWS share of accelerator spend.

    Parameters
    ----------
    tam_paths
        Accelerator spend (TAM) in USD billions per quarter, e.g. ``(draw, quarter)``.
    aws_share_paths
        AWS's share of that spend, a fraction in [0, 1], the same shape (numpy) or
        alignable dimensions (xarray: aligned by coordinates, inner join refused).

    Returns
    -------
    numpy.ndarray or xarray.DataArray
        USD billions per quarter, the same shape.

    Raises
    ------
    ForecastError
        On different shapes, a share outside [0, 1] or a negative TAM.
    """
    if isinstance(tam_paths, xr.DataArray) and isinstance(aws_share_paths, xr.DataArray):
        try:
            tam, share = xr.align(tam_paths, aws_share_paths, join="exact")
        except ValueError as exc:
            raise ForecastError(f"TAM and share paths do not align: {exc}") from None
        if set(tam.dims) != set(share.dims):
            raise ForecastError(f"dims differ: tam_paths{tam.dims}, aws_share_paths{share.dims}")
        tam = tam.transpose(*share.dims)
    else:
        tam = np.asarray(tam_paths, dtype=float)
        share = np.asarray(aws_share_paths, dtype=float)
        _check_same_shape(tam_paths=tam, aws_share_paths=share)
    if np.any(np.asarray(share) < 0) or np.any(np.asarray(share) > 1):
        raise ForecastError("aws_share_paths must be fractions in [0, 1]")
    if np.any(np.asarray(tam) < 0):
        raise ForecastError("tam_paths must be >= 0 (USD billions)")
    result = tam * share
    if isinstance(result, xr.DataArray):
        result = result.rename("aws_revenue_topdown")
        result.attrs["unit"] = "USD billions per quarter"
    return result


def aws_revenue_bottomup(
    deployed_chips: ArrayLike,
    price_per_chip_hour: ArrayLike,
    utilisation: ArrayLike,
    hours_per_quarter: float = HOURS_PER_QUARTER,
) -> ArrayLike:
    """Bottom-up AWS custom-silicon revenue: chips x USD per chip-hour x hours x utilisation.

    Parameters
    ----------
    deployed_chips
        Deployed chips (units, a count), e.g. ``(draw, quarter)`` from :func:`trainium_fleet`.
    price_per_chip_hour
        USD per chip-hour, broadcastable to ``deployed_chips`` (e.g. ``(draw, 1)``).
    utilisation
        Fraction of deployed chip-hours billed, in (0, 1], broadcastable likewise.
    hours_per_quarter
        Hours per quarter (default the calendar average, 2191.5).

    Returns
    -------
    numpy.ndarray or xarray.DataArray
        USD billions per quarter, with the shape of ``deployed_chips``.

    Raises
    ------
    ForecastError
        On negative chips or prices, utilisation outside (0, 1], or inputs that would change
        the shape of ``deployed_chips`` when broadcast.
    """
    chips = deployed_chips if isinstance(deployed_chips, xr.DataArray) else np.asarray(
        deployed_chips, dtype=float)
    price = price_per_chip_hour if isinstance(price_per_chip_hour, xr.DataArray) else (
        np.asarray(price_per_chip_hour, dtype=float))
    util = utilisation if isinstance(utilisation, xr.DataArray) else np.asarray(
        utilisation, dtype=float)
    if np.any(np.asarray(chips) < 0):
        raise ForecastError("deployed_chips must be >= 0 (chips)")
    if np.any(np.asarray(price) < 0):
        raise ForecastError("price_per_chip_hour must be >= 0 (USD per chip-hour)")
    u = np.asarray(util)
    if np.any((u <= 0) | (u > 1)):
        raise ForecastError("utilisation must be in (0, 1]")
    if not hours_per_quarter > 0:
        raise ForecastError("hours_per_quarter must be > 0")
    if not isinstance(chips, xr.DataArray):
        try:
            shape = np.broadcast_shapes(chips.shape, np.shape(price), np.shape(util))
        except ValueError:
            raise ForecastError(
                f"shapes do not broadcast: deployed_chips{chips.shape}, "
                f"price_per_chip_hour{np.shape(price)}, utilisation{np.shape(util)}") from None
        if shape != chips.shape:
            raise ForecastError(f"price and utilisation would change the shape of "
                                f"deployed_chips {chips.shape} to {shape}")
    # chips x (USD / chip-hour) x (hours / quarter) x fraction -> USD / quarter -> billions
    result = chips * price * hours_per_quarter * util / _USD_PER_BILLION
    if isinstance(result, xr.DataArray):
        result = result.rename("aws_revenue_bottomup")
        result.attrs["unit"] = "USD billions per quarter"
    return result


def trainium_fleet(
    start_units: ArrayLike,
    growth_per_year: ArrayLike,
    quarters: int | Sequence[str],
) -> np.ndarray | xr.DataArray:
    """Deployed Trainium chips (units) per quarter, growing from a start at a yearly rate.

    ``fleet(h) = start_units x (1 + growth_per_year) ** (h / 4)`` for the h-th quarter after
    the start (h = 1, 2, ...).

    Parameters
    ----------
    start_units
        Chips deployed at the start (scalar or ``(draws,)``), e.g. from
        :func:`epoch_trainium_start`.
    growth_per_year
        Fractional growth per year (scalar or ``(draws,)``; scenario
        ``trainium_fleet_growth_per_year``), > -1.
    quarters
        Number of quarters after the start, or their labels (then an xarray DataArray with
        ``(draw, quarter)`` is returned).

    Returns
    -------
    numpy.ndarray or xarray.DataArray
        ``(draws, quarters)`` chips (``draws`` = 1 when both inputs are scalars).
    """
    labels = None if isinstance(quarters, int | np.integer) else [str(q) for q in quarters]
    n = int(quarters) if labels is None else len(labels)
    if n <= 0:
        raise ForecastError(f"quarters must be >= 1, got {n}")
    start = np.atleast_1d(np.asarray(start_units, dtype=float))
    growth = np.atleast_1d(np.asarray(growth_per_year, dtype=float))
    if start.ndim != 1 or growth.ndim != 1:
        raise ForecastError("start_units and growth_per_year must be scalars or 1-D (draws,)")
    if np.any(start < 0):
        raise ForecastError("start_units must be >= 0 (chips)")
    if np.any(growth <= -1):
        raise ForecastError("growth_per_year must be > -1")
    try:
        draws = np.broadcast_shapes(start.shape, growth.shape)[0]
    except ValueError:
        raise ForecastError(f"start_units{start.shape} and growth_per_year{growth.shape} "
                            "differ in draws") from None
    h = np.arange(1, n + 1) / 4.0
    fleet = np.broadcast_to(start, (draws,))[:, None] * (
        1.0 + np.broadcast_to(growth, (draws,))[:, None]) ** h[None, :]
    if labels is None:
        return fleet
    return xr.DataArray(fleet, dims=("draw", "quarter"),
                        coords={"draw": np.arange(draws), "quarter": labels},
                        name="deployed_chips", attrs={"unit": "chips"})


def epoch_trainium_start(
    dataset: Dataset, draws: int | None = None, seed: int = 0
) -> tuple[pd.Timestamp, np.ndarray]:
    """Epoch AI's latest modelled cumulative Trainium deployment (chips), as a fleet start.

    The rows of ``aws_custom_silicon`` named "Epoch AI estimate: cumulative Trainium chips
    deployed since 2024-01-01 (median)" hold the median in ``value`` and the 5th-95th
    percentile band in ``value_p5`` and ``value_p95``. These are model estimates, not
    disclosures; chips deployed before 2024 and retirements are not in them.

    Parameters
    ----------
    dataset
        The data.
    draws
        None: return the median as a 1-element array. Otherwise that many lognormal draws
        fitted to the median and the 5-95% band (the two half-bands averaged).
    seed
        Seed of the draws.

    Returns
    -------
    (date, chips)
        The estimate's date and the chips (``(1,)`` or ``(draws,)``).
    """
    table = dataset.aws_custom_silicon
    rows = table[table["metric"].str.startswith(_EPOCH_METRIC) & (table["unit"] == "chips")]
    if rows.empty:
        raise ForecastError("no Epoch cumulative Trainium rows in aws_custom_silicon")
    latest = rows.sort_values("date").iloc[-1]
    median = float(latest["value"])
    if draws is None:
        return pd.Timestamp(latest["date"]), np.array([median])
    p5, p95 = float(latest["value_p5"]), float(latest["value_p95"])
    if np.isnan(p5) or np.isnan(p95):
        raise ForecastError("the latest Epoch Trainium row has no 5th-95th percentile band "
                            "(value_p5, value_p95)")
    sigma = (np.log(p95) - np.log(p5)) / (2.0 * _Z95)
    rng = np.random.default_rng(seed)
    return pd.Timestamp(latest["date"]), median * np.exp(sigma * rng.standard_normal(draws))
