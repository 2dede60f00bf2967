"""Unit series arranged for the diffusion models (pure pandas and numpy).

A series is indexed by its own periods (quarters, years, plain integers): positions count
periods from the first observed one, and forecasts are labelled by continuing that index.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError

KINDS = ("bass", "gbass", "norton-bass")

#: Fewest observations a fit accepts (three parameters plus the noise scale need a margin).
MIN_OBSERVATIONS = 6

QUARTER_PATTERN = re.compile(r"^(\d{4})-?Q([1-4])$")


def check_kind(kind: str) -> str:
    """``kind`` when it is one of :data:`KINDS`, else a ForecastError."""
    if kind not in KINDS:
        raise ForecastError(f"diffusion model kind must be one of {', '.join(KINDS)}, "
                            f"got {kind!r}")
    return kind


# --------------------------------------------------------------------------- periods


def period_positions(index: pd.Index) -> tuple[np.ndarray, str, str | None]:
    """1-based positions of an index's periods from its first, plus its kind and frequency.

    Accepts a PeriodIndex (any frequency), a DatetimeIndex (taken as quarters), integers, or
    strings such as ``2024Q1`` / ``2024-Q1``. Gaps are allowed: positions skip them.
    """
    if isinstance(index, pd.DatetimeIndex):
        index = index.to_period("Q")
    if isinstance(index, pd.PeriodIndex):
        ordinals = np.asarray(index.asi8, dtype=np.int64)
        return ordinals - ordinals.min() + 1, "period", index.freqstr
    if pd.api.types.is_integer_dtype(index.dtype):
        values = np.asarray(index, dtype=np.int64)
        return values - values.min() + 1, "integer", None
    labels = [str(label).strip() for label in index]
    if labels and all(QUARTER_PATTERN.match(label) for label in labels):
        periods = pd.PeriodIndex([label.replace("-", "") for label in labels], freq="Q")
        return period_positions(periods)
    raise ForecastError("diffusion series index must hold periods (pandas Periods, dates, "
                        "integers or quarter labels like 2024Q1)")


def period_labels(kind: str, freq: str | None, first: str, positions: np.ndarray) -> list[str]:
    """Labels of 1-based ``positions`` counted from the ``first`` period's label."""
    if kind == "period":
        start = pd.Period(first, freq=freq)
        return [str(start + int(k) - 1) for k in positions]
    return [str(int(first) + int(k) - 1) for k in positions]


# --------------------------------------------------------------------------- prepared data


@dataclass(frozen=True)
class DiffusionData:
    """Observations arranged for the model.

    ``observations`` is long: position (1-based period from the first observed period),
    period label, generation, value, and ``scaled`` (value / the generation's total).
    """

    kind: str
    observations: pd.DataFrame
    generations: tuple[str, ...]
    n_span: int
    launch_offset: int
    launch_periods: tuple[int, ...]
    totals: tuple[float, ...]
    log_change: np.ndarray | None
    covariate_last: float | None
    index_kind: str
    freq: str | None
    first_label: str


def prepare_diffusion_data(
    series: pd.Series | pd.DataFrame,
    kind: str = "bass",
    covariate: pd.Series | Sequence[float] | np.ndarray | None = None,
    launch_offset: int = 0,
) -> DiffusionData:
    """Validate a unit series (or one column per generation) and arrange it for the model.

    Missing values (NaN) are gaps; for Norton-Bass a generation launches at the start of its
    first observed period. ``launch_offset`` is the number of whole periods between
    (generation 1's) launch and the first period of the series.
    """
    check_kind(kind)
    launch_offset = _whole_periods(launch_offset)
    frame = _as_frame(series, kind)
    positions, index_kind, freq = period_positions(frame.index)
    values = _positive_values(frame)
    generations = tuple(str(c) for c in frame.columns)
    observations, launches, totals = _long_observations(values, positions, generations,
                                                        launch_offset)
    if kind == "norton-bass" and launches != sorted(launches):
        raise ForecastError("norton-bass: generations must be ordered by launch (columns in "
                            "order of their first observed period)")
    first_label = str(frame.index[0])
    observations.insert(1, "period", period_labels(index_kind, freq, first_label,
                                                   observations["position"].to_numpy()))
    n_span = int(positions.max())
    log_change, covariate_last = None, None
    if kind == "gbass":
        log_change, covariate_last = covariate_log_change(covariate, frame.index, positions,
                                                          n_span, launch_offset)
    elif covariate is not None:
        raise ForecastError(f"a covariate is only used by kind='gbass', not {kind!r}")
    return DiffusionData(kind=kind, observations=observations, generations=generations,
                         n_span=n_span, launch_offset=launch_offset,
                         launch_periods=tuple(launches), totals=tuple(totals),
                         log_change=log_change, covariate_last=covariate_last,
                         index_kind=index_kind, freq=freq, first_label=first_label)


def _whole_periods(launch_offset: Any) -> int:
    if isinstance(launch_offset, bool) or int(launch_offset) != launch_offset \
            or launch_offset < 0:
        raise ForecastError(f"launch_offset must be a whole number of periods >= 0, "
                            f"got {launch_offset!r}")
    return int(launch_offset)


def _as_frame(series: Any, kind: str) -> pd.DataFrame:
    """The series as a frame sorted by period: one column, or one per generation."""
    if isinstance(series, pd.Series):
        frame = series.to_frame(name=str(series.name) if series.name is not None else "units")
    elif isinstance(series, pd.DataFrame):
        frame = series
    else:
        raise ForecastError("diffusion series must be a pandas Series or DataFrame, got "
                            f"{type(series).__name__}")
    if kind != "norton-bass" and frame.shape[1] != 1:
        raise ForecastError(f"{kind} model fits one series; got {frame.shape[1]} columns "
                            "(use kind='norton-bass' for one column per generation)")
    if frame.shape[1] == 0 or len(frame) == 0:
        raise ForecastError("diffusion series is empty")
    if frame.index.has_duplicates:
        duplicate = frame.index[frame.index.duplicated()][0]
        raise ForecastError(f"diffusion series: duplicate period {duplicate}")
    return frame.sort_index()


def _positive_values(frame: pd.DataFrame) -> np.ndarray:
    """The frame's values as floats; NaN marks a gap, any other value must be positive."""
    try:
        values = frame.to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise ForecastError("diffusion series values must be numbers") from None
    bad = np.isfinite(values) & (values <= 0)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ForecastError(f"diffusion series: period {frame.index[row]}, column "
                            f"{frame.columns[col]}: units must be > 0, got {values[row, col]:g}"
                            " (use NaN for a missing period)")
    return values


def _long_observations(values: np.ndarray, positions: np.ndarray,
                       generations: tuple[str, ...], launch_offset: int
                       ) -> tuple[pd.DataFrame, list[int], list[float]]:
    """Observed rows (position, generation, value, scaled), launch period and total of each
    generation."""
    rows, launches, totals = [], [], []
    for g, name in enumerate(generations):
        observed = np.isfinite(values[:, g])
        if not observed.any():
            raise ForecastError(f"diffusion series: generation {name} has no observations")
        first = int(positions[observed].min())
        launches.append(0 if g == 0 else launch_offset + first - 1)
        total = float(values[observed, g].sum())
        totals.append(total)
        for k, value in zip(positions[observed], values[observed, g], strict=True):
            rows.append({"position": int(k), "generation": name, "value": float(value),
                         "scaled": float(value) / total})
    if len(rows) < MIN_OBSERVATIONS:
        raise ForecastError(f"diffusion series has {len(rows)} observations, need at least "
                            f"{MIN_OBSERVATIONS}")
    return pd.DataFrame(rows), launches, totals


def covariate_log_change(covariate: Any, index: pd.Index, positions: np.ndarray, n_span: int,
                         launch_offset: int) -> tuple[np.ndarray, float]:
    """Per-period log change of the covariate over launch_offset + n_span periods, last level.

    Periods before the series starts have no covariate: their change is 0 (x = 1), as is the
    first observed period's.
    """
    if covariate is None:
        raise ForecastError("kind='gbass' needs a covariate (e.g. price-performance per period)")
    if isinstance(covariate, pd.Series):
        if covariate.index.has_duplicates:
            raise ForecastError("covariate: duplicate periods")
        aligned = covariate.reindex(index)
        if aligned.isna().any():
            missing = aligned.index[aligned.isna()][0]
            raise ForecastError(f"covariate has no value for period {missing}")
        levels = np.full(n_span, np.nan)
        levels[positions - 1] = aligned.to_numpy(dtype=float)
        if np.isnan(levels).any():
            raise ForecastError("covariate must cover every period from the first to the last "
                                "observation (gaps in the series leave it undefined)")
    else:
        levels = np.asarray(covariate, dtype=float)
        if levels.shape != (n_span,):
            raise ForecastError(f"covariate has {levels.size} values, the series spans "
                                f"{n_span} periods")
    if np.any(~(levels > 0)) or not np.all(np.isfinite(levels)):
        raise ForecastError("covariate values must be positive and finite (its log is taken)")
    change = np.diff(np.log(levels), prepend=np.log(levels[0]))
    return np.concatenate([np.zeros(launch_offset), change]), float(levels[-1])
