"""The published fit that ships with the package (``published/`` beside ``data/``).

A fresh clone forecasts from it in seconds: the posterior of bull, base and bear, fitted by
the package's own refit on the shipped data at the default samplers, reduced to what
forecasts, ``series``, ``check`` and the theses read:

- every model's forecast posterior, thinned to :data:`KEEP_SAMPLES` draws spread evenly over
  each chain, float32 where rounding to it moves no draw by more than
  :data:`ROUNDING_SHARE` of the variable's Monte Carlo standard error (:func:`float32_safe`),
  zip-compressed (``posterior.npz``);
- what ``check`` needs besides it, thinned the same way: the other free variables, the
  pointwise log likelihood, the sampler's statistics (divergences...) and the observed data
  (``inference_*.npz``);
- the fitted data frames, summary table (the full fit's diagnostics) and configuration;
- ``bundle.json``: the provenance (data hash, code and model versions, sampler settings,
  diagnostics, draws kept and their effective sample size) and every file's SHA-256, in the
  fit store's own format (:mod:`forecast.store.integrity`).

It has the layout of a stored fit, so the store's loaders read it. It is used only where it
matches the code and the data: a model version or a data hash that differs is refused with
one line saying how to refit (:func:`check_current`), never used silently.
``python cli.py fits ship`` regenerates it (:func:`forecast.pipeline.shipping.ship_fit`).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from forecast.core import fastio
from forecast.core.errors import FitError
from forecast.store import integrity

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "published"
#: Another shipped fit directory, or ``off`` for none (tests, and users who want none).
SHIPPED_ENV = "FORECAST_SHIPPED_FIT"
#: Posterior draws kept per model: the forecasts' and theses' Monte Carlo error is set by
#: the posterior's effective sample size (at least the gate's 400 for every model at the
#: default samplers), which thinning to this many draws barely lowers.
KEEP_SAMPLES = 1000
#: float32 only where its rounding is at most this share of a variable's Monte Carlo
#: standard error (posterior sd / sqrt(draws kept)).
ROUNDING_SHARE = 0.01
#: The command that regenerates the shipped fit, named in every refusal.
REGENERATE = "python cli.py fits ship"
#: The ``kind`` of the shipped fit's header.
KIND = "shipped"


def shipped_dir() -> Path | None:
    """The shipped fit's directory (``$FORECAST_SHIPPED_FIT``, else ``published/``), or
    None when it is turned off or holds no fit."""
    setting = os.environ.get(SHIPPED_ENV)
    if setting == "off":
        return None
    directory = Path(setting) if setting else SHIPPED_DIR
    return directory if (directory / integrity.HEADER_FILE).is_file() else None


def shipped_header() -> dict[str, Any] | None:
    """The shipped fit's checked header, or None when there is none.

    Raises
    ------
    FitError
        When its header is damaged (named in the message).
    """
    directory = shipped_dir()
    return None if directory is None else integrity.read_checked_header(directory)


def is_shipped(fit_id: str) -> bool:
    """Whether ``fit_id`` names the shipped fit (its id, or the word ``shipped``)."""
    header = shipped_header()
    return header is not None and fit_id in (header["fit_id"], KIND)


def model_versions() -> dict[str, str]:
    """The version of every scenario model in this code."""
    from forecast.models.registry import SCENARIO_MODELS, fitted_class

    return {name: fitted_class(name).model_version for name in SCENARIO_MODELS}


def stale_reasons(header: Mapping[str, Any], data_hash: str | None) -> list[str]:
    """Why the shipped fit does not match this code and data (empty when it does).

    Parameters
    ----------
    header
        The shipped fit's header.
    data_hash
        The hash of the data a forecast would read (None: not checked).
    """
    reasons = []
    current = model_versions()
    stored = header.get("model_versions", {})
    changed = [f"{name} {stored.get(name, 'none')} -> {version}"
               for name, version in current.items() if stored.get(name) != version]
    if changed:
        reasons.append(f"model versions changed ({', '.join(changed)})")
    if data_hash is not None and header.get("data_hash") != data_hash:
        reasons.append(f"it was fitted to data {str(header.get('data_hash'))[:8]}, the data "
                       f"read now are {data_hash[:8]}")
    return reasons


def check_current(header: Mapping[str, Any], data_hash: str | None) -> None:
    """Refuse a shipped fit that does not match this code and data.

    Raises
    ------
    FitError
        One line: what differs and the command that refits.
    """
    reasons = stale_reasons(header, data_hash)
    if reasons:
        raise FitError(f"the shipped fit {header['fit_id']} does not match this code and data "
                       f"({'; '.join(reasons)}): refit with `python cli.py refit` (your own "
                       f"store) or regenerate it with `{REGENERATE}`")


# --------------------------------------------------------------------------- writing


def thin_indices(n_draws: int, keep_per_chain: int) -> np.ndarray:
    """Draw indices spread evenly over a chain of ``n_draws``, at most ``keep_per_chain``."""
    if keep_per_chain >= n_draws:
        return np.arange(n_draws)
    return np.unique(np.linspace(0, n_draws - 1, keep_per_chain).round().astype(int))


def float32_safe(values: np.ndarray, share: float = ROUNDING_SHARE) -> bool:
    """Whether storing ``values`` (chain, draw, ...) as float32 moves no draw by more than
    ``share`` of its element's Monte Carlo standard error (sd / sqrt(draws)).

    Elements that do not vary (sd 0) must round exactly.
    """
    array = np.asarray(values, dtype=np.float64)
    if array.ndim < 2 or not np.all(np.isfinite(array)):
        return False
    samples = array.reshape((-1, *array.shape[2:]))
    rounding = np.abs(samples.astype(np.float32).astype(np.float64) - samples).max(axis=0)
    mc_se = samples.std(axis=0) / np.sqrt(len(samples))
    return bool(np.all(rounding <= share * mc_se))


#: Suffixes PyMC gives the unconstrained copies of free variables (``sigma_log__``): the
#: constrained variable beside each is what forecasts and predictive checks read.
TRANSFORMED_SUFFIXES = ("_log__", "_logodds__", "_interval__", "_zerosum__", "_simplex__",
                        "_ordered__", "_circular__", "_lowerbound__", "_upperbound__")


def _reduced(dataset: xr.Dataset, draws: np.ndarray) -> tuple[xr.Dataset, list[str]]:
    """``dataset`` at ``draws`` (every chain) without the unconstrained copies of free
    variables, float32 where :func:`float32_safe`; and the names stored as float32."""
    kept = [name for name in dataset.data_vars if not str(name).endswith(TRANSFORMED_SUFFIXES)]
    thinned = dataset[kept].isel(draw=draws)
    narrowed = []
    for name, values in thinned.items():
        if values.dtype == np.float64 and float32_safe(
                values.transpose("chain", "draw", ...).values):
            thinned[name] = values.astype(np.float32)
            narrowed.append(str(name))
    return thinned, narrowed


def _write_model(fitted: Any, target: Path, keep: int) -> dict[str, Any]:
    """One model's reduced files under ``target``; returns what the header records."""
    from forecast.models.diagnostics import gate_values, posterior_summary
    from forecast.models.registry import model_class

    target.mkdir(parents=True)
    idata = fitted.inference_data()
    per_chain = max(1, keep // int(fitted.posterior.sizes["chain"]))
    draws = thin_indices(int(fitted.posterior.sizes["draw"]), per_chain)
    posterior, narrowed = _reduced(fitted.posterior, draws)
    fastio.save_posterior(posterior, target, compress=True)
    extra = [name for name in idata.posterior.data_vars if name not in fitted.posterior]
    groups = {"posterior": idata.posterior[extra]} if extra else {}
    for group in ("log_likelihood", "sample_stats"):
        if group in idata.groups():
            groups[group] = getattr(idata, group)
    for group, values in groups.items():
        reduced, more = _reduced(values, draws)
        narrowed += [f"{group}/{name}" for name in more]
        fastio.save_posterior(reduced, target, stem=f"inference_{group}", compress=True)
    if "observed_data" in idata.groups():
        fastio.save_posterior(idata.observed_data, target, stem="inference_observed_data",
                              compress=True)
    fastio.save_frames(fitted.data, target, compress=True)
    fitted.summary_table.to_csv(target / "summary.csv", index=False)
    # The effective sample size of the draws kept, over the gated parameters and states.
    model = model_class(fitted.model_name)
    kept = posterior_summary(idata.posterior.isel(draw=draws), model.summary_vars,
                             model.state_vars)
    shipped = {"draws_kept": int(len(draws) * posterior.sizes["chain"]),
               "min_ess_bulk_kept": round(gate_values(kept, 0)["min_ess_bulk"], 1),
               "float32": narrowed}
    config = {"model_name": fitted.model_name, "model_version": fitted.model_version,
              "config": fitted.config, "meta": {**fitted.meta, "shipped": shipped},
              "data_keys": sorted(fitted.data),
              "posterior_vars": sorted(map(str, posterior.data_vars))}
    (target / "config.json").write_text(json.dumps(config, indent=2, default=str))
    return shipped


#: The published backtests' directory inside the shipped fit's (not checksummed with it).
BACKTESTS = "backtests"


def published_backtests() -> dict[str, dict[str, Any]]:
    """The backtests published beside the shipped fit that score this code's models (each
    file's ``model_versions`` equal to :func:`model_versions`'s for its models), by name.

    A backtest of another model version, or a file that is not a JSON object, is left out:
    the backtests only annotate a forecast.
    """
    directory = shipped_dir()
    if directory is None:
        return {}
    current, found = model_versions(), {}
    for path in sorted((directory / BACKTESTS).glob("*.json")):
        report = _read_backtest(path)
        versions = report.get("model_versions") if isinstance(report, dict) else None
        if isinstance(versions, dict) and versions and all(
                current.get(name) == version for name, version in versions.items()):
            found[path.stem] = report
    return found


#: Parsed backtest files by their bytes: every simulate reads the stack's weight, and
#: reading a file is cheap where parsing it is not. Shared: callers read the reports, never
#: change them.
_PARSED: dict[bytes, Any] = {}


def _read_backtest(path: Path) -> Any:
    """A backtest file's JSON, or None when it cannot be read or parsed."""
    try:
        content = path.read_bytes()
        if content not in _PARSED:
            if len(_PARSED) > 64:  # republished many times in one process
                _PARSED.clear()
            _PARSED[content] = json.loads(content)
    except (OSError, ValueError):
        return None
    return _PARSED[content]


def published_stack_weight() -> float | None:
    """The spend model's weight in the out-of-sample stack a forecast publishes: the share
    backtest's weight learnt on every origin by the data's end (its ``weights["forecast"]``,
    :mod:`forecast.evaluation.share_backtest`); None without a current share backtest."""
    weight = published_backtests().get("share", {}).get("weights", {}).get("forecast")
    if isinstance(weight, (int, float)) and 0.0 <= weight <= 1.0:
        return float(weight)
    return None


def write_shipped(bundle: Any, target: Path | None = None, keep: int = KEEP_SAMPLES) -> Path:
    """Reduce a stored, published fit into the shipped fit's directory, replacing it.

    Parameters
    ----------
    bundle
        A :class:`~forecast.store.bundles.FitBundle` loaded from a store (keyed by model
        key), fitted at the models' default samplers.
    target
        Where to write (default ``published/``); written beside it first, then renamed. Its
        ``backtests/`` are kept.
    keep
        Posterior draws kept per model.

    Returns
    -------
    pathlib.Path
        The directory written.
    """
    target = Path(target) if target is not None else SHIPPED_DIR
    staging = target.with_name(f".{target.name}-staging")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        kept = {key: _write_model(model, staging / key, keep)
                for key, model in bundle.models.items()}
        header = {"fit_id": bundle.fit_id, "kind": KIND, "models": sorted(bundle.models),
                  **{key: value for key, value in bundle.meta.items()
                     if key not in ("reused", "timings_seconds")},
                  "model_versions": model_versions(),
                  "samplers": {key: model.config.get("sampler", {})
                               for key, model in bundle.models.items()},
                  "kept": kept, "regenerate": REGENERATE,
                  integrity.CHECKSUMS: integrity.tree_checksums(staging)}
        (staging / integrity.HEADER_FILE).write_bytes(integrity.encode_header(header))
        # The published backtests stay: each records its models' versions and data hash, so
        # a test finds those this fit outdates, and the others need no rerun.
        if (target / BACKTESTS).is_dir():
            shutil.copytree(target / BACKTESTS, staging / BACKTESTS)
        old = target.with_name(f".{target.name}-old")
        shutil.rmtree(old, ignore_errors=True)
        if target.exists():
            target.rename(old)
        staging.rename(target)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def shipped_rows() -> list[dict[str, Any]]:
    """The shipped fit as ``fits list`` rows (none when there is no shipped fit)."""
    header = shipped_header()
    if header is None:
        return []
    return [{"fit_id": header["fit_id"], "status": KIND, "as_of": header.get("as_of"),
             "data_end": header.get("data_end"), "scenarios": sorted(header.get("scenarios", {})),
             "diagnostics": header.get("diagnostics", {}), "run_kind": KIND,
             "created": header.get("created"), "data_hash": header.get("data_hash"),
             "code_version": header.get("code_version")}]


