"""One quantile schema: every public function that returns a table of quantiles is found by
walking the package, and each one's table has the columns ``metric, period, key, q.., unit``."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pandas as pd
import pytest

import forecast
from forecast.core.errors import ForecastError
from forecast.core.quantile_schema import check_schema, quantile_columns, quantile_name

#: The public functions whose tables are quantile tables, each checked below (the diffusion
#: model's parameters in tests/models/diffusion/test_diffusion_fitted.py).
QUANTILE_TABLES = {
    "forecast.pipeline.results.Forecast.quantiles",
    "forecast.pipeline.results.Forecast.compare",
    "forecast.pipeline.results.quantile_table",
    "forecast.models.diffusion.fitted.FittedDiffusion.parameters",
    "forecast.models.price.fitted.FittedPrice.decay_table",
    "forecast.models.spend.fitted.FittedSpend.series_forecast",
    "forecast.scenarios.scenario.Scenario.to_table",
}
#: Tables that speak of quantiles without being tables of them: a thesis's probability with
#: its metric's 10/50/90% (``metric_q10`` ...), an input's attribution to a tail.
OTHER_TABLES = {
    "forecast.pipeline.results.Forecast.theses",
    "forecast.pipeline.theses.evaluate_theses",
    "forecast.reporting.sensitivity.measures.tail_attribution",
}


def _quantile_functions() -> set[str]:
    """Public functions and methods of the package that return a DataFrame and whose
    docstring speaks of quantiles."""
    found = set()
    for info in pkgutil.walk_packages(forecast.__path__, "forecast."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            members = ([(f"{name}.{k}", v) for k, v in vars(value).items()
                        if not k.startswith("_") and inspect.isfunction(v)]
                       if inspect.isclass(value) else [(name, value)])
            for label, member in members:
                if not inspect.isfunction(member):
                    continue
                returns = str(inspect.signature(member).return_annotation)
                if "DataFrame" in returns and "quantile" in (inspect.getdoc(member) or "").lower():
                    found.add(f"{module.__name__}.{label}")
    return found


def test_the_walk_finds_no_quantile_table_left_unchecked():
    found = _quantile_functions()
    assert found - QUANTILE_TABLES - OTHER_TABLES == set()
    # The walk is not empty by accident: it finds the checked tables it can see.
    assert len(found & QUANTILE_TABLES) >= 6


def test_level_names_and_the_schema_check():
    assert [quantile_name(q) for q in (0.1, 0.5, 0.05, 0.025, 0.95)] == [
        "q10", "q50", "q5", "q2.5", "q95"]
    good = pd.DataFrame({"metric": ["tam"], "period": ["2030"], "key": [""], "q10": [1.0],
                         "q90": [2.0], "unit": ["USD"], "extra": [0]})
    check_schema(good)
    assert quantile_columns(good) == ["q10", "q90"]
    for bad in (good.rename(columns={"key": "vendor"}), good.drop(columns="unit"),
                good.rename(columns={"q10": "p10", "q90": "median"})):
        with pytest.raises(ForecastError, match="quantile schema"):
            check_schema(bad)


@pytest.fixture(scope="module")
def base_forecast(shipped_store):
    from forecast.pipeline.runner import run_scenario

    return run_scenario("base", draws=200, root=shipped_store)


def test_scenario_forecast_tables_follow_the_schema(base_forecast):
    from forecast.pipeline.results import quantile_table

    for metric in base_forecast.metrics:
        if "quarter" not in base_forecast.data[metric].dims:
            continue
        table = base_forecast.quantiles(metric, freq="quarter")
        check_schema(table)
        assert quantile_columns(table) == ["q10", "q50", "q90"]
    check_schema(base_forecast.quantiles("share", q=(0.05, 0.5, 0.95)))
    check_schema(base_forecast.compare(base_forecast).drop(columns="scenario"))
    check_schema(quantile_table(base_forecast, ["tam", "share", "price"]))
    assert base_forecast.quantiles("share")["key"].isin(["nvidia", "amd", "google", "aws",
                                                         "other"]).all()


def test_scenario_input_table_follows_the_schema():
    from forecast.scenarios import load_scenario

    check_schema(load_scenario("base").to_table())


def test_shipped_model_tables_follow_the_schema():
    from forecast.models.price import FittedPrice
    from forecast.models.spend.fitted import FittedSpend
    from forecast.store import shipped

    models = shipped.shipped_header()["scenarios"]["base"]["models"]
    price = FittedPrice.load(shipped.shipped_dir() / models["price"])
    spend = FittedSpend.load(shipped.shipped_dir() / models["spend"])
    decay = price.decay_table()
    check_schema(decay)
    assert quantile_columns(decay) == ["q5", "q50", "q95"]
    for name in spend.series_names():
        table = spend.series_forecast(name, quarters=2, draws=200)
        check_schema(table)
        assert (table["metric"] == name).all() and (table["q5"] <= table["q95"]).all()
