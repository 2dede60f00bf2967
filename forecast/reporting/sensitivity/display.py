"""Sensitivity results as the command line prints them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from forecast.core.presentation import format_number
from forecast.reporting.console.table import table_text


def display_tornado(table: pd.DataFrame, scenario: Any) -> pd.DataFrame:
    """Tornado table for people: input values as the scenario shows them, outputs rounded."""
    def show(name: str, value: float) -> str:
        return scenario.inputs[name].format_value(value)

    frame = pd.DataFrame({
        "rank": table["rank"],
        "input": table["input"],
        "low (P10)": [show(n, v) for n, v in zip(table["input"], table["low_value"],
                                                 strict=True)],
        "high (P90)": [show(n, v) for n, v in zip(table["input"], table["high_value"],
                                                  strict=True)],
        "unit": [scenario.inputs[n].unit for n in table["input"]],
        "output_at_low": table["output_at_low"].map(_show),
        "output_at_high": table["output_at_high"].map(_show),
        "swing": [_show_swing(v, b) for v, b in zip(table["swing"], table["baseline"],
                                                      strict=True)],
    })
    return frame


def _show(value: float) -> str:
    # 4 significant digits whatever the output's unit; a missing value as Python prints it.
    return format_number(value, missing="nan")


def _show_swing(swing: float, baseline: float) -> str:
    # Differences at rounding level (1e-9 of the output) are floating-point noise: show 0.
    if np.isfinite(swing) and abs(swing) <= 1e-9 * max(1.0, abs(baseline)):
        return "0"
    return _show(swing)


def sensitivity_text(result: Any) -> str:
    """What ``cli.py sensitivity`` prints: provenance, the tornado and the global ranking.

    Parameters
    ----------
    result
        A :class:`~forecast.reporting.sensitivity.simulation.SensitivityResult`.

    Returns
    -------
    str
        The text.
    """
    spec, table, ranking = result.output, result.tornado, result.ranking
    return "\n".join([
        f"scenario {result.scenario.name}, fit {result.fit_id}, output {spec.label} "
        f"[{spec.unit}], {result.draws} paths per run, seed {result.seed}",
        "tornado: each input from its P10 to its P90, the others at their medians "
        f"(all at medians: {_show(table['baseline'].iloc[0])})",
        table_text(display_tornado(table, result.scenario)),
        "",
        f"global ranking over {result.draws} Monte Carlo paths (all inputs varying; "
        f"R^2 of SRC {ranking.attrs['r2_src']:.2f}, of SRRC {ranking.attrs['r2_srrc']:.2f})",
        table_text(ranking.round(3)),
    ])


def timing_text(result: Any) -> str:
    """The line on how many simulation runs a sensitivity analysis took, and how long."""
    return f"{result.runs} simulation runs in {result.seconds:.1f} s"
