"""Every byte of a stored fit is checked: one changed byte anywhere refuses the fit, naming
the file; a damaged fast copy falls back to its archival copy only when that one verifies."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
import xarray as xr
from toyfit import KEYS, PRIORS_DIGEST, TOY_FIT, toy_fitted

import cli
from forecast.core.errors import FitError
from forecast.store import integrity
from forecast.store.bundles import (
    FitBundle,
    latest_fit_id,
    list_fits,
    load_bundle,
    read_header,
    save_bundle,
)
from forecast.store.registry import Registry

MODEL = KEYS[0]
#: Files whose damage refuses the fit: the header, snapshots, report, a model's own files.
REFUSED = ["bundle.json", "revision.md", "data/prices.csv", "scenarios/base.toml",
           f"{MODEL}/config.json", f"{MODEL}/posterior.nc", f"{MODEL}/summary.csv",
           f"{MODEL}/data_observations.parquet"]
#: Fast copies: damaged, they are named in a warning and their verified archival copy read.
FAST_COPIES = [f"{MODEL}/posterior.npz", f"{MODEL}/posterior_layout.json",
               f"{MODEL}/data.npz", f"{MODEL}/data_layout.json"]


def _fit(root: Path) -> Path:
    return root / "fits" / TOY_FIT


def _flip(path: Path, where: str = "middle") -> None:
    raw = bytearray(path.read_bytes())
    position = {"first": 0, "middle": len(raw) // 2, "last": len(raw) - 1}[where]
    raw[position] ^= 0x01
    path.write_bytes(bytes(raw))


def _names(path: Path) -> str:
    return re.escape(str(path))


def _assert_loads_the_original(root: Path) -> None:
    loaded = load_bundle(TOY_FIT, root, priors_digest=PRIORS_DIGEST).models["toy"]
    original = toy_fitted(0)
    xr.testing.assert_identical(loaded.posterior, original.posterior)
    assert loaded.data["observations"].equals(original.data["observations"])


def test_the_header_records_every_file_and_verifies(toy_store: Path) -> None:
    fit = _fit(toy_store)
    header = read_header(fit)
    files = {p.relative_to(fit).as_posix() for p in fit.rglob("*") if p.is_file()}
    assert set(header[integrity.CHECKSUMS]) == files - {"bundle.json"}
    assert set(REFUSED + FAST_COPIES) <= files
    assert integrity.verify_fit(fit)["fit_id"] == TOY_FIT
    _assert_loads_the_original(toy_store)


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("relative", REFUSED)
def test_one_changed_byte_refuses_the_fit_naming_the_file(toy_store: Path, relative: str,
                                                          where: str) -> None:
    path = _fit(toy_store) / relative
    _flip(path, where)
    with pytest.raises(FitError, match=_names(path)):
        load_bundle(TOY_FIT, toy_store, priors_digest=PRIORS_DIGEST)
    with pytest.raises(FitError, match=_names(path)):
        integrity.verify_fit(_fit(toy_store))


@pytest.mark.parametrize("damage", ["flip", "delete"])
@pytest.mark.parametrize("relative", FAST_COPIES)
def test_a_damaged_fast_copy_is_named_and_the_verified_archival_copy_read(
        toy_store: Path, relative: str, damage: str, caplog: pytest.LogCaptureFixture) -> None:
    path = _fit(toy_store) / relative
    if damage == "flip":
        _flip(path)
    else:
        path.unlink()
    with caplog.at_level(logging.WARNING):
        _assert_loads_the_original(toy_store)
    assert str(path) in caplog.text and "archival copy" in caplog.text
    with pytest.raises(FitError, match=_names(path)):  # still not a sound fit
        integrity.verify_fit(_fit(toy_store))


@pytest.mark.parametrize(("fast", "archival"), [
    ("posterior.npz", "posterior.nc"), ("posterior_layout.json", "posterior.nc"),
    ("data.npz", "data_observations.parquet")])
def test_a_damaged_fast_copy_with_a_damaged_archival_copy_is_refused(
        toy_store: Path, fast: str, archival: str) -> None:
    # The corruption that once gave other numbers with exit 0: NetCDF garbled, .npz gone.
    model = _fit(toy_store) / MODEL
    (model / fast).unlink()
    _flip(model / archival)
    with pytest.raises(FitError, match=_names(model / archival)):
        load_bundle(TOY_FIT, toy_store, priors_digest=PRIORS_DIGEST)


def test_each_model_is_checked_when_it_is_loaded(toy_store: Path) -> None:
    other = _fit(toy_store) / KEYS[1] / "posterior.nc"
    _flip(other)
    # A scenario's forecast loads (and checks) its own models...
    assert load_bundle(TOY_FIT, toy_store, priors_digest=PRIORS_DIGEST).models["toy"]
    # ... the whole fit loads and checks them all.
    with pytest.raises(FitError, match=_names(other)):
        load_bundle(TOY_FIT, toy_store)


def test_the_header_checks_its_own_bytes(toy_store: Path) -> None:
    path = _fit(toy_store) / "bundle.json"
    text = path.read_text()
    path.write_text(text.replace('\n  "', '\n   "', 1))  # same JSON, other bytes
    with pytest.raises(FitError, match=f"{_names(path)}: checksum mismatch"):
        read_header(path.parent)
    header = json.loads(text)
    del header[integrity.HEADER_DIGEST]  # no longer checkable: not silently unchecked
    path.write_text(json.dumps(header))
    with pytest.raises(FitError, match="checksum record incomplete"):
        list_fits(toy_store)


def test_a_fit_directory_without_its_header_is_damaged_not_absent(toy_store: Path,
                                                                  capsys) -> None:
    header = _fit(toy_store) / "bundle.json"
    header.unlink()
    for call in (lambda: list_fits(toy_store), lambda: latest_fit_id(toy_store),
                 lambda: load_bundle(TOY_FIT, toy_store)):
        with pytest.raises(FitError, match=f"{_names(header)}: missing: the stored fit is "
                                           "damaged"):
            call()
    # The registry lists it as damaged rather than forgetting it.
    assert [(row["fit_id"], row["status"]) for row in Registry(toy_store).fits()] == [
        (TOY_FIT, "damaged")]
    assert cli.main(["fits", "list", "--artifacts", str(toy_store)]) == 0
    assert "damaged" in capsys.readouterr().out


def test_a_forecast_never_starts_a_new_fit_beside_a_damaged_one(toy_store: Path) -> None:
    from forecast.pipeline.fitting import find_fit
    from forecast.scenarios import load_scenario

    (_fit(toy_store) / "bundle.json").unlink()
    with pytest.raises(FitError, match="bundle.json: missing"):
        find_fit(load_scenario("base"), toy_store)


@pytest.mark.parametrize("relative", ["bundle.json", f"{MODEL}/config.json"])
def test_garbled_json_is_one_line_not_a_traceback(toy_store: Path, relative: str,
                                                  capsys) -> None:
    path = _fit(toy_store) / relative
    path.write_bytes(b"\xff\xfe\x00garbled" + path.read_bytes()[8:])  # not UTF-8 either
    with pytest.raises(FitError, match=_names(path)):
        load_bundle(TOY_FIT, toy_store)
    assert cli.main(["fits", "show", TOY_FIT, "--artifacts", str(toy_store)]) == (
        2 if relative == "bundle.json" else 0)
    err = capsys.readouterr().err
    if relative == "bundle.json":
        assert err.count("\n") == 1 and str(path) in err


def test_a_stored_model_saved_again_keeps_every_group_once_checked(toy_store: Path) -> None:
    # What a refit does with a model it reuses: load it from one fit, save it into the next.
    import arviz as az

    reused = load_bundle(TOY_FIT, toy_store).models[MODEL]
    assert reused.idata is None
    save_bundle(FitBundle("20260102T000000-toyfit02-0002", {MODEL: reused}, {}), toy_store)
    stored = az.from_netcdf(toy_store / "fits" / "20260102T000000-toyfit02-0002" / MODEL
                            / "posterior.nc")
    assert {"posterior", "sample_stats"} <= set(stored.groups())
    # Damaged after it was loaded: refused, not copied into the new fit with a fresh checksum.
    reused = load_bundle(TOY_FIT, toy_store).models[MODEL]
    _flip(_fit(toy_store) / MODEL / "posterior.nc")
    with pytest.raises(FitError, match=_names(_fit(toy_store) / MODEL / "posterior.nc")):
        save_bundle(FitBundle("20260103T000000-toyfit03-0003", {MODEL: reused}, {}), toy_store)
    assert _fit_dirs(toy_store) == [TOY_FIT, "20260102T000000-toyfit02-0002"]


def _fit_dirs(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "fits").iterdir())
