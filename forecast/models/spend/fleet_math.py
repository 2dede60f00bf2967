"""M5 (AWS custom silicon) math inside the spend model, for numpy and PyTensor (``xp``).

Every function is pure. Time runs along the last axis; generations along the axis before it
where a quantity has them. Units: spend in USD billions per quarter, chips in units, prices
in USD per chip-hour, revenue and value in USD billions per quarter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Hours in a calendar quarter (365.25 x 24 / 4).
HOURS_PER_QUARTER = 365.25 * 24.0 / 4.0
#: USD per USD billion: spend and revenue are in billions, unit costs and prices in dollars.
BILLION = 1e9


def generation_mix(t: np.ndarray, midpoints: np.ndarray, width: float) -> np.ndarray:
    """Share of each quarter's spend going to each generation (..., generation, quarter).

    Each generation after the first takes over from its predecessors along a logistic ramp
    ``w_g(t) = 1 / (1 + exp(-(t - m_g) / width))`` centred on its ramp midpoint ``m_g``;
    generation g's share is ``w_g(t) * prod_{h > g} (1 - w_h(t))`` with ``w_0 = 1``, so the
    shares are positive and sum to one in every quarter (a product telescopes). Deterministic:
    launch dates are inputs, not parameters (numpy only).

    Parameters
    ----------
    t
        Quarter indices (``year * 4 + q - 1``).
    midpoints
        Ramp midpoint of each generation, as a quarter index (the first one's is ignored):
        (generation,), or (draw, generation) when a launch date is uncertain.
    width
        Ramp width in quarters (10% to 90% of a ramp takes ``4.4 width`` quarters).
    """
    t = np.asarray(t, dtype=float)
    lag = t - np.asarray(midpoints, float)[..., :, None]
    ramps = 1.0 / (1.0 + np.exp(-lag / width))
    ramps[..., 0, :] = 1.0
    later = np.ones_like(ramps)
    for g in range(ramps.shape[-2] - 2, -1, -1):
        later[..., g, :] = later[..., g + 1, :] * (1.0 - ramps[..., g + 1, :])
    return ramps * later


def survival_per_quarter(useful_life: Any, xp: Any = np) -> Any:
    """Share of a fleet still in service after a quarter: ``exp(-1 / (4 L))``.

    Retirements are geometric with mean life ``L`` years (the useful life): a retirement rate
    of ``1 / (4 L)`` a quarter in continuous time.
    """
    return xp.exp(-1.0 / (4.0 * useful_life))


def shipments(spend: Any, mix: Any, unit_cost: Any) -> Any:
    """Chips shipped by generation and quarter: ``spend x mix / unit cost``.

    Parameters
    ----------
    spend
        Spend at cost, USD bn per quarter (..., quarter).
    mix
        Generation shares of spend (generation, quarter).
    unit_cost
        USD per chip at cost (..., generation).

    Returns
    -------
    Chips (..., generation, quarter).
    """
    return spend[..., None, :] * mix * BILLION / unit_cost[..., :, None]


def decay_matrix(survival: Any, n: int, xp: Any = np) -> Any:
    """Lower-triangular ``M[t, s] = survival ** (t - s)`` (0 above the diagonal), (..., n, n).

    ``fleet = shipments @ M.T`` is the stock recursion in one product (no scan: fast
    gradients in PyMC).
    """
    idx = np.arange(n)
    lag = idx[:, None] - idx[None, :]
    mask = lag >= 0
    powers = np.where(mask, lag, 0).astype(float)
    s = xp.asarray(survival)[..., None, None] if xp is np else survival
    return xp.where(mask, s ** powers, 0.0)


def fleet_stock(shipped: Any, survival: Any, initial: Any = None, xp: Any = np,
                length: int | None = None) -> Any:
    """End-of-quarter fleet: ``fleet(t) = fleet(t-1) x survival + shipments(t)``.

    Parameters
    ----------
    shipped
        Chips shipped (..., generation, quarter).
    survival
        Quarterly survival (a scalar, or one per leading index: shape (...)).
    initial
        Fleet at the end of the quarter before the first (..., generation); None: none.
    length
        Number of quarters, required when ``shipped`` is symbolic.

    Returns
    -------
    Chips in service (..., generation, quarter).
    """
    n = int(shipped.shape[-1]) if length is None else length
    if xp is np:
        # The recursion itself, one quarter at a time: no (n, n) matrix of survival powers
        # per path, which only PyTensor's gradients need.
        shipped = np.asarray(shipped, dtype=float)
        s = np.asarray(survival, dtype=float)[..., None]
        stock = np.empty_like(shipped)
        previous = 0.0 if initial is None else np.asarray(initial, dtype=float)
        for t in range(n):
            previous = stock[..., t] = previous * s + shipped[..., t]
        return stock
    stock = xp.dot(shipped, decay_matrix(survival, n, xp).T)
    if initial is None:
        return stock
    return stock + initial[..., None] * survival ** np.arange(1, n + 1, dtype=float)


def average_fleet(fleet: Any, opening: Any, xp: Any = np) -> Any:
    """Mean fleet over each quarter: the average of its opening and closing stock.

    Chips shipped during a quarter earn for about half of it; retirements likewise.
    ``opening`` is the stock before the first quarter, shaped like ``fleet[..., :1]``.
    """
    return 0.5 * (xp.concatenate([opening, fleet[..., :-1]], axis=-1) + fleet)


def chip_hour_prices(effective_price: Any, compute_ratio: np.ndarray, elasticity: Any,
                     decline: Any, years: np.ndarray, xp: Any = np) -> Any:
    """Effective price per chip-hour by generation and quarter, USD.

    ``p_g(t) = p_ref x (compute_g / compute_ref) ** elasticity x exp(-decline x years(t))``:
    the reference generation's price at the reference quarter, scaled by the generation's
    dense FP8 compute (an elasticity below 1: a faster chip rents for more, but less than in
    proportion) and eroding at ``decline`` a year in log terms.

    Parameters
    ----------
    effective_price
        ``p_ref`` (...): USD per reference-generation chip-hour at ``years == 0``.
    compute_ratio
        Dense FP8 compute of each generation over the reference's: (generation,) or
        (draw, generation).
    elasticity, decline
        Scalars or (...).
    years
        Years from the reference quarter (quarter,).
    """
    log_ratio = np.log(np.asarray(compute_ratio, float))
    if xp is np:
        elasticity = np.asarray(elasticity)[..., None, None]
        decline = np.asarray(decline)[..., None, None]
        effective_price = np.asarray(effective_price)[..., None, None]
    return effective_price * xp.exp(elasticity * log_ratio[..., :, None]
                                    - decline * np.asarray(years, float)[None, :])


def rental_revenue(mean_fleet: Any, utilisation: Any, prices: Any) -> Any:
    """Rental revenue per quarter, USD bn: ``sum_g fleet x hours x utilisation x price``.

    ``mean_fleet`` and ``prices`` are (..., generation, quarter); ``utilisation`` (the
    billed share of chip-hours) broadcasts against (..., quarter).
    """
    per_generation = mean_fleet * HOURS_PER_QUARTER * prices
    return per_generation.sum(axis=-2) * utilisation / BILLION


def merchant_price_path(price_ref: Any, decline: Any, years: np.ndarray, xp: Any = np) -> Any:
    """Merchant GPU price of a dense FP8 PFLOP of compute, USD, by quarter (..., quarter).

    ``price_ref x exp(-decline x years)``: what buying the same compute as NVIDIA's current
    GPUs costs, falling as each GPU generation packs more compute per dollar.
    """
    years = np.asarray(years, float)
    if xp is np:
        return np.asarray(price_ref)[..., None] * np.exp(
            -np.asarray(decline)[..., None] * years)
    return price_ref * xp.exp(-decline * years)


def merchant_equivalent_value(shipped: Any, pflops: np.ndarray, merchant_price: Any,
                              utilisation_ratio: Any = 1.0) -> Any:
    """Quarter's shipments valued at merchant GPU prices of the same *effective* compute,
    USD bn per quarter.

    ``sum_g shipments_g(t) x PFLOPS_g x (u_aws / u_nvidia) x merchant price per PFLOP(t)``:
    what AWS's chips of the quarter would have sold for as NVIDIA GPUs delivering the same
    dense FLOPS x utilisation (``utilisation_ratio`` = AWS's MFU over NVIDIA's, as the cost
    paths apply them). It exceeds the spend at cost exactly when AWS's capital cost per
    effective PFLOP is below NVIDIA's merchant price per effective PFLOP.

    Parameters
    ----------
    shipped
        Chips (..., generation, quarter).
    pflops
        Dense FP8 PFLOPS per chip: (generation,) or (draw, generation).
    merchant_price
        USD per dense FP8 PFLOP of NVIDIA's current part (..., quarter).
    utilisation_ratio
        AWS's MFU over NVIDIA's: a scalar, or (...,) one per leading index.
    """
    compute = (shipped * np.asarray(pflops, float)[..., :, None]).sum(axis=-2)
    ratio = utilisation_ratio
    if isinstance(ratio, np.ndarray) and ratio.ndim:
        ratio = ratio[..., None]
    return compute * ratio * merchant_price / BILLION
