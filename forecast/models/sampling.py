"""Running NUTS: default sampler settings, PyMC's or nutpie's sampler, a compile cache."""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import sys
import time
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from forecast.models.draws import compiled_key, evaluate_over_draws

#: Sampler settings used unless the caller overrides them; each model's own default sampler
#: (its ``default_sampler``) overrides them in turn (``benchmarks/bench_price.py`` compares
#: PyMC's NUTS with nutpie: docs/benchmarks.md).
DEFAULT_SAMPLER: dict[str, Any] = {
    "draws": 1000,
    "tune": 1000,
    "chains": 2,
    "target_accept": 0.9,
    "nuts_sampler": "pymc",
    "random_seed": 20251031,
    "progressbar": False,
    # nutpie only: a diagonal plus low-rank mass matrix, adapted from gradients; it follows
    # correlated posteriors (the spend model's) at a fraction of the steps.
    "low_rank_mass_matrix": False,
}

#: Compiled nutpie models of this process by structure key: compiling a model through numba
#: takes most of a minute, sampling it often less; models that differ only in ``pm.Data``
#: values (e.g. the price model's inputs per backtest origin) compile once.
_NUTPIE_COMPILED: dict[str, Any] = {}
#: Compiled recomputations of scan-built deterministics (see
#: :func:`recompute_deterministics`), by structure key and ``pm.Data`` values.
_DETERMINISTICS_COMPILED: dict[str, Any] = {}

#: Whether samplers draw their live progress bar on stderr whatever the settings' own
#: ``progressbar`` says: a choice of display (the command line's, on a terminal), kept out
#: of the sampler settings so that a fit stores the same configuration however it was
#: watched. Set with :func:`progress_bars`.
_PROGRESS_BARS = False


@contextlib.contextmanager
def progress_bars(enabled: bool = True) -> Iterator[None]:
    """Show (or not) the samplers' live progress bars on stderr while the block runs.

    nutpie draws one bar per chain (its terminal bar draws nothing when stderr is not a
    terminal); PyMC's own NUTS draws one. Sampler settings with ``progressbar`` true show
    them anyway.
    """
    global _PROGRESS_BARS
    saved, _PROGRESS_BARS = _PROGRESS_BARS, enabled
    try:
        yield
    finally:
        _PROGRESS_BARS = saved


def _pymc_cores(chains: int) -> int:
    """Processes for PyMC's chains: two, or one inside a daemonic process (a Dask worker's
    task), which may not start processes of its own."""
    if multiprocessing.current_process().daemon:
        return 1
    return min(chains, 2)


@contextlib.contextmanager
def quiet_rewrites() -> Iterator[None]:
    """Keep PyTensor's failed graph rewrites off the console while a model compiles.

    A rewrite that raises is skipped and the graph stays as it was, so the compiled model is
    unchanged, but PyTensor logs each failure at ERROR with a traceback (seen: an int8
    overflow in ``local_subtensor_merge`` on a long simulated series, and
    ``local_inline_composite_constants`` on the spend model): noise that reads like a
    crash to a user.
    """
    logger = logging.getLogger("pytensor.graph.rewriting.basic")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            # PyTensor's C virtual machine checks reference counts after building itself
            # and warns when a Python build disagrees with its expectation; the compiled
            # function is unaffected (seen in Dask worker processes).
            warnings.filterwarnings("ignore", "Detected reference count inconsistency",
                                    UserWarning)
            # numba's note that nutpie's compiled gradient calls np.dot on non-contiguous
            # arrays (seen only when numba's cache is cold): a speed hint about the library's
            # code, not a fault in the model, and nothing a user can act on.
            warnings.filterwarnings("ignore", r"np\.dot\(\) is faster on contiguous arrays")
            yield
    finally:
        logger.setLevel(level)


def _show_progress(settings: Mapping[str, Any]) -> bool:
    return bool(settings["progressbar"]) or _PROGRESS_BARS


def run_sampler(model: Any, sampler: Mapping[str, Any], cache_key: str | None = None,
                data: Mapping[str, Any] | None = None) -> tuple[Any, float]:
    """Sample a PyMC model with the given settings; returns (InferenceData, seconds).

    With nutpie and a ``cache_key`` naming the model's structure (everything but its
    ``pm.Data`` values), the compiled model is kept for the process and later calls with the
    same key only swap in ``data`` (``{pm.Data name: value}``) before sampling.
    """
    import pymc as pm

    settings = {**DEFAULT_SAMPLER, **sampler}
    start = time.perf_counter()
    if settings["nuts_sampler"] == "nutpie" and cache_key is not None:
        with quiet_rewrites():
            idata = _run_nutpie_cached(model, settings, cache_key, data or {})
    else:
        with model, quiet_rewrites(), _quiet_pymc(not _show_progress(settings)):
            idata = pm.sample(
                draws=settings["draws"],
                tune=settings["tune"],
                chains=settings["chains"],
                cores=_pymc_cores(settings["chains"]),
                target_accept=settings["target_accept"],
                nuts_sampler=settings["nuts_sampler"],
                nuts_sampler_kwargs=_nutpie_kwargs(settings),
                random_seed=settings["random_seed"],
                progressbar=_show_progress(settings),
                compute_convergence_checks=False,
            )
    if settings["nuts_sampler"] == "nutpie":
        idata = recompute_deterministics(idata, model, scan_deterministics(model), cache_key)
    return idata, time.perf_counter() - start


@contextlib.contextmanager
def _quiet_pymc(quiet: bool) -> Iterator[None]:
    """Keep PyMC's INFO lines ("Initializing NUTS...", "Sampling 2 chains...") off stderr
    while ``quiet``: a command prints its own progress lines."""
    logger = logging.getLogger("pymc")
    level = logger.level
    if quiet:
        logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _run_nutpie_cached(model: Any, settings: Mapping[str, Any], cache_key: str,
                       data: Mapping[str, Any]) -> Any:
    import nutpie

    compiled = _NUTPIE_COMPILED.get(cache_key)
    if compiled is None:
        compiled = nutpie.compile_pymc_model(model)
        _NUTPIE_COMPILED[cache_key] = compiled
    if data:
        compiled = compiled.with_data(**{k: np.asarray(v, dtype=float) for k, v in data.items()})
    bar = _show_progress(settings)
    idata = nutpie.sample(compiled, draws=settings["draws"], tune=settings["tune"],
                          chains=settings["chains"], cores=min(settings["chains"], 2),
                          target_accept=settings["target_accept"],
                          seed=settings["random_seed"], progress_bar=bar,
                          **_nutpie_kwargs(settings))
    if bar and sys.stderr.isatty():
        # nutpie's terminal bar leaves the cursor at the end of its last line.
        print(file=sys.stderr)
    return idata


def _nutpie_kwargs(settings: Mapping[str, Any]) -> dict[str, Any]:
    """nutpie-only options from the sampler settings (none for PyMC's own NUTS)."""
    if settings["nuts_sampler"] != "nutpie" or not settings.get("low_rank_mass_matrix"):
        return {}
    return {"low_rank_modified_mass_matrix": True}


def scan_deterministics(model: Any) -> list[str]:
    """Names of ``model``'s deterministics computed from a ``scan``'s outputs."""
    from pytensor.graph.traversal import ancestors
    from pytensor.scan.op import Scan

    return [variable.name for variable in model.deterministics
            if any(node.owner is not None and isinstance(node.owner.op, Scan)
                   for node in ancestors([variable]))]


def recompute_deterministics(idata: Any, model: Any, names: list[str],
                             cache_key: str | None = None) -> Any:
    """Replace the posterior's ``names`` by PyMC's evaluation of them at the sampled free
    variables.

    nutpie 0.16.8's trace can hold wrong values for deterministics computed from a
    ``scan``'s outputs (a filtered state space's states), so :func:`run_sampler` recomputes
    every such variable after a nutpie run. The function is compiled as
    ``pm.compute_deterministics`` compiles it (from the free variables on their natural
    scale) and, with a ``cache_key``, kept for the process for every model with that key and
    the same ``pm.Data`` values.
    """
    if not names:
        return idata
    function, free_names, dtypes = _deterministics_function(model, names, cache_key)
    values = evaluate_over_draws(function, idata.posterior, free_names, dtypes)
    posterior = idata.posterior
    replaced = {}
    for name, value in zip(names, values, strict=True):
        stored = posterior[name].transpose("chain", "draw", ...)
        replaced[name] = stored.copy(data=value.reshape(stored.shape))
    idata.posterior = posterior.assign(replaced)
    return idata


def _deterministics_function(model: Any, names: list[str], cache_key: str | None
                             ) -> tuple[Any, list[str], list[str]]:
    """The compiled function of ``names`` from the free variables, with their names and
    dtypes, from the cache when ``cache_key`` was seen with the same ``pm.Data`` values."""
    key = compiled_key(model, cache_key, "deterministics-" + ",".join(names))
    if key is not None and key in _DETERMINISTICS_COMPILED:
        return _DETERMINISTICS_COMPILED[key]
    function = model.compile_fn(inputs=model.free_RVs, outs=[model[name] for name in names],
                                on_unused_input="ignore", point_fn=False)
    function.trust_input = True
    entry = (function, [variable.name for variable in model.free_RVs],
             [variable.type.dtype for variable in model.free_RVs])
    if key is not None:
        _DETERMINISTICS_COMPILED[key] = entry
    return entry
