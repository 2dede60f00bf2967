"""``cli.py believe``: what the paths where a thesis holds need, and the smallest shift.

The numbers come from :func:`forecast.pipeline.believe_run.run_believe`; this module runs it
with a progress bar (:func:`~forecast.reporting.console.progress.task_progress`), lays out
its table or JSON, and adds the subcommand to the command line (:func:`add_believe`; cli.py
lists it among its subcommands, as it takes the shared options from
:func:`~forecast.reporting.console.arguments.add_run_options`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.core.presentation import PROBABILITY, format_number
from forecast.pipeline.believe import DECIDED_BY_INPUTS, TOP_INPUTS, Belief
from forecast.reporting.console import arguments as check
from forecast.reporting.console.exits import EXIT_OK
from forecast.reporting.console.table import table_text
from forecast.reporting.console.terminal import say as _say

#: Output formats of :func:`belief_text`.
FORMATS = ("table", "json")
#: Inputs listed in the table (JSON lists them all).
SHOWN_INPUTS = 12


def _p(value: float) -> str:
    return format_number(value, PROBABILITY, missing="nan", thousands=False)


def _value(belief: Belief, name: str, value: float) -> str:
    """An input's value as the scenario formats it (quarter labels for quarter inputs)."""
    spec = belief.meta.get("input_specs", {}).get(name)  # quarter inputs show as labels
    if value is None or not np.isfinite(value):
        return "-"
    return spec.format_value(value) if spec is not None else f"{value:.4g}"


def _change(thesis: Any) -> str:
    change_from = getattr(thesis, "change_from", None)
    return f" less its value in {change_from}" if change_from else ""


def _past(quarters: Any) -> list[str]:
    """A line on the quarters the data reached, if the thesis reads any."""
    if not quarters:
        return []
    return [f"  {quarters[0]}..{quarters[-1]} are the fitted posterior of quarters the data "
            "reached: no scenario input moves them"]


def decided_text(belief: Belief) -> str:
    """Whether the scenario inputs or the fitted models' posterior decide the thesis."""
    share, outcome = belief.explained_metric, belief.explained_indicator
    if not np.isfinite(share):
        return "the thesis metric is the same in every path: nothing decides it"
    of_outcome = (f"{outcome:.0%} of its 0/1 outcome" if np.isfinite(outcome) else
                  "its 0/1 outcome is the same in every path")
    said = (f"the scenario inputs explain {share:.0%} of the variance of the thesis metric "
            f"({of_outcome}; adjusted R^2 on normal scores of ranks)")
    if belief.decided_by == "inputs":
        return said + "; the rest is the fitted models' posterior"
    return (said + f", under {DECIDED_BY_INPUTS:.0%}: the posterior of the fitted models, not "
            "the scenario's inputs, decides this thesis")


def shift_text(belief: Belief) -> list[str]:
    """The smallest shift of the scenario that lifts P(thesis) above one half, in words."""
    search = belief.search
    if belief.probability > 0.5:
        return [f"P is already above 0.5 ({_p(belief.probability)}): no shift is needed"]
    if search.direction.empty:
        return ["no input goes with the thesis clearly enough (|t| >= 3) to be moved: "
                "no shift of the scenario's inputs lifts it"]
    moves = []
    for row in belief.moves.itertuples(index=False):
        moves.append(f"  {row.input}: median {_value(belief, row.input, row.median_before)} "
                     f"-> {_value(belief, row.input, row.median_after)} (its "
                     f"P{row.percentile_after:.0f}; {row.score:+.2f} normal-score units)")
    if not search.reached:
        return ["no shift within the inputs' ranges lifts P above 0.5: moving",
                *moves, f"(as far as each goes, its median to its 1st or 99th percentile) "
                f"gives P = {_p(search.probability)} +- {_p(belief.mcse_at_shift)}"]
    return [f"smallest shift found that lifts P above 0.5 (length {search.length:.2f} "
            "normal-score units, every path's inputs moved by quantile, ranks kept):",
            *moves, f"gives P = {_p(search.probability)} +- {_p(belief.mcse_at_shift)} "
            f"(re-simulated from the same fit and seed, {len(search.trail) - 1} runs)"]


def inputs_table(belief: Belief, rows: int = SHOWN_INPUTS) -> str:
    """The ranked inputs: all paths against the paths where the thesis holds."""
    specs = belief.meta.get("input_specs", {})
    units = {name: spec.unit for name, spec in specs.items()}
    table = belief.shifts.head(rows)
    shown = [{"rank": int(r.rank), "input": r.input, "unit": (units.get(r.input) or "")[:28],
              "median all": _value(belief, r.input, r.median_all),
              "median holds": _value(belief, r.input, r.median_holds),
              "10-90% holds": f"{_value(belief, r.input, r.p10_holds)} to "
                              f"{_value(belief, r.input, r.p90_holds)}",
              "at pctile": "-" if not np.isfinite(r.median_percentile)
              else f"P{r.median_percentile:.0f}",
              "shift": "-" if not np.isfinite(r.shift) else f"{r.shift:+.1f}",
              "z": "-" if not np.isfinite(r.z) else f"{r.z:+.1f}"}
             for r in table.itertuples(index=False)]
    return table_text(pd.DataFrame(shown))


def belief_text(belief: Belief, fmt: str = "table") -> str:
    """What ``cli.py believe`` prints: a table (``table``) or the JSON summary (``json``)."""
    from forecast.pipeline.believe_run import belief_summary

    if fmt not in FORMATS:
        raise ForecastError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if fmt == "json":
        return json.dumps(belief_summary(belief), indent=2, default=str)
    thesis, meta = belief.thesis, belief.meta
    hidden = len(belief.shifts) - SHOWN_INPUTS
    return "\n".join([
        f"thesis {thesis.name}, scenario {meta.get('scenario')}, fit {meta.get('fit_id')}, "
        f"{belief.draws} paths, seed {meta.get('seed')}",
        f"  {thesis.statement}",
        f"  holds if the metric is {thesis.comparator} {thesis.threshold:g} "
        f"{getattr(thesis, 'when', 'in')} {thesis.period}{_change(thesis)}: "
        f"P = {_p(belief.probability)} +- "
        f"{_p(belief.mcse)} (Monte Carlo error, counting the posterior's ESS)",
        *_past(meta.get("in_sample_quarters")),
        f"  {decided_text(belief)}",
        "",
        "inputs in the paths where the thesis holds against all paths (shift: their mean "
        "percentile minus 50; z: that shift over its error were the input unrelated):",
        inputs_table(belief),
        *([f"  ({hidden} more inputs; --format json lists them all)"] if hidden > 0 else []),
        "",
        *shift_text(belief),
    ])


def believe_command(thesis: str, scenario: str, *, fmt: str = "table",
                    draws: int | None = None, seed: int | None = None,
                    root: str | Path | None = None, fit_id: str | None = None,
                    data_dir: str | Path | None = None, top: int = TOP_INPUTS,
                    say: Callable[[str], None] | None = None) -> str:
    """Run :func:`~forecast.pipeline.believe_run.run_believe` with a progress bar on stderr
    (plain lines off a terminal) and return the text to print."""
    from forecast.pipeline.believe_run import run_believe
    from forecast.reporting.console.progress import task_progress

    if fmt not in FORMATS:
        raise ForecastError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    with task_progress(say) as on_step:
        belief = run_believe(thesis, scenario, draws=draws, seed=seed, root=root,
                             fit_id=fit_id, data_dir=data_dir, top=top, progress=say,
                             on_step=on_step)
    if say is not None:
        say(f"believe: {belief.meta['seconds']:.1f} s")
    return belief_text(belief, fmt)


def run_believe_command(args: argparse.Namespace) -> int:
    """``cli.py believe``: print the text of :func:`believe_command`."""
    print(believe_command(args.thesis, args.scenario, fmt=args.format, draws=args.draws,
                          seed=args.seed, root=args.artifacts, fit_id=args.fit,
                          data_dir=args.data, top=args.top, say=_say))
    return EXIT_OK


def add_believe(commands: Any) -> None:
    """Add ``believe THESIS [--scenario NAME] [--draws N] [--seed S] [--format F]``."""
    sub = commands.add_parser(
        "believe", help="what would I have to believe: the inputs in the paths where a "
        "thesis holds, and the smallest shift of the scenario that lifts it above P = 0.5")
    sub.add_argument("thesis", type=check.nonempty,
                     help="thesis name (see: cli.py scenarios show NAME)")
    sub.add_argument("--top", type=check.positive_int, default=TOP_INPUTS,
                     help=f"inputs the shift moves at most (default {TOP_INPUTS})")
    sub.add_argument("--format", choices=list(FORMATS), default="table")
    check.add_run_options(sub)
    sub.set_defaults(handler=run_believe_command)
