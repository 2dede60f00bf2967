"""Every command-line argument is checked while parsing, before any work: each bad value is
one line and exit 2, and neither a fit nor a refit starts."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import cli
from forecast.reporting.console import arguments as check


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any test that reaches sampling, a refit or a simulation."""

    def started(*args: object, **kwargs: object) -> None:
        raise AssertionError("work started before the arguments were checked")

    monkeypatch.setattr("forecast.pipeline.fitting.fit_all", started)
    monkeypatch.setattr("forecast.pipeline.refit.refit", started)
    monkeypatch.setattr("forecast.pipeline.simulate.simulate", started)


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the CLI in this process; assert exit 2 and one line on stderr; return the line."""
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), (argv, err)
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["refit", "--report-draws", "0"], "--report-draws: must be > 0, got 0"),
        (["refit", "--report-draws", "-5"], "--report-draws: must be > 0"),
        (["refit", "--max-r-hat", "-1"], "--max-r-hat: must be >= 1"),
        (["refit", "--max-r-hat", "0.99"], "--max-r-hat: must be >= 1"),
        (["refit", "--max-r-hat", "nan"], "--max-r-hat: must be a finite number"),
        (["refit", "--min-ess", "-1"], "--min-ess: must be >= 0"),
        (["refit", "--min-ess", "inf"], "--min-ess: must be a finite number"),
        (["refit", "--max-divergences", "-1"], "--max-divergences: must be >= 0"),
        (["refit", "--max-divergences", "1.5"], "--max-divergences: must be a whole number"),
        (["refit", "--draws", "0"], "--draws: must be > 0"),
        (["refit", "--draws", "1000000000"], "--draws: must be at most 100000"),
        (["refit", "--tune", "-10"], "--tune: must be > 0"),
        (["refit", "--as-of", ""], "--as-of: must not be empty"),
        (["refit", "--scenario", ""], "--scenario: must not be empty"),
        (["forecast", "--draws", "0"], "--draws: must be > 0, got 0"),
        (["forecast", "--draws", "many"], "--draws: must be a whole number, got 'many'"),
        (["forecast", "--horizon", "99999"], "--horizon: must be a calendar year from 2000 "
                                             "to 2100, got 99999"),
        (["forecast", "--horizon", "1999"], "--horizon: must be a calendar year"),
        (["forecast", "--seed", "-1"], "--seed: must be from 0 to 4294967295"),
        (["forecast", "--seed", str(2**32)], "--seed: must be from 0"),
        (["forecast", "--out", ""], "--out: must not be empty"),
        (["forecast", "--fit", ""], "--fit: must not be empty"),
        (["forecast", "--fit", "   "], "--fit: must not be empty"),
        (["forecast", "--artifacts", ""], "--artifacts: must not be empty"),
        (["forecast", "--data", ""], "--data: must not be empty"),
        (["forecast", "--scenario", ""], "--scenario: must not be empty"),
        (["forecast", "--compare", "bull", ""], "--compare: must not be empty"),
        (["series", "nvidia_data_center", "--quarters", "0"], "--quarters: must be > 0"),
        (["series", "nvidia_data_center", "--quarters", "100000"],
         "--quarters: must be at most 300"),
        (["backtest", "spend", "--origins", "0"], "--origins: must be > 0"),
        (["backtest", "spend", "--quarters", "-1"], "--quarters: must be > 0"),
        (["backtest", "spend", "--draws", "0"], "--draws: must be > 0"),
        (["check", "spend", "--seed", "-3"], "--seed: must be from 0"),
        (["diffusion", "/no/such/file.csv"], "/no/such/file.csv: no such file"),
        (["diffusion", "."], ".: not a regular file"),
        (["refit", "--drop", "/no/such/drop"], "/no/such/drop: no such file or directory"),
        (["scenarios", "validate", "/no/such.toml"], "/no/such.toml: no such file"),
        (["scenarios", "show", ""], "name: must not be empty"),
        (["fits", "show", ""], "fit_id: must not be empty"),
        (["fits", "diff", "a", "b", "--draws", "0"], "--draws: must be > 0"),
        (["sensitivity", "--metric", "tam:2030", "--draws", "0"], "--draws: must be > 0"),
        (["sensitivity", "--metric", ""], "--metric: must not be empty"),
        (["report", "--draws", "-1"], "--draws: must be > 0"),
        (["data", "validate", "--data", "/no/such/dir"], "/no/such/dir: no such directory"),
        (["sweep", "--vary", ""], "--vary: must not be empty"),
        (["sweep", "--vary", "a=1:2:3", "--seeds", "0"], "--seeds: must be > 0"),
        (["sweep", "--vary", "a=1:2:3", "--horizon", "3000"], "--horizon: must be a calendar"),
        (["sensitivity", "--metric", "tam:2030", "--workers", "-1"], "--workers: must be >= 0"),
        (["backtest", "spend", "--workers", "100000"], "--workers: must be at most 1024"),
        (["backtest", "spend", "--scheduler", ""], "--scheduler: must not be empty"),
        (["believe", "trainium3_half_cost", "--top", "0"], "--top: must be > 0"),
        (["believe", ""], "thesis: must not be empty"),
    ],
)
def test_out_of_range_arguments_are_refused_before_any_work(argv, message, capsys, no_work):
    line = refused(argv, capsys)
    assert line.startswith(f"error: cli.py {argv[0]}")
    assert message in line, line


#: Arguments a command needs besides the path option under test, by command path.
REQUIRED = {
    ("data", "validate"): [], ("economics",): [], ("series",): ["nvidia_data_center"],
    ("backtest",): ["spend"], ("check",): ["spend"], ("forecast",): [], ("refit",): [],
    ("fits", "list"): [], ("fits", "show"): ["F"], ("fits", "diff"): ["A", "B"],
    ("fits", "gc"): [], ("sensitivity",): ["--metric", "tam:2030"], ("report",): [],
    ("sweep",): ["--vary", "mfu_aws=0.3:0.5:3"], ("believe",): ["trainium3_half_cost"],
}


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command path, its parser) for every leaf command."""
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not actions:
        yield path, parser
        return
    for name, sub in actions[0].choices.items():
        yield from _commands(sub, (*path, name))


def path_options() -> list[tuple[tuple[str, ...], str]]:
    found = []
    for path, parser in _commands(cli.build_parser()):
        for action in parser._actions:
            for option in ("--artifacts", "--data", "--out"):
                if option in action.option_strings:
                    found.append((path, option))
    return found


def test_every_command_with_a_path_option_is_covered():
    commands = {path for path, _ in path_options()}
    assert commands == set(REQUIRED), commands ^ set(REQUIRED)


@pytest.mark.parametrize(("command", "option"), path_options(),
                         ids=lambda v: " ".join(v) if isinstance(v, tuple) else v)
def test_a_regular_file_as_a_directory_is_refused(command, option, tmp_path, capsys, no_work,
                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)  # a report's default --out is ./out
    afile = tmp_path / "a-file"
    afile.write_text("not a directory")
    for value in (afile, afile / "below"):
        line = refused([*command, *REQUIRED[command], option, str(value)], capsys)
        assert "not a directory" in line, line
    assert afile.read_text() == "not a directory"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_directory_checks_accept_what_can_be_made(tmp_path: Path):
    assert check.directory_to_be(str(tmp_path / "new" / "deeper")) == str(
        tmp_path / "new" / "deeper")
    assert check.store_directory(str(tmp_path)) == str(tmp_path)
    assert check.existing_directory(str(tmp_path)) == str(tmp_path)
    (tmp_path / "drop.csv").write_text("x\n")
    assert check.existing_path(str(tmp_path / "drop.csv"))
    assert check.existing_file(str(tmp_path / "drop.csv"))


@pytest.mark.parametrize(
    ("function", "text", "value"),
    [
        (check.positive_int, " 7 ", 7), (check.non_negative_int, "0", 0),
        (check.non_negative_float, "0", 0.0), (check.r_hat_bound, "1", 1.0),
        (check.r_hat_bound, "1.05", 1.05), (check.sampler_steps, "100000", 100_000),
        (check.quarters_ahead, "300", 300), (check.horizon_year, "2100", 2100),
        (check.horizon_year, "2000", 2000), (check.seed, "0", 0),
        (check.seed, str(2**32 - 1), 2**32 - 1), (check.nonempty, "x", "x"),
    ],
)
def test_values_in_range_pass(function, text, value):
    assert function(text) == value


def test_defaults_pass_their_own_checks():
    # argparse runs a string default through its type: each must pass.
    args = cli.build_parser().parse_args(["report"])
    assert args.out == "out"
    args = cli.build_parser().parse_args(["refit"])
    assert args.report_draws == 2000 and args.max_r_hat is None
