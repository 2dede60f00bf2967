"""Fixtures shared by the data-layer tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from forecast.data.dataset import DEFAULT_DATA_DIR, Dataset, load_dataset
from forecast.data.manifest import MANIFEST_FILE


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    """The shipped data, loaded once per test module."""
    return load_dataset()


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A copy of the shipped data directory to edit, without its manifest: a test that
    removes rows tests its own rule, not the manifest's (tests/data/test_manifest.py)."""
    target = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, target)
    (target / MANIFEST_FILE).unlink()
    return target
