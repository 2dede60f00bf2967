"""The fitted share model: latent shares of the fitted quarters and share forecasts.

Numpy, pandas and xarray only: forecasting from a stored fit never imports PyMC.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.calendar import (
    period_index,
    quarter_index,
    quarter_label,
    quarter_labels,
    quarters_from,
)
from forecast.core.errors import ForecastError
from forecast.models.fitted import Fitted
from forecast.models.share.data import NVIDIA
from forecast.models.share.math import additive_log_ratios, from_log_ratios, share_paths


class FittedShareModel(Fitted):
    """A fitted share model: posterior, data, diagnostics, share forecasts."""

    model_name: ClassVar[str] = "share"
    model_version: ClassVar[str] = "2"

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
        quarters: int | Sequence[str] | None = None,
        draws: int | None = None,
        seed: int = 0,
        *,
        cost_paths: xr.DataArray | np.ndarray,
        supply_caps: Mapping[str, Any] | None = None,
        ecosystem_shift: Any = None,
        switching_speed: Any = None,
        start_shares: Any = None,
        vendors: Sequence[str] | None = None,
        other_share: Any = None,
        noise: bool = False,
    ) -> xr.Dataset:
        """Sample paths of vendor shares of accelerator spend.

        Parameters
        ----------
        quarters
            None for every quarter of ``cost_paths``, an int h for the h quarters after the
            last fitted one, or consecutive quarter labels; quarters between the last fitted
            one and the first asked for are simulated (``cost_paths`` covers them) and
            dropped. A numpy ``cost_paths`` has exactly the quarters named.
        draws, seed
            Number of paths and the seed (posterior samples picked by :meth:`draw_index`).
        cost_paths
            Cost per effective PFLOP-hour ``(draw, quarter, vendor)`` on the fit's cost basis
            (``meta["cost_basis"]``, :func:`forecast.economics.cost_paths.scenario_cost_paths`),
            draw axis of length 1 or ``draws``: an xarray DataArray with its quarter and
            vendor labels, or a numpy array with ``quarters`` and ``vendors`` (its labels).
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
            Shares in the quarter before the first forecast quarter (a vendor -> share
            mapping, a ``(K,)`` or ``(draws, K)`` array). Default: the fitted latent shares.
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
        draws = self.n_samples if draws is None else int(draws)
        if draws <= 0:
            raise ForecastError(f"draws must be > 0, got {draws}")
        rng = np.random.default_rng(seed)
        wanted, cost, labels = self._run_costs(quarters, cost_paths, draws, vendors,
                                               start_shares is None)
        numbers = _consecutive(labels)
        last_fitted = quarter_index(self.quarters[-1])
        pick = self.draw_index(draws, rng)
        b, a = self.stacked("price_coefficient", pick), self.stacked("ecosystem", pick)
        lam = self.stacked("adjustment_speed", pick)
        if switching_speed is not None:
            lam = np.minimum(lam * _per_draw(switching_speed, draws, "switching_speed"), 1.0)
        start = self._start(start_shares, pick, draws, numbers[0], last_fitted)
        years = np.maximum(np.array(numbers) - last_fitted, 0) / 4.0
        a_path = self._ecosystem_path(a, years, ecosystem_shift)
        caps = _cap_matrix(supply_caps, self.vendors, draws)
        targets, shares = share_paths(a_path, b, lam, start, np.log(cost), caps)
        if noise:
            shares = self._with_noise(shares, pick, rng)
        keep = [labels.index(q) for q in wanted]
        return _share_dataset(shares[:, keep], targets[:, keep], wanted, self.vendors,
                              other_share)

    def _run_costs(self, quarters: int | Sequence[str] | None, cost_paths: Any, draws: int,
                   vendors: Sequence[str] | None, from_fit: bool
                   ) -> tuple[list[str], np.ndarray, list[str]]:
        """(quarters returned, costs of the quarters run, labels of the quarters run).

        Run from the state after the last fitted quarter through any quarters before the
        first one asked for (a model whose data end earlier than the others' still forecasts
        the common quarters): those are simulated, then dropped.
        """
        wanted = self._wanted(quarters, cost_paths)
        gap = from_fit and isinstance(cost_paths, xr.DataArray)
        run = self._with_gap(wanted) if gap else wanted
        cost, labels = self._align_costs(cost_paths, draws, run, vendors)
        return wanted, cost, labels

    def _wanted(self, quarters: int | Sequence[str] | None, cost_paths: Any) -> list[str]:
        """The quarters the forecast returns: as asked, or every quarter of the costs."""
        if quarters is not None:
            return self._requested(quarters)
        if not isinstance(cost_paths, xr.DataArray):
            raise ForecastError("a numpy cost_paths needs quarters= and vendors=")
        return [str(q) for q in cost_paths["quarter"].values]

    def _with_gap(self, wanted: list[str]) -> list[str]:
        """``wanted`` preceded by the quarters between the last fitted one and its first."""
        first, after_fit = quarter_index(wanted[0]), quarter_index(self.quarters[-1]) + 1
        if first <= after_fit:
            return wanted
        return quarter_labels(after_fit, first - 1) + wanted

    # ----------------------------------------------------------------- forecast pieces

    def _align_costs(self, cost_paths: Any, draws: int, quarters: int | Sequence[str] | None,
                     vendors: Sequence[str] | None) -> tuple[np.ndarray, list[str]]:
        """Costs ``(draws, quarter, vendor)`` in model vendor order, and the quarter labels."""
        if isinstance(cost_paths, xr.DataArray):
            missing = sorted(set(self.vendors) - {str(v) for v in cost_paths["vendor"].values})
            if missing:
                raise ForecastError(f"cost_paths lack vendors {missing}")
            ordered = cost_paths.sel(vendor=self.vendors).transpose("draw", "quarter", "vendor")
            values = ordered.values.astype(float)
            labels = [str(q) for q in ordered["quarter"].values]
            if quarters is not None:
                wanted = self._requested(quarters)
                absent = [q for q in wanted if q not in labels]
                if absent:
                    raise ForecastError(f"cost_paths lack quarters {absent}")
                values = values[:, [labels.index(q) for q in wanted]]
                labels = wanted
        else:
            values = np.asarray(cost_paths, dtype=float)
            if quarters is None or vendors is None:
                raise ForecastError("a numpy cost_paths needs quarters= and vendors=")
            labels = self._requested(quarters)
            if values.ndim != 3 or values.shape[1:] != (len(labels), len(vendors)):
                raise ForecastError(f"cost_paths must have shape (draw, {len(labels)}, "
                                    f"{len(vendors)}), got {values.shape}")
            missing = sorted(set(self.vendors) - set(vendors))
            if missing:
                raise ForecastError(f"cost_paths lack vendors {missing}")
            values = values[:, :, [list(vendors).index(v) for v in self.vendors]]
        if values.shape[0] not in (1, draws):
            raise ForecastError(f"cost_paths has {values.shape[0]} draws; need 1 or {draws}")
        if not np.all(np.isfinite(values) & (values > 0)):
            raise ForecastError("cost_paths must be finite and > 0 for every vendor and quarter")
        return np.broadcast_to(values, (draws,) + values.shape[1:]), labels

    def _requested(self, quarters: int | Sequence[str]) -> list[str]:
        """Labels of the requested quarters: the h after the last fitted one, or as given."""
        if isinstance(quarters, int | np.integer):
            if quarters <= 0:
                raise ForecastError(f"quarters must be > 0, got {quarters}")
            return quarters_from(quarter_label(quarter_index(self.quarters[-1]) + 1),
                                 int(quarters))
        if isinstance(quarters, str):
            raise ForecastError(f"quarters must be an int or a sequence of labels, got "
                                f"{quarters!r}")
        return [quarter_label(period_index(q)) for q in quarters]

    def _start(self, start_shares: Any, pick: np.ndarray, draws: int, first: int,
               last_fitted: int) -> np.ndarray:
        """Shares before the first forecast quarter, ``(draws, K)``."""
        k = len(self.vendors)
        if start_shares is None:
            # The fitted state of the quarter before the first forecast one (the last fitted
            # quarter, or an earlier one when the other models' data end earlier).
            position = first - 1 - quarter_index(self.quarters[0])
            if not 0 <= position < len(self.quarters):
                raise ForecastError(f"forecast cannot start in {quarter_label(first)}: the "
                                    f"fit covers {self.quarters[0]}..{self.quarters[-1]}; "
                                    "give start_shares")
            return self.stacked("share", pick)[:, position, :]
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

    def _with_noise(self, shares: np.ndarray, pick: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
        """Shares with the fitted model error (``noise_sigma``) on their log-ratios."""
        sigma = self.stacked("noise_sigma", pick)
        eps = rng.standard_normal(shares.shape[:-1] + (len(self.vendors) - 1,))
        return from_log_ratios(additive_log_ratios(shares) + sigma[:, None, None] * eps)

    def _ecosystem_path(self, ecosystem: np.ndarray, years: np.ndarray,
                        shift: Any) -> np.ndarray:
        """Ecosystem terms per quarter ``(draws, T, K)``; NVIDIA's falls by ``shift`` a year
        after the last fitted quarter."""
        draws = ecosystem.shape[0]
        a_path = np.repeat(ecosystem[:, None, :], len(years), axis=1)
        if shift is not None:
            per_year = _per_draw(shift, draws, "ecosystem_shift")
            a_path[:, :, self.vendors.index(NVIDIA)] -= per_year[:, None] * years[None, :]
        return a_path


def _consecutive(labels: list[str]) -> list[int]:
    """Quarter indices of ``labels``; raises unless they are consecutive."""
    numbers = [quarter_index(q) for q in labels]
    if any(b - a != 1 for a, b in zip(numbers, numbers[1:], strict=False)):
        raise ForecastError("forecast quarters must be consecutive")
    return numbers


def _per_draw(value: Any, draws: int, name: str) -> np.ndarray:
    """A scalar or a ``(draws,)`` array as a ``(draws,)`` float array."""
    array = np.asarray(value, dtype=float)
    if array.ndim == 0:
        return np.full(draws, float(array))
    if array.shape != (draws,):
        raise ForecastError(f"{name} must be a scalar or have shape ({draws},), got "
                            f"{array.shape}")
    return array


def _cap_matrix(supply_caps: Mapping[str, Any] | None, vendors: list[str],
                draws: int) -> np.ndarray | None:
    """Supply caps as ``(draws, 1, K)`` maximum target shares (``inf``: no cap), or None."""
    if not supply_caps:
        return None
    unknown = sorted(set(supply_caps) - set(vendors))
    if unknown:
        raise ForecastError(f"supply caps for unknown vendors: {unknown}")
    caps = np.full((draws, len(vendors)), np.inf)
    for vendor, value in supply_caps.items():
        caps[:, vendors.index(vendor)] = _per_draw(value, draws, "supply cap")
    return caps[:, None, :]


def _share_dataset(shares: np.ndarray, targets: np.ndarray, labels: list[str],
                   vendors: list[str], other_share: Any) -> xr.Dataset:
    """The forecast Dataset; with ``other_share``, modelled shares scaled to make room for an
    ``other`` vendor."""
    draws = shares.shape[0]
    out_vendors = list(vendors)
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
