"""The forecast's vendor split: five groups everywhere, one history, custom silicon."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def base_run(shipped_store):
    from forecast.pipeline.runner import load_run
    from forecast.pipeline.simulate import simulate

    scenario, dataset, bundle = load_run("base", root=shipped_store)
    return bundle, simulate(bundle, dataset, scenario, draws=400, seed=5)


@pytest.mark.slow
def test_tam_shares_and_custom_silicon_cover_the_same_five_vendors(base_run) -> None:
    bundle, result = base_run
    data = result.data
    vendors = ["nvidia", "amd", "google", "aws", "other"]
    assert [str(v) for v in data["share"]["vendor"].values] == vendors
    assert [str(v) for v in data["spend"]["vendor"].values] == vendors
    assert [str(v) for v in data["vendor_cost"]["cost_vendor"].values] == vendors
    spend = bundle.models["spend"].forecast(2, draws=10)
    assert [str(v) for v in spend["vendor"].values] == vendors
    # Shares sum to one on every path; spend sums to the TAM (no vendor's dollars dropped).
    np.testing.assert_allclose(data["share"].sum("vendor").values, 1.0, atol=1e-12)
    np.testing.assert_allclose(data["spend"].sum("vendor").values, data["tam"].values,
                               rtol=1e-12)
    spend = data["spend"]
    custom = data["custom_silicon_spend"].values
    google_aws = (spend.sel(vendor="google") + spend.sel(vendor="aws")).values
    # Custom silicon holds Google and AWS and part, never all, of other.
    assert np.all(custom > google_aws)
    assert np.all(custom < google_aws + spend.sel(vendor="other").values)


@pytest.mark.slow
def test_the_split_continues_from_the_spend_models_last_quarter(base_run) -> None:
    bundle, result = base_run
    spend = bundle.models["spend"]
    paths = spend.forecast(1, include_history=True)["spend"]
    last = paths.sel(quarter=spend.window[-1])
    last_share = (last / last.sum("vendor")).median("draw")
    first = result.data["share"].isel(quarter=0).median("draw")
    # One quarter on, each vendor's median share is within a fifth of the spend model's
    # last fitted share: the forecast starts where the history ends.
    np.testing.assert_allclose(first.values, last_share.values, rtol=0.2)
