"""The published fit that ships with the package: current, small, checked, refused when stale."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import cli
from forecast.data.dataset import load_dataset
from forecast.evaluation import skill
from forecast.models.fitted import Fitted
from forecast.models.registry import SCENARIO_MODELS, fitted_class
from forecast.pipeline.fitting import priors_digest
from forecast.scenarios import list_scenarios
from forecast.store import integrity, shipped
from forecast.store.bundles import covers

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_fit_matches_the_code_the_data_and_the_scenarios() -> None:
    header = shipped.shipped_header()
    assert header is not None, f"no shipped fit: regenerate it with `{shipped.REGENERATE}`"
    assert shipped.stale_reasons(header, load_dataset().data_hash) == []
    for scenario in list_scenarios():
        assert covers(header, priors_digest(scenario)), scenario.name
    integrity.verify_fit(shipped.SHIPPED_DIR)  # every file against its checksum


def test_the_shipped_fits_model_keys_are_what_this_code_computes_on_the_shipped_data() -> None:
    """A refit of unchanged data reuses the shipped models only when their keys (priors, code
    version, content digest of the inputs) are the ones computed here: the premise of the
    refit tests, which would otherwise sample every model for real."""
    from forecast.pipeline.fitting import model_inputs, model_key, model_priors

    header = shipped.shipped_header()
    dataset = load_dataset()
    for scenario in list_scenarios():
        stored = header["scenarios"][scenario.name]["models"]
        priors, done = model_priors(scenario), {}
        for name in SCENARIO_MODELS:
            key = model_key(name, priors[name], model_inputs(name, dataset, scenario, done))
            assert key == stored[name], (
                f"{scenario.name} {name}: this code keys it {key}, the shipped fit holds "
                f"{stored[name]}: regenerate it with `{shipped.REGENERATE}`")
            done[name] = fitted_class(name).load(shipped.SHIPPED_DIR / key)


def test_the_shipped_fit_is_at_most_ten_megabytes_and_thinned() -> None:
    files = [path for path in shipped.SHIPPED_DIR.rglob("*") if path.is_file()]
    assert sum(path.stat().st_size for path in files) <= 10_000_000
    header = shipped.shipped_header()
    for key, kept in header["kept"].items():
        assert kept["draws_kept"] <= shipped.KEEP_SAMPLES, key
        # Thinning keeps most of the information: the draws kept are far from independent
        # copies of a few.
        assert kept["min_ess_bulk_kept"] >= 0.4 * kept["draws_kept"], key
        assert header["samplers"][key]["draws"] >= kept["draws_kept"] // 4, key


def test_float32_is_kept_only_where_rounding_is_far_below_the_monte_carlo_error() -> None:
    rng = np.random.default_rng(3)
    ordinary = rng.normal(2.0, 0.3, size=(2, 500, 3))
    # A level known to a part in a billion: float32 would move every draw by more than
    # its Monte Carlo error.
    precise = 1e6 + rng.normal(0.0, 1e-3, size=(2, 500))
    assert shipped.float32_safe(ordinary)
    assert not shipped.float32_safe(precise)
    assert not shipped.float32_safe(np.full((2, 500), np.nan))


def test_a_round_trip_through_the_shipped_format_moves_no_draw_beyond_its_share(tmp_path):
    rng = np.random.default_rng(4)
    posterior = xr.Dataset({
        "level": (("chain", "draw", "quarter"), rng.normal(5.0, 0.2, size=(2, 2000, 4))),
        "precise": (("chain", "draw"), 1e6 + rng.normal(0.0, 1e-3, size=(2, 2000))),
        "sigma_log__": (("chain", "draw"), rng.normal(size=(2, 2000)))},
        coords={"chain": [0, 1], "draw": np.arange(2000), "quarter": list("abcd")})
    reduced, narrowed = shipped._reduced(posterior, shipped.thin_indices(2000, 500))
    assert narrowed == ["level"] and "sigma_log__" not in reduced
    shipped.fastio.save_posterior(reduced, tmp_path, compress=True)
    loaded = shipped.fastio.load_posterior(tmp_path)
    assert loaded["level"].dtype == np.float64 == loaded["precise"].dtype
    original = posterior.isel(draw=shipped.thin_indices(2000, 500))
    mc_se = original["level"].std(("chain", "draw")) / np.sqrt(1000)
    assert float((abs(loaded["level"] - original["level"]) / mc_se).max()) <= 0.01
    np.testing.assert_array_equal(loaded["precise"], original["precise"])


def test_regenerating_the_shipped_fit_keeps_the_published_backtests(tmp_path):
    from types import SimpleNamespace

    target = tmp_path / "published"
    (target / "backtests").mkdir(parents=True)
    (target / "backtests" / "spend.json").write_text('{"n": 1}')
    (target / "price-old").mkdir()
    shipped.write_shipped(SimpleNamespace(fit_id="f", models={}, meta={}), target)
    assert (target / "backtests" / "spend.json").read_text() == '{"n": 1}'
    assert not (target / "price-old").exists()
    assert integrity.read_checked_header(target)["fit_id"] == "f"


def test_thin_indices_spread_over_the_chain() -> None:
    kept = shipped.thin_indices(2000, 500)
    assert len(kept) == 500 and kept[0] == 0 and kept[-1] == 1999
    assert set(np.diff(kept)) <= {3, 4, 5}
    np.testing.assert_array_equal(shipped.thin_indices(300, 500), np.arange(300))


def test_every_shipped_model_loads_with_what_check_needs() -> None:
    header = shipped.shipped_header()
    for key in header["models"]:
        name = key.split("-", 1)[0]
        fitted = fitted_class(name).load(shipped.SHIPPED_DIR / key,
                                         checksums=integrity.model_checksums(header, key))
        assert isinstance(fitted, Fitted) and fitted.n_samples <= shipped.KEEP_SAMPLES
        idata = fitted.inference_data()
        if name in SCENARIO_MODELS:
            assert {"posterior", "log_likelihood", "observed_data"} <= set(idata.groups())
            assert idata.posterior.sizes["draw"] == fitted.posterior.sizes["draw"]
        assert fitted.effective_samples() <= fitted.diagnostics()["min_ess_bulk"]


@pytest.fixture
def shipped_copy(tmp_path, monkeypatch) -> Path:
    copy = tmp_path / "published"
    shutil.copytree(shipped.SHIPPED_DIR, copy)
    monkeypatch.setenv(shipped.SHIPPED_ENV, str(copy))
    return copy


def _forecast(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["forecast", "--scenario", "base", "--draws", "50", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_shipped_fit_of_another_model_version_is_refused_in_one_line(
        shipped_copy, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(fitted_class("spend"), "model_version", "999")
    code, out, err = _forecast(capsys, "--artifacts", str(tmp_path / "store"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "spend" in err and "999" in err
    assert "python cli.py refit" in err and shipped.REGENERATE in err


def test_a_shipped_fit_of_other_data_is_refused_in_one_line(shipped_copy, tmp_path,
                                                            capsys) -> None:
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    path = data / "gpu_rental_prices.csv"
    # One price 10% higher: data that pass validation (the manifest's row counts, every
    # field's checks), but not the data the shipped fit was fitted to.
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header, last = next(csv.reader(lines[:1])), next(csv.reader(lines[-1:]))
    column = header.index("usd_per_chip_hour")
    last[column] = f"{float(last[column]) * 1.1:.4g}"
    edited = io.StringIO()
    csv.writer(edited, lineterminator="\n").writerow(last)
    path.write_text("".join(lines[:-1]) + edited.getvalue(), encoding="utf-8")
    code, out, err = _forecast(capsys, "--artifacts", str(tmp_path / "store"), "--data",
                               str(data))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "fitted to data" in err and "refit" in err


def test_the_shipped_fit_serves_a_store_without_fits_and_fits_list_shows_it(
        tmp_path, capsys) -> None:
    store = tmp_path / "store"
    code, out, err = _forecast(capsys, "--artifacts", str(store))
    header = shipped.shipped_header()
    assert code == 0 and f"fit {header['fit_id']}" in out
    assert cli.main(["fits", "list", "--artifacts", str(store)]) == 0
    listing = capsys.readouterr().out
    assert header["fit_id"] in listing and "shipped" in listing
    assert not (store / "fits").exists() or not any((store / "fits").iterdir())


def test_only_backtests_of_this_codes_model_versions_annotate_a_forecast(tmp_path,
                                                                         monkeypatch) -> None:
    target = tmp_path / "fit"
    (target / shipped.BACKTESTS).mkdir(parents=True)
    shutil.copy(shipped.shipped_dir() / integrity.HEADER_FILE, target)
    versions = shipped.model_versions()
    files = {"current": {"model_versions": {"spend": versions["spend"]}, "models": []},
             "older": {"model_versions": {"spend": versions["spend"] + "-old"}},
             "unversioned": {"models": []}}
    for name, report in files.items():
        (target / shipped.BACKTESTS / f"{name}.json").write_text(json.dumps(report))
    (target / shipped.BACKTESTS / "damaged.json").write_text("{not json")
    monkeypatch.setenv(shipped.SHIPPED_ENV, str(target))
    assert list(shipped.published_backtests()) == ["current"]
    monkeypatch.setenv(shipped.SHIPPED_ENV, "off")
    assert shipped.published_backtests() == {}


def test_a_republished_backtest_is_read_anew_in_the_same_process(tmp_path,
                                                                 monkeypatch) -> None:
    target = tmp_path / "fit"
    (target / shipped.BACKTESTS).mkdir(parents=True)
    shutil.copy(shipped.shipped_dir() / integrity.HEADER_FILE, target)
    monkeypatch.setenv(shipped.SHIPPED_ENV, str(target))
    share = target / shipped.BACKTESTS / "share.json"
    versions = {"spend": shipped.model_versions()["spend"]}
    for weight in (0.3, 0.6, 0.3):  # the same size each time, written within milliseconds
        share.write_text(json.dumps({"model_versions": versions,
                                     "weights": {"forecast": weight}}))
        assert shipped.published_stack_weight() == weight
    share.write_text("{damaged")
    assert shipped.published_stack_weight() is None


def test_a_forecast_says_where_the_published_backtests_found_a_baseline_better(
        shipped_copy, tmp_path, capsys) -> None:
    backtests = shipped_copy / shipped.BACKTESTS
    share = json.loads((backtests / "share.json").read_text())
    stack = skill.STRUCTURAL["share"]  # the stack the forecast publishes
    for model in share["models"]:  # it scores worse than constant shares
        model["pooled"]["crps"] = {stack: 0.3, "constant_share": 0.2}.get(model["model"], 9.0)
    (backtests / "share.json").write_text(json.dumps(share))
    code, out, _ = _forecast(capsys, "--artifacts", str(tmp_path / "store"))
    assert code == 0
    assert "naive baseline beat the model" in out
    assert f"{stack} CRPS 0.300 vs constant_share 0.200" in out
    code, out, _ = _forecast(capsys, "--artifacts", str(tmp_path / "store"), "--format", "json")
    gaps = json.loads(out)["meta"]["skill_gaps"]
    assert {"backtest": "share", "baseline": "constant_share", "model_score": 0.3}.items() \
        <= next(g for g in gaps if g["backtest"] == "share").items()
    # Once the model wins, the forecast says nothing of that backtest.
    for model in share["models"]:
        model["pooled"]["crps"] = 0.1 if model["model"] == stack else 0.2
    (backtests / "share.json").write_text(json.dumps(share))
    code, out, _ = _forecast(capsys, "--artifacts", str(tmp_path / "store"))
    assert "share backtest (" not in out
