"""The math of sensitivity, over callables, arrays and DataFrames: no simulation, no I/O.

- :func:`one_at_a_time`: an output with each input in turn set to given percentiles of its
  distribution and every other input at its median; :func:`tornado` and :func:`spider`
  build on it, :func:`tornado_table` and :func:`spider_table` shape and rank the results.
- :func:`rank_correlations` (Spearman), :func:`standardised_regression` (standardised
  regression coefficients on values or on ranks) and :func:`global_ranking`: how each input
  goes with the output over Monte Carlo draws in which every input varies at once (with the
  scenario's correlations).
- :func:`tail_attribution`: the distribution of each input among the draws whose output is
  in its bottom (or top) 10%, against its distribution over all draws: which inputs produce
  the bear tail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError

#: Percentiles of the spider chart.
SPIDER_PERCENTILES = (10, 20, 30, 40, 50, 60, 70, 80, 90)


def one_at_a_time(evaluate: Callable[[Mapping[str, float]], float],
                  ppfs: Mapping[str, Callable[[float], float]],
                  percentiles: Sequence[float]) -> pd.DataFrame:
    """The output with each input in turn at given percentiles, the others at their medians.

    Parameters
    ----------
    evaluate
        Maps a point (input name -> value) to the output.
    ppfs
        Input name -> inverse CDF taking a probability in (0, 1).
    percentiles
        Percentiles in (0, 100), e.g. ``(10, 90)``.

    Returns
    -------
    pandas.DataFrame
        One row per input and percentile: ``input, percentile, input_value, output``.
    """
    for p in percentiles:
        if not 0 < p < 100:
            raise ForecastError(f"percentiles must be in (0, 100), got {p}")
    medians = {name: ppf(0.5) for name, ppf in ppfs.items()}
    rows = []
    for name, ppf in ppfs.items():
        for p in percentiles:
            point = dict(medians)
            point[name] = ppf(p / 100.0)
            rows.append({"input": name, "percentile": float(p), "input_value": point[name],
                         "output": float(evaluate(point))})
    return pd.DataFrame(rows, columns=["input", "percentile", "input_value", "output"])


def tornado_table(oat: pd.DataFrame, baseline: float, low: float = 10,
                  high: float = 90) -> pd.DataFrame:
    """Rank inputs by the swing of the output between their low and high percentiles.

    Parameters
    ----------
    oat
        Output of :func:`one_at_a_time` holding the ``low`` and ``high`` percentiles.
    baseline
        The output with every input at its median.
    low, high
        The percentiles swung between.

    Returns
    -------
    pandas.DataFrame
        ``input, low_value, high_value, output_at_low, output_at_high, baseline, swing,
        rank``, largest swing first (``swing = |output_at_high - output_at_low|``; rank 1 is
        the largest; ties keep input order; NaN swings rank last).
    """
    def pick(p: float) -> pd.DataFrame:
        rows = oat[np.isclose(oat["percentile"], p)].set_index("input")
        if rows.empty:
            raise ForecastError(f"no one-at-a-time runs at percentile {p}")
        return rows

    lows, highs = pick(low), pick(high)
    names = list(dict.fromkeys(oat["input"]))
    frame = pd.DataFrame({
        "input": names,
        "low_value": lows.loc[names, "input_value"].to_numpy(),
        "high_value": highs.loc[names, "input_value"].to_numpy(),
        "output_at_low": lows.loc[names, "output"].to_numpy(float),
        "output_at_high": highs.loc[names, "output"].to_numpy(float),
    })
    frame["baseline"] = float(baseline)
    frame["swing"] = (frame["output_at_high"] - frame["output_at_low"]).abs()
    frame["rank"] = frame["swing"].rank(method="first", ascending=False,
                                        na_option="bottom").astype(int)
    return frame.sort_values("rank").reset_index(drop=True)


def tornado(evaluate: Callable[[Mapping[str, float]], float],
            ppfs: Mapping[str, Callable[[float], float]], low: float = 10,
            high: float = 90) -> pd.DataFrame:
    """One-at-a-time swings from the ``low`` to the ``high`` percentile, ranked.

    ``evaluate`` and ``ppfs`` are as in :func:`one_at_a_time`; the result is
    :func:`tornado_table`'s.
    """
    if not low < high:
        raise ForecastError(f"low percentile {low} must be below high {high}")
    baseline = float(evaluate({name: ppf(0.5) for name, ppf in ppfs.items()}))
    return tornado_table(one_at_a_time(evaluate, ppfs, (low, high)), baseline, low, high)


def spider_table(oat: pd.DataFrame, baseline: float) -> pd.DataFrame:
    """Output against input percentile: ``input, percentile, input_value, output, change``.

    ``change`` is the output minus ``baseline`` (every input at its median); the 50th
    percentile is the baseline itself.
    """
    frame = oat.copy()
    frame["change"] = frame["output"] - float(baseline)
    order = {name: i for i, name in enumerate(dict.fromkeys(frame["input"]))}
    frame = frame.assign(_order=frame["input"].map(order))
    return (frame.sort_values(["_order", "percentile"]).drop(columns="_order")
            .reset_index(drop=True))


def spider(evaluate: Callable[[Mapping[str, float]], float],
           ppfs: Mapping[str, Callable[[float], float]],
           percentiles: Sequence[float] = SPIDER_PERCENTILES) -> pd.DataFrame:
    """The output as each input moves through ``percentiles`` (others at their medians)."""
    baseline = float(evaluate({name: ppf(0.5) for name, ppf in ppfs.items()}))
    return spider_table(one_at_a_time(evaluate, ppfs, percentiles), baseline)


def _clean(inputs: pd.DataFrame, output: np.ndarray) -> tuple[pd.DataFrame, np.ndarray]:
    values = np.asarray(output, dtype=float)
    if values.ndim != 1 or len(values) != len(inputs):
        raise ForecastError(f"output has shape {values.shape}; expected one value per row "
                            f"of the inputs ({len(inputs)})")
    keep = np.isfinite(values)
    if keep.sum() < 3:
        raise ForecastError("fewer than 3 finite output draws")
    return inputs.loc[keep].astype(float).reset_index(drop=True), values[keep]


def _ranks(values: np.ndarray) -> np.ndarray:
    # Imported here: scipy.stats is slow to import, and a tornado alone never needs it.
    from scipy import stats

    return stats.rankdata(values, method="average", axis=0)


def rank_correlations(inputs: pd.DataFrame, output: np.ndarray) -> pd.Series:
    """Spearman rank correlation of each input column with the output over the draws.

    Constant columns (fixed inputs) get NaN; draws with a non-finite output are dropped.
    """
    frame, y = _clean(inputs, output)
    ry = _ranks(y)
    result = {}
    for name in frame.columns:
        x = frame[name].to_numpy()
        if np.ptp(x) == 0 or np.ptp(ry) == 0:
            result[name] = np.nan
            continue
        result[name] = float(np.corrcoef(_ranks(x), ry)[0, 1])
    return pd.Series(result, name="spearman", dtype=float)


def standardised_regression(inputs: pd.DataFrame, output: np.ndarray,
                            ranks: bool = False) -> tuple[pd.Series, float]:
    """Standardised regression coefficients (SRC) of the output on every input at once.

    Inputs and output are scaled to mean 0 and standard deviation 1 and the output is
    regressed on all inputs by least squares; a coefficient is the change in the output, in
    its standard deviations, per standard deviation of the input with the others held fixed.
    With ``ranks`` both sides are rank-transformed first (SRRC), which suits monotone but
    non-linear relations.

    Returns
    -------
    (pandas.Series, float)
        Coefficients by input (NaN for constant inputs) and the regression's R^2: the share
        of the output's variance the linear model explains (near 1: the coefficients tell
        the whole story; low: interactions, non-linearity or noise dominate).
    """
    frame, y = _clean(inputs, output)
    x = _ranks(frame.to_numpy()) if ranks else frame.to_numpy()
    if ranks:
        y = _ranks(y)
    spread = x.std(axis=0)
    varying = spread > 0
    coefficients = pd.Series(np.nan, index=frame.columns, name="src", dtype=float)
    if y.std() == 0 or not varying.any():
        return coefficients, float("nan")
    z = (x[:, varying] - x[:, varying].mean(axis=0)) / spread[varying]
    zy = (y - y.mean()) / y.std()
    beta, *_ = np.linalg.lstsq(z, zy, rcond=None)
    residual = zy - z @ beta
    r2 = float(1.0 - residual.var() / zy.var())
    coefficients[frame.columns[varying]] = beta
    return coefficients, r2


def global_ranking(inputs: pd.DataFrame, output: np.ndarray) -> pd.DataFrame:
    """Inputs ranked over Monte Carlo draws by Spearman correlation and regression.

    Returns
    -------
    pandas.DataFrame
        ``input, spearman, src, srrc, rank`` sorted by ``|spearman|`` (rank 1 strongest;
        NaN last). ``attrs`` holds ``r2_src`` and ``r2_srrc``.
    """
    rho = rank_correlations(inputs, output)
    src, r2 = standardised_regression(inputs, output)
    srrc, r2_rank = standardised_regression(inputs, output, ranks=True)
    frame = pd.DataFrame({"input": list(inputs.columns),
                          "spearman": rho.reindex(inputs.columns).to_numpy(),
                          "src": src.reindex(inputs.columns).to_numpy(),
                          "srrc": srrc.reindex(inputs.columns).to_numpy()})
    frame["rank"] = frame["spearman"].abs().rank(method="first", ascending=False,
                                                 na_option="bottom").astype(int)
    frame = frame.sort_values("rank").reset_index(drop=True)
    frame.attrs.update(r2_src=r2, r2_srrc=r2_rank)
    return frame


def tail_attribution(inputs: pd.DataFrame, output: np.ndarray, tail: str = "bottom",
                     fraction: float = 0.1) -> pd.DataFrame:
    """Each input's distribution among the draws in the output's tail against all draws.

    Parameters
    ----------
    inputs
        Input draws, one row per draw.
    output
        The output per draw.
    tail
        ``"bottom"`` (output at or below its ``fraction`` quantile: the bear tail) or
        ``"top"`` (at or above its ``1 - fraction`` quantile).
    fraction
        Size of the tail, in (0, 0.5].

    Returns
    -------
    pandas.DataFrame
        ``input, overall_median, tail_median, tail_q10, tail_q90, mean_percentile, shift,
        ks, rank``: ``mean_percentile`` is the average percentile, within the input's own
        distribution over all draws, of its values in the tail (50 = the tail is not tilted
        towards either end of the input; 80 = the tail draws sit mostly in the input's upper
        range); ``shift = mean_percentile - 50``; ``ks`` is the two-sample Kolmogorov-Smirnov
        distance between the tail and all draws. Ranked by ``|shift|`` (rank 1 largest).
        ``attrs`` holds ``tail``, ``fraction``, ``threshold`` and ``n_tail``.
    """
    if tail not in ("bottom", "top"):
        raise ForecastError(f"tail must be 'bottom' or 'top', got {tail!r}")
    if not 0 < fraction <= 0.5:
        raise ForecastError(f"fraction must be in (0, 0.5], got {fraction}")
    frame, y = _clean(inputs, output)
    if tail == "bottom":
        threshold = float(np.quantile(y, fraction))
        selected = y <= threshold
    else:
        threshold = float(np.quantile(y, 1.0 - fraction))
        selected = y >= threshold
    from scipy import stats

    n = len(y)
    rows = []
    for name in frame.columns:
        x = frame[name].to_numpy()
        inside = x[selected]
        percentile = (_ranks(x) - 0.5) / n * 100.0
        mean_percentile = float(percentile[selected].mean())
        ks = float(stats.ks_2samp(inside, x).statistic) if np.ptp(x) > 0 else 0.0
        rows.append({
            "input": name,
            "overall_median": float(np.median(x)),
            "tail_median": float(np.median(inside)),
            "tail_q10": float(np.quantile(inside, 0.1)),
            "tail_q90": float(np.quantile(inside, 0.9)),
            "mean_percentile": mean_percentile,
            "shift": mean_percentile - 50.0,
            "ks": ks,
        })
    result = pd.DataFrame(rows)
    result["rank"] = result["shift"].abs().rank(method="first", ascending=False).astype(int)
    result = result.sort_values("rank").reset_index(drop=True)
    result.attrs.update(tail=tail, fraction=fraction, threshold=threshold,
                        n_tail=int(selected.sum()))
    return result
