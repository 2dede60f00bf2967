"""Share data simulated from the model's own math, for parameter-recovery checks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from forecast.economics.cost_paths import COST_BASIS, ShareData
from forecast.models.share.math import partial_adjustment, softmax, target_shares


def simulate_share_data(
    quarters: Sequence[str],
    vendors: Sequence[str],
    log_cost: np.ndarray,
    price_coefficient: float,
    ecosystem: Sequence[float],
    adjustment_speed: float,
    initial_logit: Sequence[float],
    noise_sigma: float,
    measurement_sd: float,
    seed: int = 0,
) -> ShareData:
    """Share data simulated from the model's own math (every vendor observed every quarter).

    The observed log-ratios are the model's latent log-ratios plus Normal noise with sd
    ``sqrt(measurement_sd**2 + noise_sigma**2)``; the stored covariance is
    ``measurement_sd**2 I`` (the derivation part the model is told about).
    """
    rng = np.random.default_rng(seed)
    k = len(vendors)
    targets = target_shares(np.asarray(ecosystem, float), np.asarray(price_coefficient),
                            np.asarray(log_cost, float))
    start = softmax(np.concatenate([[0.0], np.asarray(initial_logit, float)]))
    rest = partial_adjustment(start, targets[1:], np.asarray(adjustment_speed))
    shares = np.vstack([start[None, :], rest])
    alr = np.log(shares[:, 1:]) - np.log(shares[:, :1])
    sd = np.hypot(measurement_sd, noise_sigma)
    observed_alr = alr + sd * rng.standard_normal(alr.shape)
    t = len(quarters)
    cov = np.broadcast_to(measurement_sd**2 * np.eye(k - 1), (t, k - 1, k - 1)).copy()
    return ShareData(tuple(quarters), tuple(vendors), observed_alr, cov,
                     np.ones((t, k), dtype=bool), np.asarray(log_cost, float), COST_BASIS)
