"""Fixtures shared by the data-layer tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from forecast.data.dataset import DEFAULT_DATA_DIR, Dataset, load_dataset


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    """The shipped data, loaded once per test module."""
    return load_dataset()


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A copy of the shipped data directory to edit."""
    target = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, target)
    return target
