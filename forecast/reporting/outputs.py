"""Files of a forecast (CSV quantiles, Parquet paths, JSON summary and PNG fan charts) and
of a backtest (the harness's JSON and PNG PIT histograms)."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from forecast.core.errors import ForecastError
from forecast.core.presentation import parse_metric_key
from forecast.pipeline.results import Forecast

#: Fan charts written with a forecast's files (metric keys: a metric, or one of a vendor).
FORECAST_CHARTS = ("tam", "share:nvidia", "share:aws", "aws_spend_at_cost",
                   "aws_rental_revenue", "aws_merchant_value")


def check_out_dir(out: str | Path) -> Path:
    """Create an output directory if needed and prove it writable, before any slow work.

    Parameters
    ----------
    out
        The directory (``--out``).

    Returns
    -------
    Path
        The directory.

    Raises
    ------
    ForecastError
        If it cannot be created or written.
    """
    directory = Path(out)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ForecastError(f"--out {out}: not writable ({exc.strerror})") from None
    return directory


def write_forecast_files(result: Forecast, directory: Path) -> list[Path]:
    """Write a forecast's files into ``directory``, all or nothing.

    ``forecast_<scenario>_quantiles.csv`` (annual quantiles of every metric),
    ``_paths.parquet`` (every path), ``_summary.json`` and a PNG fan chart per
    :data:`FORECAST_CHARTS` (``forecast_<scenario>_share_aws.png``...). The files are made in
    a hidden staging directory and moved in once all exist.

    Parameters
    ----------
    result
        The forecast.
    directory
        An existing, writable directory (:func:`check_out_dir`).

    Returns
    -------
    list of Path
        The files written, sorted by name.

    Raises
    ------
    OSError
        When a file cannot be written (a full disk): none is left, and the error names the
        directory (the command line's exit 6).
    """
    return _write_staged(directory, "forecast", lambda staging: _forecast_files(result, staging))


def backtest_json(report: Mapping[str, Any]) -> str:
    """The text of a backtest's harness JSON, as ``cli.py backtest --format json`` prints it."""
    return json.dumps(report, indent=2)


def write_backtest_files(report: Mapping[str, Any], target: str,
                         directory: Path) -> list[Path]:
    """Write a backtest's files into ``directory``, both or neither.

    ``backtest_<target>.json`` (:func:`backtest_json`, what ``--format json`` prints) and
    ``pit_<target>.png`` (:func:`forecast.reporting.plots.pit_histograms`: one PIT histogram
    per model).

    Parameters
    ----------
    report
        The harness's summary (:func:`forecast.evaluation.harness.summarize_scores`).
    target
        The backtest (``market``, ``price``, ``share``).
    directory
        An existing, writable directory (:func:`check_out_dir`).

    Returns
    -------
    list of Path
        The files written, sorted by name.

    Raises
    ------
    OSError
        When a file cannot be written: none is left, and the error names the directory.
    """

    def write(staging: Path) -> None:
        from forecast.reporting import plots

        (staging / f"backtest_{target}.json").write_text(backtest_json(report) + "\n")
        fig, _ = plots.pit_histograms(report, f"PIT histograms: {target} backtest")
        plots.save(fig, staging / f"pit_{target}.png")

    return _write_staged(directory, "backtest", write)


def _write_staged(directory: Path, what: str, write: Callable[[Path], None]) -> list[Path]:
    """Run ``write`` into a hidden staging directory of ``directory``, then move every file
    it made into ``directory``; an ``OSError`` leaves none and names ``directory``."""
    staging = Path(tempfile.mkdtemp(prefix=f".{what}-", dir=directory))
    try:
        write(staging)
        written = []
        for path in sorted(staging.iterdir()):
            target = directory / path.name
            path.replace(target)
            written.append(target)
        return written
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise OSError(exc.errno, f"{what} files not written ({reason})",
                      str(directory)) from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _forecast_files(result: Forecast, staging: Path) -> None:
    """Write a forecast's files into ``staging``."""
    from forecast.reporting import plots

    stem = f"forecast_{result.scenario}"
    result.to_csv(staging / f"{stem}_quantiles.csv")
    result.to_parquet(staging / f"{stem}_paths.parquet")
    (staging / f"{stem}_summary.json").write_text(
        json.dumps(result.summary(), indent=2, sort_keys=True))
    for chart in map(parse_metric_key, FORECAST_CHARTS):
        history = result.history_for(chart.metric, chart.key)
        fig, _ = plots.fan_chart(result, chart.metric, chart.key, history=history)
        plots.save(fig, staging / f"{stem}_{chart.text.replace(':', '_')}.png")
