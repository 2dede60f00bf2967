"""Model checks of a stored fit: posterior predictive coverage of the data, and PSIS-LOO.

``python cli.py check MODEL --scenario NAME`` prints what :func:`check_model` returns
(laid out by :func:`forecast.reporting.model_check.format_check`). The
posterior predictive draws come from the PyMC model rebuilt on the fit's own data snapshot
and priors, with the stored posterior (every free variable is kept in ``posterior.nc``), so
this imports PyMC; the forecast path does not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.core.errors import ForecastError
from forecast.models.diagnostics import loo_coverage, loo_report, predictive_coverage
from forecast.models.registry import SCENARIO_MODELS, model_class
from forecast.pipeline.runner import load_run


@dataclass(frozen=True)
class CheckResult:
    """What a model check found.

    ``coverage``: one row per observed variable and ``all``: n, ``coverage_50``,
    ``coverage_80`` and ``coverage_90`` (shares of observations inside the central
    posterior predictive intervals; a calibrated model gives about 0.5, 0.8 and 0.9), the
    same from the predictive without each observation (``loo_coverage_*``, by PSIS: the
    plain predictive has seen the observation it covers) and how many of those rest on a
    Pareto k above 0.7 (``loo_k_above_0_7``). ``loo``: PSIS-LOO (elpd, se, p_loo) and the
    counts of Pareto k in (-inf, 0.5], (0.5, 0.7], (0.7, 1], >1.
    """

    model: str
    scenario: str
    fit_id: str
    coverage: pd.DataFrame
    loo: dict[str, Any]
    diagnostics: dict[str, Any]


def check_model(model: str, scenario: str, *, root: str | Path | None = None,
                fit_id: str | None = None, data_dir: str | Path | None = None,
                seed: int = 0, progress: Callable[[str], None] | None = None) -> CheckResult:
    """Posterior predictive coverage and PSIS-LOO of one model of a scenario's fit.

    Uses the latest published fit covering the scenario (fitting first when there is none,
    as ``forecast`` does), or ``fit_id``.
    """
    if model not in SCENARIO_MODELS:
        raise ForecastError(f"check: unknown model {model!r} (choose from "
                            f"{', '.join(SCENARIO_MODELS)})")
    spec, dataset, bundle = load_run(scenario, root=root, fit_id=fit_id, data_dir=data_dir,
                                     progress=progress)
    fitted = bundle.models[model]
    builder = model_class(model)(priors=fitted.config["priors"])
    inputs = builder.prepare_with(dataset, spec, bundle.models)
    idata = fitted.inference_data()
    predictive = builder.posterior_predictive(inputs, fitted, seed=seed)
    coverage = predictive_coverage(idata.observed_data, predictive.posterior_predictive).merge(
        loo_coverage(idata.observed_data, predictive.posterior_predictive,
                     idata.log_likelihood), on="variable", how="left")
    return CheckResult(model=model, scenario=spec.name, fit_id=bundle.fit_id,
                       coverage=coverage, loo=loo_report(idata),
                       diagnostics=fitted.diagnostics())
