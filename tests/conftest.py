"""Fixtures shared across test modules.

``fit_store`` is one small-sampler fit (bull, base and bear in one bundle: one price model,
three share and three market models sharing compiled samplers) built once per test
session, so every test that needs stored fits (forecast CLI, refit, reports) pays for the
sampling once. Its gate is relaxed: small draws cannot reach ESS 400.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from forecast.data import load_dataset
from forecast.fitting import fit_all
from forecast.scenario import load_scenario

#: Sampler settings for plumbing tests: converged enough to be meaningful, not for inference.
SMALL_SAMPLER = {"draws": 300, "tune": 600, "chains": 2}
LOOSE_GATE = {"max_r_hat": 1.2, "min_ess_bulk": 20, "max_divergences": 20}


@pytest.fixture(scope="session")
def fit_store(tmp_path_factory) -> Path:
    """An artifacts root holding published light fits of the bull, base and bear scenarios."""
    prebuilt = os.environ.get("FORECAST_TEST_STORE")
    if prebuilt:  # a store built by an earlier session, for quick local iterations
        return Path(prebuilt)
    root = tmp_path_factory.mktemp("artifacts")
    scenarios = [load_scenario(name) for name in ("base", "bull", "bear")]
    bundle = fit_all(load_dataset(), scenarios, root=root, sampler=SMALL_SAMPLER,
                     gate=LOOSE_GATE)
    assert bundle.status == "published", bundle.meta["gate_failures"]
    return root


@pytest.fixture(scope="session")
def loose_gate() -> dict[str, float]:
    """The relaxed gate the light fits of ``fit_store`` pass."""
    return dict(LOOSE_GATE)
