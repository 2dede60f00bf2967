"""Build the report of one scenario: its forecast and the scenarios compared, then sections."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from forecast.pipeline.results import Forecast
from forecast.reporting.report import sections
from forecast.reporting.report.backtest_section import backtests as backtest_section
from forecast.reporting.report.blocks import Report, ReportBuilder
from forecast.reporting.report.sensitivity_section import sensitivity
from forecast.reporting.report.sweep_section import sweep as sweep_section

#: Scenarios the report compares by default.
COMPARE = ("bull", "base", "bear")

#: Inputs drawn in the spider chart (the largest tornado swings).
SPIDER_INPUTS = 6


def build_report(
    name: str,
    *,
    draws: int | None = None,
    seed: int | None = None,
    horizon: int | None = None,
    root: str | Path | None = None,
    fit_id: str | None = None,
    data_dir: str | Path | None = None,
    compare: Sequence[str] = COMPARE,
    sensitivity_metric: str | None = None,
    sensitivity_draws: int | None = None,
    spider_inputs: int = SPIDER_INPUTS,
    progress: Callable[[str], None] | None = None,
    sweep: Any | None = None, sweep_thesis: str | None = None,
    backtests: Mapping[str, Mapping[str, Any]] | None = None,
) -> Report:
    """Build the report of one scenario.

    Parameters
    ----------
    name
        Scenario name or file.
    draws, seed, horizon
        Forecast paths, seed and last year for the scenario and the ones compared (defaults:
        each scenario's own).
    root, fit_id, data_dir
        Fit store, a fit id for the main scenario (the compared ones use their latest
        published fit) and data directory, as for :func:`forecast.pipeline.runner.run_scenario`.
    compare
        Scenarios compared with it (the main one is added if missing).
    sensitivity_metric
        Output of the sensitivity section (default ``aws_rental_revenue:<horizon>``).
    sensitivity_draws
        Paths per one-at-a-time run (default the smaller of 2000 and the forecast's draws).
    spider_inputs
        How many of the largest tornado swings the spider chart shows.
    progress
        Called with a line per step.
    sweep, sweep_thesis
        Optional: a sweep (:func:`forecast.pipeline.sweep.run_sweep`) shown after the
        sensitivity section, as a chart and table of ``sweep_thesis`` (default: its first).
    backtests
        Optional: label -> a backtest's JSON report (a section after the fit diagnostics).

    Returns
    -------
    Report
        The blocks, the numbers shown and the seconds each part took.
    """
    say = progress or (lambda message: None)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    result, scenario, dataset, bundle = _forecast(name, draws, seed, horizon, root, fit_id,
                                                  data_dir, progress)
    timings["forecast"] = time.perf_counter() - started
    say(f"forecast {result.scenario}: {timings['forecast']:.1f} s")

    mark = time.perf_counter()
    results = _compared(result, compare, seed, horizon, root, data_dir, progress)
    timings["compare"] = time.perf_counter() - mark
    say(f"compared {', '.join(r.scenario for r in results)}: {timings['compare']:.1f} s")

    b = ReportBuilder()
    sections.provenance(b, result, scenario, bundle)
    sections.headline(b, result)
    mark = time.perf_counter()
    sections.charts(b, result)
    sections.theses(b, result, results)
    timings["charts"] = time.perf_counter() - mark
    sections.comparison(b, results)

    run = (scenario, dataset, bundle, sensitivity_metric, sensitivity_draws, spider_inputs)
    timings["sensitivity"] = _sensitivity(b, result, run, progress)
    say(f"sensitivity: {timings['sensitivity']:.1f} s")
    _believe(b, result, run, progress, timings)  # each thesis: what would I have to believe?
    _last_sections(b, run, sweep, sweep_thesis, backtests)
    timings["total"] = time.perf_counter() - started
    return Report(scenario=result.scenario, blocks=b.blocks, numbers=b.numbers,
                  timings=timings)


def _sensitivity(b: ReportBuilder, result: Forecast, run: tuple[Any, ...],
                 progress: Callable[[str], None] | None) -> float:
    """The sensitivity section; ``run`` is (scenario, dataset, bundle, metric, draws,
    spider inputs) as :func:`build_report` got them. Returns its seconds."""
    from forecast.reporting.sensitivity import DEFAULT_DRAWS

    scenario, dataset, bundle, metric, draws, spider_inputs = run
    mark = time.perf_counter()
    sensitivity(b, result, scenario, dataset, bundle,
                metric or f"aws_rental_revenue:{result.meta['horizon']}",
                draws or min(DEFAULT_DRAWS, result.draws), spider_inputs, progress)
    return time.perf_counter() - mark


def _believe(b: ReportBuilder, result: Forecast, run: tuple[Any, ...],
             progress: Callable[[str], None] | None, timings: dict[str, float]) -> None:
    """The "what would I have to believe?" section, on as many paths as the sensitivity
    section; its seconds go to ``timings["believe"]`` and a progress line."""
    from forecast.reporting.report.believe_section import believe
    from forecast.reporting.sensitivity import DEFAULT_DRAWS

    scenario, dataset, bundle, _, draws, _ = run
    mark = time.perf_counter()
    believe(b, result, scenario, dataset, bundle, draws or min(DEFAULT_DRAWS, result.draws),
            progress)
    timings["believe"] = time.perf_counter() - mark
    if progress is not None:
        progress(f"what would I have to believe: {timings['believe']:.1f} s")


def _last_sections(b: ReportBuilder, run: tuple[Any, ...], sweep: Any | None,
                   sweep_thesis: str | None,
                   backtests: Mapping[str, Mapping[str, Any]] | None) -> None:
    """The sections after "what would I have to believe?": the sweep (none unless one is
    given), every assumption of the scenario, the fit's diagnostics, the backtests (none
    unless given) and the data tables; ``run`` as for :func:`_sensitivity`."""
    scenario, dataset, bundle = run[:3]
    sweep_section(b, sweep, sweep_thesis)
    sections.assumptions(b, scenario)
    sections.diagnostics(b, bundle)
    backtest_section(b, backtests)
    sections.data_tables(b, dataset)


def _forecast(name: str, draws: int | None, seed: int | None, horizon: int | None,
              root: str | Path | None, fit_id: str | None, data_dir: str | Path | None,
              progress: Callable[[str], None] | None) -> tuple[Forecast, Any, Any, Any]:
    """The scenario's forecast, and the scenario, data and fit it was made from."""
    from forecast.pipeline.runner import load_run, run_scenario

    result = run_scenario(name, draws=draws, seed=seed, horizon=horizon, root=root,
                          fit_id=fit_id, data_dir=data_dir, progress=progress)
    scenario, dataset, bundle = load_run(name, root=root, fit_id=result.fit_id,
                                         data_dir=data_dir)
    return result, scenario, dataset, bundle


def _compared(result: Forecast, compare: Sequence[str], seed: int | None,
              horizon: int | None, root: str | Path | None, data_dir: str | Path | None,
              progress: Callable[[str], None] | None) -> list[Forecast]:
    """Forecasts of the scenarios compared, ``result`` among them (first if not listed)."""
    from forecast.pipeline.runner import run_scenario

    names = list(dict.fromkeys([*compare] if result.scenario in compare
                               else [result.scenario, *compare]))
    return [result if other == result.scenario else
            run_scenario(other, draws=result.draws, seed=seed, horizon=horizon, root=root,
                         data_dir=data_dir, progress=progress)
            for other in names]


def write_report(name: str, out_dir: str | Path,
                 backtest_files: Sequence[str | Path] | None = None,
                 **options: Any) -> tuple[Report, list[Path]]:
    """Build the report of a scenario and write it, failing before any slow work on bad input.

    The scenario name is checked first, then the backtest files are read (nothing is created
    for a bad one), then ``out_dir`` is created and proven writable, then the report is built
    and written.

    Parameters
    ----------
    name
        Scenario name or file.
    out_dir
        Directory for ``report_<scenario>.html``, ``.md`` and the Markdown's images.
    backtest_files
        JSON files of backtests (``cli.py backtest TARGET --out DIR`` or ``--format json``)
        for a Backtests section, each labelled by its file name
        (:func:`~forecast.reporting.report.backtest_section.load_backtests`).
    **options
        Keyword arguments of :func:`build_report`.

    Returns
    -------
    (Report, list of Path)
        The report and the files written: the HTML page, the Markdown, then the images.

    Raises
    ------
    ForecastError
        On an unknown scenario, a file that is not a backtest's JSON or a directory that
        cannot be written.
    """
    from forecast.reporting.outputs import check_out_dir
    from forecast.reporting.report.backtest_section import load_backtests
    from forecast.scenarios import load_scenario

    load_scenario(name)
    if backtest_files:
        options["backtests"] = load_backtests(backtest_files)
    directory = check_out_dir(out_dir)
    report = build_report(name, **options)
    return report, report.write(directory)
