"""One call from a scenario name to a :class:`~forecast.pipeline.results.Forecast`.

Loads the data and the scenario, picks the stored fit (the requested one, else the latest
published fit for the scenario's priors, else fits and stores one) and simulates. The CLI,
the report and notebooks all go through here, so they agree on which fit and data are used.

A forecast's request is checked before any work: the scenario against the data (its chips,
roadmap and launch quarters, :mod:`forecast.economics.scenario_checks`), a horizon after the
data's end and not before a thesis's period, sample paths that fit in the memory available, a
fit store that takes a new fit, all before a fit is sampled (minutes) or paths are allocated.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from forecast.core.errors import FitError, ForecastError
from forecast.data.dataset import Dataset
from forecast.pipeline.results import Forecast

#: Peak memory of a forecast over the size of its paths (the models' intermediate draws,
#: the scenario inputs and the annual quantiles come on top of the paths), with a margin.
PEAK_OVER_PATHS = 3.0
#: Share of the available memory a forecast may plan to use.
MEMORY_MARGIN = 0.8


class GatedFitError(FitError):
    """A fit made for a forecast ran and failed its convergence gate (stored as gated)."""


def run_scenario(
    name: str,
    *,
    draws: int | None = None,
    seed: int | None = None,
    horizon: int | None = None,
    root: str | Path | None = None,
    fit_id: str | None = None,
    data_dir: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
    stack: bool = True,
) -> Forecast:
    """Forecast one scenario from a stored fit (fitting first when there is none).

    Parameters
    ----------
    name
        Scenario name (a file in ``scenarios/``) or path to a scenario file.
    draws, seed, horizon
        Override the scenario's defaults; ``horizon`` is the last calendar year.
    root
        Artifacts root holding the fits (default ``artifacts/`` or ``$FORECAST_ARTIFACTS``).
    fit_id
        Use this published fit rather than the latest.
    data_dir
        Data directory (default: the project's ``data/``).
    progress
        Called with one line per fitting step when a fit has to be made.
    stack
        Publish the rivals' positions as the share backtest's out-of-sample stack (default);
        False: the spend model's own positions on every path (its cost-driven targets and
        ramps, what the scenarios' share inputs act on).

    Raises
    ------
    ForecastError
        On a horizon not after the data's end or paths that would not fit in memory,
        before any fitting or simulation.
    GatedFitError
        When the fit made for the forecast fails its convergence gate.
    """
    from forecast.pipeline.simulate import simulate

    scenario, dataset, bundle = load_run(name, root=root, fit_id=fit_id, data_dir=data_dir,
                                         progress=progress, paths=(draws, horizon))
    result = simulate(bundle, dataset, scenario, draws=draws, seed=seed, horizon=horizon,
                      stack=stack)
    stacked = result.meta.get("stack")
    result.meta["skill_gaps"] = published_skill_gaps(
        None if stacked is None else stacked["weight"])
    return result


def published_skill_gaps(stack_weight: float | None = None) -> list[dict[str, Any]]:
    """Where the forecasters whose paths a forecast publishes lost to a naive baseline in
    the backtests published beside the shipped fit
    (:func:`forecast.evaluation.skill.skill_gaps`), as JSON-ready records with a ``line``
    for readers; empty without published backtests. ``stack_weight``: the spend model's
    weight in the stack the forecast published (None: no stack, the model's own paths)."""
    from dataclasses import asdict

    from forecast.evaluation.skill import STRUCTURAL, published_forecasters, skill_gaps
    from forecast.store.shipped import published_backtests

    return [{**asdict(gap), "line": gap.line()}
            for name, report in published_backtests().items() if name in STRUCTURAL
            for gap in skill_gaps(name, report, published_forecasters(name, stack_weight))]


def load_run(
    name: str,
    *,
    root: str | Path | None = None,
    fit_id: str | None = None,
    data_dir: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
    paths: tuple[int | None, int | None] | None = None,
) -> tuple[Any, Dataset, Any]:
    """The scenario, dataset and fit bundle :func:`run_scenario` simulates from.

    For callers that simulate more than once from one fit (sensitivity runs); the arguments
    are :func:`run_scenario`'s. ``paths``, ``(draws, horizon)`` (None: the scenario's), asks
    to check the paths to be simulated (:func:`check_paths`) before fitting or returning.
    """
    from forecast.economics.scenario_checks import check_scenario_data
    from forecast.pipeline.fitting import find_fit
    from forecast.scenarios import load_scenario
    from forecast.scenarios.loading import load_scenario_file
    from forecast.store.bundles import latest_data_dir

    # A name is a shipped scenario; a path to a .toml file is the user's own.
    scenario = (load_scenario_file(name) if str(name).endswith(".toml")
                else load_scenario(name))
    bundle = find_fit(scenario, root, fit_id)
    if bundle is not None:
        dataset = fit_dataset(bundle.data_dir if data_dir is None else data_dir,
                              bundle.meta.get("as_of"), root=root)
        if bundle.meta.get("kind") == "shipped":  # its data are data/, which must match it
            from forecast.store.shipped import check_current

            check_current({"fit_id": bundle.fit_id, **bundle.meta}, dataset.data_hash)
        check_scenario_data(scenario, dataset)
        if paths is not None:
            check_paths(scenario, dataset, bundle.models["spend"].window[-1], *paths)
        return scenario, dataset, bundle
    # No fit covers this scenario: fit it on the data of the newest published fit.
    dataset = fit_dataset(data_dir if data_dir is not None else latest_data_dir(root),
                          None, root=root)
    check_scenario_data(scenario, dataset)
    if paths is not None:
        check_paths(scenario, dataset, _spend_data_end(dataset), *paths)
    check_store_writable(root)
    return scenario, dataset, _fit_for(scenario, dataset, root, progress)


def _fit_for(scenario: Any, dataset: Dataset, root: str | Path | None,
             progress: Callable[[str], None] | None) -> Any:
    """Fit every model of ``scenario``, store the fit and return its bundle if published."""
    from forecast.pipeline.fitting import fit_all, priors_digest

    bundle = fit_all(dataset, scenario, root=root, progress=progress)
    if bundle.status != "published":
        why = "; ".join(f"{key}: {', '.join(reasons)}"
                        for key, reasons in bundle.meta["gate_failures"].items())
        raise GatedFitError(f"the new fit {bundle.fit_id} failed its convergence gate ({why}); "
                            "it is stored as gated and not used")
    return bundle.for_scenario(priors_digest(scenario))


def _spend_data_end(dataset: Dataset) -> str:
    """The last quarter the spend model would be fitted to (its forecasts start after)."""
    from forecast.models.spend.data import model_quarters
    from forecast.models.spend.evidence import observation_frames

    return model_quarters(observation_frames(dataset))[-1]


def check_paths(scenario: Any, dataset: Dataset, data_end: str, draws: int | None,
                horizon: int | None) -> None:
    """Refuse a forecast whose horizon is not after the data's end or whose paths would not
    fit in memory.

    Parameters
    ----------
    scenario
        The scenario (its ``draws`` and ``horizon`` are the defaults).
    dataset
        The data (their vendor groups size the paths).
    data_end
        The spend model's last quarter (``2025Q3``): the paths start after it.
    draws, horizon
        The paths asked for (None: the scenario's).

    Raises
    ------
    ForecastError
        Saying why: a horizon before a thesis's period, and how many draws would fit.
    """
    from forecast.core.calendar import year_of

    draws = scenario.draws if draws is None else int(draws)
    horizon = scenario.horizon if horizon is None else int(horizon)
    if draws <= 0:
        raise ForecastError(f"draws must be > 0, got {draws}")
    if horizon < year_of(data_end) + 1:
        raise ForecastError(f"horizon {horizon} is not after the end of the data "
                            f"({data_end}); give a later year")
    check_thesis_horizon(scenario, horizon)
    check_memory(draws, horizon, data_end, dataset)


def check_thesis_horizon(scenario: Any, horizon: int) -> None:
    """Refuse a horizon before the end of a thesis's period (its paths would not reach it).

    Raises
    ------
    ForecastError
        Naming the thesis and the earliest horizon that reaches every thesis.
    """
    late = [thesis for thesis in scenario.theses.values() if thesis.last_quarter // 4 > horizon]
    if late:
        needed = max(thesis.last_quarter // 4 for thesis in late)
        raise ForecastError(f"horizon {horizon}: thesis {late[0].name} reads {late[0].period}, "
                            f"after it; give a horizon of {needed} or later")


def check_memory(draws: int, horizon: int, data_end: str, dataset: Dataset) -> None:
    """Refuse sample paths that would not fit in the memory available, before allocating.

    The paths hold, per draw and quarter after ``data_end`` to the end of ``horizon``: TAM,
    Google + AWS silicon spend and two AWS revenues; share, spend and cost per vendor group
    of ``dataset``; price and cost per PFLOP-hour (list and owner TCO) per priced chip; 8
    bytes each. A forecast
    peaks at about :data:`PEAK_OVER_PATHS` times that; it may plan on :data:`MEMORY_MARGIN`
    of :func:`available_memory`.

    Raises
    ------
    ForecastError
        Saying how much memory they would need and how many draws fit.
    """
    from forecast.core.calendar import quarter_index
    from forecast.core.scenario_contract import PRICED_CHIPS

    quarters = max(1, quarter_index(f"{horizon}Q4") - quarter_index(data_end))
    groups = int(dataset.vendor_groups["vendor_group"].nunique())
    per_draw = quarters * (4 + 3 * groups + 3 * len(PRICED_CHIPS)) * 8 * PEAK_OVER_PATHS
    available = available_memory()
    if draws * per_draw > MEMORY_MARGIN * available:
        raise ForecastError(
            f"{draws} sample paths to {horizon} need about {_size(draws * per_draw)} of memory "
            f"and {_size(available)} is available: at most "
            f"{int(MEMORY_MARGIN * available // per_draw)} fit; ask for fewer draws (or an "
            "earlier horizon)")


def preflight(names: Sequence[str] | None, draws: int | None, *, horizon: int | None = None,
              root: str | Path | None = None, data_dir: str | Path | None = None) -> None:
    """Check, before a command's work, that the paths it will simulate fit in memory.

    For commands that simulate after long work or through other code (a refit's revision
    report, a sensitivity run or sweep, a comparison of fits): on the newest stored fit's data (or
    ``data_dir``), each scenario's horizon, ``draws`` (None: the scenario's). Whether the
    horizon is after the data's end is left to the forecast itself (its fit's data may
    end earlier than the newest).

    Parameters
    ----------
    names
        Scenario names (None: every scenario in ``scenarios/``).
    draws, horizon
        Paths per forecast and their last year (None: each scenario's).
    root, data_dir
        Fit store and data directory.

    Raises
    ------
    ForecastError
        When they would not fit (:func:`check_memory`).
    """
    from forecast.economics.scenario_checks import check_scenario_data
    from forecast.scenarios import list_scenarios, load_scenario
    from forecast.store.bundles import latest_data_dir

    scenarios = [load_scenario(name) for name in names] if names else list_scenarios()
    dataset = fit_dataset(data_dir if data_dir is not None else latest_data_dir(root), None,
                          root=root)
    data_end = _spend_data_end(dataset)
    for scenario in scenarios:
        check_scenario_data(scenario, dataset)
        if horizon is not None:
            check_thesis_horizon(scenario, horizon)
        check_memory(scenario.draws if draws is None else draws,
                     scenario.horizon if horizon is None else horizon, data_end, dataset)


def _size(size: float) -> str:
    """Bytes in the largest unit up to TB that keeps the number under 1000 (``1.51 TB``)."""
    for unit in ("B", "kB", "MB", "GB"):
        if size < 999.5:
            return f"{size:.3g} {unit}"
        size /= 1000
    return f"{size:.3g} TB" if size < 999.5 else f"{size:.0f} TB"


def available_memory() -> int:
    """Bytes of memory this process can still use: the system's available memory (Linux's
    ``MemAvailable``, else the free pages), within the control group's limit if any."""
    available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit != "max":
            available = min(available, max(0, int(limit) - int(used)))
    except (OSError, ValueError):
        pass
    return available


def check_store_writable(root: str | Path | None) -> None:
    """Refuse, before a fit is sampled, a fit store that cannot take it.

    Raises
    ------
    ForecastError
        When the store cannot be created or written (the fit would be lost after minutes).
    """
    from forecast.store.bundles import fits_dir

    directory = fits_dir(root)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ForecastError(f"fit store {directory}: not writable ({exc.strerror}); "
                            "a new fit could not be stored") from None


def fit_dataset(data_dir: str | Path | None, as_of: str | None,
                root: str | Path | None = None) -> Dataset:
    """The dataset a fit saw: its data directory, cut at its as-of date when it has one.

    ``root`` is the artifacts root whose ``cache/`` keeps the validated dataset.
    """
    from forecast.data.dataset import data_cache_dir, load_dataset

    dataset = load_dataset(data_dir, cache_dir=data_cache_dir(root))
    return dataset.as_of(as_of) if as_of else dataset
