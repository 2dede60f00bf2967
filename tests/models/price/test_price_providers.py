"""Which prices are list prices: the provider classes of data/providers.csv, read by the price
model's data preparation (forecast.models.price.data)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from forecast.core.errors import ForecastError
from forecast.data.dataset import load_dataset
from forecast.models.price.builder import design
from forecast.models.price.data import (
    LIST_TYPES,
    prepare_price_data,
    price_class,
)


@pytest.fixture(scope="module")
def dataset():
    return load_dataset()


def test_list_prices_are_the_hyperscalers_of_providers_csv(dataset):
    data = prepare_price_data(dataset)
    obs = data.observations
    assert data.provider_classes == dataset.provider_classes
    assert (obs["provider_class"] == obs["provider_or_index"].map(dataset.provider_classes)).all()
    listed = obs["pricing_type"].isin(LIST_TYPES) & (obs["provider_class"] == "hyperscaler")
    assert (obs["price_class"] == np.where(listed, "list", "market")).all()
    # 139 prices once held ones collapse (213 rows): the merge that removed rows published after
    # 2025-10-31 took a hyperscaler list price (a recalled 2025 TPU v5p) and a market index
    # (SemiAnalysis, October 2025).
    assert obs["price_class"].value_counts().to_dict() == {"list": 86, "market": 53}


def test_another_provider_class_changes_the_price_class(dataset):
    # Oracle Cloud's on-demand prices are list prices while it is a hyperscaler...
    oracle = "Oracle Cloud"
    assert dataset.provider_classes[oracle] == "hyperscaler"
    before = prepare_price_data(dataset).observations
    rows = before["provider"] == oracle
    assert (before.loc[rows, "price_class"] == "list").all()
    assert (before.loc[before["provider_or_index"] == oracle, "price_class"] == "list").sum() == 3
    # ... and market prices once the data class the company a neocloud; no other row moves.
    providers = dataset.providers.copy()
    providers.loc[providers["company"] == oracle, "provider_class"] = "neocloud"
    after = prepare_price_data(dataclasses.replace(dataset, providers=providers)).observations
    assert (after.loc[rows, "price_class"] == "market").all()
    assert (after.loc[~rows, "price_class"] == before.loc[~rows, "price_class"]).all()
    # A neocloud classed as a hyperscaler has its on-demand prices read as list prices.
    providers = dataset.providers.copy()
    providers.loc[providers["company"] == "Lambda", "provider_class"] = "hyperscaler"
    lambda_rows = before["provider_or_index"] == "Lambda Labs"
    moved = prepare_price_data(dataclasses.replace(dataset, providers=providers)).observations
    assert (before.loc[lambda_rows, "price_class"] == "market").all()
    assert (moved.loc[lambda_rows, "price_class"] == "list").all()


def test_regions_of_one_company_share_its_provider_effect(dataset):
    data = prepare_price_data(dataset)
    google = data.observations[data.observations["provider_or_index"].str.startswith(
        ("Google Cloud", "GCP"))]
    # Eleven provider names, one company and one effect; each name keeps its own series.
    assert google["provider_or_index"].nunique() > 5
    assert set(google["provider"]) == {"Google Cloud"}
    assert "Google Cloud" in data.providers
    assert not set(google["provider_or_index"]) & set(data.providers)
    assert google["series"].nunique() > google["chip"].nunique()


def test_one_company_in_two_classes_is_refused(dataset):
    providers = dataset.providers.copy()
    providers.loc[providers["provider_or_index"] == "Lambda Labs", "provider_class"] = (
        "hyperscaler")
    with pytest.raises(ForecastError, match="company 'Lambda'"):
        prepare_price_data(dataclasses.replace(dataset, providers=providers))


def test_price_class_by_hand():
    types = pd.Series(["on-demand", "on-demand", "3-year commitment", "spot", "on-demand"])
    providers = pd.Series(["Neo", "Big", "Big", "Big", "Index"])
    classes = {"Neo": "neocloud", "Big": "hyperscaler", "Index": "index"}
    assert price_class(types, providers, classes).tolist() == ["market", "list", "list",
                                                               "market", "market"]


def test_a_provider_without_a_class_is_an_error():
    types = pd.Series(["on-demand", "on-demand"])
    providers = pd.Series(["Big", "Nebius"])
    with pytest.raises(ForecastError, match="no provider_class for provider.s. 'Nebius'"):
        price_class(types, providers, {"Big": "hyperscaler"})


def test_list_prices_share_their_companys_commitment_and_drift_deviations(dataset):
    data = prepare_price_data(dataset)
    index = design(data)
    obs = data.observations.assign(commitment=index.commitment, drift=index.list_drift)
    listed = obs["price_class"] == "list"
    assert index.list_providers == ("Amazon Web Services", "Google Cloud", "Microsoft Azure",
                                    "Oracle Cloud")
    # Market prices take no list deviation; on-demand list prices no commitment deviation.
    assert (obs.loc[~listed, ["commitment", "drift"]] == 0).all().all()
    assert (obs.loc[listed & (obs["offset_type"] == "on-demand"), "commitment"] == 0).all()
    assert (obs.loc[listed, "drift"] > 0).all()
    # One deviation per (company, type): Google Cloud's V100 and TPU v4 1-year prices, in
    # different regions, share one; Azure's 1-year prices have another.
    groups = obs[listed].groupby(["provider", "offset_type"])
    assert (groups["drift"].nunique() == 1).all()
    assert groups["drift"].first().is_unique
    committed = obs[listed & (obs["offset_type"] != "on-demand")]
    assert (committed.groupby(["provider", "offset_type"])["commitment"].nunique() == 1).all()
    assert committed.groupby(["provider", "offset_type"])["commitment"].first().is_unique
    one_year = committed[committed["offset_type"] == "1-year commitment"]
    google = one_year[one_year["provider"] == "Google Cloud"]
    assert {"V100 SXM2 32GB", "TPU v4"} <= set(google["chip"])
    assert google["provider_or_index"].nunique() > 1
