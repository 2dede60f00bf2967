"""One call from a scenario name to a :class:`~forecast.pipeline.results.Forecast`.

Loads the data and the scenario, picks the stored fit (the requested one, else the latest
published fit for the scenario's priors, else fits and stores one) and simulates. The CLI,
the report and notebooks all go through here, so they agree on which fit and data are used.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from forecast.data.dataset import Dataset
from forecast.pipeline.results import Forecast


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
    """
    from forecast.pipeline.simulate import simulate

    scenario, dataset, bundle = load_run(name, root=root, fit_id=fit_id, data_dir=data_dir,
                                         progress=progress)
    return simulate(bundle, dataset, scenario, draws=draws, seed=seed, horizon=horizon)


def load_run(
    name: str,
    *,
    root: str | Path | None = None,
    fit_id: str | None = None,
    data_dir: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[Any, Dataset, Any]:
    """The scenario, dataset and fit bundle :func:`run_scenario` simulates from.

    For callers that simulate more than once from one fit (sensitivity runs); the arguments
    are :func:`run_scenario`'s.
    """
    from forecast.pipeline.fitting import find_fit, load_or_fit
    from forecast.scenarios import load_scenario
    from forecast.store.bundles import latest_data_dir

    scenario = load_scenario(name)
    bundle = find_fit(scenario, root, fit_id)
    if bundle is not None:
        dataset = fit_dataset(bundle.data_dir if data_dir is None else data_dir,
                              bundle.meta.get("as_of"), root=root)
    else:
        # No fit covers this scenario: fit it on the data of the newest published fit.
        dataset = fit_dataset(data_dir if data_dir is not None else latest_data_dir(root),
                              None, root=root)
        bundle = load_or_fit(dataset, scenario, root=root, progress=progress)
    return scenario, dataset, bundle


def fit_dataset(data_dir: str | Path | None, as_of: str | None,
                root: str | Path | None = None) -> Dataset:
    """The dataset a fit saw: its data directory, cut at its as-of date when it has one.

    ``root`` is the artifacts root whose ``cache/`` keeps the validated dataset.
    """
    from forecast.data.dataset import data_cache_dir, load_dataset

    dataset = load_dataset(data_dir, cache_dir=data_cache_dir(root))
    return dataset.as_of(as_of) if as_of else dataset
