"""Revision report: how each headline forecast moved from the previous fit to a new one.

For every scenario of the new fit and every headline quantity
(:func:`forecast.core.presentation.headline_quantities`: TAM in the first full forecast year
and in the scenario's horizon year, NVIDIA and AWS share and AWS revenue in the horizon year;
each thesis), three forecasts are made with the same draws and seed (common random numbers,
so differences are not Monte Carlo noise):

- ``previous``: the previous fit with the scenario as it was then (its stored scenario files);
- ``assumptions only``: the previous fit with today's scenario file;
- ``new``: the new fit (new data, refitted models) with today's scenario file.

The move of the median splits exactly into ``from_assumptions`` (assumptions only minus
previous) and ``from_data`` (new minus assumptions only: new observations and the refit).
When the scenario's model priors changed too, the refit is fitted with the new priors, so
their effect lands in ``from_data``; the row says so (``priors_changed``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.core.errors import ForecastError
from forecast.core.presentation import (
    MetricKey,
    format_number,
    headline_quantities,
    parse_metric_key,
)
from forecast.data.dataset import Dataset
from forecast.pipeline.results import Forecast
from forecast.store.bundles import FitBundle


def first_full_year(forecast: Forecast) -> str | None:
    """The first calendar year whose four quarters are all in the forecast (None if none)."""
    labels = {str(q) for q in forecast.data["quarter"].values}
    years = sorted({label[:4] for label in labels})
    return next((year for year in years
                 if all(f"{year}Q{k}" in labels for k in range(1, 5))), None)


def revision_quantities(forecast: Forecast, horizon: int | str) -> tuple[MetricKey, ...]:
    """The headline quantities of a revision report: TAM in the forecast's first full year
    and the headline quantities of the horizon year (the scenario's)."""
    return headline_quantities(first_full_year(forecast) or horizon, horizon)


def headline_values(forecast: Forecast, quantities: Sequence[MetricKey] | None = None
                    ) -> dict[str, dict[str, float]]:
    """Median and 80% interval of each headline quantity, and every thesis probability.

    Parameters
    ----------
    forecast
        The forecast to read.
    quantities
        Which quantities (default :func:`revision_quantities` of the forecast and its
        horizon); those missing from the forecast are left out.

    Returns
    -------
    dict
        By :attr:`~forecast.core.presentation.MetricKey.row_name` (``tam:2030``,
        ``share:2030:aws``, ``thesis:NAME``): ``q10``, ``q50`` and ``q90``, or for a thesis
        its probability as ``q50`` and its Monte Carlo error as ``mcse``.
    """
    if quantities is None:
        quantities = revision_quantities(forecast, forecast.meta["horizon"])
    values: dict[str, dict[str, float]] = {}
    tables: dict[str, pd.DataFrame] = {}
    for quantity in quantities:
        if quantity.metric not in forecast.data:
            continue
        if quantity.metric not in tables:
            tables[quantity.metric] = forecast.quantiles(quantity.metric)
        table = tables[quantity.metric]
        match = table[(table["period"] == quantity.period)
                      & (table["key"].astype(str) == (quantity.key or ""))]
        if match.empty:
            continue
        row = match.iloc[0]
        values[quantity.row_name] = {"q10": float(row["q10"]), "q50": float(row["q50"]),
                                     "q90": float(row["q90"])}
    for thesis in forecast.theses().itertuples(index=False):
        values[MetricKey(thesis.name, kind="thesis").row_name] = {
            "q50": float(thesis.probability), "mcse": float(thesis.mcse)}
    return values


def _move_rows(scenario: str, previous: dict | None, assumptions: dict | None, new: dict,
               priors_changed: bool) -> list[dict[str, Any]]:
    rows = []
    for name, now in new.items():
        before = (previous or {}).get(name)
        middle = (assumptions or {}).get(name)
        row = {"scenario": scenario, "metric": name,
               "previous_q50": before["q50"] if before else math.nan,
               "previous_q10": before.get("q10", math.nan) if before else math.nan,
               "previous_q90": before.get("q90", math.nan) if before else math.nan,
               "new_q50": now["q50"], "new_q10": now.get("q10", math.nan),
               "new_q90": now.get("q90", math.nan)}
        row["move"] = row["new_q50"] - row["previous_q50"]
        row["from_assumptions"] = (middle["q50"] - row["previous_q50"]) if middle else math.nan
        row["from_data"] = (now["q50"] - middle["q50"]) if middle else math.nan
        row["priors_changed"] = priors_changed
        rows.append(row)
    return rows


def revision_table(new_bundle: FitBundle, new_dataset: Dataset, scenarios: list[Any],
                   previous: Mapping[str, tuple[FitBundle, Dataset]] | None = None,
                   draws: int = 2000, seed: int = 0) -> pd.DataFrame:
    """One row per (scenario, headline metric): previous vs new and the split of the move.

    ``new_bundle`` is a whole fit (all model keys); ``previous`` maps a scenario name to the
    previous fit of that scenario and the data it saw. A scenario without a previous fit
    gets NaN for the previous values. The headline years are the new forecast's first full
    year and the scenario's horizon (:func:`revision_quantities`), the same for the three
    forecasts of a scenario.
    """
    from forecast.pipeline.fitting import priors_digest
    from forecast.pipeline.simulate import simulate
    from forecast.scenarios import load_scenario

    rows: list[dict[str, Any]] = []
    for scenario in scenarios:
        digest = priors_digest(scenario)
        forecast = simulate(new_bundle.for_scenario(digest), new_dataset, scenario,
                            draws=draws, seed=seed)
        quantities = revision_quantities(forecast, scenario.horizon)
        new = headline_values(forecast, quantities)
        before = assumptions = None
        priors_changed = False
        previous_id = None
        if previous and scenario.name in previous:
            previous_bundle, previous_dataset = previous[scenario.name]
            previous_id = previous_bundle.fit_id
            old_scenario = scenario
            snapshot = previous_bundle.scenarios_dir
            if snapshot is not None and (snapshot / f"{scenario.name}.toml").exists():
                old_scenario = load_scenario(scenario.name, snapshot)
            old_digest = priors_digest(old_scenario)
            priors_changed = old_digest != digest
            if previous_bundle.keys_for(old_digest) is not None:
                old_models = previous_bundle.for_scenario(old_digest)
                before = headline_values(simulate(old_models, previous_dataset, old_scenario,
                                                  draws=draws, seed=seed), quantities)
                assumptions = headline_values(simulate(old_models, previous_dataset, scenario,
                                                       draws=draws, seed=seed), quantities)
        rows += [{**row, "previous_fit": previous_id} for row in
                 _move_rows(scenario.name, before, assumptions, new, priors_changed)]
    return pd.DataFrame.from_records(rows)


def _fmt(value: float, metric: str) -> str:
    """A value of the row named ``metric`` (a row name such as ``share:2030:aws``)."""
    return format_number(value, parse_metric_key(metric).unit, missing="-")


def _interval(row: Any, prefix: str) -> str:
    low, high = getattr(row, f"{prefix}_q10"), getattr(row, f"{prefix}_q90")
    if low != low or high != high:
        return ""
    return f" [{_fmt(low, row.metric)}, {_fmt(high, row.metric)}]"


def to_markdown(table: pd.DataFrame, header: dict[str, Any]) -> str:
    """The report as Markdown: one table per scenario, then how the data changed."""
    lines = [f"# Revision report: fit {header['fit_id']}", "",
             f"- as of {header.get('as_of')}, data to {header.get('data_end')}",
             f"- data drop: {header.get('drop') or 'none'} ({header.get('merge', '')})",
             f"- status: {header.get('status')}", "",
             "Medians with 80% intervals; thesis rows are probabilities. The move splits into "
             "changed assumptions (scenario files) and new data with the refit.", ""]
    for scenario, rows in table.groupby("scenario", sort=False):
        lines += [f"## {scenario}", "",
                  f"Previous fit of this scenario: {rows['previous_fit'].iloc[0] or 'none'}.",
                  "",
                  "| metric | previous | new | move | from assumptions | from data |",
                  "|---|---:|---:|---:|---:|---:|"]
        for row in rows.itertuples(index=False):
            note = " (priors changed)" if row.priors_changed else ""
            lines.append(
                f"| {row.metric}{note} | {_fmt(row.previous_q50, row.metric)}"
                f"{_interval(row, 'previous')} | {_fmt(row.new_q50, row.metric)}"
                f"{_interval(row, 'new')} | {_fmt(row.move, row.metric)} | "
                f"{_fmt(row.from_assumptions, row.metric)} | "
                f"{_fmt(row.from_data, row.metric)} |")
        lines.append("")
    revisions = header.get("revisions") or []
    if revisions:
        lines += ["## Revised figures", "", "| file | key | column | old | new | new source |",
                  "|---|---|---|---:|---:|---|"]
        lines += [f"| {r['file']} | {r['key']} | {r['column']} | {r['old_value']} | "
                  f"{r['new_value']} | {r['new_source']} |" for r in revisions]
        lines.append("")
    return "\n".join(lines)


def compare_fits(old_id: str, new_id: str, root: str | Path | None = None, draws: int = 2000,
                 seed: int = 0) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The revision table between two stored fits, and the header of its report.

    Every scenario both fits cover is forecast as :func:`revision_table` does, with the
    scenario files the new fit stored (else the shipped ones) and each fit's own data.

    Parameters
    ----------
    old_id, new_id
        The earlier and the later fit.
    root
        Fit store (default: the project's ``artifacts/``).
    draws, seed
        Paths and seed of every forecast.

    Returns
    -------
    (pandas.DataFrame, dict)
        The table and the header for :func:`to_markdown` / :func:`to_json`.

    Raises
    ------
    ForecastError
        If a fit is missing or the two share no scenario.
    """
    from forecast.pipeline.runner import fit_dataset
    from forecast.scenarios import load_scenario
    from forecast.store.bundles import load_bundle

    old = load_bundle(old_id, root)
    new = load_bundle(new_id, root)
    names = [name for name in new.scenarios if name in old.scenarios]
    if not names:
        raise ForecastError(f"fits {old_id} and {new_id} share no scenario")
    scenarios = [load_scenario(name, new.scenarios_dir) if new.scenarios_dir is not None
                 and (new.scenarios_dir / f"{name}.toml").exists() else load_scenario(name)
                 for name in names]
    before = (old, fit_dataset(old.data_dir, old.meta.get("as_of")))
    table = revision_table(new, fit_dataset(new.data_dir, new.meta.get("as_of")), scenarios,
                           dict.fromkeys(names, before), draws=draws, seed=seed)
    header = {"fit_id": new.fit_id, "previous_fit": old.fit_id, "as_of": new.meta.get("as_of"),
              "data_end": new.meta.get("data_end"), "status": new.status,
              "drop": new.meta.get("drop"), "merge": new.meta.get("merge", "")}
    return table, header


def to_json(table: pd.DataFrame, header: dict[str, Any]) -> str:
    """The report as JSON: the header and one record per (scenario, metric); NaN as null."""
    records = json.loads(table.to_json(orient="records"))
    return json.dumps({**header, "rows": records}, indent=2, sort_keys=True, default=str)
