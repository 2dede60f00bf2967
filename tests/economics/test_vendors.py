"""Tests of forecast.economics.vendors: vendor groups read from data/vendor_groups.csv."""

from __future__ import annotations

import dataclasses

import pytest

from forecast.core.errors import ForecastError
from forecast.economics.vendors import custom_silicon_groups, reference_vendor, share_vendors


def test_shipped_vendor_groups(dataset):
    assert share_vendors(dataset) == ("nvidia", "amd", "google", "aws")
    assert reference_vendor(dataset) == "nvidia"
    assert custom_silicon_groups(dataset) == ("google", "aws", "other_custom")
    groups = dict(zip(dataset.vendor_groups["vendor"], dataset.vendor_groups["vendor_group"],
                      strict=True))
    assert groups["Meta"] == groups["Microsoft"] == "other_custom"
    catalogue = dataset.accelerators
    assert (catalogue["vendor_group"] == catalogue["vendor"].map(groups)).all()


def test_a_data_change_moves_a_vendor(dataset):
    table = dataset.vendor_groups.copy()
    table.loc[table["vendor"] == "Intel", "silicon"] = "custom"
    table.loc[table["vendor"] == "Intel", "share_model_order"] = 5
    changed = dataclasses.replace(dataset, vendor_groups=table)
    assert custom_silicon_groups(changed) == ("google", "aws", "other_custom", "other")
    assert share_vendors(changed)[-1] == "other"


def test_no_covered_group_is_an_error(dataset):
    table = dataset.vendor_groups.assign(share_model_order=None)
    with pytest.raises(ForecastError, match="share_model_order"):
        share_vendors(dataclasses.replace(dataset, vendor_groups=table))
