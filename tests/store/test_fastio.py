"""The fast ``.npz`` copies of a fit round-trip what the archival files hold."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core import fastio
from forecast.core.errors import FitError
from forecast.models.fitted import Fitted as FittedModel


def _frames() -> dict[str, pd.DataFrame]:
    observations = pd.DataFrame({
        "quarter": pd.PeriodIndex(["2024Q4", "2025Q1", None], freq="Q").array,
        "date": pd.to_datetime(["2024-12-31", "2025-03-31", "2025-06-30"]).as_unit("us"),
        "chip": pd.array(["H100", None, "Trainium2"], dtype="str"),
        "note": np.array(["a", None, "c"], dtype=object),
        "units": [1.5, np.nan, 3.25],
        "count": np.array([1, 2, 3], dtype=np.int64),
        "recalled": [True, False, True],
    })
    empty = pd.DataFrame({"vendor": pd.array([], dtype="str"), "value": np.array([], float)})
    return {"observations": observations, "empty": empty}


def test_frames_round_trip_as_parquet_does(tmp_path: Path) -> None:
    frames = _frames()
    assert fastio.save_frames(frames, tmp_path)
    loaded = fastio.load_frames(tmp_path, ["observations", "empty"])
    assert loaded is not None
    for name, frame in frames.items():
        frame.to_parquet(tmp_path / f"{name}.parquet")
        pd.testing.assert_frame_equal(loaded[name], pd.read_parquet(tmp_path / f"{name}.parquet"),
                                      check_exact=True)
    assert loaded["observations"]["chip"].isna().tolist() == [False, True, False]
    assert loaded["observations"]["quarter"].isna().tolist() == [False, False, True]


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"label": pd.Categorical(["a", "b"])}),
    pd.DataFrame({"mixed": np.array(["a", 1], dtype=object)}),
    pd.DataFrame({"value": [1.0, 2.0]}, index=pd.Index(["x", "y"], name="chip")),
    pd.DataFrame([[1.0, 2.0]], columns=["same", "same"]),
])
def test_unrepresentable_frames_write_nothing(tmp_path: Path, frame: pd.DataFrame) -> None:
    assert not fastio.save_frames({"frame": frame}, tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert fastio.load_frames(tmp_path, ["frame"]) is None


def test_posterior_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    posterior = xr.Dataset(
        {"slope": (("chain", "draw"), rng.normal(size=(2, 5))),
         "share": (("chain", "draw", "vendor"), rng.dirichlet([1, 2, 3], size=(2, 5)))},
        coords={"chain": [0, 1], "draw": np.arange(5),
                "vendor": np.array(["nvidia", "amd", "aws"], dtype=object)},
    )
    fastio.save_posterior(posterior, tmp_path)
    loaded = fastio.load_posterior(tmp_path)
    assert loaded is not None
    xr.testing.assert_identical(loaded, posterior)


def _fitted() -> FittedModel:
    posterior = xr.Dataset({"slope": (("chain", "draw"), np.arange(6.0).reshape(2, 3))})
    return FittedModel(posterior=posterior, data=_frames(), config={"k": 1},
                       summary_table=pd.DataFrame({"parameter": ["slope"], "r_hat": [1.0]}))


@pytest.mark.parametrize("damage", ["none", "missing", "corrupt", "layout"])
def test_a_fit_loads_the_same_from_either_copy(tmp_path: Path, damage: str) -> None:
    directory = _fitted().save(tmp_path / "fit")
    if damage == "missing":
        (directory / fastio.FRAME_ARRAYS).unlink()
        (directory / fastio.POSTERIOR_ARRAYS).unlink()
    elif damage == "corrupt":
        (directory / fastio.FRAME_ARRAYS).write_bytes(b"not a zip")
        (directory / fastio.POSTERIOR_ARRAYS).write_bytes(b"not a zip")
    elif damage == "layout":
        (directory / fastio.FRAME_LAYOUT).write_text('{"observations": {}}')
        (directory / fastio.POSTERIOR_LAYOUT).write_text('{"vars": {"other": []}}')
    loaded = FittedModel.load(directory)
    xr.testing.assert_identical(loaded.posterior, _fitted().posterior)
    for name in _frames():
        pd.testing.assert_frame_equal(loaded.data[name],
                                      pd.read_parquet(directory / f"data_{name}.parquet"),
                                      check_exact=True)


# --------------------------------------------------------------------------- damaged copies


def _checksums(directory: Path) -> dict[str, str]:
    return {p.name: fastio.sha256_file(p) for p in directory.iterdir()}


@pytest.mark.parametrize("damage", [b"not a zip", b"", "truncate", "flip"])
def test_a_damaged_npz_without_checksums_falls_back_silently(tmp_path: Path, damage) -> None:
    # BadZipFile (garbage, truncated, bad CRC) and EOFError (empty): never a traceback.
    directory = _fitted().save(tmp_path / "fit")
    for name in (fastio.POSTERIOR_ARRAYS, fastio.FRAME_ARRAYS):
        raw = (directory / name).read_bytes()
        if damage == "truncate":
            raw = raw[: len(raw) // 2]
        elif damage == "flip":
            raw = raw[:100] + bytes([raw[100] ^ 1]) + raw[101:]
        else:
            raw = damage
        (directory / name).write_bytes(raw)
    assert fastio.load_posterior(directory) is None
    assert fastio.load_frames(directory, list(_frames())) is None
    xr.testing.assert_identical(FittedModel.load(directory).posterior, _fitted().posterior)


def test_checksums_name_a_damaged_copy_and_skip_an_unwritten_one(tmp_path: Path,
                                                                caplog) -> None:
    directory = _fitted().save(tmp_path / "fit")
    sums = _checksums(directory)
    assert fastio.load_posterior(directory, sums) is not None
    raw = (directory / fastio.POSTERIOR_ARRAYS).read_bytes()
    (directory / fastio.POSTERIOR_ARRAYS).write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))
    with caplog.at_level("WARNING"):
        assert fastio.load_posterior(directory, sums) is None
    assert f"{directory / fastio.POSTERIOR_ARRAYS}: checksum mismatch" in caplog.text
    caplog.clear()
    unwritten = {k: v for k, v in sums.items() if k not in (fastio.FRAME_ARRAYS,
                                                            fastio.FRAME_LAYOUT)}
    with caplog.at_level("WARNING"):
        assert fastio.load_frames(directory, list(_frames()), unwritten) is None
    assert caplog.text == ""


def test_a_process_decodes_a_checked_copy_once_and_shares_it_safely(tmp_path: Path) -> None:
    directory = _fitted().save(tmp_path / "fit")
    sums = _checksums(directory)
    first, again = (fastio.load_posterior(directory, sums) for _ in range(2))
    assert np.shares_memory(first["slope"].values, again["slope"].values)
    with pytest.raises(ValueError, match="read-only"):
        first["slope"].values[0, 0] = 99.0
    first["slope"] = first["slope"] * 2  # a caller's own variable, not the shared one
    xr.testing.assert_identical(fastio.load_posterior(directory, sums), _fitted().posterior)
    names = list(_frames())
    frames = fastio.load_frames(directory, names, sums)
    frames["observations"].loc[0, "units"] = 99.0
    assert fastio.load_frames(directory, names, sums)["observations"]["units"][0] == 1.5
    # Other files under the same names (other checksums) are decoded anew.
    other = FittedModel(posterior=_fitted().posterior + 1.0, data=_frames(), config={"k": 1},
                        summary_table=_fitted().summary_table)
    other.save(directory)
    xr.testing.assert_identical(fastio.load_posterior(directory, _checksums(directory)),
                                other.posterior)


@pytest.mark.parametrize(("name", "content"), [
    ("summary.csv", b"\xff\xfe\x00\x81 not text"),
    ("summary.csv", b'parameter,r_hat\n"slope,1.0\n'),
    ("config.json", b"\xff\xfe garbled"),
    ("config.json", b'{"model_name": "base"}'),
    ("posterior.nc", b"garbage"),
])
def test_damaged_files_of_an_unchecked_fit_are_one_line_errors(tmp_path: Path, name: str,
                                                               content: bytes) -> None:
    directory = _fitted().save(tmp_path / "fit")
    (directory / name).write_bytes(content)
    if name == "posterior.nc":
        (directory / fastio.POSTERIOR_ARRAYS).unlink()
    with pytest.raises(FitError, match=re.escape(str(directory / name))) as caught:
        FittedModel.load(directory)
    assert "\n" not in str(caught.value)


def test_hashing_reads_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "blob"
    path.write_bytes(b"x" * 3_000_000)
    assert fastio.sha256_file(path) == fastio.sha256_bytes(path.read_bytes())
    with pytest.raises(FitError, match="checksum mismatch"):
        fastio.read_verified(path, fastio.sha256_bytes(b"y"))
    with pytest.raises(FitError, match="missing"):
        fastio.verify_file(tmp_path / "gone", "0" * 64)
