"""The shared presentation rules: number format by unit, the metric-key grammar, the headline."""

from __future__ import annotations

import math

import numpy as np
import pytest

from forecast.core.errors import ForecastError
from forecast.core.presentation import (
    HEADLINE,
    METRIC_ALIASES,
    UNITS,
    MetricKey,
    format_number,
    headline_quantities,
    parse_metric_key,
    unit_of,
)

# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(("value", "unit", "expected"), [
    (0.12345, "fraction of spend", "0.123"),
    (0.5, "probability", "0.500"),
    (1.0, "probability", "1.000"),
    (1234.56, "USD billions", "1,234.6"),
    (-0.04, "USD billions", "-0.0"),
    (12.25, "USD billions", "12.2"),  # exact in binary: half rounds to even
    (14.56, "USD billions per year", "14.6"),  # a run rate
    (1.00123, "", "1.001"),
    (123456.0, "", "1.235e+05"),
    (3.2, "USD per chip-hour", "3.2"),
    (np.float64(0.0321), "fraction of spend", "0.032"),
])
def test_format_number_by_unit(value, unit, expected):
    assert format_number(value, unit) == expected


def test_missing_numbers_and_the_command_line_style():
    for missing in (float("nan"), float("inf"), -float("inf"), None, np.nan):
        assert format_number(missing) == "\u2013"
        assert format_number(missing, "USD billions", missing="-") == "-"
    assert format_number(1234.56, "USD billions", thousands=False) == "1234.6"
    assert format_number(float("nan"), "probability", missing="nan") == f"{math.nan:.3f}"


# --------------------------------------------------------------------------- metric keys


@pytest.mark.parametrize(("text", "key"), [
    ("tam", MetricKey("tam")),
    ("tam:2030", MetricKey("tam", "2030")),
    ("tam:2030Q4", MetricKey("tam", "2030Q4")),
    ("share:aws", MetricKey("share", key="aws")),
    ("share:aws:2030", MetricKey("share", "2030", "aws")),
    ("share:2030:aws", MetricKey("share", "2030", "aws")),
    ("aws_revenue:2030", MetricKey("aws_rental_revenue", "2030")),
    ("custom_silicon", MetricKey("custom_silicon_spend")),
    (" price : H100 : 2027Q1 ", MetricKey("price", "2027Q1", "H100")),
    ("thesis:aws_rental_run_rate_50b_by_2030",
     MetricKey("aws_rental_run_rate_50b_by_2030", kind="thesis")),
])
def test_parse_metric_key(text, key):
    assert parse_metric_key(text) == key


@pytest.mark.parametrize("key", [
    MetricKey("tam"), MetricKey("tam", "2026"), MetricKey("share", "2030", "nvidia"),
    MetricKey("share", key="aws"), MetricKey("price", "2027Q3", "Trainium2"),
    MetricKey("nvidia_share_2030_at_most_70pct", kind="thesis"),
])
def test_both_spellings_round_trip(key):
    assert parse_metric_key(key.text) == key
    assert parse_metric_key(key.row_name) == key


def test_spellings_and_units():
    key = MetricKey("share", "2030", "aws")
    assert (key.text, key.row_name, key.unit) == ("share:aws:2030", "share:2030:aws",
                                                   "fraction of spend")
    thesis = MetricKey("big", kind="thesis")
    assert (thesis.text, thesis.row_name, thesis.unit) == ("thesis:big", "thesis:big",
                                                           "probability")
    assert MetricKey("tam", "2030").unit == "USD billions" == unit_of("tam")
    assert unit_of("nonesuch") == ""


@pytest.mark.parametrize(("text", "message"), [
    ("", "bad metric ''"),
    ("tam:", "bad metric 'tam:'"),
    ("thesis:", "bad metric 'thesis:'"),
    ("thesis:a:b", "expected thesis:NAME"),
    ("a:b:c:d", "bad metric 'a:b:c:d'"),
    ("share:aws:nvidia", "bad period 'nvidia'"),
    ("tam:2030Q5:aws", "bad period 'aws'"),
])
def test_bad_keys_are_one_line_errors(text, message):
    with pytest.raises(ForecastError, match=message) as info:
        parse_metric_key(text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("text", "message"), [
    ("aws_revenue", "bad metric 'aws_revenue': expected metric:period (e.g. aws_revenue:2030)"),
    ("tam:20300", "bad period '20300' in 'tam:20300': expected YYYY or YYYYQn"),
    ("share:2030:aws", "bad period 'aws'"),
    ("share:aws", "bad period 'aws'"),
    ("tam:", "bad metric 'tam:': expected metric:period, metric:vendor:period or thesis:NAME"),
])
def test_a_period_can_be_required_last(text, message):
    with pytest.raises(ForecastError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_metric_key(text, need_period=True)
    assert parse_metric_key("share:aws:2030", need_period=True) == MetricKey("share", "2030",
                                                                              "aws")
    assert parse_metric_key("thesis:x", need_period=True) == MetricKey("x", kind="thesis")


# --------------------------------------------------------------------------- headline


def test_headline_metrics_have_units_and_aliases_name_them():
    assert all(UNITS[metric] for metric in HEADLINE)
    assert set(METRIC_ALIASES.values()) <= set(HEADLINE)


def test_headline_quantities_follow_the_years():
    assert [q.row_name for q in headline_quantities(2026, 2030)] == [
        "tam:2026", "tam:2030", "share:2030:nvidia", "share:2030:aws",
        "aws_rental_revenue:2030"]
    later = headline_quantities("2027", 2035)
    assert [q.period for q in later] == ["2027", "2035", "2035", "2035", "2035"]
    assert len(headline_quantities(2030, 2030)) == 4  # TAM once
