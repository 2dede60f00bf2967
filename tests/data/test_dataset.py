"""Tests of forecast.data.dataset: the shipped data load, normalised once."""

from __future__ import annotations

import pandas as pd
import pytest

from forecast.core.calendar import fiscal_to_calendar_quarter
from forecast.data.dataset import PRICING_TYPES, parse_date, validate_data_dir

# --------------------------------------------------------------------------- shipped data


def test_shipped_data_is_valid(dataset):
    assert validate_data_dir() == []
    assert len(dataset.accelerators) == 26
    assert dataset.accelerators["chip"].is_unique


def test_every_row_has_a_source_and_confidence(dataset):
    for name in ("accelerators", "revenue", "rental_prices", "unit_prices", "vendor_groups",
                 "providers", "hyperscaler_capex"):
        frame = getattr(dataset, name)
        assert frame["source"].str.strip().str.len().gt(0).all(), name
        assert frame["confidence"].isin(["verified", "recalled"]).all(), name


def test_recalled_rows_are_flagged(dataset):
    revenue = dataset.revenue
    assert revenue["recalled"].sum() == (revenue["confidence"] == "recalled").sum() > 0
    nvidia_fy2020q1 = revenue[(revenue["company"] == "NVIDIA")
                              & (revenue["fiscal_period"] == "FY2020Q1")]
    assert nvidia_fy2020q1["recalled"].item()


def test_pricing_type_is_a_fixed_category(dataset):
    pricing = dataset.rental_prices["pricing_type"]
    assert isinstance(pricing.dtype, pd.CategoricalDtype)
    assert tuple(pricing.cat.categories) == PRICING_TYPES
    assert pricing.notna().all()


def test_chip_aliases_resolve_to_catalogue_names(dataset):
    catalogue = set(dataset.accelerators["chip"])
    assert set(dataset.rental_prices["chip"]) <= catalogue
    assert set(dataset.unit_prices["chip"]) <= catalogue
    h100 = dataset.rental_prices[dataset.rental_prices["chip_as_recorded"] == "H100 SXM 80GB"]
    assert (h100["chip"] == "H100 SXM5 80GB").all()


def test_units_are_normalised(dataset):
    # The H100's dense FP8 is half its sparse headline.
    spec = dataset.accelerators.set_index("chip")
    assert spec.loc["H100 SXM5 80GB", "fp8_dense_tflops"] == pytest.approx(3958 / 2, rel=1e-3)
    assert dataset.revenue["revenue_usd_billions"].between(0, 1000).all()
    assert dataset.rental_prices["usd_per_chip_hour"].between(0, 50).all()


@pytest.mark.parametrize(
    ("fiscal_end", "calendar_quarter"),
    [
        ("2025-10-26", "2025Q3"),  # NVIDIA FY2026Q3: Jul 28 - Oct 26
        ("2025-01-26", "2024Q4"),  # NVIDIA FY2025Q4: Oct 28 - Jan 26
        ("2025-09-30", "2025Q3"),  # Amazon, calendar quarter
        ("2025-08-03", "2025Q2"),  # Broadcom FY2025Q3: May 5 - Aug 3
        ("2025-09-27", "2025Q3"),  # AMD, last Saturday of September
    ],
)
def test_fiscal_quarters_map_to_calendar_quarters(fiscal_end, calendar_quarter):
    assert str(fiscal_to_calendar_quarter(pd.Timestamp(fiscal_end))) == calendar_quarter


def test_nvidia_series_has_one_row_per_calendar_quarter(dataset):
    series = dataset.revenue_series("NVIDIA", "Data Center")
    assert series["quarter"].is_unique
    assert series["quarter"].is_monotonic_increasing


@pytest.mark.parametrize(
    ("text", "end", "precision"),
    [
        ("2025-03-17", "2025-03-17", "day"),
        ("2025-09", "2025-09-30", "month"),
        ("2025-Q1", "2025-03-31", "quarter"),
        ("2024", "2024-12-31", "year"),
    ],
)
def test_coarse_dates_take_the_end_of_their_span(text, end, precision):
    assert parse_date(text) == (pd.Timestamp(end), precision)


def test_as_of_drops_later_observations(dataset):
    early = dataset.as_of("2024-07-01")
    assert early.rental_prices["date"].max() <= pd.Timestamp("2024-07-01")
    assert early.revenue["calendar_quarter_end"].max() <= pd.Timestamp("2024-07-01")
    assert len(early.accelerators) == len(dataset.accelerators)
    assert early.provider_classes == dataset.provider_classes
    assert early.data_hash != dataset.data_hash


def test_announced_chips_carry_what_was_announced_by_the_as_of_date(dataset):
    """Ironwood and Trainium3 were announced, not released, by 2025-10-31: their figures are
    the announcements' (Trainium3: 2x Trainium2, derived; not the 2,517 TFLOPS of December
    2025) and their release date is the announced window's last month."""
    spec = dataset.accelerators.set_index("chip")
    announced = spec[spec["status"] == "announced"]
    assert set(announced.index) == {"TPU v7 (Ironwood)", "Trainium3"}
    assert (spec["published"] <= pd.Timestamp("2025-10-31")).all()
    released = spec[spec["status"] == "released"]
    assert (released["release_date"] <= pd.Timestamp("2025-10-31")).all()
    trn3, trn2 = spec.loc["Trainium3"], spec.loc["Trainium2"]
    assert trn3["fp8_dense_tflops"] == 2 * trn2["fp8_dense_tflops"] != 2517
    assert trn3["published"] == pd.Timestamp("2024-12-03") and pd.isna(trn3["hbm_gb"])
    assert str(trn3["release_quarter"]) == "2025Q4"
    ironwood = spec.loc["TPU v7 (Ironwood)"]
    assert ironwood["fp8_dense_tflops"] == 4614
    assert ironwood["release_date"] == pd.Timestamp("2025-12-01")  # "later in 2025"


def test_epoch_modelled_volumes_are_gone(dataset):
    """Epoch's modelled volumes were generated on 2026-03-31, after the as-of date."""
    from forecast.data.dataset import SCHEMAS, TABLES

    assert "epoch_chip_volume_estimates.csv" not in SCHEMAS and "volumes" not in TABLES
    assert not hasattr(dataset, "volumes")


def test_revenue_is_cut_on_its_publication_with_its_guide(dataset):
    """NVIDIA's quarter to 2025-07-27 was reported on 2025-08-27, with the next guide: a cut
    the day before has neither, though the quarter had ended."""
    before, after = dataset.as_of("2025-08-26"), dataset.as_of("2025-08-27")
    for cut, known in ((before, False), (after, True)):
        nvidia = cut.revenue_series("NVIDIA", "Data Center")
        assert ("FY2026Q2" in set(nvidia["fiscal_period"])) is known
        guides = cut.guidance[cut.guidance["company"] == "NVIDIA"]
        assert ("FY2026Q3" in set(guides["fiscal_period"])) is known
    assert (after.revenue["published_date"] <= pd.Timestamp("2025-08-27")).all()


def test_revenue_was_published_after_its_period_and_by_the_as_of_date(dataset):
    revenue = dataset.revenue
    assert (revenue["published_date"] <= pd.Timestamp("2025-10-31")).all()
    # Reported after the quarter ended; only Intel's "less than $0.5B" for 2024 came early.
    early = revenue[revenue["published_date"] < revenue["calendar_quarter_end"]]
    assert list(early["value_qualifier"]) == ["<"]
    # Quarters that ended before the as-of date but were reported after it are not here.
    assert "FY2026Q3" not in set(revenue.loc[revenue["company"] == "NVIDIA", "fiscal_period"])
    assert "2025Q3" not in set(revenue.loc[revenue["company"] == "AMD", "fiscal_period"])


def test_every_guide_was_given_with_its_basis_quarter(dataset):
    """A guide's given_date is its basis quarter's release: a cut keeps both or neither."""
    published = dataset.revenue.set_index(["company", "fiscal_period", "segment"])[
        "published_date"]
    for guide in dataset.guidance.itertuples():
        basis = [date for (company, period, _), date in published.items()
                 if (company, period) == (guide.company, guide.basis_fiscal_period)]
        assert basis and set(basis) == {guide.given_date}, guide


def test_dataset_is_immutable(dataset):
    with pytest.raises(AttributeError):
        dataset.revenue = None


def test_aws_custom_silicon_holds_amazon_statements_only(dataset):
    """Epoch's modelled cumulative Trainium counts (generated 2026-03-31) left the file; the
    band columns stay for an estimate that states one, and read back as floats."""
    silicon = dataset.aws_custom_silicon
    assert not silicon["metric"].str.contains("Epoch").any()
    assert set(silicon["metric"]) == {"Trainium business size (Q3 2025 call)",
                                      "Project Rainier Trainium2 chips (Anthropic)"}
    assert silicon[["value_p5", "value_p95"]].isna().all().all()
    assert silicon[["value", "value_p5", "value_p95"]].dtypes.eq(float).all()
    assert (silicon["date"] <= pd.Timestamp("2025-10-31")).all()


def test_vendor_groups_table(dataset):
    groups = dataset.vendor_groups.set_index("vendor")
    assert list(groups.index) == ["NVIDIA", "AMD", "Google", "AWS", "Meta", "Microsoft", "Intel"]
    assert set(groups["silicon"]) == {"merchant", "custom"}
    assert str(groups["share_model_order"].dtype) == "Int64"
    assert groups["source"].str.len().gt(0).all()
    assert set(dataset.accelerators["vendor"]) <= set(groups.index)


def test_providers_table(dataset):
    providers = dataset.providers.set_index("provider_or_index")
    assert providers.index.is_unique
    # One row per provider of the rental prices, and no other.
    assert set(providers.index) == set(dataset.rental_prices["provider_or_index"])
    assert set(providers["provider_class"]) <= {"hyperscaler", "neocloud", "marketplace",
                                                 "index"}
    classes = dataset.provider_classes
    assert classes["Microsoft Azure (East US)"] == "hyperscaler"
    assert classes["Lambda Labs"] == "neocloud"
    assert classes["market (RBC data via FT Alphaville)"] == "index"
    # An unsure class says so in its notes.
    assert "unsure" in providers.loc["Databricks", "notes"].lower()


def test_hyperscaler_capex_table(dataset):
    capex = dataset.hyperscaler_capex
    assert len(capex) == 74
    assert str(capex["quarter"].dtype) == "period[Q-DEC]"
    assert capex["capex_usd_billions"].dtype == float
    assert (capex["published_date"] <= pd.Timestamp("2025-10-31")).all()
    assert (capex["published_date"] >= capex["calendar_quarter_end"]).all()
    rows = capex.set_index(["company", "fiscal_period", "series"])
    # Fiscal quarters on calendar quarters: Microsoft's year ends in June, Oracle's in May.
    assert str(rows.loc[("Microsoft", "FY26 Q1", "main"), "quarter"]) == "2025Q3"
    assert str(rows.loc[("Oracle", "FY26 Q1", "main"), "quarter"]) == "2025Q3"
    assert rows.loc[("Microsoft", "FY26 Q1", "main"), "capex_usd_billions"] == 19.394
    # Microsoft's headline capex including finance leases is on file, but not its main series.
    assert rows.loc[("Microsoft", "FY26 Q1", "alternative"), "capex_usd_billions"] == 34.9
    main = capex[capex["series"] == "main"]
    assert not main.duplicated(["company", "quarter"]).any()
    assert main.groupby("company")["definition"].nunique().eq(1).all()
    assert set(main["company"]) == {"Microsoft", "Alphabet", "Amazon", "Meta", "Oracle"}


def test_hyperscaler_capex_is_cut_on_its_publication(dataset):
    """A quarter's capex is in a cut once it was published, not at the quarter's end."""
    capex = dataset.hyperscaler_capex
    cut = dataset.as_of("2025-01-31").hyperscaler_capex
    known = capex["published_date"] <= pd.Timestamp("2025-01-31")
    assert len(cut) == known.sum() < len(capex)
    quarter = cut[cut["calendar_quarter_end"] == pd.Timestamp("2024-12-31")]
    # Microsoft and Meta reported 2024Q4 on 2025-01-29; Alphabet (02-04) and Amazon (02-06)
    # had not yet, though their quarter had ended.
    assert set(quarter["company"]) == {"Microsoft", "Meta"}
    assert cut.index.equals(pd.RangeIndex(len(cut)))
    assert dataset.as_of("2021-12-31").hyperscaler_capex.empty
