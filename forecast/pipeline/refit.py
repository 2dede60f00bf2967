"""The quarterly re-fit: ingest a data drop, refit every model, gate, publish, report.

Steps, each of which either completes or leaves the previous state untouched:

1. Take the refit lock (``<artifacts>/refit.lock``); a second refit stops at once.
2. Start from the data of the newest stored fit (or the project's ``data/``), check the drop
   with the same rules as ``data/`` and merge it into a staging copy, revisions logged
   (:mod:`forecast.data.drop`). A bad row stops here: nothing is written.
3. Fit every model for every scenario (models whose priors and inputs are unchanged since a
   stored fit are reused), gate on diagnostics and store the fit atomically as ``published``
   or ``gated``, with its data snapshot and the revision report against the previous
   published fit (:mod:`forecast.pipeline.revision`).
4. Record the run in the registry (:mod:`forecast.store.registry`).

Only a published fit is ever used by ``forecast``; a gated one is kept for inspection.
"""

from __future__ import annotations

import contextlib
import fcntl
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

from forecast.core.errors import DataValidationError, ForecastError, RefitBusyError
from forecast.data.dataset import DEFAULT_DATA_DIR, SCHEMAS, load_dataset
from forecast.data.drop import REVISIONS_FILE, MergeSummary, merge_drop, read_drop
from forecast.store.bundles import (
    FitBundle,
    fits_dir,
    latest_data_dir,
    latest_fit_id,
    list_fits,
    load_bundle,
)
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
    """Hold ``<artifacts>/refit.lock`` (an OS file lock, released even if the process dies)."""
    base = fits_dir(root)
    base.mkdir(parents=True, exist_ok=True)
    path = base / "refit.lock"
    handle = path.open("a+")
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            raise RefitBusyError(f"another refit is running ({holder}); lock {path}: "
                            "try again when it has finished") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} since {datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ}")
        handle.flush()
        yield path
    finally:
        handle.close()  # closing the descriptor releases the lock


def _copy_data(source: Path, target: Path) -> None:
    for name in (*SCHEMAS, REVISIONS_FILE):
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
    """
    from forecast.pipeline.fitting import fit_all
    from forecast.pipeline.revision import revision_table, to_json, to_markdown
    from forecast.scenarios import list_scenarios, load_scenario

    say = progress or (lambda message: None)
    cutoff = _parse_as_of(as_of)
    with refit_lock(root):
        registry = Registry(root)
        run_id = registry.start_run(str(drop) if drop else None, str(cutoff.date()))
        started = time.perf_counter()
        try:
            scenario_list = ([load_scenario(name) for name in scenarios] if scenarios
                             else list_scenarios())
            base = Path(data_dir) if data_dir else (latest_data_dir(root, published_only=False)
                                                    or DEFAULT_DATA_DIR)
            previous_id = latest_fit_id(root)
            with tempfile.TemporaryDirectory(prefix=".refit-data-", dir=fits_dir(root)) as tmp:
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
                                           draws=report_draws, seed=report_seed)
                    info = {**header, "fit_id": bundle.fit_id, "status": bundle.status,
                            "as_of": bundle.meta["as_of"], "data_end": bundle.meta["data_end"]}
                    return {REPORT_MARKDOWN: to_markdown(table, info),
                            REPORT_JSON: to_json(table, info)}

                bundle = fit_all(dataset, scenario_list, root=root, sampler=sampler,
                                 progress=say, gate=gate, reuse=reuse,
                                 before_publish=before_publish,
                                 extra_meta={"run_kind": "refit", **header},
                                 extra_files=report)
        except DataValidationError as exc:
            registry.finish_run(run_id, "rejected", time.perf_counter() - started,
                                message=str(exc.issues[0]) if exc.issues else str(exc))
            raise
        except BaseException as exc:
            registry.finish_run(run_id, "failed", time.perf_counter() - started,
                                message=f"{type(exc).__name__}: {exc}"[:500])
            raise
        seconds = time.perf_counter() - started
        registry.finish_run(run_id, bundle.status, seconds, fit_id=bundle.fit_id,
                            message=merge.describe())
        return RefitResult(bundle, merge, previous_id, seconds, run_id)


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
