"""What the command line shows on stderr while it works: progress lines, samplers' bars.

Progress lines are plain text, one per step, wherever stderr goes. On a terminal a command
that may fit a model also gets the samplers' live progress bars (nutpie's, one per chain);
on anything else (a pipe, a log file, CI) only the lines, so logs stay readable. Warnings a
library gives about something that does not happen here are not shown
(:func:`known_false_alarms`).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
import warnings
from collections.abc import Callable, Iterator


def say(message: str) -> None:
    """Print a progress line on stderr."""
    print(message, file=sys.stderr)


def timed_progress() -> Callable[[str], None]:
    """A progress printer prefixing each line with the seconds since it was made."""
    started = time.perf_counter()

    def progress(message: str) -> None:
        print(f"[{time.perf_counter() - started:5.0f} s] {message}", file=sys.stderr)

    return progress


@contextlib.contextmanager
def sampler_display(args: argparse.Namespace) -> Iterator[bool]:
    """Show the samplers' live progress bars while a command runs, if it may fit a model
    (its parser's default ``fits=True``), is not ``--quiet`` and stderr is a terminal.

    The bars are a display choice, not a sampler setting
    (:func:`forecast.models.sampling.progress_bars`): a fit stores the same configuration,
    and has the same identity, however it was watched.

    Yields
    ------
    bool
        Whether the bars are on.
    """
    if not getattr(args, "fits", False) or getattr(args, "quiet", False) \
            or not sys.stderr.isatty():
        yield False
        return
    from forecast.models.sampling import progress_bars

    with progress_bars():
        yield True


def keep_compiled_code(args: argparse.Namespace) -> None:
    """For a command that may fit a model (its parser's default ``fits=True``): keep the
    compiled model code in its fit store (``--artifacts``, else the default) for later
    processes (:func:`forecast.models.compile_cache.use_compile_cache`)."""
    if not getattr(args, "fits", False):
        return
    from forecast.core.errors import FitError
    from forecast.models.compile_cache import use_compile_cache
    from forecast.store.bundles import fits_dir

    # A store path that is not a directory: the command itself says so.
    with contextlib.suppress(FitError):
        use_compile_cache(fits_dir(getattr(args, "artifacts", None)))


#: PyMC warns on every posterior predictive draw from a model with Potentials (the market
#: model's bounds): the Potentials' effect on *parameters drawn afresh* is ignored. A model
#: check draws only the observed variables, every parameter from the posterior, which the
#: Potentials shaped when it was sampled: nothing the warning is about happens.
POTENTIALS_WARNING = ("The effect of Potentials on other parameters is ignored during "
                      "posterior predictive sampling")


@contextlib.contextmanager
def known_false_alarms() -> Iterator[None]:
    """Hide, while the block runs, the library warnings known not to apply to it (each one
    matched by its message and category; see :data:`POTENTIALS_WARNING`)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=POTENTIALS_WARNING, category=UserWarning)
        yield
