"""The bounds card's prior predictive block: filled in place, regenerated without drift."""

from __future__ import annotations

import pandas as pd
import pytest

from forecast.data.dataset import load_dataset
from forecast.reporting import prior_check


def test_the_block_between_the_markers_is_replaced_and_nothing_else() -> None:
    start, end = (f"<!-- {prior_check.PREFIX}:{prior_check.BLOCK} -->",
                  f"<!-- /{prior_check.PREFIX}:{prior_check.BLOCK} -->")
    results = "<!-- results:bounds-2030 -->\nkept\n<!-- /results:bounds-2030 -->"
    text = f"before\n{start}\nold\n{end}\n{results}\nafter\n"
    assert prior_check.fill(text, {prior_check.BLOCK: "new"}, prefix=prior_check.PREFIX) == (
        f"before\n{start}\nnew\n{end}\n{results}\nafter\n")
    # The results script's own fill leaves the prior block alone.
    assert f"{start}\nold\n{end}" in prior_check.fill(text, {})
    assert start in prior_check.CARD.read_text() and end in prior_check.CARD.read_text()


def test_projections_are_the_sourced_ones_for_2028_or_later() -> None:
    found = prior_check.projections(load_dataset().market_estimates)
    assert (pd.to_numeric(found["target_year"]) >= 2028).all()
    nvidia = found[found["publisher"].str.contains("NVIDIA")]
    assert list(nvidia["value_usd_billions"]) == [3000] and list(
        nvidia["value_usd_billions_high"]) == [4000]


@pytest.mark.validation
def test_the_committed_card_matches_a_fresh_prior_check() -> None:
    block = prior_check.table(prior_check.compute())
    start, end = (f"<!-- {prior_check.PREFIX}:{prior_check.BLOCK} -->",
                  f"<!-- /{prior_check.PREFIX}:{prior_check.BLOCK} -->")
    card = prior_check.CARD.read_text()
    committed = card.split(start, 1)[1].split(end, 1)[0].strip()
    assert committed == block, "regenerate with `python -m forecast.reporting.prior_check`"
