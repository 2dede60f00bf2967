"""Exit codes of the command line, and the one line each kind of failure prints.

=====  ===============================================================================
code   meaning
=====  ===============================================================================
0      done
2      bad input: arguments, data or scenario files, a fit or fit store that cannot be
       used (:class:`~forecast.core.errors.ForecastError`)
3      a fit ran and failed its convergence gate; it is stored as gated, not used
4      another refit holds the refit lock
5      internal error: an exception the package did not expect (a bug; please report)
6      the system refused: a file that cannot be read or written (a disk full, no
       permission), an output that cannot take the text, or out of memory
130    interrupted (Ctrl-C)
=====  ===============================================================================

Every failure is one line on stderr, never a traceback; with ``FORECAST_DEBUG=1`` in the
environment the unexpected ones (5 and 6) raise, traceback and all. Data validation lists
every problem found, one per line, then their count when there are several.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable

from forecast.core.errors import DataValidationError, ForecastError, RefitBusyError
from forecast.pipeline.runner import GatedFitError

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_GATED = 3
EXIT_BUSY = 4
EXIT_INTERNAL = 5
EXIT_SYSTEM = 6
EXIT_INTERRUPTED = 130

#: Where the line on an internal error sends the reader.
REPORT_HINT = "please report; run with FORECAST_DEBUG=1 for the traceback"


def debugging() -> bool:
    """``FORECAST_DEBUG`` is set (to anything but 0): unexpected errors raise."""
    return os.environ.get("FORECAST_DEBUG", "") not in ("", "0")


def one_line(text: str, limit: int = 400) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _abandon_unwritable_stdout() -> None:
    """Flush stdout; if it cannot take the text (a full disk, a closed pipe), point it at
    /dev/null so that the flush at exit cannot fail again (with a traceback-like message
    and exit code 120)."""
    try:
        sys.stdout.flush()
    except OSError:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)


def system_error(exc: OSError | MemoryError) -> str:
    """One line on what the system refused: the file and why, or why, or memory."""
    if isinstance(exc, MemoryError):
        return "out of memory: ask for fewer --draws or an earlier --horizon"
    reason = exc.strerror or one_line(str(exc)) or type(exc).__name__
    return f"{exc.filename}: {reason}" if exc.filename else reason


def _say(message: object) -> None:
    print(message, file=sys.stderr)


def run_command(command: Callable[[], int]) -> int:
    """Run a command and return its exit code, each failure as the table above says.

    Parameters
    ----------
    command
        Parses the arguments, does the work, prints; returns an exit code.

    Returns
    -------
    int
        The command's code once its output is flushed, or the failure's.
    """
    try:
        code = command()
        sys.stdout.flush()  # an output that cannot take the text fails here, not at exit
        return code
    except RefitBusyError as exc:
        _say(f"error: {exc}")
        return EXIT_BUSY
    except GatedFitError as exc:
        _say(f"error: {exc}")
        return EXIT_GATED
    except DataValidationError as exc:
        for issue in exc.issues:
            _say(issue)
        if len(exc.issues) > 1:  # one problem is one line, as every other refusal
            _say(f"{len(exc.issues)} problem(s) found")
        return EXIT_BAD_INPUT
    except ForecastError as exc:
        _say(f"error: {exc}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _say("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error of ours.
        _abandon_unwritable_stdout()
        return EXIT_OK
    except (OSError, MemoryError) as exc:
        if debugging():
            raise
        _abandon_unwritable_stdout()
        _say(f"error: {system_error(exc)}")
        return EXIT_SYSTEM
    except Exception as exc:
        if debugging():
            raise
        _say(f"internal error: {type(exc).__name__}: {one_line(str(exc))} ({REPORT_HINT})")
        return EXIT_INTERNAL
