"""The default theses (DESIGN section 5) quote the seed claims they test, and the grammar
they need: ``change_from``, the ``run_rate`` aggregate and the owner-TCO ratio against a
vendor group's best offer (``frontier:<group>``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from forecast.core.errors import ScenarioError
from forecast.scenarios import load_scenario
from forecast.scenarios.locations import Where
from forecast.scenarios.theses import parse_thesis

ROOT = Path(__file__).resolve().parents[2]
#: The seed article, kept in the repository (docs/seed/): the theses quote it.
SEED = ROOT / "docs" / "seed" / "000_d2bd7e3ed501b399.txt"

#: The seed's Spanish, copied from the file with the spacing of run-together words restored,
#: that each default thesis tests.
NVIDIA = ("se espera que la participación de mercado disminuya del 90 % al 70 % en 2030 "
          "debido a la competencia de AMD, Intel y AWS")
AWS_SHARE = ("AWS está bien posicionado para capturar participación de mercado en la industria "
             "de chips de IA")
TRAINIUM3 = "Trainium3 puede reducir los costos hasta en 50% con los sistemas basados en la GPU"
FIFTY = "la industria de chips de IA por $50 mil millones"
QUOTES = {
    "nvidia_share_2030_at_most_70pct": NVIDIA,
    "aws_share_gain_3pts_2025_2030": AWS_SHARE,
    "aws_share_gain_5pts_2025_2030": AWS_SHARE,
    "trainium3_half_cost": TRAINIUM3,
    "trainium3_cost_at_most_70pct": TRAINIUM3,
    "tam_2025_at_most_50b": FIFTY,
    "aws_rental_run_rate_50b_by_2030": FIFTY,
    "aws_merchant_run_rate_50b_by_2030": FIFTY,
}
#: Theses no seed sentence states: their statements must say whose reading they are.
READINGS = {"aws_rental_run_rate_50b_by_2030", "aws_merchant_run_rate_50b_by_2030"}


def _bare(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_each_default_thesis_quotes_the_seed_sentence_it_tests() -> None:
    for name in ("base", "bull", "bear"):
        theses = load_scenario(name).theses
        assert set(theses) == set(QUOTES)
        for thesis, quote in QUOTES.items():
            statement = theses[thesis].statement
            assert f"'{quote}" in statement, thesis
            assert ("DESIGN's reading, not a seed claim" in statement) == (thesis in READINGS)


def test_the_quotes_are_the_seeds_words() -> None:
    seed = _bare(SEED.read_text(encoding="utf-8"))
    for quote in set(QUOTES.values()):
        assert _bare(quote) in seed, quote
    # The Trainium3 claim is against GPU systems; "half an H100" is the seed's Trainium2 claim.
    assert _bare("Trainium2 de AWS tiene un precio de$4.80/hora, aproximadamente la mitad del "
                 "costo de un H100") in seed
    assert "H100" not in load_scenario("base").theses["trainium3_half_cost"].denominator


def parse(**table):
    base = {"statement": "s", "metric": "share", "vendor": "aws", "period": "2030",
            "comparator": ">=", "threshold": 0.03}
    return parse_thesis("t", {**base, **table}, Where("f.toml", "theses.t"))


def test_change_from_is_parsed_round_trips_and_must_come_first() -> None:
    thesis = parse(change_from="2025")
    assert thesis.change_from == "2025"
    assert parse(**thesis.to_dict()) == thesis
    assert "change_from" not in parse().to_dict()  # older scenario digests do not move
    assert parse(change_from="2025Q4", period="2026Q1").change_from == "2025Q4"
    for bad, message in (("2030", "must end before the period '2030' starts"),
                         ("2029..2030", "must end before"), ("2025Q5", "2025Q5"),
                         (2025, "must be a non-empty string")):
        with pytest.raises(ScenarioError, match=r"theses\.t\.change_from: ") as exc:
            parse(change_from=bad)
        assert message in str(exc.value) and "\n" not in str(exc.value)


def test_run_rate_is_an_aggregate() -> None:
    assert parse(metric="aws_rental_revenue", vendor=None, aggregate="run_rate",
                 period="2030Q4", when="by").aggregate == "run_rate"
    with pytest.raises(ScenarioError, match="run_rate"):
        parse(aggregate="annualised")


def test_the_owner_cost_ratio_takes_a_frontier_and_the_list_ratio_does_not() -> None:
    ratio = {"metric": "owner_cost_ratio", "vendor": None, "numerator": "Trainium3",
             "denominator": "frontier:nvidia", "comparator": "<=", "threshold": 0.5}
    thesis = parse(**ratio)
    assert (thesis.numerator, thesis.denominator) == ("Trainium3", "frontier:nvidia")
    assert parse(**{**ratio, "numerator": "frontier:aws"}).numerator == "frontier:aws"
    with pytest.raises(ScenarioError, match="or frontier:<vendor group>"):
        parse(**{**ratio, "denominator": "Rubin"})
    with pytest.raises(ScenarioError, match="vendor group must match"):
        parse(**{**ratio, "denominator": "frontier:NVIDIA!"})
    with pytest.raises(ScenarioError, match="the forecast prices only") as exc:
        parse(**{**ratio, "metric": "cost_per_pflop_hour_ratio"})
    assert "or frontier:" not in str(exc.value)  # list prices have no best-offer path
