"""What the sampler layer recomputes after a nutpie run: deterministics built on a scan."""

from __future__ import annotations

import arviz as az
import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt

from forecast.models.sampling import recompute_deterministics, scan_deterministics


def _model() -> pm.Model:
    """A cumulative sum by scan (a filter's shape) beside a plain deterministic."""
    with pm.Model() as model:
        steps = pm.Normal("steps", 0.0, 1.0, shape=3)
        path = pytensor.scan(lambda step, total: total + step, sequences=[steps],
                             outputs_info=[pt.zeros(())], return_updates=False)
        pm.Deterministic("last", path[-1])
        pm.Deterministic("doubled", 2.0 * steps)
    return model


def test_only_deterministics_built_on_a_scan_are_named() -> None:
    assert scan_deterministics(_model()) == ["last"]


def test_recomputed_values_replace_the_traces() -> None:
    steps = np.random.default_rng(0).normal(size=(2, 4, 3))
    wrong = np.full((2, 4), 99.0)
    idata = az.from_dict(posterior={"steps": steps, "last": wrong, "doubled": 2.0 * steps})
    model = _model()
    fixed = recompute_deterministics(idata, model, scan_deterministics(model))
    np.testing.assert_allclose(fixed.posterior["last"].values, steps.sum(axis=-1), rtol=1e-12)
    np.testing.assert_array_equal(fixed.posterior["doubled"].values, 2.0 * steps)


def _scaled_model(scale: float) -> pm.Model:
    """The scan's sum times a ``pm.Data`` scale: what a scenario's swapped prior looks like."""
    with pm.Model() as model:
        factor = pm.Data("factor", scale)
        steps = pm.Normal("steps", 0.0, 1.0, shape=3)
        path = pytensor.scan(lambda step, total: total + step, sequences=[steps],
                             outputs_info=[pt.zeros(())], return_updates=False)
        pm.Deterministic("last", factor * path[-1])
    return model


def test_cached_recomputation_follows_the_models_data() -> None:
    steps = np.random.default_rng(1).normal(size=(2, 5, 3))

    def recomputed(scale: float) -> np.ndarray:
        idata = az.from_dict(posterior={"steps": steps, "last": np.zeros((2, 5))})
        return recompute_deterministics(idata, _scaled_model(scale), ["last"],
                                        cache_key="test-scaled").posterior["last"].values

    # Same structure key, different pm.Data: each model's own scale, not the cached one's.
    np.testing.assert_allclose(recomputed(1.0), steps.sum(axis=-1), rtol=1e-12)
    np.testing.assert_allclose(recomputed(3.0), 3.0 * steps.sum(axis=-1), rtol=1e-12)
    np.testing.assert_allclose(recomputed(1.0), steps.sum(axis=-1), rtol=1e-12)


def test_recomputation_compiles_once_per_key_and_data() -> None:
    from forecast.models import sampling

    idata = az.from_dict(posterior={"steps": np.zeros((1, 2, 3)), "last": np.ones((1, 2))})
    recompute_deterministics(idata, _scaled_model(2.0), ["last"], cache_key="test-once")
    first = dict(sampling._DETERMINISTICS_COMPILED)
    recompute_deterministics(idata, _scaled_model(2.0), ["last"], cache_key="test-once")
    assert first == sampling._DETERMINISTICS_COMPILED  # the same entry, the same function
    assert any("test-once" in key for key in first)
