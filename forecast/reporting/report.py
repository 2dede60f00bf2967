"""A self-contained report of one scenario: HTML (images inline) and the same as Markdown.

:func:`build_report` runs the scenario and the scenarios it is compared with through
:func:`forecast.pipeline.runner.run_scenario` (so its numbers are the Python API's), adds
one-at-a-time and Monte Carlo sensitivity (:mod:`forecast.reporting.sensitivity`) and lays out:

- provenance: scenario, fit, data, draws, seed;
- headline calendar-year quantiles, fan charts with history, stacked vendor shares;
- theses with probabilities and Monte Carlo errors, and across scenarios;
- the scenarios compared (medians in the horizon year, thesis probabilities);
- sensitivity of AWS revenue (or another output): tornado, spider, global ranking, the
  inputs behind the bear tail;
- every assumption of the scenario with its unit, rationale and what it cites; the
  correlations, prior overrides and thesis definitions;
- convergence diagnostics of every model (r_hat, ESS, divergences);
- the data tables behind the fit.

The report is a list of blocks rendered twice (:meth:`Report.html`, :meth:`Report.markdown`).
Every key number in the HTML carries ``data-key`` and ``data-value`` (full precision)
attributes, and :attr:`Report.numbers` holds the same values, so the numbers can be checked
against the API. The HTML has no scripts and no external resources.
"""

from __future__ import annotations

import base64
import html
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.pipeline.results import Forecast, quantile_table

#: Metrics in the headline table, in order.
HEADLINE = ("tam", "share", "aws_revenue_topdown", "aws_revenue_bottomup",
            "custom_silicon_spend")

#: Scenarios the report compares by default.
COMPARE = ("bull", "base", "bear")

#: Inputs drawn in the spider chart (the largest tornado swings).
SPIDER_INPUTS = 6

_CITATION = re.compile(r"data/[\w.-]+\.csv|https?://[^\s,;)\"]+")


def format_value(value: float, unit: str = "") -> str:
    """A number as the report shows it: 3 decimals for fractions and probabilities, 1 for
    USD billions, 4 significant digits otherwise; NaN as an en dash."""
    if value is None or not np.isfinite(value):
        return "\u2013"
    if unit.startswith("fraction") or unit == "probability":
        return f"{value:.3f}"
    if unit == "USD billions":
        return f"{value:,.1f}"
    return f"{value:.4g}"


# --------------------------------------------------------------------------- blocks


@dataclass(frozen=True)
class Cell:
    """A table cell; a numeric one carries its key and full-precision value."""

    text: str
    key: str | None = None
    value: float | None = None


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[Cell]]
    caption: str = ""


@dataclass(frozen=True)
class Image:
    name: str
    alt: str
    png: bytes


Block = Heading | Paragraph | Table | Image


@dataclass
class Report:
    """A built report: its blocks, the numbers it shows and how long each part took."""

    scenario: str
    blocks: list[Block]
    numbers: dict[str, float] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def images(self) -> dict[str, bytes]:
        """PNG bytes by file name."""
        return {b.name: b.png for b in self.blocks if isinstance(b, Image)}

    @property
    def stem(self) -> str:
        return f"report_{self.scenario}"

    def html(self) -> str:
        """One self-contained HTML page (images as base64 data URIs, inline CSS, no JS)."""
        title = next((b.text for b in self.blocks if isinstance(b, Heading)), self.stem)
        sections = [b.text for b in self.blocks if isinstance(b, Heading) and b.level == 2]
        nav = ("<nav><ul>" + "".join(f'<li><a href="#{_anchor(text)}">{html.escape(text)}'
                                     "</a></li>" for text in sections) + "</ul></nav>")
        body = []
        for block in self.blocks:
            if isinstance(block, Heading):
                body.append(f'<h{block.level} id="{_anchor(block.text)}">'
                            f"{html.escape(block.text)}</h{block.level}>")
                if block.level == 1 and sections:
                    body.append(nav)
            elif isinstance(block, Paragraph):
                body.append(f"<p>{html.escape(block.text)}</p>")
            elif isinstance(block, Table):
                body.append(_table_html(block))
            else:
                data = base64.b64encode(block.png).decode("ascii")
                body.append(f'<figure><img src="data:image/png;base64,{data}" '
                            f'alt="{html.escape(block.alt)}" data-name="{block.name}">'
                            f"<figcaption>{html.escape(block.alt)}</figcaption></figure>")
        return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n"
                "<body>\n<main>\n" + "\n".join(body) + "\n</main>\n</body>\n</html>\n")

    def markdown(self, image_dir: str = "") -> str:
        """The same report as Markdown; images are referenced as ``image_dir/name``."""
        lines: list[str] = []
        for block in self.blocks:
            if isinstance(block, Heading):
                lines += ["#" * block.level + " " + block.text, ""]
            elif isinstance(block, Paragraph):
                lines += [block.text, ""]
            elif isinstance(block, Table):
                lines += _table_markdown(block) + [""]
            else:
                path = f"{image_dir}/{block.name}" if image_dir else block.name
                lines += [f"![{block.alt}]({path})", ""]
        return "\n".join(lines)

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write ``report_<scenario>.html``, ``.md`` and the Markdown's PNG files.

        Raises
        ------
        ForecastError
            If the directory cannot be created or written.
        """
        directory = Path(out_dir)
        images = directory / f"{self.stem}_images"
        try:
            images.mkdir(parents=True, exist_ok=True)
            written = []
            for name, png in self.images.items():
                (images / name).write_bytes(png)
                written.append(images / name)
            page = directory / f"{self.stem}.html"
            page.write_text(self.html(), encoding="utf-8")
            text = directory / f"{self.stem}.md"
            text.write_text(self.markdown(images.name), encoding="utf-8")
        except OSError as exc:
            raise ForecastError(f"cannot write the report to {directory}: "
                                f"{exc.strerror or exc}") from None
        return [page, text, *written]


def _anchor(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1d1d1f;
       background: #fff; margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5rem 2rem 4rem; }
h1 { font-size: 1.7rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.8rem 0 1.4rem; font-size: 0.85rem; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.5rem; vertical-align: top; }
th { background: #f4f4f6; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { max-width: 38rem; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; }
figcaption { font-size: 0.8rem; color: #555; }
nav ul { display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; list-style: none; padding: 0; }
nav a { color: #0b57d0; text-decoration: none; }
"""


def _table_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    rows = []
    for row in table.rows:
        cells = []
        for cell in row:
            if cell.key is not None:
                cells.append(f'<td class="num" data-key="{html.escape(cell.key)}" '
                             f'data-value="{cell.value!r}">{html.escape(cell.text)}</td>')
            else:
                cells.append(f'<td class="text">{html.escape(cell.text)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    caption = f"<caption>{html.escape(table.caption)}</caption>" if table.caption else ""
    return (f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table_markdown(table: Table) -> list[str]:
    lines = [f"*{table.caption}*", ""] if table.caption else []
    lines.append("| " + " | ".join(_md_escape(c) for c in table.columns) + " |")
    lines.append("|" + "|".join("---:" if any(r[i].key for r in table.rows) else "---"
                                for i in range(len(table.columns))) + "|")
    for row in table.rows:
        lines.append("| " + " | ".join(_md_escape(cell.text) for cell in row) + " |")
    return lines


class _Builder:
    """Collects blocks and the numbers shown."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.numbers: dict[str, float] = {}

    def heading(self, level: int, text: str) -> None:
        self.blocks.append(Heading(level, text))

    def paragraph(self, text: str) -> None:
        self.blocks.append(Paragraph(text))

    def number(self, key: str, value: float, unit: str = "") -> Cell:
        value = float(value)
        if key in self.numbers and not (self.numbers[key] == value
                                        or (np.isnan(value) and np.isnan(self.numbers[key]))):
            raise AssertionError(f"report key {key} shown with two values")
        self.numbers[key] = value
        return Cell(format_value(value, unit), key, value)

    def table(self, columns: list[str], rows: list[list[Cell | str]], caption: str = "") -> None:
        cells = [[c if isinstance(c, Cell) else Cell(str(c)) for c in row] for row in rows]
        self.blocks.append(Table(columns, cells, caption))

    def image(self, name: str, alt: str, figure: tuple[Any, Any]) -> None:
        from forecast.reporting.plots import png_bytes

        self.blocks.append(Image(name, alt, png_bytes(figure[0])))


# --------------------------------------------------------------------------- sections


def _provenance(b: _Builder, result: Forecast, scenario: Any, bundle: Any) -> None:
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


def _headline(b: _Builder, result: Forecast) -> None:
    b.heading(2, "Headline forecast")
    b.paragraph("Calendar-year 10%, 50% and 90% quantiles over the joint sample paths. Money "
                "is in USD billions a year (the sum of the year's quarters); shares are of the "
                "spend of the covered vendors (the mean of the year's quarters).")
    table = quantile_table(result, [m for m in HEADLINE if m in result.data])
    rows = []
    for row in table.itertuples(index=False):
        key = f"{row.metric}:{row.period}" + (f":{row.vendor}" if row.vendor else "")
        rows.append([row.metric, row.period, row.vendor, row.unit,
                     b.number(f"q10:{key}", row.q10, row.unit),
                     b.number(f"q50:{key}", row.q50, row.unit),
                     b.number(f"q90:{key}", row.q90, row.unit)])
    b.table(["metric", "year", "vendor", "unit", "P10", "P50", "P90"], rows,
            f"Quantiles by calendar year ({result.scenario})")


def _charts(b: _Builder, result: Forecast) -> None:
    from forecast.reporting import plots

    b.heading(2, "Charts")
    b.paragraph("Fan charts: median, 25-75% and 10-90% bands per quarter. History lines are "
                "the fitted models' in-sample medians (TAM is latent spend estimated from "
                "vendor revenue proxies, not an observed series).")
    for metric, title in (("tam", "Data-center accelerator spend (TAM) per quarter"),
                          ("aws_revenue_topdown", "AWS custom-silicon revenue, top-down "
                                                  "(TAM x AWS share), per quarter"),
                          ("custom_silicon_spend", "Custom-silicon spend (Google, AWS, other) "
                                                   "per quarter"),
                          ("aws_revenue_bottomup", "AWS custom-silicon revenue, bottom-up "
                                                   "(fleet x price x hours x utilisation)")):
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


def _theses(b: _Builder, result: Forecast, results: Sequence[Forecast]) -> None:
    from forecast.reporting import plots

    b.heading(2, "Theses")
    theses = result.theses()
    if theses.empty:
        b.paragraph("The scenario defines no theses.")
        return
    rows = []
    for row in theses.to_dict("records"):
        name = row["name"]
        first = row.get("first_year_median")
        never = row.get("never_within_horizon")
        reached = ("" if first is None or not np.isfinite(first) else
                   f"median first year {first:.0f}; never in {never:.0%} of paths")
        rows.append([name, row["statement"],
                     b.number(f"thesis:{name}:probability", row["probability"],
                              "probability"),
                     b.number(f"thesis:{name}:mcse", row["mcse"], "probability"),
                     f"{row['comparator']} {row['threshold']:g}",
                     b.number(f"thesis:{name}:metric_p10", row["metric_p10"]),
                     b.number(f"thesis:{name}:metric_p50", row["metric_p50"]),
                     b.number(f"thesis:{name}:metric_p90", row["metric_p90"]),
                     reached])
    b.table(["thesis", "statement", "P", "MC s.e.", "holds if", "metric P10", "P50", "P90",
             "when reached"], rows, f"Thesis probabilities ({result.scenario})")
    frames = [r.theses().assign(scenario=r.scenario) for r in results]
    b.image("theses_by_scenario.png", "Thesis probabilities by scenario",
            plots.thesis_chart(pd.concat(frames, ignore_index=True)))


def _comparison(b: _Builder, results: Sequence[Forecast]) -> None:
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
        key = f"{row.metric}:{row.period}" + (f":{row.vendor}" if row.vendor else "")
        cells: list[Cell | str] = [row.metric, row.period, row.vendor, row.unit]
        for name in names:
            other = tables[name]
            match = other[(other["metric"] == row.metric) & (other["vendor"] == row.vendor)]
            value = float(match["q50"].iloc[0]) if len(match) else float("nan")
            cells.append(b.number(f"compare:{name}:q50:{key}", value, row.unit))
        rows.append(cells)
    b.table(["metric", "year", "vendor", "unit", *names], rows,
            f"Medians in {horizon} by scenario")
    theses = {r.scenario: r.theses().set_index("name") for r in results}
    thesis_names = list(dict.fromkeys(n for t in theses.values() for n in t.index))
    rows = []
    for thesis in thesis_names:
        cells = [thesis]
        for name in names:
            table = theses[name]
            value = (float(table.loc[thesis, "probability"]) if thesis in table.index
                     else float("nan"))
            cells.append(b.number(f"compare:{name}:thesis:{thesis}", value, "probability"))
        rows.append(cells)
    b.table(["thesis", *names], rows, "Thesis probabilities by scenario")


def _sensitivity(b: _Builder, result: Forecast, scenario: Any, dataset: Any, bundle: Any,
                 output: str, draws: int, spider_inputs: int,
                 progress: Callable[[str], None] | None) -> None:
    from forecast.reporting import plots
    from forecast.reporting.sensitivity import (
        SPIDER_PERCENTILES,
        SimulationSensitivity,
        forecast_inputs,
        global_ranking,
        output_draws,
        parse_output,
        tail_attribution,
    )

    spec = parse_output(output)
    runner = SimulationSensitivity(bundle, dataset, scenario, [spec], draws=draws,
                                   seed=result.seed, horizon=result.meta.get("horizon"),
                                   progress=progress)
    tornado = runner.tornado(spec)
    unit = spec.unit
    b.heading(2, f"Sensitivity: {spec.label}")
    b.paragraph(
        f"One at a time: each input of scenario {scenario.name} moves from its P10 to its P90 "
        f"while every other input stays at its median; the output is the {spec.label} over "
        f"{runner.draws} paths of the models' posterior (seed {runner.seed}, the same in every "
        f"run, so the differences are the inputs' effect, not Monte Carlo noise). Inputs used "
        "only as priors when fitting (the TAM ceiling) cannot move the forecast of a stored "
        "fit and show no swing. Correlations between inputs are ignored here; the global "
        "ranking below includes them.")

    def label(name: str, low: float, high: float) -> str:
        spec_in = scenario.inputs[name]
        return f"{name} ({spec_in.format_value(low)} to {spec_in.format_value(high)})"

    labels = {row.input: label(row.input, row.low_value, row.high_value)
              for row in tornado.itertuples(index=False)}
    b.image("tornado.png", f"Tornado: {spec.label}",
            plots.tornado_chart(tornado, spec.label, unit, labels=labels))
    rows = []
    for row in tornado.itertuples(index=False):
        spec_in = scenario.inputs[row.input]
        rows.append([str(row.rank), row.input, spec_in.format_value(row.low_value),
                     spec_in.format_value(row.high_value), spec_in.unit or "",
                     b.number(f"tornado:{row.input}:output_at_low", row.output_at_low, unit),
                     b.number(f"tornado:{row.input}:output_at_high", row.output_at_high,
                              unit),
                     b.number(f"tornado:{row.input}:swing", row.swing, unit)])
    baseline = float(tornado["baseline"].iloc[0])
    b.table(["rank", "input", "P10", "P90", "unit", "output at P10", "output at P90",
             "swing"], rows,
            f"Tornado: {spec.label}; every input at its median gives "
            f"{format_value(baseline, unit)} {unit}")
    b.numbers["tornado:baseline"] = baseline
    top = [name for name, swing in zip(tornado["input"], tornado["swing"], strict=True)
           if swing > 0][:spider_inputs]
    if top:
        spider = runner.spider(spec, SPIDER_PERCENTILES, inputs=top)
        b.image("spider.png", f"Spider: {spec.label} against the percentile of the "
                f"{len(top)} inputs with the largest swings",
                plots.spider_chart(spider, spec.label, unit, inputs=top))

    inputs = forecast_inputs(scenario, result)
    values = output_draws(result, spec)
    ranking = global_ranking(inputs, values)
    b.heading(3, "Global ranking over the Monte Carlo draws")
    b.paragraph(
        f"All inputs vary together (with the scenario's rank correlations) over the "
        f"{result.draws} paths of the forecast above. Spearman: rank correlation of the input "
        "with the output. SRC / SRRC: standardised regression coefficients of the output on "
        "all inputs at once, on values / on ranks; the regressions explain "
        f"R\u00b2 = {ranking.attrs['r2_src']:.2f} / {ranking.attrs['r2_srrc']:.2f} of the "
        "output's variance, the rest being the models' posterior uncertainty, interactions "
        "and non-linearity." + (" For a thesis, the per-path value is the thesis metric "
                                "over its period." if spec.kind == "thesis" else ""))
    b.numbers["ranking:r2_src"] = float(ranking.attrs["r2_src"])
    b.numbers["ranking:r2_srrc"] = float(ranking.attrs["r2_srrc"])
    rows = [[str(row.rank), row.input,
             b.number(f"ranking:{row.input}:spearman", row.spearman),
             b.number(f"ranking:{row.input}:src", row.src),
             b.number(f"ranking:{row.input}:srrc", row.srrc)]
            for row in ranking.itertuples(index=False)]
    b.table(["rank", "input", "Spearman", "SRC", "SRRC"], rows,
            f"Global ranking: {spec.text}")

    tails = tail_attribution(inputs, values, "bottom", 0.1)
    b.heading(3, "What produces the bear tail")
    b.paragraph(
        f"The {tails.attrs['n_tail']} paths whose {spec.text} is in its bottom 10% (at or "
        f"below {format_value(tails.attrs['threshold'], unit)} {unit}): each input's median "
        "and 10-90% range there against its median over all paths. Mean percentile: where "
        "the tail's values sit, on average, within the input's own distribution (50 = no "
        "tilt). KS: Kolmogorov-Smirnov distance between the tail and all paths.")
    rows = []
    for row in tails.itertuples(index=False):
        spec_in = scenario.inputs[row.input]
        rows.append([str(row.rank), row.input, spec_in.unit or "",
                     spec_in.format_value(row.overall_median),
                     spec_in.format_value(row.tail_median),
                     f"{spec_in.format_value(row.tail_p10)} to "
                     f"{spec_in.format_value(row.tail_p90)}",
                     b.number(f"tail:{row.input}:mean_percentile", row.mean_percentile),
                     b.number(f"tail:{row.input}:ks", row.ks)])
    b.table(["rank", "input", "unit", "median (all)", "median (tail)", "10-90% (tail)",
             "mean percentile", "KS"], rows, f"Bottom 10% of {spec.text}")


def _assumptions(b: _Builder, scenario: Any) -> None:
    b.heading(2, f"Assumptions of scenario {scenario.name}")
    b.paragraph("Every input with its distribution, unit and rationale as written in the "
                "scenario file; 'cites' lists the data files and addresses the rationale "
                "names. Numbers about the world come from data/ (a source on every row) or "
                "from these rationales.")
    rows = []
    for row in scenario.to_table().itertuples(index=False):
        rationale = row.rationale or ""
        cites = ", ".join(dict.fromkeys(_CITATION.findall(rationale))) or "assumption / text"
        rows.append([row.input, f"{row.dist}({row.params})", row.unit or "", row.summary,
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


def _diagnostics(b: _Builder, bundle: Any) -> None:
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


def _data(b: _Builder, dataset: Any) -> None:
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


# --------------------------------------------------------------------------- build


def build_report(
    name: str,
    *,
    draws: int | None = None,
    seed: int | None = None,
    horizon: int | None = None,
    root: str | Path | None = None,
    fit_id: str | None = None,
    data_dir: str | Path | None = None,
    compare: Sequence[str] = COMPARE,
    sensitivity_metric: str | None = None,
    sensitivity_draws: int | None = None,
    spider_inputs: int = SPIDER_INPUTS,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Build the report of one scenario.

    Parameters
    ----------
    name
        Scenario name or file.
    draws, seed, horizon
        Forecast paths, seed and last year for the scenario and the ones compared (defaults:
        each scenario's own).
    root, fit_id, data_dir
        Fit store, a fit id for the main scenario (the compared ones use their latest
        published fit) and data directory, as for :func:`forecast.pipeline.runner.run_scenario`.
    compare
        Scenarios compared with it (the main one is added if missing).
    sensitivity_metric
        Output of the sensitivity section (default ``aws_revenue_topdown:<horizon>``).
    sensitivity_draws
        Paths per one-at-a-time run (default the smaller of 2000 and the forecast's draws).
    spider_inputs
        How many of the largest tornado swings the spider chart shows.
    progress
        Called with a line per step.
    """
    from forecast.pipeline.runner import load_run, run_scenario
    from forecast.reporting.sensitivity import DEFAULT_DRAWS

    say = progress or (lambda message: None)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    result = run_scenario(name, draws=draws, seed=seed, horizon=horizon, root=root,
                          fit_id=fit_id, data_dir=data_dir, progress=progress)
    scenario, dataset, bundle = load_run(name, root=root, fit_id=result.fit_id,
                                         data_dir=data_dir)
    timings["forecast"] = time.perf_counter() - started
    say(f"forecast {result.scenario}: {timings['forecast']:.1f} s")

    mark = time.perf_counter()
    names = list(dict.fromkeys([*compare] if result.scenario in compare
                               else [result.scenario, *compare]))
    results = [result if other == result.scenario else
               run_scenario(other, draws=result.draws, seed=seed, horizon=horizon, root=root,
                            data_dir=data_dir, progress=progress)
               for other in names]
    timings["compare"] = time.perf_counter() - mark
    say(f"compared {', '.join(names)}: {timings['compare']:.1f} s")

    b = _Builder()
    _provenance(b, result, scenario, bundle)
    _headline(b, result)
    mark = time.perf_counter()
    _charts(b, result)
    _theses(b, result, results)
    timings["charts"] = time.perf_counter() - mark
    _comparison(b, results)

    mark = time.perf_counter()
    output = sensitivity_metric or f"aws_revenue_topdown:{result.meta['horizon']}"
    oat_draws = sensitivity_draws or min(DEFAULT_DRAWS, result.draws)
    _sensitivity(b, result, scenario, dataset, bundle, output, oat_draws, spider_inputs,
                 progress)
    timings["sensitivity"] = time.perf_counter() - mark
    say(f"sensitivity: {timings['sensitivity']:.1f} s")

    _assumptions(b, scenario)
    _diagnostics(b, bundle)
    _data(b, dataset)
    timings["total"] = time.perf_counter() - started
    return Report(scenario=result.scenario, blocks=b.blocks, numbers=b.numbers,
                  timings=timings)
