"""Fixtures shared by the scenario tests."""

from __future__ import annotations

import pytest

from forecast.scenarios import Scenario, load_scenario


@pytest.fixture(scope="module")
def base() -> Scenario:
    """The shipped base scenario, loaded once per test module."""
    return load_scenario("base")
