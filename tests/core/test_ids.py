"""Fit ids (forecast.core.ids): directory names of the fit store, never paths."""

from __future__ import annotations

import pytest

from forecast.core.errors import ForecastError
from forecast.core.ids import check_fit_id


@pytest.mark.parametrize("fit_id", ["20261204T162339-5bac9b0b-b497", "F1", "a_b-c"])
def test_ids_the_store_makes_and_plain_names_pass(fit_id):
    assert check_fit_id(fit_id) == fit_id


@pytest.mark.parametrize(("fit_id", "message"), [
    ("x" * 5000, r"longer than 100 characters \(5000\)"),
    ("../fits/x", "not letters, digits"), ("", "not letters, digits"), (".hidden", "not letters"),
    ("a/b", "not letters"), ("-x", "not letters"),
])
def test_anything_else_is_one_line_of_bad_input(fit_id, message):
    with pytest.raises(ForecastError, match=message) as caught:
        check_fit_id(fit_id)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200
