"""Where a structural model loses to a naive baseline, read from a backtest's JSON."""

from __future__ import annotations

from forecast.evaluation.share_backtest import STACK
from forecast.evaluation.skill import skill_gaps


def pooled(model: str, n: int, log_crps: float | None, crps: float = 1.0) -> dict:
    return {"model": model, "pooled": {"n": n, "log_crps": log_crps, "crps": crps}}


def test_a_loss_to_the_best_same_cells_baseline_is_reported_and_a_win_is_not() -> None:
    report = {"models": [pooled("spend_model", 52, 0.14), pooled("rw_drift", 52, 0.16),
                         # Fewer cells: not comparable, however low its score.
                         pooled("ets", 28, 0.01),
                         # A stack and a variant of the model are not baselines.
                         pooled("stack (spend_model + rw_drift)", 52, 0.10),
                         pooled("spend_model (unbounded)", 52, 0.12)],
              "summary": [
                  {"series": "amd", "model": "spend_model", "quarters_ahead": "all", "n": 16,
                   "crps_log": 0.22},
                  {"series": "amd", "model": "rw_drift", "quarters_ahead": "all", "n": 16,
                   "crps_log": 0.12},
                  {"series": "amd", "model": "constant", "quarters_ahead": "all", "n": 16,
                   "crps_log": 0.18},
                  # One quarters's row is not the series' score.
                  {"series": "nvidia", "model": "rw_drift", "quarters_ahead": "1", "n": 4,
                   "crps_log": 0.01},
                  {"series": "nvidia", "model": "spend_model", "quarters_ahead": "all", "n": 16,
                   "crps_log": 0.07},
                  {"series": "nvidia", "model": "rw_drift", "quarters_ahead": "all", "n": 16,
                   "crps_log": 0.10}]}
    gaps = skill_gaps("spend", report)
    assert [(g.series, g.baseline, g.model_score, g.baseline_score, g.n) for g in gaps] == [
        ("amd", "rw_drift", 0.22, 0.12, 16)]
    assert "spend_model log CRPS 0.220 vs rw_drift 0.120 over 16 forecasts" in gaps[0].line()


def test_without_a_log_score_the_crps_decides_and_price_classes_count_apart() -> None:
    # The shares' published forecast is the stack: it, not the model alone, is weighed,
    # and the model's held twin is a variant of the model, not a baseline.
    share = {"models": [pooled("spend_model", 32, None, 0.150),
                        pooled("spend_model (held positions)", 32, None, 0.100),
                        pooled(STACK, 32, None, 0.222),
                        pooled("constant_share", 32, None, 0.195)]}
    [gap] = skill_gaps("share", share)
    assert (gap.series, gap.metric, gap.baseline) == ("pooled", "CRPS", "constant_share")
    assert (gap.model, gap.model_score) == (STACK, 0.222)
    price = {"models": [pooled("bayesian", 40, 0.10), pooled("random walk", 40, 0.14)],
             "by_price_class": {"list": {"models": [pooled("bayesian", 10, 0.09),
                                                    pooled("random walk", 10, 0.05)]}}}
    assert [(g.series, g.baseline_score) for g in skill_gaps("price", price)] == [
        ("list prices", 0.05)]


def test_the_forecasters_weighed_are_those_whose_paths_a_forecast_publishes() -> None:
    from forecast.evaluation.skill import HELD, published_forecasters

    # The stack gave the model no paths: the held twin is what was published.
    assert published_forecasters("spend", 0.0) == (HELD,)
    assert published_forecasters("spend", 1.0) == ("spend_model",)
    assert published_forecasters("spend", 0.4) == ("spend_model", HELD)
    # Without a stack (`forecast --no-stack`) the model's own positions, in both backtests.
    assert published_forecasters("spend", None) == ("spend_model",)
    assert published_forecasters("share", None) == ("spend_model",)
    assert published_forecasters("share", 0.0) == (STACK,)
    assert published_forecasters("price", 0.0) == ("bayesian",)
    report = {"models": [pooled("spend_model", 52, 0.14), pooled(HELD, 52, 0.11),
                         pooled("rw_drift", 52, 0.16)],
              "summary": [{"series": "amd", "model": m, "quarters_ahead": "all", "n": 16,
                           "crps_log": score}
                          for m, score in (("spend_model", 0.21), (HELD, 0.15),
                                           ("rw_drift", 0.12))]}
    # Each published forecaster is weighed on its own scores; the twin is not a baseline.
    gaps = skill_gaps("spend", report, published_forecasters("spend", 0.0))
    assert [(g.model, g.series, g.model_score) for g in gaps] == [(HELD, "amd", 0.15)]
    both = skill_gaps("spend", report, published_forecasters("spend", 0.5))
    assert [(g.model, g.model_score) for g in both] == [("spend_model", 0.21), (HELD, 0.15)]
