"""The share model's state space: targets, the Kalman filter and forward simulation.

For each rival v of NVIDIA (vendors after the first), quarter t::

    mu*_v(t) = a_v - b (log k_v(t) - log k_nvidia(t))          cost-driven target
    d_v(t)   = rho d_v(t-1) + sigma_v eps_v(t)                  persistent deviation
    m_v(t)   = m_v(t-1) + lambda (mu*_v(t) - m_v(t-1)) + d_v(t)  log-ratio to NVIDIA
    y_v(t)   = m_v(t) + tau_v nu_v(t)                           where v is measured

``m`` moves part of the way (``lambda``) to the target each quarter; ``d`` carries momentum
that fades at rate ``rho``. Vendors are independent given the parameters, so the filter is
a two-state (m, d) Kalman filter per vendor, written element-wise over the vendors: no
matrix inverse, the same code for numpy and PyTensor (``xp``). Unmeasured cells are
skipped (``observed`` 0): the state is predicted through them.

The state before the first quarter is ``m ~ N(mu*(0), start_sd^2)`` and ``d`` from its
stationary law ``N(0, sigma^2 / (1 - rho^2))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


@dataclass(frozen=True)
class StateParams:
    """Parameters of the state space (scalars, per-vendor vectors or tensors).

    ``speed`` is lambda, ``persistence`` rho, ``deviation_sd`` sigma_v, ``obs_sd`` tau_v,
    ``start_sd`` the sd of the first state around its target.
    """

    speed: Any
    persistence: Any
    deviation_sd: Any
    obs_sd: Any
    start_sd: Any


@dataclass(frozen=True)
class FilterState:
    """Filtered means and covariance of (m, d) per vendor after the last quarter, the log
    likelihood of every measured cell, and per quarter the one-step-ahead predictive mean
    and variance of each vendor's measurement (T, V)."""

    m: Any
    d: Any
    p_mm: Any
    p_md: Any
    p_dd: Any
    logp: Any
    pred_mean: Any = None
    pred_var: Any = None


def target_log_ratios(ecosystem: Any, price_coefficient: Any, log_cost: Any,
                      xp: Any = np) -> Any:
    """``mu*_v(t) = a_v - b (log k_v(t) - log k_0(t))`` for the vendors after the first.

    ``ecosystem`` (..., K-1), ``price_coefficient`` (...), ``log_cost`` (..., T, K) with the
    reference vendor (NVIDIA) first; returns (..., T, K-1).
    """
    gap = log_cost[..., 1:] - log_cost[..., :1]
    if xp is not np:  # one draw: (V,) and a scalar against (T, K)
        return ecosystem[None, :] - price_coefficient * gap
    a = np.asarray(ecosystem, dtype=float)[..., None, :]
    b = np.asarray(price_coefficient, dtype=float)[..., None, None]
    return a - b * gap


def predict(m: Any, d: Any, p_mm: Any, p_md: Any, p_dd: Any, target: Any,
            params: StateParams) -> tuple[Any, Any, Any, Any, Any]:
    """One quarter ahead: the means and covariance of (m, d) before the measurement."""
    lam, rho = params.speed, params.persistence
    q = params.deviation_sd**2
    keep = 1.0 - lam
    m_new = keep * m + rho * d + lam * target
    d_new = rho * d
    mm = keep**2 * p_mm + 2.0 * keep * rho * p_md + rho**2 * p_dd + q
    md = keep * rho * p_md + rho**2 * p_dd + q
    dd = rho**2 * p_dd + q
    return m_new, d_new, mm, md, dd


def update(m: Any, d: Any, p_mm: Any, p_md: Any, p_dd: Any, y: Any, seen: Any,
           obs_var: Any, xp: Any = np) -> tuple[Any, Any, Any, Any, Any, Any]:
    """The measurement ``y`` where ``seen`` is 1 (no change where 0); returns the updated
    state and each cell's log likelihood (0 where unseen)."""
    s = p_mm + obs_var
    v = y - m
    k_m, k_d = seen * p_mm / s, seen * p_md / s
    logp = seen * (-HALF_LOG_2PI - 0.5 * xp.log(s) - 0.5 * v**2 / s)
    return (m + k_m * v, d + k_d * v, p_mm - k_m * p_mm, p_md - k_m * p_md,
            p_dd - k_d * p_md, logp)


def initial_state(first_target: Any, params: StateParams) -> tuple[Any, Any, Any, Any, Any]:
    """(m, d, P_mm, P_md, P_dd) before the first quarter (see the module docstring)."""
    zero = 0.0 * first_target
    stationary = params.deviation_sd**2 / (1.0 - params.persistence**2)
    return (first_target, zero, params.start_sd**2 + zero, zero, stationary + zero)


def share_filter(y: np.ndarray, observed: np.ndarray, target: Any, params: StateParams,
                 xp: Any = np) -> FilterState:
    """The Kalman filter over quarters (numpy: the reference the scan is tested against).

    ``y`` (T, V) log-ratios (any finite value where unseen), ``observed`` (T, V) 0/1,
    ``target`` (T, V) the targets ``mu*``. The first quarter's state is predicted from
    :func:`initial_state` at the first target, like every later one.
    """
    state = initial_state(target[0], params)
    obs_var = params.obs_sd**2
    total, means, variances = 0.0, [], []
    for t in range(len(y)):
        state = predict(*state, target[t], params)
        means.append(state[0])
        variances.append(state[2] + obs_var)
        *state, logp = update(*state, y[t], observed[t], obs_var, xp=xp)
        total = total + logp.sum()
    return FilterState(*state, total, xp.stack(means), xp.stack(variances))


def share_filter_scan(y: Any, observed: np.ndarray, target: Any,
                      params: StateParams) -> FilterState:
    """:func:`share_filter` as one PyTensor ``scan`` (what the PyMC model uses); ``y`` may
    be a tensor (``pm.Data``)."""
    import pytensor
    import pytensor.tensor as pt

    def step(y_t: Any, seen_t: Any, target_t: Any, m: Any, d: Any, p_mm: Any, p_md: Any,
             p_dd: Any, logp: Any, speed: Any, persistence: Any, deviation_sd: Any,
             obs_sd: Any) -> tuple[Any, ...]:
        local = StateParams(speed, persistence, deviation_sd, obs_sd, 0.0)
        state = predict(m, d, p_mm, p_md, p_dd, target_t, local)
        mean, var = state[0], state[2] + obs_sd**2
        *state, cell = update(*state, y_t, seen_t, obs_sd**2, xp=pt)
        return (*state, logp + cell.sum(), mean, var)

    first = initial_state(target[0], params)
    outputs = pytensor.scan(
        step,
        sequences=[pt.as_tensor_variable(y),
                   pt.as_tensor_variable(np.asarray(observed, dtype=float)), target],
        outputs_info=[*(pt.as_tensor_variable(v) for v in first),
                      pt.zeros(()) * params.speed, None, None],
        non_sequences=[pt.as_tensor_variable(v) for v in (
            params.speed, params.persistence, params.deviation_sd, params.obs_sd)],
        strict=True, return_updates=False)
    *last, means, variances = outputs
    return FilterState(*(out[-1] for out in last), means, variances)


def sample_state(state: FilterState, rng: np.random.Generator) -> tuple[np.ndarray,
                                                                        np.ndarray]:
    """Draws of (m, d) from the filtered normal, one per element of its arrays."""
    var_m = np.maximum(np.asarray(state.p_mm, dtype=float), 0.0)
    sd_m = np.sqrt(var_m)
    a = np.divide(state.p_md, sd_m, out=np.zeros_like(sd_m), where=sd_m > 0)
    b = np.sqrt(np.maximum(np.asarray(state.p_dd, dtype=float) - a**2, 0.0))
    z = rng.standard_normal((2, *sd_m.shape))
    return state.m + sd_m * z[0], state.d + a * z[0] + b * z[1]


def simulate_states(m: np.ndarray, d: np.ndarray, target: np.ndarray, params: StateParams,
                    rng: np.random.Generator, noise: bool = True) -> np.ndarray:
    """Log-ratios over the quarters of ``target`` (..., H, V) from states ``m``, ``d``
    (..., V), with the deviation's shocks (``noise``) on. Parameters broadcast against
    (..., V). Random numbers: the shocks (..., H, V) in one call."""
    horizon = target.shape[-2]
    shocks = rng.standard_normal(target.shape)
    out = np.empty(target.shape)
    lam, rho = np.asarray(params.speed), np.asarray(params.persistence)
    sd = np.asarray(params.deviation_sd) * (1.0 if noise else 0.0)
    for h in range(horizon):
        d = rho * d + sd * shocks[..., h, :]
        m = m + lam * (target[..., h, :] - m) + d
        out[..., h, :] = m
    return out
