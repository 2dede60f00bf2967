"""The fitted share model: share forecasts from the filtered last state.

Numpy, pandas and xarray only: forecasting from a stored fit never imports PyMC.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import xarray as xr

from forecast.core.calendar import quarter_index, quarter_labels
from forecast.core.errors import ForecastError
from forecast.models.fitted import Fitted
from forecast.models.share.alignment import (
    align_costs,
    cap_matrix,
    per_draw,
    requested_quarters,
    start_ratios,
)
from forecast.models.share.math import apply_supply_caps, from_log_ratios
from forecast.models.share.statespace import (
    FilterState,
    StateParams,
    sample_state,
    simulate_states,
    target_log_ratios,
)

SHARE_UNIT = "fraction of accelerator spend"


class FittedShareModel(Fitted):
    """A fitted share model: posterior, data, diagnostics, share forecasts."""

    model_name: ClassVar[str] = "share"
    model_version: ClassVar[str] = "3"

    @property
    def vendors(self) -> list[str]:
        """Vendors in model order (NVIDIA, the log-ratio reference, first)."""
        return list(self.meta["vendors"])

    @property
    def quarters(self) -> list[str]:
        """Fitted quarters."""
        return list(self.meta["quarters"])

    def last_targets(self) -> np.ndarray:
        """Target shares of the last fitted quarter, ``(samples, K)``."""
        target = self.stacked("target")[:, -1, :]
        return from_log_ratios(target)

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
        start_log_ratios: Any = None,
        vendors: Sequence[str] | None = None,
        noise: bool = True,
        measurement: bool = False,
    ) -> xr.Dataset:
        """Sample paths of vendor shares of accelerator spend.

        Parameters
        ----------
        quarters
            None for every quarter of ``cost_paths``, an int h for the h quarters after the
            last fitted one, or consecutive quarter labels. Without ``start_log_ratios``
            the paths run from the quarter after the last fitted one; quarters before the
            first asked for are simulated and dropped.
        draws, seed
            Number of paths and the seed (posterior samples picked by :meth:`draw_index`).
        cost_paths
            Cost per effective PFLOP-hour ``(draw, quarter, vendor)`` on the fit's cost
            basis: an xarray DataArray with its labels, or a numpy array of exactly the run's
            quarters with ``vendors`` (its labels); draw axis 1 or ``draws``.
        supply_caps
            vendor -> maximum target share (scalar or ``(draws,)``), applied to the targets.
        ecosystem_shift
            Log-ratio units a year by which NVIDIA's ecosystem advantage falls after the last
            fitted quarter (scalar or ``(draws,)``).
        switching_speed
            Multiplier of the adjustment speed (scalar or ``(draws,)``), capped at 1.
        start_log_ratios
            Log-ratios of the rivals in the quarter before the first asked for ``(rivals,)``
            or ``(draws, rivals)``, e.g. the market model's draws of its last quarter: the
            paths start there, with the deviation drawn from its filtered law given them.
            Default: a draw of the filtered last state.
        noise
            The deviation's shocks on (the forecast's uncertainty); off gives the path of
            the expected shocks.
        measurement
            Add the measurement noise (``obs_sd``): the predictive law of a measured
            log-ratio (what the backtest scores) rather than of the latent one.

        Returns
        -------
        xarray.Dataset
            ``share`` and ``target_share`` ``(draw, quarter, vendor)``; ``log_ratio``
            ``(draw, quarter, rival)``.
        """
        draws = self.n_samples if draws is None else int(draws)
        if draws <= 0:
            raise ForecastError(f"draws must be > 0, got {draws}")
        rng = np.random.default_rng(seed)
        wanted, run = self._quarters(quarters, cost_paths, start_log_ratios is None)
        cost = align_costs(cost_paths, self.vendors, draws, run, vendors)
        pick = self.draw_index(draws, rng)
        params = self._params(pick, draws, switching_speed)
        target = self._targets(pick, cost, run, ecosystem_shift, supply_caps)
        m, d = self._start(pick, rng, start_log_ratios)
        paths = simulate_states(m, d, target, params, rng, noise=noise)
        if measurement:
            paths = paths + params.obs_sd[:, None, :] * rng.standard_normal(paths.shape)
        keep = [run.index(q) for q in wanted]
        return _dataset(paths[:, keep], target[:, keep], wanted, self.vendors)

    # ----------------------------------------------------------------- pieces

    def _quarters(self, quarters: Any, cost_paths: Any, from_fit: bool
                  ) -> tuple[list[str], list[str]]:
        """(quarters returned, quarters run): the run starts after the last fitted quarter
        when the forecast starts from the fit's own state."""
        last = self.quarters[-1]
        if quarters is None:
            if not isinstance(cost_paths, xr.DataArray):
                raise ForecastError("a numpy cost_paths needs quarters= and vendors=")
            quarters = [str(q) for q in cost_paths["quarter"].values]
        wanted = requested_quarters(quarters, last)
        first, after = quarter_index(wanted[0]), quarter_index(last) + 1
        if first < after:
            raise ForecastError(f"forecast quarters start at {wanted[0]}, inside the fit "
                                f"(last fitted quarter {last})")
        if not from_fit or first == after:
            return wanted, wanted
        return wanted, quarter_labels(after, first - 1) + wanted

    def _params(self, pick: np.ndarray, draws: int, switching_speed: Any) -> StateParams:
        lam = self.stacked("adjustment_speed", pick)
        if switching_speed is not None:
            lam = np.minimum(lam * per_draw(switching_speed, draws, "switching_speed"), 1.0)
        return StateParams(lam[:, None], self.stacked("deviation_persistence", pick)[:, None],
                           _per_rival(self.stacked("deviation_sd", pick)),
                           _per_rival(self.stacked("obs_sd", pick)), 0.0)

    def _targets(self, pick: np.ndarray, cost: np.ndarray, run: list[str], shift: Any,
                 supply_caps: Any) -> np.ndarray:
        """Target log-ratios ``(draws, T, rivals)`` of the run's quarters."""
        a = self.stacked("ecosystem", pick)
        b = self.stacked("price_coefficient", pick)
        target = target_log_ratios(a, b, np.log(cost))
        if shift is not None:
            last = quarter_index(self.quarters[-1])
            years = (np.array([quarter_index(q) for q in run]) - last) / 4.0
            target = target + (per_draw(shift, len(pick), "ecosystem_shift")[:, None, None]
                               * years[None, :, None])
        caps = cap_matrix(supply_caps, self.vendors, len(pick))
        if caps is not None:
            capped = apply_supply_caps(from_log_ratios(target), caps)
            target = np.log(capped[..., 1:]) - np.log(capped[..., :1])
        return target

    def _start(self, pick: np.ndarray, rng: np.random.Generator,
               start_log_ratios: Any) -> tuple[np.ndarray, np.ndarray]:
        """(m, d) of the quarter before the run, ``(draws, rivals)`` each."""
        state = FilterState(*(self.stacked(f"state_{name}", pick)
                              for name in ("m", "d", "p_mm", "p_md", "p_dd")), None)
        if start_log_ratios is None:
            return sample_state(state, rng)
        m = start_ratios(start_log_ratios, len(pick), len(self.vendors) - 1)
        # d given m: the conditional of the filtered bivariate normal.
        p_mm = np.maximum(state.p_mm, 1e-12)
        mean = state.d + state.p_md / p_mm * (m - state.m)
        var = np.maximum(state.p_dd - state.p_md**2 / p_mm, 0.0)
        return m, mean + np.sqrt(var) * rng.standard_normal(m.shape)


def _per_rival(values: np.ndarray) -> np.ndarray:
    """A parameter ``(draws,)`` common to the rivals as ``(draws, 1)``; ``(draws, rivals)``
    as it is."""
    return values[:, None] if values.ndim == 1 else values


def _dataset(paths: np.ndarray, target: np.ndarray, labels: list[str],
             vendors: list[str]) -> xr.Dataset:
    """The forecast Dataset from log-ratio paths and targets ``(draws, T, rivals)``."""
    coords = {"draw": np.arange(paths.shape[0]), "quarter": labels, "vendor": vendors,
              "rival": vendors[1:]}
    result = xr.Dataset(
        {"share": (("draw", "quarter", "vendor"), from_log_ratios(paths)),
         "target_share": (("draw", "quarter", "vendor"), from_log_ratios(target)),
         "log_ratio": (("draw", "quarter", "rival"), paths)},
        coords=coords)
    result["share"].attrs["unit"] = SHARE_UNIT
    result["target_share"].attrs["unit"] = SHARE_UNIT
    result["log_ratio"].attrs["unit"] = "log(spend / NVIDIA's spend)"
    return result
