"""Fixtures shared by the economics tests."""

from __future__ import annotations

import dataclasses

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


@pytest.fixture(scope="module")
def five_groups(dataset: Dataset) -> Dataset:
    """The shipped data with the five vendor groups of DESIGN section 4: Meta's and
    Microsoft's chips (``other_custom``) join Intel's in ``other``, covered fifth.

    Stands in for the five-group ``data/vendor_groups.csv`` until it ships.
    """
    groups = dataset.vendor_groups.copy()
    groups["vendor_group"] = groups["vendor_group"].replace({"other_custom": "other"})
    groups.loc[groups["vendor_group"] == "other", "share_model_order"] = 5
    chips = dataset.accelerators.copy()
    chips["vendor_group"] = chips["vendor_group"].replace({"other_custom": "other"})
    return dataclasses.replace(dataset, vendor_groups=groups, accelerators=chips)
