"""A scenario against the data: what of it the cost paths can only judge with the catalogue.

:mod:`forecast.scenarios` checks a scenario on its own (every input read, each within the
support of its part). What needs the data is checked here, before any fit or simulation, by
``scenarios validate`` and by every command that forecasts
(:func:`forecast.pipeline.runner.load_run`, :func:`~forecast.pipeline.runner.preflight`):

- every ``[chip_prices]`` chip is a catalogue chip (``data/accelerators.csv``);
- every ``[roadmap]`` generation follows a catalogue chip of its vendor group or an earlier
  generation of it (as the cost paths chain them);
- no launch quarter comes before the data's start (the first quarter of the vendors'
  revenue), nor a generation's launch before its catalogue predecessor's release: the cost
  paths would move such a launch to the quarter after its predecessor, silently.

Each problem is one line at the scenario file and key that made it.
"""

from __future__ import annotations

import difflib
from typing import Any

from forecast.core.calendar import quarter_index, quarter_label
from forecast.core.scenario_contract import ROLE_SUPPORT, VENDOR_GROUPS
from forecast.data.dataset import Dataset
from forecast.economics.pricing import REST_GROUP

__all__ = ["check_scenario_data", "data_start"]


def data_start(dataset: Dataset) -> int:
    """Quarter index of the data's first quarter: the vendors' first revenue quarter."""
    return quarter_index(str(dataset.revenue["quarter"].dropna().min()))


def check_scenario_data(scenario: Any, dataset: Dataset) -> None:
    """Raise unless the scenario's chips, roadmap and launch quarters fit the data.

    Parameters
    ----------
    scenario : forecast.scenarios.Scenario
        A merged scenario, validated on its own.
    dataset : Dataset
        The data the forecast runs on.

    Raises
    ------
    ScenarioError
        At the file and key of the first problem (see the module docstring).
    """
    catalogue = dataset.accelerators.set_index("chip")
    chips = list(catalogue.index)
    for chip in scenario.chip_prices:
        if chip not in catalogue.index:
            hint = difflib.get_close_matches(chip, chips, n=1)
            suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
            raise scenario.error("chip_prices", chip, message=(
                f"{chip!r} is not a chip of the catalogue (data/accelerators.csv){suggestion}"))
    _check_roadmap(scenario, catalogue)
    _check_launches(scenario, dataset, catalogue)


def _group(catalogue: Any, chip: str) -> str:
    """A catalogue chip's vendor group as the cost paths see it (custom chips of groups no
    model covers on their own are the rest's)."""
    group = str(catalogue.loc[chip, "vendor_group"])
    return group if group in VENDOR_GROUPS else REST_GROUP


def _check_roadmap(scenario: Any, catalogue: Any) -> None:
    """Each generation follows a catalogue chip of its group or an earlier generation."""
    earlier: set[tuple[str, str]] = set()
    for generation in scenario.roadmap:
        after, vendor = generation.after, generation.vendor
        if (vendor, after) not in earlier:
            if after not in catalogue.index:
                raise scenario.error("roadmap", vendor, generation.name, "after", message=(
                    f"{after!r} is neither a catalogue chip (data/accelerators.csv) nor a "
                    f"generation of {vendor}'s roadmap"))
            if _group(catalogue, after) != vendor:
                raise scenario.error("roadmap", vendor, generation.name, "after", message=(
                    f"{after!r} is a chip of vendor group {_group(catalogue, after)!r}, not "
                    f"{vendor!r}"))
        earlier.add((vendor, generation.name))


def _check_launches(scenario: Any, dataset: Dataset, catalogue: Any) -> None:
    """No launch quarter a distribution can draw is before the data's start or before the
    release of the catalogue chip a generation follows."""
    start = data_start(dataset)
    floors: dict[str, tuple[int, str]] = {}
    for generation in scenario.roadmap:
        released = (catalogue.loc[generation.after, "release_date"]
                    if generation.after in catalogue.index else None)
        if released is not None and released == released:  # a release date on file
            floors[generation.launch] = (released.year * 4 + (released.month - 1) // 3,
                                         f"{generation.after} was released")
    quarter = ROLE_SUPPORT["launch"]
    for name, spec in scenario.inputs.items():
        if not spec.is_quarter:
            continue
        values = [quarter_index(label) for label, p in zip(spec.params["values"],
                                                            spec.params["probs"], strict=True)
                  if p > 0]
        earliest = min(values)
        floor, why = floors.get(name, (start, "the data start"))
        if floor < start:
            floor, why = start, "the data start"
        if earliest < floor:
            raise scenario.error("inputs", name, message=(
                f"{quarter.name} can be {quarter_label(earliest)}, before {why} "
                f"({quarter_label(floor)})"))
