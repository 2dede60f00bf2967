"""The model check (:mod:`forecast.pipeline.check`) as lines of text."""

from __future__ import annotations

from forecast.pipeline.check import CheckResult


def format_check(result: CheckResult) -> str:
    """The check as the lines the CLI prints."""
    lines = [f"{result.model} model, scenario {result.scenario}, fit {result.fit_id}", "",
             "Posterior predictive coverage of the observed data "
             "(calibrated: about 0.50, 0.80 and 0.90), plain and leave-one-out (loo_: "
             "without the observation, by PSIS; loo_k_above_0_7 counts the observations "
             "whose estimate is unreliable):"]
    table = result.coverage.copy()
    for column in table.columns:
        if "coverage_" in column:
            table[column] = table[column].map(lambda value: f"{value:.2f}")
    lines.append(table.to_string(index=False))
    loo = result.loo
    lines += ["", f"PSIS-LOO over {loo['n']} observations: elpd_loo {loo['elpd_loo']:.1f} "
                  f"(se {loo['se']:.1f}), p_loo {loo['p_loo']:.1f}",
              f"Pareto k: {loo['pareto_k_good']} good (<= 0.5), {loo['pareto_k_ok']} ok "
              f"(0.5-0.7), {loo['pareto_k_bad']} bad (0.7-1), {loo['pareto_k_very_bad']} "
              f"very bad (> 1); max {loo['max_pareto_k']:.2f}"]
    diag = result.diagnostics
    lines.append(f"Convergence: max r_hat {diag['max_r_hat']:.3f}, min bulk ESS "
                 f"{diag['min_ess_bulk']:.0f}, {diag['divergences']} divergences")
    return "\n".join(lines)
