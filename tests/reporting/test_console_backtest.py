"""``cli.py backtest --out DIR``: the harness's JSON and the PIT histograms as files, on a
cheap stand-in for a backtest (the real ones refit models for minutes: see
tests/evaluation/)."""

from __future__ import annotations

import errno
import io
import json

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import cli
from forecast.evaluation import harness
from forecast.reporting.console import parallel
from forecast.reporting.outputs import write_backtest_files

PNG = b"\x89PNG\r\n\x1a\n"
CALLS: list[dict] = []


def scored_frame() -> pd.DataFrame:
    """Scores of two forecasters at quarters_ahead 1 and 2, made by hand."""
    rows = []
    for name, pits in (("bayes", [0.05, 0.15, 0.35, 0.55, 0.75, 0.95]),
                       ("rw_drift", [0.01, 0.02, 0.5, 0.97, 0.98, 0.99])):
        for j, pit in enumerate(pits):
            rows.append({"forecaster": name, "quarters_ahead": 1 + j % 2, "crps": 1.0 + j,
                         "log_crps": 0.1 * j, "pinball": 0.5 + j, "in_80": float(j < 5),
                         "in_95": 1.0, "pit": pit})
    return pd.DataFrame(rows)


def check_backtest(dataset, origins, quarters):
    """The stand-in's origins are always available; one value a path per origin."""
    return 1


def fake_backtest(dataset, *, origins, quarters, draws, map_fn):
    """A backtest as the CLI calls it: (tidy, summary), the harness's JSON in the attrs."""
    CALLS.append({"origins": origins, "quarters_ahead": quarters, "draws": draws})
    tidy = scored_frame()
    tidy.attrs["report"] = harness.summarize_scores(tidy)
    summary = tidy.groupby("forecaster")[["crps", "pinball"]].mean().reset_index()
    return tidy, summary


@pytest.fixture
def cheap(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """``backtest market`` runs :func:`fake_backtest` on no data."""
    CALLS.clear()
    monkeypatch.setitem(parallel.BACKTESTS, "market", f"{__name__}:fake_backtest")
    monkeypatch.setattr("forecast.data.dataset.load_dataset", lambda data_dir=None: None)
    return CALLS


def test_out_writes_the_json_and_the_pit_histograms(cheap, tmp_path, capsys):
    assert cli.main(["backtest", "market", "--workers", "0", "--format", "json"]) == 0
    printed = capsys.readouterr().out
    out = tmp_path / "new" / "dir"
    assert cli.main(["backtest", "market", "--workers", "0", "--format", "json",
                     "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == printed  # stdout unchanged by --out
    json_file, png_file = out / "backtest_market.json", out / "pit_market.png"
    assert sorted(out.iterdir()) == [json_file, png_file]  # no staging left behind
    assert json_file.read_text() == printed  # the same JSON as --format json
    report = json.loads(printed)
    assert [m["model"] for m in report["models"]] == ["bayes", "rw_drift"]
    assert report["models"][0]["pit_histogram"] == [1, 1, 0, 1, 0, 1, 0, 1, 0, 1]
    assert captured.err.splitlines()[-2:] == [f"wrote {json_file}", f"wrote {png_file}"]
    data = png_file.read_bytes()
    assert data.startswith(PNG) and plt.imread(io.BytesIO(data)).std() > 0.01

    assert cli.main(["backtest", "market", "--workers", "0"]) == 0
    table = capsys.readouterr().out
    json_file.unlink()
    assert cli.main(["backtest", "market", "--workers", "0", "--out", str(out)]) == 0
    assert capsys.readouterr().out == table and "bayes" in table
    assert json_file.read_text() == printed  # the table format writes the same file
    assert len(cheap) == 4


@pytest.mark.parametrize("below", [False, True])
def test_a_file_as_out_is_one_line_and_exit_2_before_the_backtest(below, cheap, tmp_path,
                                                                  capsys):
    afile = tmp_path / "a-file"
    afile.write_text("not a directory")
    out = afile / "below" if below else afile
    assert cli.main(["backtest", "market", "--workers", "0", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cli.py backtest")
    assert "not a directory" in lines[0] and captured.out == ""
    assert cheap == [] and afile.read_text() == "not a directory"


def test_an_unwritable_out_is_one_line_and_exit_2_before_the_backtest(cheap, capsys):
    assert cli.main(["backtest", "market", "--workers", "0", "--out",
                     "/proc/no/such/dir"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --out /proc/no/such/dir: not "
                                                   "writable")
    assert cheap == []


def test_backtest_files_on_a_full_disk_leave_nothing(tmp_path, monkeypatch):
    def full(fig, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr("forecast.reporting.plots.save", full)
    report = harness.summarize_scores(scored_frame())
    with pytest.raises(OSError, match="backtest files not written") as raised:
        write_backtest_files(report, "market", tmp_path)
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert np.isclose(report["models"][0]["pooled"]["coverage_80"], 5 / 6)
