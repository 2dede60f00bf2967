"""Evaluating a compiled PyTensor function draw by draw on plain arrays, and the cache key of
such a function (shared by the pointwise log likelihood and the sampler's recomputation of
deterministics).

PyMC routes every draw through xarray and PyTensor's checked call, which dominates the
time for a cheap function; here the inputs are cast once to the dtypes the function was
compiled for and the function is called with its input checks off.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from forecast.data.hashing import content_digest


def compiled_key(model: Any, cache_key: str | None, purpose: str) -> str | None:
    """Key of a function compiled from ``model`` for ``purpose``: the model's structure
    (``cache_key``, e.g. a model's ``compile_key``) and its ``pm.Data`` values, which the
    compiled function holds. None when ``cache_key`` is None (compile anew)."""
    if cache_key is None:
        return None
    data = {variable.name: variable.get_value() for variable in model.data_vars}
    return f"{purpose}-{cache_key}-{content_digest(data)}"


def evaluate_over_draws(function: Any, posterior: Any, names: list[str],
                        dtypes: list[str]) -> list[np.ndarray]:
    """``function(*inputs)`` at every (chain, draw) of ``posterior``.

    ``names`` are the posterior variables passed as inputs, in order, cast to ``dtypes``;
    ``function`` must have ``trust_input`` set. Returns one array per output, shaped
    (chain, draw, *output shape).
    """
    chains, draws = posterior.sizes["chain"], posterior.sizes["draw"]
    n = chains * draws
    inputs = []
    for name, dtype in zip(names, dtypes, strict=True):
        values = np.asarray(posterior[name].transpose("chain", "draw", ...).values, dtype=dtype)
        inputs.append(np.ascontiguousarray(values.reshape(n, *values.shape[2:])))
    outputs: list[np.ndarray] = []
    for i in range(n):
        # trust_input: each argument must already be an ndarray of the compiled dtype.
        results = function(*(np.asarray(values[i]) for values in inputs))
        if not outputs:
            outputs = [np.empty((n, *np.shape(result))) for result in results]
        for out, result in zip(outputs, results, strict=True):
            out[i] = result
    return [out.reshape(chains, draws, *out.shape[1:]) for out in outputs]
