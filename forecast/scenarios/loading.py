"""Finding, listing and loading scenario files.

Scenarios load by name from a directory (default: the project's ``scenarios/``), where a
name can never reach outside it, or by explicit path (``scenarios validate FILE``). Either
way the file's ``extends`` chain is read and merged (:mod:`forecast.scenarios.inheritance`).
"""

from __future__ import annotations

from pathlib import Path

from forecast.core.errors import ScenarioError
from forecast.scenarios.contract import check_forecast_inputs
from forecast.scenarios.inheritance import load_chain, merge, resolve_name
from forecast.scenarios.locations import MAX_NAME_LENGTH, NAME_PATTERN, Where, display, fmt
from forecast.scenarios.scenario import Scenario

DEFAULT_SCENARIOS_DIR = Path(__file__).resolve().parents[2] / "scenarios"


def _checked(scenario: Scenario, require_inputs: bool) -> Scenario:
    if require_inputs:
        check_forecast_inputs(scenario)
    return scenario


def load_scenario(name_or_path: str, scenarios_dir: Path | None = None, *,
                  require_inputs: bool = True) -> Scenario:
    """Load a scenario by name from the scenarios directory.

    Parameters
    ----------
    name_or_path : str
        A scenario name (``[A-Za-z0-9_-]+``, at most 100 characters), e.g. ``"bull"``. Paths
        are refused here so a name can never reach outside the directory; use
        :func:`load_scenario_file` for a file.
    scenarios_dir : pathlib.Path, optional
        Directory of scenario files (default: the project's ``scenarios/``).
    require_inputs : bool, default True
        Require every input a forecast reads (``forecast.core.scenario_contract``); False
        loads a partial scenario (for tests of the format).

    Returns
    -------
    Scenario
        The validated scenario with its ``extends`` chain merged.

    Raises
    ------
    ScenarioError
        If the name is not a plain name, resolves outside the directory, does not exist, or
        the file (or one it extends) is invalid.
    """
    directory = Path(scenarios_dir) if scenarios_dir is not None else DEFAULT_SCENARIOS_DIR
    where = Where(display(directory))
    if not isinstance(name_or_path, str):
        raise where.error(
            f"{str(name_or_path)!r} is not a scenario name; "
            "load a file by path with load_scenario_file()"
        )
    if not directory.is_dir():
        raise where.error("scenarios directory not found")
    scenario = merge(load_chain(resolve_name(name_or_path, directory, where)))
    return _checked(scenario, require_inputs)


def load_scenario_file(path: str | Path, *, require_inputs: bool = True) -> Scenario:
    """Load a scenario from an explicit file path (``scenarios validate FILE``).

    It is checked as ``forecast`` would check it: a file that loads here forecasts.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.toml`` file; its ``extends`` names resolve in the file's own directory.
    require_inputs : bool, default True
        Require every input a forecast reads; False loads a partial scenario.

    Returns
    -------
    Scenario
        The validated scenario with its ``extends`` chain merged.

    Raises
    ------
    ScenarioError
        If the file is missing or invalid.
    """
    path = Path(path)
    where = Where(display(path))
    if path.suffix != ".toml":
        raise where.error("a scenario file must have the .toml suffix")
    if not NAME_PATTERN.match(path.stem):
        raise where.error(f"file stem {fmt(path.stem)} is not a scenario name "
                          f"([A-Za-z0-9_-], at most {MAX_NAME_LENGTH} characters)")
    try:
        if not path.is_file():
            raise where.error("no such file")
        resolved = path.resolve()
    except (OSError, RuntimeError) as exc:
        raise where.error(f"cannot read file ({getattr(exc, 'strerror', None) or exc})") from None
    return _checked(merge(load_chain(resolved)), require_inputs)


def scenario_names(scenarios_dir: Path | None = None) -> list[str]:
    """Names of the scenario files in a directory, sorted (files are not validated).

    Parameters
    ----------
    scenarios_dir : pathlib.Path, optional
        Directory of scenario files (default: the project's ``scenarios/``).

    Returns
    -------
    list of str
    """
    directory = Path(scenarios_dir) if scenarios_dir is not None else DEFAULT_SCENARIOS_DIR
    if not directory.is_dir():
        raise ScenarioError(f"{display(directory)}: scenarios directory not found")
    return sorted(p.stem for p in directory.glob("*.toml") if NAME_PATTERN.match(p.stem))


def list_scenarios(scenarios_dir: Path | None = None, *,
                   require_inputs: bool = True) -> list[Scenario]:
    """Load every scenario of a directory, sorted by name.

    Parameters
    ----------
    scenarios_dir : pathlib.Path, optional
        Directory of scenario files (default: the project's ``scenarios/``).
    require_inputs : bool, default True
        Require every input a forecast reads in each.

    Returns
    -------
    list of Scenario

    Raises
    ------
    ScenarioError
        On the first invalid file (the message names it).
    """
    directory = Path(scenarios_dir) if scenarios_dir is not None else DEFAULT_SCENARIOS_DIR
    return [load_scenario(name, directory, require_inputs=require_inputs)
            for name in scenario_names(directory)]
