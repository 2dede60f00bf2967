"""The report's sensitivity section: tornado, spider, global ranking and the bear tail."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from forecast.core.presentation import format_number
from forecast.pipeline.results import Forecast
from forecast.reporting.report.blocks import ReportBuilder

if TYPE_CHECKING:  # imported when run: SciPy is loaded only for a report
    from forecast.reporting.sensitivity import OutputSpec, SimulationSensitivity


def sensitivity(b: ReportBuilder, result: Forecast, scenario: Any, dataset: Any, bundle: Any,
                output: str, draws: int, spider_inputs: int,
                progress: Callable[[str], None] | None) -> None:
    """The sensitivity of one output: one at a time, then over the forecast's own draws.

    Parameters
    ----------
    b
        The report being built.
    result, scenario, dataset, bundle
        The forecast and the scenario, data and fit it was made from.
    output
        The output, as typed for :func:`~forecast.reporting.sensitivity.parse_output`.
    draws
        Paths per one-at-a-time run.
    spider_inputs
        How many of the largest tornado swings the spider chart shows.
    progress
        Called with a line every 10 simulation runs.
    """
    from forecast.reporting.sensitivity import (
        SimulationSensitivity,
        forecast_inputs,
        output_draws,
        parse_output,
    )

    spec = parse_output(output)
    runner = SimulationSensitivity(bundle, dataset, scenario, [spec], draws=draws,
                                   seed=result.seed, horizon=result.meta.get("horizon"),
                                   progress=progress)
    _one_at_a_time(b, runner, spec, spider_inputs)
    inputs = forecast_inputs(scenario, result)
    values = output_draws(result, spec)
    _ranking(b, result, spec, inputs, values)
    _bear_tail(b, scenario, spec, inputs, values)


def _one_at_a_time(b: ReportBuilder, runner: SimulationSensitivity, spec: OutputSpec,
                   spider_inputs: int) -> None:
    """Tornado chart and table, and the spider chart of the largest swings."""
    from forecast.reporting import plots
    from forecast.reporting.sensitivity import SPIDER_PERCENTILES

    scenario = runner.scenario
    tornado = runner.tornado(spec)
    unit = spec.unit
    b.heading(2, f"Sensitivity: {spec.label}")
    b.paragraph(
        f"One at a time: each input of scenario {scenario.name} moves from its P10 to its P90 "
        f"while every other input stays at its median; the output is the {spec.label} over "
        f"{runner.draws} paths of the models' posterior (seed {runner.seed}, the same in every "
        f"run, so the differences are the inputs' effect, not Monte Carlo noise). Inputs used "
        "only as priors when fitting (the TAM ceiling) cannot move the forecast of a stored "
        "fit and show no swing. Correlations between inputs are ignored here; the global "
        "ranking below includes them.")

    def label(name: str, low: float, high: float) -> str:
        spec_in = scenario.inputs[name]
        return f"{name} ({spec_in.format_value(low)} to {spec_in.format_value(high)})"

    labels = {row.input: label(row.input, row.low_value, row.high_value)
              for row in tornado.itertuples(index=False)}
    b.image("tornado.png", f"Tornado: {spec.label}",
            plots.tornado_chart(tornado, spec.label, unit, labels=labels))
    rows = []
    for row in tornado.itertuples(index=False):
        spec_in = scenario.inputs[row.input]
        rows.append([str(row.rank), row.input, spec_in.format_value(row.low_value),
                     spec_in.format_value(row.high_value), spec_in.unit or "",
                     b.number(f"tornado:{row.input}:output_at_low", row.output_at_low, unit),
                     b.number(f"tornado:{row.input}:output_at_high", row.output_at_high,
                              unit),
                     b.number(f"tornado:{row.input}:swing", row.swing, unit)])
    baseline = float(tornado["baseline"].iloc[0])
    b.table(["rank", "input", "P10", "P90", "unit", "output at P10", "output at P90",
             "swing"], rows,
            f"Tornado: {spec.label}; every input at its median gives "
            f"{format_number(baseline, unit)} {unit}")
    b.numbers["tornado:baseline"] = baseline
    top = [name for name, swing in zip(tornado["input"], tornado["swing"], strict=True)
           if swing > 0][:spider_inputs]
    if top:
        spider = runner.spider(spec, SPIDER_PERCENTILES, inputs=top)
        b.image("spider.png", f"Spider: {spec.label} against the percentile of the "
                f"{len(top)} inputs with the largest swings",
                plots.spider_chart(spider, spec.label, unit, inputs=top))


def _ranking(b: ReportBuilder, result: Forecast, spec: OutputSpec, inputs: pd.DataFrame,
             values: np.ndarray) -> None:
    """Spearman, SRC and SRRC of every input over the forecast's draws."""
    from forecast.reporting.sensitivity import global_ranking

    ranking = global_ranking(inputs, values)
    b.heading(3, "Global ranking over the Monte Carlo draws")
    b.paragraph(
        f"All inputs vary together (with the scenario's rank correlations) over the "
        f"{result.draws} paths of the forecast above. Spearman: rank correlation of the input "
        "with the output. SRC / SRRC: standardised regression coefficients of the output on "
        "all inputs at once, on values / on ranks; the regressions explain "
        f"R\u00b2 = {ranking.attrs['r2_src']:.2f} / {ranking.attrs['r2_srrc']:.2f} of the "
        "output's variance, the rest being the models' posterior uncertainty, interactions "
        "and non-linearity." + (" For a thesis, the per-path value is the thesis metric "
                                "over its period." if spec.kind == "thesis" else ""))
    b.numbers["ranking:r2_src"] = float(ranking.attrs["r2_src"])
    b.numbers["ranking:r2_srrc"] = float(ranking.attrs["r2_srrc"])
    rows = [[str(row.rank), row.input,
             b.number(f"ranking:{row.input}:spearman", row.spearman),
             b.number(f"ranking:{row.input}:src", row.src),
             b.number(f"ranking:{row.input}:srrc", row.srrc)]
            for row in ranking.itertuples(index=False)]
    b.table(["rank", "input", "Spearman", "SRC", "SRRC"], rows,
            f"Global ranking: {spec.text}")


def _bear_tail(b: ReportBuilder, scenario: Any, spec: OutputSpec, inputs: pd.DataFrame,
               values: np.ndarray) -> None:
    """How each input sits in the paths whose output is in its bottom 10%."""
    from forecast.reporting.sensitivity import tail_attribution

    unit = spec.unit
    tails = tail_attribution(inputs, values, "bottom", 0.1)
    b.heading(3, "What produces the bear tail")
    b.paragraph(
        f"The {tails.attrs['n_tail']} paths whose {spec.text} is in its bottom 10% (at or "
        f"below {format_number(tails.attrs['threshold'], unit)} {unit}): each input's median "
        "and 10-90% range there against its median over all paths. Mean percentile: where "
        "the tail's values sit, on average, within the input's own distribution (50 = no "
        "tilt). KS: Kolmogorov-Smirnov distance between the tail and all paths.")
    rows = []
    for row in tails.itertuples(index=False):
        spec_in = scenario.inputs[row.input]
        rows.append([str(row.rank), row.input, spec_in.unit or "",
                     spec_in.format_value(row.overall_median),
                     spec_in.format_value(row.tail_median),
                     f"{spec_in.format_value(row.tail_q10)} to "
                     f"{spec_in.format_value(row.tail_q90)}",
                     b.number(f"tail:{row.input}:mean_percentile", row.mean_percentile),
                     b.number(f"tail:{row.input}:ks", row.ks)])
    b.table(["rank", "input", "unit", "median (all)", "median (tail)", "10-90% (tail)",
             "mean percentile", "KS"], rows, f"Bottom 10% of {spec.text}")
