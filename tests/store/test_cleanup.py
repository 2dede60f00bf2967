"""What crashed runs leave is removed by the next refit or ``fits gc``, and their registry
rows say ``crashed``; whatever a live process is writing is left alone."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from toyfit import TOY_FIT, publish_toy

import cli
from forecast.core.errors import ForecastError
from forecast.pipeline.refit import private_tmpdir, refit, refit_lock
from forecast.store.cleanup import collect_garbage
from forecast.store.integrity import verify_fit
from forecast.store.locks import publish_lock
from forecast.store.registry import Registry


def _crashed_refit(root: Path) -> tuple[int, list[Path]]:
    """The traces of a refit killed mid-run: its staging, temporary files and registry row."""
    run_id = Registry(root).start_run("drop.csv", "2026-01-31")
    data = root / ".refit-data-k3j2h1"
    scratch = root / f".refit-tmp-{run_id}"
    staging = root / "fits" / ".tmp-20260201T000000-deadbeef-0001"
    for directory in (data, scratch, staging / "price-1"):
        directory.mkdir(parents=True)
    (data / "vendor_quarterly_revenue.csv").write_text("a,b\n1,2\n")
    (scratch / "tmpab12cd34").write_text("def numba_funcified_fgraph(x):\n    return x\n")
    (staging / "price-1" / "posterior.nc").write_bytes(b"\x89HDF" + b"\x00" * 5000)
    return run_id, [data, scratch, staging]


def _run(root: Path, run_id: int) -> dict:
    return next(row for row in Registry(root).runs() if row["run_id"] == run_id)


def test_fits_gc_removes_a_crashed_refits_leftovers_and_marks_its_run(toy_store, capsys):
    run_id, leftovers = _crashed_refit(toy_store)
    assert cli.main(["fits", "gc", "--artifacts", str(toy_store)]) == 0
    out = capsys.readouterr().out
    assert "removed 3 leftover(s)" in out and f"marked run(s) {run_id} crashed" in out
    assert not any(path.exists() for path in leftovers)
    row = _run(toy_store, run_id)
    assert row["outcome"] == "crashed" and row["finished"] is not None
    verify_fit(toy_store / "fits" / TOY_FIT)  # published fits are never touched
    assert cli.main(["fits", "gc", "--artifacts", str(toy_store)]) == 0
    assert capsys.readouterr().out.startswith("nothing to clean")


def test_fits_gc_leaves_a_live_refit_alone(toy_store, capsys):
    run_id, leftovers = _crashed_refit(toy_store)
    with refit_lock(toy_store):
        assert cli.main(["fits", "gc", "--artifacts", str(toy_store)]) == 4
    assert "another refit is running" in capsys.readouterr().err
    assert all(path.exists() for path in leftovers)
    assert _run(toy_store, run_id)["outcome"] is None


def test_a_fit_being_written_is_left_alone(toy_store):
    _, (data, scratch, staging) = _crashed_refit(toy_store)
    with publish_lock(toy_store):  # a forecast storing its first fit right now
        cleaned = collect_garbage(toy_store)
    assert staging.exists() and cleaned.kept_staging
    assert not data.exists() and not scratch.exists()
    assert "left alone" in cleaned.describe()
    assert staging in collect_garbage(toy_store).removed


def test_a_run_that_died_after_publishing_keeps_its_fit(toy_store, tmp_path):
    run_id = Registry(toy_store).start_run(None, "2026-01-31")
    publish_toy(toy_store, "20260301T000000-toyfit02-0002", tmp_path, run_id=run_id)
    assert collect_garbage(toy_store).crashed_runs == [run_id]
    row = _run(toy_store, run_id)
    assert (row["outcome"], row["fit_id"]) == ("crashed", "20260301T000000-toyfit02-0002")
    assert [fit["fit_id"] for fit in Registry(toy_store).fits()] == [
        TOY_FIT, "20260301T000000-toyfit02-0002"]


def test_the_next_refit_cleans_up_before_it_starts(toy_store):
    run_id, leftovers = _crashed_refit(toy_store)
    with pytest.raises(ForecastError):
        refit(root=toy_store, scenarios=["no-such-scenario"])
    assert not any(path.exists() for path in leftovers)
    runs = Registry(toy_store).runs()
    assert [(row["run_id"], row["outcome"]) for row in runs] == [
        (run_id, "crashed"), (run_id + 1, "failed")]
    assert not list(toy_store.glob(".refit-*"))  # nor its own


def test_a_refits_temporary_files_stay_in_its_own_directory(tmp_path):
    before = tempfile.gettempdir(), os.environ.get("TMPDIR")
    with private_tmpdir(tmp_path, 7) as scratch:
        assert scratch == tmp_path / ".refit-tmp-7"
        with tempfile.NamedTemporaryFile(delete=False) as handle:  # as PyTensor does
            handle.write(b"def numba_composite(x):\n    return x\n")
        child = subprocess.run([sys.executable, "-c", "import tempfile; "
                                "print(tempfile.gettempdir())"], capture_output=True, text=True)
        assert Path(handle.name).parent == scratch
        assert child.stdout.strip() == str(scratch)
    assert not scratch.exists()
    assert (tempfile.gettempdir(), os.environ.get("TMPDIR")) == before
