"""Charts on synthetic paths: every function returns (fig, ax) and renders a non-empty PNG."""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.pipeline.results import Forecast
from forecast.reporting import plots
from forecast.reporting.sensitivity.measures import spider, tornado

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def result() -> Forecast:
    rng = np.random.default_rng(0)
    n, quarters = 300, [f"{y}Q{q}" for y in (2026, 2027) for q in range(1, 5)]
    share = rng.dirichlet([20, 2, 3, 1], size=(n, len(quarters)))
    data = xr.Dataset(
        {"tam": (("draw", "quarter"), rng.lognormal(4, 0.3, size=(n, len(quarters)))),
         "share": (("draw", "quarter", "vendor"), share)},
        coords={"draw": np.arange(n), "quarter": quarters,
                "vendor": ["nvidia", "amd", "google", "aws"]})
    history = pd.DataFrame({
        "metric": ["tam"] * 2 + ["share"] * 8,
        "key": ["", ""] + ["nvidia", "amd", "google", "aws"] * 2,
        "quarter": ["2025Q3", "2025Q4"] + ["2025Q3"] * 4 + ["2025Q4"] * 4,
        "value": [50.0, 55.0, 0.8, 0.05, 0.1, 0.05, 0.78, 0.06, 0.1, 0.06]})
    return Forecast(data=data, scenario="synthetic", fit_id="none", seed=0, history=history)


def rendered(figure) -> np.ndarray:
    fig, ax = figure
    assert ax.figure is fig
    data = plots.png_bytes(fig)
    assert data.startswith(PNG) and len(data) > 5000
    pixels = plt.imread(io.BytesIO(data))
    assert pixels.std() > 0.01  # not a blank canvas
    return pixels


def test_fan_chart_of_any_metric_with_history(result):
    rendered(plots.fan_chart(result, "tam", history=result.history_for("tam")))
    rendered(plots.fan_chart(result, "share", "aws"))
    with pytest.raises(ForecastError):
        plots.fan_chart(result, "share")


def test_stacked_shares_with_bands_and_history(result):
    fig, ax = plots.stacked_shares(result, history=result.history[
        result.history["metric"] == "share"])
    assert ax.get_ylim() == (0.0, 1.0)
    labels = ax.get_legend_handles_labels()[1]
    assert labels[:2] == ["nvidia", "10-90% of boundary"] and "aws" in labels
    rendered((fig, ax))
    with pytest.raises(ForecastError):
        plots.stacked_shares(result, "tam")


def test_tornado_and_spider_charts():
    ppfs = {"a": lambda u: u, "b": lambda u: 2 * u, "c": lambda u: 0.1 * u}
    table = tornado(lambda p: 3 * p["a"] + p["b"] - p["c"], ppfs)
    fig, ax = plots.tornado_chart(table, "y", "units", labels={"a": "a (0.1 to 0.9)"})
    # Largest swing on top.
    assert [t.get_text() for t in ax.get_yticklabels()][-1] == "a (0.1 to 0.9)"
    rendered((fig, ax))
    rendered(plots.spider_chart(spider(lambda p: p["a"] ** 2 + p["b"], ppfs), "y", "units",
                                inputs=["a", "b"]))
    with pytest.raises(ForecastError):
        plots.tornado_chart(table.iloc[:0], "y")


def test_thesis_chart_across_scenarios():
    table = pd.DataFrame({"scenario": ["bull", "base", "bear"] * 2,
                          "name": ["t1"] * 3 + ["t2"] * 3,
                          "probability": [0.8, 0.5, 0.2, 0.3, 0.1, 0.0],
                          "mcse": [0.01] * 6})
    fig, ax = plots.thesis_chart(table)
    assert ax.get_xlim() == (0.0, 1.0)
    assert ax.get_legend_handles_labels()[1] == ["bull", "base", "bear"]
    rendered((fig, ax))


def test_pit_histograms_one_panel_per_model_with_the_counts():
    report = {"models": [
        {"model": "bayes", "pit_histogram": [1, 2, 3, 4, 5, 5, 4, 3, 2, 1]},
        {"model": "rw_drift", "pit_histogram": [9, 0, 0, 1, 0, 0, 1, 0, 0, 9]},
        {"model": "ets", "pit_histogram": [2] * 10},
        {"model": "uc", "pit_histogram": [0, 0, 0, 0, 10, 10, 0, 0, 0, 0]}]}
    fig, axes = plots.pit_histograms(report, "PIT histograms: demo")
    assert len(axes) == 4 and fig.axes == axes  # the grid's spare panels are removed
    for ax, model in zip(axes, report["models"], strict=True):
        counts = model["pit_histogram"]
        bars = ax.patches
        assert [bar.get_height() for bar in bars] == counts
        assert [round(bar.get_x(), 9) for bar in bars] == [k / 10 for k in range(10)]
        assert all(np.isclose(bar.get_width(), 0.1) for bar in bars)
        n = sum(counts)
        assert ax.get_title() == f"{model['model']} (n={n})"
        (uniform,) = ax.get_lines()
        assert uniform.get_linestyle() == "--"
        assert list(uniform.get_ydata()) == [n / 10, n / 10]
    assert fig._suptitle.get_text() == "PIT histograms: demo"
    data = plots.png_bytes(fig)
    assert data.startswith(PNG) and plt.imread(io.BytesIO(data)).std() > 0.01
    single, (ax,) = plots.pit_histograms({"models": report["models"][:1]})
    assert single.axes == [ax]
    plt.close(single)
    with pytest.raises(ForecastError, match="no models"):
        plots.pit_histograms({"models": []})
