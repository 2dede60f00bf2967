"""One call from a scenario name to a :class:`~forecast.results.Forecast`.

Loads the data and the scenario, picks the stored fit (the requested one, else the latest
published fit for the scenario's priors, else fits and stores one) and simulates. The CLI,
the report and notebooks all go through here, so they agree on which fit and data are used.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from forecast.results import Forecast


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
    from forecast.data import load_dataset
    from forecast.fitting import load_or_fit
    from forecast.scenario import load_scenario
    from forecast.simulate import simulate

    scenario = load_scenario(name)
    dataset = load_dataset(data_dir)
    bundle = load_or_fit(dataset, scenario, root=root, fit_id=fit_id, progress=progress)
    return simulate(bundle, dataset, scenario, draws=draws, seed=seed, horizon=horizon)
