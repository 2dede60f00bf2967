""""What would I have to believe?": which scenario inputs a thesis needs, and how far.

Pure functions over a frame of scenario-input draws (one row per path) and the thesis metric
of the same paths; no fit, no file. :mod:`forecast.pipeline.believe_run` feeds them a stored
fit's paths and re-simulates.

1. :func:`input_shifts`: each input's distribution among the paths where the thesis holds
   against all paths: median, 10-90% range, where that median sits in the input's own
   distribution (its percentile) and the mean percentile of the holding paths, ranked.
2. :func:`explained_share`: the share of the variance of the thesis metric (and of the
   0/1 indicator) that the inputs explain, by a least-squares fit on normal scores of their
   ranks. What they leave is the fitted models' posterior (and interactions): a thesis the
   inputs barely explain is decided by the posterior, and no scenario shift will move it.
3. :func:`smallest_shift`: the smallest move of the inputs that matter most that lifts the
   thesis's probability above one half. Inputs move *by quantile*: a path's input at
   probability ``u`` of its distribution goes to ``Phi(Phi^-1(u) + delta)`` (:func:`move_inputs`),
   which keeps every path's rank, hence the copula, and keeps values inside the input's
   range. The move is along the regression direction (:func:`shift_direction`), the shortest
   way to a target under a linear model, and its length is found by bisection on
   re-simulated probabilities with common random numbers (the same seed in every run).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.errors import ForecastError
from forecast.core.special import ndtr, ndtri
from forecast.pipeline.theses import monte_carlo_error

#: Largest move of an input, in standard-normal units of its copula score: its median goes
#: at most to its 1st or 99th percentile ("within its range").
MAX_SCORE = float(ndtri(0.99))
#: Inputs moved together by :func:`smallest_shift` (the ones that matter most).
TOP_INPUTS = 3
#: Share of the metric's variance below which the posterior, not the inputs, decides.
DECIDED_BY_INPUTS = 0.5
#: |t| a regression coefficient needs for its input to be moved.
MIN_T = 3.0

#: Paths per regression coefficient (each varying input, and the intercept) a belief needs:
#: with k inputs unrelated to a thesis, n paths "explain" k / (n - 1) of its variance on
#: average, a quarter at 4 paths a coefficient, which the adjusted R^2 still corrects; with
#: fewer the least squares fit fills with noise (3 paths and 65 inputs "explained" 100%).
PATHS_PER_COEFFICIENT = 4

#: ``resimulate(inputs) -> thesis metric per path``, with the same seed in every call.
Resimulate = Callable[[pd.DataFrame], np.ndarray]
#: ``on_step(done, total)``: progress of the re-simulations.
OnStep = Callable[[int, int], None]


def min_paths(inputs: int) -> int:
    """Fewest paths whose regression on ``inputs`` varying inputs
    :func:`explained_share` and :func:`shift_direction` may read (:data:`PATHS_PER_COEFFICIENT`
    for each input and the intercept)."""
    return PATHS_PER_COEFFICIENT * (inputs + 1)


def check_paths(paths: int, inputs: int, flag: str = "paths") -> None:
    """Refuse fewer than :func:`min_paths` paths, saying how many are needed.

    Raises
    ------
    ForecastError
        Naming ``flag`` (``--draws`` on the command line) and the minimum.
    """
    if paths < min_paths(inputs):
        raise ForecastError(f"{flag} {paths}: believe regresses the thesis metric on {inputs} "
                            f"varying inputs and needs at least {min_paths(inputs)} paths "
                            f"({PATHS_PER_COEFFICIENT} per input and intercept); ask for "
                            "more")


def orientation(comparator: str) -> float:
    """+1 when larger metric values favour the thesis (``>``, ``>=``), -1 otherwise."""
    if comparator not in ("<", "<=", ">", ">="):
        raise ForecastError(f"unknown comparator {comparator!r}")
    return 1.0 if comparator in (">", ">=") else -1.0


def _percentiles(values: np.ndarray) -> np.ndarray:
    """Mid-rank percentiles in (0, 100) (ties share their average rank)."""
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(1, len(values) + 1)
    # Average the ranks of ties so that a constant input sits at 50.
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return (sums[inverse] / counts[inverse] - 0.5) / len(values) * 100.0


def normal_scores(values: np.ndarray) -> np.ndarray:
    """``Phi^-1`` of the mid-rank percentiles: a rank transform on the normal scale."""
    return ndtri(_percentiles(np.asarray(values, dtype=float)) / 100.0)


def input_shifts(inputs: pd.DataFrame, holds: np.ndarray) -> pd.DataFrame:
    """Each input in the paths where the thesis holds against all paths, ranked.

    Parameters
    ----------
    inputs
        Scenario-input draws, one row per path.
    holds
        Whether the thesis holds in each path.

    Returns
    -------
    pandas.DataFrame
        ``input, median_all, median_holds, p10_holds, p90_holds, median_percentile,
        mean_percentile, shift, z, rank``: ``median_percentile`` is where the holding paths'
        median sits in the input's distribution over all paths (50 = no shift);
        ``mean_percentile`` the holding paths' average percentile and ``shift`` that minus
        50, the ranking key (rank 1 largest ``|shift|``); ``z`` is ``shift`` over its
        standard error were the input unrelated to the thesis. With no path, or every path,
        holding there is nothing to compare: the holding columns are NaN.
    """
    holds = np.asarray(holds, dtype=bool)
    if holds.shape != (len(inputs),):
        raise ForecastError(f"holds has shape {holds.shape}; expected ({len(inputs)},)")
    n, k = len(holds), int(holds.sum())
    # Null standard error of a mean percentile over k of n paths drawn without replacement.
    null_se = 100.0 * np.sqrt((n - k) / max(n - 1, 1) / (12.0 * max(k, 1)))
    rows = []
    for name in inputs.columns:
        x = inputs[name].to_numpy(float)
        percentile = _percentiles(x)
        inside = x[holds]
        row = {"input": name, "median_all": float(np.median(x))}
        if 0 < k < n:
            median = float(np.median(inside))
            mean_percentile = float(percentile[holds].mean())
            row.update(median_holds=median, p10_holds=float(np.quantile(inside, 0.1)),
                       p90_holds=float(np.quantile(inside, 0.9)),
                       median_percentile=float(np.mean(x <= median) * 100.0),
                       mean_percentile=mean_percentile, shift=mean_percentile - 50.0,
                       z=(mean_percentile - 50.0) / null_se if np.ptp(x) > 0 else 0.0)
        rows.append(row)
    columns = ["input", "median_all", "median_holds", "p10_holds", "p90_holds",
               "median_percentile", "mean_percentile", "shift", "z"]
    table = pd.DataFrame(rows).reindex(columns=columns)
    table["rank"] = table["shift"].abs().rank(method="first", ascending=False,
                                              na_option="bottom").astype(int)
    return table.sort_values("rank").reset_index(drop=True)


def _design(inputs: pd.DataFrame) -> tuple[list[str], np.ndarray]:
    """Normal scores of the inputs that vary, as columns."""
    names = [name for name in inputs.columns if np.ptp(inputs[name].to_numpy(float)) > 0]
    if not names:
        return [], np.empty((len(inputs), 0))
    return names, np.column_stack([normal_scores(inputs[name].to_numpy(float))
                                   for name in names])


def _least_squares(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Coefficients, their t statistics and the adjusted R^2 of ``y`` on ``x`` (+ intercept)."""
    n, p = x.shape
    design = np.column_stack([np.ones(n), x])
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ beta
    dof = max(n - p - 1, 1)
    sigma2 = float(residual @ residual) / dof
    total = float(((y - y.mean()) ** 2).sum())
    # Adjusted: with 40 inputs and 2,000 paths, pure noise would "explain" 2% otherwise.
    r2 = 1.0 - sigma2 / (total / (n - 1)) if total > 0 else float("nan")
    covariance = sigma2 * np.linalg.pinv(design.T @ design)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = beta / np.sqrt(np.diag(covariance))
    return beta[1:], t[1:], float(r2)


def explained_share(inputs: pd.DataFrame, values: np.ndarray) -> float:
    """Share of the variance of ``values`` the inputs explain (adjusted R^2, >= 0).

    ``values`` (the thesis metric, or its 0/1 indicator) is regressed by least squares on
    the normal scores of every varying input's ranks; a continuous ``values`` enters as its
    own normal scores, so any monotone effect of an input counts. NaN when ``values`` is
    constant; 0 when no input varies.
    """
    y = np.asarray(values, dtype=float)
    if y.shape != (len(inputs),):
        raise ForecastError(f"values have shape {y.shape}; expected ({len(inputs)},)")
    if np.ptp(y) == 0:
        return float("nan")
    names, x = _design(inputs)
    if not names:
        return 0.0
    binary = set(np.unique(y)) <= {0.0, 1.0}
    _, _, r2 = _least_squares(x, y if binary else normal_scores(y))
    return max(0.0, r2)


def shift_direction(inputs: pd.DataFrame, metric: np.ndarray, comparator: str,
                    candidates: Sequence[str] | None = None,
                    top: int = TOP_INPUTS) -> pd.Series:
    """Unit direction of the move, in normal-score units, over the inputs that matter most.

    The oriented metric's normal scores are regressed on every varying input's; the first
    ``top`` of ``candidates`` (inputs in ranking order; None: by ``|t|``) whose coefficient
    has ``|t| >=`` :data:`MIN_T` are moved, each in proportion to its coefficient: under a
    linear model that is the shortest way to a higher metric. Empty when none qualifies.
    """
    names, x = _design(inputs)
    y = normal_scores(orientation(comparator) * np.asarray(metric, dtype=float))
    if not names or np.ptp(y) == 0:
        return pd.Series(dtype=float)
    beta, t, _ = _least_squares(x, y)
    coefficient = dict(zip(names, beta, strict=True))
    if candidates is None:
        candidates = [names[i] for i in np.argsort(-np.abs(np.nan_to_num(t)), kind="stable")]
    significant = {name for name, value in zip(names, t, strict=True) if abs(value) >= MIN_T}
    chosen = [name for name in candidates if name in significant][:top]
    direction = pd.Series({name: coefficient[name] for name in chosen}, dtype=float)
    norm = float(np.sqrt((direction ** 2).sum()))
    return direction / norm if norm > 0 else pd.Series(dtype=float)


def input_uniforms(inputs: pd.DataFrame, marginals: Mapping[str, Any],
                   names: Sequence[str]) -> pd.DataFrame:
    """Each path's value of the ``names`` inputs as a probability of its own distribution.

    ``marginals[name]`` has vectorised ``cdf`` and ``ppf`` (a scenario
    :class:`~forecast.scenarios.distributions.InputSpec`, or a frozen scipy distribution).
    For a discrete (quarter) input, tied paths are spread over their step of the CDF in path
    order, so that ``ppf`` gives every path its own value back.
    """
    columns = {}
    for name in names:
        marginal = marginals[name]
        x = inputs[name].to_numpy(float)
        upper = np.asarray(marginal.cdf(x), dtype=float)
        if getattr(marginal, "is_quarter", False):
            lower = np.asarray(marginal.cdf(x - 1.0), dtype=float)
            _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
            order = np.argsort(inverse, kind="stable")
            within = np.empty(len(x))
            within[order] = np.arange(len(x)) - np.repeat(np.cumsum(counts) - counts, counts)
            upper = lower + (upper - lower) * (within + 0.5) / counts[inverse]
        columns[name] = np.clip(upper, 1e-12, 1.0 - 1e-12)
    return pd.DataFrame(columns, index=inputs.index)


def move_inputs(inputs: pd.DataFrame, uniforms: pd.DataFrame, marginals: Mapping[str, Any],
                scores: Mapping[str, float]) -> pd.DataFrame:
    """The inputs with each named one moved by ``scores[name]`` standard-normal units.

    A path at probability ``u`` goes to ``ppf(Phi(Phi^-1(u) + score))``: ranks (the copula)
    and the input's range are kept, and a score of 0 leaves the column as it was.
    """
    moved = inputs.copy()
    for name, score in scores.items():
        if score == 0:
            continue
        u = ndtr(ndtri(uniforms[name].to_numpy(float)) + float(score))
        values = np.asarray(marginals[name].ppf(u))
        moved[name] = values.astype(inputs[name].dtype)
    return moved


@dataclass
class ShiftSearch:
    """The smallest move found by :func:`smallest_shift`.

    ``length`` is the move's Euclidean length in normal-score units (None if the target
    cannot be reached within :data:`MAX_SCORE` per input); ``scores`` the move of each input;
    ``probability`` the thesis's probability there; ``trail`` every ``(length,
    probability)`` simulated, in order; ``reached`` whether the target was passed.
    """

    direction: pd.Series
    length: float | None
    scores: dict[str, float]
    probability: float
    reached: bool
    trail: list[tuple[float, float]] = field(default_factory=list)


def smallest_shift(probability_at: Callable[[Mapping[str, float]], float],
                   direction: pd.Series, base_probability: float, target: float = 0.5,
                   steps: int = 8, on_step: OnStep | None = None) -> ShiftSearch:
    """Bisect the length of a move along ``direction`` until P(thesis) passes ``target``.

    Parameters
    ----------
    probability_at
        Input name -> score move, to the thesis's probability after re-simulating (the same
        random numbers in every call, so P is a smooth, nearly monotone function of the
        move rather than noise).
    direction
        Unit direction (:func:`shift_direction`); empty: nothing to move.
    base_probability
        P with no move.
    target
        The probability to pass.
    steps
        Bisection steps after the first try at the longest move (about ``2^-steps`` of it).
    on_step
        ``on_step(done, total)`` after each simulation.
    """
    def scores(length: float) -> dict[str, float]:
        return {name: float(length * weight) for name, weight in direction.items()}

    trail = [(0.0, float(base_probability))]
    if base_probability > target:
        return ShiftSearch(direction, 0.0, scores(0.0), float(base_probability), True, trail)
    if direction.empty:
        return ShiftSearch(direction, None, {}, float(base_probability), False, trail)
    total = steps + 1
    longest = MAX_SCORE / float(direction.abs().max())
    high_p = float(probability_at(scores(longest)))
    trail.append((longest, high_p))
    if on_step is not None:
        on_step(1, total)
    if high_p <= target:
        return ShiftSearch(direction, None, scores(longest), high_p, False, trail)
    low, high = 0.0, longest
    for step in range(steps):
        middle = (low + high) / 2.0
        p = float(probability_at(scores(middle)))
        trail.append((middle, p))
        if p > target:
            high, high_p = middle, p
        else:
            low = middle
        if on_step is not None:
            on_step(step + 2, total)
    return ShiftSearch(direction, high, scores(high), high_p, True, trail)


@dataclass
class Belief:
    """What :func:`believe` found for one thesis.

    Attributes
    ----------
    thesis
        The thesis (a :class:`~forecast.scenarios.theses.ThesisSpec`).
    probability, mcse, draws
        P(thesis) over the paths, its Monte Carlo error and the number of paths.
    shifts
        :func:`input_shifts`: each input where the thesis holds against all paths, ranked.
    explained_metric, explained_indicator
        :func:`explained_share` of the thesis metric and of its 0/1 indicator.
    search
        The smallest move (:func:`smallest_shift`).
    moves
        Each moved input: ``input, score, median_before, median_after, percentile_after``
        (where its old median's path goes: the percentile of its new median in its own
        distribution).
    mcse_at_shift
        Monte Carlo error of ``search.probability``.
    meta
        Provenance: scenario, fit, seed, ... (filled by the caller).
    """

    thesis: Any
    probability: float
    mcse: float
    draws: int
    shifts: pd.DataFrame
    explained_metric: float
    explained_indicator: float
    search: ShiftSearch
    moves: pd.DataFrame
    mcse_at_shift: float
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def decided_by(self) -> str:
        """``"inputs"`` when they explain at least :data:`DECIDED_BY_INPUTS` of the metric's
        variance, ``"posterior"`` (the fitted models) otherwise."""
        share = self.explained_metric
        return "inputs" if np.isfinite(share) and share >= DECIDED_BY_INPUTS else "posterior"


def _moves(direction: pd.Series, scores: Mapping[str, float],
           marginals: Mapping[str, Any]) -> pd.DataFrame:
    """Each moved input's median before and after the move."""
    rows = []
    for name in direction.index:
        score = float(scores.get(name, 0.0))
        ppf = marginals[name].ppf
        rows.append({"input": name, "score": score,
                     "median_before": float(np.asarray(ppf(0.5))),
                     "median_after": float(np.asarray(ppf(float(ndtr(score))))),
                     "percentile_after": float(ndtr(score)) * 100.0})
    return pd.DataFrame(rows, columns=["input", "score", "median_before", "median_after",
                                       "percentile_after"])


def believe(inputs: pd.DataFrame, metric: np.ndarray, thesis: Any,
            marginals: Mapping[str, Any], resimulate: Resimulate, *, top: int = TOP_INPUTS,
            target: float = 0.5, steps: int = 8, posterior_ess: float | None = None,
            on_step: OnStep | None = None) -> Belief:
    """What the paths where ``thesis`` holds need, and the smallest shift that makes it likely.

    Parameters
    ----------
    inputs
        Scenario-input draws, one row per path (the rows the paths were simulated with).
    metric
        The thesis metric of each path (:func:`forecast.pipeline.theses.thesis_values`).
    thesis
        Has ``comparator``, ``threshold`` and ``holds(values)``.
    marginals
        Input name -> its distribution (``cdf``, ``ppf``; see :func:`input_uniforms`).
    resimulate
        Moved inputs -> the thesis metric per path, re-simulated with the random numbers
        that made ``metric`` (common random numbers).
    top, target, steps
        Inputs moved at most, the probability to pass, bisection steps.
    posterior_ess
        Smallest bulk ESS of the fits (for the Monte Carlo errors; None: independent paths).
    on_step
        ``on_step(done, total)`` after each re-simulation.

    Returns
    -------
    Belief
    """
    metric = np.asarray(metric, dtype=float)
    if metric.shape != (len(inputs),):
        raise ForecastError(f"metric has shape {metric.shape}; expected ({len(inputs)},)")
    finite = np.isfinite(metric)
    if finite.sum() < 3:
        raise ForecastError(f"thesis {thesis.name}: fewer than 3 paths have a value")
    kept, values = inputs.loc[finite], metric[finite]
    check_paths(len(kept), len(_design(kept)[0]))
    holds = np.asarray(thesis.holds(values), dtype=bool)
    probability = float(holds.mean())
    shifts = input_shifts(kept, holds)
    ranked = list(shifts["input"]) if shifts["shift"].notna().any() else None
    direction = shift_direction(kept, values, thesis.comparator, ranked, top)
    uniforms = input_uniforms(inputs, marginals, list(direction.index))

    def probability_at(scores: Mapping[str, float]) -> float:
        moved = np.asarray(resimulate(move_inputs(inputs, uniforms, marginals, scores)),
                           dtype=float)
        ok = np.isfinite(moved)
        return float(np.mean(thesis.holds(moved[ok]))) if ok.any() else float("nan")

    search = smallest_shift(probability_at, direction, probability, target, steps, on_step)
    n = int(finite.sum())
    return Belief(thesis=thesis, probability=probability,
                  mcse=monte_carlo_error(probability, n, posterior_ess), draws=n,
                  shifts=shifts, explained_metric=explained_share(kept, values),
                  explained_indicator=explained_share(kept, holds.astype(float)),
                  search=search, moves=_moves(direction, search.scores, marginals),
                  mcse_at_shift=monte_carlo_error(search.probability, n, posterior_ess))
