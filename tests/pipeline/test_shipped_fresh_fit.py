"""The shipped fit against a fresh one: what ``python cli.py fits ship`` would write today.

Every shipped scenario is refitted on ``data/`` at the models' default samplers and the
default gate, as the shipping command does (a private store, nothing reused). The fit must
pass the gate under every scenario, and its forecasts must agree with the shipped fit's within
Monte Carlo error: the headline quantities' medians and the default theses' probabilities.
Validation tier: three spend fits and a price fit, 20-30 minutes on 2 cores.
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.validation]

#: (metric, vendor, calendar year) of the README's headline table.
HEADLINE = (("tam", None, 2026), ("tam", None, 2030), ("share", "nvidia", 2030),
            ("share", "aws", 2030), ("aws_rental_revenue", None, 2030))
#: Paths per forecast, and the effective sample size the comparison credits each side with:
#: the shipped fit keeps thinned draws whose ESS the gate holds above 400.
DRAWS = 4000
EFFECTIVE = 400
#: Standard errors a difference may reach before it is called a disagreement.
Z = 4.0


@pytest.fixture(scope="module")
def fresh_store(tmp_path_factory):
    from forecast.data.dataset import DEFAULT_DATA_DIR, load_dataset
    from forecast.pipeline.fitting import fit_all
    from forecast.scenarios import list_scenarios

    root = tmp_path_factory.mktemp("fresh")
    bundle = fit_all(load_dataset(DEFAULT_DATA_DIR), list_scenarios(), root=root, reuse=False)
    assert bundle.status == "published", bundle.meta.get("gate_failures")
    return root


def _median_se(values: np.ndarray) -> float:
    """Monte Carlo error of a median from ``EFFECTIVE`` independent draws (normal theory:
    1.253 sd / sqrt(n), on the IQR's sd for heavy tails)."""
    q25, q75 = np.quantile(values, [0.25, 0.75])
    return 1.253 * (q75 - q25) / 1.349 / np.sqrt(EFFECTIVE)


@pytest.mark.parametrize("scenario", ["bull", "base", "bear"])
def test_a_fresh_fit_agrees_with_the_shipped_fit(fresh_store, tmp_path, scenario) -> None:
    from forecast.pipeline.runner import run_scenario

    fresh = run_scenario(scenario, draws=DRAWS, seed=7, root=fresh_store)
    shipped = run_scenario(scenario, draws=DRAWS, seed=7, root=tmp_path / "empty")
    assert shipped.fit_id != fresh.fit_id
    for metric, vendor, year in HEADLINE:
        cells = []
        for result in (fresh, shipped):
            values = result.annual(metric)
            if vendor is not None:
                values = values.sel(vendor=vendor)
            cells.append(np.log(values.sel(period=str(year)).values))
        gap = abs(np.median(cells[0]) - np.median(cells[1]))
        error = np.hypot(_median_se(cells[0]), _median_se(cells[1]))
        assert gap <= Z * error, (metric, vendor, year, gap, error)
    theses = fresh.theses().set_index("name").add_suffix("_fresh").join(
        shipped.theses().set_index("name").add_suffix("_shipped"))
    for name, row in theses.iterrows():
        p, q = row["probability_fresh"], row["probability_shipped"]
        if np.isnan(p) or np.isnan(q):
            assert np.isnan(p) and np.isnan(q), name
            continue
        # Binomial error on the effective draws, floored at one effective draw's weight.
        pooled = (p + q) / 2
        error = max(np.sqrt(2 * pooled * (1 - pooled) / EFFECTIVE), 1 / EFFECTIVE)
        assert abs(p - q) <= Z * error, (name, p, q, error)
