"""Graviton: the part of Amazon's "custom chips" run rate that is not Trainium (numpy only).

Amazon quotes the run rate of its custom-silicon business with Graviton CPUs in it; the model's
rental revenue is Trainium's alone. :func:`custom_chips_run_rate` adds a Graviton run rate
so the package can state the quantity Amazon reports. No Graviton revenue figure was
published by 2025-10-31 in the sources found; :data:`GRAVITON_INPUT` is the scenario input
this module expects, with its evidence.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The scenario input the lead adds (``graviton_run_rate_usd_billions``, a lognormal) and its
#: growth, with the evidence behind them. Figures are USD billions a year at 2025Q3.
GRAVITON_INPUT: dict[str, Any] = {
    "name": "graviton_run_rate_usd_billions",
    "unit": "USD billions per year (annualised rental revenue of Graviton-based instances, "
            "2025Q3)",
    "distribution": {"dist": "lognormal", "p10": 5.0, "p50": 10.0, "p90": 20.0},
    "growth": {"name": "graviton_growth_per_year", "dist": "normal", "mu": 0.20,
               "sigma": 0.10, "unit": "log USD per year"},
    "rationale": (
        "No Graviton revenue was disclosed by 2025-10-31. At re:Invent 2024 (Dec 2024) AWS "
        "said there was as much Graviton running in its fleet as all AWS compute in 2019, when "
        "AWS was a USD 35 bn business, and that more than half of the CPU capacity added that "
        "year was Graviton. Assumption (AWS does not split its revenue): compute instances "
        "were a third to a half of AWS's 2019 revenue, so the same capacity at 2019 prices "
        "would rent for USD 12-17 bn a year; prices per unit of compute have fallen since and "
        "Graviton sells at 'up to 40% better price-performance' than x86 (AWS's claim since "
        "Graviton2), so the centre is lower, 10, and the 80% range 5-20 is wide. Growth: "
        "Graviton took over half of new CPU capacity while AWS grew 17-20% a year in "
        "2024-2025, so 20% a year in log terms, sd 10%."),
    "sources": [
        "https://www.mbi-deepdives.com/aws-graviton (quotes the re:Invent 2024 keynote; the "
        "page is from Dec 2025, the quoted claim from Dec 2024; the shared data's "
        "aws_statements row cites it the same way)",
        "https://www.vantage.sh/blog/aws-ec2-processors-intel-vs-amd-vs-graviton-adoption "
        "('up to 40% better price performance', AWS's claim for Graviton instances)",
        "data/vendor_quarterly_revenue.csv: AWS segment revenue growth 17-20% y/y, 2024-2025",
    ],
    "not_used": "Amazon's 2026 statements of a USD 20 bn+ custom-silicon run rate "
                "(Graviton, Trainium, Nitro) are after the 2025-10-31 cut-off.",
}


def graviton_run_rate_paths(level: np.ndarray, growth: np.ndarray, years: np.ndarray
                            ) -> np.ndarray:
    """Graviton run-rate paths (draw, quarter), USD bn a year: ``level x exp(growth x years)``.

    Parameters
    ----------
    level
        Draws (draw,) of the run rate at the data end (:data:`GRAVITON_INPUT`).
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
