"""Tests for forecast.data.hashing and the model keys built on it."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from forecast.data.dataset import load_dataset
from forecast.data.hashing import content_digest
from forecast.pipeline.fitting import model_inputs, model_key
from forecast.scenarios import load_scenario


@dataclass(frozen=True)
class _Box:
    frame: pd.DataFrame
    values: np.ndarray


def test_digest_sees_every_cell_and_is_stable():
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})
    box = _Box(frame, np.arange(3.0))
    assert content_digest(box) == content_digest(_Box(frame.copy(), np.arange(3.0)))
    changed = frame.copy()
    changed.loc[1, "a"] = 2.5
    assert content_digest(_Box(changed, np.arange(3.0))) != content_digest(box)
    assert content_digest(_Box(frame, np.arange(4.0))) != content_digest(box)
    assert content_digest({"a": 1}) != content_digest({"a": 2})


def test_model_key_follows_priors_and_inputs_not_unrelated_data():
    dataset = load_dataset()
    scenario = load_scenario("base")
    price_inputs = model_inputs("price", dataset, scenario)
    key = model_key("price", {}, price_inputs)
    assert key.startswith("price-")
    assert model_key("price", {}, model_inputs("price", dataset, scenario)) == key
    assert model_key("price", {"decay_mu": {"dist": "normal", "mu": 0, "sigma": 1}},
                     price_inputs) != key
    # Dropping revenue rows changes the spend model's inputs, not the price model's.
    cut = replace(dataset, revenue=dataset.revenue[
        dataset.revenue["calendar_quarter_end"] <= "2025-07-31"].reset_index(drop=True))
    assert model_key("price", {}, model_inputs("price", cut, scenario)) == key
    spend = model_inputs("spend", dataset, scenario)
    assert model_key("spend", {}, model_inputs("spend", cut, scenario)) != model_key(
        "spend", {}, spend)


def test_digest_ignores_last_bit_differences_that_cpus_disagree_on():
    # numpy's log on AVX-512 and on AVX2 may differ in the last bit: the same data must
    # keep its model key on either machine.
    values = np.log(np.array([2.25, 3.5, 17.0]))
    nudged = np.nextafter(values, np.inf)
    frame = pd.DataFrame({"log_price": values, "chip": ["a", "b", "c"]})
    assert content_digest(_Box(frame, values)) == content_digest(
        _Box(frame.assign(log_price=nudged), nudged))
    assert content_digest(float(values[0])) == content_digest(float(nudged[0]))
    assert content_digest(pd.Series(values)) == content_digest(pd.Series(nudged))
    # A change a model could see still changes the digest.
    moved = values * (1 + 1e-6)
    assert content_digest(_Box(frame.assign(log_price=moved), values)) != content_digest(
        _Box(frame, values))
    assert content_digest(_Box(frame, moved)) != content_digest(_Box(frame, values))
