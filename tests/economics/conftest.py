"""Fixtures shared by the economics tests."""

from __future__ import annotations

import pandas as pd
import pytest
from chip_table import catalogue_frame

from forecast.data.dataset import Dataset, load_dataset
from forecast.scenarios import Scenario, load_scenario


@pytest.fixture
def accelerators() -> pd.DataFrame:
    """The small test catalogue (a fresh copy per test)."""
    return catalogue_frame()


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    """The shipped data, loaded once per test module."""
    return load_dataset()


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    """The shipped base scenario, loaded once per test module."""
    return load_scenario("base")
