"""Tests for forecast.data.memo: one computation per dataset object and key, never another's."""

from __future__ import annotations

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
    reused = 0
    for _ in range(20):  # CPython often reuses a freed object's id at once
        gone = _Data()
        old_id = id(gone)
        memo.per_dataset(gone, ("g",), lambda: "old")
        del gone  # freed here: its reference count is zero
        fresh = _Data()
        reused += id(fresh) == old_id
        assert memo.per_dataset(fresh, ("g",), lambda: "new") == "new"
    assert reused > 0  # the case this test is about did occur


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
