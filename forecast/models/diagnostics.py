"""Convergence and fit diagnostics: summaries, the gate, predictive coverage (plain and
leave-one-out) and PSIS-LOO.

The gate covers every summary parameter *and* the last value of every latent state a
forecast starts from (a forecast from an unconverged state is as wrong as one from an
unconverged parameter). Constant quantities (a reference level fixed at zero) have no
r_hat; they are left out of the table rather than reported as NaN.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

#: Default convergence gate (docs/DESIGN.md section 6).
DEFAULT_GATE = {"max_r_hat": 1.01, "min_ess_bulk": 400.0, "max_divergences": 0}


def state_posterior(posterior: xr.Dataset, states: Mapping[str, str]) -> xr.Dataset:
    """The last value along its time dim of each latent state, named ``state@LABEL``.

    ``states`` maps a posterior variable to its time dimension (e.g. ``{"cycle": "quarter"}``).
    """
    picked = {}
    for name, dim in states.items():
        if name not in posterior:
            continue
        values = posterior[name]
        label = str(values[dim].values[-1]) if dim in values.coords else "last"
        picked[f"{name}@{label}"] = values.isel({dim: -1}, drop=True)
    return xr.Dataset(picked)


def posterior_summary(idata: Any, var_names: Sequence[str],
                      states: Mapping[str, str] | None = None) -> pd.DataFrame:
    """ArviZ summary (mean, sd, 90% HDI, r_hat, ESS), one row per scalar.

    Rows: ``var_names`` (those present), then the last value of each ``states`` variable
    (see :func:`state_posterior`). Constant rows (sd 0) are dropped: they have no r_hat.
    """
    import arviz as az

    posterior = idata.posterior if hasattr(idata, "posterior") else idata
    present = [name for name in var_names if name in posterior]
    table = xr.merge([posterior[present], state_posterior(posterior, states or {})])
    with warnings.catch_warnings():
        # Diagnostics of a constant slice divide by zero; those rows are dropped below.
        warnings.simplefilter("ignore", RuntimeWarning)
        summary = az.summary(table, hdi_prob=0.9, round_to="none")
    summary = summary[summary["sd"] > 0]
    return summary.rename_axis("parameter").reset_index()


def count_divergences(idata: Any) -> int:
    """Number of divergent transitions over all chains (0 when the sampler stores none)."""
    stats = getattr(idata, "sample_stats", None)
    if stats is None or "diverging" not in stats:
        return 0
    return int(stats["diverging"].values.sum())


def gate_values(summary: pd.DataFrame, divergences: int) -> dict[str, Any]:
    """max r_hat, min bulk/tail ESS and divergences of a summary table.

    A missing r_hat or ESS (NaN) counts as a failure, never as a pass.
    """
    def worst(column: str, pick: str) -> float:
        values = summary[column].to_numpy(float)
        if values.size == 0:
            return float("nan")
        if np.isnan(values).any():
            return float("inf") if pick == "max" else float("nan")
        return float(values.max() if pick == "max" else values.min())

    return {"max_r_hat": worst("r_hat", "max"), "min_ess_bulk": worst("ess_bulk", "min"),
            "min_ess_tail": worst("ess_tail", "min"), "divergences": int(divergences)}


def check_gate(
    diagnostics: Mapping[str, Any], gate: Mapping[str, float] | None = None
) -> list[str]:
    """Reasons a fit fails the convergence gate; empty when it passes."""
    gate = {**DEFAULT_GATE, **(gate or {})}
    reasons = []
    if not diagnostics["max_r_hat"] <= gate["max_r_hat"]:
        reasons.append(f"max r_hat {diagnostics['max_r_hat']:.3f} > {gate['max_r_hat']}")
    if not diagnostics["min_ess_bulk"] >= gate["min_ess_bulk"]:
        reasons.append(
            f"min bulk ESS {diagnostics['min_ess_bulk']:.0f} < {gate['min_ess_bulk']:.0f}"
        )
    if diagnostics["divergences"] > gate["max_divergences"]:
        reasons.append(f"{diagnostics['divergences']} divergences")
    return reasons


# --------------------------------------------------------------------------- predictive checks


def predictive_coverage(observed: xr.Dataset, predictive: xr.Dataset,
                        levels: Sequence[float] = (0.5, 0.8, 0.9)) -> pd.DataFrame:
    """Share of observations inside the central predictive intervals, per observed variable.

    ``predictive`` has ``chain`` and ``draw`` dims plus the observed variable's own dims.
    Returns one row per variable (and ``all`` pooled): n and ``coverage_50``, ``coverage_80``,
    ``coverage_90``.
    """
    rows, pooled = [], {level: [] for level in levels}
    for name in observed.data_vars:
        if name not in predictive:
            continue
        actual = np.asarray(observed[name].values).reshape(-1)
        draws = _by_sample(predictive[name], actual.size)
        row: dict[str, Any] = {"variable": str(name), "n": int(actual.size)}
        for level in levels:
            low, high = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2], axis=0)
            inside = (actual >= low) & (actual <= high)
            row[f"coverage_{round(level * 100)}"] = float(inside.mean())
            pooled[level].append(inside.reshape(-1))
        rows.append(row)
    if rows:
        total = {"variable": "all", "n": int(sum(row["n"] for row in rows))}
        for level in levels:
            total[f"coverage_{round(level * 100)}"] = float(np.concatenate(pooled[level]).mean())
        rows.append(total)
    return pd.DataFrame(rows)


def loo_pit(log_likelihood: np.ndarray, predictive: np.ndarray, actual: np.ndarray,
            seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Leave-one-out PIT of each observation, by Pareto-smoothed importance sampling.

    The plain posterior predictive uses each observation twice (it shaped the posterior it
    is checked against), so a model with a latent state per quarter covers its own data
    whatever its calibration. Weighting each posterior sample by ``1 / p(y_i | sample)``
    gives the predictive of ``y_i`` from the other observations instead.

    ``log_likelihood`` and ``predictive`` (sample, observation), ``actual`` (observation,).
    Returns the PIT of each observation and its Pareto k (above 0.7 the weights are too
    heavy-tailed for the estimate to be trusted). A predictive that puts mass on the
    observed value itself (a count, a yes/no) gets the randomised PIT, uniform within that
    mass (seeded by ``seed``), so that a calibrated discrete variable is judged like a
    continuous one.
    """
    import arviz as az

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # k > 0.7 is returned, not warned
        log_weights, k = az.psislw(-np.asarray(log_likelihood, dtype=float).T)
    weights = np.exp(log_weights - log_weights.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    replicates, observed = np.asarray(predictive).T, np.asarray(actual, dtype=float)[:, None]
    below = (weights * (replicates < observed)).sum(axis=1)
    tied = (weights * (replicates == observed)).sum(axis=1)
    uniform = np.random.default_rng(seed).uniform(size=below.shape)
    return below + uniform * tied, np.asarray(k, dtype=float)


def loo_coverage(observed: xr.Dataset, predictive: xr.Dataset, log_likelihood: xr.Dataset,
                 levels: Sequence[float] = (0.5, 0.8, 0.9)) -> pd.DataFrame:
    """Share of observations inside the central leave-one-out predictive intervals
    (:func:`loo_pit`), per observed variable and pooled (``all``), with the number of
    observations whose Pareto k is above 0.7 (``loo_k_above_0_7``).

    Columns ``variable``, ``loo_coverage_50`` ... (one per level) and ``loo_k_above_0_7``:
    the rows of :func:`predictive_coverage`, on the predictive without the observation.
    """
    rows, pooled = [], []
    for name in observed.data_vars:
        if name not in predictive or name not in log_likelihood:
            continue
        actual = np.asarray(observed[name].values).reshape(-1)
        pit, k = loo_pit(_by_sample(log_likelihood[name], actual.size),
                         _by_sample(predictive[name], actual.size), actual)
        rows.append(_pit_row(str(name), pit, k, levels))
        pooled.append((pit, k))
    if rows:
        rows.append(_pit_row("all", np.concatenate([p for p, _ in pooled]),
                             np.concatenate([k for _, k in pooled]), levels))
    return pd.DataFrame(rows)


def _by_sample(values: xr.DataArray, size: int) -> np.ndarray:
    """(sample, observation) values of a variable with ``chain`` and ``draw`` dims."""
    return values.stack(sample=("chain", "draw")).transpose("sample", ...).values.reshape(-1, size)


def _pit_row(name: str, pit: np.ndarray, k: np.ndarray, levels: Sequence[float]
             ) -> dict[str, Any]:
    row: dict[str, Any] = {"variable": name}
    for level in levels:
        inside = (pit >= (1 - level) / 2) & (pit <= (1 + level) / 2)
        row[f"loo_coverage_{round(level * 100)}"] = float(inside.mean())
    row["loo_k_above_0_7"] = int((k > 0.7).sum())
    return row


def pooled_log_likelihood(idata: Any) -> Any:
    """The InferenceData with every observed variable's pointwise log likelihood joined into
    one variable ``obs`` (PSIS-LOO over all observations of the model)."""
    import arviz as az

    group = idata.log_likelihood
    parts = [group[name].stack(point=[d for d in group[name].dims
                                      if d not in ("chain", "draw")] or [])
             if len(group[name].dims) > 2 else group[name].expand_dims(point=1)
             for name in group.data_vars]
    flat = [part.drop_vars([c for c in part.coords if c not in ("chain", "draw")])
            .transpose("chain", "draw", "point") for part in parts]
    joined = xr.concat(flat, dim="point")
    joined = joined.assign_coords(point=np.arange(joined.sizes["point"]))
    return az.InferenceData(posterior=idata.posterior,
                            log_likelihood=xr.Dataset({"obs": joined}))


def loo_report(idata: Any) -> dict[str, Any]:
    """PSIS-LOO over all observations: elpd, its standard error, p_loo and Pareto k counts."""
    import arviz as az

    with warnings.catch_warnings():
        # ArviZ warns when some k > 0.7; the counts below report it instead.
        warnings.simplefilter("ignore", UserWarning)
        loo = az.loo(pooled_log_likelihood(idata), pointwise=True)
    k = np.asarray(loo.pareto_k.values)
    return {
        "elpd_loo": float(loo.elpd_loo), "se": float(loo.se), "p_loo": float(loo.p_loo),
        "n": int(k.size),
        "pareto_k_good": int((k <= 0.5).sum()),
        "pareto_k_ok": int(((k > 0.5) & (k <= 0.7)).sum()),
        "pareto_k_bad": int(((k > 0.7) & (k <= 1.0)).sum()),
        "pareto_k_very_bad": int((k > 1.0).sum()),
        "max_pareto_k": float(k.max()) if k.size else float("nan"),
    }
