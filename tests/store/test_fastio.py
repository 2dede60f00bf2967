"""The fast ``.npz`` copies of a fit round-trip what the archival files hold."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from forecast.core import fastio
from forecast.models.base import FittedModel


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
