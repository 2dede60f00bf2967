"""The damped local linear trend of the common level m(t) (NVIDIA's log compute spend, the
group every relative position is measured against): Kalman filters and forward simulation.

State at quarter t: level ``L_t`` (log spend) and growth ``g_t`` (its change in the
quarter). Growth persists and fades towards the long-run growth ``g*``::

    g_t = g* + phi (g_{t-1} - g*) + sqrt(lambda_t) sigma_growth eta_t
    L_t = L_{t-1} + g_t + sqrt(lambda_t) sigma_level eps_t
    y_t = L_t + obs_sd_t nu_t

``y_t`` is the log spend implied by the anchor series or, one quarter past the data, a
guide's reading with its own ``obs_sd``. ``lambda_t`` is the quarter's shock variance scale
(:data:`SHOCK_SCALE_ALPHA`): with ``lambda_t ~ InverseGamma(nu/2, nu/2)`` both shocks are
Student-t with ``nu`` degrees of freedom given the scale, so one jump (2023Q2's step into
generative AI) widens that quarter's variance instead of every quarter's. Given the scales
the model is linear and Gaussian, so the Kalman filters below stay exact; each takes the
scales as a sequence (all ones: the Gaussian trend).

Two forms of one filter. :func:`damped_trend_filter` is the two-dimensional Kalman filter
over levels (numpy; the reference the tests check against a dense multivariate normal).
With the reported levels exact, the changes ``dy_t = y_t - y_{t-1}`` carry everything, and
:func:`growth_filter` (one dimension, numpy or PyTensor, used for a guide's nowcast step)
and :func:`growth_filter_scan` (the same recursion as one PyTensor ``scan``, what the PyMC
model uses: an unrolled filter compiled too slowly) filter the growth alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Degrees of freedom of the trend's shocks: ``lambda_t ~ InverseGamma(nu/2, nu/2)``. Four
#: keeps a finite variance (2 sigma^2) with tails that make a 0.88 log step (2023Q2) a rare
#: quarter rather than a reason to widen every quarter's band.
SHOCK_DOF = 4.0
#: Shape and rate of the InverseGamma prior of each quarter's variance scale.
SHOCK_SCALE_ALPHA = SHOCK_DOF / 2.0
SHOCK_SCALE_BETA = SHOCK_DOF / 2.0


def draw_shock_scales(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Variance scales ``lambda ~ InverseGamma(nu/2, nu/2)`` (the reciprocal of a gamma)."""
    return 1.0 / rng.gamma(SHOCK_SCALE_ALPHA, 1.0 / SHOCK_SCALE_BETA, size=shape)


@dataclass(frozen=True)
class TrendParams:
    """Parameters of the damped trend (scalars, arrays of draws or tensors)."""

    phi: Any
    growth_longrun: Any
    sigma_level: Any
    sigma_growth: Any
    growth_init: Any


@dataclass(frozen=True)
class FilteredState:
    """Filtered mean and covariance of (level, growth) at the last step, and the log
    likelihood of every observation after the first."""

    level: Any
    growth: Any
    var_level: Any
    cov_level_growth: Any
    var_growth: Any
    logp: Any


def damped_trend_filter(y: Sequence[Any], obs_sd: Sequence[Any], params: TrendParams,
                        xp: Any = np, scales: Sequence[Any] | None = None) -> FilteredState:
    """Kalman filter of the damped trend over observations ``y`` (one per step).

    The first observation fixes the initial level (variance ``obs_sd[0]**2``) and the
    initial growth is ``params.growth_init`` (known given the parameters); the log
    likelihood is that of ``y[1:]`` given ``y[0]``.

    Parameters
    ----------
    y, obs_sd
        Per step: the observed log total and its observation sd (same length >= 1).
    params
        :class:`TrendParams`.
    xp
        ``numpy`` or ``pytensor.tensor``.
    scales
        Shock variance scale of each step after the first (``len(y) - 1``); default ones.
    """
    phi, g_star = params.phi, params.growth_longrun
    q_level, q_growth = params.sigma_level**2, params.sigma_growth**2
    level, growth = y[0], params.growth_init + 0.0 * y[0]
    p_ll, p_lg, p_gg = obs_sd[0] ** 2 + 0.0 * y[0], 0.0 * y[0], 0.0 * y[0]
    logp = 0.0 * y[0]
    half_log_2pi = 0.5 * math.log(2.0 * math.pi)
    for t in range(1, len(y)):
        scale = 1.0 if scales is None else scales[t - 1]
        # Predict: growth first, then the level moves by the new growth.
        growth = g_star + phi * (growth - g_star)
        level = level + growth
        g_gg = phi**2 * p_gg + scale * q_growth
        g_lg = phi * p_lg + g_gg
        g_ll = p_ll + 2.0 * phi * p_lg + g_gg + scale * q_level
        # Update with y_t = L_t + noise.
        s = g_ll + obs_sd[t] ** 2
        v = y[t] - level
        logp = logp - half_log_2pi - 0.5 * xp.log(s) - 0.5 * v**2 / s
        k_l, k_g = g_ll / s, g_lg / s
        level, growth = level + k_l * v, growth + k_g * v
        p_ll, p_lg, p_gg = g_ll - k_l * g_ll, g_lg - k_l * g_lg, g_gg - k_g * g_lg
    return FilteredState(level, growth, p_ll, p_lg, p_gg, logp)


def log_sum_moments(known: Any, state: FilteredState, params: TrendParams, horizon: int,
                    xp: Any = np, shock_scale: float = SHOCK_SCALE_BETA / (SHOCK_SCALE_ALPHA - 1.0)
                    ) -> tuple[Any, Any]:
    """Mean and variance (second-order delta method) of
    ``log(sum of exp(known) + sum_h exp(L_h))``: the log of a total over quarters, some
    known (log values ``known``), the next ``horizon`` ones the trend's from a filtered
    ``state`` whose level is exact (``var_level`` zero).

    ``L_h = L + sum_{j<=h} g_j``, ``g_j = g* + phi^j (g - g*) + sum_{k<=j} phi^(j-k) eta_k``
    (plus the level shocks), so the total's log moves with weights ``w_h`` (each quarter's
    part of the total) on the growth state and on every shock. The shocks' variances are
    scaled by their expected scale ``shock_scale``.
    """
    if horizon == 0:
        return _logsumexp(known, xp), 0.0 * params.phi
    phi, g_star = params.phi, params.growth_longrun
    steps = np.arange(1, horizon + 1)
    powers = phi ** steps.astype(float)
    mean_path = state.level + xp.cumsum(g_star + powers * (state.growth - g_star))
    total = _logsumexp(xp.concatenate([known, mean_path]), xp)
    weight = xp.exp(mean_path - total)
    growth_load = xp.sum(weight * xp.cumsum(powers))
    # shock_load[k] = sum_{h>=k} w_h sum_{i=0}^{h-k} phi^i; level_load[k] = sum_{h>=k} w_h.
    lag = steps[:, None] - steps[None, :]
    kernel = xp.cumsum(phi ** (steps - 1.0))[np.clip(lag, 0, None)] * (lag >= 0)
    shock_load = xp.sum(weight[:, None] * kernel, axis=0)
    level_load = xp.cumsum(weight[::-1])[::-1]
    q_growth, q_level = shock_scale * params.sigma_growth**2, shock_scale * params.sigma_level**2
    var = (growth_load**2 * state.var_growth + q_growth * xp.sum(shock_load**2)
           + q_level * xp.sum(level_load**2))
    # Second order: log-sum-exp is convex, so the mean exceeds the log total of the mean
    # path by half the weighted spread of the quarters' levels less the total's variance.
    var_each = (xp.cumsum(powers)**2 * state.var_growth + q_growth * xp.sum(kernel**2, axis=1)
                + q_level * steps)
    return total + 0.5 * (xp.sum(weight * var_each) - var), var


def _logsumexp(values: Any, xp: Any) -> Any:
    top = xp.max(values)
    return top + xp.log(xp.sum(xp.exp(values - top)))


def sample_state(state: FilteredState, rng: np.random.Generator) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """Draws of (level, growth) from the filtered normal, one per draw of its arrays."""
    var_l = np.maximum(np.asarray(state.var_level, dtype=float), 0.0)
    var_g = np.maximum(np.asarray(state.var_growth, dtype=float), 0.0)
    sd_l = np.sqrt(var_l)
    # Cholesky of [[var_l, cov], [cov, var_g]] written out for a batch of 2x2 matrices.
    a = np.divide(state.cov_level_growth, sd_l, out=np.zeros_like(sd_l), where=sd_l > 0)
    b = np.sqrt(np.maximum(var_g - a**2, 0.0))
    z = rng.standard_normal((2, *sd_l.shape))
    return state.level + sd_l * z[0], state.growth + a * z[0] + b * z[1]


def simulate_trend(level: np.ndarray, growth: np.ndarray, params: TrendParams, horizon: int,
                   rng: np.random.Generator, scales: np.ndarray | None = None) -> np.ndarray:
    """Log total spend over the next ``horizon`` quarters from states (draws,).

    ``scales`` (draws, horizon) are the quarters' shock variance scales (default ones: the
    Gaussian trend). Random numbers, in order: growth shocks (draws, horizon), then level
    shocks.
    """
    eta = rng.standard_normal((np.size(level), horizon))
    eps = rng.standard_normal((np.size(level), horizon))
    out = np.empty((np.size(level), horizon))
    lev = np.asarray(level, dtype=float).reshape(-1)
    gro = np.asarray(growth, dtype=float).reshape(-1)
    phi, g_star = np.reshape(params.phi, -1), np.reshape(params.growth_longrun, -1)
    s_l, s_g = np.reshape(params.sigma_level, -1), np.reshape(params.sigma_growth, -1)
    root = np.ones((np.size(level), horizon)) if scales is None else np.sqrt(scales)
    for h in range(horizon):
        gro = g_star + phi * (gro - g_star) + s_g * root[:, h] * eta[:, h]
        lev = lev + gro + s_l * root[:, h] * eps[:, h]
        out[:, h] = lev
    return out


def growth_filter(dy: Sequence[Any], obs_var: Sequence[float | Any], params: TrendParams,
                  xp: Any = np, start_var: Any = 0.0,
                  scales: Sequence[Any] | None = None) -> FilteredState:
    """The damped trend's filter on the level changes ``dy_t = y_t - y_{t-1}``.

    With reported levels exact, ``dy_t = g_t + sigma_level eps_t (+ a guide's noise of
    variance obs_var[t])``: a one-dimensional filter of the growth, a handful of scalar
    operations a step (the graph stays small for PyMC; the two-dimensional filter of
    :func:`damped_trend_filter` is the reference it is tested against). Returns the state
    of the last step as (x, g): ``level`` is ``x = L_m - y_{m-1}``, the last step's level
    change, with its variance and covariance with the growth; ``logp`` that of ``dy``.
    The growth starts at ``params.growth_init`` with variance ``start_var`` (continuing a
    filter that ran before). ``scales`` are the steps' shock variance scales (default ones).
    """
    phi, g_star = params.phi, params.growth_longrun
    q_level, q_growth = params.sigma_level**2, params.sigma_growth**2
    half_log_2pi = 0.5 * math.log(2.0 * math.pi)
    m_g, p_g = params.growth_init, start_var + 0.0 * q_growth
    logp = 0.0 * q_growth
    mean_x = var_x = cov_xg = 0.0 * q_growth
    for t, change in enumerate(dy):
        scale = 1.0 if scales is None else scales[t]
        m_g = g_star + phi * (m_g - g_star)
        p_g = phi**2 * p_g + scale * q_growth
        p_x = p_g + scale * q_level
        s = p_x + obs_var[t]
        v = change - m_g
        logp = logp - half_log_2pi - 0.5 * xp.log(s) - 0.5 * v**2 / s
        mean_x = m_g + p_x / s * v
        var_x = p_x - p_x**2 / s
        cov_xg = p_g - p_g * p_x / s
        m_g = m_g + p_g / s * v
        p_g = p_g - p_g**2 / s
    return FilteredState(mean_x, m_g, var_x, cov_xg, p_g, logp)


def growth_filter_scan(dy: np.ndarray, params: TrendParams, scales: Any = None
                       ) -> tuple[Any, Any, Any, Any]:
    """:func:`growth_filter` over exact changes ``dy`` (data) as one PyTensor ``scan``.

    The same recursion as :func:`growth_filter` with every ``obs_var`` zero, written as a
    loop node rather than unrolled (an unrolled filter compiles far more slowly with its
    gradient). ``scales`` (a tensor, one per change; default ones) are the shock variance
    scales.

    Returns
    -------
    tuple
        ``(pred_mean, pred_var, growth, var_growth)``: each change's one-step-ahead
        predictive mean and variance (the likelihood of ``dy`` is the product of these
        normals: an observed variable with a pointwise log likelihood), and the filtered
        growth's mean and variance after the last change.
    """
    import pytensor
    import pytensor.tensor as pt

    phi, g_star = params.phi, params.growth_longrun
    q_level, q_growth = params.sigma_level**2, params.sigma_growth**2

    def step(change: Any, scale: Any, m_g: Any, p_g: Any, phi: Any, g_star: Any,
             q_level: Any, q_growth: Any) -> tuple[Any, Any, Any, Any]:
        m_g = g_star + phi * (m_g - g_star)
        p_g = phi**2 * p_g + scale * q_growth
        s = p_g + scale * q_level
        v = change - m_g
        return m_g + p_g / s * v, p_g - p_g**2 / s, m_g, s

    zero = pt.zeros(()) * q_growth
    if scales is None:
        scales = np.ones(len(dy))
    m_g, p_g, pred_mean, pred_var = pytensor.scan(
        step, sequences=[pt.as_tensor_variable(np.asarray(dy, dtype=float)),
                         pt.as_tensor_variable(scales)],
        outputs_info=[params.growth_init + zero, zero, None, None],
        non_sequences=[pt.as_tensor_variable(v) for v in (phi, g_star, q_level, q_growth)],
        strict=True, return_updates=False)
    return pred_mean, pred_var, m_g[-1], p_g[-1]
