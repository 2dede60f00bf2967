"""The default convergence gate on the shipped data with the price model's own sampler: every
summary parameter and the cycle state forecasts start from."""

from __future__ import annotations

import pytest

from forecast.data.dataset import load_dataset
from forecast.models.price import PRICE_SAMPLER, PriceModel


@pytest.mark.validation
def test_default_sampler_passes_the_gate_on_the_shipped_data():
    fit = PriceModel().fit_dataset(load_dataset(), random_seed=11)
    assert fit.config["sampler"]["draws"] == PRICE_SAMPLER["draws"]
    gate = fit.diagnostics()
    assert gate["divergences"] == 0
    assert gate["max_r_hat"] <= 1.01
    assert gate["min_ess_bulk"] >= 400
    summary = fit.summary().set_index("parameter")
    start = f"cycle@{fit.meta['quarters'][-1]}"
    assert summary.loc[start, "r_hat"] <= 1.01 and summary.loc[start, "ess_bulk"] >= 400
    for name in ("vintage", "decay[nvidia]", "provider_sd", "list_premium"):
        assert summary.loc[name, "ess_bulk"] >= 400, name
