"""docs/results.md and the README's headline table, written from the shipped fit.

``python -m forecast.reporting.results`` forecasts bull, base and bear from the published fit
that ships with the package (``published/``, never the user's store), at each scenario's own
draws and seed, and writes every number of the results page: the headline medians and thesis
probabilities, annual quantiles, how much of each thesis the scenario inputs explain, how
often each long-horizon bound binds, the fit's diagnostics and the backtests stored beside
the fit. Nothing is sampled: anyone reproduces the page byte for byte, and a test fails when
the committed page differs from what this writes (the numbers cannot drift).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.presentation import format_number
from forecast.economics.chip_costs import input_medians
from forecast.pipeline.results import Forecast
from forecast.reporting.cards import card_blocks, write_cards
from forecast.reporting.spend_figures import (
    amd_path_table,
    held_ramps_table,
    held_steps_table,
)
from forecast.scenarios import load_scenario
from forecast.store.shipped import BACKTESTS

ROOT = Path(__file__).resolve().parents[2]
RESULTS_FILE = ROOT / "docs" / "results.md"
README_FILE = ROOT / "README.md"
CARDS_DIR = ROOT / "docs" / "models"
#: The README's block this script writes, between these markers.
HEADLINE_MARKERS = ("<!-- results:headline -->", "<!-- /results:headline -->")
SCENARIOS = ("bull", "base", "bear")
#: Annual tables of the page: metric, vendor (or None) and the years shown.
TABLES: tuple[tuple[str, str | None], ...] = (
    ("tam", None), ("share", "nvidia"), ("share", "amd"), ("share", "google"),
    ("share", "aws"), ("share", "other"), ("aws_spend_at_cost", None),
    ("aws_rental_revenue", None), ("aws_merchant_value", None),
    ("custom_silicon_spend", None), ("bound_funding", None), ("bound_power", None),
    ("bound_supply", None),
)


def forecasts(scenarios: Sequence[str] = SCENARIOS) -> dict[str, Forecast]:
    """Each scenario's forecast from the shipped fit (an empty store: nothing else)."""
    from forecast.pipeline.runner import run_scenario

    with tempfile.TemporaryDirectory(prefix="forecast-results-") as store:
        return {name: run_scenario(name, root=store) for name in scenarios}


def _cell(values: np.ndarray) -> str:
    q10, q50, q90 = np.quantile(values, [0.1, 0.5, 0.9])
    return f"{format_number(q50)} ({format_number(q10)}-{format_number(q90)})"


def headline(results: dict[str, Forecast]) -> str:
    """The README's table: medians (10-90%) of the headline quantities and each default
    thesis's probability, one column per scenario."""
    names = list(results)
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for label, metric, vendor, year in (("TAM 2026, USD bn", "tam", None, 2026),
                                        ("TAM 2030, USD bn", "tam", None, 2030),
                                        ("NVIDIA share 2030", "share", "nvidia", 2030),
                                        ("AWS share 2030", "share", "aws", 2030),
                                        ("AWS rental revenue 2030, USD bn", "aws_rental_revenue",
                                         None, 2030)):
        cells = [_cell(_annual(results[n], metric, vendor, year)) for n in names]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    theses = {n: results[n].theses().set_index("name") for n in names}
    for thesis in theses[names[0]].index:
        cells = []
        for n in names:
            row = theses[n].loc[thesis]
            cells.append("n/a" if pd.isna(row["probability"])
                         else f"{row['probability']:.2f} ± {row['mcse']:.2f}")
        lines.append(f"| P({thesis}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _annual(result: Forecast, metric: str, vendor: str | None, year: int) -> np.ndarray:
    values = result.annual(metric)
    if vendor is not None:
        values = values.sel(vendor=vendor)
    return values.sel(period=str(year)).values


def annual_tables(result: Forecast) -> str:
    """Annual medians (10-90%) of every metric of :data:`TABLES`, one row per metric."""
    # The calendar years the forecast covers whole (it starts after the data's last quarter).
    quarters = {str(q) for q in result.data["quarter"].values}
    years = sorted({int(q[:4]) for q in quarters
                    if all(f"{q[:4]}Q{k}" in quarters for k in range(1, 5))})
    lines = ["| metric | " + " | ".join(map(str, years)) + " |",
             "|---|" + "---|" * len(years)]
    for metric, vendor in TABLES:
        if metric not in result.data:
            continue
        unit = result.data[metric].attrs.get("unit", "")
        label = f"{metric}{':' + vendor if vendor else ''}"
        cells = [_cell(_annual(result, metric, vendor, year)) for year in years]
        lines.append(f"| {label} ({unit}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def tails_table(results: Mapping[str, Forecast], year: int = 2030) -> str:
    """``year``'s TAM per scenario with M6's bounds and without them (the demand the trend
    carries, on the same paths), and the funding bound's median."""
    lines = ["| scenario | TAM with bounds | 90th/10th | without bounds | 90th/10th | "
             "funding bound (median) |", "|---|---|---|---|---|---|"]
    for name, result in results.items():
        cells = []
        for metric in ("tam", "tam_demand"):
            values = _annual(result, metric, None, year)
            q10, q90 = np.quantile(values, [0.1, 0.9])
            cells += [_cell(values), f"{q90 / q10:.1f}"]
        funding = float(np.median(_annual(result, "bound_funding", None, year)))
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {format_number(funding)} |")
    return "\n".join(lines)


def merchant_table(results: Mapping[str, Forecast], year: int = 2026) -> str:
    """``year``'s AWS merchant-equivalent value against its spend at cost per scenario: the
    same effective compute at NVIDIA's price and at AWS's cost, so their ratio is NVIDIA's
    price per effective PFLOP over AWS's cost per effective PFLOP."""
    lines = ["| scenario | spend at cost | merchant value | merchant / spend (median) | "
             "P(merchant >= spend) | AWS's cost, USD per dense PFLOP (median) | NVIDIA's "
             "price, USD per dense PFLOP (median) | MFU AWS / NVIDIA (input medians) | falls |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, result in results.items():
        mfu = input_medians(load_scenario(name), ["mfu_aws", "mfu_nvidia"])
        spend = _annual(result, "aws_spend_at_cost", None, year)
        merchant = _annual(result, "aws_merchant_value", None, year)
        ratio = float(np.median(merchant / spend))
        data = result.data.sel(quarter=[f"{year}Q{k}" for k in range(1, 5)])
        dense = (data["aws_shipments"] * data["aws_pflops"]).sum(["generation", "quarter"])
        cost = float(np.median(spend * 1e9 / dense.values))
        price = float(np.median(_annual(result, "aws_merchant_price", None, year)))
        lines.append(f"| {name} | {_cell(spend)} | {_cell(merchant)} | {ratio:.2f} | "
                     f"{np.mean(merchant >= spend):.2f} | {format_number(cost)} | "
                     f"{format_number(price)} | {mfu['mfu_aws']:.3g} / {mfu['mfu_nvidia']:.3g} "
                     f"| {'above' if ratio >= 1.0 else 'below'} |")
    return "\n".join(lines)


#: Periods of AMD's accelerator spend the spend card sets against AMD's Instinct statements.
AMD_SPLIT_PERIODS: dict[str, tuple[str, ...]] = {
    "2023Q4": ("2023Q4",), "2024": tuple(f"2024Q{k}" for k in range(1, 5))}


def amd_split_table(result: Forecast) -> str:
    """AMD's fitted accelerator spend (USD bn) over :data:`AMD_SPLIT_PERIODS`, path by path
    from the fit's in-sample quarters."""
    spend = result.in_sample["spend"].sel(vendor="amd")
    lines = ["| period | AMD accelerator spend, median (10-90%), USD bn |", "|---|---|"]
    for label, quarters in AMD_SPLIT_PERIODS.items():
        values = spend.sel(quarter=list(quarters)).sum("quarter").values
        lines.append(f"| {label} | {_cell(values)} |")
    return "\n".join(lines)


def theses_table(result: Forecast, explained: dict[str, float]) -> str:
    """Each thesis: probability, Monte Carlo error, and the share of its metric's variance
    the scenario inputs explain (the rest is the posterior's)."""
    lines = ["| thesis | P | MC error | inputs explain | posterior |", "|---|---|---|---|---|"]
    for row in result.theses().itertuples(index=False):
        share = explained.get(row.name, float("nan"))
        prob = "n/a" if pd.isna(row.probability) else f"{row.probability:.3f}"
        mcse = "n/a" if pd.isna(row.mcse) else f"{row.mcse:.3f}"
        left = "n/a" if not np.isfinite(share) else f"{1.0 - share:.0%}"
        given = "n/a" if not np.isfinite(share) else f"{share:.0%}"
        lines.append(f"| {row.name} | {prob} | {mcse} | {given} | {left} |")
    return "\n".join(lines)


def explained_by_inputs(result: Forecast, scenario: Any) -> dict[str, float]:
    """For each thesis, the share of its metric's variance the scenario inputs explain
    (:func:`forecast.pipeline.believe.explained_share` on the forecast's own draws)."""
    from forecast.pipeline.believe import explained_share
    from forecast.pipeline.theses import thesis_values

    inputs = scenario.sample(result.draws, seed=result.seed)
    out = {}
    for spec in result.theses_specs:
        try:
            values = thesis_values(result.data, spec, result.in_sample)
        except Exception:  # noqa: BLE001 - a thesis on a past period has no forecast values
            continue
        finite = np.isfinite(values)
        if finite.sum() > 10 * len(inputs.columns):
            out[spec.name] = explained_share(inputs[finite], values[finite])
    return out


def binding_table(result: Forecast) -> str:
    """How often each bound binds per year (share of paths): the tightest and exceeded."""
    frame = result.bounds_binding()
    if frame.empty:
        return "(no bound paths)"
    table = frame.pivot(index="year", columns="bound", values="share")
    columns = [c for c in ("funding", "power", "supply", "none") if c in table.columns]
    lines = ["| year | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for year, row in table[columns].iterrows():
        lines.append(f"| {year} | " + " | ".join(f"{row[c]:.0%}" for c in columns) + " |")
    return "\n".join(lines)


def diagnostics_table(header: dict[str, Any]) -> str:
    """Every model of the shipped fit: r_hat, ESS, divergences, draws kept, their ESS."""
    lines = ["| model | max r_hat | min bulk ESS | divergences | draws kept | ESS kept |",
             "|---|---|---|---|---|---|"]
    for key, values in sorted(header.get("diagnostics", {}).items()):
        kept = header.get("kept", {}).get(key, {})
        lines.append(f"| {key} | {values['max_r_hat']:.3f} | {values['min_ess_bulk']:.0f} | "
                     f"{values['divergences']} | {kept.get('draws_kept', '')} | "
                     f"{kept.get('min_ess_bulk_kept', '')} |")
    return "\n".join(lines)


def backtest_texts(directory: Path | None) -> dict[str, str]:
    """Each backtest stored beside the shipped fit (``backtests/<name>.json``, the JSON of
    ``python cli.py backtest NAME --format json`` at the default sampler) as a table."""
    files = sorted((directory / BACKTESTS).glob("*.json")) if directory else []
    texts = {}
    for path in files:
        report = json.loads(path.read_text())
        lines = [f"Command: `{report.get('command', '')}`", "",
                 "| model | n | log CRPS | CRPS | 80% coverage | 95% coverage | mean PIT |",
                 "|---|---|---|---|---|---|---|"]
        for model in report.get("models", []):
            pooled = model["pooled"]
            lines.append(f"| {model['model']} | {pooled['n']} | {_num(pooled.get('log_crps'))} | "
                         f"{_num(pooled.get('crps'))} | {_num(pooled.get('coverage_80'))} | "
                         f"{_num(pooled.get('coverage_95'))} | {_num(pooled.get('mean_pit'))} |")
        lines += ["", *_by_quarters_ahead(report.get("models", [])), *_by_series(report),
                  *_by_cutoff(report), *_by_price_class(report),
                  *_stack_weights(report.get("weights", {}))]
        texts[path.stem] = "\n".join(lines)
    return texts


def _stack_weights(weights: dict[str, float]) -> list[str]:
    """The stack's weight of the model at each origin, learnt on the earlier ones, and the
    weight a forecast uses (learnt on every origin by the data's end)."""
    if not weights:
        return []
    origins = [label for label in weights if label != "forecast"]
    lines = ["", "The stack's weight of the model, learnt out of sample:", "",
             "| " + " | ".join(origins) + (" | forecast |" if "forecast" in weights else " |"),
             "|" + "---|" * (len(origins) + ("forecast" in weights))]
    values = [weights[label] for label in origins] + (
        [weights["forecast"]] if "forecast" in weights else [])
    lines.append("| " + " | ".join(_num(value) for value in values) + " |")
    return lines


def _by_quarters_ahead(models: list[dict[str, Any]]) -> list[str]:
    """80% coverage of each model by quarters ahead."""
    ahead = sorted({row["quarters_ahead"] for model in models
                    for row in model["by_quarters_ahead"]})
    lines = ["80% coverage by quarters ahead:", "",
             "| model | " + " | ".join(f"h={h}" for h in ahead) + " |",
             "|---|" + "---|" * len(ahead)]
    for model in models:
        cells = {row["quarters_ahead"]: _num(row.get("coverage_80"))
                 for row in model["by_quarters_ahead"]}
        lines.append(f"| {model['model']} | " + " | ".join(cells.get(h, "") for h in ahead)
                     + " |")
    return lines


def _by_series(report: dict[str, Any]) -> list[str]:
    """Log CRPS and 80% coverage of each model per series, over every quarter ahead."""
    rows = [row for row in report.get("summary", [])
            if "series" in row and str(row.get("quarters_ahead")) == "all"]
    if not rows:
        return []
    lines = ["", "Per series, all quarters ahead:", "",
             "| series | model | n | log CRPS | 80% coverage |", "|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['series']} | {row['model']} | {row['n']} | "
                     f"{_num(row.get('crps_log'))} | {_num(row.get('coverage_80'))} |")
    return lines


def _by_cutoff(report: dict[str, Any]) -> list[str]:
    """Log CRPS of each model per series and cut-off, over every quarter ahead."""
    rows = report.get("by_cutoff", [])
    if not rows:
        return []
    models = list(dict.fromkeys(row["model"] for row in rows))
    cells = {(row["series"], row["cutoff"], row["model"]): row for row in rows}
    lines = ["", "Log CRPS per series and cut-off, all quarters ahead (n cells; a model "
             "scored on fewer says so):", "",
             "| series | cut-off | n | " + " | ".join(models) + " |",
             "|---|---|---|" + "---|" * len(models)]
    for series, cutoff in dict.fromkeys((row["series"], row["cutoff"]) for row in rows):
        scores = [cells.get((series, cutoff, model)) for model in models]
        n = max(row["n"] for row in scores if row)
        lines.append(f"| {series} | {cutoff} | {n} | " + " | ".join(
            "" if row is None else _num(row["crps_log"])
            + ("" if row["n"] == n else f" (n={row['n']})") for row in scores) + " |")
    return lines


def _by_price_class(report: dict[str, Any]) -> list[str]:
    """The price backtest's list and market prices apart, over every quarter ahead."""
    classes = report.get("by_price_class", {})
    if not classes:
        return []
    lines = ["", "List and market prices apart, all quarters ahead:", "",
             "| prices | model | n | log CRPS | 80% coverage | mean PIT |",
             "|---|---|---|---|---|---|"]
    for label, part in classes.items():
        for model in part.get("models", []):
            pooled = model["pooled"]
            lines.append(f"| {label} | {model['model']} | {pooled['n']} | "
                         f"{_num(pooled.get('log_crps'))} | {_num(pooled.get('coverage_80'))} "
                         f"| {_num(pooled.get('mean_pit'))} |")
    return lines


def backtest_section(directory: Path | None) -> str:
    """The stored backtests, one subsection each."""
    texts = backtest_texts(directory)
    if not texts:
        return "No backtest is stored beside the shipped fit."
    return "\n\n".join(f"### {name}\n\n{text}" for name, text in texts.items())


def shipped_models(scenario: str = "base") -> dict[str, Any]:
    """Each fitted model of ``scenario``'s shipped fit, by name."""
    from forecast.pipeline.runner import load_run

    with tempfile.TemporaryDirectory(prefix="forecast-results-") as store:
        _, _, bundle = load_run(scenario, root=store)
        return dict(bundle.models)


def _num(value: Any) -> str:
    return "" if value is None else f"{float(value):.3f}"


def render(results: dict[str, Forecast] | None = None
           ) -> tuple[str, str, dict[str, str]]:
    """(docs/results.md, the README's headline block, the model cards' blocks) from the
    shipped fit."""
    from forecast.scenarios import load_scenario
    from forecast.store.shipped import shipped_dir, shipped_header

    header = shipped_header() or {}
    results = results if results is not None else forecasts()
    top = headline(results)
    parts = ["# Results", "",
             "Written by `python -m forecast.reporting.results` from the published fit "
             f"`{header.get('fit_id', '?')}` (data hash {str(header.get('data_hash'))[:12]}); "
             "do not edit by hand: a test regenerates this page and fails on any difference.",
             "", "## Headline", "", "Median (10-90%) of each calendar year's value; thesis "
             "probabilities with their Monte Carlo error.", "", top]
    bounds = []
    for name, result in results.items():
        scenario = load_scenario(name)
        binding = binding_table(result)
        bounds += [f"**{name}**", "", binding, ""]
        parts += ["", f"## {name}", "", f"{result.draws} paths, seed {result.seed}.", "",
                  "### Annual quantiles", "", annual_tables(result), "",
                  "### Theses", "", theses_table(result, explained_by_inputs(result, scenario)),
                  "", "### How often each long-horizon bound binds", "", binding]
    parts += ["", "## Fit diagnostics", "", diagnostics_table(header), "",
              "## Backtests", "", backtest_section(shipped_dir())]
    tails = tails_table(results)
    bounds += ["USD bn in 2030, median (10-90%), with the bounds and without them:", "", tails]
    models = shipped_models()
    blocks = card_blocks(header, {name: fitted.summary() for name, fitted in models.items()},
                         backtest_texts(shipped_dir()), "\n".join(bounds).strip())
    if "spend" in models:
        blocks["held-steps"] = held_steps_table(models["spend"])
        blocks["held-ramps"] = held_ramps_table(models["spend"])
        blocks["amd-path"] = amd_path_table(models["spend"])
    blocks["aws-merchant-2026"] = merchant_table(results)
    blocks["amd-split"] = amd_split_table(results["base"])
    return "\n".join(parts) + "\n", top, blocks


def write(results_file: Path = RESULTS_FILE, readme: Path = README_FILE,
          cards: Path = CARDS_DIR) -> None:
    """Write docs/results.md, the README's headline block and the model cards' blocks."""
    page, top, blocks = render()
    results_file.write_text(page)
    text = readme.read_text()
    start, end = HEADLINE_MARKERS
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if pattern.search(text):
        readme.write_text(pattern.sub(lambda _: f"{start}\n{top}\n{end}", text))
    write_cards(cards, blocks)
    write_figures(forecasts(("base",))["base"], cards / "figures")


#: The cards' figures: file name -> (metric, key, stacked) of base's forecast.
FIGURES: dict[str, tuple[str, str | None, bool]] = {
    "spend_shares_fan.png": ("share", None, True),
    "spend_nvidia_fan.png": ("spend", "nvidia", False),
    "spend_aws_fan.png": ("spend", "aws", False),
    "bounds_tam_fan.png": ("tam", None, False),
    "price_h100_fan.png": ("price", "H100", False),
}


def write_figures(result: Forecast, directory: Path) -> list[Path]:
    """The cards' fan charts of base's forecast (history where the fit has it)."""
    from forecast.reporting.plots import fan_chart, save, stacked_shares

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (metric, key, stacked) in FIGURES.items():
        if metric not in result.data:
            continue
        if key is not None and "chip" in result.data[metric].dims:
            key = next((str(c) for c in result.data["chip"].values if key in str(c)), None)
            if key is None:
                continue
        if stacked:
            rows = result.history
            history = rows[rows["metric"] == metric] if not rows.empty else None
            fig, _ = stacked_shares(result, metric, history)
        else:
            fig, _ = fan_chart(result, metric, key, result.history_for(metric, key))
        save(fig, directory / name)
        written.append(directory / name)
    return written


if __name__ == "__main__":
    write()
    sys.exit(0)
