"""Matplotlib charts of forecasts; every function returns ``(fig, ax)``.

Uses the non-interactive Agg backend so charts render on servers and in CI.
"""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from forecast.results import UNITS, Forecast  # noqa: E402


def _quarter_positions(labels: list[str]) -> np.ndarray:
    return np.array([int(label[:4]) + (int(label[-1]) - 0.5) / 4 for label in labels])


def fan_chart(forecast: Forecast, metric: str, key: str | None = None,
              history: pd.DataFrame | None = None) -> tuple[Any, Any]:
    """10-90% and 25-75% bands and the median of a quarterly metric, with history if given.

    ``key`` selects a vendor or chip for metrics that have one; ``history`` is a frame with
    ``quarter`` and ``value`` columns drawn as a line.
    """
    values = forecast.paths(metric)
    extra = [d for d in values.dims if d not in ("draw", "quarter")]
    if extra:
        values = values.sel({extra[0]: key})
    labels = [str(q) for q in values["quarter"].values]
    x = _quarter_positions(labels)
    q = np.nanquantile(values.values, [0.1, 0.25, 0.5, 0.75, 0.9], axis=0)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.fill_between(x, q[0], q[4], alpha=0.25, color="tab:blue", label="10-90%")
    ax.fill_between(x, q[1], q[3], alpha=0.35, color="tab:blue", label="25-75%")
    ax.plot(x, q[2], color="tab:blue", label="median")
    if history is not None and not history.empty:
        ax.plot(_quarter_positions([str(v) for v in history["quarter"]]), history["value"],
                color="black", marker=".", label="history")
    title = metric if key is None else f"{metric}: {key}"
    ax.set_title(f"{title} ({forecast.scenario})")
    ax.set_ylabel(UNITS.get(metric, ""))
    ax.set_xlabel("calendar year")
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig, ax


def save(fig: Any, path: Any) -> None:
    """Write a figure as PNG and release it."""
    # No software/date metadata: the same forecast gives byte-identical files.
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
