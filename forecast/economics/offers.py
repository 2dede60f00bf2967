"""Each vendor's best offer at a quarter, with new chips ramping in.

A chip's offer is its cost per effective PFLOP-hour. A chip released ``k`` quarters ago with
``k < ramp_quarters`` is still ramping: supply is thin, so only part of the market gets it and
its offer is blended with the vendor's best fully ramped chip (see :func:`best_offer`).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from forecast.core.calendar import period_index
from forecast.core.errors import ForecastError
from forecast.economics.checks import (
    EconomicsInputError,
    as_float,
    require,
    require_columns,
    require_unique_chips,
)

__all__ = ["DEFAULT_RAMP_QUARTERS", "RAMP_SETTING", "best_offer", "ramp_quarters_of",
           "release_quarter_indices", "vendor_offers"]

#: The scenario setting giving the quarters a new chip takes to ramp to full supply
#: (``[settings.new_chip_ramp_quarters]``, with its rationale, in ``scenarios/base.toml``).
RAMP_SETTING: Final = "new_chip_ramp_quarters"
#: The documented default ramp for callers without a scenario (notebooks, the pure functions
#: below): the shipped scenarios' setting (a launch quarter and the next one at partial
#: supply). Callers with a scenario take its setting (:func:`ramp_quarters_of`).
DEFAULT_RAMP_QUARTERS: Final = 2


def ramp_quarters_of(scenario: Any) -> int:
    """The quarters a new chip takes to ramp under ``scenario``.

    Parameters
    ----------
    scenario
        A scenario with ``settings`` (name -> an object with ``value``), or None. None, or an
        object without ``settings`` (a duck-typed stand-in), gives
        :data:`DEFAULT_RAMP_QUARTERS`.

    Returns
    -------
    int

    Raises
    ------
    ForecastError
        If the scenario has settings but not :data:`RAMP_SETTING`.
    """
    settings = getattr(scenario, "settings", None)
    if settings is None:
        return DEFAULT_RAMP_QUARTERS
    if RAMP_SETTING not in settings:
        raise ForecastError(f"scenario {getattr(scenario, 'name', '?')!r} has no "
                            f"[settings.{RAMP_SETTING}]")
    return int(settings[RAMP_SETTING].value)


def release_quarter_indices(accelerators: pd.DataFrame) -> npt.NDArray[np.float64]:
    """Release quarter index per chip (float, NaN where unknown).

    Uses ``release_quarter`` when present, else ``release_date``.
    """
    if "release_quarter" in accelerators.columns:
        quarters = pd.Series(accelerators["release_quarter"]).reset_index(drop=True)
        out = np.full(len(quarters), np.nan)
        for i, value in enumerate(quarters):
            if not pd.isna(value):
                out[i] = period_index(value)
        return out
    require_columns(accelerators, ["release_date"], "accelerators")
    dates = pd.to_datetime(accelerators["release_date"]).reset_index(drop=True)
    index = dates.dt.year * 4 + (dates.dt.month - 1) // 3
    # NaT yields garbage through .dt arithmetic, so mask it explicitly.
    return np.where(dates.isna(), np.nan, index.to_numpy(dtype=float, na_value=np.nan))


def best_offer(
    release_qidx: npt.ArrayLike,
    cost: npt.ArrayLike,
    vendor_codes: npt.ArrayLike,
    quarter_qidx: int | str | pd.Period,
    ramp_quarters: int = DEFAULT_RAMP_QUARTERS,
    n_vendors: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Each vendor's best offer at one quarter, per draw, with new chips ramping in.

    A chip is *available* at quarter ``q`` when it was released at or before ``q``
    (``release_qidx <= q``) and has a finite cost. A chip released ``k`` quarters ago with
    ``k < ramp_quarters`` is still ramping: supply is thin, so only a weight
    ``w = (k + 1) / (ramp_quarters + 1)`` of the market gets it and its offer is blended with
    the vendor's best *older* (fully ramped) chip::

        offer = w * cost_new + (1 - w) * older_best      (if the vendor has an older chip)
        offer = cost_new                                 (otherwise)

    With ``ramp_quarters = 2`` a new chip counts 1/3 in its launch quarter, 2/3 in the next,
    fully after that. Fully ramped chips offer their own cost. The vendor's best offer is the
    lowest of these; a ramping chip dearer than the older best never lowers it.

    Parameters
    ----------
    release_qidx : array_like
        Release quarter index (``year * 4 + quarter - 1``) per chip, shape ``(chips,)``, or
        ``(draws, chips)`` when future chips have per-draw launch quarters. Floats are
        accepted; NaN means "not released in that draw".
    cost : array_like
        Cost per effective PFLOP-hour at this quarter, shape ``(draws, chips)``; NaN means the
        chip has no offer. A 1-D ``(chips,)`` array is treated as a single draw and the
        outputs are then 1-D ``(vendors,)``.
    vendor_codes : array_like of int
        Vendor index (0 .. n_vendors - 1) per chip, shape ``(chips,)``.
    quarter_qidx : int, str or pandas.Period
        The quarter, as an index or as ``"2025Q4"``/``pandas.Period``.
    ramp_quarters : int, default :data:`DEFAULT_RAMP_QUARTERS`
        Quarters a new chip takes to ramp; 0 disables ramping.
    n_vendors : int, optional
        Number of vendors (columns of the output); defaults to ``max(vendor_codes) + 1``.

    Returns
    -------
    best_cost : numpy.ndarray
        ``(draws, vendors)`` lowest offer per vendor; NaN for a vendor with no available chip.
    best_chip_index : numpy.ndarray
        ``(draws, vendors)`` int column index (into ``cost``) of the chip behind that offer
        (the ramping chip when a blend wins); -1 where ``best_cost`` is NaN.

    Raises
    ------
    EconomicsInputError
        On inconsistent shapes, negative costs, bad vendor codes or a negative ramp.
    """
    q = _quarter(quarter_qidx)
    if not isinstance(ramp_quarters, (int, np.integer)) or ramp_quarters < 0:
        raise EconomicsInputError(f"ramp_quarters must be an int >= 0, got {ramp_quarters!r}")
    cost_a = as_float("cost", cost)
    single_draw = cost_a.ndim == 1
    if single_draw:
        cost_a = cost_a[None, :]
    if cost_a.ndim != 2:
        raise EconomicsInputError(f"cost must be (draws, chips); got shape {cost_a.shape}")
    n_draws, n_chips = cost_a.shape
    require("cost", cost_a, np.isfinite(cost_a) & (cost_a >= 0), "finite and >= 0 (or NaN)")
    release = _release(release_qidx, n_draws, n_chips)
    codes, n_v = _vendor_codes(vendor_codes, n_chips, n_vendors)
    best_cost, best_index = _best_per_vendor(cost_a, q - release, codes, n_v, ramp_quarters)
    if single_draw:
        return best_cost[0], best_index[0]
    return best_cost, best_index


def _best_per_vendor(
    cost_a: np.ndarray, age: np.ndarray, codes: np.ndarray, n_v: int, ramp_quarters: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """``(draws, vendors)`` lowest offer and the column of the chip behind it.

    ``age`` is quarters since release, NaN where a chip is not released in that draw.
    """
    n_draws = cost_a.shape[0]
    best_cost = np.full((n_draws, n_v), np.nan)
    best_index = np.full((n_draws, n_v), -1, dtype=np.int64)
    # NaN ages compare False, so unreleased chips are never available.
    available = (age >= 0) & ~np.isnan(cost_a)
    ramping = available & (age < ramp_quarters)
    settled = available & ~ramping
    # Loop over the handful of vendors; everything inside is vectorised over draws and chips.
    for v in range(n_v):
        cols = np.flatnonzero(codes == v)
        if cols.size:
            offers = _vendor_offers(cost_a[:, cols], age[:, cols], settled[:, cols],
                                    ramping[:, cols], ramp_quarters)
            pick = offers.argmin(axis=1)
            value = offers[np.arange(n_draws), pick]
            found = np.isfinite(value)
            best_cost[:, v] = np.where(found, value, np.nan)
            best_index[:, v] = np.where(found, cols[pick], -1)
    return best_cost, best_index


def _quarter(quarter_qidx: int | str | pd.Period) -> int:
    if isinstance(quarter_qidx, bool):
        raise EconomicsInputError("quarter_qidx must be an int quarter index, not a bool")
    if isinstance(quarter_qidx, (int, np.integer)):
        return int(quarter_qidx)
    return period_index(quarter_qidx)


def _release(release_qidx: npt.ArrayLike, n_draws: int, n_chips: int) -> np.ndarray:
    """Release quarters as ``(draws, chips)``."""
    release = as_float("release_qidx", release_qidx)
    if release.shape == (n_chips,):
        return np.broadcast_to(release, (n_draws, n_chips))
    if release.shape != (n_draws, n_chips):
        raise EconomicsInputError(
            f"release_qidx must be (chips,) or (draws, chips) = {(n_draws, n_chips)}; "
            f"got {release.shape}"
        )
    return release


def _vendor_codes(
    vendor_codes: npt.ArrayLike, n_chips: int, n_vendors: int | None
) -> tuple[np.ndarray, int]:
    """The checked vendor code per chip and the number of vendors."""
    codes = np.asarray(vendor_codes)
    if codes.shape != (n_chips,) or not np.issubdtype(codes.dtype, np.integer):
        raise EconomicsInputError(
            f"vendor_codes must be integers of shape ({n_chips},); got {codes.dtype} {codes.shape}"
        )
    if n_chips and codes.min() < 0:
        raise EconomicsInputError("vendor_codes must be >= 0")
    n_v = int(codes.max()) + 1 if n_vendors is None and n_chips else int(n_vendors or 0)
    if n_v < 0 or (n_chips and codes.max() >= n_v):
        raise EconomicsInputError(f"vendor code {int(codes.max())} >= n_vendors={n_v}")
    return codes, n_v


def _vendor_offers(
    c: np.ndarray, age: np.ndarray, settled: np.ndarray, ramping: np.ndarray, ramp_quarters: int
) -> np.ndarray:
    """``(draws, chips)`` offers of one vendor's chips; inf where a chip offers nothing."""
    offers = np.where(settled, c, np.inf)  # the settled chips' own offers
    older_best = offers.min(axis=1, keepdims=True)
    # Blends only for the chips ramping in some draw (few: the newest ones).
    new = np.flatnonzero(ramping.any(axis=0))
    if new.size:
        has_older = np.isfinite(older_best)
        weight = (age[:, new] + 1.0) / (ramp_quarters + 1.0)
        blended = np.where(has_older, weight * c[:, new] + (1.0 - weight)
                           * np.where(has_older, older_best, 0.0), c[:, new])
        offers[:, new] = np.where(ramping[:, new], blended, offers[:, new])
    return offers


def vendor_offers(
    accelerators: pd.DataFrame,
    quarter: str | pd.Period,
    costs_by_chip: pd.Series,
    ramp_quarters: int = DEFAULT_RAMP_QUARTERS,
) -> pd.DataFrame:
    """Best offer per vendor group at one quarter, for a single point estimate.

    A thin wrapper around :func:`best_offer` for the CLI and notebooks.

    Parameters
    ----------
    accelerators : pandas.DataFrame
        One row per chip with ``chip``, ``vendor_group`` and ``release_quarter`` (or
        ``release_date``).
    quarter : str or pandas.Period
        E.g. ``"2025Q4"``.
    costs_by_chip : pandas.Series
        Cost per effective PFLOP-hour indexed by chip (e.g. the ``economics_table`` column);
        chips absent or NaN have no offer.
    ramp_quarters : int, default :data:`DEFAULT_RAMP_QUARTERS`
        See :func:`best_offer`.

    Returns
    -------
    pandas.DataFrame
        Columns ``vendor_group, chip, cost``, one row per vendor group in ``accelerators``
        (sorted); ``chip`` is missing (NA) and ``cost`` NaN where the group has no
        available offer.

    Raises
    ------
    ForecastError
        On missing columns, duplicated chips, or costs for chips not in ``accelerators``.
    """
    require_columns(accelerators, ["chip", "vendor_group"], "accelerators")
    require_unique_chips(accelerators)
    chips = accelerators["chip"].tolist()
    if costs_by_chip.index.has_duplicates:
        raise ForecastError("costs_by_chip has duplicated chips")
    unknown = sorted(set(costs_by_chip.index) - set(chips))
    if unknown:
        raise ForecastError(f"costs given for chips not in accelerators: {unknown}")

    groups = sorted(accelerators["vendor_group"].astype(str).unique())
    codes = pd.Categorical(accelerators["vendor_group"].astype(str), categories=groups).codes
    cost = pd.to_numeric(costs_by_chip.reindex(chips), errors="coerce").to_numpy(dtype=float)
    best, index = best_offer(
        release_quarter_indices(accelerators),
        cost[None, :],
        codes.astype(np.int64),
        quarter,
        ramp_quarters=ramp_quarters,
        n_vendors=len(groups),
    )
    return pd.DataFrame(
        {
            "vendor_group": groups,
            "chip": [chips[i] if i >= 0 else None for i in index[0]],
            "cost": best[0],
        }
    )
