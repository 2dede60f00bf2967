"""The few special functions scenario sampling needs, in numpy and :mod:`math` alone.

``scipy.special`` is slow to import (it pulls in scipy's array-API layer, which loads
``numpy.f2py``, ``numpy.testing`` and more): a large part of a warm forecast's 2-second
budget.
Sampling a scenario needs only these:

- :func:`ndtr` and :func:`ndtri`: the standard normal CDF and its inverse (the Gaussian
  copula, normal and lognormal inputs);
- :func:`betainc` and :func:`betaincinv`: the regularised incomplete beta function and its
  inverse (beta and PERT inputs);
- :func:`truncnorm_ppf`: the inverse CDF of a truncated normal.

Accuracy, checked against ``scipy.special`` / ``scipy.stats`` in ``tests/test_special.py`` (and
against 40-digit arithmetic while writing them): ``ndtr`` and ``ndtri`` to about one ulp (in
the far lower tail ``ndtr`` is more accurate than scipy's, which rounds ``x / sqrt 2``
first); ``betainc`` to about 1e-14 relative for shapes up to 20, losing digits as the shapes
grow (3e-13 at 200) through the prefactor ``x^a (1-x)^b / B(a, b)``; ``betaincinv`` to 2e-13
relative; ``truncnorm_ppf`` to 5e-13, the size of scipy's own error there. They are not
bit-identical to scipy: draws differ from scipy-based ones in the last digits.

Methods: ``ndtr`` through :func:`math.erfc` (the C library's, under one ulp), with the
rounding of ``-x / sqrt 2`` corrected to first order; ``ndtri`` as Acklam's rational
approximation (relative error below 1.2e-9) refined by one Halley step, which triples the
number of correct digits; ``betainc`` as the continued fraction of the incomplete beta
function (modified Lentz) on whichever side of the mean it converges fast, returning the
function and its complement each without cancellation; ``betaincinv`` as Halley's method on
that function from the usual normal-approximation start (Abramowitz and Stegun 26.5.22 for
shapes of at least 1, a power-law start otherwise).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = ["betainc", "betaincinv", "ndtr", "ndtri", "truncnorm_ppf"]

_EPS = np.finfo(float).eps
_TINY = 1e-300
_SQRT_HALF = math.sqrt(0.5)
#: sqrt(1/2) - _SQRT_HALF: the rounding error of the constant.
_SQRT_HALF_LOW = -4.833646656726457e-17
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SPLIT = 134217729.0  # 2**27 + 1, Dekker's splitting constant
_erfc = np.frompyfunc(math.erfc, 1, 1)
_erf = np.frompyfunc(math.erf, 1, 1)

# Acklam's approximation of the normal quantile: central region and tails.
_ACKLAM_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02,
             1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00)
_ACKLAM_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02,
             6.680131188771972e01, -1.328068155288572e01, 1.0)
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00,
             -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00)
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00,
             3.754408661907416e00, 1.0)
_ACKLAM_LOW = 0.02425
# Below this the Halley step would overflow exp(x^2 / 2); Acklam's 1e-9 is kept there.
_REFINE_MIN = 1e-300
#: Elements per block of the beta quantile's iteration.
_BLOCK = 8192


def _horner(coefficients: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    result = np.full_like(x, coefficients[0])
    for coefficient in coefficients[1:]:
        result = result * x + coefficient
    return result


def ndtr(x: npt.ArrayLike) -> np.ndarray:
    """Standard normal CDF, ``0.5 erfc(-x / sqrt 2)``, elementwise.

    Parameters
    ----------
    x : array_like
        Points.

    Returns
    -------
    numpy.ndarray
        Probabilities with the shape of ``x`` (relative error of a few ulp in both tails).
    """
    values = np.asarray(x, dtype=float)
    z, low = _scaled(values)
    with np.errstate(over="ignore", invalid="ignore"):
        # erfc(z + low) to first order: low is below an ulp of z, its derivative term fixes
        # the rounding of z = -x / sqrt 2, which erfc would otherwise amplify by 2 z^2.
        correction = low * _TWO_OVER_SQRT_PI * np.exp(-z * z)
        result = 0.5 * (np.asarray(_erfc(z), dtype=float) - np.where(low != 0, correction, 0.0))
    return result


def _scaled(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``-x sqrt(1/2)`` as a rounded value and its (tiny) rounding error.

    Dekker's exact product splits each factor into 26-bit halves; the error also carries the
    rounding of the constant sqrt(1/2).
    """
    z = -x * _SQRT_HALF
    with np.errstate(over="ignore", invalid="ignore"):
        big = -x * _SPLIT
        x_high = big - (big - (-x))
        x_low = -x - x_high
        c_big = _SQRT_HALF * _SPLIT
        c_high = c_big - (c_big - _SQRT_HALF)
        c_low = _SQRT_HALF - c_high
        error = ((x_high * c_high - z) + x_high * c_low + x_low * c_high) + x_low * c_low
        low = np.where(np.isfinite(error), error - x * _SQRT_HALF_LOW, 0.0)
    return z, low


def _lower_ndtri(p: np.ndarray) -> np.ndarray:
    """Normal quantile of ``0 < p <= 0.5`` (no checks)."""
    x = np.empty_like(p)
    tail = p < _ACKLAM_LOW
    if tail.any():
        q = np.sqrt(-2.0 * np.log(p[tail]))
        x[tail] = _horner(_ACKLAM_C, q) / _horner(_ACKLAM_D, q)
    central = ~tail
    if central.any():
        q = p[central] - 0.5
        r = q * q
        x[central] = _horner(_ACKLAM_A, r) * q / _horner(_ACKLAM_B, r)
    # One Halley step on Phi(x) - p. In the tail Phi(x) keeps its full relative precision;
    # in the central region the residual is taken as erf(x / sqrt 2) / 2 - (p - 1/2), exact
    # near the median where Phi(x) - p would cancel.
    refine = p >= _REFINE_MIN
    xr, pr = x[refine], p[refine]
    error = np.empty_like(xr)
    far = pr < _ACKLAM_LOW
    error[far] = ndtr(xr[far]) - pr[far]
    near = ~far
    error[near] = (0.5 * np.asarray(_erf(xr[near] * _SQRT_HALF), dtype=float)
                   - (pr[near] - 0.5))
    u = error * _SQRT_2PI * np.exp(0.5 * xr * xr)
    x[refine] = xr - u / (1.0 + 0.5 * xr * u)
    return x


def ndtri(p: npt.ArrayLike) -> np.ndarray:
    """Inverse of :func:`ndtr`: the standard normal quantile, elementwise.

    Parameters
    ----------
    p : array_like
        Probabilities; 0 and 1 give -inf and inf, anything outside [0, 1] or NaN gives NaN.

    Returns
    -------
    numpy.ndarray
        Quantiles with the shape of ``p``. Above 0.5 the quantile is ``-ndtri(1 - p)``
        (``1 - p`` is exact there), so both tails are computed where Phi is precise.
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    out[p == 0.0] = -np.inf
    out[p == 1.0] = np.inf
    lower = (p > 0.0) & (p <= 0.5)
    upper = (p > 0.5) & (p < 1.0)
    if lower.any():
        out[lower] = _lower_ndtri(p[lower])
    if upper.any():
        out[upper] = -_lower_ndtri(1.0 - p[upper])
    return out


# --------------------------------------------------------------------------- incomplete beta


class _Shapes:
    """The distinct ``(a, b)`` pairs of a call, each element's pair, and ``log B(a, b)``.

    The continued fraction's coefficients depend on the shapes only: they are computed once
    per distinct pair (and per swapped pair, ``(b, a)``, in the second half of the tables)
    and gathered, instead of once per element.
    """

    def __init__(self, a: np.ndarray, b: np.ndarray):
        if a.size and (a == a.flat[0]).all() and (b == b.flat[0]).all():
            pairs = np.array([complex(a.flat[0], b.flat[0])])
            ids = np.zeros(a.shape, dtype=np.intp)
        else:
            pairs, ids = np.unique(a + 1j * b, return_inverse=True)
            ids = ids.reshape(a.shape)
        self.ids = ids
        self.count = pairs.size
        self.first = np.concatenate([pairs.real, pairs.imag])
        self.second = np.concatenate([pairs.imag, pairs.real])
        self.log_beta = np.array([math.lgamma(z.real) + math.lgamma(z.imag)
                                  - math.lgamma(z.real + z.imag) for z in pairs.tolist()])


def _away_from_zero(values: np.ndarray) -> np.ndarray:
    """Lentz's guard: a denominator that vanished becomes tiny instead (in place)."""
    small = np.abs(values) < _TINY
    if small.any():
        values[small] = _TINY
    return values


def _beta_fraction(shapes: _Shapes, ids: np.ndarray, x: np.ndarray, tolerance: float,
                   guard: bool = False) -> np.ndarray:
    """Continued fraction of ``I_x(a, b)`` (modified Lentz), elementwise, with ``(a, b)`` the
    pair ``ids`` points to in ``shapes.first`` and ``shapes.second``; converges fast for
    ``x < (a + 1) / (a + b + 2)``.

    Each element stops at its own convergence, when a factor is within ``tolerance`` of 1
    (the ones still running are compacted), so its value never depends on the other
    elements of the call. Without ``guard`` a vanishing denominator is not nudged (it
    practically never happens): elements whose value comes out non-finite are then
    recomputed with the guard.
    """
    a, b = shapes.first, shapes.second
    arguments = (ids, x)
    out = np.empty_like(x)
    c = np.ones_like(x)
    d = 1.0 - ((a + b) / (a + 1.0))[ids] * x
    if guard:
        _away_from_zero(d)
    np.divide(1.0, d, out=d)
    h = d.copy()
    running = np.arange(x.size)
    for m in range(1, 1001):
        m2 = 2.0 * m
        for table in (m * (b - m) / ((a - 1.0 + m2) * (a + m2)),
                      -(a + m) * (a + b + m) / ((a + m2) * (a + 1.0 + m2))):
            numerator = table[ids] * x
            d *= numerator
            d += 1.0
            if guard:
                _away_from_zero(d)
            np.divide(1.0, d, out=d)
            np.divide(numerator, c, out=c)
            c += 1.0
            if guard:
                _away_from_zero(c)
            h *= d
            h *= c
        # The last factor d * c is Lentz's convergence test.
        done = np.abs(d * c - 1.0) <= tolerance
        if done.any():
            out[running[done]] = h[done]
            keep = ~done
            running = running[keep]
            if not running.size:
                break
            ids, x, c, d, h = ids[keep], x[keep], c[keep], d[keep], h[keep]
    if running.size:
        out[running] = h
    if not guard:
        broken = ~np.isfinite(out)
        if broken.any():
            out[broken] = _beta_fraction(shapes, *(v[broken] for v in arguments), tolerance,
                                         guard=True)
    return out


def _betainc_pair(shapes: _Shapes, ids: np.ndarray, x: np.ndarray, tolerance: float = _EPS
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``I_x(a, b)`` and ``1 - I_x(a, b)`` for ``0 < x < 1``, each without cancellation.

    The continued fraction runs on ``x`` below the mean and on ``1 - x`` with the shapes
    swapped above it.
    """
    a, b = shapes.first[ids], shapes.second[ids]
    swap = x >= (a + 1.0) / (a + b + 2.0)
    fraction_ids = ids + swap * shapes.count
    fraction = _beta_fraction(shapes, fraction_ids, np.where(swap, 1.0 - x, x), tolerance)
    log_front = (a * np.log(x) + b * np.log1p(-x)) - shapes.log_beta[ids]
    small = np.exp(log_front) * fraction / shapes.first[fraction_ids]
    return np.where(swap, 1.0 - small, small), np.where(swap, small, 1.0 - small)


def betainc(a: npt.ArrayLike, b: npt.ArrayLike, x: npt.ArrayLike) -> np.ndarray:
    """Regularised incomplete beta function ``I_x(a, b)``, elementwise.

    Parameters
    ----------
    a, b : array_like
        Shape parameters, > 0.
    x : array_like
        Points in [0, 1] (NaN outside).

    Returns
    -------
    numpy.ndarray
        The CDF of a Beta(a, b) variable at ``x``, broadcast over the inputs.
    """
    a, b, x = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, x)))
    out = np.full(x.shape, np.nan)
    valid = (a > 0) & (b > 0)
    out[valid & (x == 0.0)] = 0.0
    out[valid & (x == 1.0)] = 1.0
    inside = valid & (x > 0.0) & (x < 1.0)
    if inside.any():
        shapes = _Shapes(a[inside], b[inside])
        out[inside] = _betainc_pair(shapes, shapes.ids, x[inside])[0]
    return out


def _beta_start(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray:
    """A first guess of the Beta(a, b) quantile (``0 < p < 1``)."""
    x = np.empty_like(p)
    large = (a >= 1.0) & (b >= 1.0)
    if large.any():
        aa, bb, pp = a[large], b[large], p[large]
        tail = np.where(pp < 0.5, pp, 1.0 - pp)
        t = np.sqrt(-2.0 * np.log(tail))
        z = (2.30753 + t * 0.27061) / (1.0 + t * (0.99229 + t * 0.04481)) - t
        z = np.where(pp < 0.5, -z, z)
        al = (z * z - 3.0) / 6.0
        h = 2.0 / (1.0 / (2.0 * aa - 1.0) + 1.0 / (2.0 * bb - 1.0))
        skew = (1.0 / (2.0 * bb - 1.0) - 1.0 / (2.0 * aa - 1.0)) * (
            al + 5.0 / 6.0 - 2.0 / (3.0 * h))
        w = z * np.sqrt(al + h) / h - skew
        x[large] = aa / (aa + bb * np.exp(2.0 * w))
    small = ~large
    if small.any():
        aa, bb, pp = a[small], b[small], p[small]
        t = np.exp(aa * np.log(aa / (aa + bb))) / aa
        u = np.exp(bb * np.log(bb / (aa + bb))) / bb
        w = t + u
        x[small] = np.where(pp < t / w, (aa * w * pp) ** (1.0 / aa),
                            1.0 - (bb * w * (1.0 - pp)) ** (1.0 / bb))
    return np.clip(x, _TINY, 1.0 - _EPS / 2)


def betaincinv(a: npt.ArrayLike, b: npt.ArrayLike, p: npt.ArrayLike) -> np.ndarray:
    """Inverse of :func:`betainc` in ``x``: the quantile of a Beta(a, b) variable.

    Parameters
    ----------
    a, b : array_like
        Shape parameters, > 0.
    p : array_like
        Probabilities in [0, 1] (NaN outside).

    Returns
    -------
    numpy.ndarray
        ``x`` with ``I_x(a, b) = p``, broadcast over the inputs. Below the median the
        residual is ``I_x - p``, above it ``(1 - p) - (1 - I_x)``, both free of
        cancellation, so upper quantiles are as precise as lower ones.
    """
    a, b, p = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, p)))
    out = np.full(p.shape, np.nan)
    valid = (a > 0) & (b > 0)
    out[valid & (p == 0.0)] = 0.0
    out[valid & (p == 1.0)] = 1.0
    inside = valid & (p > 0.0) & (p < 1.0)
    if not inside.any():
        return out
    a, b, p = a[inside], b[inside], p[inside]
    # In blocks that stay in the CPU cache (large arrays would not).
    out[inside] = np.concatenate([
        _beta_quantile(a[i:i + _BLOCK], b[i:i + _BLOCK], p[i:i + _BLOCK])
        for i in range(0, p.size, _BLOCK)])
    return out


def _beta_quantile(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray:
    """:func:`betaincinv` of ``0 < p < 1`` and valid shapes (no checks)."""
    shapes = _Shapes(a, b)
    upper = p > 0.5
    target = np.where(upper, 1.0 - p, p)

    def halley(x: np.ndarray, index: np.ndarray, tolerance: float) -> np.ndarray:
        """One Halley step of every element strictly inside (0, 1); 0 and 1 stay put."""
        new = x.copy()
        interior = (x > 0.0) & (x < 1.0)
        x, index = x[interior], index[interior]
        aa, bb, ids = a[index], b[index], shapes.ids[index]
        lower_tail, upper_tail = _betainc_pair(shapes, ids, x, tolerance)
        error = np.where(upper[index], target[index] - upper_tail, lower_tail - target[index])
        log_density = ((aa - 1.0) * np.log(x) + (bb - 1.0) * np.log1p(-x)
                       - shapes.log_beta[ids])
        u = error / np.exp(log_density)
        curvature = u * ((aa - 1.0) / x - (bb - 1.0) / (1.0 - x))
        step = x - u / (1.0 - 0.5 * np.minimum(1.0, curvature))
        # Halley may overshoot an end: halve the distance to it instead. A quantile closer to
        # an end than the last double before it ends up on the end itself, as it rounds.
        step = np.where(step <= 0.0, 0.5 * x, step)
        new[interior] = np.where(step >= 1.0, 0.5 * (x + 1.0), step)
        return new

    x = _beta_start(a, b, p)
    # Halley converges cubically: once a step is below 1e-5 (of the distance to the nearer
    # end) the error left is about its cube. So iterate to that point with I_x to 1e-7 on
    # the first step and 1e-11 after (two steps from the start, usually), then step with
    # I_x to full precision until the step is below 1e-12 (once, usually): the result is at
    # the limit set by the rounding of I_x itself. Waiting for a still smaller step would
    # wait forever on points that bounce by an ulp.
    active = np.arange(p.size)
    for iteration in range(100):
        new = halley(x[active], active, 1e-7 if iteration == 0 else 1e-11)
        moved = np.abs(new - x[active]) > 1e-5 * np.minimum(new, 1.0 - new)
        x[active] = new
        active = active[moved]
        if not active.size:
            break
    active = np.arange(p.size)
    for _ in range(20):
        new = halley(x[active], active, _EPS)
        moved = np.abs(new - x[active]) > 1e-12 * np.minimum(new, 1.0 - new)
        x[active] = new
        active = active[moved]
        if not active.size:
            break
    return x


# --------------------------------------------------------------------------- truncated normal


def truncnorm_ppf(
    q: npt.ArrayLike, a: float, b: float, loc: float = 0.0, scale: float = 1.0
) -> np.ndarray:
    """Inverse CDF of a normal truncated to standardised bounds ``[a, b]``.

    The semantics of ``scipy.stats.truncnorm(a, b, loc, scale).ppf(q)``: ``q`` of 0 and 1
    give the bounds, anything outside [0, 1] or NaN gives NaN. A quantile below the mean is
    found from ``Phi(x) = Phi(a) + q (Phi(b) - Phi(a))``, one above it from the upper tail,
    ``Phi(-x) = Phi(-b) + (1 - q) (Phi(-a) - Phi(-b))``, so no probability is ever taken as a
    small difference of numbers near 1, and truncations far in either tail stay precise.

    Parameters
    ----------
    q : array_like
        Probabilities.
    a, b : float
        Standardised bounds, ``(lower - loc) / scale`` and ``(upper - loc) / scale``, a < b
        (either may be infinite).
    loc, scale : float, default 0 and 1
        Mean and standard deviation of the untruncated normal.

    Returns
    -------
    numpy.ndarray
        Quantiles with the shape of ``q`` (a 0-d array for scalar ``q``).
    """
    q = np.asarray(q, dtype=float)
    out = np.full(q.shape, np.nan)
    out[q == 0] = a * scale + loc
    out[q == 1] = b * scale + loc
    inside = (q > 0) & (q < 1)
    if not inside.any():
        return out
    p = q[inside]
    below_a, below_b, above_a, above_b = ndtr(np.array([a, b, -a, -b]))
    lower = below_a + p * (below_b - below_a)
    upper = above_b + (1.0 - p) * (above_a - above_b)
    standard = np.empty_like(p)
    left = lower <= 0.5
    standard[left] = ndtri(lower[left])
    standard[~left] = -ndtri(upper[~left])
    out[inside] = np.clip(standard, a, b) * scale + loc
    return out
