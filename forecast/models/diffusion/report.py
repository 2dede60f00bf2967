"""A JSON-serialisable report of a diffusion fit (the ``cli.py diffusion`` output)."""

from __future__ import annotations

from typing import Any

from forecast.models.diffusion.fitted import FittedDiffusion


def diffusion_report(fitted: FittedDiffusion, interval: float = 0.9) -> dict[str, Any]:
    """Parameters with central intervals, and the convergence diagnostics of a fit.

    Keys: model, n_observations, generations, interval, parameters (a list of dicts with
    parameter, median, lower, upper), max_r_hat, min_ess_bulk, min_ess_tail, divergences,
    converged, fit_seconds.
    """
    diagnostics = fitted.diagnostics()
    return {
        "model": fitted.kind,
        "n_observations": int(fitted.meta["n_observations"]),
        "generations": list(fitted.meta["generations"]),
        "interval": interval,
        "parameters": fitted.parameters(interval).to_dict(orient="records"),
        "max_r_hat": diagnostics["max_r_hat"],
        "min_ess_bulk": diagnostics["min_ess_bulk"],
        "min_ess_tail": diagnostics["min_ess_tail"],
        "divergences": diagnostics["divergences"],
        "converged": bool(diagnostics["converged"]),
        "fit_seconds": float(fitted.meta.get("fit_seconds", float("nan"))),
    }
