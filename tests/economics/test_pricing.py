"""Tests of forecast.economics.pricing: which rule prices each chip, and the price draws."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from forecast.economics.pricing import (
    price_key,
    pricing_rules,
    pricing_table,
    sample_unit_prices,
)
from forecast.economics.vendors import share_vendors


def test_every_chip_of_the_share_vendors_has_a_price_rule(dataset):
    rules = pricing_rules(dataset)
    catalogue = dataset.accelerators
    chips = catalogue.loc[catalogue["vendor_group"].isin(share_vendors(dataset)), "chip"]
    assert len(chips) > 0
    for chip in chips:
        assert price_key(chip, chip, rules) in rules


def test_pricing_methods_follow_the_documented_hierarchy(dataset):
    rules = pricing_rules(dataset)
    assert rules["H100 SXM5 80GB"].method == "asp_range"
    assert rules["H20"].method == "asp_range"  # the variant's own ASP, not H100's
    assert rules["H100 SXM5 80GB"].range_for(2024) == (20000.0, 30000.0)
    assert rules["H100 SXM5 80GB"].range_for(2030) == rules["H100 SXM5 80GB"].range_for(2025)
    assert rules["B200"].method == "observed"
    # GB300 has no ASP range dated by 2025-10-31 (Epoch's came later): it is imputed, so B300
    # borrows from the nearest priced chip, GB200.
    assert rules["GB300 (Blackwell Ultra, per GPU)"].method == "imputed"
    assert rules["B300 (Blackwell Ultra, HGX)"].neighbour == "GB200 (per GPU)"
    # AWS has no priced chip: its chips borrow from custom silicon (Google's TPUs).
    assert rules["Trainium2"].method == "imputed"
    assert rules[rules["Trainium2"].neighbour].vendor_group == "google"
    # A single point price is widened; no imputation chains.
    low, high = rules["Instinct MI250X"].range_for(2024)
    assert low == pytest.approx(14500 * 0.75) and high == pytest.approx(14500 * 1.25)
    for rule in rules.values():
        if rule.method == "imputed":
            assert rules[rule.neighbour].method != "imputed"
    table = pricing_table(dataset)
    assert {"price_key", "method", "neighbour"} <= set(table.columns)


def test_custom_silicon_groups_come_from_the_vendor_groups_file(dataset):
    """AWS borrows a custom-silicon neighbour only while the data call Google custom."""
    groups = dataset.vendor_groups.copy()
    groups.loc[groups["vendor"] == "Google", "silicon"] = "merchant"
    rules = pricing_rules(dataclasses.replace(dataset, vendor_groups=groups))
    assert "Trainium2" not in rules  # no custom-silicon chip with a price of its own is left
    assert rules["TPU v5p"].method == "imputed"  # same-group neighbours are still used


def test_custom_chips_borrow_only_from_custom_vendors(five_groups):
    """In the five groups, ``other`` mixes Intel's merchant Gaudi (priced) with custom Maia and
    MTIA: Trainium still borrows a TPU's price (custom silicon), never Gaudi3's, though Gaudi3
    (2024-09) was released nearer Trainium2 (2024-12) than any TPU."""
    rules = pricing_rules(five_groups)
    for chip in ("Trainium1", "Trainium2", "Trainium3", "Inferentia2"):
        assert rules[chip].method == "imputed"
        assert rules[chip].vendor_group == "aws"
        assert rules[rules[chip].neighbour].vendor_group == "google", chip
    # Maia 100 borrows within its own group: Gaudi3 is ``other``'s only priced chip.
    assert rules["Maia 100"].neighbour == "Gaudi3"


def test_imputed_price_is_the_neighbours_times_a_tflops_factor(dataset):
    rules = pricing_rules(dataset)
    rule = rules["Trainium2"]
    draws = sample_unit_prices(rules, [2025], 2000, np.random.default_rng(0))
    ratio = draws["Trainium2", 2025] / draws[rule.neighbour, 2025]
    low, high = sorted((1.0, rule.tflops_ratio))
    assert ((ratio >= low - 1e-12) & (ratio <= high + 1e-12)).all()
