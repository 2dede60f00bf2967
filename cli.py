"""Command line for the accelerator-market forecaster: a thin layer over the ``forecast`` API.

Every command parses its arguments, calls the library and prints. Bad input anywhere is a
one-line message on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import gc
import sys

if __name__ == "__main__":
    # Run as a command. Importing numpy, pandas and xarray creates ~150,000 objects that
    # live until exit; the cyclic garbage collector would scan them several times during
    # the imports and again at exit, about 0.3 s of a 2 s forecast. Paused here, and the
    # survivors frozen out of its reach before the command runs (see the end of the file).
    gc.disable()

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from forecast.core.errors import DataValidationError, ForecastError, RefitBusyError

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_GATED = 3
EXIT_BUSY = 4


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ForecastError(f"{self.prog}: {message}")


def _print_table(frame: pd.DataFrame) -> None:
    with pd.option_context(
        "display.max_rows", None, "display.max_columns", None, "display.width", 200,
        "display.max_colwidth", 60,
    ):
        print(frame.to_string(index=False))


# --------------------------------------------------------------------------- data


def cmd_data_validate(args: argparse.Namespace) -> int:
    from forecast.data.dataset import load_dataset

    dataset = load_dataset(args.data)
    print(f"{dataset.data_dir}: all files valid (data hash {dataset.data_hash[:12]})")
    _print_table(dataset.summary())
    return EXIT_OK


# --------------------------------------------------------------------------- scenarios


def cmd_scenarios_list(args: argparse.Namespace) -> int:
    from forecast.scenarios import list_scenarios

    for scenario in list_scenarios():
        parent = f" (extends {scenario.extends})" if scenario.extends else ""
        print(f"{scenario.name:<12} {scenario.description}{parent}")
    return EXIT_OK


def cmd_scenarios_show(args: argparse.Namespace) -> int:
    from forecast.scenarios import load_scenario

    scenario = load_scenario(args.name)
    print(f"scenario {scenario.name}: {scenario.description}")
    print(f"horizon {scenario.horizon}, draws {scenario.draws}, seed {scenario.seed}")
    print()
    for row in scenario.to_table().itertuples(index=False):
        print(f"{row.input}: {row.dist}({row.params}) [{row.unit}]  "
              f"median [P10, P90] = {row.summary}")
        print(f"    rationale: {row.rationale}")
    if scenario.correlation_names:
        print("\nrank correlations:")
        names = scenario.correlation_names
        matrix = scenario.correlation_matrix
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                if matrix[i][j] != 0:
                    print(f"    {names[i]} ~ {names[j]}: {matrix[i][j]:+.2f}")
    if scenario.theses:
        print("\ntheses:")
        for name, thesis in scenario.theses.items():
            print(f"    {name}: {thesis.statement}")
    return EXIT_OK


def cmd_scenarios_validate(args: argparse.Namespace) -> int:
    from forecast.scenarios import list_scenarios, load_scenario_file

    scenarios = [load_scenario_file(Path(args.file))] if args.file else list_scenarios()
    for scenario in scenarios:
        print(f"{scenario.path}: valid ({len(scenario.inputs)} inputs, "
              f"{len(scenario.theses)} theses)")
    return EXIT_OK


# --------------------------------------------------------------------------- economics


def cmd_economics(args: argparse.Namespace) -> int:
    from forecast.data.dataset import load_dataset
    from forecast.economics.chips import economics_table
    from forecast.scenarios import load_scenario

    dataset = load_dataset(args.data)
    scenario = load_scenario(args.scenario)
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
    table = economics_table(dataset.accelerators, utilisation, prices, precision=args.precision)
    columns = ["chip", "vendor_group", "precision_used", "dense_tflops", "utilisation",
               "price_usd_per_chip_hour", "cost_per_effective_pflop_hour", "price_source", "note"]
    print(f"Cost per effective PFLOP-hour = price per chip-hour / (dense PFLOPS x utilisation);"
          f" utilisation = scenario {scenario.name} medians of mfu_<vendor>.")
    _print_table(table[columns].round(3))
    return EXIT_OK


# --------------------------------------------------------------------------- market


def cmd_series(args: argparse.Namespace) -> int:

    from forecast.data.dataset import load_dataset
    from forecast.models.market import market_series_forecast

    dataset = load_dataset(args.data)
    if args.list or args.name is None:
        for name in market_series_forecast(dataset, None):
            print(name)
        return EXIT_OK
    if args.quarters <= 0:
        raise ForecastError(f"--quarters must be > 0, got {args.quarters}")
    from forecast.pipeline.fitting import load_or_fit
    from forecast.scenarios import load_scenario

    scenario = load_scenario(args.scenario)
    bundle = load_or_fit(dataset, scenario, root=args.artifacts,
                         progress=lambda message: print(message, file=sys.stderr))
    market = bundle.models["market"]
    if args.name not in market.series_names():
        raise ForecastError(f"unknown series {args.name!r} (known: "
                            f"{', '.join(market.series_names())})")
    table = market_series_forecast(dataset, args.name, quarters=args.quarters, fitted=market)
    if args.format == "json":
        print(table.to_json(orient="records", date_format="iso", double_precision=4))
        return EXIT_OK
    print(f"{args.name}: posterior predictive, USD billions per fiscal quarter "
          f"(fit {bundle.fit_id})")
    numeric = table.select_dtypes("number").columns
    table[numeric] = table[numeric].round(3)
    _print_table(table)
    return EXIT_OK


def cmd_backtest(args: argparse.Namespace) -> int:
    from forecast.data.dataset import load_dataset
    from forecast.evaluation.market_backtest import backtest_market

    if args.origins <= 0 or args.horizon <= 0:
        raise ForecastError("--origins and --horizon must be > 0")
    dataset = load_dataset(args.data)
    _, summary = backtest_market(
        dataset, origins=args.origins, horizon=args.horizon, draws=args.draws,
        progress=lambda message: print(message, file=sys.stderr))
    _print_table(summary.round(3))
    return EXIT_OK


# --------------------------------------------------------------------------- diffusion


def cmd_diffusion(args: argparse.Namespace) -> int:
    import json

    from forecast.models.diffusion import diffusion_report, fit_units_csv, read_units_csv

    read_units_csv(args.file, args.model)  # bad input fails here, before the slow part
    if not args.quiet and args.format == "table":
        print(f"fitting {args.model} to {args.file} (NUTS; about 10-30 s)...", file=sys.stderr)
    report = diffusion_report(fit_units_csv(args.file, kind=args.model))
    if args.format == "json":
        print(json.dumps(report, indent=2))
        return EXIT_OK
    print(f"{report['model']} fit to {report['n_observations']} periods "
          f"({int(report['interval'] * 100)}% intervals; p and q per period)")
    table = pd.DataFrame(report["parameters"])
    for column in ("median", "lower", "upper"):
        table[column] = table[column].map(lambda value: f"{value:.4g}")
    _print_table(table)
    status = "converged" if report["converged"] else "NOT CONVERGED: do not rely on it"
    print(f"max r_hat {report['max_r_hat']:.4f}, min bulk ESS {report['min_ess_bulk']:.0f}, "
          f"divergences {report['divergences']}: {status}")
    return EXIT_OK


# --------------------------------------------------------------------------- forecast


HEADLINE = ("tam", "share", "aws_revenue_topdown", "aws_revenue_bottomup",
            "custom_silicon_spend")


def _check_out_dir(out: str) -> Path:
    """Create ``--out`` if needed and prove it writable before any slow work."""
    directory = Path(out)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ForecastError(f"--out {out}: not writable ({exc.strerror})") from None
    return directory


def _write_outputs(result, directory: Path) -> list[Path]:
    """CSV quantiles, Parquet paths, JSON summary, PNG fan charts; all or nothing."""
    import json
    import shutil
    import tempfile

    from forecast.reporting import plots

    staging = Path(tempfile.mkdtemp(prefix=".forecast-", dir=directory))
    try:
        stem = f"forecast_{result.scenario}"
        result.to_csv(staging / f"{stem}_quantiles.csv")
        result.to_parquet(staging / f"{stem}_paths.parquet")
        (staging / f"{stem}_summary.json").write_text(
            json.dumps(result.summary(), indent=2, sort_keys=True))
        charts = [("tam", None), ("share", "nvidia"), ("share", "aws"),
                  ("aws_revenue_topdown", None)]
        for metric, key in charts:
            history = result.history_for(metric, key)
            fig, _ = plots.fan_chart(result, metric, key, history=history)
            name = f"{stem}_{metric}{'_' + key if key else ''}.png"
            plots.save(fig, staging / name)
        written = []
        for path in sorted(staging.iterdir()):
            target = directory / path.name
            path.replace(target)
            written.append(target)
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _forecast_table(result) -> str:
    from forecast.pipeline.results import quantile_table

    table = quantile_table(result, HEADLINE)
    table = table[table["vendor"].isin(["", "nvidia", "amd", "google", "aws", "other"])]
    lines = []
    for metric, group in table.groupby("metric", sort=False):
        unit = group["unit"].iloc[0]
        lines.append(f"{metric} ({unit}), calendar year: 10% / 50% / 90%")
        for row in group.itertuples(index=False):
            label = f"{row.period} {row.vendor}".strip()
            fmt = "{:.3f}" if unit.startswith("fraction") else "{:.1f}"
            lines.append(f"  {label:<16} {fmt.format(row.q10):>8} {fmt.format(row.q50):>8} "
                         f"{fmt.format(row.q90):>8}")
    return "\n".join(lines)


def _theses_table(result) -> str:
    lines = ["theses (probability +- Monte Carlo standard error):"]
    for row in result.theses().itertuples(index=False):
        lines.append(f"  {row.name}: P = {row.probability:.3f} +- {row.mcse:.3f}")
        lines.append(f"      {row.statement}")
        first = getattr(row, "first_year_median", None)
        if first is not None and first == first:
            lines.append(f"      median first year reached: {first:.0f}; never within the "
                         f"horizon in {row.never_within_horizon:.0%} of paths")
    return "\n".join(lines)


def run_forecast(name: str, args: argparse.Namespace):
    from forecast.pipeline.runner import run_scenario

    started = time.perf_counter()

    def progress(message: str) -> None:
        print(f"[{time.perf_counter() - started:5.0f} s] {message}", file=sys.stderr)

    return run_scenario(name, draws=args.draws, seed=args.seed, horizon=args.horizon,
                        root=args.artifacts, fit_id=args.fit, data_dir=args.data,
                        progress=progress)


def cmd_forecast(args: argparse.Namespace) -> int:
    import json

    if args.draws is not None and args.draws <= 0:
        raise ForecastError(f"--draws must be > 0, got {args.draws}")
    out = _check_out_dir(args.out) if args.out else None
    names = args.compare or [args.scenario]
    results = [run_forecast(name, args) for name in names]
    if args.compare:
        import pandas as pd

        from forecast.pipeline.results import quantile_table

        tables = [quantile_table(r, HEADLINE, years=[str(r.meta["horizon"])]).assign(
            scenario=r.scenario) for r in results]
        theses = [r.theses().assign(scenario=r.scenario) for r in results]
        if args.format == "json":
            print(json.dumps([r.summary() for r in results], indent=2, sort_keys=True))
        else:
            merged = pd.concat(tables).pivot_table(
                index=["metric", "period", "vendor"], columns="scenario", values="q50",
                sort=False)[names]
            print(f"median in {results[0].meta['horizon']} by scenario")
            _print_table(merged.round(3).reset_index())
            probabilities = pd.concat(theses).pivot_table(
                index="name", columns="scenario", values="probability", sort=False)[names]
            print("\nthesis probabilities by scenario")
            _print_table(probabilities.round(3).reset_index())
    else:
        result = results[0]
        if args.format == "json":
            print(json.dumps(result.summary(), indent=2, sort_keys=True))
        elif args.format == "csv":
            from forecast.pipeline.results import quantile_table

            print(quantile_table(result, HEADLINE).to_csv(index=False, float_format="%.6g"),
                  end="")
        else:
            print(f"scenario {result.scenario}, fit {result.fit_id}, {result.draws} draws, "
                  f"seed {result.seed}, data to {result.meta['data_end']}")
            print(_forecast_table(result))
            print()
            print(_theses_table(result))
    if out is not None:
        for result in results:
            for path in _write_outputs(result, out):
                print(f"wrote {path}", file=sys.stderr)
    return EXIT_OK


# --------------------------------------------------------------------------- refit and fits


def cmd_refit(args: argparse.Namespace) -> int:
    from forecast.pipeline.refit import REPORT_MARKDOWN, refit

    gate = {key: value for key, value in (("max_r_hat", args.max_r_hat),
                                          ("min_ess_bulk", args.min_ess),
                                          ("max_divergences", args.max_divergences))
            if value is not None}
    sampler = {key: value for key, value in (("draws", args.draws), ("tune", args.tune))
               if value is not None}
    started = time.perf_counter()

    def progress(message: str) -> None:
        print(f"[{time.perf_counter() - started:5.0f} s] {message}", file=sys.stderr)

    result = refit(drop=args.drop, as_of=args.as_of, root=args.artifacts,
                   scenarios=args.scenario, sampler=sampler or None, gate=gate or None,
                   data_dir=args.data, progress=progress, report_draws=args.report_draws)
    bundle = result.bundle
    print(f"fit {bundle.fit_id}: {bundle.status} in {result.seconds:.0f} s "
          f"(previous published fit: {result.previous_fit or 'none'}; {result.merge.describe()})")
    for key, why in bundle.meta["gate_failures"].items():
        print(f"  gate failed for {key}: {', '.join(why)}")
    print(f"revision report: {result.directory / REPORT_MARKDOWN}")
    return EXIT_OK if bundle.status == "published" else EXIT_GATED


def _fits_registry(args: argparse.Namespace):
    from forecast.store.registry import Registry

    return Registry(args.artifacts)


def cmd_fits_list(args: argparse.Namespace) -> int:
    import json

    rows = _fits_registry(args).fits()
    if args.format == "json":
        print(json.dumps(rows, indent=2, sort_keys=True, default=str))
        return EXIT_OK
    if not rows:
        print("no stored fits")
        return EXIT_OK
    table = pd.DataFrame([{
        "fit_id": row["fit_id"], "status": row["status"], "as_of": row["as_of"],
        "data_end": row["data_end"], "scenarios": ",".join(row["scenarios"] or []),
        "max_r_hat": max((d["max_r_hat"] for d in (row["diagnostics"] or {}).values()),
                         default=float("nan")),
        "min_ess": min((d["min_ess_bulk"] for d in (row["diagnostics"] or {}).values()),
                       default=float("nan")),
        "divergences": sum(d["divergences"] for d in (row["diagnostics"] or {}).values()),
        "kind": row["run_kind"]} for row in rows])
    _print_table(table.round({"max_r_hat": 3, "min_ess": 0}))
    return EXIT_OK


def cmd_fits_show(args: argparse.Namespace) -> int:
    import json

    from forecast.store.bundles import fit_directory, read_header

    header = read_header(fit_directory(args.fit_id, args.artifacts))
    if args.format == "json":
        print(json.dumps(header, indent=2, sort_keys=True, default=str))
        return EXIT_OK
    for key in ("fit_id", "status", "created", "as_of", "data_end", "data_hash",
                "code_version", "run_kind", "previous_fit", "drop", "merge"):
        if key in header:
            print(f"{key:14s} {header[key]}")
    for name, entry in header.get("scenarios", {}).items():
        print(f"scenario       {name}: {', '.join(entry['models'].values())}")
    table = pd.DataFrame([{"model": key, **values, "seconds":
                           header.get("timings_seconds", {}).get(key)}
                          for key, values in header.get("diagnostics", {}).items()])
    if not table.empty:
        print()
        _print_table(table.round(3))
    for key, why in header.get("gate_failures", {}).items():
        print(f"gate failed for {key}: {', '.join(why)}")
    return EXIT_OK


def cmd_fits_diff(args: argparse.Namespace) -> int:
    from forecast.pipeline.revision import revision_table, to_markdown
    from forecast.pipeline.runner import fit_dataset
    from forecast.scenarios import load_scenario
    from forecast.store.bundles import load_bundle

    old = load_bundle(args.old, args.artifacts)
    new = load_bundle(args.new, args.artifacts)
    names = [name for name in new.scenarios if name in old.scenarios]
    if not names:
        raise ForecastError(f"fits {args.old} and {args.new} share no scenario")
    scenarios = [load_scenario(name, new.scenarios_dir) if new.scenarios_dir is not None
                 and (new.scenarios_dir / f"{name}.toml").exists() else load_scenario(name)
                 for name in names]
    before = (old, fit_dataset(old.data_dir, old.meta.get("as_of")))
    table = revision_table(new, fit_dataset(new.data_dir, new.meta.get("as_of")), scenarios,
                           dict.fromkeys(names, before), draws=args.draws, seed=args.seed)
    info = {"fit_id": new.fit_id, "previous_fit": old.fit_id, "as_of": new.meta.get("as_of"),
            "data_end": new.meta.get("data_end"), "status": new.status,
            "drop": new.meta.get("drop"), "merge": new.meta.get("merge", "")}
    print(to_markdown(table, info))
    return EXIT_OK


# --------------------------------------------------------------------------- sensitivity, report


def _check_draws(args: argparse.Namespace) -> None:
    if args.draws is not None and args.draws <= 0:
        raise ForecastError(f"--draws must be > 0, got {args.draws}")


def cmd_sensitivity(args: argparse.Namespace) -> int:
    from forecast.reporting.sensitivity import display_tornado, run_sensitivity

    _check_draws(args)
    started = time.perf_counter()
    result = run_sensitivity(
        args.scenario, args.metric, stat=args.stat, draws=args.draws, seed=args.seed,
        root=args.artifacts, fit_id=args.fit, data_dir=args.data,
        progress=lambda message: print(message, file=sys.stderr))
    spec, table = result.output, result.tornado
    print(f"scenario {result.scenario.name}, fit {result.fit_id}, output {spec.label} "
          f"[{spec.unit}], {result.draws} paths per run, seed {result.seed}")
    print(f"tornado: each input from its P10 to its P90, the others at their medians "
          f"(all at medians: {table['baseline'].iloc[0]:.4g})")
    _print_table(display_tornado(table, result.scenario))
    ranking = result.ranking
    print(f"\nglobal ranking over {result.draws} Monte Carlo paths (all inputs varying; "
          f"R^2 of SRC {ranking.attrs['r2_src']:.2f}, of SRRC {ranking.attrs['r2_srrc']:.2f})")
    _print_table(ranking.round(3))
    print(f"{result.runs} simulation runs in {time.perf_counter() - started:.1f} s",
          file=sys.stderr)
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from forecast.reporting.report import build_report
    from forecast.scenarios import load_scenario

    _check_draws(args)
    load_scenario(args.scenario)  # a bad name fails before anything is created
    out = _check_out_dir(args.out)
    report = build_report(args.scenario, draws=args.draws, seed=args.seed, root=args.artifacts,
                          fit_id=args.fit, data_dir=args.data,
                          progress=lambda message: print(message, file=sys.stderr))
    for path in report.write(out)[:2]:
        print(f"wrote {path}")
    print(f"report built in {report.timings['total']:.1f} s", file=sys.stderr)
    return EXIT_OK


# --------------------------------------------------------------------------- wiring


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cli.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    data = commands.add_parser("data", help="data files").add_subparsers(
        dest="action", required=True, parser_class=_Parser)
    validate = data.add_parser("validate", help="validate every data file")
    validate.add_argument("--data", help="data directory (default: the project's data/)")
    validate.set_defaults(handler=cmd_data_validate)

    scenarios = commands.add_parser("scenarios", help="scenario files").add_subparsers(
        dest="action", required=True, parser_class=_Parser)
    scenarios.add_parser("list", help="list scenarios").set_defaults(handler=cmd_scenarios_list)
    show = scenarios.add_parser("show", help="every input of a scenario")
    show.add_argument("name")
    show.set_defaults(handler=cmd_scenarios_show)
    check = scenarios.add_parser("validate", help="validate one file, or all shipped scenarios")
    check.add_argument("file", nargs="?")
    check.set_defaults(handler=cmd_scenarios_validate)

    economics = commands.add_parser("economics", help="cost per effective PFLOP-hour per chip")
    economics.add_argument("--precision", choices=["auto", "fp8", "bf16"], default="auto")
    economics.add_argument("--scenario", default="base",
                           help="scenario giving utilisation and missing prices (default base)")
    economics.add_argument("--data", help="data directory (default: the project's data/)")
    economics.set_defaults(handler=cmd_economics)

    series = commands.add_parser("series", help="forecast an observed revenue series")
    series.add_argument("name", nargs="?", help="series name (see --list)")
    series.add_argument("--list", action="store_true", help="list the series")
    series.add_argument("--quarters", type=int, default=4)
    series.add_argument("--format", choices=["table", "json"], default="table")
    series.add_argument("--scenario", default="base", help="scenario whose priors the fit uses")
    series.add_argument("--data", help="data directory (default: the project's data/)")
    series.add_argument("--artifacts", help="fit store (default: the project's artifacts/)")
    series.set_defaults(handler=cmd_series)

    backtest = commands.add_parser("backtest", help="rolling-origin backtests")
    backtest.add_argument("target", choices=["market"])
    backtest.add_argument("--origins", type=int, default=6)
    backtest.add_argument("--horizon", type=int, default=4)
    backtest.add_argument("--draws", type=int, default=1000)
    backtest.add_argument("--data", help="data directory (default: the project's data/)")
    backtest.set_defaults(handler=cmd_backtest)

    diffusion = commands.add_parser("diffusion", help="fit a Bass-family model to a unit series")
    diffusion.add_argument("file", help="CSV with columns period,value (see README)")
    diffusion.add_argument("--model", choices=["bass", "gbass", "norton-bass"], default="bass")
    diffusion.add_argument("--format", choices=["table", "json"], default="table")
    diffusion.add_argument("--quiet", action="store_true", help="no progress note")
    diffusion.set_defaults(handler=cmd_diffusion)

    forecast = commands.add_parser("forecast", help="forecast under a scenario")
    forecast.add_argument("--scenario", default="base")
    forecast.add_argument("--compare", nargs="+", metavar="NAME",
                          help="several scenarios side by side")
    forecast.add_argument("--horizon", type=int, help="last calendar year (default: scenario)")
    forecast.add_argument("--draws", type=int, help="sample paths (default: scenario)")
    forecast.add_argument("--seed", type=int, help="random seed (default: scenario)")
    forecast.add_argument("--out", help="directory for CSV, Parquet, JSON and PNG files")
    forecast.add_argument("--format", choices=["table", "json", "csv"], default="table")
    forecast.add_argument("--fit", help="use this stored fit id instead of the latest")
    forecast.add_argument("--data", help="data directory (default: the project's data/)")
    forecast.add_argument("--artifacts", help="fit store (default: the project's artifacts/)")
    forecast.set_defaults(handler=cmd_forecast)

    refit = commands.add_parser("refit", help="quarterly refit: ingest a data drop, fit, "
                                "gate, publish (exit 0 published, 3 gated, 2 bad input, 4 busy)")
    refit.add_argument("--drop", help="CSV file or directory of CSV files with new rows")
    refit.add_argument("--as-of", help="as-of date of the data, YYYY-MM-DD (default today)")
    refit.add_argument("--scenario", nargs="+", metavar="NAME",
                       help="scenarios to fit for (default: all in scenarios/)")
    refit.add_argument("--max-r-hat", type=float, help="gate: largest r_hat (default 1.01)")
    refit.add_argument("--min-ess", type=float, help="gate: smallest bulk ESS (default 400)")
    refit.add_argument("--max-divergences", type=int, help="gate: most divergences (default 0)")
    refit.add_argument("--draws", type=int, help="sampler draws per chain (default: model's)")
    refit.add_argument("--tune", type=int, help="sampler tuning steps (default: model's)")
    refit.add_argument("--report-draws", type=int, default=2000,
                       help="sample paths per forecast in the revision report")
    refit.add_argument("--data", help="data to start from (default: newest fit's data)")
    refit.add_argument("--artifacts", help="fit store (default: the project's artifacts/)")
    refit.set_defaults(handler=cmd_refit)

    fits = commands.add_parser("fits", help="stored fits").add_subparsers(
        dest="action", required=True, parser_class=_Parser)
    listing = fits.add_parser("list", help="every stored fit, oldest first")
    listing.add_argument("--format", choices=["table", "json"], default="table")
    listing.set_defaults(handler=cmd_fits_list)
    showing = fits.add_parser("show", help="provenance and diagnostics of one fit")
    showing.add_argument("fit_id")
    showing.add_argument("--format", choices=["table", "json"], default="table")
    showing.set_defaults(handler=cmd_fits_show)
    diffing = fits.add_parser("diff", help="how headline forecasts moved between two fits")
    diffing.add_argument("old")
    diffing.add_argument("new")
    diffing.add_argument("--draws", type=int, default=2000)
    diffing.add_argument("--seed", type=int, default=0)
    diffing.set_defaults(handler=cmd_fits_diff)
    for sub in (listing, showing, diffing):
        sub.add_argument("--artifacts", help="fit store (default: the project's artifacts/)")

    sensitivity = commands.add_parser("sensitivity", help="tornado of one output: each input "
                                      "from P10 to P90, the others at their medians")
    sensitivity.add_argument("--metric", required=True,
                             help="metric:YEAR (e.g. aws_revenue:2030), metric:VENDOR:YEAR "
                             "(share:aws:2030) or thesis:NAME")
    sensitivity.add_argument("--stat", choices=["median", "mean", "p10", "p90"],
                             default="median", help="statistic of a metric's paths")
    report = commands.add_parser("report", help="HTML and Markdown report of a scenario")
    report.add_argument("--out", default="out", help="directory for the report (default out/)")
    for sub in (sensitivity, report):
        sub.add_argument("--scenario", default="base")
        sub.add_argument("--draws", type=int, help="paths per run (default: sensitivity 2000, "
                         "report the scenario's)")
        sub.add_argument("--seed", type=int, help="random seed (default: scenario)")
        sub.add_argument("--fit", help="use this stored fit id instead of the latest")
        sub.add_argument("--data", help="data directory (default: the fit's data)")
        sub.add_argument("--artifacts", help="fit store (default: the project's artifacts/)")
    sensitivity.set_defaults(handler=cmd_sensitivity)
    report.set_defaults(handler=cmd_report)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    try:
        args = build_parser().parse_args(argv)
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
    except RefitBusyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BUSY
    except DataValidationError as exc:
        for issue in exc.issues:
            print(issue, file=sys.stderr)
        print(f"{len(exc.issues)} problem(s) found", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ForecastError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error of ours.
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    gc.freeze()
    gc.enable()
    exit_code = main()
    gc.freeze()  # nothing needs collecting on the way out
    sys.exit(exit_code)
