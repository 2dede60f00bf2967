"""The ramp of new chips is a scenario setting (``[settings.new_chip_ramp_quarters]``): the
economics callers that have a scenario read it from there."""

from __future__ import annotations

import shutil
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest
from chip_table import price_decay

from forecast.core.calendar import quarter_index
from forecast.core.errors import ForecastError
from forecast.economics.chip_costs import (
    TCO_INPUTS,
    chip_capex,
    chip_specs,
    cost_per_pflop,
    historical_costs,
    input_medians,
)
from forecast.economics.cost_paths import scenario_cost_paths
from forecast.economics.offers import DEFAULT_RAMP_QUARTERS, best_offer, ramp_quarters_of
from forecast.economics.vendors import share_vendors
from forecast.scenarios import DEFAULT_SCENARIOS_DIR, load_scenario

QUARTERS = ["2024Q3", "2024Q4", "2025Q1", "2025Q2"]


@pytest.fixture(scope="module")
def zero(tmp_path_factory):
    """The base scenario with new chips ramping in at once (ramp 0)."""
    directory = tmp_path_factory.mktemp("ramp0")
    shutil.copy(DEFAULT_SCENARIOS_DIR / "base.toml", directory / "base.toml")
    (directory / "ramp0.toml").write_text(textwrap.dedent("""\
        [scenario]
        name = "ramp0"
        extends = "base"

        [settings.new_chip_ramp_quarters]
        value = 0
        unit = "quarters"
        rationale = "test: no ramp"
        """), encoding="utf-8")
    return load_scenario("ramp0", directory)


#: The chips with one unit cost each and their scenario inputs (scenarios/base.toml): history
#: prices them at their inputs' medians in every year.
UNIT_COSTS = {"Trainium1": "trainium1_unit_cost_usd",
              "Trainium2": "trainium2_unit_cost_usd",
              "Trainium3": "trainium3_unit_cost_usd"}


def _by_hand(dataset, scenario, quarters, ramp, draws=400, seed=1):
    """Each covered vendor's best offer per quarter, computed with best_offer directly: the
    catalogue's unit prices, the Trainiums' at their unit-cost medians."""
    vendors = share_vendors(dataset)
    years = sorted({int(q[:4]) for q in quarters})
    capex = chip_capex(dataset, years, draws, seed).copy()
    assert set(UNIT_COSTS) <= set(capex.index)
    unit = input_medians(scenario, list(UNIT_COSTS.values()))
    for chip, name in UNIT_COSTS.items():
        capex.loc[chip, :] = unit[name]
    cat = chip_specs(dataset).loc[list(capex.index)]
    tco = input_medians(scenario, TCO_INPUTS)
    mfu = input_medians(scenario, [f"mfu_{v}" for v in vendors])
    util = np.array([mfu[f"mfu_{g}"] for g in cat["vendor_group"]])
    codes = np.array([vendors.index(g) for g in cat["vendor_group"]])
    rows = []
    for quarter in quarters:
        cost = cost_per_pflop(capex[int(quarter[:4])].to_numpy(float),
                              cat["tflops"].to_numpy(float), cat["tdp_w"].to_numpy(float),
                              util, tco)
        best, _ = best_offer(cat["release_qidx"].to_numpy(float), cost, codes, quarter,
                             ramp_quarters=ramp, n_vendors=len(vendors))
        rows.append(best)
    return np.array(rows)


def test_the_ramp_is_read_from_the_scenario(scenario, zero):
    assert ramp_quarters_of(scenario) == 2 == DEFAULT_RAMP_QUARTERS
    assert ramp_quarters_of(zero) == 0
    assert ramp_quarters_of(None) == DEFAULT_RAMP_QUARTERS  # notebooks
    assert ramp_quarters_of(SimpleNamespace(inputs={})) == DEFAULT_RAMP_QUARTERS
    with pytest.raises(ForecastError, match=r"'partial' has no \[settings.new_chip_ramp"):
        ramp_quarters_of(SimpleNamespace(name="partial", settings={}))


def test_a_scenario_with_ramp_0_costs_as_best_offer_with_ramp_0(dataset, scenario, zero):
    costs = historical_costs(dataset, zero, QUARTERS, draws=400, seed=1)
    np.testing.assert_allclose(costs.to_numpy(), _by_hand(dataset, zero, QUARTERS, 0))
    shipped = historical_costs(dataset, scenario, QUARTERS, draws=400, seed=1)
    np.testing.assert_allclose(shipped.to_numpy(), _by_hand(dataset, scenario, QUARTERS, 2))
    # Trainium2 (launched 2024Q4) counts fully in its launch quarter without a ramp: AWS is
    # cheaper then and in the next quarter, the same before it and once it has ramped.
    assert costs.loc["2024Q4", "aws"] < shipped.loc["2024Q4", "aws"]
    assert costs.loc["2025Q1", "aws"] < shipped.loc["2025Q1", "aws"]
    assert costs.loc["2024Q3", "aws"] == pytest.approx(shipped.loc["2024Q3", "aws"])
    assert costs.loc["2025Q2", "aws"] == pytest.approx(shipped.loc["2025Q2", "aws"])


def test_cost_paths_with_the_scenarios_ramp(dataset, scenario, zero):
    # simulate passes ramp_quarters=scenario.setting("new_chip_ramp_quarters").
    draws = zero.sample(100, seed=2)
    quarters = ["2025Q4", "2026Q1", "2026Q3"]
    no_ramp = scenario_cost_paths(dataset, draws, quarters, **zero.cost_tables(),
                                  price_decay=price_decay(draws),
                                  ramp_quarters=zero.setting("new_chip_ramp_quarters"))
    shipped = scenario_cost_paths(dataset, draws, quarters, **scenario.cost_tables(),
                                  price_decay=price_decay(draws),
                                  ramp_quarters=scenario.setting("new_chip_ramp_quarters"))
    default = scenario_cost_paths(dataset, draws, quarters, **scenario.cost_tables(),
                                  price_decay=price_decay(draws))
    np.testing.assert_array_equal(shipped.values, default.values)
    assert no_ramp.attrs["basis"].endswith("ramp 0 quarters")
    # Trainium3 (2025Q4) counts fully at once without a ramp, and the same once ramped.
    aws_zero, aws_two = no_ramp.sel(vendor="aws"), shipped.sel(vendor="aws")
    assert float(aws_zero.sel(quarter="2025Q4").median()) < float(
        aws_two.sel(quarter="2025Q4").median())
    # Where Trainium4 has not launched by 2026Q3 (it would still ramp under the setting).
    settled = draws["trainium4_launch_quarter"].to_numpy() > quarter_index("2026Q3")
    assert settled.sum() > 80
    np.testing.assert_allclose(aws_zero.sel(quarter="2026Q3").values[settled],
                               aws_two.sel(quarter="2026Q3").values[settled], rtol=1e-12)
