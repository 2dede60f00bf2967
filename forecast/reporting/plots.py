"""Matplotlib charts of forecasts and backtests; every function returns ``(fig, ax)``
(:func:`pit_histograms`, one panel per model, ``(fig, axes)``).

Uses the non-interactive Agg backend so charts render on servers and in CI.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from forecast.core.errors import ForecastError  # noqa: E402
from forecast.core.presentation import unit_of  # noqa: E402
from forecast.pipeline.results import Forecast  # noqa: E402


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
        keys = [str(k) for k in values[extra[0]].values]
        if key not in keys:
            raise ForecastError(f"{metric} needs a {extra[0]} (one of {', '.join(keys)}), "
                                f"got {key!r}")
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
    ax.set_ylabel(unit_of(metric))
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


def png_bytes(fig: Any) -> bytes:
    """The figure as PNG bytes (as :func:`save` writes it); the figure is released."""
    buffer = io.BytesIO()
    save(fig, buffer)
    return buffer.getvalue()


#: Colours of the vendors in share charts (others cycle through matplotlib's defaults).
VENDOR_COLOURS = {"nvidia": "tab:green", "amd": "tab:red", "google": "tab:blue",
                  "aws": "tab:orange", "other": "tab:gray"}


def stacked_shares(forecast: Forecast, metric: str = "share",
                   history: pd.DataFrame | None = None) -> tuple[Any, Any]:
    """Vendor shares stacked to 1, with the 10-90% band of every boundary between vendors.

    Each boundary is a cumulative share (NVIDIA, then NVIDIA + AMD, ...) per draw; the
    coloured areas lie between the median boundaries and the grey bands are their 10-90%
    ranges (quantiles of cumulative shares stay ordered, so the areas never cross).

    Parameters
    ----------
    forecast
        The forecast; ``metric`` must have a ``vendor`` dimension.
    history
        Optional in-sample shares, tidy with ``quarter``, ``key`` (vendor) and ``value``
        (e.g. ``forecast.history`` rows of the metric), drawn stacked and paler before the
        forecast.
    """
    values = forecast.paths(metric)
    if "vendor" not in values.dims:
        raise ForecastError(f"{metric} has no vendor dimension")
    vendors = [str(v) for v in values["vendor"].values]
    labels = [str(q) for q in values["quarter"].values]
    x = _quarter_positions(labels)
    cumulative = np.cumsum(values.transpose("draw", "quarter", "vendor").values, axis=2)
    bands = np.nanquantile(cumulative, [0.1, 0.5, 0.9], axis=0)  # (3, quarter, vendor)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours = [VENDOR_COLOURS.get(v, cycle[i % len(cycle)]) for i, v in enumerate(vendors)]
    if history is not None and not history.empty:
        table = history.pivot_table(index="quarter", columns="key", values="value")
        table = table.reindex(columns=[v for v in vendors if v in table.columns]).dropna()
        if not table.empty:
            table = table.div(table.sum(axis=1), axis=0).cumsum(axis=1)
            hx = _quarter_positions([str(q) for q in table.index])
            below = np.zeros(len(table))
            for vendor in table.columns:
                colour = colours[vendors.index(vendor)]
                ax.fill_between(hx, below, table[vendor].to_numpy(), color=colour, alpha=0.35,
                                linewidth=0)
                below = table[vendor].to_numpy()
            ax.axvline(x[0] - 0.125, color="black", linewidth=0.8, linestyle=":")
    below = np.zeros(len(labels))
    for k, vendor in enumerate(vendors):
        top = bands[1, :, k] if k < len(vendors) - 1 else np.ones(len(labels))
        ax.fill_between(x, below, top, color=colours[k], alpha=0.75, linewidth=0,
                        label=vendor)
        if k < len(vendors) - 1:
            ax.fill_between(x, bands[0, :, k], bands[2, :, k], color="black", alpha=0.18,
                            linewidth=0, label="10-90% of boundary" if k == 0 else None)
        below = top
    ax.set_ylim(0, 1)
    ax.set_title(f"{metric} by vendor, stacked ({forecast.scenario})")
    ax.set_ylabel(unit_of(metric))
    ax.set_xlabel("calendar year")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig, ax


def tornado_chart(table: pd.DataFrame, output_label: str, unit: str = "",
                  labels: Mapping[str, str] | None = None,
                  max_inputs: int = 15) -> tuple[Any, Any]:
    """Horizontal bars from the baseline to the output with each input at its low and high.

    Parameters
    ----------
    table
        Tornado data (:func:`forecast.reporting.sensitivity.tornado_table`): ``input, output_at_low,
        output_at_high, baseline, rank``.
    output_label, unit
        What the output is, for the title and axis.
    labels
        Optional text per input for the axis (e.g. with its P10 and P90).
    max_inputs
        Show the largest swings only.
    """
    if table.empty:
        raise ForecastError("empty tornado table")
    rows = table.sort_values("rank").head(max_inputs).iloc[::-1]
    baseline = float(rows["baseline"].iloc[0])
    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.38 * len(rows)))
    ax.barh(y, rows["output_at_low"] - baseline, left=baseline, color="tab:blue",
            label="input at low percentile")
    ax.barh(y, rows["output_at_high"] - baseline, left=baseline, color="tab:orange",
            alpha=0.85, label="input at high percentile")
    ax.axvline(baseline, color="black", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels([(labels or {}).get(name, name) for name in rows["input"]],
                       fontsize="small")
    ax.set_xlabel(f"{output_label} ({unit})" if unit else output_label)
    ax.set_title(f"tornado: {output_label}\none input at a time, the others at their medians",
                 fontsize="medium")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig, ax


def spider_chart(table: pd.DataFrame, output_label: str, unit: str = "",
                 inputs: Sequence[str] | None = None) -> tuple[Any, Any]:
    """The output against each input's percentile (others at their medians), one line each.

    ``table`` is spider data (:func:`forecast.reporting.sensitivity.spider_table`): ``input,
    percentile, output``; ``inputs`` limits and orders the lines.
    """
    names = list(inputs) if inputs is not None else list(dict.fromkeys(table["input"]))
    if not names:
        raise ForecastError("no inputs to draw")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name in names:
        rows = table[table["input"] == name].sort_values("percentile")
        if rows.empty:
            raise ForecastError(f"no spider data for input {name!r}")
        ax.plot(rows["percentile"], rows["output"], marker="o", markersize=3, label=name)
    ax.set_xlabel("input percentile")
    ax.set_ylabel(f"{output_label} ({unit})" if unit else output_label)
    ax.set_title(f"spider: {output_label}")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig, ax


def thesis_chart(table: pd.DataFrame) -> tuple[Any, Any]:
    """Thesis probabilities by scenario as grouped bars with +-2 Monte Carlo standard errors.

    ``table`` is tidy: ``scenario, name, probability, mcse`` (e.g. ``Forecast.theses()``
    of several forecasts with a ``scenario`` column).
    """
    if table.empty:
        raise ForecastError("no thesis probabilities to draw")
    theses = list(dict.fromkeys(table["name"]))
    scenarios = list(dict.fromkeys(table["scenario"]))
    height = 0.8 / len(scenarios)
    colours = {"bull": "tab:green", "base": "tab:blue", "bear": "tab:red"}
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, ax = plt.subplots(figsize=(8, 1.0 + 0.3 * len(theses) * len(scenarios)))
    y = np.arange(len(theses))
    for j, scenario in enumerate(scenarios):
        rows = table[table["scenario"] == scenario].set_index("name").reindex(theses)
        ax.barh(y + j * height - 0.4 + height / 2,
                rows["probability"], height=height, xerr=2 * rows["mcse"],
                color=colours.get(scenario, cycle[j % len(cycle)]), label=scenario,
                error_kw={"elinewidth": 0.8, "capsize": 2})
    ax.set_yticks(y)
    ax.set_yticklabels(theses, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("probability (bars: +-2 Monte Carlo standard errors)")
    ax.set_title("thesis probabilities by scenario")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig, ax


def pit_histograms(report: Mapping[str, Any], title: str | None = None) -> tuple[Any, list[Any]]:
    """The PIT histogram of every model of a backtest, one panel per model.

    A flat histogram is the sign of calibrated forecasts; a U shape of intervals too narrow,
    a hump of intervals too wide, a slope of a biased forecast.

    Parameters
    ----------
    report
        The harness's summary of a backtest (:func:`forecast.evaluation.harness.
        summarize_scores`, what ``cli.py backtest TARGET --format json`` prints): each of its
        ``models`` has a ``model`` name and a ``pit_histogram``, the counts of its PIT values
        in equal bins of [0, 1].
    title
        Title of the figure (none by default).

    Returns
    -------
    (fig, list of Axes)
        The figure and its panels, one per model in the report's order: bars of the counts,
        a dashed line at the count of every bin if the PIT values were uniform (n / bins),
        the model and n (the PIT values counted) in the panel's title.
    """
    models = list(report.get("models") or [])
    if not models:
        raise ForecastError("no models in the backtest report")
    columns = min(3, len(models))
    rows = math.ceil(len(models) / columns)
    fig, grid = plt.subplots(rows, columns, figsize=(0.6 + 3.2 * columns, 0.6 + 2.6 * rows),
                             squeeze=False)
    axes = list(grid.ravel())
    for ax in axes[len(models):]:
        fig.delaxes(ax)  # one axis per model
    for ax, model in zip(axes, models, strict=False):
        counts = np.asarray(model["pit_histogram"], dtype=float)
        if counts.ndim != 1 or counts.size == 0:
            raise ForecastError(f"{model['model']}: the PIT histogram needs at least one bin")
        n = int(counts.sum())
        ax.bar(np.arange(counts.size) / counts.size, counts, width=1 / counts.size,
               align="edge", color="tab:blue", alpha=0.75, edgecolor="white")
        ax.axhline(n / counts.size, color="black", linestyle="--", linewidth=1,
                   label="uniform")
        ax.set_title(f"{model['model']} (n={n})", fontsize="medium")
        ax.set_xlim(0, 1)
        ax.set_xlabel("PIT")
        ax.grid(alpha=0.3, axis="y")
    for ax in grid[:, 0]:
        ax.set_ylabel("count")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig, axes[:len(models)]
