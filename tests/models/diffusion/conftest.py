"""Fixtures shared by the diffusion-model tests."""

from __future__ import annotations

import pytest

from forecast.data.dataset import Dataset, load_dataset


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    """The shipped data (Epoch's modelled volumes among it), loaded once per test module."""
    return load_dataset()
