"""The quarterly re-fit: ingest a data drop, refit every model, gate, publish, report.

Steps, each of which either completes or leaves the previous state untouched:

1. Take the refit lock (``<artifacts>/refit.lock``); a second refit stops at once. Remove
   what crashed runs left and mark their registry rows ``crashed``
   (:mod:`forecast.store.cleanup`).
2. Start from the data of the newest stored fit (or the project's ``data/``), check the drop
   with the same rules as ``data/`` and merge it into a staging copy, revisions logged
   (:mod:`forecast.data.drop`). A bad row stops here: nothing is written.
3. Fit every model for every scenario (models whose priors and inputs are unchanged since a
   stored fit are reused), gate on diagnostics and store the fit atomically as ``published``
   or ``gated``, with its data snapshot and the revision report against the previous
   published fit (:mod:`forecast.pipeline.revision`).
4. Record the run in the registry (:mod:`forecast.store.registry`).

Only a published fit is ever used by ``forecast``; a gated one is kept for inspection.

The run's temporary files go to a private directory, ``<artifacts>/.refit-tmp-<run id>``
(``tempfile`` and ``$TMPDIR`` point there while it runs), removed at its end: PyTensor and
numba write each generated function's source to a temporary file they never delete, a few
hundred per fit. A run killed before its end leaves the directory to the next clean-up
rather than scattered through the system's temporary directory.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.core.errors import DataValidationError, FitError, ForecastError
from forecast.data.dataset import AS_OF_FILE, DEFAULT_DATA_DIR, SCHEMAS, load_dataset
from forecast.data.drop import REVISIONS_FILE, MergeSummary, merge_drop, read_drop
from forecast.data.manifest import MANIFEST_FILE
from forecast.store import locks
from forecast.store.bundles import (
    FitBundle,
    fits_dir,
    latest_data_dir,
    latest_fit_id,
    list_fits,
    load_bundle,
)
from forecast.store.cleanup import REFIT_DATA_PREFIX, REFIT_TMP_PREFIX, collect_garbage
from forecast.store.registry import Registry

REPORT_MARKDOWN = "revision.md"
REPORT_JSON = "revision.json"


@dataclass
class RefitResult:
    """Outcome of one refit: the stored fit, its status and what the drop changed."""

    bundle: FitBundle
    merge: MergeSummary
    previous_fit: str | None
    seconds: float
    run_id: int

    @property
    def status(self) -> str:
        return self.bundle.status

    @property
    def directory(self) -> Path | None:
        return self.bundle.directory


@contextlib.contextmanager
def refit_lock(root: str | Path | None = None) -> Iterator[Path]:
    """Hold ``<artifacts>/refit.lock`` (an OS file lock, released even if the process dies).

    Raises
    ------
    RefitBusyError
        When another refit holds it.
    """
    with locks.refit_lock(fits_dir(root)) as path:
        yield path


@contextlib.contextmanager
def private_tmpdir(root: str | Path | None, run_id: int) -> Iterator[Path]:
    """Send this process's (and its children's) temporary files to a directory of the run.

    ``tempfile`` and ``$TMPDIR`` point at ``<artifacts>/.refit-tmp-<run_id>`` until the block
    ends; the directory is removed then (or, after a crash, by the next clean-up).
    """
    directory = fits_dir(root) / f"{REFIT_TMP_PREFIX}{run_id}"
    directory.mkdir(parents=True, exist_ok=True)
    saved = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir, os.environ["TMPDIR"] = str(directory), str(directory)
    try:
        yield directory
    finally:
        tempfile.tempdir = saved[0]
        if saved[1] is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved[1]
        shutil.rmtree(directory, ignore_errors=True)


def _copy_data(source: Path, target: Path) -> None:
    # The data's own records too: without as_of.csv the fit's copy would be as of no date.
    for name in (*SCHEMAS, REVISIONS_FILE, AS_OF_FILE, MANIFEST_FILE):
        if (source / name).exists():
            shutil.copy2(source / name, target / name)


def refit(
    drop: str | Path | None = None,
    as_of: str | None = None,
    root: str | Path | None = None,
    scenarios: Sequence[str] | None = None,
    sampler: Mapping[str, Any] | None = None,
    gate: Mapping[str, float] | None = None,
    data_dir: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
    before_publish: Callable[[Path], None] | None = None,
    report_draws: int = 2000,
    report_seed: int = 0,
    reuse: bool = True,
) -> RefitResult:
    """Run one quarterly refit (see the module docstring).

    Parameters
    ----------
    drop
        A CSV file or directory of CSV files with new rows; None refits the current data.
    as_of
        The data's as-of date (``YYYY-MM-DD``; default today, UTC). Drop rows dated later are
        rejected and the fit only sees observations up to it.
    scenarios
        Scenario names to fit for (default: every scenario in ``scenarios/``).
    data_dir
        Data to start from (default: the newest stored fit's data, else ``data/``).
    sampler, gate
        Sampler settings and gate thresholds (``max_r_hat``, ``min_ess_bulk``,
        ``max_divergences``) overriding the defaults.
    reuse
        Reuse stored models whose priors and inputs are unchanged (default); False samples
        every model again.

    Raises
    ------
    RefitBusyError
        When another refit holds the lock.
    DataValidationError
        When the drop (or the merged data) fails validation; nothing is written.
    FitError
        When a stored fit or the registry is damaged (named in the message).
    """
    say = progress or (lambda message: None)
    cutoff = _parse_as_of(as_of)
    options = {"sampler": sampler, "gate": gate, "reuse": reuse,
               "before_publish": before_publish, "report_draws": report_draws,
               "report_seed": report_seed}
    with refit_lock(root):
        cleaned = collect_garbage(root)
        if cleaned:
            say(cleaned.describe())
        registry = Registry(root)
        run_id = registry.start_run(str(drop) if drop else None, str(cutoff.date()))
        started = time.perf_counter()
        try:
            with private_tmpdir(root, run_id):
                bundle, merge, previous_id = _refit_run(
                    drop, cutoff, root, scenarios, data_dir, say, run_id, options)
        except DataValidationError as exc:
            registry.finish_run(run_id, "rejected", time.perf_counter() - started,
                                message=str(exc.issues[0]) if exc.issues else str(exc))
            raise
        except BaseException as exc:
            with contextlib.suppress(FitError):  # a damaged registry: the error says so
                registry.finish_run(run_id, "failed", time.perf_counter() - started,
                                    message=f"{type(exc).__name__}: {exc}"[:500])
            raise
        seconds = time.perf_counter() - started
        registry.finish_run(run_id, bundle.status, seconds, fit_id=bundle.fit_id,
                            message=merge.describe())
        return RefitResult(bundle, merge, previous_id, seconds, run_id)


def _refit_run(drop: str | Path | None, cutoff: pd.Timestamp, root: str | Path | None,
               scenarios: Sequence[str] | None, data_dir: str | Path | None,
               say: Callable[[str], None], run_id: int,
               options: Mapping[str, Any]) -> tuple[FitBundle, MergeSummary, str | None]:
    """Merge the drop into staged data, fit, gate and publish; the body of :func:`refit`."""
    from forecast.pipeline.fitting import fit_all
    from forecast.pipeline.revision import revision_table, to_json, to_markdown
    from forecast.scenarios import list_scenarios, load_scenario

    scenario_list = ([load_scenario(name) for name in scenarios] if scenarios
                     else list_scenarios())
    base = Path(data_dir) if data_dir else (latest_data_dir(root, published_only=False)
                                            or DEFAULT_DATA_DIR)
    previous_id = latest_fit_id(root)
    with tempfile.TemporaryDirectory(prefix=REFIT_DATA_PREFIX, dir=fits_dir(root)) as tmp:
        staging = Path(tmp)
        if drop is not None:
            merge = merge_drop(base, read_drop(drop, cutoff), staging, cutoff)
            say(f"data drop: {merge.describe()}")
        else:
            _copy_data(base, staging)
            merge = MergeSummary()
        dataset = load_dataset(staging).as_of(cutoff)
        previous = _previous_by_scenario([s.name for s in scenario_list], root)
        header = {"previous_fit": previous_id, "drop": str(drop) if drop else None,
                  "merge": merge.describe(), "revisions": merge.revisions}

        def report(bundle: FitBundle) -> dict[str, str]:
            say("revision report: forecasting previous and new fits...")
            table = revision_table(bundle, dataset, scenario_list, previous,
                                   draws=options["report_draws"], seed=options["report_seed"])
            info = {**header, "fit_id": bundle.fit_id, "status": bundle.status,
                    "as_of": bundle.meta["as_of"], "data_end": bundle.meta["data_end"]}
            return {REPORT_MARKDOWN: to_markdown(table, info), REPORT_JSON: to_json(table, info)}

        bundle = fit_all(dataset, scenario_list, root=root, sampler=options["sampler"],
                         progress=say, gate=options["gate"], reuse=options["reuse"],
                         before_publish=options["before_publish"],
                         extra_meta={"run_kind": "refit", "run_id": run_id, **header},
                         extra_files=report)
    return bundle, merge, previous_id


def _parse_as_of(as_of: str | None) -> pd.Timestamp:
    if as_of is None:
        return pd.Timestamp(datetime.now(UTC).date())
    try:
        return pd.Timestamp(datetime.strptime(as_of, "%Y-%m-%d"))
    except ValueError:
        raise ForecastError(f"--as-of must be YYYY-MM-DD, got {as_of!r}") from None


def _previous_by_scenario(names: Sequence[str], root: Any) -> dict[str, tuple[FitBundle, Any]]:
    """For each scenario, the newest published fit made for it and the dataset it saw."""
    from forecast.pipeline.runner import fit_dataset

    found: dict[str, tuple[FitBundle, Any]] = {}
    loaded: dict[str, tuple[FitBundle, Any]] = {}
    for header in reversed(list_fits(root)):
        if header.get("status", "published") != "published":
            continue
        for name in names:
            if name in found or name not in header.get("scenarios", {}):
                continue
            fit_id = header["fit_id"]
            if fit_id not in loaded:
                bundle = load_bundle(fit_id, root)
                loaded[fit_id] = (bundle, fit_dataset(bundle.data_dir, bundle.meta.get("as_of")))
            found[name] = loaded[fit_id]
    return found
