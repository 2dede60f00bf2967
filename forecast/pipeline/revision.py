"""Revision report: how each headline forecast moved from the previous fit to a new one.

For every scenario of the new fit and every headline metric (TAM 2026 and 2030, NVIDIA and
AWS share 2030, AWS revenue 2030, each thesis), three forecasts are made with the same draws
and seed (common random numbers, so differences are not Monte Carlo noise):

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
from collections.abc import Mapping
from typing import Any

import pandas as pd

from forecast.data.dataset import Dataset
from forecast.pipeline.results import Forecast
from forecast.store.bundles import FitBundle

#: (metric, calendar year, vendor) of each headline quantity.
HEADLINE_METRICS: tuple[tuple[str, str, str], ...] = (
    ("tam", "2026", ""),
    ("tam", "2030", ""),
    ("share", "2030", "nvidia"),
    ("share", "2030", "aws"),
    ("aws_revenue_topdown", "2030", ""),
)


def headline_values(forecast: Forecast) -> dict[str, dict[str, float]]:
    """Median and 80% interval of each headline metric, and every thesis probability."""
    values: dict[str, dict[str, float]] = {}
    for metric, period, vendor in HEADLINE_METRICS:
        if metric not in forecast.data:
            continue
        table = forecast.quantiles(metric)
        column = table.columns[2]
        match = table[(table["period"] == period) & (table[column].astype(str) == vendor)]
        if match.empty:
            continue
        row = match.iloc[0]
        name = f"{metric}:{period}" + (f":{vendor}" if vendor else "")
        values[name] = {"q10": float(row["q10"]), "q50": float(row["q50"]),
                        "q90": float(row["q90"])}
    for thesis in forecast.theses().itertuples(index=False):
        values[f"thesis:{thesis.name}"] = {"q50": float(thesis.probability),
                                            "mcse": float(thesis.mcse)}
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
    gets NaN for the previous values.
    """
    from forecast.pipeline.fitting import priors_digest
    from forecast.pipeline.simulate import simulate
    from forecast.scenarios import load_scenario

    rows: list[dict[str, Any]] = []
    for scenario in scenarios:
        digest = priors_digest(scenario)
        new = headline_values(simulate(new_bundle.for_scenario(digest), new_dataset, scenario,
                                       draws=draws, seed=seed))
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
                                                  draws=draws, seed=seed))
                assumptions = headline_values(simulate(old_models, previous_dataset, scenario,
                                                       draws=draws, seed=seed))
        rows += [{**row, "previous_fit": previous_id} for row in
                 _move_rows(scenario.name, before, assumptions, new, priors_changed)]
    return pd.DataFrame.from_records(rows)


def _fmt(value: float, metric: str) -> str:
    if value != value:  # NaN
        return "-"
    if metric.startswith(("share", "thesis")):
        return f"{value:.3f}"
    return f"{value:,.1f}"


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


def to_json(table: pd.DataFrame, header: dict[str, Any]) -> str:
    """The report as JSON: the header and one record per (scenario, metric); NaN as null."""
    records = json.loads(table.to_json(orient="records"))
    return json.dumps({**header, "rows": records}, indent=2, sort_keys=True, default=str)
