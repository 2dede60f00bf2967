"""``forecast --compare`` lists every thesis under each scenario with its Monte Carlo error,
and a thesis's console lines give the distribution of the first year it is reached."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from forecast.pipeline.results import Forecast
from forecast.reporting.console.forecasts import (
    comparison_text,
    theses_text,
    thesis_comparison_text,
)
from forecast.scenarios import ThesisSpec

QUARTERS = [f"{y}Q{q}" for y in (2029, 2030) for q in range(1, 5)]


def forecast(name: str, level: float, theses: list[ThesisSpec], ess: float = 50.0) -> Forecast:
    rng = np.random.default_rng(1)
    tam = rng.normal(level, 1.0, size=(400, len(QUARTERS)))
    share = rng.dirichlet([8, 1, 1], size=(400, len(QUARTERS)))
    data = xr.Dataset({"tam": (("draw", "quarter"), tam),
                       "share": (("draw", "quarter", "vendor"), share)},
                      coords={"draw": np.arange(400), "quarter": QUARTERS,
                              "vendor": ["nvidia", "amd", "aws"]})
    return Forecast(data=data, scenario=name, fit_id="F", seed=0, theses_specs=theses,
                    meta={"horizon": 2030, "data_end": "2028Q4", "posterior_ess": ess})


def thesis(name: str, **overrides) -> ThesisSpec:
    table = {"statement": f"{name} in words", "metric": "tam", "period": "2030",
             "comparator": ">=", "threshold": 10.0, "aggregate": "mean"}
    table.update(overrides)
    return ThesisSpec(name=name, **table)


def test_every_thesis_of_every_scenario_with_its_error() -> None:
    common = thesis("common")
    only_bull = thesis("only_bull", when="by")
    results = [forecast("bull", 10.5, [common, only_bull]), forecast("base", 10.0, [common]),
               forecast("bear", 9.5, [common])]
    text = thesis_comparison_text(results)
    lines = text.splitlines()
    assert lines[0].split() == ["thesis", "bull", "base", "bear"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert set(rows) == {"common", "only_bull"}
    for result in results:
        row = result.theses().set_index("name").loc["common"]
        assert f"{row['probability']:.3f} +- {row['mcse']:.3f}" in rows["common"]
        assert row["mcse"] > 0
    assert rows["only_bull"].split()[-2:] == ["-", "-"]  # not defined in base and bear
    # Ordered as the levels make them: bull >= base >= bear.
    p = [r.theses().set_index("name").loc["common", "probability"] for r in results]
    assert p[0] > p[1] > p[2]
    assert "thesis probabilities by scenario" in comparison_text(results).splitlines()


def test_a_thesis_the_data_reached_shows_as_not_available() -> None:
    past = thesis("past", period="2028")
    text = thesis_comparison_text([forecast("base", 10.0, [past])])
    assert text.splitlines()[1].split() == ["past", "n/a"]


def test_theses_lines_give_the_first_year_distribution() -> None:
    result = forecast("base", 10.0, [thesis("reach", when="by", threshold=10.05)])
    row = result.theses().iloc[0]
    text = theses_text(result)
    assert "first reached: 2029" in text and "2030" in text
    assert f"never {row['never_within_horizon']:.0%}" in text
    assert sum(row["first_reached"].values()) + row["never_within_horizon"] == pytest.approx(1)


@pytest.mark.slow
def test_cli_compare_lists_every_thesis_of_the_shipped_scenarios(run_cli,
                                                                  shipped_store) -> None:
    from forecast.scenarios import load_scenario

    result = run_cli("forecast", "--compare", "bull", "base", "bear", "--draws", "400",
                     "--artifacts", shipped_store)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index("thesis probabilities by scenario")
    assert lines[start + 2].split() == ["thesis", "bull", "base", "bear"]
    # The table runs to the first blank line (the published backtests' notes may follow).
    table = lines[start + 3:]
    table = table[:table.index("")] if "" in table else table
    rows = {line.split()[0]: line.split()[1:] for line in table}
    defined = {s: set(load_scenario(s).theses) for s in ("bull", "base", "bear")}
    assert set(rows) == set().union(*defined.values())
    for name, cells in rows.items():
        # A probability and its error under each scenario that defines the thesis.
        assert cells.count("+-") == sum(name in theses for theses in defined.values())
