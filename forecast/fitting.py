"""Fit every model for a scenario's priors and store the result as one versioned fit.

A scenario sets the priors: ``[priors.price]``, ``[priors.market]`` (with the TAM ceiling from
its ``tam_ceiling_usd_billions`` input) and ``[priors.share]``. Each model's priors are hashed;
a stored fit of the same data whose model has the same prior hash is reused, so bull, base
and bear (which differ in the ceiling) share the price and share fits and differ only in the
market fit. This module imports PyMC (through the model classes' ``fit``); forecasting does
not need it.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forecast.data import Dataset
from forecast.errors import FitError
from forecast.fitstore import (
    FitBundle,
    latest_fit_id,
    list_fits,
    load_bundle,
    new_fit_id,
    save_bundle,
)
from forecast.models.base import check_gate, prior_spec_dict

MODELS = ("price", "market", "share")
_Z90 = 1.2815515655446004


def ceiling_prior(scenario: Any) -> dict[str, Any] | None:
    """Lognormal prior of the annual TAM ceiling matching the scenario input's P10-P90."""
    spec = scenario.inputs.get("tam_ceiling_usd_billions")
    if spec is None:
        return None
    p10, p50, p90 = (float(spec.quantile(q)) for q in (0.1, 0.5, 0.9))
    return {"dist": "lognormal", "median": p50,
            "sigma": (math.log(p90) - math.log(p10)) / (2 * _Z90)}


def model_priors(scenario: Any) -> dict[str, dict[str, Any]]:
    """Prior overrides per model as plain dicts (what a fit depends on besides the data)."""
    priors = {name: {key: prior_spec_dict(spec)
                     for key, spec in scenario.priors.get(name, {}).items()}
              for name in MODELS}
    ceiling = ceiling_prior(scenario)
    if ceiling is not None:
        priors["market"]["__ceiling__"] = ceiling
    return priors


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def priors_digest(scenario: Any) -> str:
    """One hash of every model's priors: two scenarios with equal digests share a fit."""
    return digest(model_priors(scenario))


def _fit_model(name: str, dataset: Dataset, scenario: Any, priors: dict[str, Any],
               sampler: Mapping[str, Any] | None) -> Any:
    overrides = dict(sampler or {})
    if name == "price":
        from forecast.models.price import PriceModel

        return PriceModel(priors=priors, sampler=overrides).fit(dataset)
    if name == "market":
        from forecast.models.market import MarketModel

        own = {k: v for k, v in priors.items() if k != "__ceiling__"}
        return MarketModel(priors=own, ceiling_prior=priors.get("__ceiling__"),
                           sampler=overrides).fit(dataset)
    from forecast.models.share import ShareModel
    from forecast.shares_data import share_inputs

    return ShareModel(priors=priors, sampler=overrides).fit(share_inputs(dataset, scenario))


def _reusable(name: str, data_hash: str, model_digest: str, root: Any) -> Any | None:
    """A stored model fit with the same data and priors that passed its gate, if any.

    A gated bundle's other models are reusable: the gate is per model.
    """
    for header in reversed(list_fits(root)):
        if header.get("data_hash") != data_hash or name in header.get("gate_failures", {}):
            continue
        if header.get("model_digests", {}).get(name) == model_digest:
            return load_bundle(header["fit_id"], root).models[name]
    return None


def fit_all(
    dataset: Dataset,
    scenario: Any,
    root: str | Path | None = None,
    sampler: Mapping[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
    gate: Mapping[str, float] | None = None,
    reuse: bool = True,
    before_publish: Callable[[Path], None] | None = None,
) -> FitBundle:
    """Fit (or reuse) every model, gate on diagnostics and store the fit atomically.

    The fit is stored as ``published`` when every model passes the gate (r_hat, bulk ESS,
    divergences), else as ``gated``: kept for inspection, never used by a forecast.
    """
    say = progress or (lambda message: None)
    priors = model_priors(scenario)
    digests = {name: digest(priors[name]) for name in MODELS}
    models, timings, reused = {}, {}, []
    for name in MODELS:
        start = time.perf_counter()
        existing = _reusable(name, dataset.data_hash, digests[name], root) if reuse else None
        if existing is not None:
            models[name] = existing
            reused.append(name)
            say(f"{name}: reusing a stored fit with the same data and priors")
        else:
            say(f"{name}: sampling...")
            models[name] = _fit_model(name, dataset, scenario, priors[name], sampler)
            diagnostics = models[name].diagnostics()
            say(f"{name}: done in {time.perf_counter() - start:.0f} s (max r_hat "
                f"{diagnostics['max_r_hat']:.3f}, min ESS {diagnostics['min_ess_bulk']:.0f}, "
                f"{diagnostics['divergences']} divergences)")
        timings[name] = round(time.perf_counter() - start, 2)
    diagnostics = {name: model.diagnostics() for name, model in models.items()}
    reasons = {name: check_gate(values, gate) for name, values in diagnostics.items()}
    failed = {name: why for name, why in reasons.items() if why}
    meta = {
        "status": "gated" if failed else "published",
        "gate_failures": failed,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "data_hash": dataset.data_hash,
        "as_of": str(dataset.as_of_date) if dataset.as_of_date is not None else None,
        "data_end": str(dataset.last_observation.date()),
        "scenario": scenario.name,
        "priors_digest": digest(priors),
        "model_digests": digests,
        "priors": priors,
        "reused": reused,
        "timings_seconds": timings,
        "diagnostics": diagnostics,
    }
    bundle = FitBundle(fit_id=new_fit_id(dataset.data_hash), models=models, meta=meta)
    save_bundle(bundle, root, before_publish=before_publish)
    return bundle


def load_or_fit(dataset: Dataset, scenario: Any, root: str | Path | None = None,
                fit_id: str | None = None, sampler: Mapping[str, Any] | None = None,
                progress: Callable[[str], None] | None = None) -> FitBundle:
    """The requested or latest published fit for the scenario's priors; fit when none."""
    if fit_id is not None:
        bundle = load_bundle(fit_id, root)
        if bundle.status != "published":
            raise FitError(f"fit {fit_id} is {bundle.status}, not published: not used")
        return bundle
    found = latest_fit_id(root, priors_digest=priors_digest(scenario))
    if found is not None:
        return load_bundle(found, root)
    bundle = fit_all(dataset, scenario, root=root, sampler=sampler, progress=progress)
    if bundle.status != "published":
        failures = "; ".join(f"{k}: {', '.join(v)}" for k, v in
                             bundle.meta["gate_failures"].items())
        raise FitError(f"the new fit {bundle.fit_id} failed its convergence gate ({failures}); "
                       "it is stored as gated and not used")
    return bundle
