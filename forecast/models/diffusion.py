"""Bass diffusion of accelerator unit shipments: Bass, generalised Bass and Norton-Bass.

The models describe how a chip's unit shipments rise and fall after its launch, and how a new
generation takes over from the one before it (DESIGN section 4, end of M4).

Time convention
---------------
Time ``t`` is measured in *periods* (calendar quarters for every default prior) since launch;
launch is the *start* of period 1. The continuous-time Bass cumulative adoption fraction is::

    F(t) = (1 - exp(-(p + q) t)) / (1 + (q / p) exp(-(p + q) t)),   F(t) = 0 for t <= 0,

with density ``f(t) = dF/dt = ((p + q)^2 / p) e^{-(p+q)t} / (1 + (q/p) e^{-(p+q)t})^2``. The
discrete per-period adoptions are differences of ``m F`` at period ends: adoptions in period
``k`` (k = 1..n) are ``m (F(k) - F(k - 1))``, so they sum to ``m F(n)`` exactly. ``p`` and
``q`` are rates *per period*: rescaling time from years to quarters divides both by 4 and
leaves the curve unchanged (F depends on ``(p + q) t`` and ``q / p`` only), so per-year values
from the literature convert exactly by dividing by 4. The peak of ``f`` is at
``t* = ln(q / p) / (p + q)`` when ``q > p`` (otherwise adoptions fall from launch on).

Generalised Bass (Bass, Krishnan & Jain 1994)
---------------------------------------------
The hazard is multiplied by ``x(t) = 1 + beta * (change in log covariate)``, e.g. the log
change of price-performance. With ``x`` constant within a period this is the Bass curve run on
an *effective time* ``X(k) = x_1 + ... + x_k``: ``F_gb(k) = F(X(k))``. For a covariate path
``c_1..c_n`` (levels, one per period) ``x_1 = 1`` and ``x_k = 1 + beta (log c_k - log
c_{k-1})``; ``x`` is floored at 0 (no adoption rather than "un-adoption" in a period whose
covariate moves very adversely). A constant covariate or ``beta = 0`` gives the Bass curve.
For a covariate that rises with attractiveness (price-performance) ``beta > 0`` speeds
adoption; for a price, expect ``beta < 0``.

Norton-Bass successive generations (Norton & Bass 1987)
-------------------------------------------------------
Generations ``g = 1..G`` launch at ``tau_g`` periods (``tau_1 = 0``) and share ``p`` and
``q``; ``F_g(t) = F(t - tau_g)``. The cumulative demand reaching generation ``g`` or a later
one is ``D_1 = m_1 F_1``, ``D_g = F_g (m_g + D_{g-1})``, and generation ``g``'s cumulative
demand (installed base) is ``S_g = D_g (1 - F_{g+1})``, which is the standard form::

    S_1 = m_1 F_1 (1 - F_2),   S_2 = F_2 (m_2 + m_1 F_1) (1 - F_3),   ...,
    S_G = F_G (m_G + D_{G-1}),   sum_g S_g -> m_1 + ... + m_G.

Per-period *net* sales ``S_g(k) - S_g(k-1)`` turn negative for an old generation once its
users upgrade faster than new users arrive, so they cannot be unit shipments. Shipments are
the *gross* sales, the inflow term of the product rule, which splits each period exactly::

    S_g(k) - S_g(k-1) = gross_g(k) - upgrades_g(k),
    gross_g(k)    = [D_g(k) - D_g(k-1)] (1 - F_{g+1}(k)),
    upgrades_g(k) = D_g(k-1) [F_{g+1}(k) - F_{g+1}(k-1)].

Gross sales are never negative, count leapfroggers (who skip generation ``g``) only in ``g+1``,
and with one generation equal Bass adoptions. :func:`norton_bass_adoptions` returns either.

The Bayesian model
------------------
Observed per-period units ``y_k`` (positive; gaps allowed) are lognormal around the model's
adoptions ``mu_k``: ``log y_k ~ Normal(log mu_k, sigma)``. Why lognormal rather than a
negative binomial: Epoch's unit figures are modelled estimates (not counts) whose uncertainty
bands are proportional to the level, and a series runs from thousands of units in its launch
quarter to hundreds of thousands at its peak; a multiplicative error weighs a factor-2 miss
equally at both ends, whereas a count likelihood at these magnitudes would be
near-deterministic in the tails and dominated by the peak quarters. ``m`` is sampled as
``m_ratio``, the market potential as a multiple of the observed total units (for Norton-Bass,
of the generation's observed total), so one default prior fits a series of any size, and the
likelihood is evaluated on ``y / total``.

Priors (defaults; each overridable with ``priors=``, e.g. a scenario's ``[priors.diffusion]``)
--------------------------------------------------------------------------------------------
===========  ===================================  ==============================================
parameter    default                              why
===========  ===================================  ==============================================
p            LogNormal(median 0.01, sigma 1.0)    innovation per quarter; meta-analyses of Bass
             per quarter                          fits put p near 0.03/yr (0.0075/quarter);
                                                  95% prior range 0.0014-0.07 per quarter
q            LogNormal(median 0.1, sigma 1.0)     imitation per quarter: 0.3-0.5/yr is 0.075-
             per quarter                          0.125/quarter; the wide sigma (95% range
                                                  0.014-0.71) admits the fast ramps of
                                                  accelerator generations (peak in ~2 years)
m_ratio      LogNormal(median 2.0, sigma 0.8)     market potential / observed total units: a
                                                  series observed to its peak has seen about
                                                  half of m (F(t*) = 1/2 - p/(2q)); 95% range
                                                  0.4-9.6 times the observed total
sigma        HalfNormal(0.5)                      log-scale error; Epoch's 90% bands are about
                                                  +-30% (sd ~0.2) plus misfit of a smooth curve
beta         Normal(0, 1) (gbass only)            a 10% log change of the covariate moves the
                                                  hazard by 10% x beta, within +-20% a priori
===========  ===================================  ==============================================
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.errors import ForecastError, Issue
from forecast.models.base import (
    DEFAULT_SAMPLER,
    FittedModel,
    count_divergences,
    merge_priors,
    posterior_summary,
    prior,
    run_sampler,
)

KINDS = ("bass", "gbass", "norton-bass")

DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "p": {"dist": "lognormal", "median": 0.01, "sigma": 1.0, "unit": "per quarter"},
    "q": {"dist": "lognormal", "median": 0.1, "sigma": 1.0, "unit": "per quarter"},
    "m_ratio": {"dist": "lognormal", "median": 2.0, "sigma": 0.8,
                "unit": "multiple of the observed total units"},
    "sigma": {"dist": "halfnormal", "sigma": 0.5, "unit": "log units"},
    "beta": {"dist": "normal", "mu": 0.0, "sigma": 1.0,
             "unit": "hazard change per unit log change of the covariate"},
}

#: On Epoch's H100 series (13 quarters, 1,000 draws a chain) nutpie and PyMC's NUTS both
#: sampled without divergences; nutpie gave about twice the bulk ESS per second (PyMC's
#: compile and process start-up dominate a model this small). p and q are strongly
#: correlated in the posterior (a later peak is a smaller p or a larger q), so ESS is only
#: about 0.25 per draw: 2,000 draws a chain keep bulk ESS above the 400 of the default gate.
#: A short series before its peak (Trainium2, 7 quarters) leaves m loose and gave a few
#: divergences at target_accept 0.9, none at 0.95.
DIFFUSION_SAMPLER: dict[str, Any] = {"nuts_sampler": "nutpie", "draws": 2000, "target_accept": 0.95}

#: Fewest observations a fit accepts (three parameters plus the noise scale need a margin).
MIN_OBSERVATIONS = 6

#: Floor on a period's adoption fraction inside the likelihood (log of 0 is -inf).
_TINY = 1e-12

_QUARTER_PATTERN = re.compile(r"^(\d{4})-?Q([1-4])$")
_INTEGER_PATTERN = re.compile(r"^[+-]?\d+$")


# --------------------------------------------------------------------------- pure math
#
# The private ``_..._expr`` helpers are written once for numpy and PyTensor (``xp`` is the
# ``numpy`` or ``pytensor.tensor`` module): the likelihood and the numpy forecasts cannot drift
# apart.


def _cdf_expr(t: Any, p: Any, q: Any, xp: ModuleType) -> Any:
    t = xp.maximum(t, 0.0)
    decay = xp.exp(-(p + q) * t)
    return (1.0 - decay) / (1.0 + (q / p) * decay)


def _effective_increments_expr(log_change: Any, beta: Any, xp: ModuleType) -> Any:
    return xp.maximum(1.0 + beta * log_change, 0.0)


def _norton_bass_expr(
    cdfs: Sequence[Any], m: Sequence[Any], xp: ModuleType
) -> tuple[list[Any], list[Any], list[Any]]:
    """Cumulative demand ``D_g``, installed base ``S_g`` and gross sales per generation.

    ``cdfs[g]`` is ``F_g`` at period ends 0..n along the last axis; ``m[g]`` broadcasts
    against it. Gross sales are per period (length n along the last axis).
    """
    demand: list[Any] = []
    for g, cdf in enumerate(cdfs):
        demand.append(cdf * m[g] if g == 0 else cdf * (m[g] + demand[g - 1]))
    base, gross = [], []
    for g, cumulative in enumerate(demand):
        later = cdfs[g + 1] if g + 1 < len(cdfs) else None
        base.append(cumulative if later is None else cumulative * (1.0 - later))
        inflow = cumulative[..., 1:] - cumulative[..., :-1]
        gross.append(inflow if later is None else inflow * (1.0 - later[..., 1:]))
    return demand, base, gross


def _as_params(*values: Any) -> list[np.ndarray]:
    return [np.asarray(value, dtype=float) for value in values]


def bass_cdf(t: Any, p: Any, q: Any) -> np.ndarray:
    """Cumulative Bass adoption fraction ``F(t)`` (0 for ``t <= 0``); numpy broadcasting.

    Parameters
    ----------
    t
        Periods since launch (launch is the start of period 1).
    p, q
        Innovation and imitation coefficients per period, ``p > 0``, ``q >= 0``.
    """
    t, p, q = _as_params(t, p, q)
    return _cdf_expr(t, p, q, np)


def bass_pdf(t: Any, p: Any, q: Any) -> np.ndarray:
    """Bass adoption density ``f(t) = dF/dt`` (0 for ``t < 0``); numpy broadcasting."""
    t, p, q = _as_params(t, p, q)
    decay = np.exp(-(p + q) * np.maximum(t, 0.0))
    density = (p + q) ** 2 / p * decay / (1.0 + (q / p) * decay) ** 2
    return np.where(t < 0, 0.0, density)


def bass_peak_time(p: Any, q: Any) -> np.ndarray:
    """Time of peak adoptions ``ln(q / p) / (p + q)`` in periods; 0 when ``q <= p``."""
    p, q = _as_params(p, q)
    return np.maximum(np.log(q / p) / (p + q), 0.0)


def bass_adoptions(n_periods: int, p: Any, q: Any, m: Any) -> np.ndarray:
    """Adoptions per period ``m (F(k) - F(k-1))`` for k = 1..n_periods.

    Parameters are vectorised: ``p``, ``q``, ``m`` broadcast against each other (e.g. arrays
    of posterior draws); the result has their broadcast shape plus a last axis of length
    ``n_periods``.
    """
    p, q, m = _as_params(p, q, m)
    t = np.arange(n_periods + 1, dtype=float)
    cdf = _cdf_expr(t, p[..., None], q[..., None], np)
    return m[..., None] * np.diff(cdf, axis=-1)


def effective_time(covariate: Any, beta: Any) -> np.ndarray:
    """Generalised-Bass effective time ``X(k) = x_1 + ... + x_k`` at the end of each period.

    ``covariate`` holds positive levels, one per period (last axis); ``x_1 = 1`` and
    ``x_k = max(1 + beta (log c_k - log c_{k-1}), 0)``. ``beta`` broadcasts against the
    leading axes of ``covariate``.
    """
    covariate = np.asarray(covariate, dtype=float)
    if np.any(~(covariate > 0)):
        raise ForecastError("generalised Bass covariate must be positive (its log is taken)")
    beta = np.asarray(beta, dtype=float)[..., None]
    log_level = np.log(covariate)
    change = np.diff(log_level, axis=-1, prepend=log_level[..., :1])
    return np.cumsum(_effective_increments_expr(change, beta, np), axis=-1)


def gbass_adoptions(covariate: Any, p: Any, q: Any, m: Any, beta: Any) -> np.ndarray:
    """Generalised-Bass adoptions per period ``m (F(X(k)) - F(X(k-1)))``, ``X(0) = 0``.

    ``covariate``: positive levels, one per period (length = number of periods). ``p``,
    ``q``, ``m``, ``beta`` broadcast as in :func:`bass_adoptions`.
    """
    p, q, m, beta = _as_params(p, q, m, beta)
    shape = np.broadcast_shapes(p.shape, q.shape, m.shape, beta.shape)
    elapsed = effective_time(covariate, np.broadcast_to(beta, shape))
    elapsed = np.concatenate([np.zeros(elapsed.shape[:-1] + (1,)), elapsed], axis=-1)
    cdf = _cdf_expr(elapsed, p[..., None], q[..., None], np)
    return m[..., None] * np.diff(cdf, axis=-1)


def _generation_cdfs(t: np.ndarray, launch_periods: Any, p: np.ndarray,
                     q: np.ndarray) -> list[np.ndarray]:
    taus = np.atleast_1d(np.asarray(launch_periods, dtype=float))
    return [_cdf_expr(t - tau, p[..., None], q[..., None], np) for tau in taus]


def norton_bass_cumulative(t: Any, launch_periods: Any, p: Any, q: Any, m: Any) -> np.ndarray:
    """Norton-Bass cumulative demand (installed base) ``S_g(t)`` per generation.

    Parameters
    ----------
    t
        1-d array of times (periods since generation 1's launch).
    launch_periods
        ``tau_g`` per generation, periods after generation 1's launch (``tau_1 = 0``).
    p, q
        Shared coefficients per period (arrays of draws broadcast).
    m
        Market potential per generation; last axis of length G.

    Returns
    -------
    Array of shape ``broadcast(p, q, m[..., 0]) + (len(t), G)``.
    """
    p, q, m = _as_params(p, q, m)
    t = np.asarray(t, dtype=float)
    cdfs = _generation_cdfs(t, launch_periods, p, q)
    _, base, _ = _norton_bass_expr(cdfs, [m[..., g, None] for g in range(m.shape[-1])], np)
    return np.stack(np.broadcast_arrays(*base), axis=-1)


def norton_bass_adoptions(n_periods: int, launch_periods: Any, p: Any, q: Any, m: Any,
                          sales: str = "gross") -> np.ndarray:
    """Norton-Bass sales per period and generation for periods k = 1..n_periods.

    Parameters
    ----------
    n_periods
        Number of periods after generation 1's launch.
    launch_periods
        ``tau_g`` per generation in periods after generation 1's launch (``tau_1 = 0``);
        generation g sells from period ``tau_g + 1`` on.
    p, q, m
        As in :func:`norton_bass_cumulative`.
    sales
        ``"gross"`` (default): units sold, ``(D_g(k) - D_g(k-1)) (1 - F_{g+1}(k))``, never
        negative; ``"net"``: change of the installed base ``S_g(k) - S_g(k-1)``, negative for
        an old generation whose users upgrade (see the module docstring).

    Returns
    -------
    Array of shape ``broadcast(p, q, m[..., 0]) + (n_periods, G)``.
    """
    if sales not in ("gross", "net"):
        raise ForecastError(f"sales must be 'gross' or 'net', got {sales!r}")
    p, q, m = _as_params(p, q, m)
    t = np.arange(n_periods + 1, dtype=float)
    cdfs = _generation_cdfs(t, launch_periods, p, q)
    _, base, gross = _norton_bass_expr(
        cdfs, [m[..., g, None] for g in range(m.shape[-1])], np)
    per_period = gross if sales == "gross" else [np.diff(s, axis=-1) for s in base]
    return np.stack(np.broadcast_arrays(*per_period), axis=-1)


def simulate_units(
    kind: str,
    n_periods: int,
    p: float,
    q: float,
    m: Any,
    sigma: float,
    seed: int,
    covariate: Any = None,
    beta: float = 0.0,
    launch_periods: Sequence[int] | None = None,
) -> pd.Series | pd.DataFrame:
    """Units simulated from the model's own math with lognormal noise (for recovery tests).

    Returns a Series indexed 1..n_periods (bass, gbass) or a DataFrame with one column per
    generation (``gen1``, ``gen2``, ...; NaN before a generation's launch) for norton-bass.
    """
    rng = np.random.default_rng(seed)
    index = pd.Index(np.arange(1, n_periods + 1), name="period")
    if kind == "bass":
        mean = bass_adoptions(n_periods, p, q, m)
    elif kind == "gbass":
        mean = gbass_adoptions(covariate, p, q, m, beta)
    elif kind == "norton-bass":
        taus = list(launch_periods or [0])
        mean = norton_bass_adoptions(n_periods, taus, p, q, m)
        values = mean * np.exp(sigma * rng.standard_normal(mean.shape))
        launched = np.arange(1, n_periods + 1)[:, None] > np.asarray(taus)[None, :]
        columns = [f"gen{g + 1}" for g in range(len(taus))]
        return pd.DataFrame(np.where(launched, values, np.nan), index=index, columns=columns)
    else:
        raise ForecastError(f"diffusion model kind must be one of {', '.join(KINDS)}, "
                            f"got {kind!r}")
    return pd.Series(mean * np.exp(sigma * rng.standard_normal(n_periods)), index=index,
                     name="units")


# --------------------------------------------------------------------------- data preparation


def _period_positions(index: pd.Index) -> tuple[np.ndarray, str, str | None]:
    """1-based positions of an index's periods from its first, plus its kind and frequency.

    Accepts a PeriodIndex (any frequency), a DatetimeIndex (taken as quarters), integers, or
    strings such as ``2024Q1`` / ``2024-Q1``. Gaps are allowed: positions skip them.
    """
    if isinstance(index, pd.DatetimeIndex):
        index = index.to_period("Q")
    if isinstance(index, pd.PeriodIndex):
        ordinals = np.asarray(index.asi8, dtype=np.int64)
        return ordinals - ordinals.min() + 1, "period", index.freqstr
    if pd.api.types.is_integer_dtype(index.dtype):
        values = np.asarray(index, dtype=np.int64)
        return values - values.min() + 1, "integer", None
    labels = [str(label).strip() for label in index]
    if labels and all(_QUARTER_PATTERN.match(label) for label in labels):
        periods = pd.PeriodIndex([label.replace("-", "") for label in labels], freq="Q")
        return _period_positions(periods)
    raise ForecastError("diffusion series index must hold periods (pandas Periods, dates, "
                        "integers or quarter labels like 2024Q1)")


def _period_labels(kind: str, freq: str | None, first: str, positions: np.ndarray) -> list[str]:
    """Labels of 1-based ``positions`` counted from the ``first`` period's label."""
    if kind == "period":
        start = pd.Period(first, freq=freq)
        return [str(start + int(k) - 1) for k in positions]
    return [str(int(first) + int(k) - 1) for k in positions]


@dataclass(frozen=True)
class DiffusionData:
    """Observations arranged for the model.

    ``observations`` is long: position (1-based period from the first observed period),
    period label, generation, value, and ``scaled`` (value / the generation's total).
    """

    kind: str
    observations: pd.DataFrame
    generations: tuple[str, ...]
    n_span: int
    launch_offset: int
    launch_periods: tuple[int, ...]
    totals: tuple[float, ...]
    log_change: np.ndarray | None
    covariate_last: float | None
    index_kind: str
    freq: str | None
    first_label: str


def prepare_diffusion_data(
    series: pd.Series | pd.DataFrame,
    kind: str = "bass",
    covariate: pd.Series | Sequence[float] | np.ndarray | None = None,
    launch_offset: int = 0,
) -> DiffusionData:
    """Validate a unit series (or one column per generation) and arrange it for the model.

    Missing values (NaN) are gaps; for Norton-Bass a generation launches at the start of its
    first observed period. ``launch_offset`` is the number of whole periods between
    (generation 1's) launch and the first period of the series.
    """
    if kind not in KINDS:
        raise ForecastError(f"diffusion model kind must be one of {', '.join(KINDS)}, "
                            f"got {kind!r}")
    if isinstance(launch_offset, bool) or int(launch_offset) != launch_offset \
            or launch_offset < 0:
        raise ForecastError(f"launch_offset must be a whole number of periods >= 0, "
                            f"got {launch_offset!r}")
    launch_offset = int(launch_offset)
    if isinstance(series, pd.Series):
        frame = series.to_frame(name=str(series.name) if series.name is not None else "units")
    elif isinstance(series, pd.DataFrame):
        frame = series
    else:
        raise ForecastError("diffusion series must be a pandas Series or DataFrame, got "
                            f"{type(series).__name__}")
    if kind != "norton-bass" and frame.shape[1] != 1:
        raise ForecastError(f"{kind} model fits one series; got {frame.shape[1]} columns "
                            "(use kind='norton-bass' for one column per generation)")
    if frame.shape[1] == 0 or len(frame) == 0:
        raise ForecastError("diffusion series is empty")
    if frame.index.has_duplicates:
        duplicate = frame.index[frame.index.duplicated()][0]
        raise ForecastError(f"diffusion series: duplicate period {duplicate}")
    frame = frame.sort_index()
    positions, index_kind, freq = _period_positions(frame.index)
    try:
        values = frame.to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise ForecastError("diffusion series values must be numbers") from None
    bad = np.isfinite(values) & (values <= 0)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ForecastError(f"diffusion series: period {frame.index[row]}, column "
                            f"{frame.columns[col]}: units must be > 0, got {values[row, col]:g}"
                            " (use NaN for a missing period)")
    generations = tuple(str(c) for c in frame.columns)
    rows, launches, totals = [], [], []
    for g, name in enumerate(generations):
        observed = np.isfinite(values[:, g])
        if not observed.any():
            raise ForecastError(f"diffusion series: generation {name} has no observations")
        first = int(positions[observed].min())
        launches.append(0 if g == 0 else launch_offset + first - 1)
        total = float(values[observed, g].sum())
        totals.append(total)
        for k, value in zip(positions[observed], values[observed, g], strict=True):
            rows.append({"position": int(k), "generation": name, "value": float(value),
                         "scaled": float(value) / total})
    if len(rows) < MIN_OBSERVATIONS:
        raise ForecastError(f"diffusion series has {len(rows)} observations, need at least "
                            f"{MIN_OBSERVATIONS}")
    if kind == "norton-bass" and list(launches) != sorted(launches):
        raise ForecastError("norton-bass: generations must be ordered by launch (columns in "
                            "order of their first observed period)")
    observations = pd.DataFrame(rows)
    first_label = str(frame.index[0])
    observations.insert(1, "period", _period_labels(index_kind, freq, first_label,
                                                    observations["position"].to_numpy()))
    n_span = int(positions.max())
    log_change, covariate_last = None, None
    if kind == "gbass":
        log_change, covariate_last = _covariate_log_change(covariate, frame.index, positions,
                                                           n_span, launch_offset)
    elif covariate is not None:
        raise ForecastError(f"a covariate is only used by kind='gbass', not {kind!r}")
    return DiffusionData(kind=kind, observations=observations, generations=generations,
                         n_span=n_span, launch_offset=launch_offset,
                         launch_periods=tuple(launches), totals=tuple(totals),
                         log_change=log_change, covariate_last=covariate_last,
                         index_kind=index_kind, freq=freq,
                         first_label=first_label)


def _covariate_log_change(covariate: Any, index: pd.Index, positions: np.ndarray, n_span: int,
                          launch_offset: int) -> tuple[np.ndarray, float]:
    """Per-period log change of the covariate over launch_offset + n_span periods, last level.

    Periods before the series starts have no covariate: their change is 0 (x = 1), as is the
    first observed period's.
    """
    if covariate is None:
        raise ForecastError("kind='gbass' needs a covariate (e.g. price-performance per period)")
    if isinstance(covariate, pd.Series):
        if covariate.index.has_duplicates:
            raise ForecastError("covariate: duplicate periods")
        aligned = covariate.reindex(index)
        if aligned.isna().any():
            missing = aligned.index[aligned.isna()][0]
            raise ForecastError(f"covariate has no value for period {missing}")
        levels_obs = aligned.to_numpy(dtype=float)
        levels = np.full(n_span, np.nan)
        levels[positions - 1] = levels_obs
        if np.isnan(levels).any():
            raise ForecastError("covariate must cover every period from the first to the last "
                                "observation (gaps in the series leave it undefined)")
    else:
        levels = np.asarray(covariate, dtype=float)
        if levels.shape != (n_span,):
            raise ForecastError(f"covariate has {levels.size} values, the series spans "
                                f"{n_span} periods")
    if np.any(~(levels > 0)) or not np.all(np.isfinite(levels)):
        raise ForecastError("covariate values must be positive and finite (its log is taken)")
    change = np.diff(np.log(levels), prepend=np.log(levels[0]))
    return np.concatenate([np.zeros(launch_offset), change]), float(levels[-1])


# --------------------------------------------------------------------------- PyMC builder


def build_diffusion_model(data: DiffusionData, priors: Mapping[str, Mapping[str, Any]]) -> Any:
    """The PyMC model of the module docstring for prepared ``data`` and complete ``priors``."""
    import pymc as pm
    import pytensor.tensor as pt

    obs = data.observations
    n_total = data.launch_offset + data.n_span
    ends = np.arange(n_total + 1, dtype=float)  # period ends 0..n_total, global clock
    coords = {"generation": list(data.generations), "obs": np.arange(len(obs))}
    # Observed period k sits at global period launch_offset + k (row index into sales).
    row = obs["position"].to_numpy() + data.launch_offset - 1
    col = obs["generation"].map({g: i for i, g in enumerate(data.generations)}).to_numpy()
    with pm.Model(coords=coords) as model:
        p = prior("p", priors["p"])
        q = prior("q", priors["q"])
        sigma = prior("sigma", priors["sigma"])
        if data.kind == "norton-bass":
            m_ratio = prior("m_ratio", priors["m_ratio"], dims="generation")
            totals = np.asarray(data.totals)
            pm.Deterministic("m", m_ratio * totals, dims="generation")
            # m in units of generation 1's total keeps the likelihood scale-free.
            m_scaled = m_ratio * totals / totals[0]
            cdfs = [_cdf_expr(ends - tau, p, q, pt) for tau in data.launch_periods]
            _, _, gross = _norton_bass_expr(cdfs, [m_scaled[g] for g in range(len(cdfs))], pt)
            sales = pt.stack(gross, axis=1) * (totals[0] / totals)[None, :]
            mean = sales[row, col]
        else:
            m_ratio = prior("m_ratio", priors["m_ratio"])
            pm.Deterministic("m", m_ratio * data.totals[0])
            if data.kind == "gbass":
                beta = prior("beta", priors["beta"])
                steps = _effective_increments_expr(data.log_change, beta, pt)
                elapsed = pt.concatenate([pt.zeros(1), pt.cumsum(steps)])
            else:
                elapsed = ends
            cdf = _cdf_expr(elapsed, p, q, pt)
            mean = m_ratio * (cdf[1:] - cdf[:-1])[row]
        pm.Normal("log_units", mu=pt.log(pt.maximum(mean, _TINY)), sigma=sigma,
                  observed=np.log(obs["scaled"].to_numpy()), dims="obs")
    return model


# --------------------------------------------------------------------------- model classes


def _summary_vars(kind: str) -> list[str]:
    return ["p", "q", "m", "sigma"] + (["beta"] if kind == "gbass" else [])


class DiffusionModel:
    """Configuration of a Bass-family diffusion model; :meth:`fit` returns a fitted model.

    Parameters
    ----------
    kind
        ``"bass"``, ``"gbass"`` (generalised Bass with a covariate) or ``"norton-bass"``
        (successive generations sharing p and q).
    priors
        Overrides of :data:`DEFAULT_PRIORS` (p, q, m_ratio, sigma, beta).
    sampler
        Overrides of the sampler settings (draws, tune, chains, target_accept, nuts_sampler,
        random_seed, progressbar).
    """

    name = "diffusion"

    def __init__(self, kind: str = "bass", priors: Mapping[str, Any] | None = None,
                 sampler: Mapping[str, Any] | None = None):
        if kind not in KINDS:
            raise ForecastError(f"diffusion model kind must be one of {', '.join(KINDS)}, "
                                f"got {kind!r}")
        self.kind = kind
        self.priors = merge_priors(DEFAULT_PRIORS, priors, self.name)
        self.sampler = {**DEFAULT_SAMPLER, **DIFFUSION_SAMPLER, **(sampler or {})}

    def fit(
        self,
        series: pd.Series | pd.DataFrame,
        covariate: pd.Series | Sequence[float] | np.ndarray | None = None,
        launch_offset: int = 0,
        **sampler: Any,
    ) -> FittedDiffusion:
        """Fit to per-period units; keyword arguments override sampler settings.

        Parameters
        ----------
        series
            Positive units per period, indexed by period (pandas Periods, dates, integers or
            labels like ``2024Q1``); NaN marks a missing period. For ``norton-bass`` a
            DataFrame with one column per generation, in launch order, NaN before launch.
        covariate
            ``gbass`` only: positive covariate levels (e.g. price-performance), a Series on
            the same periods or an array over every period from the first to the last.
        launch_offset
            Whole periods between (generation 1's) launch and the series' first period, for
            a series that starts after launch; 0 means the first period is the launch period.
        """
        settings = {**self.sampler, **sampler}
        data = prepare_diffusion_data(series, self.kind, covariate, launch_offset)
        model = build_diffusion_model(data, self.priors)
        idata, seconds = run_sampler(model, settings)
        summary = posterior_summary(idata, _summary_vars(self.kind))
        meta = {
            "kind": self.kind,
            "divergences": count_divergences(idata),
            "fit_seconds": round(seconds, 2),
            "n_observations": len(data.observations),
            "generations": list(data.generations),
            "n_span": data.n_span,
            "launch_offset": data.launch_offset,
            "launch_periods": list(data.launch_periods),
            "totals": list(data.totals),
            "index_kind": data.index_kind,
            "freq": data.freq,
            "first_label": data.first_label,
            "covariate_last": data.covariate_last,
        }
        frames = {"observations": data.observations}
        if data.log_change is not None:
            frames["covariate"] = pd.DataFrame({"log_change": data.log_change})
        keep = [name for name in ("p", "q", "m", "m_ratio", "sigma", "beta")
                if name in idata.posterior]
        return FittedDiffusion(
            posterior=idata.posterior[keep],
            data=frames,
            config={"kind": self.kind, "priors": self.priors, "sampler": settings},
            summary_table=summary,
            meta=meta,
        )


class FittedDiffusion(FittedModel):
    """A fitted diffusion model: posterior of p, q, m (beta), diagnostics and forecasts."""

    model_name: ClassVar[str] = "diffusion"
    model_version: ClassVar[str] = "1"

    @property
    def kind(self) -> str:
        return str(self.meta["kind"])

    def parameters(self, interval: float = 0.9) -> pd.DataFrame:
        """Posterior median and central interval of p, q, m (per generation) and beta.

        Returns
        -------
        DataFrame with columns parameter, median, lower, upper (p and q per period, m in
        units).
        """
        if not 0 < interval < 1:
            raise ForecastError(f"interval must be in (0, 1), got {interval}")
        tail = (1 - interval) / 2
        rows = []
        generations = self.meta["generations"]
        for name in ["p", "q", "m"] + (["beta"] if self.kind == "gbass" else []):
            draws = self.stacked(name)
            columns = draws.reshape(len(draws), -1)
            labels = ([f"m[{g}]" for g in generations] if name == "m" and
                      self.kind == "norton-bass" else [name])
            for label, values in zip(labels, columns.T, strict=True):
                rows.append({"parameter": label, "median": float(np.median(values)),
                             "lower": float(np.quantile(values, tail)),
                             "upper": float(np.quantile(values, 1 - tail))})
        return pd.DataFrame(rows)

    def forecast(
        self,
        periods_ahead: int,
        draws: int = 1000,
        seed: int = 0,
        covariate: Sequence[float] | np.ndarray | None = None,
        noise: bool = True,
    ) -> xr.DataArray:
        """Sample paths of units per period after the last fitted period (numpy only).

        Parameters
        ----------
        periods_ahead
            Number of future periods.
        draws, seed
            Number of sample paths and the random seed (posterior draws are resampled).
        covariate
            ``gbass`` only: future covariate levels, one per future period; default holds the
            last level (x = 1, Bass-like continuation).
        noise
            Add the lognormal observation noise (posterior predictive); False gives the mean
            curve of each posterior draw.

        Returns
        -------
        DataArray ``units`` with dims (draw, period), plus ``generation`` for Norton-Bass.
        """
        if periods_ahead <= 0 or draws <= 0:
            raise ForecastError(f"periods_ahead and draws must be > 0, got {periods_ahead} "
                                f"and {draws}")
        rng = np.random.default_rng(seed)
        pick = rng.integers(0, self.n_samples, size=draws)
        p, q, sigma = (self.stacked(name, pick) for name in ("p", "q", "sigma"))
        m = self.stacked("m", pick)
        fitted = self.meta["launch_offset"] + self.meta["n_span"]
        horizon = fitted + periods_ahead
        if self.kind == "bass":
            path = bass_adoptions(horizon, p, q, m)
        elif self.kind == "gbass":
            path = self._gbass_paths(p, q, m, self.stacked("beta", pick), periods_ahead,
                                     covariate)
        else:
            path = norton_bass_adoptions(horizon, self.meta["launch_periods"], p, q, m)
        future = path[:, fitted:]
        if noise:
            shape = (draws, periods_ahead) + future.shape[2:]
            scale = sigma.reshape((draws,) + (1,) * (len(shape) - 1))
            future = future * np.exp(scale * rng.standard_normal(shape))
        positions = np.arange(self.meta["n_span"] + 1, self.meta["n_span"] + periods_ahead + 1)
        labels = _period_labels(self.meta["index_kind"], self.meta["freq"],
                                self.meta["first_label"], positions)
        dims: tuple[str, ...] = ("draw", "period")
        coords: dict[str, Any] = {"draw": np.arange(draws), "period": labels}
        if self.kind == "norton-bass":
            dims += ("generation",)
            coords["generation"] = list(self.meta["generations"])
        result = xr.DataArray(future, dims=dims, coords=coords, name="units")
        result.attrs.update(kind=self.kind, noise=str(noise))
        return result

    def _gbass_paths(self, p: np.ndarray, q: np.ndarray, m: np.ndarray, beta: np.ndarray,
                     periods_ahead: int, covariate: Any) -> np.ndarray:
        past = self.data["covariate"]["log_change"].to_numpy()
        if covariate is None:
            future = np.zeros(periods_ahead)
        else:
            levels = np.asarray(covariate, dtype=float)
            if levels.shape != (periods_ahead,) or np.any(~(levels > 0)):
                raise ForecastError(f"covariate: need {periods_ahead} positive future levels")
            future = np.diff(np.log(levels), prepend=math.log(self.meta["covariate_last"]))
        change = np.concatenate([past, future])
        steps = _effective_increments_expr(change[None, :], beta[:, None], np)
        elapsed = np.concatenate([np.zeros((len(beta), 1)), np.cumsum(steps, axis=1)], axis=1)
        cdf = _cdf_expr(elapsed, p[:, None], q[:, None], np)
        return m[:, None] * np.diff(cdf, axis=1)


# --------------------------------------------------------------------------- CSV and report


def _csv_error(path: Path, line: int | None, column: str | None, message: str) -> ForecastError:
    return ForecastError(str(Issue(str(path), line, column, message)))


def read_units_csv(
    path: str | Path, kind: str = "bass"
) -> tuple[pd.Series | pd.DataFrame, pd.Series | None]:
    """Read and validate a units CSV; returns (series or wide frame, covariate or None).

    Columns: ``period,value`` (periods are integers or quarters such as ``2024Q1``), plus
    ``covariate`` (positive) for ``gbass`` and ``generation`` (long format) for
    ``norton-bass``; other columns are ignored. Every problem is a one-line ForecastError
    ``file:line:column: message`` (the header is line 1).
    """
    if kind not in KINDS:
        raise ForecastError(f"diffusion model kind must be one of {', '.join(KINDS)}, "
                            f"got {kind!r}")
    path = Path(path)
    try:
        handle = path.open(newline="", encoding="utf-8")
    except FileNotFoundError:
        raise _csv_error(path, None, None, "file not found") from None
    except OSError as exc:
        raise _csv_error(path, None, None, f"cannot read file: {exc.strerror}") from None
    required = ["period", "value"] + {"gbass": ["covariate"],
                                      "norton-bass": ["generation"]}.get(kind, [])
    with handle:
        reader = csv.reader(handle)
        try:
            header = [cell.strip() for cell in next(reader)]
        except StopIteration:
            raise _csv_error(path, None, None, "file is empty (no header row)") from None
        except (csv.Error, UnicodeDecodeError) as exc:
            raise _csv_error(path, 1, None, f"unreadable CSV: {exc}") from None
        for column in required:
            if column not in header:
                raise _csv_error(path, 1, column, f"required column is missing (kind {kind})")
        records: list[dict[str, Any]] = []
        seen: dict[tuple[Any, ...], int] = {}
        period_kind: str | None = None
        line = reader.line_num
        try:
            for record in reader:
                start, line = line + 1, reader.line_num
                if not any(cell.strip() for cell in record):
                    continue
                if len(record) != len(header):
                    raise _csv_error(path, start, None,
                                     f"expected {len(header)} fields, got {len(record)}")
                raw = {name: cell.strip() for name, cell in zip(header, record, strict=True)}
                period, this_kind = _parse_period(raw["period"], path, start)
                if period_kind is None:
                    period_kind = this_kind
                elif this_kind != period_kind:
                    raise _csv_error(path, start, "period",
                                     f"mixes {this_kind} and {period_kind} periods, got "
                                     f"{raw['period']!r}")
                parsed = {"period": period, "line": start,
                          "value": _parse_positive(raw["value"], path, start, "value")}
                if kind == "gbass":
                    parsed["covariate"] = _parse_positive(raw["covariate"], path, start,
                                                          "covariate")
                key: tuple[Any, ...] = (period,)
                if kind == "norton-bass":
                    if not raw["generation"]:
                        raise _csv_error(path, start, "generation", "value is required")
                    parsed["generation"] = raw["generation"]
                    key = (period, raw["generation"])
                if key in seen:
                    what = "period" if len(key) == 1 else "period and generation"
                    raise _csv_error(path, start, "period",
                                     f"duplicate {what} {raw['period']!r} (first on line "
                                     f"{seen[key]})")
                seen[key] = start
                records.append(parsed)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise _csv_error(path, line + 1, None, f"unreadable CSV: {exc}") from None
    if len(records) < MIN_OBSERVATIONS:
        raise _csv_error(path, max(line, 1), "value",
                         f"{len(records)} data rows, need at least {MIN_OBSERVATIONS}")
    frame = pd.DataFrame(records)
    if period_kind == "quarter":
        frame["period"] = pd.PeriodIndex(frame["period"], freq="Q")
    if kind == "norton-bass":
        order = frame.groupby("generation", sort=False)["period"].min().sort_values(
            kind="stable").index
        wide = frame.pivot(index="period", columns="generation", values="value")
        wide = wide.reindex(columns=list(order)).sort_index()
        wide.columns.name = None
        return wide, None
    frame = frame.set_index("period").sort_index()
    covariate = frame["covariate"] if kind == "gbass" else None
    return frame["value"].rename("units"), covariate


def _parse_period(text: str, path: Path, line: int) -> tuple[Any, str]:
    if not text:
        raise _csv_error(path, line, "period", "value is required")
    if _INTEGER_PATTERN.match(text):
        return int(text), "integer"
    match = _QUARTER_PATTERN.match(text)
    if match:
        return f"{match.group(1)}Q{match.group(2)}", "quarter"
    raise _csv_error(path, line, "period",
                     f"not an integer or a quarter like 2024Q1, got {text!r}")


def _parse_positive(text: str, path: Path, line: int, column: str) -> float:
    if not text:
        raise _csv_error(path, line, column, "value is required")
    try:
        value = float(text)
    except ValueError:
        raise _csv_error(path, line, column, f"not a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise _csv_error(path, line, column, f"must be a positive number, got {text!r}")
    return value


def fit_units_csv(
    path: str | Path,
    kind: str = "bass",
    sampler: Mapping[str, Any] | None = None,
    priors: Mapping[str, Any] | None = None,
    launch_offset: int = 0,
) -> FittedDiffusion:
    """Read a units CSV (see :func:`read_units_csv`) and fit a diffusion model of ``kind``."""
    series, covariate = read_units_csv(path, kind)
    model = DiffusionModel(kind=kind, priors=priors, sampler=sampler)
    return model.fit(series, covariate=covariate, launch_offset=launch_offset)


def diffusion_report(fitted: FittedDiffusion, interval: float = 0.9) -> dict[str, Any]:
    """A JSON-serialisable report of a fit: parameters with intervals and diagnostics.

    Keys: model, n_observations, generations, interval, parameters (a list of dicts with
    parameter, median, lower, upper), max_r_hat, min_ess_bulk, min_ess_tail, divergences,
    converged, fit_seconds.
    """
    diagnostics = fitted.diagnostics()
    return {
        "model": fitted.kind,
        "n_observations": int(fitted.meta["n_observations"]),
        "generations": list(fitted.meta["generations"]),
        "interval": interval,
        "parameters": fitted.parameters(interval).to_dict(orient="records"),
        "max_r_hat": diagnostics["max_r_hat"],
        "min_ess_bulk": diagnostics["min_ess_bulk"],
        "min_ess_tail": diagnostics["min_ess_tail"],
        "divergences": diagnostics["divergences"],
        "converged": bool(diagnostics["converged"]),
        "fit_seconds": float(fitted.meta.get("fit_seconds", float("nan"))),
    }


# --------------------------------------------------------------------------- Epoch volumes


def epoch_units(
    dataset: Any,
    vendor_group: str | None = None,
    chip: str | Sequence[str] | None = None,
    value: str = "units_median",
) -> pd.Series | pd.DataFrame:
    """Quarterly unit series from Epoch's modelled volumes (``dataset.volumes``).

    Parameters
    ----------
    dataset
        A :class:`forecast.data.dataset.Dataset`.
    vendor_group
        With ``chip=None``: one column per catalogue chip of the group, ordered by first
        quarter (Norton-Bass generations; note variants such as an 80GB part are columns too).
        With ``chip``: restricts the search for the chip names to the group.
    chip
        One name -> a Series; a list -> a DataFrame with one column per name, in the given
        order (Norton-Bass generations). A catalogue name (``H100 SXM5 80GB``) sums every
        variant recorded under it (H100, H800, H20); a name as recorded (``H100``) takes only
        those rows.
    value
        ``units_median`` (default), ``units_p5`` or ``units_p95``.

    Returns
    -------
    Units per calendar quarter (PeriodIndex ``quarter``), summed over rows of the same quarter;
    a DataFrame is NaN where a chip has no figure.
    """
    volumes = dataset.volumes
    if value not in ("units_median", "units_p5", "units_p95"):
        raise ForecastError(f"value must be units_median, units_p5 or units_p95, got {value!r}")
    if vendor_group is not None:
        groups = sorted(set(volumes["vendor_group"]))
        if vendor_group not in groups:
            raise ForecastError(f"vendor group {vendor_group!r} has no volumes (known: "
                                f"{', '.join(groups)})")
        volumes = volumes[volumes["vendor_group"] == vendor_group]
    if chip is None:
        if vendor_group is None:
            raise ForecastError("epoch_units needs a vendor_group or a chip")
        names = list(volumes.groupby("chip")["quarter"].min().sort_values(kind="stable").index)
    else:
        names = [chip] if isinstance(chip, str) else list(chip)
    columns = {}
    for name in names:
        if name in set(volumes["chip"]):
            rows = volumes[volumes["chip"] == name]
        elif name in set(volumes["chip_as_recorded"]):
            rows = volumes[volumes["chip_as_recorded"] == name]
        else:
            known = sorted(set(volumes["chip"]) | set(volumes["chip_as_recorded"]))
            raise ForecastError(f"chip {name!r} has no volumes (known: {', '.join(known)})")
        columns[name] = rows.groupby("quarter")[value].sum()
    if isinstance(chip, str):
        series = columns[chip]
        series.name = chip
        return series.sort_index()
    frame = pd.DataFrame(columns).sort_index()
    frame.index.name = "quarter"
    return frame
