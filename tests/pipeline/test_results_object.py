"""Tests of the Forecast object and thesis evaluation on hand-made sample paths."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core.calendar import period_quarters
from forecast.core.errors import ForecastError
from forecast.core.quantile_schema import quantile_name as _q_name
from forecast.pipeline.results import ANNUAL_AGGREGATE, UNITS, Forecast, check_paths
from forecast.pipeline.theses import evaluate_thesis
from forecast.scenarios import ThesisSpec

QUARTERS = [f"{y}Q{q}" for y in (2029, 2030) for q in range(1, 5)]
VENDORS = ["nvidia", "aws", "other"]


def make_paths(draws: int = 1000, seed: int = 0) -> xr.Dataset:
    rng = np.random.default_rng(seed)
    tam = rng.uniform(10, 30, size=(draws, len(QUARTERS)))  # USD billions a quarter
    nvidia = np.linspace(0.5, 0.9, draws)[:, None] * np.ones((1, len(QUARTERS)))
    aws = (1 - nvidia) / 2
    share = np.stack([nvidia, aws, 1 - nvidia - aws], axis=-1)
    coords = {"draw": np.arange(draws), "quarter": QUARTERS, "vendor": VENDORS}
    return xr.Dataset(
        {
            "tam": (("draw", "quarter"), tam),
            "share": (("draw", "quarter", "vendor"), share),
            "aws_spend_at_cost": (("draw", "quarter"), tam * aws[:, :]),
        },
        coords=coords,
    )


def thesis(**overrides) -> ThesisSpec:
    spec = {"name": "t", "statement": "s", "metric": "share", "period": "2030",
            "comparator": "<=", "threshold": 0.7, "vendor": "nvidia", "aggregate": "mean"}
    spec.update(overrides)
    return ThesisSpec(**spec)


def test_period_quarters():
    assert period_quarters("2030") == ["2030Q1", "2030Q2", "2030Q3", "2030Q4"]
    assert period_quarters("2030Q2") == ["2030Q2"]
    assert len(period_quarters("2026..2030")) == 20


def test_share_thesis_probability_matches_the_construction():
    # NVIDIA's share is evenly spread on [0.5, 0.9]: P(share <= 0.7) = 0.5.
    result = evaluate_thesis(make_paths(), thesis())
    assert result["probability"] == pytest.approx(0.5, abs=0.002)
    assert result["mcse"] == pytest.approx(np.sqrt(0.25 / 1000), rel=0.01)


def test_sum_thesis_against_numpy_reference():
    paths = make_paths()
    spec = thesis(metric="tam", vendor=None, aggregate="sum", comparator=">=", threshold=80.0)
    expected = (paths["tam"].sel(quarter=period_quarters("2030")).sum("quarter") >= 80).mean()
    result = evaluate_thesis(paths, spec)
    assert result["probability"] == pytest.approx(float(expected))
    assert 2029 <= result["first_year_median"] <= 2030


def test_thesis_outside_the_horizon_is_an_error():
    with pytest.raises(ForecastError, match="outside the forecast horizon"):
        evaluate_thesis(make_paths(), thesis(period="2031"))


def test_unknown_metric_is_an_error():
    with pytest.raises(ForecastError, match="unknown metric"):
        evaluate_thesis(make_paths(), thesis(metric="profit"))


def test_annual_quantiles_sum_money_and_average_shares():
    paths = make_paths()
    forecast = Forecast(data=paths, scenario="test", fit_id="x", seed=0)
    tam = forecast.quantiles("tam", q=(0.5,))
    expected = np.median(paths["tam"].sel(quarter=period_quarters("2030")).sum("quarter"))
    assert tam.loc[tam["period"] == "2030", "q50"].item() == pytest.approx(expected)
    share = forecast.quantiles("share", q=(0.1, 0.5, 0.9))
    row = share[(share["period"] == "2030") & (share["key"] == "nvidia")]
    assert row["q50"].item() == pytest.approx(0.7, abs=0.001)
    # A share's calendar-year value is the mean of its quarters, quantiles per vendor.
    yearly = paths["share"].sel(quarter=period_quarters("2030"), vendor="nvidia").mean("quarter")
    assert row["q10"].item() == pytest.approx(np.quantile(yearly, 0.1))
    assert row["q90"].item() == pytest.approx(np.quantile(yearly, 0.9))


def test_quarterly_quantiles_and_bad_freq():
    forecast = Forecast(data=make_paths(), scenario="test", fit_id="x", seed=0)
    assert len(forecast.quantiles("tam", freq="quarter")) == len(QUARTERS)
    with pytest.raises(ForecastError):
        forecast.quantiles("tam", freq="month")


def _xarray_annual(forecast: Forecast, metric: str) -> xr.DataArray:
    """The former xarray computation of ``Forecast.annual``: the reference."""
    values = forecast.paths(metric)
    labels = [str(q) for q in values["quarter"].values]
    complete = [y for y in sorted({label[:4] for label in labels})
                if all(f"{y}Q{k}" in labels for k in range(1, 5))]
    how = ANNUAL_AGGREGATE.get(metric, "mean")
    pieces = []
    for year in complete:
        window = values.sel(quarter=[f"{year}Q{k}" for k in range(1, 5)])
        pieces.append(window.sum("quarter") if how == "sum" else
                      window.isel(quarter=-1, drop=True) if how == "last"
                      else window.mean("quarter"))
    return xr.concat(pieces, dim=pd.Index(complete, name="period"))


def _xarray_quantiles(forecast: Forecast, metric: str, q, freq: str) -> pd.DataFrame:
    """The former xarray/pandas computation of ``Forecast.quantiles``: the reference."""
    values = (_xarray_annual(forecast, metric) if freq == "year"
              else forecast.paths(metric).rename(quarter="period"))
    levels = list(q)
    with warnings.catch_warnings():
        # The never-launched chip is NaN in every draw: numpy warns of an all-NaN slice.
        warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
        quant = values.quantile(levels, dim="draw", skipna=True)
    frame = quant.to_dataframe(name="value").reset_index()
    frame = frame.pivot_table(index=[c for c in frame.columns
                                     if c not in ("quantile", "value")],
                              columns="quantile", values="value", dropna=False).reset_index()
    frame.columns = [(_q_name(c) if isinstance(c, float) else str(c)) for c in frame.columns]
    extra = next((str(d) for d in values.dims if d not in ("draw", "quarter", "period")), None)
    frame.insert(0, "metric", metric)
    frame["key"] = frame[extra].astype(str) if extra else ""
    ordered = ["metric", "period", "key"] + [_q_name(level) for level in levels]
    frame = frame[ordered]
    frame["unit"] = UNITS.get(metric, "")
    return frame.sort_values(list(frame.columns[:3])).reset_index(drop=True)


def _paths_with_gaps() -> xr.Dataset:
    """Paths over 2029Q3..2031Q1 (2029 and 2031 incomplete) with NaN before a chip launch."""
    rng = np.random.default_rng(3)
    quarters = ["2029Q3", "2029Q4"] + QUARTERS[4:] + ["2031Q1"]
    draws = 501
    paths = make_paths(draws, seed=3).reindex(quarter=quarters)
    paths["tam"] = (("draw", "quarter"), rng.lognormal(3, 0.5, size=(draws, len(quarters))))
    share = rng.dirichlet([5, 2, 1], size=(draws, len(quarters)))
    paths["share"] = (("draw", "quarter", "vendor"), share)
    price = rng.lognormal(1, 0.3, size=(draws, len(quarters), 3))
    price[:, :3, 1] = np.nan                   # launched 2030Q2 in every draw
    price[: draws // 2, 3:5, 1] = np.nan       # later in half of the draws
    price[:, :, 2] = np.nan                    # never launched
    paths["price"] = (("draw", "quarter", "chip"), price)
    paths = paths.assign_coords(chip=["H100", "Trainium3", "Trainium9"])
    revenue = (paths["tam"] * paths["share"].sel(vendor="aws", drop=True)).values
    revenue[:10, 3] = np.nan                   # a summed metric with gaps: NaN counts as 0
    revenue[10:20, 2:6] = np.nan
    paths["aws_spend_at_cost"] = (("draw", "quarter"), revenue)
    # A stock per generation: a year's value is its fourth quarter's.
    fleet = rng.uniform(1e5, 1e6, size=(*revenue.shape, 2))
    fleet[:5, 5, 1] = np.nan                   # no 2030Q4 value: no 2030 value
    paths["aws_fleet"] = (("draw", "quarter", "generation"), fleet)
    return paths.assign_coords(generation=["Trainium2", "Trainium3"])


@pytest.mark.parametrize("freq", ["year", "quarter"])
@pytest.mark.parametrize("q", [(0.1, 0.5, 0.9), (0.9, 0.05), (0.5,), (0.025, 0.333, 0.975)])
def test_quantiles_equal_the_xarray_computation_exactly(freq: str, q) -> None:
    forecast = Forecast(data=_paths_with_gaps(), scenario="test", fit_id="x", seed=0)
    for metric in ("tam", "share", "price", "aws_spend_at_cost", "aws_fleet"):
        pd.testing.assert_frame_equal(forecast.quantiles(metric, q, freq=freq),
                                      _xarray_quantiles(forecast, metric, q, freq),
                                      check_exact=True)


def test_annual_values_equal_the_xarray_computation_exactly() -> None:
    forecast = Forecast(data=_paths_with_gaps(), scenario="test", fit_id="x", seed=0)
    for metric in ("tam", "share", "price", "aws_spend_at_cost", "aws_fleet"):
        xr.testing.assert_identical(forecast.annual(metric).drop_attrs(),
                                    _xarray_annual(forecast, metric).drop_attrs())
    with pytest.raises(ForecastError, match="no complete calendar year"):
        Forecast(data=make_paths(50).isel(quarter=slice(1, 4)), scenario="test", fit_id="x",
                 seed=0).annual("tam")


def test_annual_quantiles_need_a_complete_year() -> None:
    paths = make_paths(50).isel(quarter=slice(1, 4))
    forecast = Forecast(data=paths, scenario="test", fit_id="x", seed=0)
    with pytest.raises(ForecastError, match="no complete calendar year"):
        forecast.quantiles("tam")
    assert len(forecast.quantiles("tam", freq="quarter")) == 3


def test_exports_round_trip(tmp_path):
    forecast = Forecast(data=make_paths(200), scenario="test", fit_id="x", seed=0,
                        theses_specs=[thesis()])
    forecast.to_netcdf(tmp_path / "paths.nc")
    with xr.open_dataset(tmp_path / "paths.nc", engine="h5netcdf") as stored:
        xr.testing.assert_allclose(stored.load().drop_attrs(), forecast.data)
    forecast.to_parquet(tmp_path / "paths.parquet")
    long = pd.read_parquet(tmp_path / "paths.parquet")
    assert len(long) == 200 * len(QUARTERS) * (1 + 1 + len(VENDORS))
    forecast.to_csv(tmp_path / "quantiles.csv")
    assert {"metric", "period", "key", "q10", "q50", "q90"} <= set(
        pd.read_csv(tmp_path / "quantiles.csv").columns)
    summary = forecast.summary()
    assert summary["theses"][0]["name"] == "t"


def test_check_paths_catches_a_broken_simplex():
    paths = make_paths(10)
    check_paths(paths)
    paths["share"][0, 0, 0] = 0.99
    with pytest.raises(ForecastError, match="sum to 1"):
        check_paths(paths)
