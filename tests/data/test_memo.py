"""Tests for forecast.data.memo: one computation per dataset object and key, never another's."""

from __future__ import annotations

import weakref
from dataclasses import replace

from forecast.data import memo
from forecast.data.dataset import load_dataset
from forecast.economics.chip_costs import chip_specs
from forecast.economics.vendors import share_vendors


class _Data:
    """Stands for a dataset: any object that takes a weak reference."""


def test_a_value_is_computed_once_per_object_and_key():
    calls = []
    first, second = _Data(), _Data()

    def compute(tag):
        calls.append(tag)
        return tag

    assert memo.per_dataset(first, ("f", 1), lambda: compute("a")) == "a"
    assert memo.per_dataset(first, ("f", 1), lambda: compute("b")) == "a"
    assert memo.per_dataset(first, ("f", 2), lambda: compute("c")) == "c"
    assert memo.per_dataset(second, ("f", 1), lambda: compute("d")) == "d"
    assert calls == ["a", "c", "d"]


def test_an_object_gone_never_lends_its_value_to_one_at_the_same_id():
    gone = _Data()
    dead = weakref.ref(gone)
    del gone  # freed: its weak reference is dead
    fresh = _Data()
    # The entry a freed object left under the id a new object now has (CPython reuses ids).
    memo._MEMO[(id(fresh), "g")] = (dead, "old")
    assert memo.per_dataset(fresh, ("g",), lambda: "new") == "new"
    assert memo.per_dataset(fresh, ("g",), lambda: "newer") == "new"


def test_a_changed_dataset_gets_its_own_derived_tables():
    dataset = load_dataset()
    groups = dataset.vendor_groups
    first = share_vendors(dataset)
    reordered = groups.assign(share_model_order=groups["share_model_order"].max() + 1
                              - groups["share_model_order"])
    changed = replace(dataset, vendor_groups=reordered)
    assert share_vendors(changed) == tuple(reversed(first))
    assert share_vendors(dataset) == first
    # A caller changing the frame it got does not change what the next caller gets.
    specs = chip_specs(dataset)
    specs["tflops"] = 0.0
    assert (chip_specs(dataset)["tflops"] > 0).all()
