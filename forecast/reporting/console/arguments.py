"""Checks of command-line arguments, made while parsing, before any command does work, and
the option groups several commands share.

Each function is an ``argparse`` ``type=``: it takes the argument's text and returns its
value, or raises :class:`argparse.ArgumentTypeError` with a one-line reason (the CLI prints
it and exits 2). A refit told ``--report-draws 0`` thus stops at once, not after minutes of
sampling. What needs the data or the fit (a horizon after the data's end, paths that fit in
memory) is checked by :func:`forecast.pipeline.runner.load_run` before it fits or simulates.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

#: Help of the common path options.
DATA_HELP = "data directory (default: the project's data/)"
STORE_HELP = "fit store (default: the project's artifacts/)"

#: Latest calendar year a forecast may run to.
MAX_HORIZON_YEAR = 2100
#: Earliest calendar year a horizon may name (the data start later).
MIN_HORIZON_YEAR = 2000
#: Most quarters ahead a series forecast or backtest may ask for (as many as to 2100).
MAX_QUARTERS_AHEAD = 4 * (MAX_HORIZON_YEAR - 2025)
#: Most sampler draws or tuning steps per chain: more would take days to sample and store.
MAX_SAMPLER_STEPS = 100_000
#: Most worker processes of a local cluster: more would exhaust the machine, not speed up.
MAX_WORKERS = 1024
#: Seeds are what every random generator the package uses accepts: 0 <= seed < 2**32.
MAX_SEED = 2**32 - 1


def _integer(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None


def _number(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """A whole number > 0 (draws, origins, quarters...)."""
    value = _integer(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """A whole number >= 0 (a count of divergences)."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (a least effective sample size)."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value:g}")
    return value


def worker_count(text: str) -> int:
    """Worker processes: 0 (serial) to :data:`MAX_WORKERS`."""
    value = non_negative_int(text)
    if value > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_WORKERS}, got {value}")
    return value


def r_hat_bound(text: str) -> float:
    """A largest r_hat: a finite number >= 1 (r_hat is never below 1)."""
    value = _number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1 (r_hat is never below 1), got {value:g}")
    return value


def sampler_steps(text: str) -> int:
    """Sampler draws or tuning steps per chain: 1 to :data:`MAX_SAMPLER_STEPS`."""
    value = positive_int(text)
    if value > MAX_SAMPLER_STEPS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SAMPLER_STEPS}, got {value}")
    return value


def quarters_ahead(text: str) -> int:
    """Quarters ahead: 1 to :data:`MAX_QUARTERS_AHEAD`."""
    value = positive_int(text)
    if value > MAX_QUARTERS_AHEAD:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_QUARTERS_AHEAD}, got {value}")
    return value


def horizon_year(text: str) -> int:
    """A forecast's last calendar year, :data:`MIN_HORIZON_YEAR` to :data:`MAX_HORIZON_YEAR`
    (whether it is after the data's end is checked once the data are read)."""
    value = _integer(text)
    if not MIN_HORIZON_YEAR <= value <= MAX_HORIZON_YEAR:
        raise argparse.ArgumentTypeError(
            f"must be a calendar year from {MIN_HORIZON_YEAR} to {MAX_HORIZON_YEAR}, got {value}")
    return value


def seed(text: str) -> int:
    """A random seed: 0 to :data:`MAX_SEED`."""
    value = _integer(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_SEED}, got {value}")
    return value


def nonempty(text: str) -> str:
    """Any text but an empty (or blank) one: a name, a fit id, a metric."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def fit_id(text: str) -> str:
    """A fit id: not empty, letters, digits, '-' and '_', at most 100 characters
    (:func:`forecast.core.ids.check_fit_id`): never a path, nor a name too long to look up."""
    from forecast.core.errors import ForecastError
    from forecast.core.ids import check_fit_id

    try:
        return check_fit_id(nonempty(text), "")
    except ForecastError as exc:
        raise argparse.ArgumentTypeError(str(exc).strip()) from None


def existing_directory(text: str) -> str:
    """A directory that exists (``--data``)."""
    path = Path(nonempty(text))
    _check_parents(path, text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: no such directory")
    return text


def existing_file(text: str) -> str:
    """A regular file that exists (a CSV or scenario file)."""
    path = Path(nonempty(text))
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{text}: no such file")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text}: not a regular file")
    return text


def existing_path(text: str) -> str:
    """A file or directory that exists (a data drop)."""
    if not Path(nonempty(text)).exists():
        raise argparse.ArgumentTypeError(f"{text}: no such file or directory")
    return text


def directory_to_be(text: str) -> str:
    """A directory that exists or can be made: not empty, neither it nor any of its parents
    a file (``--out``). Whether it is writable is checked before writing."""
    _check_parents(Path(nonempty(text)), text)
    return text


def store_directory(text: str) -> str:
    """A fit store (``--artifacts``): not empty, none of its parents a file.

    A store path that is itself a file is refused, before any work, by the store
    (:func:`forecast.store.bundles.fits_dir`), in the same words for every command and for
    the Python API; a store that is not writable, before a fit is sampled
    (:func:`forecast.pipeline.runner.check_store_writable`).
    """
    path = Path(nonempty(text))
    if path.parent != path:
        _check_parents(path.parent, text)
    return text


def _check_parents(path: Path, text: str) -> None:
    """Refuse ``path`` if it or the nearest of its parents that exists is not a directory."""
    for ancestor in (path, *path.parents):
        if ancestor.exists() or ancestor.is_symlink():
            if not ancestor.is_dir():
                where = "" if str(ancestor) == text else f" ({ancestor} is a file)"
                raise argparse.ArgumentTypeError(f"{text}: not a directory{where}")
            return


def add_run_options(sub: argparse.ArgumentParser) -> None:
    """Scenario, paths, seed and which fit and data: shared by sensitivity, report, sweep.

    These commands may fit (``fits=True``: the samplers' progress bars on a terminal).
    """
    sub.add_argument("--scenario", default="base", type=nonempty)
    sub.add_argument("--draws", type=positive_int, help="paths per run (default: "
                     "sensitivity 2000, report and sweep the scenario's)")
    sub.add_argument("--seed", type=seed, help="random seed (default: scenario)")
    sub.add_argument("--fit", type=fit_id, help="use this stored fit id instead of the latest")
    sub.add_argument("--data", type=existing_directory,
                     help="data directory (default: the fit's data)")
    sub.add_argument("--artifacts", type=store_directory, help=STORE_HELP)
    sub.set_defaults(fits=True)


def add_execution_options(sub: argparse.ArgumentParser) -> None:
    """Where the runs go: --workers (a local Dask cluster, 0 serial) or --scheduler; shared
    by backtest, sensitivity and sweep."""
    sub.add_argument("--workers", type=worker_count, metavar="N",
                     help="worker processes of the local Dask cluster (default: one per "
                     "core); 0 runs serially without Dask")
    sub.add_argument("--scheduler", metavar="ADDRESS", type=nonempty,
                     help="run on the Dask cluster of this scheduler, e.g. tcp://host:8786 "
                     "(default: $FORECAST_DASK_SCHEDULER, else a local cluster)")
