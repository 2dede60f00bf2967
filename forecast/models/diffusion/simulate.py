"""Unit series simulated from the diffusion models' own math (for recovery tests)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.models.diffusion.data import check_kind
from forecast.models.diffusion.math import bass_adoptions, gbass_adoptions, norton_bass_adoptions


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
    """Units simulated from the model's own math with lognormal noise.

    Returns a Series indexed 1..n_periods (bass, gbass) or a DataFrame with one column per
    generation (``gen1``, ``gen2``, ...; NaN before a generation's launch) for norton-bass.
    """
    check_kind(kind)
    rng = np.random.default_rng(seed)
    index = pd.Index(np.arange(1, n_periods + 1), name="period")
    if kind == "norton-bass":
        taus = list(launch_periods or [0])
        mean = norton_bass_adoptions(n_periods, taus, p, q, m)
        values = mean * np.exp(sigma * rng.standard_normal(mean.shape))
        launched = np.arange(1, n_periods + 1)[:, None] > np.asarray(taus)[None, :]
        columns = [f"gen{g + 1}" for g in range(len(taus))]
        return pd.DataFrame(np.where(launched, values, np.nan), index=index, columns=columns)
    if kind == "gbass":
        mean = gbass_adoptions(covariate, p, q, m, beta)
    else:
        mean = bass_adoptions(n_periods, p, q, m)
    return pd.Series(mean * np.exp(sigma * rng.standard_normal(n_periods)), index=index,
                     name="units")
