"""The report's "What would I have to believe?" section, one part per thesis.

For each thesis of the scenario (:func:`forecast.pipeline.believe_run.believe_from_fit`):
whether the scenario inputs or the fitted models' posterior decide it, the inputs where it
holds against all paths (ranked), the smallest shift of the scenario that lifts its
probability above one half, and a chart of both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from forecast.core.errors import ForecastError
from forecast.pipeline.believe import Belief
from forecast.pipeline.results import Forecast
from forecast.reporting.console.believe import decided_text, shift_text
from forecast.reporting.report.blocks import ReportBuilder

#: Inputs listed per thesis (the ones with the largest shifts) and drawn in its chart.
BELIEVE_ROWS = 8


def belief_chart(belief: Belief, inputs: int = BELIEVE_ROWS) -> tuple[Any, Any]:
    """Left: the shift of the top inputs where the thesis holds; right: P(thesis) along
    the re-simulated move, with one half and the move found marked."""
    import matplotlib.pyplot as plt

    from forecast.reporting import plots  # noqa: F401  (selects the Agg backend)

    table = belief.shifts.head(inputs).iloc[::-1]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 1.6 + 0.32 * max(len(table), 3)),
                                      gridspec_kw={"width_ratios": [3, 2]})
    shifts = table["shift"].fillna(0.0).to_numpy()
    left.barh(np.arange(len(table)), shifts,
              color=["tab:blue" if s >= 0 else "tab:red" for s in shifts])
    left.set_yticks(np.arange(len(table)))
    left.set_yticklabels(table["input"], fontsize="small")
    left.axvline(0.0, color="black", linewidth=0.8)
    left.set_xlabel("mean percentile where the thesis holds, minus 50")
    trail = sorted(belief.search.trail)
    right.plot([t for t, _ in trail], [p for _, p in trail], marker="o", color="tab:gray")
    right.axhline(0.5, color="black", linestyle="--", linewidth=0.8)
    if belief.search.reached and belief.search.length:
        right.plot([belief.search.length], [belief.search.probability], marker="*",
                   markersize=14, color="tab:orange", label="smallest shift found")
        right.legend(fontsize="small", loc="lower right")
    right.set_ylim(0, 1)
    right.set_xlabel("shift along the direction (normal-score units)")
    right.set_ylabel(f"P({belief.thesis.name})")
    fig.suptitle(f"What would I have to believe: {belief.thesis.name}", fontsize="medium")
    fig.tight_layout()
    return fig, (left, right)


def believe(b: ReportBuilder, result: Forecast, scenario: Any, dataset: Any, bundle: Any,
            draws: int, progress: Callable[[str], None] | None = None) -> None:
    """The section: every evaluable thesis of the scenario, re-simulated from its fit.

    Parameters
    ----------
    b
        The report being built.
    result, scenario, dataset, bundle
        The forecast and the scenario, data and fit it was made from.
    draws
        Paths per simulation.
    progress
        Called with a line per thesis.
    """
    from forecast.pipeline.believe_run import believe_from_fit

    b.heading(2, "What would I have to believe?")
    b.paragraph(
        f"For each thesis: the scenario inputs in the paths where it holds against all paths "
        f"({draws} paths of scenario {scenario.name}, seed {result.seed}), and the smallest "
        "shift of the scenario that lifts its probability above one half. A shift moves the "
        "inputs that matter most by quantile (every path's input goes from its percentile u "
        "to Phi(Phi^-1(u) + s), which keeps the copula's ranks and the input's range) and is "
        "re-simulated from the same fit and seed, so the change is the inputs' effect, not "
        "Monte Carlo noise. Where the inputs explain under half of the thesis metric's "
        "variance, the fitted models' posterior decides it more than the scenario does: a "
        "shift may still reach one half, but only by moving inputs far. Command: "
        f"python cli.py believe THESIS --scenario {scenario.name} --draws {draws} "
        f"--seed {result.seed}.")
    rows = result.theses().set_index("name") if scenario.theses else None
    for thesis in scenario.theses.values():
        note = rows.loc[thesis.name].get("note") if rows is not None else None
        if isinstance(note, str):
            b.heading(3, thesis.name)
            b.paragraph(f"Not evaluated: {note}.")
            continue
        try:
            belief = believe_from_fit(bundle, dataset, scenario, thesis, draws=draws,
                                      seed=result.seed, horizon=result.meta.get("horizon"))
        except ForecastError as exc:  # e.g. fewer than 3 paths with a value
            b.heading(3, thesis.name)
            b.paragraph(f"Not analysed: {exc}.")
            continue
        if progress is not None:
            progress(f"believe {thesis.name}: {len(belief.search.trail) - 1} re-simulations")
        _thesis(b, belief)


def _thesis(b: ReportBuilder, belief: Belief) -> None:
    """One thesis: its probability, who decides it, the ranked inputs, the shift, a chart."""
    thesis, key = belief.thesis, f"believe:{belief.thesis.name}"
    b.heading(3, thesis.name)
    b.numbers[f"{key}:probability"] = belief.probability
    b.numbers[f"{key}:explained_metric"] = belief.explained_metric
    b.numbers[f"{key}:explained_indicator"] = belief.explained_indicator
    b.paragraph(f"{thesis.statement} P = {belief.probability:.3f} +- {belief.mcse:.3f}; "
                f"{decided_text(belief)}.")
    specs = belief.meta.get("input_specs", {})

    def shown(name: str, value: float) -> str:
        if value is None or not np.isfinite(value):
            return "-"
        return specs[name].format_value(value) if name in specs else f"{value:.4g}"

    rows = []
    for r in belief.shifts.head(BELIEVE_ROWS).itertuples(index=False):
        unit = getattr(specs.get(r.input), "unit", "") or ""
        rows.append([str(r.rank), r.input, unit, shown(r.input, r.median_all),
                     shown(r.input, r.median_holds),
                     f"{shown(r.input, r.p10_holds)} to {shown(r.input, r.p90_holds)}",
                     b.number(f"{key}:{r.input}:median_percentile", r.median_percentile),
                     b.number(f"{key}:{r.input}:shift", r.shift),
                     b.number(f"{key}:{r.input}:z", r.z)])
    b.table(["rank", "input", "unit", "median (all)", "median (holds)", "10-90% (holds)",
             "median at percentile", "shift", "z"], rows,
            f"{thesis.name}: inputs where it holds against all paths")
    b.image(f"believe_{thesis.name}.png", f"What would I have to believe: {thesis.name}",
            belief_chart(belief))
    search = belief.search
    b.numbers[f"{key}:probability_after_shift"] = search.probability
    if search.length is not None:
        b.numbers[f"{key}:shift_length"] = search.length
    moves = [[m.input, shown(m.input, m.median_before), shown(m.input, m.median_after),
              b.number(f"{key}:{m.input}:percentile_after", m.percentile_after),
              b.number(f"{key}:{m.input}:score", m.score)]
             for m in belief.moves.itertuples(index=False)]
    if moves and belief.probability <= 0.5:
        b.table(["input", "median before", "median after", "percentile after",
                 "shift (normal-score units)"], moves,
                f"{thesis.name}: the smallest shift found, P = "
                f"{search.probability:.3f} +- {belief.mcse_at_shift:.3f} after it")
    b.paragraph("; ".join(line.strip().rstrip(":") for line in shift_text(belief)) + ".")
    b.numbers[f"{key}:mcse"] = belief.mcse
