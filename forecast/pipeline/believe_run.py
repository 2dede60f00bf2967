"""Run "what would I have to believe?" for one thesis of a scenario, from its stored fit.

The scenario's own input draws (``scenario.sample(draws, seed)``, correlations and all) are
simulated once with :func:`~forecast.pipeline.simulate.simulate` (``inputs=`` the frame, as
sweeps and sensitivity runs do); :func:`~forecast.pipeline.believe.believe` reads the thesis
metric off those paths and re-simulates with the inputs moved by quantile, always with the
same fit, draws and seed (common random numbers). Numpy, pandas and xarray: no PyMC.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import period_quarters, quarter_index
from forecast.core.errors import ForecastError
from forecast.pipeline.believe import TOP_INPUTS, Belief, OnStep, believe, check_paths
from forecast.pipeline.theses import thesis_values, unreached_note


def find_thesis(scenario: Any, name: str) -> Any:
    """The scenario's thesis called ``name``; a one-line error listing the known ones."""
    if name in scenario.theses:
        return scenario.theses[name]
    known = ", ".join(scenario.theses) or "none"
    raise ForecastError(f"scenario {scenario.name} has no thesis {name!r} (known: {known})")


def run_believe(thesis: str, scenario: str, *, draws: int | None = None,
                seed: int | None = None, horizon: int | None = None,
                root: str | Path | None = None, fit_id: str | None = None,
                data_dir: str | Path | None = None, top: int = TOP_INPUTS, steps: int = 8,
                progress: Callable[[str], None] | None = None,
                on_step: OnStep | None = None) -> Belief:
    """What the paths where ``thesis`` holds need, and the smallest shift of the scenario.

    Parameters
    ----------
    thesis, scenario
        Thesis name and scenario name (or file).
    draws, seed, horizon
        Paths per simulation, their seed and last year (defaults: the scenario's).
    root, fit_id, data_dir
        Which fit and data, as for :func:`forecast.pipeline.runner.run_scenario` (a fit is
        made first when none is stored).
    top, steps
        Inputs moved at most, bisection steps (see :func:`~forecast.pipeline.believe.believe`).
    progress
        Called with a line per step when a fit has to be made.
    on_step
        ``on_step(done, total)`` after each re-simulation.

    Returns
    -------
    Belief
        With ``meta``: scenario, fit_id, draws, seed, horizon, posterior_ess, seconds and
        input_specs (each input's distribution, for units and formatting).

    Raises
    ------
    ForecastError
        On an unknown scenario or thesis (before any fitting or simulation), bad draws, or a
        thesis whose period the data already cover.
    """
    from forecast.pipeline.runner import load_run
    from forecast.scenarios import load_scenario

    started = time.perf_counter()
    loaded = load_scenario(scenario)
    spec = find_thesis(loaded, thesis)  # fail before any slow work
    draws = loaded.draws if draws is None else int(draws)
    if draws <= 0:
        raise ForecastError(f"--draws must be > 0, got {draws}")
    check_paths(draws, sum(_varies(spec) for spec in loaded.inputs.values()), "--draws")
    seed = loaded.seed if seed is None else int(seed)
    chosen, dataset, bundle = load_run(scenario, root=root, fit_id=fit_id, data_dir=data_dir,
                                       progress=progress, paths=(draws, horizon))
    belief = believe_from_fit(bundle, dataset, chosen, spec, draws=draws, seed=seed,
                              horizon=horizon, top=top, steps=steps, on_step=on_step)
    belief.meta["seconds"] = time.perf_counter() - started
    return belief


def believe_from_fit(bundle: Any, dataset: Any, scenario: Any, thesis: Any, *, draws: int,
                     seed: int, horizon: int | None = None, top: int = TOP_INPUTS,
                     steps: int = 8, on_step: OnStep | None = None) -> Belief:
    """:func:`run_believe` on a loaded fit, its data and scenario, for one thesis spec.

    The scenario's draws (``scenario.sample(draws, seed)``) are simulated once; every
    re-simulation uses the same fit, draws and seed with the inputs moved by quantile.
    """
    from forecast.pipeline.simulate import simulate

    def simulated(frame: pd.DataFrame) -> Any:
        return simulate(bundle, dataset, scenario, draws=draws, seed=seed, horizon=horizon,
                        inputs=frame)

    def values(result: Any) -> np.ndarray:
        # As the forecast evaluates it: in-sample quarters (a period the data reached, a
        # change_from) come from the fitted posterior, which no input moves.
        return thesis_values(result.data, thesis, result.in_sample)

    inputs = scenario.sample(draws, seed=seed)
    base = simulated(inputs)
    note = unreached_note(base.data, thesis, base.in_sample)  # before reading its period
    if note:
        raise ForecastError(f"thesis {thesis.name}: {note}")
    ess = base.meta.get("posterior_ess")
    belief = believe(inputs, values(base), thesis, scenario.inputs,
                     lambda frame: values(simulated(frame)), top=top,
                     steps=steps, posterior_ess=ess, on_step=on_step)
    belief.meta.update(scenario=scenario.name, fit_id=bundle.fit_id, draws=draws, seed=seed,
                       horizon=base.meta["horizon"], posterior_ess=ess,
                       in_sample_quarters=past_quarters(base.data, thesis),
                       input_specs=dict(scenario.inputs))
    return belief


def _varies(spec: Any) -> bool:
    """Whether an input's draws vary (a constant, or a quarter of one value, does not)."""
    if spec.is_fixed:
        return False
    if spec.is_quarter:
        return sum(p > 0 for p in spec.params["probs"]) > 1
    return True


def past_quarters(paths: Any, thesis: Any) -> list[str]:
    """The quarters of the thesis's period and ``change_from`` before the forecast's first:
    read from the fitted posterior of the past, which no scenario input moves."""
    first = quarter_index(str(paths["quarter"].values[0]))
    periods = [thesis.period, getattr(thesis, "change_from", None)]
    quarters = [q for period in periods if period for q in period_quarters(period)]
    return sorted({q for q in quarters if quarter_index(q) < first}, key=quarter_index)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as plain dicts, NaN as None (JSON has no NaN)."""
    return [{key: (None if isinstance(value, float) and not np.isfinite(value) else value)
             for key, value in row.items()} for row in frame.to_dict("records")]


def _number(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def belief_summary(belief: Belief) -> dict[str, Any]:
    """A JSON-ready summary of a :class:`~forecast.pipeline.believe.Belief`."""
    thesis, search = belief.thesis, belief.search
    specs = belief.meta.get("input_specs", {})
    return {
        "thesis": thesis.name,
        "statement": thesis.statement,
        "holds_if": f"{thesis.comparator} {thesis.threshold:g}",
        "when": getattr(thesis, "when", "in"),
        "period": thesis.period,
        **{key: value for key, value in belief.meta.items()
           if key not in ("seconds", "input_specs")},
        "probability": belief.probability,
        "mcse": belief.mcse,
        "paths": belief.draws,
        "explained_by_inputs": {"metric": _number(belief.explained_metric),
                                "indicator": _number(belief.explained_indicator)},
        "decided_by": belief.decided_by,
        "inputs": [{**row, "unit": getattr(specs.get(row["input"]), "unit", None)}
                   for row in _records(belief.shifts)],
        "smallest_shift": {
            "reached": search.reached,
            "length": _number(search.length),
            "probability": search.probability,
            "mcse": belief.mcse_at_shift,
            "moves": _records(belief.moves),
            "trail": [{"length": length, "probability": p} for length, p in search.trail],
        },
    }
