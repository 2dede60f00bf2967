"""What the project holds: the data files, the scenarios, the chips' economics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forecast.reporting.console.table import table_text

#: Columns of the economics table, in order.
ECONOMICS_COLUMNS = ["chip", "vendor_group", "precision_used", "dense_tflops", "utilisation",
                     "price_usd_per_chip_hour", "cost_per_effective_pflop_hour",
                     "price_source", "note"]


def data_text(data_dir: str | Path | None = None) -> str:
    """Validate every data file and summarise the tables (``cli.py data validate``).

    Parameters
    ----------
    data_dir
        Data directory (default: the project's ``data/``).

    Returns
    -------
    str
        The directory, the data hash and a table of rows and dates per file.

    Raises
    ------
    DataValidationError
        Listing every problem found.
    """
    from forecast.data.dataset import load_dataset

    dataset = load_dataset(data_dir)
    return (f"{dataset.data_dir}: all files valid (data hash {dataset.data_hash[:12]})\n"
            + table_text(dataset.summary()))


def scenario_list_text() -> str:
    """One line per shipped scenario: name, description, the scenario it extends."""
    from forecast.scenarios import list_scenarios

    lines = []
    for scenario in list_scenarios():
        parent = f" (extends {scenario.extends})" if scenario.extends else ""
        lines.append(f"{scenario.name:<12} {scenario.description}{parent}")
    return "\n".join(lines)


def scenario_text(name: str) -> str:
    """Every input of a scenario with its distribution and rationale, its correlations and
    theses (``cli.py scenarios show``).

    Parameters
    ----------
    name
        Scenario name or file.

    Returns
    -------
    str
        The description.
    """
    from forecast.scenarios import load_scenario

    scenario = load_scenario(name)
    lines = [f"scenario {scenario.name}: {scenario.description}",
             f"horizon {scenario.horizon}, draws {scenario.draws}, seed {scenario.seed}", ""]
    for row in scenario.to_table().itertuples(index=False):
        lines.append(f"{row.metric}: {row.dist}({row.params}) [{row.unit}]  "
                     f"median [P10, P90] = {row.summary}")
        lines.append(f"    rationale: {row.rationale}")
    settings = scenario.settings_table()
    if not settings.empty:
        lines += ["", "readings and settings (fixed, not sampled):"]
        for row in settings.itertuples(index=False):
            lines += [f"{row.name}: {row.summary}", f"    rationale: {row.rationale}"]
    if scenario.correlation_names:
        lines += ["", "rank correlations:"]
        names = scenario.correlation_names
        matrix = scenario.correlation_matrix
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                if matrix[i][j] != 0:
                    lines.append(f"    {names[i]} ~ {names[j]}: {matrix[i][j]:+.2f}")
    if scenario.theses:
        lines += ["", "theses:"]
        for thesis_name, thesis in scenario.theses.items():
            lines.append(f"    {thesis_name}: {thesis.statement}")
            lines.append(f"      holds if: {thesis_predicate(thesis)}")
    return "\n".join(lines)


def thesis_predicate(thesis: Any) -> str:
    """A thesis's test in one line, e.g. ``mean share[aws] in 2030 - in 2025 >= 0.03``."""
    metric = thesis.metric
    if thesis.vendor is not None:
        metric += f"[{thesis.vendor}]"
    if thesis.numerator is not None:
        metric += f"[{thesis.numerator} / {thesis.denominator}]"
    reading = "first reached by" if thesis.when == "by" else "in"
    text = f"{thesis.aggregate} {metric} {reading} {thesis.period}"
    if thesis.change_from is not None:
        text += f" - in {thesis.change_from}"
    unit = f" ({thesis.unit})" if thesis.unit else ""
    return f"{text} {thesis.comparator} {thesis.threshold:g}{unit}"


def scenario_validation_text(file: str | Path | None = None) -> str:
    """Validate one scenario file, or every shipped scenario (``cli.py scenarios validate``).

    Parameters
    ----------
    file
        A scenario file; None for all of ``scenarios/``.

    Returns
    -------
    str
        One line per valid file with its number of inputs and theses.

    Raises
    ------
    ScenarioError
        On the first problem, in one line: of the file on its own, or against the project's
        data (its chips, roadmap and launch quarters), as every forecast checks it.
    """
    from forecast.data.dataset import load_dataset
    from forecast.economics.scenario_checks import check_scenario_data
    from forecast.scenarios import list_scenarios, load_scenario_file

    scenarios = [load_scenario_file(Path(file))] if file else list_scenarios()
    dataset = load_dataset()
    for scenario in scenarios:
        check_scenario_data(scenario, dataset)
    return "\n".join(f"{scenario.path}: valid ({len(scenario.inputs)} inputs, "
                     f"{len(scenario.theses)} theses)" for scenario in scenarios)


def economics_text(scenario_name: str = "base", data_dir: str | Path | None = None,
                   precision: str = "auto") -> str:
    """Each chip's cost per effective PFLOP-hour (``cli.py economics``).

    Utilisation is the scenario's median of each ``mfu_<vendor>`` input; a chip without a
    price in the data takes the median of the scenario input that prices it.

    Parameters
    ----------
    scenario_name
        Scenario giving utilisation and missing prices.
    data_dir
        Data directory (default: the project's ``data/``).
    precision
        ``auto``, ``fp8`` or ``bf16``.

    Returns
    -------
    str
        A line on the formula, then the table (:data:`ECONOMICS_COLUMNS`, 3 decimals).
    """
    from forecast.data.dataset import load_dataset
    from forecast.economics.chips import economics_table
    from forecast.scenarios import load_scenario

    dataset = load_dataset(data_dir)
    scenario = load_scenario(scenario_name)
    utilisation = {
        name.removeprefix("mfu_"): spec.median()
        for name, spec in scenario.inputs.items()
        if name.startswith("mfu_")
    }
    prices = {
        chip: (scenario.inputs[input_name].median(),
               f"scenario {scenario.name}: {input_name} (median)")
        for chip, input_name in scenario.chip_prices.items()
    }
    table = economics_table(dataset.accelerators, utilisation, prices, precision=precision)
    return (f"Cost per effective PFLOP-hour = price per chip-hour / (dense PFLOPS x "
            f"utilisation); utilisation = scenario {scenario.name} medians of mfu_<vendor>.\n"
            + table_text(table[ECONOMICS_COLUMNS].round(3)))
