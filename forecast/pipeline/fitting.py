"""Fit every model for one or more scenarios and store the result as one versioned fit.

A scenario sets the priors (``[priors.price]``, ``[priors.spend]``) and the spend model's cost
basis (its MFU and TCO inputs). The models are fitted in the order of
:data:`~forecast.models.registry.SCENARIO_MODELS`. Each model is identified by a digest of its
priors and of the data it is fitted to (the prepared frames, not the raw files), so scenarios
whose priors and inputs agree share a model (bull, base and bear share one price model); and a
model whose
priors and inputs are unchanged since a stored fit that passed its gate is reused rather than
sampled again. This module imports
PyMC (through the model classes' ``fit``); forecasting does not need it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forecast.core.errors import FitError
from forecast.core.ids import check_fit_id
from forecast.data.dataset import Dataset
from forecast.data.hashing import content_digest
from forecast.models.diagnostics import check_gate
from forecast.models.registry import SCENARIO_MODELS, model_class
from forecast.store.bundles import (
    FitBundle,
    _code_version,
    latest_fit_id,
    list_fits,
    load_bundle,
    load_model,
    new_fit_id,
    save_bundle,
)


def model_priors(scenario: Any) -> dict[str, dict[str, Any]]:
    """Prior overrides per model as plain dicts (what a fit depends on besides the data)."""
    return {name: model_class(name).scenario_priors(scenario) for name in SCENARIO_MODELS}


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def priors_digest(scenario: Any) -> str:
    """One hash of every model's priors: two scenarios with equal digests share a fit."""
    return digest(model_priors(scenario))


def model_inputs(name: str, dataset: Dataset, scenario: Any,
                 fitted: Mapping[str, Any] | None = None) -> Any:
    """What a model is fitted to: its ``prepare`` of the data (and of the scenario, for
    models whose inputs depend on it, and of the scenario's ``fitted`` models by name, for
    models fitted after others, the ``upstream`` of a model)."""
    model = model_class(name)()
    missing = [other for other in model.upstream if other not in (fitted or {})]
    if missing:
        raise FitError(f"{name}: fitted after {', '.join(missing)}, which is not fitted yet")
    return model.prepare_with(dataset, scenario, dict(fitted or {}))


def model_key(name: str, priors: Mapping[str, Any], inputs: Any) -> str:
    """``<model>-<digest>``: same key, same priors, inputs and code version."""
    identity = {"model": name, "priors": priors, "code": _code_version(),
                "inputs": content_digest(inputs)}
    return f"{name}-{digest(identity)[:16]}"


def model_sampler(name: str, sampler: Mapping[str, Any] | None) -> dict[str, Any]:
    """The sampler settings for model ``name``: the settings shared by every model, then
    those under the model's own name (``{"draws": 1000, "spend": {"draws": 300}}`` gives the
    spend model 300 draws and every other model 1,000)."""
    sampler = sampler or {}
    shared = {key: value for key, value in sampler.items() if not isinstance(value, Mapping)}
    return {**shared, **sampler.get(name, {})}


def _fit_model(name: str, inputs: Any, priors: dict[str, Any],
               sampler: Mapping[str, Any] | None) -> Any:
    return model_class(name)(priors=priors, sampler=model_sampler(name, sampler)).fit(inputs)


def _reusable(key: str, root: Any) -> Any | None:
    """A stored model with this key (same priors and inputs) that passed its gate, if any."""
    for header in reversed(list_fits(root)):
        if key in header.get("models", []) and key not in header.get("gate_failures", {}):
            return load_model(header["fit_id"], key, root)
    return None


def fit_all(
    dataset: Dataset,
    scenarios: Any | Sequence[Any],
    root: str | Path | None = None,
    sampler: Mapping[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
    gate: Mapping[str, float] | None = None,
    reuse: bool = True,
    before_publish: Callable[[Path], None] | None = None,
    extra_meta: Mapping[str, Any] | None = None,
    extra_files: Callable[[FitBundle], dict[str, str]] | None = None,
    scenarios_dir: str | Path | None = None,
) -> FitBundle:
    """Fit (or reuse) every model the scenarios need, gate on diagnostics, store atomically.

    The fit is stored as ``published`` when every model passes the gate (r_hat, bulk ESS,
    divergences), else as ``gated``: kept for inspection, never used by a forecast. The
    fit keeps a copy of its data (``dataset.data_dir``) and of the scenario files.
    ``extra_files`` builds further files for the fit directory from the finished bundle
    (the refit's revision report), written before the fit is published.
    """
    from forecast.scenarios import DEFAULT_SCENARIOS_DIR

    say = progress or (lambda message: None)
    scenario_list = list(scenarios) if isinstance(scenarios, Sequence) else [scenarios]
    if not scenario_list:
        raise FitError("no scenario to fit")
    models: dict[str, Any] = {}
    timings: dict[str, float] = {}
    reused: list[str] = []
    entries: dict[str, dict[str, Any]] = {}
    for scenario in scenario_list:
        priors = model_priors(scenario)
        keys = {}
        for name in SCENARIO_MODELS:
            done = {other: models[key] for other, key in keys.items()}
            inputs = model_inputs(name, dataset, scenario, done)
            key = model_key(name, priors[name], inputs)
            keys[name] = key
            if key in models:
                continue
            start = time.perf_counter()
            existing = _reusable(key, root) if reuse else None
            if existing is not None:
                models[key] = existing
                reused.append(key)
                say(f"{name} ({scenario.name}): reusing a stored fit with the same data "
                    "and priors")
            else:
                say(f"{name} ({scenario.name}): sampling...")
                models[key] = _fit_model(name, inputs, priors[name], sampler)
                values = models[key].diagnostics()
                say(f"{name} ({scenario.name}): done in {time.perf_counter() - start:.0f} s "
                    f"(max r_hat {values['max_r_hat']:.3f}, min ESS "
                    f"{values['min_ess_bulk']:.0f}, {values['divergences']} divergences)")
            timings[key] = round(time.perf_counter() - start, 2)
        entries[scenario.name] = {"priors_digest": digest(priors), "models": keys}
    diagnostics = {key: model.diagnostics() for key, model in models.items()}
    reasons = {key: check_gate(values, gate) for key, values in diagnostics.items()}
    failed = {key: why for key, why in reasons.items() if why}
    meta = {
        "status": "gated" if failed else "published",
        "gate_failures": failed,
        "gate": dict(gate or {}),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "data_hash": dataset.data_hash,
        "as_of": str(dataset.as_of_date.date()) if dataset.as_of_date is not None else None,
        "data_end": str(dataset.last_observation.date()),
        "scenarios": entries,
        "priors": {s.name: model_priors(s) for s in scenario_list},
        "reused": reused,
        "timings_seconds": timings,
        "diagnostics": diagnostics,
        **dict(extra_meta or {}),
    }
    bundle = FitBundle(fit_id=new_fit_id(dataset.data_hash), models=models, meta=meta)
    files = extra_files(bundle) if extra_files is not None else None
    save_bundle(bundle, root, before_publish=before_publish, data_dir=dataset.data_dir,
                scenarios_dir=scenarios_dir or DEFAULT_SCENARIOS_DIR, extra_files=files)
    return bundle


def _gate_message(bundle: FitBundle) -> str:
    return "; ".join(f"{key}: {', '.join(why)}"
                     for key, why in bundle.meta["gate_failures"].items())


def find_fit(scenario: Any, root: str | Path | None = None,
             fit_id: str | None = None) -> FitBundle | None:
    """The scenario's models from the requested fit (which must be published) or from the
    latest published fit covering its priors; None when no fit covers them.

    Returns a bundle keyed by model name (``price``, ``spend``; see
    :meth:`~forecast.store.bundles.FitBundle.for_scenario`).
    """
    wanted = priors_digest(scenario)
    if fit_id is not None:  # looked up as a directory name: never a path or too long a name
        check_fit_id(fit_id)
    chosen = fit_id or latest_fit_id(root, priors_digest=wanted) or shipped_fit_id(wanted, root)
    if chosen is None:
        return None
    bundle = load_bundle(chosen, root, priors_digest=wanted)
    if bundle.status != "published":
        raise FitError(f"fit {chosen} is {bundle.status}, not published: not used")
    return bundle


def shipped_fit_id(wanted: str, root: str | Path | None = None) -> str | None:
    """The shipped fit's id when it covers priors ``wanted`` and the user's store has no
    published fit on other data (a scenario never falls back to a fit on older data).

    Raises
    ------
    FitError
        When the shipped fit covers the priors but its model versions are not this code's
        (:func:`~forecast.store.shipped.check_current`).
    """
    from forecast.store.bundles import covers
    from forecast.store.shipped import check_current, shipped_header

    header = shipped_header()
    if header is None or not covers(header, wanted):
        return None
    published = [h for h in list_fits(root) if h.get("status", "published") == "published"]
    if published and published[-1].get("data_hash") != header.get("data_hash"):
        return None
    check_current(header, None)
    return str(header["fit_id"])


def load_or_fit(dataset: Dataset, scenario: Any, root: str | Path | None = None,
                fit_id: str | None = None, sampler: Mapping[str, Any] | None = None,
                progress: Callable[[str], None] | None = None) -> FitBundle:
    """:func:`find_fit`, else fit every model on ``dataset``, store the fit and use it."""
    found = find_fit(scenario, root, fit_id)
    if found is not None:
        return found
    bundle = fit_all(dataset, scenario, root=root, sampler=sampler, progress=progress)
    if bundle.status != "published":
        raise FitError(f"the new fit {bundle.fit_id} failed its convergence gate "
                       f"({_gate_message(bundle)}); it is stored as gated and not used")
    return bundle.for_scenario(priors_digest(scenario))
