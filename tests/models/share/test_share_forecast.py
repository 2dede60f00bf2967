"""Share forecasts from hand-made posteriors: values against the state equations, levers,
quarter selection, input checks, elasticities and storage."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from numpy.testing import assert_allclose

from forecast.core.errors import FitError, ForecastError
from forecast.models.share import DEFAULT_PRIORS, FittedShareModel, elasticities

VENDORS = ("nvidia", "amd", "google", "aws", "other")
RIVALS = VENDORS[1:]
QUARTERS = ["2025Q2", "2025Q3"]


def _model(n: int = 50, b: float = 1.0, a=(-2.0, -2.0, -3.0, -2.5), lam: float = 0.5,
           rho: float = 0.5, sd: float = 0.1, obs: float = 0.05, m=(-2.5, -2.0, -3.5, -2.5),
           d=(0.0, 0.0, 0.1, 0.0), p=(0.0, 0.0, 0.0), seed: int | None = None
           ) -> FittedShareModel:
    """A fitted model whose draws are one point (``seed`` None) or scattered around it."""
    rng = np.random.default_rng(seed)

    def draws(value, k=None):
        base = np.broadcast_to(np.asarray(value, float), (n,) if k is None else (n, k)).copy()
        if seed is not None:
            base = base + 0.05 * rng.standard_normal(base.shape)
        return base[None]

    target = np.broadcast_to(np.asarray(a, float), (n, 2, 4))[None]
    posterior = xr.Dataset(
        {
            "price_coefficient": (("chain", "draw"), np.abs(draws(b))),
            "ecosystem_nvidia": (("chain", "draw"), draws(2.0)),
            "ecosystem": (("chain", "draw", "rival"), draws(a, 4)),
            "adjustment_speed": (("chain", "draw"), np.clip(draws(lam), 0, 1)),
            "deviation_persistence": (("chain", "draw"), np.clip(draws(rho), 0, 0.99)),
            "deviation_sd": (("chain", "draw", "rival"), np.abs(draws(sd, 4))),
            "obs_sd": (("chain", "draw", "rival"), np.abs(draws(obs, 4))),
            "target": (("chain", "draw", "quarter", "rival"), target),
            "state_m": (("chain", "draw", "rival"), draws(m, 4)),
            "state_d": (("chain", "draw", "rival"), draws(d, 4)),
            "state_p_mm": (("chain", "draw", "rival"), np.full((1, n, 4), p[0])),
            "state_p_md": (("chain", "draw", "rival"), np.full((1, n, 4), p[1])),
            "state_p_dd": (("chain", "draw", "rival"), np.full((1, n, 4), p[2])),
        },
        coords={"chain": [0], "draw": np.arange(n), "rival": list(RIVALS),
                "quarter": QUARTERS},
    )
    summary = pd.DataFrame({"parameter": ["price_coefficient"], "r_hat": [1.0],
                            "ess_bulk": [1000.0], "ess_tail": [1000.0]})
    return FittedShareModel(posterior=posterior, data={"observations": pd.DataFrame(
        {"quarter": QUARTERS})}, config={"priors": DEFAULT_PRIORS}, summary_table=summary,
        meta={"quarters": QUARTERS, "vendors": list(VENDORS), "divergences": 0})


def _costs(draws: int = 1, quarters: int = 8, values=(1.0, 1.0, 1.0, 1.0, 1.0),
           start: str = "2025Q4") -> xr.DataArray:
    labels = [str(q) for q in pd.period_range(start, periods=quarters, freq="Q")]
    data = np.broadcast_to(np.array(values, float), (draws, quarters, 5)).copy()
    return xr.DataArray(data, dims=("draw", "quarter", "vendor"),
                        coords={"draw": np.arange(draws), "quarter": labels,
                                "vendor": list(VENDORS)})


def _hand_path(m, d, target, lam, rho, steps):
    m, d, out = np.array(m, float), np.array(d, float), []
    for _ in range(steps):
        d = rho * d
        m = m + lam * (np.asarray(target) - m) + d
        out.append(m.copy())
    return np.array(out)


# --------------------------------------------------------------------------- values


def test_expected_path_follows_the_state_equations_and_shares_sum_to_one():
    model = _model()
    result = model.forecast(3, draws=4, cost_paths=_costs(), noise=False)
    expected = _hand_path((-2.5, -2.0, -3.5, -2.5), (0.0, 0.0, 0.1, 0.0),
                          (-2.0, -2.0, -3.0, -2.5), 0.5, 0.5, 3)
    assert_allclose(result["log_ratio"].values[0], expected)
    shares = result["share"].values
    assert_allclose(shares.sum(axis=-1), 1.0)
    assert_allclose(np.log(shares[0, :, 1:] / shares[0, :, :1]), expected)
    assert list(result["vendor"].values) == list(VENDORS)


def test_a_cheaper_rival_gets_a_higher_target_through_the_price_coefficient():
    model = _model(b=0.8)
    cheap = model.forecast(2, draws=2, cost_paths=_costs(values=(1.0, 0.5, 1.0, 1.0, 1.0)),
                           noise=False)["target_share"].values[0]
    base = model.forecast(2, draws=2, cost_paths=_costs(), noise=False)["target_share"].values[0]
    # AMD's target log-ratio rises by b log 2.
    assert np.log(cheap[0, 1] / cheap[0, 0]) - np.log(base[0, 1] / base[0, 0]) == (
        pytest.approx(0.8 * np.log(2.0)))


def test_intervals_widen_with_the_horizon():
    model = _model(seed=3, lam=0.15, rho=0.7, p=(0.01, 0.0, 0.002))
    paths = model.forecast(8, draws=4000, seed=1, cost_paths=_costs())["log_ratio"].values
    spread = np.quantile(paths, 0.9, axis=0) - np.quantile(paths, 0.1, axis=0)
    # Towards the stationary width of the adjusted process: wider at 4 than at 1 quarter,
    # and at 8 than at 4 (by more than the Monte Carlo noise of a quantile at 4,000 draws).
    assert np.all(spread[3] > 1.3 * spread[0]) and np.all(spread[7] > 1.05 * spread[3])


def test_start_log_ratios_replace_the_filtered_level_and_condition_the_deviation():
    model = _model(p=(0.04, 0.02, 0.05))
    start = np.array([-1.0, -1.5, -2.0, -3.0])
    result = model.forecast(1, draws=20000, seed=2, cost_paths=_costs(), noise=False,
                            start_log_ratios=start)["log_ratio"].values[:, 0]
    # d | m ~ N(d + p_md / p_mm (m - m_hat), p_dd - p_md^2 / p_mm); then one step.
    m_hat, d_hat = np.array([-2.5, -2.0, -3.5, -2.5]), np.array([0.0, 0.0, 0.1, 0.0])
    d_mean = d_hat + 0.5 * (start - m_hat)
    expected = start + 0.5 * (np.array([-2.0, -2.0, -3.0, -2.5]) - start) + 0.5 * d_mean
    assert_allclose(result.mean(axis=0), expected, atol=0.01)
    assert_allclose(result.std(axis=0), 0.5 * np.sqrt(0.05 - 0.02**2 / 0.04), rtol=0.05)


def test_ecosystem_shift_raises_every_rivals_target_per_year_after_the_fit():
    model = _model()
    shifted = model.forecast(4, draws=2, cost_paths=_costs(), noise=False,
                             ecosystem_shift=0.4)["target_share"].values[0]
    target = np.log(shifted[:, 1:] / shifted[:, :1])
    years = np.arange(1, 5) / 4.0
    assert_allclose(target - np.array([-2.0, -2.0, -3.0, -2.5]), 0.4 * years[:, None] *
                    np.ones((4, 4)))


def test_switching_speed_scales_the_adjustment_and_is_capped_at_one():
    model = _model(lam=0.4, d=(0.0, 0.0, 0.0, 0.0))
    fast = model.forecast(1, draws=2, cost_paths=_costs(), noise=False,
                          switching_speed=5.0)["log_ratio"].values[0, 0]
    assert_allclose(fast, [-2.0, -2.0, -3.0, -2.5])
    half = model.forecast(1, draws=2, cost_paths=_costs(), noise=False,
                          switching_speed=0.5)["log_ratio"].values[0, 0]
    assert_allclose(half, np.array([-2.5, -2.0, -3.5, -2.5]) + 0.2 * np.array(
        [0.5, 0.0, 0.5, 0.0]))


def test_supply_cap_binds_the_target_share():
    model = _model(a=(-2.0, -2.0, 1.0, -2.5))
    result = model.forecast(2, draws=3, cost_paths=_costs(), noise=False,
                            supply_caps={"aws": 0.2})["target_share"].values
    assert np.all(result[..., 3] <= 0.2 + 1e-9)
    assert_allclose(result.sum(axis=-1), 1.0)


def test_measurement_adds_the_measurement_noise():
    model = _model(sd=1e-6, obs=0.3)
    quiet = model.forecast(1, draws=5000, seed=4, cost_paths=_costs())["log_ratio"].values
    noisy = model.forecast(1, draws=5000, seed=4, cost_paths=_costs(),
                           measurement=True)["log_ratio"].values
    assert quiet.std(axis=0).max() < 1e-4
    assert_allclose(noisy.std(axis=0), 0.3, rtol=0.05)


# --------------------------------------------------------------------------- quarters


def test_a_later_first_quarter_simulates_the_quarters_in_between():
    model = _model()
    later = model.forecast(["2026Q2", "2026Q3"], draws=2, cost_paths=_costs(), noise=False)
    full = model.forecast(4, draws=2, cost_paths=_costs(), noise=False)
    assert list(later["quarter"].values) == ["2026Q2", "2026Q3"]
    assert_allclose(later["log_ratio"].values, full["log_ratio"].values[:, 2:])


def test_numpy_cost_paths_are_labelled_by_quarters_and_vendors():
    model = _model()
    order = ["other", "aws", "google", "amd", "nvidia"]
    values = np.ones((1, 2, 5))
    values[..., 0] = 0.5  # other
    result = model.forecast(["2025Q4", "2026Q1"], draws=2, cost_paths=values, vendors=order,
                            noise=False)["target_share"].values[0]
    assert np.log(result[0, 4] / result[0, 0]) == pytest.approx(-2.5 + np.log(2.0))


@pytest.mark.parametrize("kwargs, message", [
    ({"cost_paths": _costs(values=(1.0, 0.0, 1.0, 1.0, 1.0))}, "finite and > 0"),
    ({"cost_paths": _costs(draws=3)}, "draws"),
    ({"cost_paths": _costs().sel(vendor=["nvidia", "amd"])}, "lack vendors"),
    ({"cost_paths": np.ones((1, 2, 5))}, "needs quarters"),
    ({"cost_paths": _costs(), "switching_speed": np.ones(3)}, "switching_speed"),
    ({"cost_paths": _costs(), "supply_caps": {"intel": 0.1}}, "unknown vendors"),
    ({"cost_paths": _costs(), "start_log_ratios": np.zeros(3)}, "start_log_ratios"),
])
def test_forecast_inputs_are_checked(kwargs, message):
    with pytest.raises(ForecastError, match=message):
        _model().forecast(draws=2, **kwargs)


def test_quarters_inside_the_fit_are_refused():
    with pytest.raises(ForecastError, match="inside the fit"):
        _model().forecast(["2025Q3"], draws=2, cost_paths=_costs(start="2025Q3"))


# --------------------------------------------------------------------------- tables, storage


def test_elasticity_table_covers_five_vendors_at_a_known_price_coefficient():
    fitted = _model(b=0.8)
    fixed = elasticities(fitted, shares={"nvidia": 0.6, "amd": 0.1, "google": 0.1,
                                         "aws": 0.1, "other": 0.1})
    assert len(fixed) == 25
    table = fixed.set_index(["vendor_i", "vendor_j"])
    assert table.loc[("aws", "aws"), "median"] == pytest.approx(-0.72)
    assert table.loc[("other", "nvidia"), "p90"] == pytest.approx(0.48)
    # Default: the last fitted targets (softmax of 0 and the rivals' target log-ratios).
    target = np.exp(np.array([0.0, -2.0, -2.0, -3.0, -2.5]))
    share_nv = target[0] / target.sum()
    last = elasticities(fitted).set_index(["vendor_i", "vendor_j"])
    assert last.loc[("nvidia", "nvidia"), "median"] == pytest.approx(-0.8 * (1 - share_nv))


def test_save_and_load_round_trip(tmp_path):
    fitted = _model(seed=5)
    fitted.save(tmp_path / "fit")
    loaded = FittedShareModel.load(tmp_path / "fit")
    assert loaded.vendors == list(VENDORS)
    a = fitted.forecast(draws=20, seed=9, cost_paths=_costs())["share"].values
    b = loaded.forecast(draws=20, seed=9, cost_paths=_costs())["share"].values
    np.testing.assert_array_equal(a, b)
    (tmp_path / "fit" / "config.json").write_text(
        (tmp_path / "fit" / "config.json").read_text().replace('"share"', '"price"', 1))
    with pytest.raises(FitError):
        FittedShareModel.load(tmp_path / "fit")
