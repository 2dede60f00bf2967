"""Versioned fits on disk: every model's posterior plus provenance, published atomically.

Layout under the artifacts root (``artifacts/`` by default, ignored by git)::

    artifacts/fits/<fit_id>/bundle.json       provenance, diagnostics, status, scenarios
    artifacts/fits/<fit_id>/<model-key>/...   each model's saved fit (NetCDF + JSON)
    artifacts/fits/<fit_id>/data/*.csv        the data the fit saw (with its revisions log)
    artifacts/fits/<fit_id>/scenarios/*.toml  the scenario files it was fitted for
    artifacts/registry.sqlite                 index of every fit and refit run

A model key is ``<model>-<digest>``: the digest covers the model's priors and the data it was
fitted to, so one fit holds one price model shared by every scenario whose priors agree, and
one spend model per distinct set of priors and inputs. ``bundle.json``
maps each scenario to its model keys (those of
:data:`~forecast.models.registry.SCENARIO_MODELS`).

A fit is written into a hidden temporary directory next to its final place (``.tmp-<fit_id>``,
under the shared publish lock: :mod:`forecast.store.locks`), its files' SHA-256 recorded in
its header (:mod:`forecast.store.integrity`), flushed, and renamed in one step, so a reader
sees either the whole fit or nothing, and an interrupted write never damages a fit that was
already there (its leftover is removed by :mod:`forecast.store.cleanup`). Loading checks
every file it reads against those checksums. A fit directory whose header is missing or
unreadable is a damaged fit, never an absent one: listing the fits refuses to go on (naming
it) rather than silently skip it. Only fits whose ``status`` is ``published`` are ever
picked by :func:`latest_fit_id`.

Loading a fit imports the fitted-model classes only: no PyMC. The SQLite registry is an index
kept in step with the fit directories (which are the truth): a registry write that fails
after a rename is repaired the next time the registry is opened.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forecast.core.errors import FitError
from forecast.store import integrity
from forecast.store.locks import publish_lock

DEFAULT_ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
#: Prefix of a fit's staging directory under ``fits/`` while it is written.
STAGING_PREFIX = ".tmp-"


def _code_version() -> str:
    # One source of truth: the version in pyproject.toml, as installed.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("accelerator-forecast")
    except PackageNotFoundError:
        return "unknown (not installed)"


def fits_dir(root: str | Path | None = None) -> Path:
    """The artifacts root: the argument, else $FORECAST_ARTIFACTS, else ``artifacts/``.

    Raises
    ------
    FitError
        When that path exists and is not a directory.
    """
    base = Path(root) if root else Path(os.environ.get("FORECAST_ARTIFACTS")
                                        or DEFAULT_ARTIFACTS)
    if base.exists() and not base.is_dir():
        raise FitError(f"{base}: not a directory (the fit store is a directory of fits)")
    return base


def new_fit_id(data_hash: str, now: datetime | None = None) -> str:
    """A sortable, unique id: UTC time, data hash prefix and a random suffix."""
    moment = now or datetime.now(UTC)
    return f"{moment:%Y%m%dT%H%M%S}-{data_hash[:8]}-{uuid.uuid4().hex[:4]}"


@dataclass
class FitBundle:
    """Fitted models of one fit, keyed by model key, and their provenance.

    ``models`` maps model keys (``price-1a2b...``) to fitted models; a bundle returned by
    :meth:`for_scenario` (what :func:`~forecast.pipeline.simulate.simulate` takes) maps the plain
    model names (``price``, ``spend``) instead.
    """

    fit_id: str
    models: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    directory: Path | None = None

    @property
    def status(self) -> str:
        return str(self.meta.get("status", "published"))

    @property
    def scenarios(self) -> dict[str, dict[str, Any]]:
        """Scenario name -> ``{"priors_digest": ..., "models": {name: key}}``."""
        return dict(self.meta.get("scenarios", {}))

    @property
    def data_dir(self) -> Path | None:
        """The fit's snapshot of its data, when it has one."""
        if self.directory is None or not (self.directory / "data").is_dir():
            return None
        return self.directory / "data"

    @property
    def scenarios_dir(self) -> Path | None:
        """The fit's snapshot of the scenario files it was fitted for, when it has one."""
        if self.directory is None or not (self.directory / "scenarios").is_dir():
            return None
        return self.directory / "scenarios"

    def diagnostics(self) -> dict[str, dict[str, Any]]:
        return {name: model.diagnostics() for name, model in self.models.items()}

    def keys_for(self, priors_digest: str) -> dict[str, str] | None:
        """Model keys of the scenario entry with these priors, or None."""
        for entry in self.scenarios.values():
            if entry.get("priors_digest") == priors_digest:
                return dict(entry["models"])
        return None

    def for_scenario(self, priors_digest: str) -> FitBundle:
        """The models fitted with these priors, keyed by model name (``price``, ``spend``)."""
        keys = self.keys_for(priors_digest)
        if keys is None:
            raise FitError(f"fit {self.fit_id} has no models for these scenario priors")
        return FitBundle(self.fit_id, {name: self.models[key] for name, key in keys.items()},
                         self.meta, self.directory)


def _fsync(path: Path) -> None:
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _fsync_tree(directory: Path) -> None:
    """Flush every file and directory under ``directory`` (itself included) to disk."""
    for path in directory.rglob("*"):
        _fsync(path)
    _fsync(directory)


def _write_staging(staging: Path, bundle: FitBundle, data_dir: str | Path | None,
                   scenarios_dir: str | Path | None, extra_files: dict[str, str] | None) -> None:
    """Every file of the fit, then its header with their checksums, flushed to disk."""
    staging.mkdir()
    for name, model in bundle.models.items():
        model.save(staging / name)
    for source, target, pattern in ((data_dir, "data", "*.csv"),
                                    (scenarios_dir, "scenarios", "*.toml")):
        if source is not None:
            (staging / target).mkdir()
            for path in sorted(Path(source).glob(pattern)):
                shutil.copy2(path, staging / target / path.name)
    for name, text in (extra_files or {}).items():
        (staging / name).write_text(text)
    header = {"fit_id": bundle.fit_id, "models": sorted(bundle.models),
              "code_version": _code_version(), **bundle.meta,
              integrity.CHECKSUMS: integrity.tree_checksums(staging)}
    (staging / integrity.HEADER_FILE).write_bytes(integrity.encode_header(header))
    _fsync_tree(staging)


def save_bundle(bundle: FitBundle, root: str | Path | None = None,
                before_publish: Any = None, data_dir: str | Path | None = None,
                scenarios_dir: str | Path | None = None,
                extra_files: dict[str, str] | None = None) -> Path:
    """Write a bundle atomically under ``root/fits/<fit_id>``; returns the final directory.

    ``data_dir`` and ``scenarios_dir`` are copied into the fit (CSV and TOML files), so the
    fit can be forecast from and compared later with exactly what it saw. ``extra_files``
    (name -> text) are written next to ``bundle.json`` (e.g. the revision report).
    ``before_publish`` (a callable, for tests) runs after everything is written and before
    the rename: an exception there leaves no trace but the removed temporary directory
    (a process killed there leaves the directory, removed by the next clean-up:
    :mod:`forecast.store.cleanup`). The header records every file's SHA-256. The fit is
    recorded in the registry after the rename.
    """
    store = fits_dir(root)
    base = store / "fits"
    base.mkdir(parents=True, exist_ok=True)
    final = base / bundle.fit_id
    if final.exists():
        raise FitError(f"fit {bundle.fit_id} already exists")
    staging = base / f"{STAGING_PREFIX}{bundle.fit_id}"
    with publish_lock(store):
        try:
            _write_staging(staging, bundle, data_dir, scenarios_dir, extra_files)
            if before_publish is not None:
                before_publish(staging)
            os.replace(staging, final)
            _fsync(base)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    bundle.directory = final
    from forecast.store.registry import Registry

    # The fit is published; should the index write fail, the next open repairs it.
    with contextlib.suppress(sqlite3.Error, OSError, FitError):
        Registry(root).record(read_header(final))
    return final


def read_header(directory: Path) -> dict[str, Any]:
    """A fit's ``bundle.json``, checked (:func:`forecast.store.integrity.decode_header`).

    Raises
    ------
    FitError
        When it is missing, unreadable or damaged (the message names the file).
    """
    return integrity.read_checked_header(directory)


def scan_fits(root: str | Path | None = None) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Headers of every stored fit, oldest first, and the damaged fit directories.

    Returns
    -------
    tuple
        The headers, and ``{directory name: why it is damaged}`` for every fit directory
        whose header is missing or unreadable. Hidden entries (staging) and files are not
        fits.
    """
    base = fits_dir(root) / "fits"
    if not base.is_dir():
        return [], {}
    headers, broken = [], {}
    for directory in sorted(base.iterdir()):
        if directory.name.startswith(".") or not directory.is_dir():
            continue
        try:
            headers.append(read_header(directory))
        except FitError as exc:
            broken[directory.name] = str(exc)
    return headers, broken


def list_fits(root: str | Path | None = None) -> list[dict[str, Any]]:
    """Headers of every stored fit (published or gated), oldest first.

    Raises
    ------
    FitError
        When a fit directory has no readable header: that fit is damaged, and picking
        another fit (or fitting anew) in its place would silently change the forecast.
    """
    headers, broken = scan_fits(root)
    if broken:
        raise FitError(next(iter(broken.values())))
    return headers


def covers(header: dict[str, Any], priors_digest: str) -> bool:
    """Whether a fit has models for a scenario with these priors."""
    return any(entry.get("priors_digest") == priors_digest
               for entry in header.get("scenarios", {}).values())


def latest_fit_id(root: str | Path | None = None, priors_digest: str | None = None) -> str | None:
    """Newest published fit; with ``priors_digest``, the newest published fit covering it
    among those fitted to the same data as the newest published fit (so a scenario never
    silently falls back to a fit on older data)."""
    published = [h for h in list_fits(root) if h.get("status", "published") == "published"]
    if not published:
        return None
    if priors_digest is None:
        return published[-1]["fit_id"]
    newest_data = published[-1].get("data_hash")
    candidates = [h for h in published if h.get("data_hash") == newest_data
                  and covers(h, priors_digest)]
    return candidates[-1]["fit_id"] if candidates else None


def latest_data_dir(root: str | Path | None = None, published_only: bool = True) -> Path | None:
    """Data snapshot of the newest (published) fit that has one; None means ``data/``."""
    for header in reversed(list_fits(root)):
        if published_only and header.get("status", "published") != "published":
            continue
        snapshot = fits_dir(root) / "fits" / header["fit_id"] / "data"
        if snapshot.is_dir():
            return snapshot
    return None


def fit_directory(fit_id: str, root: str | Path | None = None) -> Path:
    """The directory of a stored fit, or of the shipped fit (its id, or ``shipped``)."""
    directory = fits_dir(root) / "fits" / fit_id
    if not directory.is_dir() or fit_id.startswith("."):
        from forecast.store import shipped

        if shipped.is_shipped(fit_id):
            return shipped.shipped_dir()
        raise FitError(f"no stored fit {fit_id!r} under {fits_dir(root)}")
    return directory


def load_model(fit_id: str, key: str, root: str | Path | None = None) -> Any:
    """One fitted model of a stored fit by its key (``price-1a2b...`` or legacy ``price``),
    its files checked against the fit's header."""
    directory = fit_directory(fit_id, root)
    return _load_checked(directory, read_header(directory), key)


def _load_checked(directory: Path, header: dict[str, Any], key: str) -> Any:
    from forecast.models.registry import MODELS, name_of_key

    name = name_of_key(key)
    if name not in MODELS or key not in header["models"]:
        raise FitError(f"fit {directory.name}: unknown model {key!r}")
    return MODELS[name].fitted_class.load(directory / key,
                                          checksums=integrity.model_checksums(header, key))


def load_bundle(fit_id: str, root: str | Path | None = None,
                priors_digest: str | None = None) -> FitBundle:
    """Load a stored fit (numpy/xarray only).

    With ``priors_digest``, only that scenario's models are loaded and the bundle is keyed by
    model name, ready for :func:`~forecast.pipeline.simulate.simulate`.
    """
    directory = fit_directory(fit_id, root)
    header = read_header(directory)
    integrity.verify_outside_models(directory, header)
    meta = {key: value for key, value in header.items()
            if key not in ("fit_id", "models", integrity.CHECKSUMS, integrity.HEADER_DIGEST)}
    if priors_digest is None:
        keys = {key: key for key in header["models"]}
    else:
        whole = FitBundle(fit_id, {}, meta, directory)
        keys = whole.keys_for(priors_digest)
        if keys is None:
            raise FitError(f"fit {fit_id} has no models for the priors of this scenario; "
                           "refit with the scenario or pick another fit")
    models = {name: _load_checked(directory, header, key) for name, key in keys.items()}
    return FitBundle(fit_id=fit_id, models=models, meta=meta, directory=directory)
