"""Share forecasts from hand-made posteriors: values, levers, quarter selection, checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core.errors import FitError, ForecastError
from forecast.models.share import DEFAULT_PRIORS, FittedShareModel, elasticities

VENDORS = ("nvidia", "amd", "google", "aws")
START = np.array([0.82, 0.04, 0.11, 0.03])
LOG4 = float(np.log(4.0))


def _fitted(n: int = 200, seed: int = 0) -> FittedShareModel:
    """A fitted model with a random hand-made posterior (no sampling)."""
    rng = np.random.default_rng(seed)
    b = rng.lognormal(0.0, 0.3, n)
    a = np.column_stack([rng.normal(3, 0.3, n), np.zeros(n), rng.normal(0.3, 0.3, n),
                         rng.normal(-0.3, 0.3, n)])
    return _posterior_model(b, a, rng.uniform(0.2, 0.6, n), np.full(n, 0.2))


def _fixed(n: int = 50, b: float = 1.0, a=(LOG4, 0.0, 0.0, 0.0), lam: float = 0.5,
           sigma: float = 0.2) -> FittedShareModel:
    """A fitted model whose every posterior draw is the same point (hand-computable paths)."""
    return _posterior_model(np.full(n, b), np.tile(np.array(a, float), (n, 1)),
                            np.full(n, lam), np.full(n, sigma))


def _posterior_model(b, a, lam, sigma) -> FittedShareModel:
    n = len(b)
    quarters = ["2025Q2", "2025Q3"]
    share = np.broadcast_to(START, (n, 2, 4)).copy()
    posterior = xr.Dataset(
        {
            "price_coefficient": (("chain", "draw"), b[None]),
            "ecosystem": (("chain", "draw", "vendor"), a[None]),
            "adjustment_speed": (("chain", "draw"), lam[None]),
            "initial_logit": (("chain", "draw", "start_vendor"), np.zeros((1, n, 3))),
            "noise_sigma": (("chain", "draw"), sigma[None]),
            "share": (("chain", "draw", "quarter", "vendor"), share[None]),
            "target_share": (("chain", "draw", "quarter", "vendor"), share[None]),
        },
        coords={"chain": [0], "draw": np.arange(n), "vendor": list(VENDORS),
                "start_vendor": list(VENDORS[1:]), "quarter": quarters},
    )
    summary = pd.DataFrame({"parameter": ["price_coefficient"], "r_hat": [1.0],
                            "ess_bulk": [1000.0], "ess_tail": [1000.0]})
    return FittedShareModel(posterior=posterior, data={"observations": pd.DataFrame(
        {"quarter": quarters})}, config={"priors": DEFAULT_PRIORS}, summary_table=summary,
        meta={"quarters": quarters, "vendors": list(VENDORS), "divergences": 0})


def _costs(draws: int = 1, quarters: int = 8, values=(1.0, 0.8, 0.9, 0.6)) -> xr.DataArray:
    labels = [str(q) for q in pd.period_range("2025Q4", periods=quarters, freq="Q")]
    data = np.broadcast_to(np.array(values, float), (draws, quarters, 4)).copy()
    return xr.DataArray(data, dims=("draw", "quarter", "vendor"),
                        coords={"draw": np.arange(draws), "quarter": labels,
                                "vendor": list(VENDORS)})


# --------------------------------------------------------------------------- values


def test_forecast_moves_from_the_last_fitted_shares_towards_the_target():
    result = _fixed().forecast(2, draws=5, cost_paths=_costs(values=(1.0, 1.0, 1.0, 1.0)))
    # Equal costs: target = softmax(log 4, 0, 0, 0) = (4, 1, 1, 1) / 7; lambda = 0.5.
    target = np.array([4.0, 1.0, 1.0, 1.0]) / 7
    first = START + 0.5 * (target - START)
    second = first + 0.5 * (target - first)
    np.testing.assert_allclose(result["target_share"].values, np.broadcast_to(target, (5, 2, 4)))
    np.testing.assert_allclose(result["share"].values[:, 0], np.broadcast_to(first, (5, 4)))
    np.testing.assert_allclose(result["share"].values[:, 1], np.broadcast_to(second, (5, 4)))
    assert result["share"].dims == ("draw", "quarter", "vendor")
    assert list(result["quarter"].values) == ["2025Q4", "2026Q1"]


def test_costs_enter_through_the_price_coefficient():
    # b = 2, NVIDIA twice as expensive: its weight 4 * 2^-2 = 1, the target is uniform.
    result = _fixed(b=2.0).forecast(1, draws=3, cost_paths=_costs(values=(2.0, 1.0, 1.0, 1.0)))
    np.testing.assert_allclose(result["target_share"].values, 0.25)


def test_ecosystem_shift_lowers_nvidias_term_per_year_after_the_fit():
    costs = _costs(values=(1.0, 1.0, 1.0, 1.0))
    result = _fixed().forecast(4, draws=3, cost_paths=costs, ecosystem_shift=4.0)
    # Quarter h after the fit: a_nvidia = log 4 - 4 * h / 4 = log 4 - h.
    weight = 4.0 * np.exp(-np.arange(1, 5))
    np.testing.assert_allclose(result["target_share"].values[0, :, 0], weight / (weight + 3))


def test_switching_speed_scales_the_adjustment_and_is_capped_at_one():
    costs = _costs(values=(1.0, 1.0, 1.0, 1.0))
    target = np.array([4.0, 1.0, 1.0, 1.0]) / 7
    slow = _fixed().forecast(1, draws=3, cost_paths=costs, switching_speed=0.2)
    np.testing.assert_allclose(slow["share"].values[0, 0], START + 0.1 * (target - START))
    fast = _fixed().forecast(1, draws=3, cost_paths=costs, switching_speed=5.0)
    np.testing.assert_allclose(fast["share"].values[0, 0], target)


def test_supply_cap_binds_when_set():
    fitted = _fitted()
    cheap_aws = _costs(values=(1.0, 1.0, 1.0, 0.01))
    free = fitted.forecast(draws=200, seed=3, cost_paths=cheap_aws)["share"].sel(vendor="aws")
    capped = fitted.forecast(draws=200, seed=3, cost_paths=cheap_aws,
                             supply_caps={"aws": np.full(200, 0.08)})
    assert float(free.max()) > 0.08  # without the cap AWS would pass it
    assert float(capped["share"].sel(vendor="aws").max()) <= 0.08 + 1e-12
    np.testing.assert_allclose(capped["target_share"].sel(vendor="aws"), 0.08)


def test_lowering_a_vendors_cost_raises_its_share_in_every_draw():
    fitted = _fitted()
    base = fitted.forecast(draws=300, seed=2, cost_paths=_costs())["share"]
    cheaper = _costs()
    cheaper.loc[{"vendor": "aws"}] = cheaper.sel(vendor="aws") * 0.5
    lowered = fitted.forecast(draws=300, seed=2, cost_paths=cheaper)["share"]
    assert (lowered.sel(vendor="aws") > base.sel(vendor="aws")).all()
    assert (lowered.sel(vendor="nvidia") < base.sel(vendor="nvidia")).all()


def test_noise_adds_the_model_error_on_the_log_ratio_scale():
    fitted = _fixed(n=50, sigma=0.2)
    latent = fitted.forecast(8, draws=4000, seed=1, cost_paths=_costs())["share"].values
    noisy = fitted.forecast(8, draws=4000, seed=1, cost_paths=_costs(), noise=True)
    share = noisy["share"].values
    np.testing.assert_allclose(share.sum(axis=-1), 1.0)
    alr = np.log(share[..., 1:] / share[..., :1]) - np.log(latent[..., 1:] / latent[..., :1])
    assert np.std(alr) == pytest.approx(0.2, rel=0.02)
    assert abs(np.mean(alr)) < 0.01


def test_other_share_scales_the_modelled_vendors():
    fitted = _fitted()
    plain = fitted.forecast(draws=100, seed=5, cost_paths=_costs())
    other = fitted.forecast(draws=100, seed=5, cost_paths=_costs(), other_share=0.03)
    assert list(other["vendor"].values) == [*VENDORS, "other"]
    np.testing.assert_allclose(other["share"].values[..., :4], 0.97 * plain["share"].values)
    np.testing.assert_allclose(other["share"].sel(vendor="other"), 0.03)
    np.testing.assert_allclose(other["target_share"].values[..., :4],
                               0.97 * plain["target_share"].values)


# --------------------------------------------------------------------------- quarters


def test_quarters_select_from_the_cost_paths():
    fitted = _fitted()
    full = fitted.forecast(draws=50, seed=7, cost_paths=_costs())
    assert list(full["quarter"].values) == list(_costs()["quarter"].values)
    first_three = fitted.forecast(3, draws=50, seed=7, cost_paths=_costs())
    np.testing.assert_array_equal(first_three["share"].values, full["share"].values[:, :3])
    labels = fitted.forecast(["2025Q4", "2026Q1"], draws=50, seed=7, cost_paths=_costs())
    np.testing.assert_array_equal(labels["share"].values, full["share"].values[:, :2])
    with pytest.raises(ForecastError, match="lack quarters"):
        fitted.forecast(9, draws=50, cost_paths=_costs())
    with pytest.raises(ForecastError, match="lack quarters"):
        fitted.forecast(["2030Q1"], draws=50, cost_paths=_costs())


def test_a_later_start_simulates_the_quarters_in_between():
    """A share fit whose data end before the other models' forecasts the common quarters:
    the quarters in between are simulated from its last state, then dropped."""
    equal = _costs(values=(1, 1, 1, 1))
    later = _fixed().forecast(["2026Q1", "2026Q2"], draws=5, cost_paths=equal)
    whole = _fixed().forecast(3, draws=5, cost_paths=equal)
    assert list(later["quarter"].values) == ["2026Q1", "2026Q2"]
    np.testing.assert_allclose(later["share"].values,
                               whole["share"].sel(quarter=["2026Q1", "2026Q2"]).values)
    # The cost paths must cover the quarters in between.
    with pytest.raises(ForecastError, match="lack quarters"):
        _fixed().forecast(["2026Q2"], draws=5, cost_paths=equal.isel(quarter=slice(1, None)))


def test_an_earlier_start_begins_from_the_fitted_state_of_the_quarter_before():
    costs = _costs(values=(1, 1, 1, 1), quarters=3)
    costs = costs.assign_coords(quarter=["2025Q3", "2025Q4", "2026Q1"])
    result = _fixed().forecast(["2025Q3"], draws=5, cost_paths=costs)
    target = np.array([4.0, 1.0, 1.0, 1.0]) / 7
    np.testing.assert_allclose(result["share"].values[0, 0], START + 0.5 * (target - START))
    early = costs.assign_coords(quarter=["2025Q1", "2025Q2", "2025Q3"])
    with pytest.raises(ForecastError, match="give start_shares"):
        _fixed().forecast(["2025Q1"], draws=5, cost_paths=early)


def test_start_shares_replace_the_fitted_state():
    fitted = _fitted()
    start = {"nvidia": 0.7, "amd": 0.1, "google": 0.1, "aws": 0.1}
    result = _fixed().forecast(["2026Q1"], draws=10, cost_paths=_costs(values=(1, 1, 1, 1)),
                               start_shares=start)
    target = np.array([4.0, 1.0, 1.0, 1.0]) / 7
    expected = np.array([0.7, 0.1, 0.1, 0.1]) + 0.5 * (target - [0.7, 0.1, 0.1, 0.1])
    np.testing.assert_allclose(result["share"].values[0, 0], expected)
    with pytest.raises(ForecastError, match="consecutive"):
        fitted.forecast(["2026Q1", "2026Q3"], draws=10, cost_paths=_costs(), start_shares=start)


def test_numpy_cost_paths_are_labelled_by_quarters_and_vendors():
    fitted = _fitted()
    costs = _costs()
    expected = fitted.forecast(draws=20, seed=4, cost_paths=costs)["share"].values
    # Vendors in another order: the columns are matched by name.
    order = [3, 1, 0, 2]
    values = costs.values[:, :, order]
    vendors = [VENDORS[i] for i in order]
    by_labels = fitted.forecast(list(costs["quarter"].values), draws=20, seed=4,
                                cost_paths=values, vendors=vendors)
    np.testing.assert_array_equal(by_labels["share"].values, expected)
    by_count = fitted.forecast(8, draws=20, seed=4, cost_paths=values, vendors=vendors)
    np.testing.assert_array_equal(by_count["share"].values, expected)
    with pytest.raises(ForecastError, match="numpy"):
        fitted.forecast(draws=10, cost_paths=costs.values)
    with pytest.raises(ForecastError, match="shape"):
        fitted.forecast(4, draws=10, cost_paths=values, vendors=vendors)


def test_forecast_inputs_are_checked():
    fitted = _fitted()
    with pytest.raises(ForecastError, match="draws"):
        fitted.forecast(draws=10, cost_paths=_costs(draws=3))
    with pytest.raises(ForecastError, match="draws must be > 0"):
        fitted.forecast(draws=0, cost_paths=_costs())
    with pytest.raises(ForecastError, match="unknown vendors"):
        fitted.forecast(draws=10, cost_paths=_costs(), supply_caps={"intel": 0.1})
    with pytest.raises(ForecastError, match="lack vendors"):
        fitted.forecast(draws=10, cost_paths=_costs().sel(vendor=["nvidia", "amd"]))
    with pytest.raises(ForecastError, match="finite and > 0"):
        fitted.forecast(draws=10, cost_paths=_costs(values=(1.0, 0.0, 1.0, 1.0)))
    with pytest.raises(ForecastError, match="switching_speed"):
        fitted.forecast(draws=10, cost_paths=_costs(), switching_speed=np.ones(3))
    with pytest.raises(ForecastError, match="other_share"):
        fitted.forecast(draws=10, cost_paths=_costs(), other_share=1.0)
    with pytest.raises(ForecastError, match="sum to 1"):
        fitted.forecast(draws=10, cost_paths=_costs(), start_shares=np.full(4, 0.3))


# --------------------------------------------------------------------------- tables, storage


def test_elasticity_table_at_a_known_price_coefficient():
    fitted = _fixed(b=0.8)
    fixed = elasticities(fitted, shares={"nvidia": 0.7, "amd": 0.1, "google": 0.1, "aws": 0.1})
    assert len(fixed) == 16
    table = fixed.set_index(["vendor_i", "vendor_j"])
    # -b (delta_ij - s_j): own -0.8 * 0.9 for AWS, cross 0.8 * 0.1 for NVIDIA to AWS's cost.
    assert table.loc[("aws", "aws"), "median"] == pytest.approx(-0.72)
    assert table.loc[("nvidia", "aws"), "p10"] == pytest.approx(0.08)
    assert table.loc[("aws", "nvidia"), "p90"] == pytest.approx(0.56)
    # Default: the last fitted target shares (START here).
    last = elasticities(fitted).set_index(["vendor_i", "vendor_j"])
    assert last.loc[("nvidia", "nvidia"), "median"] == pytest.approx(-0.8 * (1 - START[0]))


def test_save_and_load_round_trip(tmp_path):
    fitted = _fitted(n=50)
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
