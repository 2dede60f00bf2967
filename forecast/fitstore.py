"""Versioned fits on disk: every model's posterior plus provenance, published atomically.

Layout under the artifacts root (``artifacts/`` by default, ignored by git)::

    artifacts/fits/<fit_id>/bundle.json     provenance, diagnostics, status
    artifacts/fits/<fit_id>/<model>/...     each model's saved fit (NetCDF + JSON)

A fit is written into a hidden temporary directory next to its final place, flushed, and
renamed in one step, so a reader sees either the whole fit or nothing, and an interrupted
write never damages a fit that was already there. Only fits whose ``status`` is
``published`` are ever picked by :func:`latest_fit_id`.

Loading a fit imports the fitted-model classes only: no PyMC.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forecast.errors import FitError

DEFAULT_ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"

def _code_version() -> str:
    # One source of truth: the version in pyproject.toml, as installed.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("accelerator-forecast")
    except PackageNotFoundError:
        return "unknown (not installed)"



def fits_dir(root: str | Path | None = None) -> Path:
    """The artifacts root: the argument, else $FORECAST_ARTIFACTS, else ``artifacts/``."""
    if root:
        return Path(root)
    return Path(os.environ.get("FORECAST_ARTIFACTS") or DEFAULT_ARTIFACTS)


def new_fit_id(data_hash: str, now: datetime | None = None) -> str:
    """A sortable, unique id: UTC time, data hash prefix and a random suffix."""
    moment = now or datetime.now(UTC)
    return f"{moment:%Y%m%dT%H%M%S}-{data_hash[:8]}-{uuid.uuid4().hex[:4]}"


@dataclass
class FitBundle:
    """Fitted models of one fit, keyed by model name, and their provenance."""

    fit_id: str
    models: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        return str(self.meta.get("status", "published"))

    def diagnostics(self) -> dict[str, dict[str, Any]]:
        return {name: model.diagnostics() for name, model in self.models.items()}


def _fsync_tree(directory: Path) -> None:
    for path in directory.rglob("*"):
        if path.is_file():
            with path.open("rb") as handle:
                os.fsync(handle.fileno())


def save_bundle(bundle: FitBundle, root: str | Path | None = None,
                before_publish: Any = None) -> Path:
    """Write a bundle atomically under ``root/fits/<fit_id>``; returns the final directory.

    ``before_publish`` (a callable, for tests) runs after everything is written and before
    the rename: an exception there leaves no trace but the removed temporary directory.
    """
    base = fits_dir(root) / "fits"
    base.mkdir(parents=True, exist_ok=True)
    final = base / bundle.fit_id
    if final.exists():
        raise FitError(f"fit {bundle.fit_id} already exists")
    staging = base / f".tmp-{bundle.fit_id}"
    try:
        staging.mkdir()
        for name, model in bundle.models.items():
            model.save(staging / name)
        header = {"fit_id": bundle.fit_id, "models": sorted(bundle.models),
                  "code_version": _code_version(), **bundle.meta}
        (staging / "bundle.json").write_text(json.dumps(header, indent=2, default=str))
        _fsync_tree(staging)
        if before_publish is not None:
            before_publish(staging)
        os.replace(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final


def read_header(directory: Path) -> dict[str, Any]:
    try:
        return json.loads((directory / "bundle.json").read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise FitError(f"{directory}: not a readable fit ({exc})") from None


def list_fits(root: str | Path | None = None) -> list[dict[str, Any]]:
    """Headers of every stored fit (published or gated), oldest first."""
    base = fits_dir(root) / "fits"
    if not base.is_dir():
        return []
    headers = []
    for directory in sorted(base.iterdir()):
        if directory.name.startswith(".") or not (directory / "bundle.json").exists():
            continue
        headers.append(read_header(directory))
    return headers


def latest_fit_id(root: str | Path | None = None, priors_digest: str | None = None) -> str | None:
    """Newest published fit, optionally only one fitted with the given priors."""
    candidates = [h for h in list_fits(root) if h.get("status", "published") == "published"
                  and (priors_digest is None or h.get("priors_digest") == priors_digest)]
    return candidates[-1]["fit_id"] if candidates else None


def load_bundle(fit_id: str, root: str | Path | None = None) -> FitBundle:
    """Load every model of a stored fit (numpy/xarray only)."""
    from forecast.models.market import FittedMarket
    from forecast.models.price import FittedPriceModel
    from forecast.models.share import FittedShareModel

    classes = {"price": FittedPriceModel, "market": FittedMarket, "share": FittedShareModel}
    directory = fits_dir(root) / "fits" / fit_id
    if not directory.is_dir():
        raise FitError(f"no stored fit {fit_id!r} under {fits_dir(root)}")
    header = read_header(directory)
    models = {}
    for name in header["models"]:
        if name not in classes:
            raise FitError(f"fit {fit_id}: unknown model {name!r}")
        models[name] = classes[name].load(directory / name)
    meta = {key: value for key, value in header.items() if key not in ("fit_id", "models")}
    return FitBundle(fit_id=fit_id, models=models, meta=meta)
