"""Rolling-origin backtest of the share model against a constant-share naive forecast.

For each origin (a calendar quarter label) the share model is fitted on the quarters up to
the origin and forecasts the next ``horizon`` quarters given the *realised* costs (a
conditional forecast: costs are an input of the share model). The naive forecast keeps the
origin's derived log-ratio, with the origin's derivation variance plus a random-walk variance
growing with the horizon (the variance of quarter-to-quarter log-ratio changes seen up to the
origin). Both are scored on the derived log-ratios to NVIDIA, ``log(D_v / D_nvidia)``, of the
held-out quarters (:class:`~forecast.economics.cost_paths.ShareData`), cell by cell where the
vendor was observed and both forecasts exist, with the shared scores of
:mod:`forecast.evaluation.harness` (no ``log_crps``: the targets are already logs and may be
negative).

Each (forecaster, origin) fit is one harness task; the naive forecast draws from a generator
seeded by the seed and the origin (:func:`forecast.evaluation.harness.task_seed`), so every
task is independent of the others.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.economics.cost_paths import ShareData
from forecast.evaluation import harness
from forecast.models.share import ShareModel

MODEL = "share_model"
NAIVE = "constant_share"
#: Columns of :func:`rolling_origin_backtest`, in order.
COLUMNS: tuple[str, ...] = (
    "origin", "quarter", "horizon", "vendor", "method", "observed", "median", "crps",
    "log_score", "covered80", "log_crps", "pinball",
    *(harness.pinball_column(q) for q in harness.PINBALL_LEVELS),
    "in_80", "in_95", "interval_score_80", "interval_score_95", "pit",
)


def _test_quarters(data: ShareData, origin: str, horizon: int) -> list[int]:
    """Indices of the (up to ``horizon``) quarters after ``origin``."""
    o = list(data.quarters).index(origin)
    return list(range(o + 1, min(o + 1 + horizon, len(data.quarters))))


@dataclass(frozen=True)
class ShareModelForecast:
    """The share model as a harness forecaster: cells (vendor, h) of log-ratios to NVIDIA."""

    data: ShareData
    horizon: int
    priors: Mapping[str, Any] | None
    sampler: Mapping[str, Any] | None
    draws: int
    seed: int

    def __call__(self, origin: str) -> harness.Forecast:
        """Fit on the quarters up to ``origin``; forecast the next ones at realised costs."""
        data, labels = self.data, list(self.data.quarters)
        test = _test_quarters(data, origin, self.horizon)
        fitted = ShareModel(self.priors, self.sampler).fit(data.window(last=origin))
        cost = np.exp(data.log_cost[test])[None]
        forecast = fitted.forecast([labels[i] for i in test], draws=self.draws, seed=self.seed,
                                   cost_paths=cost, vendors=list(data.vendors), noise=True)
        share = forecast["share"].values
        alr = np.log(share[..., 1:]) - np.log(share[..., :1])
        cells = {(data.vendors[v], h): alr[:, h - 1, v - 1]
                 for v in range(1, len(data.vendors)) for h in range(1, len(test) + 1)}
        return harness.Forecast(cells, fitted.diagnostics())


@dataclass(frozen=True)
class ConstantShareForecast:
    """Naive forecaster: the last observed log-ratio up to the origin, random-walk spread.

    For vendor v last observed in quarter ``l <= origin``, the forecast of quarter ``t`` is
    Normal(alr(l), var_derivation(l) + (t - l) * var(diff alr up to the origin)) (no
    random-walk term with fewer than two changes).
    """

    data: ShareData
    horizon: int
    draws: int
    seed: int

    def __call__(self, origin: str) -> dict[harness.Cell, np.ndarray]:
        """Samples of every vendor observed up to ``origin``, every horizon."""
        data = self.data
        o = list(data.quarters).index(origin)
        test = _test_quarters(data, origin, self.horizon)
        rng = np.random.default_rng(harness.task_seed(self.seed, NAIVE, origin))
        cells: dict[harness.Cell, np.ndarray] = {}
        for v in range(1, len(data.vendors)):
            past = [i for i in range(o + 1) if data.observed[i, v]]
            if not past:
                continue
            last = past[-1]
            diffs = np.diff(data.alr_mean[past, v - 1])
            rw_var = float(np.var(diffs, ddof=1)) if len(diffs) >= 2 else 0.0
            for h, t in enumerate(test, start=1):
                sd = np.sqrt(data.alr_cov[last, v - 1, v - 1] + (t - last) * rw_var)
                cells[(data.vendors[v], h)] = (data.alr_mean[last, v - 1]
                                               + sd * rng.standard_normal(self.draws))
        return cells


@dataclass(frozen=True)
class ShareActuals:
    """The derived log-ratio of every vendor observed in the quarters after an origin."""

    data: ShareData
    horizon: int

    def __call__(self, origin: str) -> dict[harness.Cell, float]:
        """Cells (vendor, h) with an observation in quarter origin + h."""
        data = self.data
        return {(data.vendors[v], h): float(data.alr_mean[t, v - 1])
                for h, t in enumerate(_test_quarters(data, origin, self.horizon), start=1)
                for v in range(1, len(data.vendors)) if data.observed[t, v]}


def share_scores(data: ShareData, origins: Sequence[str], horizon: int = 4,
                 priors: Mapping[str, Any] | None = None,
                 sampler: Mapping[str, Any] | None = None, draws: int = 2000, seed: int = 0,
                 *, map_fn: harness.MapFn = map) -> pd.DataFrame:
    """The harness's tidy scores of the share model and the naive forecast.

    Parameters as :func:`rolling_origin_backtest`. Origins with no later quarter are left
    out; an unknown origin raises ``ValueError``, a failing fit its own error.
    """
    labels = list(data.quarters)
    for origin in origins:
        labels.index(origin)  # ValueError for an unknown origin, before any fit
    usable = [origin for origin in origins if _test_quarters(data, origin, horizon)]
    forecasters = {MODEL: ShareModelForecast(data, horizon, priors, sampler, draws, seed),
                   NAIVE: ConstantShareForecast(data, horizon, draws, seed)}
    return harness.run_backtest(forecasters, usable, ShareActuals(data, horizon),
                                map_fn=map_fn, common_cells=True, log_scores=False,
                                catch=False)


def rolling_origin_backtest(
    data: ShareData,
    origins: Sequence[str],
    horizon: int = 4,
    priors: Mapping[str, Any] | None = None,
    sampler: Mapping[str, Any] | None = None,
    draws: int = 2000,
    seed: int = 0,
    *,
    map_fn: harness.MapFn = map,
) -> pd.DataFrame:
    """Rolling-origin backtest of the share model against a constant-share naive forecast.

    Parameters
    ----------
    data
        The full share data; each origin fits ``data.window(last=origin)``.
    origins
        Calendar quarter labels of the cut-offs.
    horizon
        Quarters ahead (1..horizon, fewer at the end of the data).
    priors, sampler
        Share model prior overrides and sampler settings.
    draws, seed
        Samples per forecast and the seed.
    map_fn
        Runs the harness tasks (see :func:`forecast.evaluation.harness.run_backtest`).

    Returns
    -------
    pandas.DataFrame
        One row per (origin, quarter, vendor, method) in that order: ``horizon``,
        ``observed`` (the derived log-ratio), ``median``, ``crps``, ``log_score`` (Gaussian
        approximation: log density of the observation under the samples' mean and variance
        plus the observation's derivation variance), ``covered80`` and the shared scores
        (``log_crps`` is NaN); :func:`forecast.evaluation.harness.summarize_scores` with
        ``model_column="method"`` summarises it.
    """
    scored = share_scores(data, origins, horizon, priors, sampler, draws, seed, map_fn=map_fn)
    if scored.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    labels, vendors = list(data.quarters), list(data.vendors)
    t = np.array([labels.index(o) + h for o, h in zip(scored["origin"], scored["horizon"],
                                                       strict=True)])
    v = np.array([vendors.index(k) for k in scored["key"]])
    y_var = data.alr_cov[t, v - 1, v - 1]
    var = scored["sd"].to_numpy() ** 2 + y_var
    y = scored["actual"].to_numpy()
    frame = scored.assign(
        origin=scored["origin"].astype(str), quarter=[labels[i] for i in t],
        vendor=scored["key"].astype(str), method=scored["forecaster"],
        observed=y, covered80=scored["in_80"].astype(bool),
        log_score=-0.5 * np.log(2 * np.pi * var) - 0.5 * (y - scored["mean"].to_numpy())**2 / var,
        _o=[labels.index(o) for o in scored["origin"]], _v=v,
        _m=[(MODEL, NAIVE).index(m) for m in scored["forecaster"]])
    frame = frame.sort_values(["_o", "horizon", "_v", "_m"], kind="stable")
    return frame[list(COLUMNS)].reset_index(drop=True)
