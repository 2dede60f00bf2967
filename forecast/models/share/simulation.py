"""Share data simulated from the model's own math, for parameter-recovery checks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from forecast.economics.share_inputs import ShareData
from forecast.models.share.builder import START_SD
from forecast.models.share.statespace import StateParams, target_log_ratios


def simulate_share_data(
    quarters: Sequence[str],
    vendors: Sequence[str],
    log_cost: np.ndarray,
    price_coefficient: float,
    ecosystem: Sequence[float],
    params: StateParams,
    observed: np.ndarray | None = None,
    seed: int = 0,
) -> tuple[ShareData, np.ndarray]:
    """Measured log-ratios simulated from the state space of
    :mod:`forecast.models.share.statespace`.

    The first state is drawn from the filter's initial law (``m`` around the first target
    with sd :data:`~forecast.models.share.builder.START_SD`, ``d`` stationary); then each
    quarter ``d`` takes its AR(1) step and ``m`` moves ``lambda`` of the way to the target
    plus ``d``; the measurement adds ``obs_sd`` noise. Returns the data (every cell
    measured unless ``observed`` (T, K) says otherwise) and the latent log-ratios (T, K-1).
    """
    rng = np.random.default_rng(seed)
    log_cost = np.asarray(log_cost, dtype=float)
    target = target_log_ratios(np.asarray(ecosystem, float), np.asarray(price_coefficient),
                               log_cost)
    t_count, rivals = target.shape
    sd = np.broadcast_to(np.asarray(params.deviation_sd, float), (rivals,))
    obs_sd = np.broadcast_to(np.asarray(params.obs_sd, float), (rivals,))
    rho, lam = float(params.persistence), float(params.speed)
    m = target[0] + START_SD * rng.standard_normal(rivals)
    d = sd / np.sqrt(1.0 - rho**2) * rng.standard_normal(rivals)
    latent = np.empty((t_count, rivals))
    for t in range(t_count):
        d = rho * d + sd * rng.standard_normal(rivals)
        m = m + lam * (target[t] - m) + d
        latent[t] = m
    measured = latent + obs_sd * rng.standard_normal(latent.shape)
    if observed is None:
        observed = np.ones((t_count, rivals + 1), dtype=bool)
    mask = np.asarray(observed, dtype=bool)[:, 1:]
    cov = np.zeros((t_count, rivals, rivals))
    cov[:, np.arange(rivals), np.arange(rivals)] = obs_sd**2
    data = ShareData(tuple(quarters), tuple(vendors), np.where(mask, measured, np.nan),
                     np.where(mask[:, :, None] & mask[:, None, :], cov, np.nan),
                     np.asarray(observed, dtype=bool), log_cost, "simulated")
    return data, latent
