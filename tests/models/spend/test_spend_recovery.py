"""The spend model at its default sampler on data simulated by its own math: a ramp is
recovered and not reverted, and the parameters the data inform are recovered.

Validation tier: each fit takes minutes on 2 cores.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.models.spend.data import RAMP_COLUMNS
from forecast.models.spend.model import SpendModel
from forecast.models.spend.simulate import simulate_spend

pytestmark = [pytest.mark.slow, pytest.mark.validation]

#: A ramp of AMD inside the data (midpoint 2024Q2) and none after it.
RAMPS = pd.DataFrame([{"rival": "amd", "generation": "AMD ramp", "launch": "2023Q4",
                       "midpoint": 8097.0, "ahead": False, "lifted": True}],
                     columns=RAMP_COLUMNS)
TRUTH = {
    "growth_longrun": 0.04, "growth_persistence": 0.85, "growth_init": 0.06,
    "sigma_level": 0.03, "sigma_growth": 0.03,
    "price_coefficient": 1.0, "adjustment_speed": 0.4, "deviation_persistence": 0.5,
    "ecosystem_erosion": 0.0, "ecosystem": np.array([-3.2, -1.8, -3.0, -2.6]),
    "deviation_sd": np.array([0.06, 0.06, 0.1, 0.1]),
    "position_start": np.array([-3.2, -1.8, -3.5, -2.5]),
    "ramp_lift": np.array([1.5]), "ramp_lift_ahead": np.array([]),
    "nvidia_compute_fraction": 0.85, "broadcom_custom_fraction": 0.65,
    "amd_cpu_fraction_start": 0.8, "amd_cpu_growth": 0.02, "sigma_amd": 0.04,
    "sigma_broadcom": 0.04,
}


@pytest.fixture(scope="module")
def fitted() -> tuple[dict[str, pd.DataFrame], object]:
    # Ten quarters after the ramp's midpoint: with six (28 quarters) the lift's 90% interval
    # sat at the edge of what the test asks ([0.43, 2.34], once [0.20, 2.33]).
    data = simulate_spend(TRUTH, RAMPS, n_quarters=32, first_quarter="2019Q1", seed=5)
    truth = data.pop("truth")
    fit = SpendModel().fit(data, random_seed=11)
    return data, fit, truth


def _interval(fit, name: str) -> np.ndarray:
    return np.quantile(fit.stacked(name), [0.05, 0.95], axis=0)


def test_the_ramp_is_recovered_and_not_reverted(fitted) -> None:
    data, fit, truth = fitted
    low, high = _interval(fit, "ramp_lift")[:, 0]
    assert low < 1.5 < high and low > 0.3  # the prior N(0.5, 1) puts 16% below 0
    assert high - low < 0.6 * (2 * 1.645 * 1.0)
    paths = fit.forecast(8, draws=1000, seed=3)
    share = (paths["spend"].sel(vendor="amd") / paths["spend"].sel(vendor="nvidia"))
    ahead = np.log(share.median("draw").values)
    last = float(truth["position_amd"].iloc[-1])
    # The lift stays: eight quarters on, AMD's position is where the ramp took it, not back
    # at its pre-ramp level 1.5 below.
    assert abs(ahead[-1] - last) < 0.5


def test_the_parameters_the_data_inform_are_recovered(fitted) -> None:
    _, fit, _ = fitted
    for name, true in (("sigma_amd", 0.04), ("sigma_broadcom", 0.04),
                       ("growth_persistence", 0.85)):
        low, high = _interval(fit, name)
        assert low < true < high, name
    assert fit.diagnostics()["max_r_hat"] < 1.02
