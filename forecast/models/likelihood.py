"""Pointwise log likelihood of a posterior: what ArviZ's LOO reads, computed draw by draw.

PyMC's ``compute_log_likelihood`` evaluates the same function but routes every draw through
xarray and PyTensor's checked call, a per-draw overhead that adds up over a posterior's
thousands of draws. Here the function is called on plain arrays with its input checks off,
the arrays cast to the dtypes it was compiled for beforehand. Building and compiling the
function (PyTensor's rewrites) is not free either; with a ``cache_key`` it is done once a
process for every model with that key and the same ``pm.Data`` values (a warm refit's bull,
base and bear fits reuse the cold refit's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from forecast.models.draws import compiled_key, evaluate_over_draws

#: Compiled log-likelihood functions by cache key (see :func:`pointwise_log_likelihood`).
_COMPILED: dict[str, Any] = {}


def pointwise_log_likelihood(posterior: Any, model: Any,
                             cache_key: str | None = None) -> dict[str, np.ndarray]:
    """Log density of every observed variable's elements at every posterior draw.

    Parameters
    ----------
    posterior
        An ``xarray.Dataset`` with dims (chain, draw, ...) holding every free variable of
        ``model`` on its natural (untransformed) scale, as PyMC and nutpie store them.
    model
        The PyMC model the posterior was sampled from.
    cache_key
        Identity of ``model``'s structure (a model's ``compile_key``): models with the same
        key and the same ``pm.Data`` values share one compiled function. None compiles anew.

    Returns
    -------
    dict
        Observed variable name -> array (chain, draw, *observed shape).
    """
    function, free_names, dtypes, observed_names = _compiled(model, cache_key)
    outputs = evaluate_over_draws(function, posterior, free_names, dtypes)
    return dict(zip(observed_names, outputs, strict=True))


def _compiled(model: Any, cache_key: str | None) -> tuple[Any, list[str], list[str], list[str]]:
    """The compiled pointwise log likelihood of ``model`` with its inputs' names and dtypes
    and the observed variables' names, from the cache when ``cache_key`` was seen with the
    same ``pm.Data`` values."""
    from pymc.model.transform.conditioning import remove_value_transforms

    key = compiled_key(model, cache_key, "log_likelihood")
    if key is not None and key in _COMPILED:
        return _COMPILED[key]
    # The posterior holds untransformed values: evaluate the model without its transforms.
    plain = remove_value_transforms(model)
    observed = list(plain.observed_RVs)
    function = plain.compile_fn(inputs=plain.value_vars,
                                outs=plain.logp(vars=observed, sum=False),
                                on_unused_input="ignore", point_fn=False)
    function.trust_input = True
    entry = (function, [variable.name for variable in plain.free_RVs],
             [value.type.dtype for value in plain.value_vars],
             [variable.name for variable in observed])
    if key is not None:
        _COMPILED[key] = entry
    return entry
