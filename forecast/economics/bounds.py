"""M6: what can be funded, powered and built bounds accelerator spend (pure numpy).

Each bound is a path of USD billions of accelerator spend per year, one per scenario draw,
from the scenario's inputs (each sourced in its rationale, data/ rows dated by 2025-10-31):

- **funding**: the large buyers' operating cash flow growing at its rate, plus new debt as a
  share of it, scaled up from the big five's part of accelerator demand to all buyers, times
  the share that goes to AI data centers and the accelerators' share of that capex;
- **power**: AI data-center capacity energised per year (GW, growing) times the accelerator
  dollars per GW;
- **supply**: advanced-packaging (CoWoS-class) wafers per year times accelerators per wafer
  times their average selling price.

The spend model's common level fades against the tightest of them
(:func:`forecast.models.spend.simulation.bounded_level`): a soft upper constraint on the
TAM's path, not a clip of it. The model card is docs/models/bounds.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import numpy as np

#: The scenario inputs of each bound, in the order its formula reads them.
BOUND_INPUTS: Final[dict[str, tuple[str, ...]]] = {
    "funding": ("big_five_cash_flow_usd_billions", "cash_flow_growth_per_year",
                "debt_share_of_cash_flow", "big_five_share_of_demand",
                "ai_share_of_funding", "accelerator_share_of_capex"),
    "power": ("ai_gw_added_per_year", "ai_gw_growth_per_year",
              "accelerator_usd_billions_per_gw"),
    "supply": ("cowos_wafers_per_month", "cowos_growth_per_year", "accelerators_per_wafer",
               "accelerator_asp_usd"),
}
#: The year each bound's level input describes (its growth runs from the middle of it).
BASE_YEAR: Final[dict[str, float]] = {"funding": 2025.0, "power": 2025.0, "supply": 2026.0}
#: Unit of every bound path.
BOUND_UNIT: Final = "USD billions of accelerator spend per year"


def bound_paths(inputs: Mapping[str, np.ndarray], years: np.ndarray) -> dict[str, np.ndarray]:
    """Each bound's path (draw, quarter), USD bn of accelerator spend a year.

    Parameters
    ----------
    inputs
        One array (draw,) per input of :data:`BOUND_INPUTS`.
    years
        Calendar time of each quarter's middle as a year with fraction (2026.125 for 2026Q1).
    """
    y = np.asarray(years, dtype=float)[None, :]

    def grown(level: str, rate: str, bound: str) -> np.ndarray:
        base = np.asarray(inputs[level], dtype=float)[:, None]
        growth = np.asarray(inputs[rate], dtype=float)[:, None]
        return base * np.exp(growth * (y - (BASE_YEAR[bound] + 0.5)))

    def column(name: str) -> np.ndarray:
        return np.asarray(inputs[name], dtype=float)[:, None]

    funding = (grown("big_five_cash_flow_usd_billions", "cash_flow_growth_per_year", "funding")
               * (1.0 + column("debt_share_of_cash_flow"))
               / column("big_five_share_of_demand") * column("ai_share_of_funding")
               * column("accelerator_share_of_capex"))
    power = (grown("ai_gw_added_per_year", "ai_gw_growth_per_year", "power")
             * column("accelerator_usd_billions_per_gw"))
    wafers = 12.0 * grown("cowos_wafers_per_month", "cowos_growth_per_year", "supply")
    supply = wafers * column("accelerators_per_wafer") * column("accelerator_asp_usd") / 1e9
    return {"funding": funding, "power": power, "supply": supply}


def tightest(bounds: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The tightest bound of each (draw, quarter) and which one it is (an index into the
    mapping's order)."""
    stacked = np.stack(list(bounds.values()))
    which = np.argmin(stacked, axis=0)
    return np.take_along_axis(stacked, which[None], axis=0)[0], which


def tightest_bound(inputs: Mapping[str, np.ndarray], quarters: list[str]) -> np.ndarray:
    """The tightest bound (draw, quarter) of the ``quarters`` from a scenario's input draws
    (a mapping or frame holding every input of :data:`BOUND_INPUTS`)."""
    columns = {name: np.asarray(inputs[name], dtype=float)
               for names in BOUND_INPUTS.values() for name in names}
    return tightest(bound_paths(columns, quarter_years(quarters)))[0]


def quarter_years(quarters: list[str]) -> np.ndarray:
    """The middle of each calendar quarter as a year with fraction (``2026Q1`` -> 2026.125)."""
    return np.array([int(q[:4]) + (int(q[-1]) - 0.5) / 4.0 for q in quarters])
