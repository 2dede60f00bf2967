"""The report's optional sweep section: a thesis probability over a grid of held inputs."""

from __future__ import annotations

from typing import Any

from forecast.reporting.report.blocks import ReportBuilder

#: Grid points listed in the section's table (all of them are in the chart and the CSV).
SWEEP_ROWS = 100


def sweep(b: ReportBuilder, result: Any | None, thesis: str | None = None) -> None:
    """Heat map (or line) and table of a thesis probability across a sweep's grid.

    Parameters
    ----------
    b
        The report being built.
    result
        A :class:`~forecast.pipeline.sweep.SweepResult`; None adds nothing.
    thesis
        The thesis shown (default: the first).
    """
    if result is None:
        return
    from forecast.reporting.sweep import check_thesis, point_summary, sweep_chart

    thesis = check_thesis(result, thesis)
    inputs = result.inputs
    b.heading(2, f"Sweep: {thesis} against {', '.join(inputs)}")
    seeds = len(result.seeds)
    b.paragraph(
        f"Each grid point holds {', '.join(inputs)} at one value in every path while the "
        f"other inputs of scenario {result.scenario.name} keep their distributions; "
        f"{result.draws} paths from fit {result.fit_id} per run, {seeds} seed"
        f"{'s' if seeds > 1 else ''} per point (seeds {result.seeds[0]} to "
        f"{result.seeds[-1]}), probabilities averaged over seeds with their Monte Carlo "
        "error." + (f" The chart averages over {', '.join(inputs[2:])}."
                    if len(inputs) > 2 else ""))
    b.image(f"sweep_{thesis}.png", f"Sweep: P({thesis})", sweep_chart(result, thesis))
    summary = point_summary(result, thesis)
    rows = []
    for point, row in summary.head(SWEEP_ROWS).iterrows():
        shown = [result.scenario.inputs[name].format_value(row[name])
                 if isinstance(row[name], float) else str(row[name]) for name in inputs]
        rows.append([*shown, b.number(f"sweep:{point}:{thesis}", row["prob"]),
                     b.number(f"sweep:{point}:{thesis}:mcse", row["mcse"])])
    caption = f"Sweep: P({thesis}) per grid point"
    if len(summary) > SWEEP_ROWS:
        caption += f" (first {SWEEP_ROWS} of {len(summary)} points)"
    b.table([*inputs, f"P({thesis})", "Monte Carlo error"], rows, caption)
