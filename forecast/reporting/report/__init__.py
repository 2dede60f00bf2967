"""A self-contained report of one scenario: HTML (images inline) and the same as Markdown.

:func:`build_report` runs the scenario and the scenarios it is compared with through
:func:`forecast.pipeline.runner.run_scenario` (so its numbers are the Python API's), adds
one-at-a-time and Monte Carlo sensitivity (:mod:`forecast.reporting.sensitivity`) and lays out:

- provenance: scenario, fit, data, draws, seed;
- headline calendar-year quantiles, fan charts with history, stacked vendor shares;
- theses with probabilities and Monte Carlo errors, and across scenarios;
- the scenarios compared (medians in the horizon year, thesis probabilities);
- sensitivity of AWS revenue (or another output): tornado, spider, global ranking, the
  inputs behind the bear tail;
- what would I have to believe: for each thesis, the inputs where it holds, the share of its
  variance they explain and the smallest shift of the scenario that makes it likely
  (:mod:`~forecast.reporting.report.believe_section`);
- every assumption of the scenario with its unit, rationale and what it cites; the
  correlations, prior overrides and thesis definitions;
- convergence diagnostics of every model (r_hat, ESS, divergences);
- the data tables behind the fit;
- optionally (``build_report(..., sweep=...)``), a scenario sweep: a thesis probability over
  a grid of held inputs (:mod:`~forecast.reporting.report.sweep_section`).
- optionally (``build_report(..., backtests=...)``, ``cli.py report --backtest FILE``),
  rolling-origin backtests: pooled scores, coverage by horizon and PIT histograms of every
  model (:mod:`~forecast.reporting.report.backtest_section`).

Modules: :mod:`~forecast.reporting.report.blocks` (the blocks and their HTML and Markdown),
:mod:`~forecast.reporting.report.sections` and
:mod:`~forecast.reporting.report.sensitivity_section`,
:mod:`~forecast.reporting.report.sweep_section`,
:mod:`~forecast.reporting.report.backtest_section` (what each section shows),
:mod:`~forecast.reporting.report.build` (running the forecasts, assembling, writing).
"""

from forecast.reporting.report.blocks import (
    Block,
    Cell,
    Heading,
    Image,
    Paragraph,
    Report,
    ReportBuilder,
    Table,
)
from forecast.reporting.report.build import COMPARE, SPIDER_INPUTS, build_report, write_report

__all__ = [
    "COMPARE",
    "SPIDER_INPUTS",
    "Block",
    "Cell",
    "Heading",
    "Image",
    "Paragraph",
    "Report",
    "ReportBuilder",
    "Table",
    "build_report",
    "write_report",
]
