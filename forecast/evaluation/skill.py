"""Where a structural model loses to a naive baseline out of sample, read from a backtest's
JSON (what ``python cli.py backtest NAME --format json`` prints).

A forecast publishes the structural models' paths (the rivals' positions as the share
backtest's out-of-sample stack of the spend model and its held twin, so the spend backtest
weighs whichever of the two the stack draws paths from); an analyst should see, beside
them, which of its parts lost to a naive forecaster in the published backtests. Only
forecasters scored on the same cells compare: a baseline whose count of scored cells
differs from the structural model's (ETS and UC skip origins with too short a history) is
not weighed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from forecast.evaluation.share_backtest import STACK as SHARE_STACK
from forecast.evaluation.spend_backtest import BAYES, HELD

#: Each backtest's structural model (the forecaster whose paths ``forecast`` publishes:
#: for the shares, the stack of :mod:`forecast.evaluation.share_backtest`).
STRUCTURAL = {"price": "bayesian", "spend": BAYES, "share": SHARE_STACK}
#: Each backtest's model: its variants and stacks with it are not baselines.
MODEL = {"price": "bayesian", "spend": BAYES, "share": BAYES}
#: What each backtest scores, for a reader.
TARGETS = {"price": "rental prices",
           "spend": "vendor revenue",
           "share": "rivals' revenue over NVIDIA's (log ratio)"}


@dataclass(frozen=True)
class SkillGap:
    """The structural model of ``backtest`` scored worse than ``baseline`` on ``series``
    (``pooled``: every scored cell), lower scores being better."""

    backtest: str
    series: str
    model: str
    baseline: str
    metric: str
    model_score: float
    baseline_score: float
    n: int

    def line(self) -> str:
        """One line for a reader."""
        where = TARGETS.get(self.backtest, self.backtest)
        what = where if self.series == "pooled" else f"{where}, {self.series}"
        return (f"{self.backtest} backtest ({what}): {self.model} {self.metric} "
                f"{self.model_score:.3f} vs {self.baseline} {self.baseline_score:.3f} "
                f"over {self.n} forecasts")


def is_baseline(name: str, backtest: str) -> bool:
    """A naive forecaster of ``backtest``: neither its model, a variant of it (unbounded,
    held positions) nor a stack with it."""
    return MODEL[backtest] not in name


def published_forecasters(name: str, stack_weight: float | None = None) -> tuple[str, ...]:
    """The forecasters of backtest ``name`` whose paths a forecast publishes.

    The spend and share backtests' depend on the stack. Without one, the model's own paths
    in both. With the stack's weight of the model ``w``: in the spend backtest, the model's
    paths on ``w`` of them and its held twin's on the rest (each that has any); in the share
    backtest, the stack. The price backtest's: :data:`STRUCTURAL`'s.
    """
    if name in ("spend", "share") and stack_weight is None:
        return (MODEL[name],)
    if name != "spend":
        return (STRUCTURAL[name],)
    return tuple(forecaster for forecaster, share in ((STRUCTURAL[name], stack_weight),
                                                     (HELD, 1.0 - stack_weight)) if share > 0)


def skill_gaps(name: str, report: Mapping[str, Any],
               forecasters: tuple[str, ...] | None = None) -> list[SkillGap]:
    """Where backtest ``name``'s published forecasters lose to its best baseline: pooled
    over every cell, per price class (list, market) and per series where the report has them.

    Parameters
    ----------
    name
        A key of :data:`STRUCTURAL`.
    report
        The backtest's JSON: ``models`` (each with ``pooled`` scores), optionally
        ``by_price_class`` (label -> its own ``models``) and, for series, ``summary`` rows
        with ``series``, ``quarters_ahead`` ``"all"`` and ``crps_log``.
    forecasters
        The forecasters weighed (:func:`published_forecasters`); default the structural one.
    """
    return [gap for structural in (forecasters or (STRUCTURAL[name],))
            for gap in _gaps_of(name, report, structural)]


def _gaps_of(name: str, report: Mapping[str, Any], structural: str) -> list[SkillGap]:
    """:func:`skill_gaps` for one forecaster."""
    pooled = {m["model"]: m["pooled"] for m in report.get("models", [])}
    gaps = []
    if structural in pooled:
        gap = _gap(name, "pooled", structural, pooled, ("log_crps", "crps"))
        gaps += [gap] if gap else []
    for label, part in report.get("by_price_class", {}).items():
        scores = {m["model"]: m["pooled"] for m in part.get("models", [])}
        if structural in scores:
            gap = _gap(name, f"{label} prices", structural, scores, ("log_crps", "crps"))
            gaps += [gap] if gap else []
    by_series: dict[str, dict[str, dict[str, Any]]] = {}
    for row in report.get("summary", []):
        if "series" in row and str(row.get("quarters_ahead")) == "all":
            by_series.setdefault(row["series"], {})[row["model"]] = row
    for series, rows in sorted(by_series.items()):
        if structural in rows:
            gap = _gap(name, series, structural, rows, ("crps_log",))
            gaps += [gap] if gap else []
    return gaps


def _gap(name: str, series: str, structural: str, scores: Mapping[str, Mapping[str, Any]],
         metrics: tuple[str, ...]) -> SkillGap | None:
    """The gap to the best same-cells baseline on the first metric the model has, if any."""
    own = scores[structural]
    metric = next((m for m in metrics if own.get(m) is not None), None)
    if metric is None:
        return None
    rivals = {model: float(row[metric]) for model, row in scores.items()
              if is_baseline(model, name) and row.get(metric) is not None
              and row.get("n") == own.get("n")}
    if not rivals:
        return None
    best = min(rivals, key=rivals.__getitem__)
    if rivals[best] >= float(own[metric]):
        return None
    label = "log CRPS" if metric in ("log_crps", "crps_log") else "CRPS"
    return SkillGap(name, series, structural, best, label, float(own[metric]), rivals[best],
                    int(own["n"]))
