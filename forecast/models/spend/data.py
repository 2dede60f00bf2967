"""The vendor-spend model's inputs from a dataset and a scenario.

Pure pandas and numpy. The inputs are a dict of frames; :func:`prepare_spend_data` builds it
from the data, :func:`~forecast.models.spend.simulate.simulate_spend` from the model's own
math. The reported series, guides and the AMD and NVIDIA-share statements are read as the
market evidence always was (:mod:`forecast.models.spend.evidence`); this module adds the
cost history that drives the relative positions, the generations that ramp, Amazon's
statements and the chips AWS builds (M5), and NVIDIA's visibility of its bookings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import quarter_index, quarter_label
from forecast.core.errors import FitError
from forecast.models.spend.evidence import observation_frames
from forecast.models.spend.math import COST_VENDOR, RIVALS, VENDORS
from forecast.models.spend.statements import aws_frames

#: The first quarter of the rivals' relative positions (and of AWS's fleet): Trainium1's
#: general availability (2022-10). Rivals are reported from 2023Q1 (AMD's Data Center and
#: Broadcom's AI revenue); every vendor has a costed chip from here on.
FIRST_POSITION_QUARTER = "2022Q4"
#: Generations that ramp: rival, catalogue chip (its ``release_date`` is the sourced launch),
#: or a roadmap generation with its expected launch quarter as announced by 2025-10-31.
RAMPS: tuple[tuple[str, str, str | None], ...] = (
    ("amd", "Instinct MI300X", None),
    ("amd", "Instinct MI355X", None),
    # Ironwood: announced 2025-04-09 for "later in 2025".
    ("custom", "TPU v7 (Ironwood)", "2025Q4"),
    ("aws", "Trainium1", None),
    ("aws", "Trainium2", None),
    # Trainium3: announced 2024-12-03 for "late 2025".
    ("aws", "Trainium3", "2025Q4"),
)
#: Generations whose lift is a term of its own in the rivals' positions: those that ramp
#: inside the reported quarters and stepped their vendor up (MI300X, Trainium2), and those
#: after the data. Earlier TPU generations grew Broadcom's revenue smoothly (the deviations
#: follow them), and Trainium1 and the rest group's chips have no quarterly series to place
#: a lift, so they lift nothing of their own (Trainium1 is M5's first generation).
LIFTED: frozenset[str] = frozenset({"Instinct MI300X", "Instinct MI355X", "TPU v7 (Ironwood)",
                                    "Trainium2", "Trainium3"})
#: Quarters from a generation's launch to the midpoint of its ramp (half of its eventual
#: installed base in service): volume shipments follow general availability.
RAMP_LAG = 2.0
#: Ramp width in quarters (10% to 90% of a generation's installed base in about 4.4 w).
RAMP_WIDTH = 1.0
#: Columns of the ``ramps`` frame.
RAMP_COLUMNS = ["rival", "generation", "launch", "midpoint", "ahead", "lifted"]


def ramp_frame(accelerators: pd.DataFrame, data_end: str,
               ramps: Sequence[tuple[str, str, str | None]] = RAMPS) -> pd.DataFrame:
    """The generations that ramp: rival, generation, launch quarter, ramp midpoint (a
    quarter index), whether the ramp is after the data (``ahead``: its lift is prior-only in
    the fit) and whether it lifts its vendor's position (:data:`LIFTED`; every AWS
    generation is one of M5's fleet either way)."""
    chips = accelerators.set_index("chip")
    rows = []
    for rival, chip, expected in ramps:
        if expected is None:
            if chip not in chips.index:
                raise FitError(f"spend model: no catalogue row for ramp {chip!r}")
            launch = quarter_label(pd.Period(pd.Timestamp(chips.loc[chip, "release_date"]),
                                             freq="Q"))
        else:
            launch = expected
        midpoint = quarter_index(launch) + RAMP_LAG
        rows.append({"rival": rival, "generation": chip, "launch": launch,
                     "midpoint": float(midpoint),
                     "ahead": bool(midpoint > quarter_index(data_end)),
                     "lifted": chip in LIFTED})
    return pd.DataFrame(rows, columns=RAMP_COLUMNS)


def position_window(timeline: Sequence[str]) -> list[str]:
    """The quarters of the rivals' positions: :data:`FIRST_POSITION_QUARTER` to the end."""
    first = quarter_index(FIRST_POSITION_QUARTER)
    return [q for q in timeline if quarter_index(q) >= first]


def cost_frame(log_cost: pd.DataFrame, window: Sequence[str]) -> pd.DataFrame:
    """Log cost gap of each rival to NVIDIA over ``window``: quarter, rival columns.

    ``log_cost`` has index quarter labels and a column per vendor group (the five).
    """
    missing = [q for q in window if q not in log_cost.index]
    absent = [v for v in VENDORS if v not in log_cost.columns]
    if missing or absent:
        raise FitError(f"spend model: the cost table lacks quarters {missing} or vendor "
                       f"groups {absent}")
    table = log_cost.loc[list(window)]
    if not np.all(np.isfinite(table["nvidia"].to_numpy(float))):
        raise FitError("spend model: NVIDIA has no costed chip in a quarter of the fit window")
    gaps = {rival: table[COST_VENDOR[rival]] - table["nvidia"] for rival in RIVALS}
    # A group with no chip priced by the data's date (early backtest cut-offs: the first
    # Gaudi unit price is of 2024-12-31) has no known cost edge: its gap is zero there, and
    # its position rests on its ecosystem term.
    frame = pd.DataFrame(gaps).astype(float).fillna(0.0)
    return frame.rename_axis("quarter").reset_index()


def prepare_spend_data(dataset: Any, costs: pd.DataFrame,
                       readings: Mapping[str, tuple[float, float]] | None = None
                       ) -> dict[str, pd.DataFrame]:
    """The frames the model fits.

    Parameters
    ----------
    dataset
        A :class:`~forecast.data.dataset.Dataset` (cut with ``as_of`` for a backtest).
    costs
        Cost per effective PFLOP-hour (USD) by quarter (index) and vendor group (columns),
        e.g. :func:`~forecast.economics.chip_costs.historical_costs` on the scenario's
        basis, covering the position window.
    readings
        How Amazon's statements are read (phrase -> (lower, upper) and
        ``stated_number`` -> factors), None for the documented defaults.

    Returns
    -------
    dict of pandas.DataFrame
        ``observations``, ``guidance``, ``censored`` (see
        :func:`~forecast.models.spend.evidence.observation_frames`), ``costs`` (quarter and
        the rivals' log cost gaps over the position window), ``ramps``
        (:func:`ramp_frame`), ``aws_generations`` and ``aws_statements``
        (:func:`~forecast.models.spend.statements.aws_frames`).
    """
    frames = observation_frames(dataset)
    window = position_window(model_quarters(frames))
    frames["costs"] = cost_frame(np.log(costs.astype(float)), window)
    frames["ramps"] = ramp_frame(dataset.accelerators, spend_timeline(frames)[-1])
    frames.update(aws_frames(dataset, window, frames["ramps"], readings))
    return frames


def spend_timeline(data: Mapping[str, pd.DataFrame]) -> list[str]:
    """Calendar quarters of the NVIDIA Data Center series (the common level's data; it must
    be gap-free)."""
    obs = data["observations"]
    quarters = sorted(pd.Period(q, freq="Q")
                      for q in obs.loc[obs["series"] == "nvidia_data_center", "quarter"])
    if not quarters:
        raise FitError("spend model: no NVIDIA Data Center revenue (the common level's data)")
    span = pd.period_range(quarters[0], quarters[-1], freq="Q")
    if len(span) != len(set(quarters)):
        missing = sorted(set(span) - set(quarters))
        raise FitError("spend model: NVIDIA Data Center revenue has gaps at "
                       + ", ".join(quarter_label(q) for q in missing))
    return [quarter_label(q) for q in span]


def lift_layout(ramps: pd.DataFrame) -> dict[str, Any]:
    """Where the lifted ramps' heights sit: ``in_data`` and ``ahead`` (generation names, the
    ``ramp_lift`` and ``ramp_lift_ahead`` vectors), ``owner`` (each height's rival index)
    and ``midpoint`` (its ramp midpoint), heights ordered in-data first."""
    lifted = ramps[ramps["lifted"].astype(bool)]
    ahead = lifted["ahead"].to_numpy(bool)
    ordered = pd.concat([lifted[~ahead], lifted[ahead]])
    return {"in_data": list(lifted.loc[~ahead, "generation"]),
            "ahead": list(lifted.loc[ahead, "generation"]),
            "owner": np.array([RIVALS.index(r) for r in ordered["rival"]], dtype=int),
            "midpoint": ordered["midpoint"].to_numpy(float)}


def model_quarters(data: Mapping[str, pd.DataFrame]) -> list[str]:
    """The quarters of the model: NVIDIA's reported ones, then the quarter after them when
    NVIDIA guided it (its level latent, the guide its observation): the last quarter
    Amazon's statements and Broadcom's guide may describe."""
    from forecast.models.spend.likelihood import nowcast_quarter

    timeline = spend_timeline(data)
    ahead = nowcast_quarter(data.get("guidance"), timeline)
    return timeline + ([ahead] if ahead else [])
