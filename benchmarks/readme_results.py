"""Compute every model-results table README.md shows and print each as Markdown.

One heading per section, named after the README section it feeds, then one Markdown table
per result, each computed through the package's public API (no number is written by hand):

- ``price`` (README "M2 price erosion"): the price fit's sampler and diagnostics, the decay
  table (``decay_table()``), the list-price premium and drift, the statsmodels OLS
  cross-check (``ols_cross_check``, ``ols_decay_rates``) and the price backtest
  (``backtest_price``: one refit before 2024-07-01 and the random walk with drift);
- ``market`` (README "M3 market size"): each scenario's market fit and its diagnostics, the
  NVIDIA compute fraction, the spend of the last four fitted quarters;
- ``share`` (README "M4 market share"): the base share fit, b, NVIDIA's ecosystem lead,
  lambda and rho, and the elasticities of the five vendors (``elasticities``);
- ``forecasts`` (README "M3 market size" and "Forecasts under the three scenarios"): the base
  TAM table, 2030 shares, the theses of every scenario and the fits behind them.
- ``aws`` (README "M5 AWS custom silicon"): spend at cost, rental revenue, merchant-equivalent
  value and the Graviton-inclusive run rate in 2026 and 2030 under bull, base and bear, and
  each scenario's AWS silicon fit with its 2025Q3 run rate.

The market and share backtests, the scenario comparison, the base forecast and the
sensitivity table are printed by ``python cli.py backtest market|share``, ``python cli.py
forecast --compare bull base bear``, ``python cli.py forecast --scenario base`` and ``python
cli.py sensitivity ...``; the README shows those commands' own output.

Fits come from the fit store ``--artifacts`` (default ``artifacts/readme``) through
``forecast.pipeline.runner.load_run``, as the CLI's ``--artifacts`` reads them: made there
with the models' default samplers when absent (bull, base and bear: about 3 minutes on 2
cores) and reused after. The backtests run every time. With the fits stored, on 2 cores:
``price`` about 15 s (its backtest refits the price model once), ``share`` and ``forecasts``
a few seconds.

    python benchmarks/readme_results.py [--section price|market|share|forecasts|aws|all]
                                        [--artifacts DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ARTIFACTS = ROOT / "artifacts" / "readme"
SCENARIOS = ("bull", "base", "bear")
PRICE_CUTOFF = "2024-07-01"
FORECAST_YEAR = "2030"

Block = tuple[str, str]  # (title, Markdown text)

# --------------------------------------------------------------------------- formatting


def markdown(frame: pd.DataFrame, left: int = 1) -> str:
    """A Markdown table of ``frame`` (values as printed by ``str``); the first ``left``
    columns left-aligned, the others right-aligned."""
    columns = [str(c) for c in frame.columns]
    rule = ["---" if i < left else "---:" for i in range(len(columns))]
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join(rule) + "|"]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(value) for value in row) + " |")
    return "\n".join(lines)


def pct(value: float, digits: int = 1, sign: bool = True) -> str:
    """A fraction as a percentage: 0.076 -> ``+7.6%``."""
    return f"{value * 100:{'+' if sign else ''}.{digits}f}%"


def interval(low: float, high: float, fmt: Callable[[float], str]) -> str:
    return f"{fmt(low)} to {fmt(high)}"


def quantiles(values: np.ndarray, levels: Sequence[float] = (0.05, 0.5, 0.95)) -> list[float]:
    return [float(v) for v in np.quantile(np.asarray(values, dtype=float), levels)]


# --------------------------------------------------------------------------- fits


@dataclass
class Context:
    """The fit store and what was loaded from it (each scenario's run loaded once)."""

    root: Path
    runs: dict[str, tuple[Any, Any, Any]] = field(default_factory=dict)

    def run(self, name: str) -> tuple[Any, Any, Any]:
        """(scenario, dataset, bundle) of ``name``: its stored fit, else a new one."""
        from forecast.core.errors import FitError
        from forecast.pipeline.runner import load_run

        if name not in self.runs:
            try:
                self.runs[name] = load_run(name, root=self.root, progress=note)
            except FitError as exc:  # e.g. a fit stored by an older model version
                raise SystemExit(f"{self.root}: {exc}\n(give a fresh --artifacts directory "
                                 "to fit again)") from None
        return self.runs[name]


def note(line: str) -> None:
    """Progress on stderr (stdout holds only the Markdown)."""
    print(line, file=sys.stderr, flush=True)


def diagnostics_row(label: str, fitted: Any) -> dict[str, Any]:
    """Sampler settings and convergence of one fitted model, as a table row."""
    summary, diag, sampler = fitted.summary(), fitted.diagnostics(), fitted.config["sampler"]
    slowest = summary.loc[summary["ess_bulk"].idxmin(), "parameter"]
    return {
        "fit": label,
        "sampler": f"{sampler['nuts_sampler']}, {sampler['chains']} x {sampler['draws']:,} "
                   f"draws after {sampler['tune']:,} tuning, target_accept "
                   f"{sampler['target_accept']}",
        "max r_hat": f"{diag['max_r_hat']:.3f}",
        "min bulk ESS": f"{diag['min_ess_bulk']:.0f} ({slowest})",
        "divergences": diag["divergences"],
        "sampler s": f"{fitted.meta['fit_seconds']:.1f}",
    }


def diagnostics_block(title: str, rows: list[dict[str, Any]]) -> Block:
    return title, markdown(pd.DataFrame(rows), left=2) + (
        "\n\n`sampler s`: the sampler's wall time when the fit was made, with nutpie's "
        "compile when the fit was its model's first in the process")


# --------------------------------------------------------------------------- price


def price_section(ctx: Context) -> list[Block]:
    """M2: the base fit's diagnostics, decay, list prices, OLS cross-check, backtest."""
    _, dataset, bundle = ctx.run("base")
    fitted = bundle.models["price"]
    return [diagnostics_block("price fit (shared by every scenario)",
                              [diagnostics_row("price", fitted)]),
            decay_block(fitted), list_price_block(fitted), ols_block(dataset),
            price_backtest_block(dataset)]


def decay_block(fitted: Any) -> Block:
    table = fitted.decay_table(0.9)
    frame = pd.DataFrame({
        "vendor": table["vendor"],
        "median": table["annual_change_median"].map(pct),
        "90% interval": [interval(lo, hi, pct) for lo, hi in
                         zip(table["annual_change_p5"], table["annual_change_p95"], strict=True)],
        "identified by data?": np.where(table["identified_by_data"], "yes", "no"),
    })
    return "annual change of the market price per chip-hour with age (decay_table())", \
        markdown(frame)


def list_price_block(fitted: Any) -> Block:
    from forecast.models.price import annual_change

    premium = quantiles(fitted.stacked("list_premium"))
    drift = quantiles(annual_change(fitted.stacked("list_drift")[:, 0]))
    frame = pd.DataFrame([
        {"parameter": "list premium at launch (x market price)",
         "median": f"{np.exp(premium[1]):.2f}x (e^{premium[1]:.2f})",
         "90% interval": interval(np.exp(premium[0]), np.exp(premium[2]), lambda v: f"{v:.2f}x")},
        {"parameter": "list-price drift per year",
         "median": pct(drift[1]), "90% interval": interval(drift[0], drift[2], pct)},
    ])
    return "hyperscaler list prices", markdown(frame)


def ols_block(dataset: Any) -> Block:
    from forecast.models.price import annual_change, ols_cross_check, ols_decay_rates

    results = ols_cross_check(dataset)
    rates = ols_decay_rates(results)
    frame = pd.DataFrame({
        "vendor": rates["vendor"],
        "annual change": annual_change(rates["decay"].to_numpy()).tolist(),
        "log slope per year": rates["decay"].map(lambda v: f"{v:+.3f}"),
        "HC3 standard error (log points)": rates["se"].map(lambda v: f"{v * 100:.1f}"),
    })
    frame["annual change"] = frame["annual change"].map(pct)
    return (f"OLS cross-check (chip and pricing-type fixed effects, HC3; "
            f"{int(results.nobs)} observations)", markdown(frame))


def price_backtest_block(dataset: Any) -> Block:
    from forecast.evaluation.price_backtest import backtest_price

    start = time.perf_counter()
    result = backtest_price(dataset, cutoff=PRICE_CUTOFF)
    scores = result.scores
    frame = pd.DataFrame({
        "model": scores["model"], "observations": scores["observations"],
        "CRPS (log price)": scores["crps_log"].map(lambda v: f"{v:.3f}"),
        "80% coverage": scores["coverage_80"].map(lambda v: pct(v, 0, sign=False)),
        "95% coverage": scores["coverage_95"].map(lambda v: pct(v, 0, sign=False)),
    })
    text = markdown(frame) + (
        f"\n\ncut-off {result.cutoff.date()}: {int(scores['observations'].iloc[0])} later "
        f"observations scored, {result.n_excluded} later rows left out; "
        f"{time.perf_counter() - start:.0f} s")
    return f"price backtest (backtest_price, cut-off {PRICE_CUTOFF})", text


# --------------------------------------------------------------------------- market


def market_section(ctx: Context) -> list[Block]:
    """M3: every scenario's market fit, the compute fraction, the latest fitted spend."""
    rows, base = [], None
    for name in ("base", "bull", "bear"):
        _, _, bundle = ctx.run(name)
        rows.append(diagnostics_row(f"market ({name})", bundle.models["market"]))
        base = bundle.models["market"] if name == "base" else base
    return [diagnostics_block("market fits", rows), market_parameters_block(base)]


def market_parameters_block(fitted: Any) -> Block:
    rows = []
    for name, label in (("nvidia_compute_fraction", "NVIDIA compute fraction of Data Center"),
                        ("broadcom_custom_fraction", "Broadcom custom fraction of AI revenue"),
                        ("growth_persistence", "growth persistence phi"),
                        ("growth_longrun", "long-run growth g* per quarter"),
                        ("growth_last", "NVIDIA compute growth in the last quarter"),
                        ("guide_beat_nvidia", "NVIDIA beat of its guide (log)")):
        low, mid, high = quantiles(fitted.stacked(name))
        rows.append({"parameter": label, "median": f"{mid:.3f}",
                     "90% interval": f"{low:.3f} to {high:.3f}"})
    last = fitted.timeline[-4:]
    total = np.exp(fitted.stacked("log_spend")).sum(axis=1)[:, -4:].sum(axis=1)
    low, mid, high = quantiles(total)
    rows.append({"parameter": f"accelerator spend {last[0]}-{last[-1]} (USD bn)",
                 "median": f"{mid:.0f}", "90% interval": f"{low:.0f} to {high:.0f}"})
    return "market model, base fit (posterior)", markdown(pd.DataFrame(rows))


# --------------------------------------------------------------------------- share


def share_section(ctx: Context) -> list[Block]:
    """M4: the base share fit, its parameters and elasticities (the backtest is
    ``python cli.py backtest share``)."""
    _, _, bundle = ctx.run("base")
    fitted = bundle.models["share"]
    return [diagnostics_block("share fit (base)", [diagnostics_row("share (base)", fitted)]),
            share_parameters_block(fitted), elasticities_block(fitted)]


def share_parameters_block(fitted: Any) -> Block:
    rows = []
    for name, label in (("price_coefficient", "b (price coefficient)"),
                        ("ecosystem_nvidia", "NVIDIA's ecosystem lead over the mean rival"),
                        ("adjustment_speed", "lambda (gap to the target closed a quarter)"),
                        ("deviation_persistence", "rho (persistence of the deviation)")):
        low, mid, high = quantiles(fitted.stacked(name))
        rows.append({"parameter": label, "median": f"{mid:.2f}",
                     "90% interval": f"{low:.2f} to {high:.2f}"})
    return "share model, base fit (posterior)", markdown(pd.DataFrame(rows))


def elasticities_block(fitted: Any) -> Block:
    from forecast.models.share import elasticities

    table = elasticities(fitted)
    rows = []
    for vendor in fitted.vendors:
        for j, label in ((vendor, "own"), ("nvidia", "to NVIDIA's cost")):
            if label != "own" and vendor == "nvidia":
                continue
            row = table[(table["vendor_i"] == vendor) & (table["vendor_j"] == j)].iloc[0]
            rows.append({"share of": vendor, "elasticity": label,
                         "median": f"{row['median']:+.3f}",
                         "90% interval": f"{row['p05']:+.3f} to {row['p95']:+.3f}"})
    quarter = fitted.meta["quarters"][-1]
    return (f"elasticities of target shares to cost per effective PFLOP-hour at the {quarter} "
            "target shares (d log s_i / d log k_j)", markdown(pd.DataFrame(rows), left=2))


# --------------------------------------------------------------------------- forecasts


def forecasts_section(ctx: Context) -> list[Block]:
    """Base TAM table, 2030 shares, theses per scenario and the fits behind them."""
    from forecast.pipeline.simulate import simulate

    forecasts = {}
    for name in SCENARIOS:
        scenario, dataset, bundle = ctx.run(name)
        forecasts[name] = simulate(bundle, dataset, scenario)
    base = forecasts["base"]
    tam = base.quantiles("tam")
    tam_frame = pd.DataFrame({"year": tam["period"],
                              **{f"P{q}": tam[f"q{q}"].map(lambda v: f"{v:.0f}")
                                 for q in (10, 50, 90)}})
    header = (f"base forecast of total accelerator spend, USD billions per calendar year "
              f"(fit {base.fit_id}, {base.draws:,} paths, seed {base.seed})")
    return [(header, markdown(tam_frame)), shares_block(forecasts), theses_block(forecasts),
            fits_block(ctx)]


def shares_block(forecasts: dict[str, Any]) -> Block:
    rows = []
    for name, forecast in forecasts.items():
        share = forecast.quantiles("share").query(f"period == '{FORECAST_YEAR}'")
        for row in share.itertuples(index=False):
            rows.append({"scenario": name, "vendor": row.vendor,
                         "median": f"{row.q50:.3f}",
                         "80% interval": f"{row.q10:.3f} to {row.q90:.3f}"})
    return f"share of spend in {FORECAST_YEAR}", markdown(pd.DataFrame(rows), left=2)


def theses_block(forecasts: dict[str, Any]) -> Block:
    frames = []
    for name, forecast in forecasts.items():
        theses = forecast.theses()
        frames.append(pd.DataFrame({
            "thesis": theses["name"], "scenario": name,
            "P +- MC error": [f"{p:.3f} +- {e:.3f}" for p, e in
                              zip(theses["probability"], theses["mcse"], strict=True)],
            "posterior ESS": f"{forecast.meta.get('posterior_ess', float('nan')):.0f}"}))
    frame = pd.concat(frames, ignore_index=True).sort_values("thesis", kind="stable")
    return "thesis probabilities (MC error bounded by the posterior's ESS)", \
        markdown(frame, left=2)


def fits_block(ctx: Context) -> Block:
    rows = []
    for name in SCENARIOS:
        _, _, bundle = ctx.run(name)
        for key, model in bundle.models.items():
            row = diagnostics_row(f"{key} ({name})", model)
            rows.append({"fit id": bundle.fit_id, **row})
    return "fits behind the forecasts", markdown(pd.DataFrame(rows), left=3)


# --------------------------------------------------------------------------- AWS silicon

AWS_METRICS = ("aws_spend_at_cost", "aws_rental_revenue", "aws_merchant_value",
               "aws_custom_chips_run_rate")
AWS_YEARS = ("2026", FORECAST_YEAR)


def aws_section(ctx: Context) -> list[Block]:
    """AWS's three quantities and the Graviton-inclusive run rate in 2026 and 2030 under every
    scenario (each scenario's draws and seed), and the AWS silicon fits behind them."""
    from forecast.core.presentation import unit_of
    from forecast.pipeline.simulate import simulate

    forecasts = {}
    for name in SCENARIOS:
        scenario, dataset, bundle = ctx.run(name)
        forecasts[name] = simulate(bundle, dataset, scenario)
    rows = [{"quantity": metric, "unit": unit_of(metric), "year": year, "scenario": name,
             **{f"P{q}": f"{table.loc[year, f'q{q}']:.1f}" for q in (10, 50, 90)}}
            for metric in AWS_METRICS for year in AWS_YEARS
            for name, table in ((n, f.quantiles(metric).set_index("period"))
                                for n, f in forecasts.items())]
    fits = []
    for name in SCENARIOS:
        fitted = ctx.run(name)[2].models["aws_silicon"]
        rate = fitted.history().query("quantity == 'rental_run_rate'").iloc[-1]
        fits.append({**diagnostics_row(f"aws_silicon ({name})", fitted),
                     f"run rate {rate['quarter']}, USD bn a year (90%)":
                     f"{rate['p50']:.1f} ({rate['p05']:.1f} to {rate['p95']:.1f})"})
    paths = "/".join(sorted({f"{f.draws:,}" for f in forecasts.values()}))
    return [(f"AWS custom silicon per calendar year, 10/50/90% ({paths} paths per scenario, "
             "each scenario's seed)", markdown(pd.DataFrame(rows), left=4)),
            ("the AWS silicon fits behind them", markdown(pd.DataFrame(fits), left=2))]


# --------------------------------------------------------------------------- main

SECTIONS: dict[str, tuple[str, Callable[[Context], list[Block]]]] = {
    "price": ("M2 price erosion", price_section),
    "market": ("M3 market size", market_section),
    "share": ("M4 market share", share_section),
    "forecasts": ("M3 market size (base TAM) and Forecasts under the three scenarios",
                  forecasts_section),
    "aws": ("M5 AWS custom silicon", aws_section),
}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=[*SECTIONS, "all"], default="all",
                        help="the README section to compute (default: all)")
    parser.add_argument("--artifacts", type=Path, default=DEFAULT_ARTIFACTS,
                        help="fit store: fits are made there if absent and reused after "
                             f"(default {DEFAULT_ARTIFACTS.relative_to(ROOT)})")
    return parser.parse_args(argv)


def render(name: str, blocks: list[Block], seconds: float) -> str:
    """A section as Markdown: its heading, each block's title and table."""
    lines = [f"## {name}: README \"{SECTIONS[name][0]}\"", "",
             f"`python benchmarks/readme_results.py --section {name}` ({seconds:.0f} s)"]
    for title, text in blocks:
        lines += ["", f"### {title}", "", text]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    warnings.filterwarnings("ignore")
    ctx = Context(args.artifacts)
    names = list(SECTIONS) if args.section == "all" else [args.section]
    for name in names:
        start = time.perf_counter()
        blocks = SECTIONS[name][1](ctx)
        print(render(name, blocks, time.perf_counter() - start), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
