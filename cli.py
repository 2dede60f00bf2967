"""Command line for the accelerator-market forecaster: a thin layer over the ``forecast`` API.

Every command parses its arguments (each checked while parsing, before any work), calls
the library and prints. Whatever goes wrong is one line on stderr, never a traceback; the
exit code says what it was (:mod:`forecast.reporting.console.exits`): 0 done, 2 bad input,
3 a fit failed its convergence gate, 4 refit busy, 5 internal error, 6 the system refused
(disk full, output closed, out of memory), 130 interrupted.
"""

from __future__ import annotations

import gc
import sys

if __name__ == "__main__":
    # Run as a command. Importing numpy, pandas and xarray creates ~150,000 objects that
    # live until exit; the cyclic garbage collector would scan them several times during
    # the imports and again at exit, a noticeable part of a warm forecast. Paused here, and the
    # survivors frozen out of its reach before the command runs (see the end of the file).
    gc.disable()

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from forecast.core.errors import ForecastError
from forecast.reporting.console import arguments as check
from forecast.reporting.console.arguments import DATA_HELP, STORE_HELP, add_run_options
from forecast.reporting.console.believe import add_believe
from forecast.reporting.console.exits import EXIT_GATED, EXIT_OK, run_command
from forecast.reporting.console.fits import add_fits
from forecast.reporting.console.terminal import keep_compiled_code, known_false_alarms
from forecast.reporting.console.terminal import sampler_display as _sampler_display
from forecast.reporting.console.terminal import say as _say
from forecast.reporting.console.terminal import timed_progress as _timed_progress


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ForecastError(f"{self.prog}: {message}")


# --------------------------------------------------------------------------- commands


def cmd_data_validate(args: argparse.Namespace) -> int:
    """Validate every data file and summarise the tables."""
    from forecast.reporting.console.catalogue import data_text

    print(data_text(args.data))
    return EXIT_OK


def cmd_scenarios_list(args: argparse.Namespace) -> int:
    """List the shipped scenarios."""
    from forecast.reporting.console.catalogue import scenario_list_text

    print(scenario_list_text())
    return EXIT_OK


def cmd_scenarios_show(args: argparse.Namespace) -> int:
    """Show every input, correlation and thesis of a scenario."""
    from forecast.reporting.console.catalogue import scenario_text

    print(scenario_text(args.name))
    return EXIT_OK


def cmd_scenarios_validate(args: argparse.Namespace) -> int:
    """Validate one scenario file, or all shipped ones."""
    from forecast.reporting.console.catalogue import scenario_validation_text

    print(scenario_validation_text(args.file))
    return EXIT_OK


def cmd_economics(args: argparse.Namespace) -> int:
    """Each chip's cost per effective PFLOP-hour."""
    from forecast.reporting.console.catalogue import economics_text

    print(economics_text(args.scenario, args.data, args.precision))
    return EXIT_OK


def cmd_series(args: argparse.Namespace) -> int:
    """Forecast an observed revenue series, or list the series."""
    from forecast.reporting.console.models import series_text

    print(series_text(None if args.list else args.name, quarters=args.quarters,
                      fmt=args.format, scenario=args.scenario, data_dir=args.data,
                      root=args.artifacts, progress=_say))
    return EXIT_OK


def cmd_backtest(args: argparse.Namespace) -> int:
    """Rolling-origin backtest of one model (fits on Dask; see --workers)."""
    from forecast.reporting.console.parallel import backtest_text

    print(backtest_text(args.target, fmt=args.format, origins=args.origins,
                        quarters=args.quarters, draws=args.draws, data_dir=args.data,
                        workers=args.workers, scheduler=args.scheduler, out=args.out,
                        progress=_say))
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    """Posterior predictive coverage and PSIS-LOO of one model of a scenario's fit."""
    from forecast.pipeline.check import check_model
    from forecast.reporting.model_check import format_check

    with known_false_alarms():
        result = check_model(args.model, args.scenario, root=args.artifacts, fit_id=args.fit,
                             data_dir=args.data, seed=args.seed, progress=_timed_progress())
    print(format_check(result))
    return EXIT_OK


def cmd_diffusion(args: argparse.Namespace) -> int:
    """Fit a Bass-family model to a unit series."""
    from forecast.reporting.console.models import diffusion_text

    quiet = args.quiet or args.format != "table"
    print(diffusion_text(args.file, model=args.model, fmt=args.format,
                         progress=None if quiet else _say))
    return EXIT_OK


def cmd_forecast(args: argparse.Namespace) -> int:
    """Forecast one scenario, or several side by side; optionally write files."""
    from forecast.pipeline.runner import preflight, run_scenario
    from forecast.reporting.console.forecasts import forecast_text
    from forecast.reporting.outputs import check_out_dir, write_forecast_files

    out = check_out_dir(args.out) if args.out is not None else None
    if args.compare:  # every scenario's paths, before the first one is fitted or simulated
        preflight(args.compare, args.draws, horizon=args.horizon, root=args.artifacts,
                  data_dir=args.data)
    results = [run_scenario(name, draws=args.draws, seed=args.seed, horizon=args.horizon,
                            root=args.artifacts, fit_id=args.fit, data_dir=args.data,
                            progress=_timed_progress(), stack=args.stack)
               for name in args.compare or [args.scenario]]
    print(forecast_text(results, args.format, compare=bool(args.compare)))
    if out is not None:
        for result in results:
            for path in write_forecast_files(result, out):
                _say(f"wrote {path}")
    return EXIT_OK


def cmd_refit(args: argparse.Namespace) -> int:
    """Quarterly refit; exit 0 when published, 3 when gated."""
    from forecast.pipeline.refit import refit
    from forecast.pipeline.runner import preflight
    from forecast.reporting.console.fits import refit_text

    gate = {key: value for key, value in (("max_r_hat", args.max_r_hat),
                                          ("min_ess_bulk", args.min_ess),
                                          ("max_divergences", args.max_divergences))
            if value is not None}
    sampler = {key: value for key, value in (("draws", args.draws), ("tune", args.tune))
               if value is not None}
    preflight(args.scenario, args.report_draws, root=args.artifacts, data_dir=args.data)
    result = refit(drop=args.drop, as_of=args.as_of, root=args.artifacts,
                   scenarios=args.scenario, sampler=sampler or None, gate=gate or None,
                   data_dir=args.data, progress=_timed_progress(),
                   report_draws=args.report_draws)
    print(refit_text(result))
    return EXIT_OK if result.status == "published" else EXIT_GATED


def cmd_sensitivity(args: argparse.Namespace) -> int:
    """Tornado and global ranking of one output."""
    from forecast.pipeline.runner import preflight
    from forecast.reporting.console.parallel import sensitivity_result
    from forecast.reporting.sensitivity.display import sensitivity_text, timing_text
    from forecast.reporting.sensitivity.simulation import DEFAULT_DRAWS

    preflight([args.scenario], args.draws or DEFAULT_DRAWS, root=args.artifacts,
              data_dir=args.data)
    result = sensitivity_result(args.scenario, args.metric, stat=args.stat, draws=args.draws,
                                seed=args.seed, root=args.artifacts, fit_id=args.fit,
                                data_dir=args.data, workers=args.workers,
                                scheduler=args.scheduler, progress=_say)
    print(sensitivity_text(result))
    _say(timing_text(result))
    return EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    """Re-simulate a scenario over a grid of held inputs; write the table and a heat map."""
    from forecast.pipeline.runner import preflight
    from forecast.reporting.console.sweeps import sweep_text

    preflight([args.scenario], args.draws, horizon=args.horizon, root=args.artifacts,
              data_dir=args.data)
    print(sweep_text(args.scenario, args.vary, draws=args.draws, seed=args.seed,
                     seeds=args.seeds, horizon=args.horizon, thesis=args.thesis,
                     out=args.out, root=args.artifacts, fit_id=args.fit, data_dir=args.data,
                     workers=args.workers, scheduler=args.scheduler, progress=_say))
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    """Write the HTML and Markdown report of a scenario."""
    from forecast.pipeline.runner import preflight
    from forecast.reporting.report import write_report

    preflight([args.scenario], args.draws, root=args.artifacts, data_dir=args.data)
    report, written = write_report(args.scenario, args.out, draws=args.draws, seed=args.seed,
                                   root=args.artifacts, fit_id=args.fit, data_dir=args.data,
                                   backtest_files=args.backtest, progress=_say)
    for path in written[:2]:
        print(f"wrote {path}")
    _say(f"report built in {report.timings['total']:.1f} s")
    return EXIT_OK


# --------------------------------------------------------------------------- arguments


#: What ``ArgumentParser.add_subparsers`` returns (a private argparse class).
Commands = Any



def _add_data(commands: Commands) -> None:
    data = commands.add_parser("data", help="data files").add_subparsers(
        dest="action", required=True, parser_class=_Parser)
    validate = data.add_parser("validate", help="validate every data file")
    validate.add_argument("--data", type=check.existing_directory, help=DATA_HELP)
    validate.set_defaults(handler=cmd_data_validate)


def _add_scenarios(commands: Commands) -> None:
    scenarios = commands.add_parser("scenarios", help="scenario files").add_subparsers(
        dest="action", required=True, parser_class=_Parser)
    scenarios.add_parser("list", help="list scenarios").set_defaults(handler=cmd_scenarios_list)
    show = scenarios.add_parser("show", help="every input of a scenario")
    show.add_argument("name", type=check.nonempty)
    show.set_defaults(handler=cmd_scenarios_show)
    validate = scenarios.add_parser("validate", help="validate one file, or all shipped scenarios")
    validate.add_argument("file", nargs="?", type=check.existing_file)
    validate.set_defaults(handler=cmd_scenarios_validate)


def _add_economics(commands: Commands) -> None:
    economics = commands.add_parser("economics", help="cost per effective PFLOP-hour per chip")
    economics.add_argument("--precision", choices=["auto", "fp8", "bf16"], default="auto")
    economics.add_argument("--scenario", default="base", type=check.nonempty,
                           help="scenario giving utilisation and missing prices (default base)")
    economics.add_argument("--data", type=check.existing_directory, help=DATA_HELP)
    economics.set_defaults(handler=cmd_economics)


def _add_series(commands: Commands) -> None:
    series = commands.add_parser("series", help="forecast an observed revenue series")
    series.add_argument("name", nargs="?", type=check.nonempty, help="series name (see --list)")
    series.add_argument("--list", action="store_true", help="list the series")
    series.add_argument("--quarters", type=check.quarters_ahead, default=4)
    series.add_argument("--format", choices=["table", "json"], default="table")
    series.add_argument("--scenario", default="base", type=check.nonempty,
                        help="scenario whose priors the fit uses")
    series.add_argument("--data", type=check.existing_directory, help=DATA_HELP)
    series.add_argument("--artifacts", type=check.store_directory, help=STORE_HELP)
    series.set_defaults(handler=cmd_series, fits=True)


def _add_backtest(commands: Commands) -> None:
    backtest = commands.add_parser("backtest", help="rolling-origin backtests")
    from forecast.reporting.console.parallel import BACKTESTS

    backtest.add_argument("target", choices=sorted(BACKTESTS))
    backtest.add_argument("--origins", type=check.positive_int, default=6)
    backtest.add_argument("--quarters", type=check.quarters_ahead, default=4,
                          help="score 1 to QUARTERS quarters ahead")
    backtest.add_argument("--draws", type=check.sampler_steps, default=1000,
                          help="posterior predictive draws per forecast")
    backtest.add_argument("--format", choices=["table", "json"], default="table")
    backtest.add_argument("--out", type=check.directory_to_be,
                          help="directory for backtest_TARGET.json and pit_TARGET.png")
    backtest.add_argument("--data", type=check.existing_directory, help=DATA_HELP)
    check.add_execution_options(backtest)
    backtest.set_defaults(handler=cmd_backtest, fits=True)


def _add_check(commands: Commands) -> None:
    model_check = commands.add_parser(
        "check", help="posterior predictive coverage and PSIS-LOO of a stored fit")
    model_check.add_argument("model", choices=["price", "spend"])
    model_check.add_argument("--scenario", default="base", type=check.nonempty)
    model_check.add_argument("--seed", type=check.seed, default=0,
                             help="seed of the predictive draws")
    model_check.add_argument("--fit", type=check.fit_id,
                             help="use this stored fit id instead of the latest")
    model_check.add_argument("--data", type=check.existing_directory,
                             help="data directory (default: the fit's own snapshot)")
    model_check.add_argument("--artifacts", type=check.store_directory, help=STORE_HELP)
    model_check.set_defaults(handler=cmd_check, fits=True)


def _add_diffusion(commands: Commands) -> None:
    diffusion = commands.add_parser("diffusion", help="fit a Bass-family model to a unit series")
    diffusion.add_argument("file", type=check.existing_file,
                           help="CSV with columns period,value (see docs/models/diffusion.md)")
    diffusion.add_argument("--model", choices=["bass", "gbass", "norton-bass"], default="bass")
    diffusion.add_argument("--format", choices=["table", "json"], default="table")
    diffusion.add_argument("--quiet", action="store_true", help="no progress note or bar")
    diffusion.set_defaults(handler=cmd_diffusion, fits=True)


def _add_forecast(commands: Commands) -> None:
    forecast = commands.add_parser("forecast", help="forecast under a scenario")
    forecast.add_argument("--scenario", default="base", type=check.nonempty)
    forecast.add_argument("--compare", nargs="+", metavar="NAME", type=check.nonempty,
                          help="several scenarios side by side")
    forecast.add_argument("--horizon", type=check.horizon_year,
                          help="last calendar year, at most 2100 (default: scenario)")
    forecast.add_argument("--draws", type=check.positive_int,
                          help="sample paths (default: scenario)")
    forecast.add_argument("--seed", type=check.seed, help="random seed (default: scenario)")
    forecast.add_argument("--out", type=check.directory_to_be,
                          help="directory for CSV, Parquet, JSON and PNG files")
    forecast.add_argument("--format", choices=["table", "json", "csv"], default="table")
    forecast.add_argument("--no-stack", dest="stack", action="store_false",
                          help="the spend model's own positions on every path instead of the "
                               "out-of-sample stack with constant shares")
    forecast.add_argument("--fit", type=check.fit_id,
                          help="use this stored fit id instead of the latest")
    forecast.add_argument("--data", type=check.existing_directory, help=DATA_HELP)
    forecast.add_argument("--artifacts", type=check.store_directory, help=STORE_HELP)
    forecast.set_defaults(handler=cmd_forecast, fits=True)


def _add_refit(commands: Commands) -> None:
    refit = commands.add_parser("refit", help="quarterly refit: ingest a data drop, fit, "
                                "gate, publish (exit 0 published, 3 gated, 2 bad input, 4 busy)")
    refit.add_argument("--drop", type=check.existing_path,
                       help="CSV file or directory of CSV files with new rows")
    refit.add_argument("--as-of", type=check.nonempty,
                       help="as-of date of the data, YYYY-MM-DD (default today)")
    refit.add_argument("--scenario", nargs="+", metavar="NAME", type=check.nonempty,
                       help="scenarios to fit for (default: all in scenarios/)")
    refit.add_argument("--max-r-hat", type=check.r_hat_bound,
                       help="gate: largest r_hat, >= 1 (default 1.01)")
    refit.add_argument("--min-ess", type=check.non_negative_float,
                       help="gate: smallest bulk ESS (default 400)")
    refit.add_argument("--max-divergences", type=check.non_negative_int,
                       help="gate: most divergences (default 0)")
    refit.add_argument("--draws", type=check.sampler_steps,
                       help="sampler draws per chain (default: model's)")
    refit.add_argument("--tune", type=check.sampler_steps,
                       help="sampler tuning steps (default: model's)")
    refit.add_argument("--report-draws", type=check.positive_int, default=2000,
                       help="sample paths per forecast in the revision report")
    refit.add_argument("--data", type=check.existing_directory,
                       help="data to start from (default: newest fit's data)")
    refit.add_argument("--artifacts", type=check.store_directory, help=STORE_HELP)
    refit.set_defaults(handler=cmd_refit, fits=True)


def _add_sensitivity(commands: Commands) -> None:
    sensitivity = commands.add_parser("sensitivity", help="tornado of one output: each input "
                                      "from P10 to P90, the others at their medians")
    sensitivity.add_argument("--metric", required=True, type=check.nonempty,
                             help="metric:YEAR (e.g. aws_revenue:2030), metric:VENDOR:YEAR "
                             "(share:aws:2030) or thesis:NAME")
    sensitivity.add_argument("--stat", choices=["median", "mean", "p10", "p90"],
                             default="median", help="statistic of a metric's paths")
    add_run_options(sensitivity)
    check.add_execution_options(sensitivity)
    sensitivity.set_defaults(handler=cmd_sensitivity)


def _add_sweep(commands: Commands) -> None:
    sweep = commands.add_parser("sweep", help="re-simulate a scenario over a grid of held "
                                "inputs; CSV, Parquet and a heat map of a thesis")
    sweep.add_argument("--vary", action="append", required=True, metavar="INPUT=LOW:HIGH:N",
                       type=check.nonempty, help="hold INPUT at N values from LOW to HIGH "
                       "(quarter inputs: labels such as 2027Q1); repeat for a grid")
    sweep.add_argument("--seeds", type=check.positive_int, default=1,
                       help="seeds per grid point, from --seed on (default 1)")
    sweep.add_argument("--horizon", type=check.horizon_year,
                       help="last calendar year (default: scenario)")
    sweep.add_argument("--thesis", type=check.nonempty,
                       help="thesis of the heat map (default: the first)")
    sweep.add_argument("--out", default="out", type=check.directory_to_be,
                       help="directory for the files (default out/)")
    add_run_options(sweep)
    check.add_execution_options(sweep)
    sweep.set_defaults(handler=cmd_sweep)


def _add_report(commands: Commands) -> None:
    report = commands.add_parser("report", help="HTML and Markdown report of a scenario")
    report.add_argument("--out", default="out", type=check.directory_to_be,
                        help="directory for the report (default out/)")
    report.add_argument("--backtest", action="append", metavar="FILE.json",
                        type=check.existing_file, help="add a Backtests section from the "
                        "JSON of `backtest --out` or `--format json` (repeatable)")
    add_run_options(report)
    report.set_defaults(handler=cmd_report)


#: The subcommands, in the order ``--help`` lists them: each adds its parser.
SUBCOMMANDS: tuple[Callable[[Commands], None], ...] = (
    _add_data, _add_scenarios, _add_economics, _add_series, _add_backtest, _add_check,
    _add_diffusion,
    _add_forecast, _add_refit, add_fits, _add_sensitivity, _add_report, _add_sweep,
    add_believe,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand (:data:`SUBCOMMANDS`)."""
    parser = _Parser(prog="cli.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for add in SUBCOMMANDS:
        add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (:mod:`forecast.reporting.console.exits`)."""

    def command() -> int:
        args = build_parser().parse_args(argv)
        handler: Callable[[argparse.Namespace], int] = args.handler
        keep_compiled_code(args)
        with _sampler_display(args):
            return handler(args)

    return run_command(command)


if __name__ == "__main__":
    gc.freeze()
    gc.enable()
    exit_code = main()
    gc.freeze()  # nothing needs collecting on the way out
    sys.exit(exit_code)
