"""Fixtures shared across test modules.

The default tier never samples a scenario's models: forecasts, reports, theses, sweeps and the
command line read the published fit that ships with the package (``published/``, fitted at the
default samplers: :mod:`forecast.store.shipped`). Three fixtures give it to a test:

- ``shipped_store``: an empty fit store of the session, so that every command falls back to
  the shipped fit (as on a fresh clone);
- ``seeded_store``: a fit store of the test's own holding the shipped fit as a stored,
  published fit (the previous fit of a refit; models with the same priors and inputs are
  reused, not sampled again);
- ``mock_sampler``: the one sampler entry point (``forecast.models.protocol.run_sampler``)
  draws from the prior instead of running NUTS (``pymc.testing.mock_sample``'s idea, with
  chains of their own), for the tests of what happens around a fit (refit orchestration,
  gates, stores), not of a model.

Real MCMC stays in a few small fits per model and in the ``validation`` tier.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from forecast.store import integrity, shipped

#: A gate that prior draws and small fits pass: plumbing tests check what happens around a
#: gate, not convergence.
LOOSE_GATE = {"max_r_hat": 1.2, "min_ess_bulk": 20, "max_divergences": 20}


@pytest.fixture(scope="session")
def shipped_store(tmp_path_factory) -> Path:
    """An empty fit store: commands given ``--artifacts`` it read the shipped fit."""
    assert shipped.shipped_header() is not None, (
        f"no shipped fit in published/: regenerate it with `{shipped.REGENERATE}`")
    return tmp_path_factory.mktemp("artifacts")


def seed_store(root: Path) -> str:
    """Copy the shipped fit into ``root`` as a stored, published fit; returns its id."""
    source = shipped.shipped_dir()
    header = integrity.read_checked_header(source)
    target = root / "fits" / header["fit_id"]
    shutil.copytree(source, target)
    (target / integrity.HEADER_FILE).unlink()
    stored = {key: value for key, value in header.items()
              if key not in ("kind", integrity.CHECKSUMS, integrity.HEADER_DIGEST)}
    stored[integrity.CHECKSUMS] = integrity.tree_checksums(target)
    (target / integrity.HEADER_FILE).write_bytes(integrity.encode_header(stored))
    return str(header["fit_id"])


@pytest.fixture
def seeded_store(tmp_path: Path) -> Path:
    """A fit store holding the shipped fit as its one published fit."""
    root = tmp_path / "artifacts"
    seed_store(root)
    return root


def _prior_draws(model: Any, settings: dict[str, Any], cache_key: Any = None,
                 data: Any = None) -> tuple[Any, float]:
    """Prior draws in the shape of a posterior: ``chains`` chains of ``draws`` each."""
    import arviz as az
    import pymc as pm

    from forecast.models.sampling import DEFAULT_SAMPLER

    settings = {**DEFAULT_SAMPLER, **settings}
    chains, draws = int(settings["chains"]), int(settings["draws"])
    names = [v.name for v in model.free_RVs + model.deterministics]
    with model:
        prior = pm.sample_prior_predictive(draws=chains * draws, var_names=names,
                                           random_seed=settings["random_seed"]).prior
    posterior = {name: values.values.reshape((chains, draws, *values.shape[2:]))
                 for name, values in prior.items()}
    dims = {name: list(values.dims[2:]) for name, values in prior.items()}
    coords = {name: prior.coords[name].values for name in prior.coords
              if name not in ("chain", "draw")}
    stats = {"diverging": np.zeros((chains, draws), dtype=bool)}
    return az.from_dict(posterior=posterior, sample_stats=stats, coords=coords, dims=dims), 0.0


@pytest.fixture
def mock_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fit draws its posterior from its prior: no NUTS, no nutpie compile."""
    monkeypatch.setattr("forecast.models.protocol.run_sampler", _prior_draws)
    # Every other compile of the fit (pointwise log likelihood, deterministics) in Python
    # implementations too: a fresh machine would otherwise spend most of a plumbing test
    # compiling C code for a few hundred prior draws.
    import pytensor

    monkeypatch.setattr(pytensor.config, "mode", "FAST_COMPILE")


@pytest.fixture(scope="session")
def loose_gate() -> dict[str, float]:
    """The relaxed gate plumbing fits pass."""
    return dict(LOOSE_GATE)


@dataclass(frozen=True)
class CliResult:
    """What a command printed and returned, as a subprocess's result reads."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    """Run ``python cli.py ARGS`` in this process (``cli.main``): its exit code and output."""
    import cli

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        code = cli.main([str(arg) for arg in args])
        out, err = capsys.readouterr()
        return CliResult(code, out, err)

    return run
