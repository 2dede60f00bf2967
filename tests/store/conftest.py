"""Fixtures of the store's tests: toy fits published by the real store code."""

from __future__ import annotations

from pathlib import Path

import pytest
from toyfit import TOY_FIT, ToyModel, publish_toy

from forecast.models.registry import MODELS


@pytest.fixture
def toy_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the store load toy models for the length of a test."""
    monkeypatch.setitem(MODELS, "toy", ToyModel)


@pytest.fixture
def toy_store(tmp_path: Path, toy_models: None) -> Path:
    """An artifacts root holding one published toy fit (:data:`TOY_FIT`)."""
    root = tmp_path / "artifacts"
    publish_toy(root, TOY_FIT, tmp_path)
    return root
