"""Toy fits for the store's tests: a registered model whose fits are written and read by the
real store code (posterior.nc, the .npz copies, Parquet, summary, config, snapshots) in a
fraction of a second, with no sampling. Imported by the tests of this folder and by the
crash tests' subprocesses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from forecast.models.fitted import Fitted
from forecast.models.registry import MODELS
from forecast.store.bundles import FitBundle, save_bundle

#: The fit the ``toy_store`` fixture (conftest.py) publishes.
TOY_FIT = "20260101T000000-toyfit01-0001"
#: The model keys of a toy fit; the first is the base scenario's.
KEYS = ("toy-aaaaaaaaaaaaaaaa", "toy-bbbbbbbbbbbbbbbb")
PRIORS_DIGEST = "toy-priors"


class ToyFitted(Fitted):
    """A fitted toy model: a posterior and one data frame, nothing to forecast."""

    model_name = "toy"
    model_version = "1"


class ToyModel:
    """Stands in for a model class in :data:`forecast.models.registry.MODELS`."""

    name = "toy"
    fitted_class = ToyFitted


def register() -> None:
    """Make the store able to load toy models (tests undo it with monkeypatch)."""
    MODELS["toy"] = ToyModel  # type: ignore[assignment]


def toy_fitted(seed: int = 0) -> ToyFitted:
    """A small fit with every kind of column the stored frames keep."""
    rng = np.random.default_rng(seed)
    posterior = xr.Dataset(
        {"slope": (("chain", "draw"), rng.normal(size=(2, 40))),
         "share": (("chain", "draw", "vendor"), rng.dirichlet([1, 2, 3], size=(2, 40)))},
        coords={"chain": [0, 1], "draw": np.arange(40),
                "vendor": np.array(["nvidia", "amd", "aws"], dtype=object)})
    observations = pd.DataFrame({
        "quarter": pd.PeriodIndex(["2024Q4", "2025Q1", "2025Q2"], freq="Q").array,
        "chip": np.array(["H100", None, "Trainium2"], dtype=object),
        "value": rng.normal(size=3)})
    summary = pd.DataFrame({"parameter": ["slope"], "mean": [0.1], "r_hat": [1.0],
                            "ess_bulk": [800.0], "ess_tail": [700.0]})
    import arviz as az

    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((2, 40), dtype=bool))},
                       coords={"chain": [0, 1], "draw": np.arange(40)})
    return ToyFitted(posterior=posterior, data={"observations": observations},
                     config={"priors": {"slope": 1.0}}, summary_table=summary,
                     meta={"divergences": 0},
                     idata=az.InferenceData(posterior=posterior, sample_stats=stats))


def snapshot_dirs(tmp: Path) -> tuple[Path, Path]:
    """A data and a scenarios directory to snapshot into a fit."""
    data, scenarios = tmp / "toy-data", tmp / "toy-scenarios"
    for directory in (data, scenarios):
        directory.mkdir(parents=True, exist_ok=True)
    (data / "prices.csv").write_text("chip,price\nH100,2.5\nTrainium2,1.1\n")
    (scenarios / "base.toml").write_text('name = "base"\ndraws = 100\n')
    return data, scenarios


def publish_toy(root: Path, fit_id: str, work: Path, run_id: int | None = None,
                status: str = "published", **hooks: Any) -> FitBundle:
    """Publish a toy fit of two models, with snapshots and a report, through save_bundle."""
    data, scenarios = snapshot_dirs(work)
    meta = {"status": status, "gate_failures": {}, "as_of": "2026-01-31",
            "data_end": "2025-12-31", "data_hash": "toy",
            "scenarios": {"base": {"priors_digest": PRIORS_DIGEST,
                                   "models": {"toy": KEYS[0]}}}}
    if run_id is not None:
        meta["run_id"] = run_id
    bundle = FitBundle(fit_id, {KEYS[0]: toy_fitted(0), KEYS[1]: toy_fitted(1)}, meta)
    save_bundle(bundle, root, data_dir=data, scenarios_dir=scenarios,
                extra_files={"revision.md": "# revision\n"}, **hooks)
    return bundle
