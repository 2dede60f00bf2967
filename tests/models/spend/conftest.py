"""Fixtures shared by the spend model's tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def spend():
    """The shipped base fit of the spend model."""
    from forecast.models.spend.fitted import FittedSpend
    from forecast.store import shipped

    key = shipped.shipped_header()["scenarios"]["base"]["models"]["spend"]
    return FittedSpend.load(shipped.shipped_dir() / key)
