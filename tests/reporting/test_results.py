"""docs/results.md and the README's headline table against what the shipped fit gives today.

``python -m forecast.reporting.results`` writes both from the published fit; the committed
files must be exactly what it writes now (a changed model, fit, scenario or formatter that
was not followed by a regeneration fails here).
"""

from __future__ import annotations

import numpy as np
import pytest

from forecast.reporting import results


@pytest.fixture(scope="module")
def rendered():
    return results.render()


def test_the_results_page_is_what_the_shipped_fit_gives(rendered) -> None:
    page, _, _ = rendered
    committed = results.RESULTS_FILE.read_text()
    assert committed == page, (
        "docs/results.md differs from the shipped fit's numbers: run "
        "`python -m forecast.reporting.results`")


def test_the_readme_headline_is_the_results_pages(rendered) -> None:
    _, top, _ = rendered
    start, end = results.HEADLINE_MARKERS
    text = results.README_FILE.read_text()
    assert start in text and end in text
    block = text.split(start, 1)[1].split(end, 1)[0].strip()
    assert block == top.strip()


def test_the_model_cards_carry_the_shipped_fits_numbers(rendered) -> None:
    from forecast.reporting.cards import rendered_cards

    _, _, blocks = rendered
    assert {"diagnostics-spend", "parameters-spend", "bounds-2030"} <= set(blocks)
    for path, text in rendered_cards(results.CARDS_DIR, blocks).items():
        assert path.read_text() == text, f"{path.name}: run `python -m forecast.reporting.results`"


def test_a_block_is_replaced_and_an_unknown_one_says_so() -> None:
    from forecast.reporting.cards import fill

    text = ("a\n<!-- results:x -->\nold\n<!-- /results:x -->\n"
            "<!-- results:y -->\n<!-- /results:y -->\n")
    assert fill(text, {"x": "new"}) == ("a\n<!-- results:x -->\nnew\n<!-- /results:x -->\n"
                                        "<!-- results:y -->\n(not in the shipped fit)\n"
                                        "<!-- /results:y -->\n")


def test_a_cell_is_the_median_and_the_10_90_range() -> None:
    values = np.arange(1.0, 1002.0)
    q10, q50, q90 = np.quantile(values, [0.1, 0.5, 0.9])
    assert results._cell(values) == (f"{results.format_number(q50)} "
                                     f"({results.format_number(q10)}-"
                                     f"{results.format_number(q90)})")
    assert q50 == 501.0


def test_every_figure_the_docs_show_exists() -> None:
    import re

    root = results.ROOT
    for page in [root / "README.md", *sorted((root / "docs").rglob("*.md"))]:
        for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text()):
            assert (page.parent / target).is_file(), f"{page.name}: {target} is missing"


def test_the_backtests_by_cut_off_say_where_a_model_has_fewer_cells() -> None:
    row = {"series": "amd", "cutoff": "2024-02-21", "crps_log": 0.1, "coverage_80": 1.0}
    report = {"by_cutoff": [{**row, "model": "held", "n": 4},
                            {**row, "model": "ets", "n": 2, "crps_log": 0.25},
                            {**row, "cutoff": "2024-05-22", "model": "held", "n": 4}]}
    lines = results._by_cutoff(report)
    assert lines[3] == "| series | cut-off | n | held | ets |"
    assert lines[5:] == ["| amd | 2024-02-21 | 4 | 0.100 | 0.250 (n=2) |",
                         "| amd | 2024-05-22 | 4 | 0.100 |  |"]
    assert results._by_cutoff({}) == []
