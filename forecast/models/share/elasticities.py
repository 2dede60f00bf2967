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
