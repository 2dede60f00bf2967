"""The AWS silicon paths of a forecast (forecast.pipeline.simulate, step 6), checked on the
pipeline's own output from the session's fit store: spend at cost is TAM x AWS share, the
stock-and-flow identities hold path by path, the rental-revenue ceiling holds and binds when it
should, the Graviton run rate is the scenario's, and theses read the new metrics."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from forecast.core.calendar import quarter_index
from forecast.core.presentation import UNITS
from forecast.models.aws_silicon import ceiling_breaches
from forecast.pipeline.theses import evaluate_thesis
from forecast.scenarios.theses import ThesisSpec

pytestmark = pytest.mark.slow

DRAWS = 400
SEED = 3
NEW = ("aws_spend_at_cost", "aws_shipments", "aws_fleet", "aws_rental_revenue",
       "aws_merchant_value", "aws_custom_chips_run_rate")


@pytest.fixture(scope="module")
def run(fit_store):
    from forecast.pipeline.runner import load_run

    return load_run("base", root=fit_store)


@pytest.fixture(scope="module")
def inputs(run):
    scenario, _, _ = run
    return scenario.sample(DRAWS, seed=SEED)


@pytest.fixture(scope="module")
def base(run, inputs):
    from forecast.pipeline.simulate import simulate

    scenario, dataset, bundle = run
    return simulate(bundle, dataset, scenario, draws=DRAWS, seed=SEED, inputs=inputs)


def test_new_paths_carry_their_units(base) -> None:
    for name in NEW:
        assert name in base.metrics
        assert base.paths(name).attrs["unit"], name
        assert UNITS[name], name  # the calendar-year tables' unit
    assert "per quarter" in base.paths("aws_rental_revenue").attrs["unit"]
    assert "per year" in base.paths("aws_custom_chips_run_rate").attrs["unit"]
    assert base.paths("aws_fleet").dims == ("draw", "quarter", "generation")


def test_spend_at_cost_is_tam_times_the_aws_share(base) -> None:
    expected = base.paths("tam").values * base.paths("share").sel(vendor="aws").values
    np.testing.assert_allclose(base.paths("aws_spend_at_cost").values, expected, rtol=1e-12)
    np.testing.assert_array_equal(base.paths("aws_spend_at_cost").values,
                                  base.paths("spend").sel(vendor="aws").values)


def test_shipments_times_unit_cost_is_the_spend(base) -> None:
    shipped = base.paths("aws_shipments")
    cost = (shipped * shipped["aws_unit_cost"]).sum("generation").values / 1e9
    np.testing.assert_allclose(cost, base.paths("aws_spend_at_cost").values, rtol=1e-9)
    assert (shipped.values >= 0).all()


def test_the_scenarios_aws_roadmap_generations_take_over_at_their_launch(base, inputs) -> None:
    shipped = base.paths("aws_shipments")
    names = [str(g) for g in shipped["generation"].values]
    assert names == ["Trainium1", "Trainium2", "Trainium3", "Trainium4", "Trainium5"]
    # Unit cost: the predecessor's x the roadmap's price multiple, draw by draw.
    cost = shipped["aws_unit_cost"]
    np.testing.assert_allclose(cost.sel(generation="Trainium4").values,
                               cost.sel(generation="Trainium3").values
                               * inputs["trainium4_price_ratio"].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(cost.sel(generation="Trainium5").values,
                               cost.sel(generation="Trainium4").values
                               * inputs["trainium5_price_ratio"].to_numpy(), rtol=1e-12)
    # Trainium4's part of AWS's spend: small a year before its launch quarter, most of it a
    # year after (unless Trainium5 has come by then).
    dollars = (shipped * cost).values
    share = dollars[:, :, 3] / dollars.sum(axis=2)
    quarters = [str(q) for q in shipped["quarter"].values]
    first = quarter_index(quarters[0])
    launch = inputs["trainium4_launch_quarter"].to_numpy().astype(int) - first
    rows = np.arange(len(launch))
    before, after = launch - 4, launch + 4
    seen = (before >= 0) & (after < len(quarters)) & (
        inputs["trainium5_launch_quarter"].to_numpy() - first > after + 4)
    assert seen.sum() > 50
    assert np.all(share[rows[seen], before[seen]] < 0.05)
    assert np.all(share[rows[seen], after[seen]] > 0.9)


def test_fleet_is_last_quarters_fleet_survived_plus_shipments(base, run) -> None:
    fleet, shipped = base.paths("aws_fleet"), base.paths("aws_shipments")
    survival = fleet["aws_survival"].values[:, None, :]
    np.testing.assert_allclose(fleet.values[:, 1:, :],
                               fleet.values[:, :-1, :] * survival + shipped.values[:, 1:, :],
                               rtol=1e-9)
    # The first quarter continues the fitted fleet (not an empty one): the implied fleet at the
    # data end is the fitted posterior's.
    start = (fleet.values[:, 0, :] - shipped.values[:, 0, :]) / survival[:, 0, :]
    fitted = run[2].models["aws_silicon"].stacked("fleet")[:, :, -1]
    implied, posterior = start.sum(axis=1), fitted.sum(axis=1)
    assert np.median(implied) == pytest.approx(np.median(posterior), rel=0.1)
    assert implied.min() >= posterior.min() * (1 - 1e-9)


def test_rental_revenue_never_exceeds_the_ceiling_of_base(base, run, inputs) -> None:
    scenario = run[0]
    ceiling = inputs["aws_rental_revenue_ceiling_usd_billions"].to_numpy()[:, None]
    assert scenario.inputs["aws_rental_revenue_ceiling_usd_billions"].dist == "fixed"
    revenue = base.paths("aws_rental_revenue").values
    assert ceiling_breaches(revenue, ceiling) == 0
    assert (revenue > 0).all()


def test_a_low_ceiling_binds_and_lowers_utilisation_not_the_fleet(base, run, inputs) -> None:
    from forecast.pipeline.simulate import simulate

    scenario, dataset, bundle = run
    low = inputs.copy()
    limit = float(np.median(base.paths("aws_rental_revenue").sel(quarter="2028Q1").values))
    low["aws_rental_revenue_ceiling_usd_billions"] = limit
    capped = simulate(bundle, dataset, scenario, draws=DRAWS, seed=SEED, inputs=low)
    revenue = capped.paths("aws_rental_revenue").values
    free = base.paths("aws_rental_revenue").values
    assert ceiling_breaches(revenue, limit) == 0
    binding = free > limit
    assert binding.mean() > 0.2  # the ceiling bites on many paths and quarters
    np.testing.assert_allclose(revenue[binding], limit, rtol=1e-9)
    np.testing.assert_array_equal(revenue[~binding], free[~binding])
    # Same chips: only billed utilisation falls.
    np.testing.assert_array_equal(capped.paths("aws_fleet").values,
                                  base.paths("aws_fleet").values)


def test_custom_chips_run_rate_is_four_quarters_of_rental_plus_the_scenarios_graviton(
        base, inputs) -> None:
    run_rate = base.paths("aws_custom_chips_run_rate").values
    graviton = run_rate - 4.0 * base.paths("aws_rental_revenue").values
    level = inputs["graviton_run_rate_usd_billions"].to_numpy()
    growth = inputs["graviton_growth_per_year"].to_numpy()
    # The first forecast quarter is a quarter (0.25 years) after the data end.
    np.testing.assert_allclose(graviton[:, 0], level * np.exp(0.25 * growth), rtol=1e-9)
    years = np.arange(graviton.shape[1]) / 4.0 + 0.25
    np.testing.assert_allclose(graviton, level[:, None] * np.exp(growth[:, None] * years),
                               rtol=1e-9)


def test_calendar_years_sum_flows_and_take_q4_for_the_fleet_and_run_rate(base) -> None:
    table = base.quantiles("aws_rental_revenue", q=(0.5,)).set_index("period")
    year = base.paths("aws_rental_revenue").sel(quarter=[f"2027Q{k}" for k in range(1, 5)])
    assert table.loc["2027", "q50"] == pytest.approx(np.median(year.sum("quarter").values))
    rate = base.quantiles("aws_custom_chips_run_rate", q=(0.5,)).set_index("period")
    q4 = base.paths("aws_custom_chips_run_rate").sel(quarter="2027Q4").values
    assert rate.loc["2027", "q50"] == pytest.approx(np.median(q4))
    fleet = base.quantiles("aws_fleet", q=(0.5,))
    row = fleet[(fleet["period"] == "2027") & (fleet["generation"] == "Trainium2")]
    end = base.paths("aws_fleet").sel(quarter="2027Q4", generation="Trainium2").values
    assert row["q50"].item() == pytest.approx(np.median(end))


def test_theses_read_the_new_metrics(base) -> None:
    fleet_2030 = base.paths("aws_fleet").sel(quarter="2030Q4").sum("generation").values
    threshold = float(np.median(fleet_2030))
    spec = ThesisSpec(name="fleet", statement="s", metric="aws_fleet", period="2030Q4",
                      comparator=">", threshold=threshold)
    result = evaluate_thesis(base.data, spec)
    assert result["probability"] == pytest.approx(np.mean(fleet_2030 > threshold))
    spec = dataclasses.replace(spec, name="rate", metric="aws_custom_chips_run_rate",
                               period="2030", aggregate="last", threshold=40.0)
    rate = base.paths("aws_custom_chips_run_rate").sel(quarter="2030Q4").values
    assert evaluate_thesis(base.data, spec)["probability"] == pytest.approx(np.mean(rate > 40))
    shipped = dict(base.theses().set_index("name")["probability"])
    # A USD 50 bn run rate (4 x a quarter) in some quarter up to 2030Q4.
    run_rate = 4.0 * base.paths("aws_rental_revenue").sel(quarter=slice(None, "2030Q4")).max(
        "quarter").values
    assert shipped["aws_rental_run_rate_50b_by_2030"] == pytest.approx(np.mean(run_rate >= 50))
    merchant = 4.0 * base.paths("aws_merchant_value").sel(quarter=slice(None, "2030Q4")).max(
        "quarter").values
    assert shipped["aws_merchant_run_rate_50b_by_2030"] == pytest.approx(
        np.mean(merchant >= 50))
