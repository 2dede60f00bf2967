"""forecast.models.diffusion.report: the command line's report of a fit."""

from __future__ import annotations

import json

import pytest
from diffusion_fits import handmade_fit

from forecast.models.diffusion import diffusion_report


def test_report_holds_the_fit_s_diagnostics_and_parameters():
    fitted = handmade_fit("norton-bass")
    report = diffusion_report(fitted, interval=0.8)
    assert json.loads(json.dumps(report)) == report
    assert {key: report[key] for key in ("model", "n_observations", "generations", "interval",
                                         "divergences", "converged", "fit_seconds")} == {
        "model": "norton-bass", "n_observations": 10, "generations": ["a", "b"],
        "interval": 0.8, "divergences": 0, "converged": True, "fit_seconds": 1.0}
    assert (report["max_r_hat"], report["min_ess_bulk"], report["min_ess_tail"]) == (
        1.001, 800.0, 600.0)
    assert report["parameters"] == fitted.parameters(0.8).to_dict(orient="records")
    assert [row["parameter"] for row in report["parameters"]] == ["p", "q", "m[a]", "m[b]"]


def test_report_of_an_unconverged_fit():
    fitted = handmade_fit()
    fitted.summary_table.loc[1, "r_hat"] = 1.05
    fitted.meta["divergences"] = 3
    del fitted.meta["fit_seconds"]
    report = diffusion_report(fitted)
    assert report["converged"] is False and report["divergences"] == 3
    assert report["max_r_hat"] == 1.05
    assert report["fit_seconds"] != report["fit_seconds"]  # NaN when the fit time is unknown
    assert report["interval"] == pytest.approx(0.9)
