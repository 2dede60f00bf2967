"""Graviton: the part of Amazon's "custom chips" run rate that is not Trainium (numpy only).

Amazon quotes the run rate of its custom-silicon business with Graviton CPUs in it; the model's
rental revenue is Trainium's alone. :func:`custom_chips_run_rate` adds a Graviton run rate
so the package can state the quantity Amazon reports. No Graviton revenue figure was
published by 2025-10-31 in the sources found; the level and its growth are scenario inputs
(``graviton_run_rate_usd_billions``, ``graviton_growth_per_year`` in ``scenarios/base.toml``,
with their evidence).
"""

from __future__ import annotations

import numpy as np


def graviton_run_rate_paths(level: np.ndarray, growth: np.ndarray, years: np.ndarray
                            ) -> np.ndarray:
    """Graviton run-rate paths (draw, quarter), USD bn a year: ``level x exp(growth x years)``.

    Parameters
    ----------
    level
        Draws (draw,) of the run rate at the data end (the scenario's
        ``graviton_run_rate_usd_billions``), USD bn a year.
    growth
        Draws (draw,) of its growth, log USD a year.
    years
        Years after the data end of each quarter (quarter,).
    """
    return np.asarray(level, float)[:, None] * np.exp(
        np.asarray(growth, float)[:, None] * np.asarray(years, float)[None, :])


def custom_chips_run_rate(trainium_run_rate: np.ndarray, graviton_run_rate: np.ndarray
                          ) -> np.ndarray:
    """Amazon's "custom chips" run rate, USD bn a year: Trainium rental plus Graviton.

    Both (draw, quarter), USD bn a year: the model's ``rental_run_rate`` and
    :func:`graviton_run_rate_paths`. Nitro cards are not rented by the hour and are left out.
    """
    trainium = np.asarray(trainium_run_rate, dtype=float)
    graviton = np.asarray(graviton_run_rate, dtype=float)
    if trainium.shape != graviton.shape:
        raise ValueError(f"run-rate paths differ in shape: {trainium.shape} vs "
                         f"{graviton.shape}")
    return trainium + graviton
