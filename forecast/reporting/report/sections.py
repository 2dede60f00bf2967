"""The sections of a scenario report, each appending its blocks to a builder.

Provenance, the headline quantiles, charts, theses, the scenarios compared, every assumption
of the scenario, the fit's diagnostics and the data tables; the sensitivity section is in
:mod:`forecast.reporting.report.sensitivity_section`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.presentation import HEADLINE, PROBABILITY, MetricKey
from forecast.pipeline.results import Forecast, quantile_table
from forecast.reporting.report.blocks import Cell, ReportBuilder

_CITATION = re.compile(r"data/[\w.-]+\.csv|https?://[^\s,;)\"]+")


def provenance(b: ReportBuilder, result: Forecast, scenario: Any, bundle: Any) -> None:
    """Title, description and where the numbers come from: scenario, fit, data, paths."""
    b.heading(1, f"Accelerator-market forecast: {scenario.name} scenario")
    b.paragraph(scenario.description)
    meta = bundle.meta
    rows = [
        ["scenario", scenario.name + (f" (extends {scenario.extends})"
                                      if scenario.extends else "")],
        ["scenario file", str(scenario.path.name)],
        ["fit", f"{result.fit_id} ({meta.get('status', 'published')}, created "
                f"{meta.get('created', 'unknown')})"],
        ["data", f"last quarter {result.meta.get('data_end')}, data hash "
                 f"{str(meta.get('data_hash', ''))[:12]}"],
        ["sample paths", f"{result.draws} (seed {result.seed}), horizon "
                         f"{result.meta.get('horizon')}"],
    ]
    b.table(["item", "value"], rows, "Provenance")


def headline(b: ReportBuilder, result: Forecast) -> None:
    """Calendar-year quantiles of the headline metrics, then how often each bound binds."""
    b.heading(2, "Headline forecast")
    b.paragraph("Calendar-year 10%, 50% and 90% quantiles over the joint sample paths. Money "
                "is in USD billions a year (the sum of the year's quarters); shares are of the "
                "spend of the covered vendors (the mean of the year's quarters). AWS's custom "
                "silicon has three quantities from one fleet, never added: spend at cost "
                "(what AWS pays to build its chips, its part of the TAM), Trainium rental "
                "revenue (what renting the fleet earns) and merchant-equivalent value (the "
                "year's shipments priced as NVIDIA GPUs of the same compute); "
                "aws_custom_chips_run_rate is the fourth quarter's rental revenue x 4 plus "
                "the Graviton run rate, as Amazon quotes its custom chips.")
    table = quantile_table(result, [m for m in HEADLINE if m in result.data])
    rows = []
    for row in table.itertuples(index=False):
        key = MetricKey(row.metric, row.period, row.key or None).row_name
        rows.append([row.metric, row.period, row.key, row.unit,
                     b.number(f"q10:{key}", row.q10, row.unit),
                     b.number(f"q50:{key}", row.q50, row.unit),
                     b.number(f"q90:{key}", row.q90, row.unit)])
    b.table(["metric", "year", "vendor", "unit", "P10", "P50", "P90"], rows,
            f"Quantiles by calendar year ({result.scenario})")
    bounds(b, result)


def bounds(b: ReportBuilder, result: Forecast) -> None:
    """How often each of M6's long-horizon bounds binds, per calendar year."""
    binding = result.bounds_binding()
    if binding.empty:
        return
    b.heading(2, "Long-horizon bounds")
    b.paragraph("Fraction of paths in which, in the year's last quarter, the TAM the trend carries "
                "exceeds the tightest of what can be funded, powered and built (the TAM's "
                "growth fades against that bound); none: no bound binds. The bounds "
                "themselves are metrics of the forecast (bound_funding, bound_power, "
                "bound_supply).")
    table = binding.pivot(index="year", columns="bound", values="share")
    names = [c for c in ("funding", "power", "supply", "none") if c in table.columns]
    rows = [[str(year), *(b.number(f"binds:{name}:{year}", table.loc[year, name], "fraction")
                          for name in names)] for year in table.index]
    b.table(["year", *names], rows, f"How often each bound binds ({result.scenario})")


def charts(b: ReportBuilder, result: Forecast) -> None:
    """Fan charts with history, and the stacked vendor shares."""
    from forecast.reporting import plots

    b.heading(2, "Charts")
    b.paragraph("Fan charts: median, 25-75% and 10-90% bands per quarter. History lines are "
                "the fitted models' in-sample medians (TAM is latent spend estimated from "
                "vendor revenue proxies, not an observed series).")
    for metric, title in (("tam", "Data-center accelerator spend (TAM) per quarter"),
                          ("aws_spend_at_cost", "AWS custom silicon: spend at cost (TAM x "
                                                "AWS share) per quarter"),
                          ("aws_rental_revenue", "AWS custom silicon: Trainium rental revenue "
                                                 "(fleet x hours x billed utilisation x "
                                                 "price) per quarter"),
                          ("aws_merchant_value", "AWS custom silicon: merchant-equivalent value "
                                                 "of the quarter's shipments"),
                          ("custom_silicon_spend", "Google TPU and AWS Trainium/Inferentia "
                                                       "spend per quarter")):
        if metric in result.data:
            history = result.history_for(metric)
            b.image(f"fan_{metric}.png", title,
                    plots.fan_chart(result, metric, history=history))
    if "share" in result.data:
        history = (result.history[result.history["metric"] == "share"]
                   if not result.history.empty else None)
        b.image("shares_stacked.png", "Vendor shares of spend, stacked, with the 10-90% band "
                "of each boundary (paler: fitted history)",
                plots.stacked_shares(result, history=history))


def theses(b: ReportBuilder, result: Forecast, results: Sequence[Forecast]) -> None:
    """Thesis probabilities of the scenario, and a chart of them across ``results``."""
    from forecast.reporting import plots

    b.heading(2, "Theses")
    table = result.theses()
    if table.empty:
        b.paragraph("The scenario defines no theses.")
        return
    rows = []
    for row in table.to_dict("records"):
        name = row["name"]
        key = MetricKey(name, kind="thesis").row_name
        first = row.get("first_year_median")
        never = row.get("never_within_horizon")
        reached = ("" if first is None or not np.isfinite(first) else
                   f"median first year {first:.0f}; never in {never:.0%} of paths")
        shares = row.get("first_reached_years")
        if not isinstance(shares, dict):
            shares = row.get("first_reached")
        if isinstance(shares, dict) and any(shares.values()):  # the distribution by year
            reached += ("; " if reached else "") + "first reached: " + ", ".join(
                f"{label} {share:.0%}" for label, share in shares.items() if share >= 0.005)
        rows.append([name, row["statement"],
                     b.number(f"{key}:probability", row["probability"], PROBABILITY),
                     b.number(f"{key}:mcse", row["mcse"], PROBABILITY),
                     f"{row['comparator']} {row['threshold']:g}",
                     b.number(f"{key}:metric_q10", row["metric_q10"]),
                     b.number(f"{key}:metric_q50", row["metric_q50"]),
                     b.number(f"{key}:metric_q90", row["metric_q90"]),
                     reached])
    b.table(["thesis", "statement", "P", "MC s.e.", "holds if", "metric P10", "P50", "P90",
             "when reached"], rows, f"Thesis probabilities ({result.scenario})")
    frames = [r.theses().assign(scenario=r.scenario) for r in results]
    b.image("theses_by_scenario.png", "Thesis probabilities by scenario",
            plots.thesis_chart(pd.concat(frames, ignore_index=True)))


def comparison(b: ReportBuilder, results: Sequence[Forecast]) -> None:
    """Medians in the horizon year and thesis probabilities, scenario by scenario."""
    b.heading(2, "Scenarios compared")
    names = [r.scenario for r in results]
    b.paragraph("Each scenario is forecast from its own latest published fit (fits: "
                + "; ".join(f"{r.scenario} {r.fit_id}" for r in results)
                + f"), with {results[0].draws} paths.")
    horizon = str(results[0].meta["horizon"])
    tables = {r.scenario: quantile_table(r, [m for m in HEADLINE if m in r.data],
                                         years=[horizon]) for r in results}
    first = tables[names[0]]
    rows = []
    for row in first.itertuples(index=False):
        key = MetricKey(row.metric, row.period, row.key or None).row_name
        cells: list[Cell | str] = [row.metric, row.period, row.key, row.unit]
        for name in names:
            other = tables[name]
            match = other[(other["metric"] == row.metric) & (other["key"] == row.key)]
            value = float(match["q50"].iloc[0]) if len(match) else float("nan")
            cells.append(b.number(f"compare:{name}:q50:{key}", value, row.unit))
        rows.append(cells)
    b.table(["metric", "year", "vendor", "unit", *names], rows,
            f"Medians in {horizon} by scenario")
    by_scenario = {r.scenario: r.theses().set_index("name") for r in results}
    thesis_names = list(dict.fromkeys(n for t in by_scenario.values() for n in t.index))
    rows = []
    for thesis in thesis_names:
        cells = [thesis]
        for name in names:
            table = by_scenario[name]
            value = (float(table.loc[thesis, "probability"]) if thesis in table.index
                     else float("nan"))
            key = MetricKey(thesis, kind="thesis").row_name
            cells.append(b.number(f"compare:{name}:{key}", value, PROBABILITY))
        rows.append(cells)
    b.table(["thesis", *names], rows, "Thesis probabilities by scenario")


def assumptions(b: ReportBuilder, scenario: Any) -> None:
    """Every input, correlation, prior override and thesis definition of the scenario."""
    b.heading(2, f"Assumptions of scenario {scenario.name}")
    b.paragraph("Every input with its distribution, unit and rationale as written in the "
                "scenario file; 'cites' lists the data files and addresses the rationale "
                "names. Numbers about the world come from data/ (a source on every row) or "
                "from these rationales.")
    rows = []
    for row in scenario.to_table().itertuples(index=False):
        rationale = row.rationale or ""
        cites = ", ".join(dict.fromkeys(_CITATION.findall(rationale))) or "assumption / text"
        rows.append([row.metric, f"{row.dist}({row.params})", row.unit or "", row.summary,
                     rationale, cites])
    b.table(["input", "distribution", "unit", "median [P10, P90]", "rationale", "cites"],
            rows, "Inputs")
    if scenario.correlations:
        rows = [[a, c, f"{rho:+.2f}"] for (a, c), rho in scenario.correlations.items()]
        b.table(["input", "input", "Spearman rho"], rows,
                "Rank correlations (Gaussian copula)")
    prior_rows = []
    for model, specs in scenario.priors.items():
        for key, spec in specs.items():
            prior_rows.append([model, key, f"{spec.dist}({spec.params_text()})",
                               spec.rationale or ""])
    if prior_rows:
        b.table(["model", "parameter", "prior", "rationale"], prior_rows,
                "Prior overrides (used when fitting)")
    if scenario.theses:
        rows = []
        for thesis in scenario.theses.values():
            subject = thesis.metric + (f" [{thesis.vendor}]" if thesis.vendor else "")
            if thesis.numerator:
                subject += f" [{thesis.numerator} / {thesis.denominator}]"
            rows.append([thesis.name, subject, thesis.period, thesis.aggregate,
                         f"{thesis.comparator} {thesis.threshold:g}"
                         + (f" {thesis.unit}" if thesis.unit else ""), thesis.statement])
        b.table(["thesis", "metric", "period", "aggregate", "holds if", "statement"], rows,
                "Thesis definitions")


def diagnostics(b: ReportBuilder, bundle: Any) -> None:
    """Convergence diagnostics of every model of the fit."""
    b.heading(2, "Fit diagnostics")
    b.paragraph(f"Fit {bundle.fit_id}. A model passes the gate with max r_hat, minimum bulk "
                "ESS and divergences within the limits the fit was checked against.")
    rows = []
    for name, values in bundle.diagnostics().items():
        rows.append([name,
                     b.number(f"diag:{name}:max_r_hat", values["max_r_hat"]),
                     b.number(f"diag:{name}:min_ess_bulk", values["min_ess_bulk"]),
                     b.number(f"diag:{name}:min_ess_tail", values["min_ess_tail"]),
                     b.number(f"diag:{name}:divergences", values["divergences"]),
                     "yes" if values.get("converged") else "no"])
    b.table(["model", "max r_hat", "min bulk ESS", "min tail ESS", "divergences",
             "passes default gate"], rows, "Convergence per model")


def data_tables(b: ReportBuilder, dataset: Any) -> None:
    """Rows, recalled rows and date range of every data table."""
    b.heading(2, "Data")
    b.paragraph("The tables the fit and the forecast read (data/README.md lists the files, "
                "their sources and caveats); recalled rows are flagged in the data and "
                "counted here.")
    rows = []
    for row in dataset.summary().itertuples(index=False):
        first = "" if pd.isna(row.first) else str(pd.Timestamp(row.first).date())
        last = "" if pd.isna(row.last) else str(pd.Timestamp(row.last).date())
        rows.append([row.table, str(row.rows), str(row.recalled_rows), first, last])
    b.table(["table", "rows", "recalled rows", "first", "last"], rows, "Data tables")
