"""The one schema of every table of quantiles the package returns.

Columns ``metric, period, key``, then one column per quantile level asked for (``q10``,
``q50``, ``q90`` by default; ``q5`` for 0.05, ``q2.5`` for 0.025), then ``unit``; a table may
add columns of its own after ``unit`` (a series' calendar quarter, whether the data identify
a rate). ``period`` is a calendar year or quarter, a fiscal period, or empty for a quantity
without one (a model parameter); ``key`` is the vendor, chip, generation or parameter index,
or empty.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from forecast.core.errors import ForecastError

KEY_COLUMNS = ("metric", "period", "key")
_LEVEL = re.compile(r"^q\d+(\.\d+)?$")


def quantile_name(level: float) -> str:
    """The column of quantile ``level``: ``q10`` for 0.1, ``q5`` for 0.05, ``q2.5``."""
    percent = level * 100
    return f"q{round(percent):d}" if abs(percent - round(percent)) < 1e-9 else f"q{percent:g}"


def quantile_columns(frame: pd.DataFrame) -> list[str]:
    """The quantile-level columns of ``frame``, in order."""
    return [str(c) for c in frame.columns if _LEVEL.match(str(c))]


def check_schema(frame: pd.DataFrame) -> None:
    """Raise ForecastError unless ``frame`` follows the schema (see the module docstring)."""
    columns = [str(c) for c in frame.columns]
    levels = quantile_columns(frame)
    expected = [*KEY_COLUMNS, *levels, "unit"]
    if not levels or columns[:len(expected)] != expected:
        raise ForecastError(f"not the quantile schema {', '.join(KEY_COLUMNS)}, q.., unit: "
                            f"{', '.join(columns)}")


def level_columns(levels: Sequence[float]) -> list[str]:
    """The columns of ``levels``, refusing a level outside (0, 1)."""
    for level in levels:
        if not 0.0 < float(level) < 1.0:
            raise ForecastError(f"quantile levels must be in (0, 1), got {level}")
    return [quantile_name(float(level)) for level in levels]
