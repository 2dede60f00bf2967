"""Amazon's statements and the chips AWS builds: the inputs of M5 inside the spend model.

Pure pandas and numpy. Every statement is dated on or before the data's as-of date and
becomes an observation of one model quantity, read as the scenario's ``[readings]`` say:

- a run rate ("several billion", 2025-10-30) is a reading of 4 x the quarter's Trainium
  rental revenue: measured at the geometric middle of the reading's interval, the interval
  being its 90% band;
- Project Rainier's ~500,000 Trainium2 chips (2025-10-29) are a lower bound on the Trainium2
  fleet at the quarter completed by then (Rainier is part of the fleet), at the stated
  number's lower factor;
- "fully subscribed" is a lower bound on billed utilisation;
- a Trainium1 list price is an upper bound on the effective Trainium1 price per chip-hour.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import period_index, quarter_index, quarter_label
from forecast.core.errors import FitError, ForecastError
from forecast.core.scenario_contract import NUMBER_READING

#: Ramp width in quarters of the fleet's generation mix.
MIX_WIDTH = 1.0
#: The generation whose price per chip-hour is the model's ``effective_price``.
REFERENCE_GENERATION = "Trainium2"
#: How a phrase (USD billions a year) and a stated number are read when no scenario says:
#: the package's defaults (the scenarios' ``[readings]`` repeat them with a rationale).
RUN_RATE_READINGS: dict[str, tuple[float, float]] = {"several billion": (2.0, 9.0)}
NUMBER_FACTORS: tuple[float, float] = (0.8, 1.2)
#: "Fully subscribed" (Q3 2025 call): every chip committed, but never every hour billed
#: (burn-in, changes of tenant, failover): 0.85 and up.
UTILISATION_READINGS: dict[str, tuple[float, float]] = {"fully subscribed": (0.85, 1.0)}
#: Columns of the ``aws_statements`` frame.
STATEMENT_COLUMNS = ["observes", "kind", "quarter", "lower", "upper", "label"]


def readings_of(scenario: Any = None) -> dict[str, tuple[float, float]]:
    """How a scenario reads Amazon's statements: phrase -> (lower, upper) in USD bn a year,
    and ``stated_number`` -> (lower, upper) factors. None: the documented defaults.

    Raises
    ------
    ForecastError
        If the scenario has readings but none of a stated number.
    """
    readings = getattr(scenario, "readings", None)
    if readings is None:
        return {**RUN_RATE_READINGS, NUMBER_READING: NUMBER_FACTORS}
    if NUMBER_READING not in readings:
        raise ForecastError(f"scenario {getattr(scenario, 'name', '?')!r} has no "
                            f"[readings.{NUMBER_READING}]: a stated run rate cannot be read")
    return {name: (float(reading.lower), float(reading.upper))
            for name, reading in readings.items()}


def completed_quarter(date: pd.Timestamp) -> str:
    """The last calendar quarter completed on ``date`` (a late-October call speaks of Q3)."""
    stated = pd.Timestamp(date)
    period = stated.to_period("Q")
    if stated.normalize() < period.end_time.normalize():
        period -= 1
    return quarter_label(period)


def generations_frame(accelerators: pd.DataFrame, ramps: pd.DataFrame) -> pd.DataFrame:
    """AWS's generations: generation, ramp_midpoint (a quarter index: the quarter by which
    half of AWS's accelerator spend goes to it, the ramps' own), fp8_dense_tflops.

    Trainium1 (GA 2022-10) stands for the NeuronCore-v2 generation (Inferentia2 has its
    compute); its midpoint is not used (the first generation takes all spend until the next
    ramps up).
    """
    chips = accelerators.set_index("chip")
    mine = ramps[ramps["rival"] == "aws"]
    missing = [name for name in mine["generation"] if name not in chips.index]
    if missing:
        raise FitError(f"spend model: no catalogue row for {', '.join(missing)}")
    return pd.DataFrame({
        "generation": list(mine["generation"]),
        "ramp_midpoint": mine["midpoint"].to_numpy(float),
        "fp8_dense_tflops": [float(chips.loc[name, "fp8_dense_tflops"])
                             for name in mine["generation"]],
    })


def statement_rows(statements: pd.DataFrame, readings: Mapping[str, tuple[float, float]],
                   utilisation: Mapping[str, tuple[float, float]] = UTILISATION_READINGS
                   ) -> pd.DataFrame:
    """One row per usable statement (:data:`STATEMENT_COLUMNS`); a phrase without a
    reading is skipped (the fit must not invent one)."""
    low_factor, high_factor = readings.get(NUMBER_READING, NUMBER_FACTORS)
    rows = []
    for row in statements.itertuples(index=False):
        phrase = str(row.value_qualifier).strip()
        value = float(row.value)
        label = f"{row.metric} ({pd.Timestamp(row.date).date()})"
        quarter = completed_quarter(row.date)
        if row.observes == "rental_run_rate":
            if phrase in readings and phrase != NUMBER_READING:
                low, high = readings[phrase]
            elif np.isfinite(value):
                low, high = low_factor * value / 1e9, high_factor * value / 1e9
            else:
                continue
            rows.append(("rental_run_rate", "interval", quarter, low, high, label))
        elif row.observes == "trainium2_fleet" and np.isfinite(value):
            rows.append(("trainium2_fleet", "lower", quarter, low_factor * value, np.inf,
                         label))
        elif row.observes == "billed_utilisation" and phrase in utilisation:
            low, high = utilisation[phrase]
            rows.append(("billed_utilisation", "lower", quarter, low, high, label))
        elif row.observes == "trainium1_list_price" and np.isfinite(value):
            per_chip = value / float(row.chips_per_instance)
            rows.append(("trainium1_price", "upper", quarter_label(period_index(row.date)),
                         0.0, per_chip, label))
    return pd.DataFrame(rows, columns=STATEMENT_COLUMNS)


def aws_frames(dataset: Any, window: Sequence[str], ramps: pd.DataFrame,
               readings: Mapping[str, tuple[float, float]] | None = None
               ) -> dict[str, pd.DataFrame]:
    """``aws_generations`` and ``aws_statements`` (inside ``window``; a price bound dated
    before it moves to its first quarter)."""
    statements = statement_rows(dataset.aws_statements,
                                readings or {**RUN_RATE_READINGS, NUMBER_READING: NUMBER_FACTORS})
    first = quarter_index(window[0])
    statements["quarter"] = [quarter_label(max(quarter_index(q), first))
                             for q in statements["quarter"]]
    statements = statements[statements["quarter"].isin(window)].reset_index(drop=True)
    return {"aws_generations": generations_frame(dataset.accelerators, ramps),
            "aws_statements": statements}


def generation_keys(generations: pd.DataFrame) -> list[str]:
    """Prior names' suffixes of the generations: ``Trainium2`` -> ``trainium2``."""
    return [str(name).lower().replace(" ", "_") for name in generations["generation"]]


def compute_ratio(generations: pd.DataFrame) -> np.ndarray:
    """Each generation's dense FP8 compute over the reference generation's."""
    pflops = generations["fp8_dense_tflops"].to_numpy(float) / 1000.0
    ref = list(generations["generation"]).index(REFERENCE_GENERATION)
    return pflops / pflops[ref]


def graviton_run_rate_paths(level: np.ndarray, growth: np.ndarray, years: np.ndarray
                            ) -> np.ndarray:
    """Graviton's run-rate paths (draw, quarter), USD bn a year: ``level x exp(growth x
    years)``: the part of Amazon's "custom chips" run rate that is not Trainium.

    Amazon quotes that run rate with Graviton CPUs in it; the model's rental revenue is
    Trainium's alone. No Graviton revenue figure was published by 2025-10-31 in the sources
    found: the level (at the data end) and its yearly log growth are scenario inputs
    (``graviton_run_rate_usd_billions``, ``graviton_growth_per_year``), one per draw;
    ``years`` after the data end, one per quarter.
    """
    return np.asarray(level, float)[:, None] * np.exp(
        np.asarray(growth, float)[:, None] * np.asarray(years, float)[None, :])
