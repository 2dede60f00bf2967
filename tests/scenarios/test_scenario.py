"""Tests of the shipped scenario files and of the :class:`Scenario` they load into."""

from __future__ import annotations

import math

import pytest

from forecast.core.calendar import quarter_label
from forecast.models.spend.defaults import DEFAULT_PRIORS
from forecast.scenarios import Scenario, list_scenarios, load_scenario, scenario_names

REQUIRED_INPUTS = [
    "mfu_nvidia",
    "mfu_amd",
    "mfu_google",
    "mfu_aws",
    "mfu_other",
    "trainium2_price_usd_per_chip_hour",
    "trainium3_price_usd_per_chip_hour",
    "trainium4_launch_quarter",
    "trainium4_fp8_multiplier",
    "trainium4_price_ratio",
    "nvidia_next_launch_quarter",
    "nvidia_next_fp8_multiplier",
    "nvidia_next_price_ratio",
    "nvidia_price_response",
    "amd_price_erosion",
    "google_price_erosion",
    "aws_price_erosion",
    "other_price_erosion",
    "electricity_usd_per_kwh",
    "pue",
    "chip_life_years",
    "owner_utilisation",
    "overhead_fraction",
    "graviton_run_rate_usd_billions",
    "graviton_growth_per_year",
    "aws_rental_revenue_ceiling_usd_billions",
]

#: The spend priors bull and bear set and base leaves at the model's default.
SPEND_OVERRIDES = ("ecosystem_erosion", "ramp_lift_ahead", "growth_longrun")

DEFAULT_THESES = {
    "nvidia_share_2030_at_most_70pct",
    "aws_share_gain_3pts_2025_2030",
    "aws_share_gain_5pts_2025_2030",
    "trainium3_half_cost",
    "trainium3_cost_at_most_70pct",
    "tam_2025_at_most_50b",
    "aws_rental_run_rate_50b_by_2030",
    "aws_merchant_run_rate_50b_by_2030",
}


def test_shipped_scenarios_load_and_define_required_inputs() -> None:
    names = scenario_names()
    assert {"base", "bull", "bear"} <= set(names)
    for scenario in list_scenarios():
        missing = [name for name in REQUIRED_INPUTS if name not in scenario.inputs]
        assert not missing, f"{scenario.name} lacks {missing}"
        for spec in scenario.inputs.values():
            assert spec.unit and spec.rationale, spec.name
        assert set(scenario.theses) >= DEFAULT_THESES
        assert scenario.chip_prices["Trainium2"] == "trainium2_price_usd_per_chip_hour"
        assert scenario.chip_prices["Trainium3"] == "trainium3_price_usd_per_chip_hour"


def test_bull_and_bear_inherit_from_base(base: Scenario) -> None:
    bull, bear = load_scenario("bull"), load_scenario("bear")
    for child in (bull, bear):
        assert child.extends == "base"
        assert child.lineage == ("base",)
        assert list(child.inputs) == list(base.inputs)  # overrides keep the parent's order
        assert child.inputs["pue"] == base.inputs["pue"]
        assert child.theses == base.theses
        # The price prior is base's; the spend priors are base's and the child's own.
        assert child.priors["price"] == base.priors["price"]
        assert {name: spec for name, spec in child.priors["spend"].items()
                if name in base.priors["spend"]} == base.priors["spend"]
        assert set(child.priors["spend"]) - set(base.priors["spend"]) == set(SPEND_OVERRIDES)
        assert (child.horizon, child.draws, child.seed) == (base.horizon, base.draws, base.seed)
        assert child.digest() != base.digest()
    # Bull favours AWS and a faster-growing market, bear the opposite.
    name = "mfu_aws"
    assert bear.inputs[name].median() < base.inputs[name].median() < bull.inputs[name].median()
    for name in SPEND_OVERRIDES:  # base keeps the spend model's default
        assert (bear.prior("spend", name).params["mu"] < DEFAULT_PRIORS[name]["mu"]
                < bull.prior("spend", name).params["mu"])
    launch = "trainium4_launch_quarter"
    assert (
        bull.inputs[launch].median() < base.inputs[launch].median() < bear.inputs[launch].median()
    )


def test_base_priors_and_theses(base: Scenario) -> None:
    decay = base.prior("price", "decay_mu")
    assert decay is not None and decay.dist == "normal"
    assert decay.params["mu"] == pytest.approx(-0.30)
    assert set(base.priors) == {"price", "spend"}
    assert set(base.priors["spend"]) == {"price_coefficient"}
    assert base.prior("spend", "missing") is None
    assert set(base.theses) == DEFAULT_THESES  # the two Google + AWS theses are gone
    # Trainium3 against NVIDIA's best part of the day, both on the owner-TCO basis.
    for name, threshold in (("trainium3_half_cost", 0.5), ("trainium3_cost_at_most_70pct", 0.7)):
        cost = base.theses[name]
        assert (cost.metric, cost.comparator, cost.threshold, cost.period) == (
            "owner_cost_ratio", "<=", threshold, "2026")
        assert (cost.numerator, cost.denominator) == ("Trainium3", "frontier:nvidia")
    share = base.theses["nvidia_share_2030_at_most_70pct"]
    assert (share.vendor, share.period_kind, share.aggregate, share.when) == (
        "nvidia", "year", "mean", "in")  # the seed says "en 2030": in 2030
    for name, points in (("aws_share_gain_3pts_2025_2030", 0.03),
                         ("aws_share_gain_5pts_2025_2030", 0.05)):
        gain = base.theses[name]
        assert (gain.metric, gain.vendor, gain.period, gain.change_from) == (
            "share", "aws", "2030", "2025")
        assert (gain.comparator, gain.threshold) == (">=", points)
    tam = base.theses["tam_2025_at_most_50b"]
    assert (tam.metric, tam.period, tam.aggregate, tam.comparator, tam.threshold) == (
        "tam", "2025", "sum", "<=", 50.0)
    for name, metric in (("aws_rental_run_rate_50b_by_2030", "aws_rental_revenue"),
                         ("aws_merchant_run_rate_50b_by_2030", "aws_merchant_value")):
        # A USD 50 bn run rate (4 x a quarter) first reached in some quarter up to 2030Q4.
        run = base.theses[name]
        assert (run.metric, run.period, run.aggregate, run.when) == (
            metric, "2030Q4", "run_rate", "by")
        assert (run.comparator, run.threshold) == (">=", 50.0)


def test_digest_is_stable(base: Scenario) -> None:
    assert load_scenario("base").digest() == base.digest()


def test_to_table(base: Scenario) -> None:
    table = base.to_table()
    assert list(table["metric"]) == list(base.inputs)
    assert list(table.columns[:7]) == ["metric", "period", "key", "q10", "q50", "q90", "unit"]
    assert {"dist", "params", "summary", "rationale"} <= set(table.columns)
    row = table.set_index("metric").loc["mfu_aws"]
    assert row["q50"] == pytest.approx(base.inputs["mfu_aws"].median())
    assert row["q10"] < row["q50"] < row["q90"]
    assert row["params"] == "alpha=4.5, beta=10.5"
    launch = table.set_index("metric").loc["trainium4_launch_quarter"]
    assert launch["summary"].startswith(quarter_label(int(launch["q50"])))
    assert table["rationale"].str.len().min() > 20


def test_shipped_rationales_cite_or_assume() -> None:
    # Every rationale either cites data/ or a named source, or calls itself an assumption.
    for scenario in list_scenarios():
        for spec in scenario.inputs.values():
            text = spec.rationale or ""
            cites = "data/" in text or "seed" in text or "(20" in text
            assert cites or "ssumption" in text, (scenario.name, spec.name)
            assert not math.isnan(spec.mean())
