"""Tests of the diffusion models: Bass math against closed forms, recovery, CSV input, Epoch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import integrate, stats

from forecast.core.errors import FitError, ForecastError
from forecast.data.dataset import load_dataset
from forecast.models.diffusion import (
    DEFAULT_PRIORS,
    DiffusionModel,
    FittedDiffusion,
    bass_adoptions,
    bass_cdf,
    bass_pdf,
    bass_peak_time,
    build_diffusion_model,
    diffusion_report,
    effective_time,
    epoch_units,
    fit_units_csv,
    gbass_adoptions,
    norton_bass_adoptions,
    norton_bass_cumulative,
    prepare_diffusion_data,
    read_units_csv,
    simulate_units,
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "diffusion_units.csv"
SMALL = {"draws": 500, "tune": 800, "chains": 2, "random_seed": 7, "nuts_sampler": "nutpie"}
PARAMS = [(0.01, 0.1), (0.02, 0.35), (0.003, 0.7), (0.05, 0.04)]


@pytest.fixture(scope="module")
def dataset():
    return load_dataset()


def _covered(table: pd.DataFrame, name: str, truth: float) -> bool:
    row = table.set_index("parameter").loc[name]
    return bool(row["lower"] <= truth <= row["upper"])


# --------------------------------------------------------------------------- Bass math


@pytest.mark.parametrize(("p", "q"), PARAMS)
def test_cdf_is_the_integral_of_the_pdf(p, q):
    for t in (0.5, 3.0, 10.0, 40.0):
        integral, _ = integrate.quad(bass_pdf, 0.0, t, args=(p, q))
        assert bass_cdf(t, p, q) == pytest.approx(integral, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize(("p", "q"), PARAMS[:3])
def test_peak_time_is_the_argmax_of_the_pdf(p, q):
    grid = np.linspace(0.0, 60.0, 600_001)
    assert grid[np.argmax(bass_pdf(grid, p, q))] == pytest.approx(bass_peak_time(p, q),
                                                                  abs=1e-3)


def test_peak_time_is_launch_when_innovation_dominates():
    assert bass_peak_time(0.05, 0.04) == 0.0
    assert np.argmax(bass_pdf(np.linspace(0, 20, 2001), 0.05, 0.04)) == 0


@pytest.mark.parametrize(("p", "q"), PARAMS)
def test_adoptions_sum_to_m_times_cdf_and_cdf_tends_to_one(p, q):
    adoptions = bass_adoptions(30, p, q, 5e5)
    assert adoptions.sum() == pytest.approx(5e5 * bass_cdf(30, p, q))
    assert np.all(adoptions > 0)
    assert bass_cdf(1e4, p, q) == pytest.approx(1.0)
    assert bass_cdf(0.0, p, q) == 0.0
    assert bass_cdf(-3.0, p, q) == 0.0
    np.testing.assert_allclose(np.cumsum(adoptions), 5e5 * bass_cdf(np.arange(1, 31), p, q))


def test_years_to_quarters_divides_p_and_q_by_four():
    years = np.linspace(0, 8, 17)
    np.testing.assert_allclose(bass_cdf(years, 0.03, 0.4), bass_cdf(4 * years, 0.0075, 0.1))


def test_adoptions_are_vectorised_over_draws():
    p, q, m = np.array([0.01, 0.02, 0.03]), np.array([0.2, 0.3, 0.5]), np.array([1.0, 2.0, 3.0])
    batch = bass_adoptions(12, p, q, m)
    assert batch.shape == (3, 12)
    for i in range(3):
        np.testing.assert_allclose(batch[i], bass_adoptions(12, p[i], q[i], m[i]))


# --------------------------------------------------------------------------- generalised Bass


def test_gbass_with_beta_zero_is_bass():
    covariate = np.exp(np.random.default_rng(3).normal(0, 0.3, 15).cumsum())
    np.testing.assert_allclose(gbass_adoptions(covariate, 0.02, 0.3, 1e6, 0.0),
                               bass_adoptions(15, 0.02, 0.3, 1e6))


def test_gbass_with_a_constant_covariate_is_bass():
    np.testing.assert_allclose(gbass_adoptions(np.full(15, 7.5), 0.02, 0.3, 1e6, 1.7),
                               bass_adoptions(15, 0.02, 0.3, 1e6))


def test_gbass_improving_covariate_speeds_adoption():
    covariate = np.exp(0.1 * np.arange(12))  # log change of 0.1 a period
    fast = gbass_adoptions(covariate, 0.02, 0.3, 1.0, 2.0).cumsum()
    slow = bass_adoptions(12, 0.02, 0.3, 1.0).cumsum()
    assert np.all(fast[1:] > slow[1:])
    # x = 1.2 from period 2 on: effective time 1, 2.2, 3.4, ...
    np.testing.assert_allclose(effective_time(covariate, 2.0), 1.0 + 1.2 * np.arange(12))


def test_gbass_is_vectorised_and_rejects_non_positive_covariates():
    covariate = np.exp(np.random.default_rng(4).normal(0, 0.2, 10).cumsum())
    beta = np.array([0.0, 0.5, 1.0])
    batch = gbass_adoptions(covariate, 0.02, 0.3, 1.0, beta)
    assert batch.shape == (3, 10)
    np.testing.assert_allclose(batch[1], gbass_adoptions(covariate, 0.02, 0.3, 1.0, 0.5))
    with pytest.raises(ForecastError, match="positive"):
        gbass_adoptions(np.array([1.0, 0.0, 2.0]), 0.02, 0.3, 1.0, 1.0)


# --------------------------------------------------------------------------- Norton-Bass


def test_norton_bass_with_one_generation_is_bass():
    sales = norton_bass_adoptions(20, [0], 0.02, 0.4, [3e5])
    assert sales.shape == (20, 1)
    np.testing.assert_allclose(sales[:, 0], bass_adoptions(20, 0.02, 0.4, 3e5))
    np.testing.assert_allclose(norton_bass_adoptions(20, [0], 0.02, 0.4, [3e5], sales="net"),
                               sales)


def test_norton_bass_cumulative_is_the_textbook_form():
    p, q, m, taus = 0.02, 0.4, np.array([1.0, 2.0, 1.5]), [0, 5, 11]
    t = np.linspace(0, 30, 61)
    f1, f2, f3 = (bass_cdf(t - tau, p, q) for tau in taus)
    expected = np.stack([
        m[0] * f1 * (1 - f2),
        f2 * (m[1] + m[0] * f1) * (1 - f3),
        f3 * (m[2] + f2 * (m[1] + m[0] * f1)),
    ], axis=-1)
    np.testing.assert_allclose(norton_bass_cumulative(t, taus, p, q, m), expected)


def test_two_generations_total_demand_and_substitution():
    p, q, m = 0.02, 0.4, np.array([1e6, 2e6])
    cumulative = norton_bass_cumulative(np.array([400.0]), [0, 8], p, q, m)
    assert cumulative.sum() == pytest.approx(m.sum(), rel=1e-9)
    gross = norton_bass_adoptions(40, [0, 8], p, q, m)
    alone = bass_adoptions(40, p, q, m[0])
    np.testing.assert_allclose(gross[:8, 0], alone[:8])  # identical before gen 2
    assert np.all(gross[:8, 1] == 0)
    assert np.all(gross[9:, 0] < alone[9:])  # gen-2 takes gen-1's buyers
    peak = int(np.argmax(gross[:, 0]))
    assert peak < 12 and np.all(np.diff(gross[peak:, 0]) < 0)  # gen-1 sales fall after
    assert np.all(gross >= 0)


def test_net_sales_are_gross_minus_upgrades_and_go_negative():
    p, q, m, taus = 0.02, 0.4, np.array([1e6, 2e6]), [0, 8]
    net = norton_bass_adoptions(40, taus, p, q, m, sales="net")
    np.testing.assert_allclose(net.sum(axis=0), norton_bass_cumulative([40.0], taus, p, q, m)[0])
    assert net[:, 0].min() < 0
    gross = norton_bass_adoptions(40, taus, p, q, m)
    np.testing.assert_allclose(gross[:, 1], net[:, 1])  # the last generation loses nobody


def test_norton_bass_is_vectorised_over_draws():
    p, q = np.array([0.01, 0.03]), np.array([0.3, 0.5])
    m = np.array([[1.0, 2.0], [2.0, 1.0]])
    batch = norton_bass_adoptions(16, [0, 6], p, q, m)
    assert batch.shape == (2, 16, 2)
    np.testing.assert_allclose(batch[1], norton_bass_adoptions(16, [0, 6], p[1], q[1], m[1]))


# --------------------------------------------------------------------------- data preparation


def test_prepare_handles_quarters_gaps_and_launch_offset():
    index = pd.PeriodIndex(["2024Q1", "2024Q2", "2024Q4", "2025Q1", "2025Q2", "2025Q3"],
                           freq="Q")
    series = pd.Series([1.0, 2.0, 4.0, 5.0, 4.0, 3.0], index=index)
    data = prepare_diffusion_data(series, launch_offset=2)
    assert list(data.observations["position"]) == [1, 2, 4, 5, 6, 7]
    assert list(data.observations["period"])[2] == "2024Q4"
    assert data.n_span == 7 and data.launch_offset == 2
    assert data.totals == (19.0,)
    labels = prepare_diffusion_data(series.set_axis([str(p) for p in index])).observations
    assert list(labels["position"]) == [1, 2, 4, 5, 6, 7]


def test_prepare_norton_bass_launch_periods():
    frame = simulate_units("norton-bass", 12, 0.02, 0.4, [1e5, 2e5], 0.1, seed=1,
                           launch_periods=[0, 5])
    data = prepare_diffusion_data(frame, "norton-bass", launch_offset=3)
    assert data.launch_periods == (0, 8)
    assert len(data.observations) == 12 + 7


@pytest.mark.parametrize(("series", "message"), [
    (pd.Series([1.0, 2.0, -1.0, 3.0, 4.0, 5.0]), "must be > 0"),
    (pd.Series([1.0, 2.0, 3.0, 4.0, 5.0]), "need at least 6"),
    (pd.Series([1.0] * 6, index=list("abcdef")), "index must hold periods"),
    (pd.Series([1.0] * 6, index=[1, 1, 2, 3, 4, 5]), "duplicate period"),
])
def test_prepare_rejects_bad_series(series, message):
    with pytest.raises(ForecastError, match=message):
        prepare_diffusion_data(series)


def test_gbass_needs_a_covariate_over_the_span():
    series = simulate_units("bass", 8, 0.02, 0.3, 1e5, 0.1, seed=2)
    with pytest.raises(ForecastError, match="needs a covariate"):
        prepare_diffusion_data(series, "gbass")
    with pytest.raises(ForecastError, match="7 values"):
        prepare_diffusion_data(series, "gbass", covariate=np.ones(7))
    with pytest.raises(ForecastError, match="only used by kind='gbass'"):
        prepare_diffusion_data(series, "bass", covariate=np.ones(8))


def test_unknown_kind_and_prior_are_errors():
    with pytest.raises(ForecastError, match="kind must be one of"):
        DiffusionModel("logistic")
    with pytest.raises(ForecastError, match="priors.diffusion.gamma"):
        DiffusionModel(priors={"gamma": {"dist": "normal", "mu": 0, "sigma": 1}})
    model = DiffusionModel(priors={"q": {"dist": "lognormal", "median": 0.2, "sigma": 0.5}})
    assert model.priors["q"]["median"] == 0.2 and model.priors["p"] == DEFAULT_PRIORS["p"]


def test_pymc_likelihood_matches_the_numpy_math():
    """The model's log-likelihood at a point equals a hand computation from the numpy math."""
    p, q, m, sigma, taus = 0.02, 0.4, np.array([1e5, 3e5]), 0.2, [0, 5]
    frame = simulate_units("norton-bass", 12, p, q, m, sigma, seed=3, launch_periods=taus)
    frame.iloc[7, 0] = np.nan  # a gap
    data = prepare_diffusion_data(frame, "norton-bass", launch_offset=2)
    model = build_diffusion_model(data, DEFAULT_PRIORS)
    totals = np.array(data.totals)
    point = {"p_log__": np.log(p), "q_log__": np.log(q), "sigma_log__": np.log(sigma),
             "m_ratio_log__": np.log(m / totals)}
    logp = model.compile_logp(vars=[model["log_units"]])(point)
    mean = norton_bass_adoptions(14, [0, 7], p, q, m)[2:]
    observed = frame.to_numpy()
    mask = np.isfinite(observed)
    expected = stats.norm.logpdf(np.log(observed[mask] / np.broadcast_to(totals, mask.shape)[mask]),
                                 np.log(mean[mask] / np.broadcast_to(totals, mask.shape)[mask]),
                                 sigma).sum()
    assert float(logp) == pytest.approx(expected, rel=1e-9)


# --------------------------------------------------------------------------- Epoch volumes


def test_epoch_units_catalogue_name_sums_variants(dataset):
    family = epoch_units(dataset, chip="H100 SXM5 80GB")
    recorded = epoch_units(dataset, chip="H100")
    assert isinstance(family.index, pd.PeriodIndex)
    assert family.index.is_unique and recorded.index.is_unique
    assert family.sum() > recorded.sum()
    volumes = dataset.volumes
    assert recorded.sum() == volumes.loc[volumes["chip_as_recorded"] == "H100",
                                         "units_median"].sum()


def test_epoch_units_generations_and_errors(dataset):
    frame = epoch_units(dataset, chip=["A100", "H100", "B200"])
    assert list(frame.columns) == ["A100", "H100", "B200"]
    assert frame["B200"].first_valid_index() > frame["H100"].first_valid_index()
    aws = epoch_units(dataset, vendor_group="aws")
    assert list(aws.columns) == ["Trainium1", "Trainium2"]
    with pytest.raises(ForecastError, match="no volumes"):
        epoch_units(dataset, chip="H900")
    with pytest.raises(ForecastError, match="vendor_group or a chip"):
        epoch_units(dataset)
    data = prepare_diffusion_data(frame, "norton-bass")
    assert data.launch_periods == (0, 3, 12)


# --------------------------------------------------------------------------- CSV input


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "units.csv"
    path.write_text(text)
    return path


GOOD_ROWS = "".join(f"{k},{100 * k}\n" for k in range(1, 8))


@pytest.mark.parametrize(("text", "kind", "row", "column", "message"), [
    ("period,units\n" + GOOD_ROWS, "bass", 1, "value", "required column is missing"),
    ("period,value\n" + GOOD_ROWS + "8,abc\n", "bass", 9, "value", "not a number"),
    ("period,value\n" + GOOD_ROWS + "8,-5\n", "bass", 9, "value", "positive"),
    ("period,value\n" + GOOD_ROWS + "8,0\n", "bass", 9, "value", "positive"),
    ("period,value\n" + GOOD_ROWS + "3,40\n", "bass", 9, "period", "duplicate period '3'"),
    ("period,value\n1,1\n2,2\n3,3\n4,4\n5,5\n", "bass", 6, "value", "need at least 6"),
    ("period,value\n" + GOOD_ROWS + "2025Q1,7\n", "bass", 9, "period", "mixes"),
    ("period,value\n" + GOOD_ROWS + "soon,7\n", "bass", 9, "period", "quarter like 2024Q1"),
    ("period,value\n" + GOOD_ROWS, "gbass", 1, "covariate", "required column is missing"),
    ("period,value,covariate\n1,5,1\n2,5,x\n", "gbass", 3, "covariate", "not a number"),
    ("period,generation,value\n1,a,5\n1,a,6\n", "norton-bass", 3, "period",
     "duplicate period and generation"),
    ("period,value\n" + GOOD_ROWS, "norton-bass", 1, "generation", "required column"),
])
def test_csv_errors_name_file_row_and_column(tmp_path, text, kind, row, column, message):
    path = _write(tmp_path, text)
    with pytest.raises(ForecastError) as info:
        read_units_csv(path, kind)
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(f"{path}:{row}:{column}: ")
    assert message in text


def test_csv_missing_file_is_one_line(tmp_path):
    path = tmp_path / "nope.csv"
    with pytest.raises(ForecastError) as info:
        fit_units_csv(path)
    assert str(info.value) == f"{path}::: file not found"


def test_csv_fixture_reads_as_quarters_with_covariate():
    series, covariate = read_units_csv(FIXTURE, "gbass")
    assert isinstance(series.index, pd.PeriodIndex) and len(series) == 12
    assert covariate is not None and covariate.index.equals(series.index)
    series, covariate = read_units_csv(FIXTURE, "bass")
    assert covariate is None


def test_csv_long_format_becomes_generation_columns(tmp_path):
    rows = ["period,generation,value"]
    rows += [f"{k},old,{10 * k}" for k in range(1, 7)]
    rows += [f"{k},new,{5 * k}" for k in range(4, 9)]
    series, _ = read_units_csv(_write(tmp_path, "\n".join(rows) + "\n"), "norton-bass")
    assert list(series.columns) == ["old", "new"]
    assert series.loc[8, "new"] == 40 and np.isnan(series.loc[8, "old"])
    assert prepare_diffusion_data(series, "norton-bass").launch_periods == (0, 3)


# --------------------------------------------------------------------------- fitted objects


def _handmade_fit(kind: str = "bass", draws: int = 50) -> FittedDiffusion:
    """A FittedDiffusion with a known, tight posterior (no sampling)."""
    rng = np.random.default_rng(0)
    shape = (2, draws)
    posterior = {
        "p": (("chain", "draw"), 0.02 * np.exp(0.01 * rng.standard_normal(shape))),
        "q": (("chain", "draw"), 0.35 * np.exp(0.01 * rng.standard_normal(shape))),
        "sigma": (("chain", "draw"), np.full(shape, 0.1)),
    }
    meta = {"kind": kind, "divergences": 0, "fit_seconds": 1.0, "n_observations": 10,
            "n_span": 10, "launch_offset": 2, "index_kind": "period", "freq": "Q-DEC",
            "first_label": "2024Q1", "covariate_last": None}
    data = {"observations": pd.DataFrame({"position": range(1, 11), "value": 1.0})}
    if kind == "norton-bass":
        posterior["m"] = (("chain", "draw", "generation"), np.full(shape + (2,), 1e6))
        meta.update(generations=["a", "b"], launch_periods=[0, 6])
        coords = {"generation": ["a", "b"]}
    else:
        posterior["m"] = (("chain", "draw"), np.full(shape, 1e6))
        meta.update(generations=["units"], launch_periods=[0])
        coords = {}
    summary = pd.DataFrame({"parameter": ["p", "q"], "r_hat": [1.0, 1.001],
                            "ess_bulk": [900.0, 800.0], "ess_tail": [700.0, 600.0]})
    return FittedDiffusion(posterior=xr.Dataset(posterior, coords=coords), data=data,
                           config={"kind": kind}, summary_table=summary, meta=meta)


def test_forecast_continues_the_curve_after_the_fitted_span():
    fitted = _handmade_fit()
    paths = fitted.forecast(4, draws=300, seed=1, noise=False)
    assert paths.dims == ("draw", "period") and paths.shape == (300, 4)
    assert list(paths["period"].values) == ["2026Q3", "2026Q4", "2027Q1", "2027Q2"]
    expected = bass_adoptions(16, 0.02, 0.35, 1e6)[12:]
    np.testing.assert_allclose(paths.median("draw"), expected, rtol=0.05)
    noisy = fitted.forecast(4, draws=2000, seed=1)
    ratio = np.log(noisy.values / expected)
    assert ratio.std() == pytest.approx(0.1, rel=0.15)


def test_norton_bass_forecast_has_a_generation_axis():
    paths = _handmade_fit("norton-bass").forecast(3, draws=20, seed=2, noise=False)
    assert paths.dims == ("draw", "period", "generation")
    expected = norton_bass_adoptions(15, [0, 6], 0.02, 0.35, [1e6, 1e6])[12:]
    np.testing.assert_allclose(paths.median("draw"), expected, rtol=0.1)


def test_parameters_report_and_save_load_without_pymc(tmp_path):
    fitted = _handmade_fit("norton-bass")
    table = fitted.parameters(0.9)
    assert list(table["parameter"]) == ["p", "q", "m[a]", "m[b]"]
    assert (table["lower"] <= table["median"]).all() and (table["median"] <= table["upper"]).all()
    report = diffusion_report(fitted)
    assert report["converged"] and report["divergences"] == 0
    assert json.loads(json.dumps(report))["parameters"][0]["parameter"] == "p"
    fitted.save(tmp_path / "fit")
    script = (
        "import sys\n"
        "from forecast.models.diffusion import FittedDiffusion\n"
        f"fit = FittedDiffusion.load({str(tmp_path / 'fit')!r})\n"
        "paths = fit.forecast(2, draws=10, seed=0)\n"
        "assert paths.shape == (10, 2, 2)\n"
        "assert 'pymc' not in sys.modules and 'pytensor' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=Path(__file__).parents[2])
    loaded = FittedDiffusion.load(tmp_path / "fit")
    np.testing.assert_allclose(loaded.stacked("m"), fitted.stacked("m"))
    assert loaded.meta["launch_periods"] == [0, 6]
    with pytest.raises(FitError):
        FittedDiffusion.load(tmp_path / "missing")


def test_forecast_rejects_bad_arguments():
    with pytest.raises(ForecastError, match="must be > 0"):
        _handmade_fit().forecast(0)
    with pytest.raises(ForecastError, match="interval"):
        _handmade_fit().parameters(1.5)


# --------------------------------------------------------------------------- recovery (slow)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_bass_recovers_known_parameters(seed):
    truth = {"p": 0.02, "q": 0.35, "m": 1e6}
    series = simulate_units("bass", 14, truth["p"], truth["q"], truth["m"], 0.15, seed=seed)
    fitted = DiffusionModel("bass", sampler=SMALL).fit(series)
    table = fitted.parameters(0.9)
    for name, value in truth.items():
        assert _covered(table, name, value), (name, table)
    assert fitted.diagnostics()["divergences"] == 0


@pytest.mark.slow
def test_gbass_recovers_beta():
    rng = np.random.default_rng(5)
    covariate = np.exp(np.cumsum(rng.normal(0.0, 0.25, 16)))
    truth = {"p": 0.02, "q": 0.3, "m": 1e6, "beta": 1.5}
    mean = gbass_adoptions(covariate, truth["p"], truth["q"], truth["m"], truth["beta"])
    series = pd.Series(mean * np.exp(0.1 * rng.standard_normal(16)), index=range(1, 17))
    fitted = DiffusionModel("gbass", sampler=SMALL).fit(series, covariate=covariate)
    # The target here is beta (90% interval); p, q and m, checked at 90% by the Bass test, get
    # a 99% sanity check (four 90% checks on one data set miss one about a third of the time).
    table = fitted.parameters(0.9)
    assert _covered(table, "beta", truth["beta"]), table
    assert table.set_index("parameter").loc["beta", "lower"] > 0
    wide = fitted.parameters(0.99)
    for name in ("p", "q", "m"):
        assert _covered(wide, name, truth[name]), (name, wide)
    paths = fitted.forecast(3, draws=100, seed=0, covariate=covariate[-1] * np.ones(3))
    assert paths.shape == (100, 3) and np.all(paths.values > 0)


@pytest.mark.slow
def test_norton_bass_recovers_known_parameters():
    truth = {"p": 0.02, "q": 0.4, "m": np.array([1e6, 2e6])}
    frame = simulate_units("norton-bass", 18, truth["p"], truth["q"], truth["m"], 0.15,
                           seed=4, launch_periods=[0, 7])
    fitted = DiffusionModel("norton-bass", sampler=SMALL).fit(frame)
    table = fitted.parameters(0.9)
    for name in ("p", "q"):
        assert _covered(table, name, truth[name]), (name, table)
    for g, value in zip(("gen1", "gen2"), truth["m"], strict=True):
        assert _covered(table, f"m[{g}]", value), (g, table)


@pytest.mark.slow
def test_fit_units_csv_and_report():
    fitted = fit_units_csv(FIXTURE, "bass", sampler=SMALL)
    report = diffusion_report(fitted)
    assert [row["parameter"] for row in report["parameters"]] == ["p", "q", "m"]
    # Plumbing check with few draws: a 12-quarter series near its peak leaves m loose.
    assert report["divergences"] == 0 and report["max_r_hat"] < 1.05
    json.dumps(report)
    paths = fitted.forecast(4, draws=50)
    assert list(paths["period"].values) == ["2026Q1", "2026Q2", "2026Q3", "2026Q4"]


@pytest.mark.slow
def test_real_epoch_series_converges(dataset):
    """Bass on Epoch's modelled H100 shipments (13 quarters, launch 2022Q3 to 2025Q3)."""
    series = epoch_units(dataset, chip="H100")
    fitted = DiffusionModel("bass", sampler={**SMALL, "draws": 1500, "tune": 1000}).fit(series)
    report = diffusion_report(fitted)
    print(json.dumps(report, indent=1))
    assert report["max_r_hat"] <= 1.01
    assert report["divergences"] == 0
    assert report["min_ess_bulk"] >= 400
    # A series past its peak has seen most of its potential (lognormal noise lets the
    # observed total exceed the curve's m F(n) a little).
    m = fitted.parameters().set_index("parameter").loc["m"]
    assert 0.7 * series.sum() < m["median"] < 1.5 * series.sum()
