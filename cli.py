"""Command line for the accelerator-market forecaster: a thin layer over the ``forecast`` API.

Every command parses its arguments, calls the library and prints. Bad input anywhere is a
one-line message on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from forecast.errors import DataValidationError, ForecastError

EXIT_OK = 0
EXIT_BAD_INPUT = 2


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
    from forecast.data import load_dataset

    dataset = load_dataset(args.data)
    print(f"{dataset.data_dir}: all files valid (data hash {dataset.data_hash[:12]})")
    _print_table(dataset.summary())
    return EXIT_OK


# --------------------------------------------------------------------------- scenarios


def cmd_scenarios_list(args: argparse.Namespace) -> int:
    from forecast.scenario import list_scenarios

    for scenario in list_scenarios():
        parent = f" (extends {scenario.extends})" if scenario.extends else ""
        print(f"{scenario.name:<12} {scenario.description}{parent}")
    return EXIT_OK


def cmd_scenarios_show(args: argparse.Namespace) -> int:
    from forecast.scenario import load_scenario

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
    from forecast.scenario import list_scenarios, load_scenario_file

    scenarios = [load_scenario_file(Path(args.file))] if args.file else list_scenarios()
    for scenario in scenarios:
        print(f"{scenario.path}: valid ({len(scenario.inputs)} inputs, "
              f"{len(scenario.theses)} theses)")
    return EXIT_OK


# --------------------------------------------------------------------------- economics


def cmd_economics(args: argparse.Namespace) -> int:
    from forecast.data import load_dataset
    from forecast.economics import economics_table
    from forecast.scenario import load_scenario

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


def cmd_forecast(args: argparse.Namespace) -> int:
    raise ForecastError(
        "forecast: not available yet: the forecast command lands with the price, market and "
        "share models (see the README's roadmap)"
    )


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

    diffusion = commands.add_parser("diffusion", help="fit a Bass-family model to a unit series")
    diffusion.add_argument("file", help="CSV with columns period,value (see README)")
    diffusion.add_argument("--model", choices=["bass", "gbass", "norton-bass"], default="bass")
    diffusion.add_argument("--format", choices=["table", "json"], default="table")
    diffusion.add_argument("--quiet", action="store_true", help="no progress note")
    diffusion.set_defaults(handler=cmd_diffusion)

    forecast = commands.add_parser("forecast", help="forecast under a scenario")
    forecast.add_argument("--scenario", default="base")
    forecast.set_defaults(handler=cmd_forecast)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    try:
        args = build_parser().parse_args(argv)
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
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
    sys.exit(main())
