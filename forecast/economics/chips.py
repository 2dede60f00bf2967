"""M1 chip economics: price-performance, owner TCO and each vendor's best offer.

Pure numpy/pandas, no inference and no I/O. Every array function broadcasts, so the same call
works for one point estimate or for a ``(draws, chips)`` array of scenario draws.

Units used throughout
---------------------
- Throughput: *dense* peak TFLOPS as stored in the data (never sparse headline figures);
  1 PFLOPS = 1000 TFLOPS.
- Utilisation: model-FLOP utilisation (MFU), a fraction in (0, 1]. It is a scenario input per
  vendor group because software maturity differs by vendor.
- Effective PFLOPS = dense PFLOPS x utilisation: the throughput a workload actually gets.
- Cost per effective PFLOP-hour: US dollars for one hour of one achieved PFLOP/s, i.e. the
  price of a chip-hour divided by the chip's effective PFLOPS.

No number about the world (prices, MFU, electricity tariffs, PUE...) lives in this module;
they arrive as arguments from the data or from a scenario. The only constants are unit
conversions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from forecast.core.calendar import period_index
from forecast.core.errors import ForecastError

__all__ = [
    "DATA_PRICE_SOURCE",
    "PRECISIONS",
    "EconomicsInputError",
    "best_offer",
    "cost_per_effective_pflop_hour",
    "dense_tflops_for",
    "economics_table",
    "effective_pflops",
    "owner_tco_per_chip_hour",
    "vendor_offers",
]

FloatOrArray = npt.NDArray[np.float64] | np.float64

# Unit conversions only.
_TFLOPS_PER_PFLOPS: Final = 1000.0
_WATTS_PER_KW: Final = 1000.0
_HOURS_PER_YEAR: Final = 8760.0  # 365 x 24; leap days are ignored

PRECISIONS: Final = ("auto", "fp8", "bf16")
_PRECISION_COLUMNS: Final = {"fp8": "fp8_dense_tflops", "bf16": "bf16_dense_tflops"}

DATA_PRICE_SOURCE: Final = "data: accelerators.csv cloud_on_demand_usd_per_chip_hour"
_NO_PRICE_SOURCE: Final = "none"
_DATA_PRICE_COLUMN: Final = "cloud_on_demand_usd_per_chip_hour"

_TABLE_COLUMNS: Final = [
    "chip",
    "vendor",
    "vendor_group",
    "release_date",
    "precision_used",
    "dense_tflops",
    "utilisation",
    "effective_pflops",
    "price_usd_per_chip_hour",
    "price_source",
    "cost_per_effective_pflop_hour",
    "note",
]


class EconomicsInputError(ForecastError, ValueError):
    """Raised on impossible economic inputs (non-positive TFLOPS, utilisation outside (0, 1]...).

    It is both a :class:`ForecastError` (so the CLI prints it as one line) and a
    :class:`ValueError` (what numpy users expect from a bad argument).
    """


# --------------------------------------------------------------------------------------------
# validation helpers


def _as_float(name: str, value: npt.ArrayLike) -> npt.NDArray[np.float64]:
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise EconomicsInputError(f"{name} must be numeric: {exc}") from None


def _require(
    name: str, values: npt.NDArray[np.float64], ok: npt.NDArray[np.bool_], rule: str
) -> None:
    """Raise unless ``ok`` holds wherever ``values`` is not NaN (NaN means "missing" and
    propagates instead of raising)."""
    bad = ~np.isnan(values) & ~ok
    if np.any(bad):
        offenders = values[bad]
        raise EconomicsInputError(
            f"{name} must be {rule}; got {offenders.flat[0]!r} "
            f"({offenders.size} bad value{'s' if offenders.size > 1 else ''})"
        )


def _check_positive(name: str, values: npt.NDArray[np.float64]) -> None:
    _require(name, values, np.isfinite(values) & (values > 0), "finite and > 0")


def _check_non_negative(name: str, values: npt.NDArray[np.float64]) -> None:
    _require(name, values, np.isfinite(values) & (values >= 0), "finite and >= 0")


def _check_fraction(name: str, values: npt.NDArray[np.float64]) -> None:
    # A utilisation is a share of peak: 0 would make every cost infinite, > 1 is impossible.
    _require(name, values, (values > 0) & (values <= 1), "in (0, 1]")


def _broadcast_check(**arrays: npt.NDArray[np.float64]) -> None:
    try:
        np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k}{v.shape}" for k, v in arrays.items())
        raise EconomicsInputError(f"shapes do not broadcast: {shapes}") from None


def _require_columns(frame: pd.DataFrame, columns: list[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ForecastError(f"{what} is missing column(s): {', '.join(missing)}")


def _require_unique_chips(accelerators: pd.DataFrame) -> None:
    duplicated = accelerators["chip"][accelerators["chip"].duplicated()].unique().tolist()
    if duplicated:
        raise ForecastError(f"accelerators must have one row per chip; duplicated: {duplicated}")


# --------------------------------------------------------------------------------------------
# quarter indices


def _release_quarter_indices(accelerators: pd.DataFrame) -> npt.NDArray[np.float64]:
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
    _require_columns(accelerators, ["release_date"], "accelerators")
    dates = pd.to_datetime(accelerators["release_date"]).reset_index(drop=True)
    index = dates.dt.year * 4 + (dates.dt.month - 1) // 3
    # NaT yields garbage through .dt arithmetic, so mask it explicitly.
    return np.where(dates.isna(), np.nan, index.to_numpy(dtype=float, na_value=np.nan))


# --------------------------------------------------------------------------------------------
# price-performance and TCO


def effective_pflops(dense_tflops: npt.ArrayLike, utilisation: npt.ArrayLike) -> FloatOrArray:
    """Effective throughput: dense PFLOPS times model-FLOP utilisation.

    Parameters
    ----------
    dense_tflops : array_like
        Dense peak TFLOPS (e.g. shape ``(chips,)``); NaN propagates.
    utilisation : array_like
        Model-FLOP utilisation in (0, 1] (e.g. shape ``(draws, chips)`` or ``(draws, 1)``).

    Returns
    -------
    numpy.ndarray or numpy.float64
        ``dense_tflops / 1000 * utilisation`` in PFLOPS, broadcast over the inputs.

    Raises
    ------
    EconomicsInputError
        If a non-NaN TFLOPS is not finite and positive, a non-NaN utilisation is outside
        (0, 1], or the shapes do not broadcast.
    """
    tflops = _as_float("dense_tflops", dense_tflops)
    util = _as_float("utilisation", utilisation)
    _check_positive("dense_tflops", tflops)
    _check_fraction("utilisation", util)
    _broadcast_check(dense_tflops=tflops, utilisation=util)
    return tflops / _TFLOPS_PER_PFLOPS * util


def cost_per_effective_pflop_hour(
    price_usd_per_chip_hour: npt.ArrayLike,
    dense_tflops: npt.ArrayLike,
    utilisation: npt.ArrayLike,
) -> FloatOrArray:
    """Dollars per hour of one *achieved* PFLOP/s: price / (dense PFLOPS x utilisation).

    Parameters
    ----------
    price_usd_per_chip_hour : array_like
        Price of one chip-hour in USD; NaN (no price) propagates to a NaN cost.
    dense_tflops : array_like
        Dense peak TFLOPS at the precision compared; NaN propagates.
    utilisation : array_like
        Model-FLOP utilisation in (0, 1].

    Returns
    -------
    numpy.ndarray or numpy.float64
        Cost per effective PFLOP-hour, broadcast over the three inputs
        (e.g. ``(draws, chips)`` from prices ``(draws, chips)``, TFLOPS ``(chips,)`` and
        utilisation ``(draws, 1)``).

    Raises
    ------
    EconomicsInputError
        (a ``ValueError``) on a negative or infinite price, non-positive TFLOPS, utilisation
        outside (0, 1] (NaN values excepted), or shapes that do not broadcast.
    """
    price = _as_float("price_usd_per_chip_hour", price_usd_per_chip_hour)
    _check_non_negative("price_usd_per_chip_hour", price)
    throughput = np.asarray(effective_pflops(dense_tflops, utilisation))
    _broadcast_check(price_usd_per_chip_hour=price, effective_pflops=throughput)
    return price / throughput


def owner_tco_per_chip_hour(
    capex_usd: npt.ArrayLike,
    life_years: npt.ArrayLike,
    owner_utilisation: npt.ArrayLike,
    tdp_w: npt.ArrayLike,
    pue: npt.ArrayLike,
    usd_per_kwh: npt.ArrayLike,
    overhead_fraction: npt.ArrayLike,
) -> FloatOrArray:
    """Owner's total cost of ownership per *utilised* chip-hour.

    .. math::

        \\mathrm{TCO} = \\Big(\\frac{\\mathrm{capex}}{\\mathrm{life} \\times 8760 \\times u}
        + \\frac{\\mathrm{TDP}}{1000} \\times \\mathrm{PUE} \\times \\mathrm{USD/kWh}\\Big)
        \\times (1 + \\mathrm{overhead})

    Conventions (so the result is comparable with a rental price per chip-hour):

    - The hour is a *utilised* (billed or busy) hour: capex is spread over
      ``life x 8760 x u`` such hours, so low utilisation makes each used hour dearer.
    - Power is charged for each utilised hour at full TDP (times PUE for cooling and
      distribution losses). Idle hours draw no power in this formula: idle power is ignored,
      which slightly understates TCO at low utilisation.
    - ``overhead_fraction`` scales both terms and stands for networking, facility, staff and
      other costs not in ``capex_usd`` or PUE.

    Parameters
    ----------
    capex_usd : array_like
        Purchase cost per chip (USD), including whatever share of server hardware the caller
        chooses to put in capex rather than in overhead. >= 0.
    life_years : array_like
        Depreciation life in years, > 0.
    owner_utilisation : array_like
        Share of the chip's hours that are used, in (0, 1]. (Not MFU.)
    tdp_w : array_like
        Board power in watts, >= 0.
    pue : array_like
        Power usage effectiveness, >= 1 (by definition).
    usd_per_kwh : array_like
        Electricity price in USD per kWh, >= 0.
    overhead_fraction : array_like
        Multiplicative overhead, >= 0 (0.2 means +20%).

    Returns
    -------
    numpy.ndarray or numpy.float64
        USD per utilised chip-hour, broadcast over all inputs.

    Raises
    ------
    EconomicsInputError
        On out-of-range (non-NaN) inputs or shapes that do not broadcast.
    """
    capex = _as_float("capex_usd", capex_usd)
    life = _as_float("life_years", life_years)
    util = _as_float("owner_utilisation", owner_utilisation)
    tdp = _as_float("tdp_w", tdp_w)
    pue_a = _as_float("pue", pue)
    tariff = _as_float("usd_per_kwh", usd_per_kwh)
    overhead = _as_float("overhead_fraction", overhead_fraction)
    _check_non_negative("capex_usd", capex)
    _check_positive("life_years", life)
    _check_fraction("owner_utilisation", util)
    _check_non_negative("tdp_w", tdp)
    _require("pue", pue_a, np.isfinite(pue_a) & (pue_a >= 1), "finite and >= 1")
    _check_non_negative("usd_per_kwh", tariff)
    _check_non_negative("overhead_fraction", overhead)
    _broadcast_check(
        capex_usd=capex,
        life_years=life,
        owner_utilisation=util,
        tdp_w=tdp,
        pue=pue_a,
        usd_per_kwh=tariff,
        overhead_fraction=overhead,
    )
    capex_per_used_hour = capex / (life * _HOURS_PER_YEAR * util)
    power_per_used_hour = tdp / _WATTS_PER_KW * pue_a * tariff
    return (capex_per_used_hour + power_per_used_hour) * (1.0 + overhead)


# --------------------------------------------------------------------------------------------
# precision and the per-chip table


def _normalise_precision(precision: str) -> str:
    if not isinstance(precision, str) or precision.strip().lower() not in PRECISIONS:
        raise ForecastError(f"precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    return precision.strip().lower()


def dense_tflops_for(
    accelerators: pd.DataFrame, precision: str = "auto"
) -> tuple[pd.Series, pd.Series]:
    """Dense TFLOPS per chip at the requested precision.

    Parameters
    ----------
    accelerators : pandas.DataFrame
        One row per chip with ``chip``, ``fp8_dense_tflops`` and ``bf16_dense_tflops``
        (already dense figures).
    precision : {"auto", "fp8", "bf16"}
        ``"auto"``: FP8 where the chip has an FP8 figure, else BF16 (older chips without FP8
        units are still compared, at the rate they actually run). ``"fp8"``/``"bf16"``: that
        column only, NaN where the chip has no figure (the caller reports it).

    Returns
    -------
    tflops : pandas.Series
        Float TFLOPS indexed by chip, named ``dense_tflops``.
    precision_used : pandas.Series
        Indexed by chip, named ``precision_used``: the column each value was read from
        (``"fp8"`` or ``"bf16"``). Where ``tflops`` is NaN it names the column that was empty
        (under ``"auto"``, ``"bf16"``: neither figure exists).

    Raises
    ------
    ForecastError
        On an unknown precision, missing columns or duplicated chips.
    """
    mode = _normalise_precision(precision)
    needed = list(_PRECISION_COLUMNS.values()) if mode == "auto" else [_PRECISION_COLUMNS[mode]]
    _require_columns(accelerators, ["chip", *needed], "accelerators")
    _require_unique_chips(accelerators)
    index = pd.Index(accelerators["chip"], name="chip")

    def column(name: str) -> npt.NDArray[np.float64]:
        return pd.to_numeric(accelerators[name], errors="coerce").to_numpy(dtype=float)

    if mode == "auto":
        fp8 = column(_PRECISION_COLUMNS["fp8"])
        bf16 = column(_PRECISION_COLUMNS["bf16"])
        has_fp8 = ~np.isnan(fp8)
        tflops = np.where(has_fp8, fp8, bf16)
        used = np.where(has_fp8, "fp8", "bf16").tolist()
    else:
        tflops = column(_PRECISION_COLUMNS[mode])
        used = [mode] * len(index)
    return (
        pd.Series(tflops, index=index, name="dense_tflops"),
        pd.Series(used, index=index, name="precision_used", dtype=object),
    )


def _validated_utilisation(utilisation_by_group: Mapping[str, float]) -> dict[str, float]:
    out: dict[str, float] = {}
    for group, value in utilisation_by_group.items():
        try:
            u = float(value)
        except (TypeError, ValueError):
            raise EconomicsInputError(
                f"utilisation for group {group!r} must be a number, got {value!r}"
            ) from None
        if not 0.0 < u <= 1.0:
            raise EconomicsInputError(f"utilisation for group {group!r} must be in (0, 1], got {u}")
        out[str(group)] = u
    return out


def _validated_prices(
    prices: Mapping[str, tuple[float, str]] | None, chips: set[str]
) -> dict[str, tuple[float, str]]:
    if prices is None:
        return {}
    out: dict[str, tuple[float, str]] = {}
    for chip, entry in prices.items():
        # A typo in a chip name would otherwise silently leave the data price in place.
        if chip not in chips:
            raise ForecastError(f"price given for unknown chip {chip!r}; known: {sorted(chips)}")
        try:
            value, label = entry
            price = float(value)
        except (TypeError, ValueError):
            raise ForecastError(
                f"price for {chip!r} must be a (USD per chip-hour, source label) pair, "
                f"got {entry!r}"
            ) from None
        if not np.isfinite(price) or price < 0:
            raise EconomicsInputError(f"price for {chip!r} must be finite and >= 0, got {price}")
        if not isinstance(label, str) or not label.strip():
            raise ForecastError(f"price for {chip!r} needs a non-empty source label")
        out[chip] = (price, label)
    return out


def economics_table(
    accelerators: pd.DataFrame,
    utilisation_by_group: Mapping[str, float],
    prices: Mapping[str, tuple[float, str]] | None = None,
    precision: str = "auto",
) -> pd.DataFrame:
    """Price-performance of every chip: one row per chip, cost per effective PFLOP-hour.

    Parameters
    ----------
    accelerators : pandas.DataFrame
        The data layer's accelerator table (one row per chip): needs ``chip``, ``vendor``,
        ``vendor_group``, ``release_date``, the dense TFLOPS columns and
        ``cloud_on_demand_usd_per_chip_hour``; ``recalled`` is used when present.
    utilisation_by_group : Mapping[str, float]
        Model-FLOP utilisation per ``vendor_group`` (a scenario input), each in (0, 1].
        A group absent from the mapping gets NaN cost and a note, never a default.
    prices : Mapping[str, tuple[float, str]], optional
        Per-chip ``(USD per chip-hour, source label)`` that fill or override the data price,
        e.g. ``{"Trainium2": (p, "scenario base: trainium2_price_usd_per_chip_hour
        (median)")}``. The label is copied to ``price_source``.
    precision : {"auto", "fp8", "bf16"}
        See :func:`dense_tflops_for`.

    Returns
    -------
    pandas.DataFrame
        Columns ``chip, vendor, vendor_group, release_date, precision_used, dense_tflops,
        utilisation, effective_pflops, price_usd_per_chip_hour, price_source,
        cost_per_effective_pflop_hour, note``, sorted by vendor then release date (then chip).
        ``note`` explains every NaN ("no price in data or scenario", "no FP8 figure",
        "no utilisation for group X") and flags BF16 fallbacks, price overrides and recalled
        rows; it is ``""`` when there is nothing to say. A missing price is never invented.

    Raises
    ------
    ForecastError
        On missing columns, duplicated chips, a price for an unknown chip, an unknown
        precision, or an out-of-range utilisation, price or TFLOPS figure.
    """
    mode = _normalise_precision(precision)
    _require_columns(
        accelerators,
        ["chip", "vendor", "vendor_group", "release_date", _DATA_PRICE_COLUMN],
        "accelerators",
    )
    tflops, used = dense_tflops_for(accelerators, mode)
    util_map = _validated_utilisation(utilisation_by_group)
    chips = accelerators["chip"].tolist()
    price_map = _validated_prices(prices, set(chips))
    data_prices = pd.to_numeric(accelerators[_DATA_PRICE_COLUMN], errors="coerce").to_numpy(float)
    groups = accelerators["vendor_group"].tolist()
    recalled = (
        accelerators["recalled"].fillna(False).astype(bool).tolist()
        if "recalled" in accelerators.columns
        else [False] * len(chips)
    )

    n = len(chips)
    price = np.full(n, np.nan)
    util = np.full(n, np.nan)
    sources: list[str] = []
    notes: list[str] = []
    # A per-row loop is fine here: the table has tens of rows; draws go through the array API.
    for i, chip in enumerate(chips):
        note: list[str] = []
        t = tflops.iloc[i]
        if np.isnan(t):
            if mode == "auto":
                note.append("no FP8 or BF16 figure")
            else:
                note.append(f"no {mode.upper()} figure")
        elif t <= 0 or not np.isfinite(t):
            raise EconomicsInputError(f"{chip}: dense {used.iloc[i]} TFLOPS must be > 0, got {t}")
        elif mode == "auto" and used.iloc[i] == "bf16":
            note.append("no FP8 figure: BF16 used")

        group = groups[i]
        if group in util_map:
            util[i] = util_map[group]
        else:
            note.append(f"no utilisation for group {group}")

        data_price = data_prices[i]
        if chip in price_map:
            price[i], label = price_map[chip]
            sources.append(label)
            if not np.isnan(data_price):
                note.append(f"replaces data price {data_price:g}")
        elif not np.isnan(data_price):
            if data_price < 0 or not np.isfinite(data_price):
                raise EconomicsInputError(f"{chip}: data price must be >= 0, got {data_price}")
            price[i] = data_price
            sources.append(DATA_PRICE_SOURCE)
        else:
            sources.append(_NO_PRICE_SOURCE)
            note.append("no price in data or scenario")

        if recalled[i]:
            note.append("recalled figures: check before relying")
        notes.append("; ".join(note))

    tflops_values = tflops.to_numpy(dtype=float)
    throughput = np.asarray(effective_pflops(tflops_values, util), dtype=float)
    cost = np.asarray(cost_per_effective_pflop_hour(price, tflops_values, util), dtype=float)
    table = pd.DataFrame(
        {
            "chip": chips,
            "vendor": accelerators["vendor"].tolist(),
            "vendor_group": groups,
            "release_date": accelerators["release_date"].to_numpy(),
            "precision_used": used.tolist(),
            "dense_tflops": tflops_values,
            "utilisation": util,
            "effective_pflops": throughput,
            "price_usd_per_chip_hour": price,
            "price_source": sources,
            "cost_per_effective_pflop_hour": cost,
            "note": notes,
        },
        columns=_TABLE_COLUMNS,
    )
    return table.sort_values(
        ["vendor", "release_date", "chip"], kind="mergesort", na_position="last"
    ).reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# best offer per vendor


def best_offer(
    release_qidx: npt.ArrayLike,
    cost: npt.ArrayLike,
    vendor_codes: npt.ArrayLike,
    quarter_qidx: int | str | pd.Period,
    ramp_quarters: int = 2,
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
    ramp_quarters : int, default 2
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
    if isinstance(quarter_qidx, bool):
        raise EconomicsInputError("quarter_qidx must be an int quarter index, not a bool")
    if isinstance(quarter_qidx, (int, np.integer)):
        q = int(quarter_qidx)
    else:
        q = period_index(quarter_qidx)
    if not isinstance(ramp_quarters, (int, np.integer)) or ramp_quarters < 0:
        raise EconomicsInputError(f"ramp_quarters must be an int >= 0, got {ramp_quarters!r}")

    cost_a = _as_float("cost", cost)
    single_draw = cost_a.ndim == 1
    if single_draw:
        cost_a = cost_a[None, :]
    if cost_a.ndim != 2:
        raise EconomicsInputError(f"cost must be (draws, chips); got shape {cost_a.shape}")
    n_draws, n_chips = cost_a.shape
    _require("cost", cost_a, np.isfinite(cost_a) & (cost_a >= 0), "finite and >= 0 (or NaN)")

    release = _as_float("release_qidx", release_qidx)
    if release.shape == (n_chips,):
        release = np.broadcast_to(release, (n_draws, n_chips))
    elif release.shape != (n_draws, n_chips):
        raise EconomicsInputError(
            f"release_qidx must be (chips,) or (draws, chips) = {(n_draws, n_chips)}; "
            f"got {release.shape}"
        )

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

    best_cost = np.full((n_draws, n_v), np.nan)
    best_index = np.full((n_draws, n_v), -1, dtype=np.int64)
    age = q - release  # quarters since release; NaN where not released in that draw
    # NaN ages compare False, so unreleased chips are never available.
    available = (age >= 0) & ~np.isnan(cost_a)
    ramping = available & (age < ramp_quarters)
    settled = available & ~ramping

    # Loop over the handful of vendors; everything inside is vectorised over draws and chips.
    for v in range(n_v):
        cols = np.flatnonzero(codes == v)
        if cols.size == 0:
            continue
        c = cost_a[:, cols]
        offers = np.where(settled[:, cols], c, np.inf)  # the settled chips' own offers
        older_best = offers.min(axis=1, keepdims=True)
        # Blends only for the chips ramping in some draw (few: the newest ones).
        new = np.flatnonzero(ramping[:, cols].any(axis=0))
        if new.size:
            has_older = np.isfinite(older_best)
            weight = (age[:, cols[new]] + 1.0) / (ramp_quarters + 1.0)
            blended = np.where(has_older, weight * c[:, new] + (1.0 - weight)
                               * np.where(has_older, older_best, 0.0), c[:, new])
            offers[:, new] = np.where(ramping[:, cols[new]], blended, offers[:, new])
        pick = offers.argmin(axis=1)
        value = offers[np.arange(n_draws), pick]
        found = np.isfinite(value)
        best_cost[:, v] = np.where(found, value, np.nan)
        best_index[:, v] = np.where(found, cols[pick], -1)

    if single_draw:
        return best_cost[0], best_index[0]
    return best_cost, best_index


def vendor_offers(
    accelerators: pd.DataFrame,
    quarter: str | pd.Period,
    costs_by_chip: pd.Series,
    ramp_quarters: int = 2,
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
    ramp_quarters : int, default 2
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
    _require_columns(accelerators, ["chip", "vendor_group"], "accelerators")
    _require_unique_chips(accelerators)
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
        _release_quarter_indices(accelerators),
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
