"""Elasticities of the fitted target shares to cost per effective PFLOP-hour."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from forecast.models.share.fitted import FittedShareModel
from forecast.models.share.math import share_elasticities


def elasticities(fitted: FittedShareModel, shares: Any = None) -> pd.DataFrame:
    """Own- and cross-elasticities of target shares to cost per effective PFLOP-hour.

    ``d log s*_i / d log k_j = -b (delta_ij - s_j)`` for every posterior draw of ``b``.

    Parameters
    ----------
    fitted
        A fitted share model.
    shares
        Where to evaluate: a vendor -> share mapping or a ``(K,)`` array (fixed), or None for
        the posterior target shares of the last fitted quarter (draw by draw: the softmax
        of NVIDIA's 0 and the rivals' target log-ratios).

    Returns
    -------
    pandas.DataFrame
        Columns ``vendor_i, vendor_j, median, p05, p10, p90, p95`` (the 80% and 90%
        intervals).
    """
    vendors = fitted.vendors
    b = fitted.stacked("price_coefficient")
    if shares is None:
        s = fitted.last_targets()
    else:
        values = ([float(shares[v]) for v in vendors] if isinstance(shares, Mapping)
                  else np.asarray(shares, dtype=float))
        s = np.broadcast_to(np.asarray(values, dtype=float), (len(b), len(vendors)))
    e = share_elasticities(b, s)
    rows = []
    for i, vi in enumerate(vendors):
        for j, vj in enumerate(vendors):
            values = e[:, i, j]
            q05, q10, q50, q90, q95 = np.quantile(values, [0.05, 0.1, 0.5, 0.9, 0.95])
            rows.append({"vendor_i": vi, "vendor_j": vj, "median": float(q50),
                         "p05": float(q05), "p10": float(q10), "p90": float(q90),
                         "p95": float(q95)})
    return pd.DataFrame(rows)
