"""Remove what dead runs left in a fit store and record them as crashed.

A refit killed mid-run (SIGKILL, power loss, OOM) cannot clean up after itself. It leaves,
under the artifacts root:

- ``.refit-data-*``: the data it was merging a drop into;
- ``.refit-tmp-*``: its private temporary directory (PyTensor's and numba's generated
  sources, which those libraries never delete: see :mod:`forecast.pipeline.refit`);
- ``fits/.tmp-<fit_id>``: a fit it was writing but had not published (also left by a
  forecast killed while storing its first fit);
- its ``runs`` row in the registry, without an outcome.

:func:`collect_garbage` removes them, for a caller holding the refit lock (the next refit,
or ``cli.py fits gc`` through :func:`clean_store`): no refit is alive then, and staging
directories are only removed when no writer holds the publish lock
(:mod:`forecast.store.locks`). Published fits are never touched: a run that died after
publishing leaves a complete fit, and its row says so.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from forecast.core.errors import FitError
from forecast.store.bundles import STAGING_PREFIX, fits_dir, scan_fits
from forecast.store.locks import publish_lock, refit_lock
from forecast.store.registry import Registry

#: Prefixes of a refit's working directories under the artifacts root.
REFIT_DATA_PREFIX = ".refit-data-"
REFIT_TMP_PREFIX = ".refit-tmp-"


@dataclass
class Cleanup:
    """What :func:`collect_garbage` removed and recorded."""

    removed: list[Path] = field(default_factory=list)
    freed_bytes: int = 0
    crashed_runs: list[int] = field(default_factory=list)
    kept_staging: bool = False

    def __bool__(self) -> bool:
        return bool(self.removed or self.crashed_runs)

    def describe(self) -> str:
        """One line: what was removed and which runs were marked crashed."""
        if not self:
            return "nothing to clean: no leftovers of crashed runs"
        parts = []
        if self.removed:
            names = ", ".join(path.name for path in self.removed)
            parts.append(f"removed {len(self.removed)} leftover(s) of crashed runs "
                         f"({self.freed_bytes / 1e6:.1f} MB: {names})")
        if self.crashed_runs:
            parts.append(f"marked run(s) {', '.join(map(str, self.crashed_runs))} crashed")
        if self.kept_staging:
            parts.append("fits being written by live processes left alone")
        return "; ".join(parts)


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _remove(paths: list[Path], report: Cleanup) -> None:
    for path in paths:
        try:
            size = _size(path) if path.is_dir() else path.stat().st_size
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError as exc:
            raise FitError(f"{path}: cannot remove this leftover of a crashed run "
                           f"({exc.strerror or exc})") from None
        report.removed.append(path)
        report.freed_bytes += size


def collect_garbage(root: str | Path | None = None) -> Cleanup:
    """Remove dead runs' leftovers and mark their registry rows ``crashed``.

    The caller must hold the refit lock (:func:`forecast.store.locks.refit_lock`).

    Parameters
    ----------
    root
        The artifacts root (default: ``$FORECAST_ARTIFACTS`` or ``artifacts/``).

    Returns
    -------
    Cleanup
        What was removed and marked.

    Raises
    ------
    FitError
        When a leftover cannot be removed, or the registry is unusable.
    """
    base = fits_dir(root)
    report = Cleanup()
    if not base.is_dir():
        return report
    _remove(sorted(p for prefix in (REFIT_DATA_PREFIX, REFIT_TMP_PREFIX)
                   for p in base.glob(f"{prefix}*")), report)
    with publish_lock(base, exclusive=True) as no_writer:
        staging = sorted((base / "fits").glob(f"{STAGING_PREFIX}*"))
        if no_writer:
            _remove(staging, report)
        report.kept_staging = bool(staging) and not no_writer
    headers, _ = scan_fits(base)
    published = {header["run_id"]: header["fit_id"] for header in headers
                 if isinstance(header.get("run_id"), int)}
    report.crashed_runs = Registry(base).mark_crashed(published)
    return report


def clean_store(root: str | Path | None = None) -> Cleanup:
    """:func:`collect_garbage` under the refit lock (``cli.py fits gc``).

    Raises
    ------
    RefitBusyError
        When a refit is running: what it is writing is not garbage.
    """
    base = fits_dir(root)
    if not base.is_dir():
        raise FitError(f"{base}: no fit store there")
    with refit_lock(base):
        return collect_garbage(base)
