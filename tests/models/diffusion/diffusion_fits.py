"""Hand-made diffusion fits (known posteriors, no sampling) and shared test settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from forecast.models.diffusion import FittedDiffusion

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "diffusion_units.csv"
#: Light sampling for the recovery tests.
SMALL = {"draws": 500, "tune": 800, "chains": 2, "random_seed": 7, "nuts_sampler": "nutpie"}


def handmade_fit(kind: str = "bass", draws: int = 50, spread: float = 0.01,
                 **meta: Any) -> FittedDiffusion:
    """A FittedDiffusion with a known posterior: p near 0.02, q near 0.35 (relative sd
    ``spread``; 0 makes every sample the same), m = 1e6, sigma = 0.1, beta = 1.

    Ten quarterly observations from 2024Q1, two periods after launch; ``meta`` overrides.
    """
    rng = np.random.default_rng(0)
    shape = (2, draws)
    posterior = {
        "p": (("chain", "draw"), 0.02 * np.exp(spread * rng.standard_normal(shape))),
        "q": (("chain", "draw"), 0.35 * np.exp(spread * rng.standard_normal(shape))),
        "sigma": (("chain", "draw"), np.full(shape, 0.1)),
    }
    info = {"kind": kind, "divergences": 0, "fit_seconds": 1.0, "n_observations": 10,
            "n_span": 10, "launch_offset": 2, "index_kind": "period", "freq": "Q-DEC",
            "first_label": "2024Q1", "covariate_last": None}
    data = {"observations": pd.DataFrame({"position": range(1, 11), "value": 1.0})}
    coords: dict[str, Any] = {}
    if kind == "norton-bass":
        posterior["m"] = (("chain", "draw", "generation"), np.full(shape + (2,), 1e6))
        info.update(generations=["a", "b"], launch_periods=[0, 6])
        coords = {"generation": ["a", "b"]}
    else:
        posterior["m"] = (("chain", "draw"), np.full(shape, 1e6))
        info.update(generations=["units"], launch_periods=[0])
    if kind == "gbass":
        posterior["beta"] = (("chain", "draw"), np.full(shape, 1.0))
    info.update(meta)
    summary = pd.DataFrame({"parameter": ["p", "q"], "r_hat": [1.0, 1.001],
                            "ess_bulk": [900.0, 800.0], "ess_tail": [700.0, 600.0]})
    return FittedDiffusion(posterior=xr.Dataset(posterior, coords=coords), data=data,
                           config={"kind": kind}, summary_table=summary, meta=info)
