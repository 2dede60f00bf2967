"""M4 market share: attraction (multinomial-logit) model with partial adjustment.

Model
-----
For vendor v in quarter t, with ``k_v(t)`` its cost per effective PFLOP-hour::

    utility      U_v(t)  = a_v + b * log(1 / k_v(t))
    target       s*(t)   = cap(softmax(U(t)))                       (supply caps, forecast only)
    share        s(t)    = s(t-1) + lambda * (s*(t) - s(t-1)),      s(t0) = softmax(0, z)

- ``b > 0`` (lognormal prior ``price_coefficient``): cheaper effective compute attracts spend;
  b = 1 makes attraction proportional to compute per dollar.
- ``a_v`` is the vendor's ecosystem term (CUDA lock-in for NVIDIA). Only differences of
  utilities matter, so one vendor's ``a`` is fixed at 0 (``reference_vendor``, default
  ``google``: the rival observed longest, 2022Q4 on; with AMD as the reference the other
  ecosystem terms were strongly correlated through AMD's short series and NUTS mixed
  slower); ``a_nvidia`` has the scenario's prior ``ecosystem_nvidia`` and the remaining
  vendors ``ecosystem_other``.
- ``lambda`` in (0, 1) is the share of the gap to the target closed each quarter
  (``adjustment_speed``); a convex combination of two points of the simplex stays on it.
- ``z``: log-ratios of the first fitted quarter's shares to NVIDIA's (``initial_logit``) for
  the vendors observed in that quarter. A vendor with no data in the first quarter (AMD and
  AWS before 2024) starts at its target log-ratio ``U_v(t0) - U_nvidia(t0)``: a free start
  that only later data can see is identified only when lambda is small, a funnel on which
  NUTS diverged.

Likelihood. The data are the additive log-ratios ``y_v(t) = log(D_v / D_nvidia)`` of derived
vendor dollars (:mod:`forecast.economics.cost_paths`), for the vendors observed in each quarter::

    y(t) ~ MvNormal(log s_v(t) - log s_nvidia(t),  Sigma_t + sigma^2 I)

(logistic-normal). ``Sigma_t`` is the Monte Carlo covariance of the share derivation (units x
prices), ``sigma`` (``noise_sigma``) the model error on top of it. Log-ratios of the vendors
present are coherent whatever other vendors are missing, so quarters with partial coverage
count.

Scenario levers at forecast time: ``switching_speed`` multiplies lambda (capped at 1),
``ecosystem_shift`` lowers NVIDIA's ``a`` by that many utility units per year after the last
fitted quarter, ``supply_caps`` caps target shares and redistributes the excess
proportionally to the uncapped vendors (:func:`apply_supply_caps`).

Priors (defaults; override from a scenario's ``[priors.share]``)
-----------------------------------------------------------------
==================  ==========================  ============================================
parameter           default                     why
==================  ==========================  ============================================
price_coefficient   LogNormal(median 1, 0.6)    the scenario's prior; 80% range 0.46-2.2
ecosystem_nvidia    Normal(2, 1)                the scenario's prior: CUDA advantage
ecosystem_other     Normal(0, 2)                other vendors vs the reference: wide
adjustment_speed    Beta(2, 3) per quarter      mean 0.4: spend on new chips moves within a
                                                year, contracts and lock-in slow it
initial_logit       Normal(-2, 2)               vendors start well below NVIDIA (e^-2 = 0.14)
noise_sigma         Gamma(2, 6)                 model error in log-ratio units, mean 0.33;
                                                zero-avoiding: derived shares surely miss
                                                more than the derivation error (a HalfNormal
                                                let NUTS diverge near 0)
==================  ==========================  ============================================

Elasticity of vendor i's target share to vendor j's cost:
``d log s*_i / d log k_j = -b (delta_ij - s*_j)`` (:func:`share_elasticities`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.calendar import quarter_index
from forecast.core.errors import ForecastError
from forecast.core.shortaxis import short_max, short_sum
from forecast.data.hashing import content_digest
from forecast.economics.cost_paths import COST_BASIS, ShareData
from forecast.models.base import (
    DEFAULT_SAMPLER,
    FittedModel,
    count_divergences,
    merge_priors,
    posterior_summary,
    prior,
    run_sampler,
)

__all__ = [
    "DEFAULT_PRIORS",
    "SHARE_SAMPLER",
    "FittedShareModel",
    "ShareModel",
    "apply_supply_caps",
    "build_share_model",
    "elasticities",
    "partial_adjustment",
    "rolling_origin_backtest",
    "share_elasticities",
    "share_paths",
    "simulate_share_data",
    "softmax",
    "target_shares",
]

DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "price_coefficient": {"dist": "lognormal", "median": 1.0, "sigma": 0.6},
    "ecosystem_nvidia": {"dist": "normal", "mu": 2.0, "sigma": 1.0},
    "ecosystem_other": {"dist": "normal", "mu": 0.0, "sigma": 2.0},
    "adjustment_speed": {"dist": "beta", "alpha": 2.0, "beta": 3.0},
    "initial_logit": {"dist": "normal", "mu": -2.0, "sigma": 2.0},
    "noise_sigma": {"dist": "gamma", "alpha": 2.0, "beta": 6.0},
}

#: Default sampler settings of the share model (see the fit report in the README section).
SHARE_SAMPLER: dict[str, Any] = {"nuts_sampler": "nutpie", "draws": 2000, "tune": 1500,
                                 "target_accept": 0.97}
DEFAULT_REFERENCE = "google"
NVIDIA = "nvidia"
SUMMARY_VARS = ["price_coefficient", "ecosystem", "adjustment_speed", "initial_logit",
                "noise_sigma"]


# --------------------------------------------------------------------------- pure math


def softmax(utility: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``."""
    u = np.asarray(utility, dtype=float)
    z = np.exp(u - short_max(u, axis, keepdims=True))
    z /= short_sum(z, axis, keepdims=True)
    return z


def target_shares(ecosystem: np.ndarray, price_coefficient: np.ndarray,
                  log_cost: np.ndarray) -> np.ndarray:
    """Target shares ``softmax(a + b log(1/k))``.

    Parameters
    ----------
    ecosystem
        ``a``, shape ``(..., K)`` or ``(..., T, K)``.
    price_coefficient
        ``b``, shape ``(...)``.
    log_cost
        ``log k``, shape ``(..., T, K)``.

    Returns
    -------
    numpy.ndarray
        ``(..., T, K)`` shares summing to 1 over the last axis.
    """
    a = np.asarray(ecosystem, dtype=float)
    b = np.asarray(price_coefficient, dtype=float)
    lc = np.asarray(log_cost, dtype=float)
    if a.ndim == lc.ndim - 1:
        a = a[..., None, :]
    return softmax(a - b[..., None, None] * lc)


def apply_supply_caps(shares: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Cap shares and hand each excess to the uncapped vendors in proportion to their shares.

    Repeats until no vendor exceeds its cap (a vendor pushed over its own cap by a
    redistribution is capped in the next round).

    Parameters
    ----------
    shares
        ``(..., K)`` shares on the simplex.
    caps
        ``(..., K)`` (broadcastable) maximum shares; ``inf`` (or >= 1) for no cap.

    Returns
    -------
    numpy.ndarray
        Capped shares, still summing to 1.

    Raises
    ------
    ForecastError
        If the caps sum to less than 1 (no allocation can respect them).
    """
    s = np.array(shares, dtype=float, copy=True)
    cap = np.broadcast_to(np.asarray(caps, dtype=float), s.shape)
    if np.any(short_sum(np.minimum(cap, 1.0)) < 1.0 - 1e-12):
        raise ForecastError("supply caps sum to less than 1: no share allocation respects them")
    fixed = np.zeros(s.shape, dtype=bool)
    for _ in range(s.shape[-1]):
        over = (s > cap) & ~fixed
        if not over.any():
            break
        s = np.where(over, cap, s)
        fixed |= over
        excess = 1.0 - short_sum(s, keepdims=True)
        free = np.where(fixed, 0.0, s)
        free_mass = short_sum(free, keepdims=True)
        # Proportional hand-out; if the free vendors hold nothing, share it equally among them.
        n_free = short_sum((~fixed).astype(np.int64), keepdims=True)
        weights = np.where(free_mass > 0, free / np.where(free_mass > 0, free_mass, 1.0),
                           np.where(fixed, 0.0, 1.0) / np.maximum(n_free, 1))
        s = s + excess * weights
    return s


def partial_adjustment(start: np.ndarray, targets: np.ndarray,
                       speed: np.ndarray) -> np.ndarray:
    """Shares ``s(t) = s(t-1) + lambda (s*(t) - s(t-1))`` from ``s(-1) = start``.

    Parameters
    ----------
    start
        ``(..., K)`` shares before the first target quarter.
    targets
        ``(..., T, K)`` target shares.
    speed
        ``lambda``, shape ``(...)``, in [0, 1].

    Returns
    -------
    numpy.ndarray
        ``(..., T, K)`` share paths (on the simplex when start and targets are).
    """
    lam = np.asarray(speed, dtype=float)[..., None]
    current = np.asarray(start, dtype=float)
    tgt = np.asarray(targets, dtype=float)
    out = np.empty(np.broadcast_shapes(tgt.shape, current[..., None, :].shape))
    for t in range(tgt.shape[-2]):
        current = current + lam * (tgt[..., t, :] - current)
        out[..., t, :] = current
    return out


def share_paths(
    ecosystem: np.ndarray,
    price_coefficient: np.ndarray,
    speed: np.ndarray,
    start: np.ndarray,
    log_cost: np.ndarray,
    caps: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Target and realised share paths (draws x quarters x vendors).

    ``ecosystem`` may vary by quarter (``(..., T, K)``) to carry an ecosystem shift; ``caps``
    (``(..., K)`` or ``(..., T, K)``) cap the targets. Returns ``(targets, shares)``.
    """
    targets = target_shares(ecosystem, price_coefficient, log_cost)
    if caps is not None:
        targets = apply_supply_caps(targets, caps)
    return targets, partial_adjustment(start, targets, speed)


def share_elasticities(price_coefficient: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """``E[..., i, j] = d log s*_i / d log k_j = -b (delta_ij - s_j)``.

    ``price_coefficient`` has shape ``(...)``, ``shares`` ``(..., K)``; returns ``(..., K, K)``.
    """
    b = np.asarray(price_coefficient, dtype=float)[..., None, None]
    s = np.asarray(shares, dtype=float)
    eye = np.eye(s.shape[-1])
    return -b * (eye - s[..., None, :])


# --------------------------------------------------------------------------- PyMC builder


def _observation_layout(data: ShareData) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray, np.ndarray]:
    """Flattened observed log-ratios and the eigen-decomposition of their covariance.

    Returns quarter index, vendor index (1..K-1), values, and ``rotation``, ``eigenvalues``
    with ``cov = rotation @ diag(eigenvalues) @ rotation.T`` (block diagonal by quarter).
    Since ``cov + sigma^2 I = rotation @ diag(eigenvalues + sigma^2) @ rotation.T``, the
    likelihood is a product of independent normals of the rotated residuals: no Cholesky
    factorisation inside the sampler.
    """
    t_idx, v_idx = np.nonzero(data.observed[:, 1:])
    values = data.alr_mean[t_idx, v_idx]
    if not np.all(np.isfinite(values)):
        raise ForecastError("observed log-ratios are not finite")
    n = len(values)
    rotation = np.zeros((n, n))
    eigenvalues = np.zeros(n)
    for t in np.unique(t_idx):
        rows = np.flatnonzero(t_idx == t)
        block = data.alr_cov[t][np.ix_(v_idx[rows], v_idx[rows])]
        if not np.all(np.isfinite(block)):
            raise ForecastError(f"log-ratio covariance of quarter {data.quarters[t]} is not "
                                "finite")
        lam, vec = np.linalg.eigh(block)
        rotation[np.ix_(rows, rows)] = vec
        eigenvalues[rows] = np.maximum(lam, 0.0)
    return t_idx, v_idx + 1, values, rotation, eigenvalues


def centred_log_cost(data: ShareData) -> np.ndarray:
    """The cost covariate less its overall mean: centring changes no share (softmax ignores
    a common shift) but keeps utilities near 0."""
    return data.log_cost - data.log_cost.mean()


def build_share_model(data: ShareData, priors: Mapping[str, Mapping[str, Any]],
                      reference_vendor: str = DEFAULT_REFERENCE) -> Any:
    """The PyMC model of the module docstring for ``data`` and complete ``priors``."""
    import pymc as pm
    import pytensor.tensor as pt

    vendors = list(data.vendors)
    if vendors[0] != NVIDIA or reference_vendor not in vendors or reference_vendor == NVIDIA:
        raise ForecastError(f"vendors must start with {NVIDIA!r} and include the reference "
                            f"vendor {reference_vendor!r} (not NVIDIA); got {vendors}")
    others = [v for v in vendors if v not in (NVIDIA, reference_vendor)]
    t_idx, v_idx, values, rotation, eigenvalues = _observation_layout(data)
    log_cost = centred_log_cost(data)
    start_vendors = [v for k, v in enumerate(vendors[1:], start=1) if data.observed[0, k]]
    if not start_vendors:
        raise ForecastError("no rival of NVIDIA is observed in the first fitted quarter")
    coords = {"vendor": vendors, "other_vendor": others, "start_vendor": start_vendors,
              "quarter": list(data.quarters), "obs": np.arange(len(values))}
    with pm.Model(coords=coords) as model:
        b = prior("price_coefficient", priors["price_coefficient"])
        a_nvidia = prior("ecosystem_nvidia", priors["ecosystem_nvidia"])
        a_other = prior("ecosystem_other", priors["ecosystem_other"], dims="other_vendor")
        parts = []
        for vendor in vendors:
            if vendor == NVIDIA:
                parts.append(a_nvidia)
            elif vendor == reference_vendor:
                parts.append(pt.constant(0.0))
            else:
                parts.append(a_other[others.index(vendor)])
        a = pm.Deterministic("ecosystem", pt.stack(parts), dims="vendor")
        lam = prior("adjustment_speed", priors["adjustment_speed"])
        sigma = prior("noise_sigma", priors["noise_sigma"])
        # Costs depend on the scenario's cost assumptions, the rest of the data does not:
        # as pm.Data they let scenarios share one compiled sampler.
        cost = pm.Data("log_cost_centred", log_cost)
        utility = a[None, :] - b * cost
        target = pt.special.softmax(utility, axis=1)
        seen = [v for k, v in enumerate(vendors[1:], start=1) if data.observed[0, k]]
        z_free = prior("initial_logit", priors["initial_logit"], dims="start_vendor")
        z_parts = []
        for k, vendor in enumerate(vendors[1:], start=1):
            if vendor in seen:
                z_parts.append(z_free[seen.index(vendor)])
            else:
                z_parts.append(utility[0, k] - utility[0, 0])
        current = pt.special.softmax(pt.concatenate([pt.zeros(1), pt.stack(z_parts)]))
        rows = [current]
        for t in range(1, len(data.quarters)):
            current = current + lam * (target[t] - current)
            rows.append(current)
        shares = pt.stack(rows)
        pm.Deterministic("target_share", target, dims=("quarter", "vendor"))
        pm.Deterministic("share", shares, dims=("quarter", "vendor"))
        log_shares = pt.log(shares)
        mu = log_shares[t_idx, v_idx] - log_shares[t_idx, 0]
        # MvNormal(mu, Sigma + sigma^2 I) written in Sigma's eigenbasis (see above).
        pm.Normal("log_ratio_rotated", mu=pt.dot(rotation.T, mu),
                  sigma=pt.sqrt(eigenvalues + sigma**2), observed=rotation.T @ values,
                  dims="obs")
    return model


# --------------------------------------------------------------------------- model classes


class ShareModel:
    """Configuration of the share model; :meth:`fit` returns a :class:`FittedShareModel`.

    Parameters
    ----------
    priors
        Overrides of :data:`DEFAULT_PRIORS` (e.g. ``scenario.priors["share"]``).
    sampler
        Overrides of the sampler settings.
    reference_vendor
        The vendor whose ecosystem term is fixed at 0 (default ``google``).
    """

    name = "share"

    def __init__(self, priors: Mapping[str, Any] | None = None,
                 sampler: Mapping[str, Any] | None = None,
                 reference_vendor: str = DEFAULT_REFERENCE):
        self.priors = merge_priors(DEFAULT_PRIORS, priors, self.name)
        self.sampler = {**DEFAULT_SAMPLER, **SHARE_SAMPLER, **(sampler or {})}
        self.reference_vendor = reference_vendor

    def fit(self, data: ShareData, **sampler: Any) -> FittedShareModel:
        """Fit to prepared :class:`~forecast.economics.cost_paths.ShareData` (see
        :func:`forecast.economics.cost_paths.share_inputs`); keyword arguments override sampler
        settings."""
        settings = {**self.sampler, **sampler}
        if data.n_observations < 3 or len(data.quarters) < 3:
            raise ForecastError(f"share model: {data.n_observations} observed log-ratios over "
                                f"{len(data.quarters)} quarters; need at least 3 of each")
        model = build_share_model(data, self.priors, self.reference_vendor)
        # Same structure, same compiled sampler: scenarios differ only in the (centred) log
        # costs, which are swapped in as data; a warm refit skips the compile too.
        structure = {name: getattr(data, name) for name in ("quarters", "vendors", "alr_mean",
                                                           "alr_cov", "observed")}
        key = "share-" + content_digest({"data": structure, "priors": self.priors,
                                         "reference": self.reference_vendor,
                                         "version": FittedShareModel.model_version})
        idata, seconds = run_sampler(model, settings, cache_key=key,
                                     data={"log_cost_centred": centred_log_cost(data)})
        summary = posterior_summary(idata, SUMMARY_VARS)
        # The reference vendor's ecosystem term is the constant 0: r_hat is undefined there.
        summary = summary[summary["parameter"] != f"ecosystem[{self.reference_vendor}]"]
        summary = summary.reset_index(drop=True)
        meta = {
            "divergences": count_divergences(idata),
            "fit_seconds": round(seconds, 2),
            "quarters": list(data.quarters),
            "vendors": list(data.vendors),
            "reference_vendor": self.reference_vendor,
            "n_observations": data.n_observations,
            "cost_basis": data.cost_basis,
        }
        keep = ["price_coefficient", "ecosystem", "adjustment_speed", "initial_logit",
                "noise_sigma", "share", "target_share"]
        return FittedShareModel(
            posterior=idata.posterior[keep],
            data={"observations": data.to_frame()},
            config={"priors": self.priors, "sampler": settings,
                    "reference_vendor": self.reference_vendor},
            summary_table=summary,
            meta=meta,
        )


def _per_draw(value: Any, draws: int, name: str) -> np.ndarray:
    """A scalar or a ``(draws,)`` array as a ``(draws,)`` float array."""
    array = np.asarray(value, dtype=float)
    if array.ndim == 0:
        return np.full(draws, float(array))
    if array.shape != (draws,):
        raise ForecastError(f"{name} must be a scalar or have shape ({draws},), got "
                            f"{array.shape}")
    return array


class FittedShareModel(FittedModel):
    """A fitted share model: posterior, data, diagnostics, share forecasts."""

    model_name: ClassVar[str] = "share"
    model_version: ClassVar[str] = "1"

    @property
    def vendors(self) -> list[str]:
        """Vendors in model order."""
        return [str(v) for v in self.posterior["vendor"].values]

    @property
    def quarters(self) -> list[str]:
        """Fitted quarters."""
        return list(self.meta["quarters"])

    def fitted_shares(self) -> pd.DataFrame:
        """Posterior latent shares per fitted quarter: median, p10, p90 (tidy)."""
        share = self.stacked("share")  # (samples, T, K)
        quarters, vendors = self.quarters, self.vendors
        # Along the sample axis at once: per (quarter, vendor) the same numbers as one call
        # each, in a fraction of the time.
        return pd.DataFrame({
            "quarter": np.repeat(np.asarray(quarters, dtype=object), len(vendors)),
            "vendor": np.tile(np.asarray(vendors, dtype=object), len(quarters)),
            "median": np.median(share, axis=0).reshape(-1),
            "p10": np.quantile(share, 0.1, axis=0).reshape(-1),
            "p90": np.quantile(share, 0.9, axis=0).reshape(-1),
        })

    def forecast(
        self,
        cost_paths: xr.DataArray | np.ndarray,
        draws: int = 1000,
        seed: int = 0,
        supply_caps: Mapping[str, Any] | None = None,
        ecosystem_shift: Any = None,
        switching_speed: Any = None,
        start_shares: Any = None,
        *,
        quarters: Sequence[str] | None = None,
        vendors: Sequence[str] | None = None,
        other_share: Any = None,
        noise: bool = False,
    ) -> xr.Dataset:
        """Sample paths of vendor shares of accelerator spend.

        Parameters
        ----------
        cost_paths
            Cost per effective PFLOP-hour, ``(draw, quarter, vendor)``, on the fit's cost basis
            (``meta["cost_basis"]``; e.g.
            :func:`forecast.economics.cost_paths.scenario_cost_paths`). An xarray DataArray
            carries its quarter and vendor labels; a numpy array needs ``quarters`` and
            ``vendors``. Its draw axis has length 1 or ``draws``.
        draws, seed
            Number of paths and the seed (posterior draws are resampled with replacement).
        supply_caps
            vendor -> maximum share (scalar or ``(draws,)``), e.g.
            ``{"aws": inputs["aws_supply_cap_share"]}``; applied to target shares.
        ecosystem_shift
            Utility units per year by which NVIDIA's ecosystem term falls after the last
            fitted quarter (scalar or ``(draws,)``; scenario ``ecosystem_shift_per_year``).
        switching_speed
            Multiplier of the adjustment speed (scalar or ``(draws,)``; scenario
            ``switching_speed_multiplier``); the product is capped at 1.
        start_shares
            Shares in the quarter before the first forecast quarter: a vendor -> share
            mapping, a ``(K,)`` or ``(draws, K)`` array. Default: the fitted latent shares of
            the last fitted quarter (then the forecast must start the quarter after it).
        quarters, vendors
            Labels for a numpy ``cost_paths``.
        other_share
            Share of spend of vendors outside the model (Intel, Meta, Microsoft silicon; no
            unit data): scalar or ``(draws,)``. When given, the modelled shares are scaled by
            ``1 - other_share`` and an ``other`` vendor is added.
        noise
            Add the fitted model error (``noise_sigma``, logistic-normal) to each quarter:
            the predictive distribution of a *derived* share rather than the latent share.

        Returns
        -------
        xarray.Dataset
            ``share`` and ``target_share`` ``(draw, quarter, vendor)``, fractions of spend.
        """
        if draws <= 0:
            raise ForecastError(f"draws must be > 0, got {draws}")
        rng = np.random.default_rng(seed)
        fitted_vendors = self.vendors
        cost, labels = self._align_costs(cost_paths, draws, quarters, vendors)
        numbers = [quarter_index(q) for q in labels]
        if any(b - a != 1 for a, b in zip(numbers, numbers[1:], strict=False)):
            raise ForecastError("forecast quarters must be consecutive")
        last_fitted = quarter_index(self.quarters[-1])
        pick = rng.integers(0, self.n_samples, size=draws)
        b = self.stacked("price_coefficient", pick)
        a = self.stacked("ecosystem", pick)
        lam = self.stacked("adjustment_speed", pick)
        if switching_speed is not None:
            lam = np.minimum(lam * _per_draw(switching_speed, draws, "switching_speed"), 1.0)
        start = self._start(start_shares, pick, draws, numbers[0], last_fitted)
        years = (np.array(numbers) - last_fitted) / 4.0
        a_path = np.repeat(a[:, None, :], len(labels), axis=1)
        if ecosystem_shift is not None:
            shift = _per_draw(ecosystem_shift, draws, "ecosystem_shift")
            a_path[:, :, fitted_vendors.index(NVIDIA)] -= shift[:, None] * years[None, :]
        caps = None
        if supply_caps:
            unknown = sorted(set(supply_caps) - set(fitted_vendors))
            if unknown:
                raise ForecastError(f"supply caps for unknown vendors: {unknown}")
            caps = np.full((draws, len(fitted_vendors)), np.inf)
            for vendor, value in supply_caps.items():
                caps[:, fitted_vendors.index(vendor)] = _per_draw(value, draws, "supply cap")
            caps = caps[:, None, :]
        targets, shares = share_paths(a_path, b, lam, start, np.log(cost), caps)
        if noise:
            sigma = self.stacked("noise_sigma", pick)
            eps = rng.standard_normal(shares.shape[:-1] + (len(fitted_vendors) - 1,))
            logs = np.log(shares)
            alr = logs[..., 1:] - logs[..., :1] + sigma[:, None, None] * eps
            shares = softmax(np.concatenate([np.zeros(alr.shape[:-1] + (1,)), alr], axis=-1))
        out_vendors = list(fitted_vendors)
        if other_share is not None:
            other = _per_draw(other_share, draws, "other_share")
            if np.any((other < 0) | (other >= 1)):
                raise ForecastError("other_share must be in [0, 1)")
            scale = (1.0 - other)[:, None, None]
            extra = np.broadcast_to(other[:, None, None], shares.shape[:-1] + (1,))
            shares = np.concatenate([shares * scale, extra], axis=-1)
            targets = np.concatenate([targets * scale, extra], axis=-1)
            out_vendors.append("other")
        coords = {"draw": np.arange(draws), "quarter": labels, "vendor": out_vendors}
        result = xr.Dataset({"share": (("draw", "quarter", "vendor"), shares),
                             "target_share": (("draw", "quarter", "vendor"), targets)},
                            coords=coords)
        result["share"].attrs["unit"] = "fraction of accelerator spend"
        return result

    def _align_costs(self, cost_paths: Any, draws: int, quarters: Sequence[str] | None,
                     vendors: Sequence[str] | None) -> tuple[np.ndarray, list[str]]:
        if isinstance(cost_paths, xr.DataArray):
            missing = sorted(set(self.vendors) - {str(v) for v in cost_paths["vendor"].values})
            if missing:
                raise ForecastError(f"cost_paths lack vendors {missing}")
            ordered = cost_paths.sel(vendor=self.vendors).transpose("draw", "quarter", "vendor")
            values = ordered.values.astype(float)
            labels = [str(q) for q in ordered["quarter"].values]
        else:
            values = np.asarray(cost_paths, dtype=float)
            if quarters is None or vendors is None:
                raise ForecastError("a numpy cost_paths needs quarters= and vendors=")
            if values.ndim != 3 or values.shape[1:] != (len(quarters), len(vendors)):
                raise ForecastError(f"cost_paths must have shape (draw, {len(quarters)}, "
                                    f"{len(vendors)}), got {values.shape}")
            missing = sorted(set(self.vendors) - set(vendors))
            if missing:
                raise ForecastError(f"cost_paths lack vendors {missing}")
            values = values[:, :, [list(vendors).index(v) for v in self.vendors]]
            labels = [str(pd.Period(q, freq="Q")) for q in quarters]
        if values.shape[0] not in (1, draws):
            raise ForecastError(f"cost_paths has {values.shape[0]} draws; need 1 or {draws}")
        if not np.all(np.isfinite(values) & (values > 0)):
            raise ForecastError("cost_paths must be finite and > 0 for every vendor and quarter")
        return np.broadcast_to(values, (draws,) + values.shape[1:]), labels

    def _start(self, start_shares: Any, pick: np.ndarray, draws: int, first: int,
               last_fitted: int) -> np.ndarray:
        k = len(self.vendors)
        if start_shares is None:
            if first != last_fitted + 1:
                raise ForecastError(f"forecast must start in the quarter after the last fitted "
                                    f"one ({self.quarters[-1]}) unless start_shares is given")
            return self.stacked("share", pick)[:, -1, :]
        if isinstance(start_shares, Mapping):
            start = np.array([float(start_shares[v]) for v in self.vendors])
        else:
            start = np.asarray(start_shares, dtype=float)
        start = np.broadcast_to(start, (draws, k)) if start.shape in ((k,), (draws, k)) else None
        if start is None:
            raise ForecastError(f"start_shares must have shape ({k},) or ({draws}, {k})")
        if np.any(start < 0) or not np.allclose(start.sum(axis=-1), 1.0, atol=1e-6):
            raise ForecastError("start_shares must be non-negative and sum to 1")
        return start


# --------------------------------------------------------------------------- elasticities


def elasticities(fitted: FittedShareModel, shares: Any = None) -> pd.DataFrame:
    """Own- and cross-elasticities of target shares to cost per effective PFLOP-hour.

    ``d log s*_i / d log k_j = -b (delta_ij - s_j)`` for every posterior draw of ``b``.

    Parameters
    ----------
    fitted
        A fitted share model.
    shares
        Where to evaluate: a vendor -> share mapping or a ``(K,)`` array (fixed), or None for
        the posterior target shares of the last fitted quarter (draw by draw).

    Returns
    -------
    pandas.DataFrame
        Columns ``vendor_i, vendor_j, median, p10, p90``.
    """
    vendors = fitted.vendors
    b = fitted.stacked("price_coefficient")
    if shares is None:
        s = fitted.stacked("target_share")[:, -1, :]
    else:
        values = ([float(shares[v]) for v in vendors] if isinstance(shares, Mapping)
                  else np.asarray(shares, dtype=float))
        s = np.broadcast_to(np.asarray(values, dtype=float), (len(b), len(vendors)))
    e = share_elasticities(b, s)
    rows = []
    for i, vi in enumerate(vendors):
        for j, vj in enumerate(vendors):
            values = e[:, i, j]
            rows.append({"vendor_i": vi, "vendor_j": vj, "median": float(np.median(values)),
                         "p10": float(np.quantile(values, 0.1)),
                         "p90": float(np.quantile(values, 0.9))})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- simulation


def simulate_share_data(
    quarters: Sequence[str],
    vendors: Sequence[str],
    log_cost: np.ndarray,
    price_coefficient: float,
    ecosystem: Sequence[float],
    adjustment_speed: float,
    initial_logit: Sequence[float],
    noise_sigma: float,
    measurement_sd: float,
    seed: int = 0,
) -> ShareData:
    """Share data simulated from the model's own math (every vendor observed every quarter).

    The observed log-ratios are the model's latent log-ratios plus Normal noise with sd
    ``sqrt(measurement_sd**2 + noise_sigma**2)``; the stored covariance is
    ``measurement_sd**2 I`` (the derivation part the model is told about).
    """
    rng = np.random.default_rng(seed)
    k = len(vendors)
    targets = target_shares(np.asarray(ecosystem, float), np.asarray(price_coefficient),
                            np.asarray(log_cost, float))
    start = softmax(np.concatenate([[0.0], np.asarray(initial_logit, float)]))
    rest = partial_adjustment(start, targets[1:], np.asarray(adjustment_speed))
    shares = np.vstack([start[None, :], rest])
    alr = np.log(shares[:, 1:]) - np.log(shares[:, :1])
    sd = np.hypot(measurement_sd, noise_sigma)
    observed_alr = alr + sd * rng.standard_normal(alr.shape)
    t = len(quarters)
    cov = np.broadcast_to(measurement_sd**2 * np.eye(k - 1), (t, k - 1, k - 1)).copy()
    return ShareData(tuple(quarters), tuple(vendors), observed_alr, cov,
                     np.ones((t, k), dtype=bool), np.asarray(log_cost, float), COST_BASIS)


# --------------------------------------------------------------------------- backtest


def rolling_origin_backtest(
    data: ShareData,
    origins: Sequence[str],
    horizon: int = 4,
    priors: Mapping[str, Any] | None = None,
    sampler: Mapping[str, Any] | None = None,
    draws: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """Rolling-origin backtest of the share model against a constant-share naive forecast.

    For each origin the model is fitted on quarters up to the origin and forecasts the next
    ``horizon`` quarters given the *realised* costs (a conditional forecast: costs are an
    input of the share model). The naive forecast keeps the origin's derived log-ratio, with
    the origin's derivation covariance plus a random-walk variance growing with the horizon
    (the variance of quarter-to-quarter log-ratio changes seen up to the origin). Both are
    scored on the derived log-ratios to NVIDIA of the held-out quarters.

    Returns
    -------
    pandas.DataFrame
        One row per (origin, quarter, vendor, method): ``horizon``, ``observed``, ``median``,
        ``crps``, ``log_score`` (Gaussian-approximation log density of the observation under
        the samples' mean and sd plus the observation's derivation variance) and
        ``covered80``.
    """
    from forecast.evaluation.scoring import crps_samples

    labels = list(data.quarters)
    rng = np.random.default_rng(seed)
    rows = []
    for origin in origins:
        o = labels.index(origin)
        train = data.window(last=origin)
        test_idx = list(range(o + 1, min(o + 1 + horizon, len(labels))))
        if not test_idx:
            continue
        fitted = ShareModel(priors, sampler).fit(train)
        cost = np.exp(data.log_cost[test_idx])[None]
        fc = fitted.forecast(cost, draws=draws, seed=seed, quarters=[labels[i] for i in test_idx],
                             vendors=list(data.vendors), noise=True)
        share = fc["share"].values
        model_alr = np.log(share[..., 1:]) - np.log(share[..., :1])
        for h, t in enumerate(test_idx, start=1):
            for v in range(1, len(data.vendors)):
                if not data.observed[t, v]:
                    continue
                y = data.alr_mean[t, v - 1]
                y_var = data.alr_cov[t, v - 1, v - 1]
                # Naive: the last quarter up to the origin in which this vendor was observed.
                past = [i for i in range(o + 1) if data.observed[i, v]]
                if not past:
                    continue
                last = past[-1]
                diffs = np.diff(data.alr_mean[past, v - 1])
                rw_var = float(np.var(diffs, ddof=1)) if len(diffs) >= 2 else 0.0
                steps = t - last
                naive_sd = np.sqrt(data.alr_cov[last, v - 1, v - 1] + steps * rw_var)
                naive = data.alr_mean[last, v - 1] + naive_sd * rng.standard_normal(draws)
                for method, samples in (("share_model", model_alr[:, h - 1, v - 1]),
                                        ("constant_share", naive)):
                    lo, hi = np.quantile(samples, [0.1, 0.9])
                    sd = np.sqrt(np.var(samples) + y_var)
                    log_score = float(-0.5 * np.log(2 * np.pi * sd**2)
                                      - 0.5 * ((y - samples.mean()) / sd) ** 2)
                    rows.append({"origin": origin, "quarter": labels[t], "horizon": h,
                                 "vendor": data.vendors[v], "method": method, "observed": y,
                                 "median": float(np.median(samples)),
                                 "crps": float(crps_samples(samples, y)),
                                 "log_score": log_score, "covered80": bool(lo <= y <= hi)})
    return pd.DataFrame(rows)
