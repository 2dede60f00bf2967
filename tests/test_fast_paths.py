"""The warm forecast's fast paths compute exactly what the slower code they replace did."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.models.fitted import Fitted as FittedModel
from forecast.models.spend.math import log_shares


def _fitted(posterior: xr.Dataset) -> FittedModel:
    return FittedModel(posterior=posterior, data={}, config={}, summary_table=pd.DataFrame())


def test_stacked_equals_xarray_stack() -> None:
    rng = np.random.default_rng(0)
    posterior = xr.Dataset(
        {
            "scalar": (("chain", "draw"), rng.normal(size=(3, 7))),
            "vector": (("chain", "draw", "vendor"), rng.normal(size=(3, 7, 4))),
            # Stored in another dim order: chain and draw must still come first.
            "matrix": (("quarter", "chain", "draw", "vendor"), rng.normal(size=(5, 3, 7, 4))),
        },
        coords={"chain": [0, 1, 2], "draw": np.arange(7), "vendor": list("abcd"),
                "quarter": [f"2025Q{k}" for k in range(1, 5)] + ["2026Q1"]},
    )
    fitted = _fitted(posterior)
    for name in posterior.data_vars:
        expected = (posterior[name].stack(sample=("chain", "draw"))
                    .transpose("sample", ...).values)
        got = fitted.stacked(name)
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
        got[...] = 0.0  # a copy: callers may write into it
        pick = np.array([20, 0, 7, 7, 13])
        picked = fitted.stacked(name, pick)
        np.testing.assert_array_equal(picked, expected[pick])
        picked[...] = 0.0
    assert float(np.abs(posterior["vector"]).sum()) > 0
    assert float(np.abs(posterior["scalar"]).min()) > 0
    # The kept flat copy never goes stale: a variable replaced in the posterior is read anew.
    np.testing.assert_array_equal(fitted.stacked("scalar"), posterior["scalar"].values.ravel())
    posterior["scalar"] = (("chain", "draw"), -np.ones((3, 7)))
    np.testing.assert_array_equal(fitted.stacked("scalar"), -np.ones(21))


def test_a_pickled_fit_leaves_what_forecasts_derived_behind() -> None:
    import pickle

    fitted = _fitted(xr.Dataset({"scalar": (("chain", "draw"), np.arange(6.0).reshape(2, 3))}))
    fitted.stacked("scalar")
    fitted.derived("layout", lambda: np.zeros(1000))
    copy = pickle.loads(pickle.dumps(fitted))
    assert copy._memo == {} and len(fitted._memo) == 2
    np.testing.assert_array_equal(copy.stacked("scalar"), np.arange(6.0))


def test_a_derived_value_is_computed_once_per_fit() -> None:
    calls = []
    first, second = _fitted(xr.Dataset()), _fitted(xr.Dataset())
    for fitted in (first, first, second):
        assert fitted.derived(("layout", 1), lambda: calls.append(1) or len(calls)) >= 1
    assert len(calls) == 2 and first.derived(("layout", 1), lambda: 99) == 1
    assert second.derived(("layout", 1), lambda: 99) == 2


def _reference_log_shares(log_spend: np.ndarray, axis: int) -> np.ndarray:
    """Log softmax along ``axis`` with numpy's own reductions, shifted by the maximum."""
    peak = log_spend.max(axis=axis, keepdims=True)
    return log_spend - peak - np.log(np.exp(log_spend - peak).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("draws", [1, 5, 400])
def test_batched_log_shares_equal_the_per_draw_loop(draws: int) -> None:
    log_spend = np.random.default_rng(draws).normal(scale=3.0, size=(draws, 5, 21))
    expected = np.stack([log_shares(log_spend[i]) for i in range(draws)])
    np.testing.assert_array_equal(log_shares(log_spend, axis=1), expected)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_log_shares_fold_equals_numpy_log_softmax(axis: int) -> None:
    log_spend = np.random.default_rng(axis).normal(2.0, 3.0, size=(4, 5, 6))
    np.testing.assert_allclose(log_shares(log_spend, axis=axis),
                               _reference_log_shares(log_spend, axis), rtol=0, atol=1e-13)


def test_log_shares_stay_finite_far_from_zero() -> None:
    # exp(800) overflows: the shift by the largest group keeps the shares exact.
    log_spend = np.array([[800.0, -800.0], [800.0 - np.log(3.0), -800.0]])
    got = log_shares(log_spend, axis=0)
    np.testing.assert_allclose(got, [[np.log(0.75), np.log(0.5)],
                                     [np.log(0.25), np.log(0.5)]], rtol=1e-12)


def test_log_shares_pytensor_graph_equals_numpy() -> None:
    pytensor = pytest.importorskip("pytensor")
    pt = pytest.importorskip("pytensor.tensor")
    log_spend = np.random.default_rng(3).normal(size=(5, 9))
    symbol = pt.dmatrix("log_spend")
    graph = pytensor.function([symbol], log_shares(symbol, axis=0, xp=pt), mode="FAST_COMPILE")
    np.testing.assert_allclose(graph(log_spend), _reference_log_shares(log_spend, 0),
                               rtol=1e-12)


# --------------------------------------------------------------------------- pricing rules


def _reference_pricing_rules(dataset, point_spread: float) -> dict:
    """The former pandas implementation of the observed and variant rules (no imputation)."""
    from forecast.economics.pricing import _ASP_PATTERN, PricingRule
    from forecast.economics.pricing import covered_catalogue as _catalogue

    catalogue = _catalogue(dataset)
    relation = dict(zip(dataset.chip_aliases["alias"], dataset.chip_aliases["relation"],
                        strict=True))
    prices = dataset.unit_prices
    recorded = prices["chip_as_recorded"].astype(str)
    own_name = (recorded == prices["chip"]) | recorded.map(
        lambda r: relation.get(r) in ("same", "family"))

    def rule_from_rows(key, chip, rows):
        group = str(catalogue.loc[chip, "vendor_group"])
        asp = rows[rows["price_type"].str.contains(_ASP_PATTERN, case=False, regex=False)]
        if len(asp):
            ranges = {int(d.year): (float(lo), float(hi)) for d, lo, hi in
                      zip(asp["date"], asp["price_usd_low"], asp["price_usd_high"], strict=True)}
            return PricingRule(key, chip, group, "asp_range", ranges)
        if len(rows):
            low, high = float(rows["price_usd_low"].min()), float(rows["price_usd_high"].max())
            if low == high:
                low, high = low * (1 - point_spread), high * (1 + point_spread)
            return PricingRule(key, chip, group, "observed", {0: (low, high)})
        return None

    rules = {}
    for chip in catalogue.index:
        rule = rule_from_rows(chip, chip, prices[(prices["chip"] == chip) & own_name])
        if rule is not None:
            rules[chip] = rule
    # Variant names come from the price rows alone (Epoch's volume file, once a second
    # source of names, is gone from the data).
    variants = set(recorded[~own_name])
    for name in sorted(variants):
        if name in catalogue.index or relation.get(name) in ("same", "family", None):
            continue
        rows = prices[recorded == name]
        chip = str(dataset.chip_aliases.set_index("alias").loc[name, "chip"])
        if chip in catalogue.index and len(rows):
            rule = rule_from_rows(name, chip, rows)
            if rule is not None:
                rules[name] = rule
    return rules


@pytest.mark.parametrize("point_spread", [0.25, 0.0, 0.5])
def test_pricing_rules_equal_the_former_pandas_computation(point_spread: float) -> None:
    from dataclasses import replace

    from forecast.data.dataset import load_dataset
    from forecast.economics.cost_paths import pricing_rules

    dataset = load_dataset()
    # An average-selling-price row spelled in capitals: the match ignores case.
    prices = dataset.unit_prices.copy()
    row = prices.index[prices["price_type"].str.contains("average selling price")][0]
    prices.loc[row, "price_type"] = str(prices.loc[row, "price_type"]).upper()
    for data in (dataset, replace(dataset, unit_prices=prices)):
        rules = pricing_rules(data, point_spread)
        expected = _reference_pricing_rules(data, point_spread)
        assert {k: v for k, v in rules.items() if v.method != "imputed"} == expected
        assert list(k for k in rules if rules[k].method != "imputed") == list(expected)


# --------------------------------------------------------------------------- theses


@pytest.mark.parametrize("how", ["sum", "mean", "last"])
def test_aggregate_period_equals_xarray(how: str) -> None:
    from forecast.pipeline.theses import aggregate_period

    rng = np.random.default_rng(4)
    quarters = [f"{y}Q{k}" for y in (2029, 2030) for k in range(1, 5)]
    values = rng.lognormal(size=(300, len(quarters)))
    values[:40, 5] = np.nan
    values[40:60, 4:] = np.nan  # a whole year missing in some draws
    paths = xr.DataArray(values, dims=("draw", "quarter"),
                         coords={"draw": np.arange(300), "quarter": quarters})
    window = paths.sel(quarter=quarters[4:])
    expected = {"sum": window.sum("quarter"), "mean": window.mean("quarter"),
                "last": window.isel(quarter=-1)}[how].values
    np.testing.assert_array_equal(aggregate_period(paths, quarters[4:], how), expected)
    # Quarter first: the axis is found by name.
    np.testing.assert_array_equal(
        aggregate_period(paths.transpose("quarter", "draw"), quarters[4:], how), expected)


def test_forecast_modules_import_nothing_heavy() -> None:
    # What a warm forecast runs besides the fitted models (tested with a fit store in
    # test_forecast_cli): none of these should pull in scipy (0.3-1.5 s), matplotlib (only
    # for PNGs), the samplers or the NetCDF engines.
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, cli\n"
        "import forecast.pipeline.runner, forecast.pipeline.simulate\n"
        "import forecast.store.bundles, forecast.pipeline.results\n"
        "from forecast.data.dataset import load_dataset\n"
        "from forecast.scenarios import load_scenario\n"
        "from forecast.economics.cost_paths import scenario_cost_paths\n"
        "scenario = load_scenario('bull')\n"
        "inputs = scenario.sample(100, seed=1)\n"
        "decay = {v: inputs['mfu_nvidia'].to_numpy() * 0 - 0.1 for v in\n"
        "         ('nvidia', 'amd', 'google', 'aws', 'other')}\n"
        "scenario_cost_paths(load_dataset(), inputs, ['2026Q1', '2026Q2'], seed=1,\n"
        "                    price_decay=decay, **scenario.cost_tables())\n"
        "heavy = ('scipy', 'matplotlib', 'pymc', 'pytensor', 'arviz', 'statsmodels',\n"
        "         'h5netcdf', 'netCDF4', 'nutpie')\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & set(heavy))\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])
