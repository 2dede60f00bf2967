"""Sampler settings per model in ``fit_all``."""

from __future__ import annotations

from forecast.pipeline.fitting import model_sampler


def test_a_models_own_settings_override_the_shared_ones_for_it_only() -> None:
    sampler = {"draws": 1000, "tune": 600, "share": {"draws": 300}}
    assert model_sampler("share", sampler) == {"draws": 300, "tune": 600}
    assert model_sampler("spend", sampler) == {"draws": 1000, "tune": 600}


def test_no_settings_leave_the_models_defaults() -> None:
    assert model_sampler("price", None) == {}
