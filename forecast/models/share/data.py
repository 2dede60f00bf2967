"""Share data arranged for the model (pure numpy): vendor roles, observation layout, covariate.

The inputs themselves are :class:`~forecast.economics.cost_paths.ShareData`, prepared by
:func:`forecast.economics.cost_paths.share_inputs` (they depend on the scenario's cost basis).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from forecast.core.errors import ForecastError
from forecast.economics.cost_paths import ShareData

#: The log-ratio reference: the first vendor of the data, observed in every quarter.
NVIDIA = "nvidia"
#: The vendor whose ecosystem term is fixed at 0 (see the package docstring).
DEFAULT_REFERENCE = "google"


def vendor_roles(vendors: Sequence[str], reference_vendor: str) -> list[str]:
    """The vendors with a free ``ecosystem_other`` term (all but NVIDIA and the reference).

    Raises
    ------
    ForecastError
        If NVIDIA is not the first vendor or the reference is missing or is NVIDIA.
    """
    vendors = list(vendors)
    if vendors[0] != NVIDIA or reference_vendor not in vendors or reference_vendor == NVIDIA:
        raise ForecastError(f"vendors must start with {NVIDIA!r} and include the reference "
                            f"vendor {reference_vendor!r} (not NVIDIA); got {vendors}")
    return [v for v in vendors if v not in (NVIDIA, reference_vendor)]


def start_vendors(data: ShareData) -> list[str]:
    """Rivals of NVIDIA observed in the first fitted quarter (they get a free start)."""
    seen = [v for k, v in enumerate(data.vendors[1:], start=1) if data.observed[0, k]]
    if not seen:
        raise ForecastError("no rival of NVIDIA is observed in the first fitted quarter")
    return seen


def observation_layout(data: ShareData) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray, np.ndarray]:
    """Flattened observed log-ratios and the eigen-decomposition of their covariance.

    Returns quarter index, vendor index (1..K-1), values, and ``rotation``, ``eigenvalues``
    with ``cov = rotation @ diag(eigenvalues) @ rotation.T`` (block diagonal by quarter).
    Since ``cov + sigma^2 I = rotation @ diag(eigenvalues + sigma^2) @ rotation.T``, the
    likelihood is a product of independent normals of the rotated residuals: no Cholesky
    factorisation inside the sampler.
    """
    t_idx, v_idx = np.nonzero(data.observed[:, 1:])
    values = data.alr_mean[t_idx, v_idx]
    if not np.all(np.isfinite(values)):
        raise ForecastError("observed log-ratios are not finite")
    n = len(values)
    rotation = np.zeros((n, n))
    eigenvalues = np.zeros(n)
    for t in np.unique(t_idx):
        rows = np.flatnonzero(t_idx == t)
        block = data.alr_cov[t][np.ix_(v_idx[rows], v_idx[rows])]
        if not np.all(np.isfinite(block)):
            raise ForecastError(f"log-ratio covariance of quarter {data.quarters[t]} is not "
                                "finite")
        lam, vec = np.linalg.eigh(block)
        rotation[np.ix_(rows, rows)] = vec
        eigenvalues[rows] = np.maximum(lam, 0.0)
    return t_idx, v_idx + 1, values, rotation, eigenvalues


def centred_log_cost(data: ShareData) -> np.ndarray:
    """The cost covariate less its overall mean: centring changes no share (softmax ignores
    a common shift) but keeps utilities near 0."""
    return data.log_cost - data.log_cost.mean()
