"""Which scenario inputs move a forecast output: tornado, spider, global ranking, tails.

Two layers, kept apart:

*Pure math* over callables, arrays and DataFrames (no simulation, no I/O):

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

*Simulation*: :class:`OutputSpec` names an output (``aws_revenue_topdown:2030``,
``share:aws:2030``, ``thesis:aws_revenue_50b_by_2030``) and :func:`output_draws` /
:func:`output_value` read it off a :class:`~forecast.pipeline.results.Forecast`.
:class:`SimulationSensitivity` re-runs :func:`~forecast.pipeline.simulate.simulate` from one loaded
fit with the scenario inputs held at quantiles (the ``inputs`` argument of ``simulate``),
always with the same seed and number of draws: common random numbers, so the posterior
draws and model noise are identical across runs and a swing is the effect of the input, not
Monte Carlo noise.

What one-at-a-time swings mean here: with every input held at a single value, the spread
left in the output is the models' posterior uncertainty; the swing is the change in a
statistic of the output (its median by default, or a thesis probability) as one input
moves from its P10 to its P90. Correlations between inputs are ignored in these runs (they
are not in the global ranking and tail attribution). An input that acts only as a prior at
fitting time (the TAM ceiling) has no effect while the fit is held fixed, and shows a swing
of exactly zero.

Numpy, pandas, scipy and xarray only: no PyMC.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from forecast.core.calendar import period_quarters
from forecast.core.errors import ForecastError
from forecast.pipeline.results import UNITS, Forecast
from forecast.pipeline.theses import aggregate_period, evaluate_thesis, metric_values

#: Short names accepted for forecast metrics.
METRIC_ALIASES = {
    "aws_revenue": "aws_revenue_topdown",
    "custom_silicon": "custom_silicon_spend",
}

#: Statistics of a metric's draws that an output can summarise.
STATISTICS = ("median", "mean", "p10", "p90")

#: Percentiles of the spider chart.
SPIDER_PERCENTILES = (10, 20, 30, 40, 50, 60, 70, 80, 90)

#: Default number of paths per one-at-a-time run.
DEFAULT_DRAWS = 2000

_PERIOD = re.compile(r"^\d{4}(Q[1-4])?$")


# =========================================================================== pure math


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
        ``input, overall_median, tail_median, tail_p10, tail_p90, mean_percentile, shift,
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
            "tail_p10": float(np.quantile(inside, 0.1)),
            "tail_p90": float(np.quantile(inside, 0.9)),
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


# =========================================================================== outputs


@dataclass(frozen=True)
class OutputSpec:
    """A scalar output of a forecast.

    Attributes
    ----------
    metric
        A forecast metric (``tam``, ``share``, ``aws_revenue_topdown``...), or the thesis
        name when ``kind`` is ``"thesis"``.
    period
        A calendar year (``"2030"``: the year's sum for money, mean for levels) or a
        quarter (``"2030Q4"``); None for theses (they carry their own period).
    key
        Vendor or chip, for metrics that have one (``share``, ``price``...).
    kind
        ``"metric"`` or ``"thesis"``.
    stat
        For metrics, the statistic over draws: median, mean, p10 or p90. A thesis output is
        its probability.
    """

    metric: str
    period: str | None = None
    key: str | None = None
    kind: str = "metric"
    stat: str = "median"

    @property
    def text(self) -> str:
        """The spec as typed: ``metric[:key]:period`` or ``thesis:name``."""
        if self.kind == "thesis":
            return f"thesis:{self.metric}"
        return ":".join(part for part in (self.metric, self.key, self.period) if part)

    @property
    def label(self) -> str:
        """Readable name with the statistic, e.g. ``aws_revenue_topdown:2030 (median)``."""
        what = "probability" if self.kind == "thesis" else self.stat
        return f"{self.text} ({what})"

    @property
    def unit(self) -> str:
        if self.kind == "thesis":
            return "probability"
        return UNITS.get(self.metric, "")


def parse_output(text: str, stat: str = "median") -> OutputSpec:
    """Parse ``metric:period``, ``metric:key:period`` or ``thesis:name``.

    ``aws_revenue`` means ``aws_revenue_topdown`` and ``custom_silicon`` means
    ``custom_silicon_spend`` (:data:`METRIC_ALIASES`). Names are checked against a forecast
    by :func:`check_output`.
    """
    if stat not in STATISTICS:
        raise ForecastError(f"unknown statistic {stat!r} (known: {', '.join(STATISTICS)})")
    parts = [part.strip() for part in str(text).split(":")]
    if not all(parts):
        raise ForecastError(f"bad metric {text!r}: expected metric:period, "
                            "metric:vendor:period or thesis:NAME")
    if parts[0] == "thesis":
        if len(parts) != 2:
            raise ForecastError(f"bad metric {text!r}: expected thesis:NAME")
        return OutputSpec(metric=parts[1], kind="thesis")
    metric = METRIC_ALIASES.get(parts[0], parts[0])
    if len(parts) == 2:
        key, period = None, parts[1]
    elif len(parts) == 3:
        key, period = parts[1], parts[2]
    else:
        raise ForecastError(f"bad metric {text!r}: expected metric:period (e.g. "
                            "aws_revenue:2030), metric:vendor:period or thesis:NAME")
    if not _PERIOD.match(period):
        raise ForecastError(f"bad period {period!r} in {text!r}: expected YYYY or YYYYQn")
    return OutputSpec(metric=metric, period=period, key=key, stat=stat)


def _thesis(forecast: Forecast, name: str) -> Any:
    for thesis in forecast.theses_specs:
        if thesis.name == name:
            return thesis
    known = ", ".join(t.name for t in forecast.theses_specs) or "none"
    raise ForecastError(f"unknown thesis {name!r} in scenario {forecast.scenario} "
                        f"(known: {known})")


def check_output(forecast: Forecast, spec: OutputSpec) -> None:
    """Raise :class:`ForecastError` unless ``spec`` names an output of ``forecast``."""
    output_draws(forecast, spec)


def output_draws(forecast: Forecast, spec: OutputSpec) -> np.ndarray:
    """The output's value in every draw.

    For a thesis, the thesis metric aggregated over its period (the quantity it compares
    with its threshold), so that rankings and tails see a continuous value.
    """
    if spec.kind == "thesis":
        thesis = _thesis(forecast, spec.metric)
        return np.asarray(aggregate_period(metric_values(forecast.data, thesis),
                                           period_quarters(thesis.period), thesis.aggregate),
                          dtype=float)
    if spec.metric not in forecast.data:
        known = sorted([*forecast.metrics, *METRIC_ALIASES, "thesis:NAME"])
        raise ForecastError(f"unknown metric {spec.metric!r} (known: {', '.join(known)})")
    assert spec.period is not None
    if "Q" in spec.period:
        values = forecast.paths(spec.metric)
        if spec.period not in values["quarter"].values:
            raise ForecastError(f"{spec.text}: quarter {spec.period} is outside the forecast "
                                f"({values['quarter'].values[0]}..{values['quarter'].values[-1]})")
        values = values.sel(quarter=spec.period)
    else:
        values = forecast.annual(spec.metric)
        if spec.period not in values["period"].values:
            years = [str(y) for y in values["period"].values]
            raise ForecastError(f"{spec.text}: year {spec.period} is outside the forecast "
                                f"({years[0]}..{years[-1]})")
        values = values.sel(period=spec.period)
    extra = [str(d) for d in values.dims if d != "draw"]
    if extra:
        keys = [str(k) for k in values[extra[0]].values]
        if spec.key is None:
            raise ForecastError(f"metric {spec.metric} needs a {extra[0]}: "
                                f"{spec.metric}:KEY:{spec.period} with KEY one of "
                                f"{', '.join(keys)}")
        if spec.key not in keys:
            raise ForecastError(f"unknown {extra[0]} {spec.key!r} for {spec.metric} "
                                f"(known: {', '.join(keys)})")
        values = values.sel({extra[0]: spec.key})
    elif spec.key is not None:
        raise ForecastError(f"metric {spec.metric} has no vendor or chip; "
                            f"use {spec.metric}:{spec.period}")
    return np.asarray(values.transpose("draw").values, dtype=float)


def output_value(forecast: Forecast, spec: OutputSpec) -> float:
    """The output: a statistic of the metric's draws, or a thesis probability."""
    if spec.kind == "thesis":
        return float(evaluate_thesis(forecast.data, _thesis(forecast, spec.metric))
                     ["probability"])
    values = output_draws(forecast, spec)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return float("nan")
    if spec.stat == "mean":
        return float(values.mean())
    level = {"median": 0.5, "p10": 0.1, "p90": 0.9}[spec.stat]
    return float(np.quantile(values, level))


# =========================================================================== simulation


def fixed_inputs(scenario: Any, point: Mapping[str, float], n: int) -> pd.DataFrame:
    """Scenario inputs held at one value each, ``n`` identical rows (as ``Scenario.sample``).

    Inputs missing from ``point`` are held at their medians; quarter inputs stay integer
    quarter indices.
    """
    unknown = sorted(set(point) - set(scenario.input_names))
    if unknown:
        raise ForecastError(f"scenario {scenario.name} has no input {unknown[0]!r}")
    columns = {}
    for name, spec in scenario.inputs.items():
        value = point[name] if name in point else spec.median()
        if spec.is_quarter:
            columns[name] = np.full(n, int(round(value)), dtype=np.int64)
        else:
            columns[name] = np.full(n, float(value), dtype=float)
    frame = pd.DataFrame(columns, columns=scenario.input_names)
    frame.index.name = "draw"
    return frame


def input_ppfs(scenario: Any, names: Iterable[str] | None = None
               ) -> dict[str, Callable[[float], float]]:
    """Inverse CDF per scenario input (all inputs, or ``names``), for :func:`one_at_a_time`."""
    chosen = list(scenario.input_names if names is None else names)
    for name in chosen:
        if name not in scenario.inputs:
            raise ForecastError(f"scenario {scenario.name} has no input {name!r}")
    return {name: (lambda u, spec=scenario.inputs[name]: spec.quantile(u)) for name in chosen}


def forecast_inputs(scenario: Any, forecast: Forecast) -> pd.DataFrame:
    """The input draws behind a forecast made by ``simulate`` from the scenario's own sampler.

    ``Scenario.sample`` is deterministic given the number of draws and the seed, so these are
    exactly the rows ``simulate`` used (not so for a forecast made with an ``inputs``
    override).
    """
    if forecast.scenario != scenario.name:
        raise ForecastError(
            f"forecast is of scenario {forecast.scenario}, not {scenario.name}")
    return scenario.sample(forecast.draws, seed=forecast.seed)


class _Memoised:
    """A fitted model whose deterministic methods are cached for calls with hashable arguments.

    ``simulate`` asks the market model for the same TAM paths (same end, draws and seed) and
    both models for the same in-sample history in every one-at-a-time run; those answers do
    not depend on the scenario inputs, so each is computed once and copied out.
    """

    def __init__(self, model: Any, methods: Sequence[str]):
        self._model = model
        self._methods = frozenset(methods)
        self._cache: dict[Any, Any] = {}

    def __getattr__(self, name: str) -> Any:
        if name in ("_model", "_methods", "_cache"):  # not yet set (copy, unpickling)
            raise AttributeError(name)
        attribute = getattr(self._model, name)
        if name not in self._methods:
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            key = (name, args, tuple(sorted(kwargs.items())))
            try:
                hash(key)
            except TypeError:
                return attribute(*args, **kwargs)
            if key not in self._cache:
                self._cache[key] = attribute(*args, **kwargs)
            return copy.deepcopy(self._cache[key])

        return call


def _memoised_bundle(bundle: Any) -> Any:
    cached = {"market": ("forecast", "spend_history"), "share": ("fitted_shares",)}
    models = {name: (_Memoised(model, cached[name]) if name in cached else model)
              for name, model in bundle.models.items()}
    return dataclasses.replace(bundle, models=models)


class SimulationSensitivity:
    """One-at-a-time sensitivity of forecast outputs, re-running ``simulate`` per point.

    Every run uses the same fit, number of draws and seed (common random numbers). Each
    point (one value per input) is simulated once and all the requested outputs are read
    off it, so a tornado and a spider over the same outputs share runs.

    Parameters
    ----------
    bundle, dataset, scenario
        A loaded fit (keyed ``price``/``market``/``share``), its data and the scenario
        (see :func:`forecast.pipeline.runner.load_run`).
    outputs
        Outputs to track (:class:`OutputSpec` or text for :func:`parse_output`).
    draws
        Paths per run (default :data:`DEFAULT_DRAWS`).
    seed
        Seed of every run (default: the scenario's).
    horizon
        Last calendar year (default: the scenario's).
    progress
        Called with a line every 10 simulation runs.
    """

    def __init__(self, bundle: Any, dataset: Any, scenario: Any,
                 outputs: Sequence[OutputSpec | str], draws: int = DEFAULT_DRAWS,
                 seed: int | None = None, horizon: int | None = None,
                 progress: Callable[[str], None] | None = None):
        if int(draws) <= 0:
            raise ForecastError(f"draws must be > 0, got {draws}")
        self.outputs = [parse_output(o) if isinstance(o, str) else o for o in outputs]
        if not self.outputs:
            raise ForecastError("no output to analyse")
        self.bundle = _memoised_bundle(bundle)
        self.dataset = dataset
        self.scenario = scenario
        self.draws = int(draws)
        self.seed = scenario.seed if seed is None else int(seed)
        self.horizon = horizon
        self.progress = progress
        self.runs = 0
        self._cache: dict[tuple[float, ...], dict[OutputSpec, float]] = {}
        self._checked = False
        self._medians = {name: float(spec.median()) for name, spec in scenario.inputs.items()}

    def _values(self, point: Mapping[str, float]) -> dict[OutputSpec, float]:
        names = self.scenario.input_names
        full = {name: float(point.get(name, self._medians[name])) for name in names}
        key = tuple(full[name] for name in names)
        if key not in self._cache:
            from forecast.pipeline.simulate import simulate

            inputs = fixed_inputs(self.scenario, full, self.draws)
            result = simulate(self.bundle, self.dataset, self.scenario, draws=self.draws,
                              seed=self.seed, horizon=self.horizon, inputs=inputs)
            if not self._checked:
                for spec in self.outputs:
                    check_output(result, spec)
                self._checked = True
            self.runs += 1
            if self.progress is not None and self.runs % 10 == 0:
                self.progress(f"sensitivity: {self.runs} simulation runs")
            self._cache[key] = {spec: output_value(result, spec) for spec in self.outputs}
        return self._cache[key]

    def _spec(self, output: OutputSpec | str | None) -> OutputSpec:
        if output is None:
            return self.outputs[0]
        spec = parse_output(output) if isinstance(output, str) else output
        if spec not in self.outputs:
            raise ForecastError(f"output {spec.label} was not requested "
                                f"(requested: {', '.join(o.label for o in self.outputs)})")
        return spec

    def evaluator(self, output: OutputSpec | str | None = None
                  ) -> Callable[[Mapping[str, float]], float]:
        """Point -> output value, for the pure functions (:func:`tornado`, :func:`spider`)."""
        spec = self._spec(output)
        return lambda point: self._values(point)[spec]

    def baseline(self, output: OutputSpec | str | None = None) -> float:
        """The output with every input at its median."""
        return self.evaluator(output)({})

    def tornado(self, output: OutputSpec | str | None = None, low: float = 10,
                high: float = 90, inputs: Iterable[str] | None = None) -> pd.DataFrame:
        """Tornado data (see :func:`tornado_table`) plus each input's ``unit``."""
        self.baseline(output)  # first run: checks the outputs before the swings
        table = tornado(self.evaluator(output), input_ppfs(self.scenario, inputs), low, high)
        table["unit"] = [self.scenario.inputs[name].unit for name in table["input"]]
        return table

    def spider(self, output: OutputSpec | str | None = None,
               percentiles: Sequence[float] = SPIDER_PERCENTILES,
               inputs: Iterable[str] | None = None) -> pd.DataFrame:
        """Spider data (see :func:`spider_table`)."""
        self.baseline(output)
        return spider(self.evaluator(output), input_ppfs(self.scenario, inputs), percentiles)


@dataclass
class SensitivityResult:
    """Everything :func:`run_sensitivity` computes for one output."""

    output: OutputSpec
    scenario: Any
    fit_id: str
    draws: int
    seed: int
    tornado: pd.DataFrame
    ranking: pd.DataFrame
    runs: int


def run_sensitivity(name: str, metric: str, *, stat: str = "median",
                    draws: int | None = None, seed: int | None = None,
                    horizon: int | None = None, root: str | Path | None = None,
                    fit_id: str | None = None, data_dir: str | Path | None = None,
                    low: float = 10, high: float = 90,
                    progress: Callable[[str], None] | None = None) -> SensitivityResult:
    """Tornado of one output under a scenario, and the global ranking over its draws.

    Parameters
    ----------
    name
        Scenario name or file.
    metric
        Output text for :func:`parse_output` (``aws_revenue:2030``, ``thesis:NAME``...).
    stat
        Statistic of a metric's draws (median, mean, p10, p90).
    draws, seed, horizon
        Paths per run (default :data:`DEFAULT_DRAWS`), seed (default: the scenario's) and
        last year.
    root, fit_id, data_dir
        Which fit and data (as for :func:`forecast.pipeline.runner.run_scenario`).
    low, high
        Percentiles of the swing.
    """
    from forecast.pipeline.runner import load_run
    from forecast.pipeline.simulate import simulate

    spec = parse_output(metric, stat)
    scenario, dataset, bundle = load_run(name, root=root, fit_id=fit_id, data_dir=data_dir,
                                         progress=progress)
    runner = SimulationSensitivity(bundle, dataset, scenario, [spec],
                                   draws=DEFAULT_DRAWS if draws is None else draws,
                                   seed=seed, horizon=horizon, progress=progress)
    table = runner.tornado(spec, low=low, high=high)
    inputs = scenario.sample(runner.draws, seed=runner.seed)
    monte_carlo = simulate(runner.bundle, dataset, scenario, draws=runner.draws,
                           seed=runner.seed, horizon=horizon, inputs=inputs)
    ranking = global_ranking(inputs, output_draws(monte_carlo, spec))
    return SensitivityResult(output=spec, scenario=scenario, fit_id=bundle.fit_id,
                             draws=runner.draws, seed=runner.seed, tornado=table,
                             ranking=ranking, runs=runner.runs)


def display_tornado(table: pd.DataFrame, scenario: Any) -> pd.DataFrame:
    """Tornado table for people: input values as the scenario shows them, outputs rounded."""
    def show(name: str, value: float) -> str:
        return scenario.inputs[name].format_value(value)

    frame = pd.DataFrame({
        "rank": table["rank"],
        "input": table["input"],
        "low (P10)": [show(n, v) for n, v in zip(table["input"], table["low_value"],
                                                 strict=True)],
        "high (P90)": [show(n, v) for n, v in zip(table["input"], table["high_value"],
                                                  strict=True)],
        "unit": [scenario.inputs[n].unit for n in table["input"]],
        "output_at_low": table["output_at_low"].map(lambda v: f"{v:.4g}"),
        "output_at_high": table["output_at_high"].map(lambda v: f"{v:.4g}"),
        "swing": [_show_swing(v, b) for v, b in zip(table["swing"], table["baseline"],
                                                      strict=True)],
    })
    return frame


def _show_swing(swing: float, baseline: float) -> str:
    # Differences at rounding level (1e-9 of the output) are floating-point noise: show 0.
    if np.isfinite(swing) and abs(swing) <= 1e-9 * max(1.0, abs(baseline)):
        return "0"
    return f"{swing:.4g}"
