"""Exit codes and the one line each failure prints (forecast.reporting.console.exits)."""

from __future__ import annotations

import errno

import pytest

from forecast.core.errors import DataValidationError, FitError, Issue, RefitBusyError
from forecast.pipeline.runner import GatedFitError
from forecast.reporting.console import exits


def failing(exc: BaseException):
    def command() -> int:
        raise exc

    return command


@pytest.mark.parametrize(
    ("exc", "code", "line"),
    [
        (FitError("fit F is gated, not published"), exits.EXIT_BAD_INPUT,
         "error: fit F is gated, not published"),
        (GatedFitError("the new fit F failed its convergence gate"), exits.EXIT_GATED,
         "error: the new fit F failed its convergence gate"),
        (RefitBusyError("another refit runs"), exits.EXIT_BUSY, "error: another refit runs"),
        (OSError(errno.ENOSPC, "No space left on device", "/out/x.csv"), exits.EXIT_SYSTEM,
         "error: /out/x.csv: No space left on device"),
        (OSError(errno.ENOSPC, "No space left on device"), exits.EXIT_SYSTEM,
         "error: No space left on device"),
        (MemoryError(), exits.EXIT_SYSTEM,
         "error: out of memory: ask for fewer --draws or an earlier --horizon"),
        (KeyError("vendor"), exits.EXIT_INTERNAL,
         "internal error: KeyError: 'vendor' (please report; run with FORECAST_DEBUG=1 for "
         "the traceback)"),
        (ValueError("line one\nline two"), exits.EXIT_INTERNAL,
         "internal error: ValueError: line one line two (please report; run with "
         "FORECAST_DEBUG=1 for the traceback)"),
        (KeyboardInterrupt(), exits.EXIT_INTERRUPTED, "interrupted"),
    ],
)
def test_each_failure_is_one_line_and_its_code(exc, code, line, capsys, monkeypatch):
    monkeypatch.delenv("FORECAST_DEBUG", raising=False)
    assert exits.run_command(failing(exc)) == code
    captured = capsys.readouterr()
    assert captured.err == line + "\n"
    assert captured.out == ""


def test_data_validation_lists_every_issue_then_the_count(capsys):
    issues = [Issue("a.csv", 2, "x", "bad"), Issue("b.csv", None, None, "missing")]
    assert exits.run_command(failing(DataValidationError(issues))) == exits.EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines() == ["a.csv:2:x: bad", "b.csv::: missing",
                                                    "2 problem(s) found"]


def test_one_data_problem_is_one_line(capsys):
    issue = Issue("as_of.csv", None, None, "file is missing")
    assert exits.run_command(failing(DataValidationError([issue]))) == exits.EXIT_BAD_INPUT
    assert capsys.readouterr().err == "as_of.csv::: file is missing\n"


def test_a_broken_pipe_is_not_an_error(capsys):
    assert exits.run_command(failing(BrokenPipeError(errno.EPIPE, "Broken pipe"))) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("exc", [KeyError("vendor"), OSError(errno.ENOSPC, "full"),
                                 MemoryError()])
def test_forecast_debug_lets_unexpected_errors_raise(exc, monkeypatch):
    monkeypatch.setenv("FORECAST_DEBUG", "1")
    with pytest.raises(type(exc)):
        exits.run_command(failing(exc))


def test_forecast_debug_0_is_off(monkeypatch, capsys):
    monkeypatch.setenv("FORECAST_DEBUG", "0")
    assert exits.run_command(failing(RuntimeError("x"))) == exits.EXIT_INTERNAL


def test_the_command_code_is_returned_once_its_output_is_flushed(capsys):
    def command() -> int:
        print("text")
        return 3

    assert exits.run_command(command) == 3
    assert capsys.readouterr().out == "text\n"


def test_long_messages_are_cut_to_one_line():
    line = exits.one_line("word " * 500)
    assert "\n" not in line and len(line) == 400 and line.endswith("...")
