"""End to end: the quarterly refit against a store holding the shipped fit (``seeded_store``).

A drop that brings the shipped data's newest quarter to data that lack it merges back to the
same data, so every model is reused (their priors and inputs are unchanged) and these tests
exercise validation, merge, gate, publish, registry and report without sampling again; the
gated refit samples from the prior (``mock_sampler``). Model keys changing with inputs is tested in
tests/test_hashing.py.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import cli
from forecast.core.errors import RefitBusyError
from forecast.data.manifest import write_manifest
from forecast.pipeline.refit import REPORT_JSON, REPORT_MARKDOWN, refit, refit_lock
from forecast.pipeline.runner import run_scenario
from forecast.store.bundles import latest_fit_id, list_fits, load_bundle
from forecast.store.registry import Registry

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
REVENUE = "vendor_quarterly_revenue.csv"

pytestmark = pytest.mark.slow


@pytest.fixture
def store(seeded_store: Path) -> Path:
    return seeded_store


@pytest.fixture
def split(tmp_path) -> tuple[Path, Path]:
    """Shipped data without the newest revenue quarter, and that quarter (real rows) as a drop."""
    base = tmp_path / "base"
    shutil.copytree(DATA, base)
    with (DATA / REVENUE).open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header, rows = list(reader.fieldnames or []), list(reader)
    cut = pd.Timestamp("2025-07-31")
    for target, keep in ((base / REVENUE, lambda r: r <= cut), (tmp_path / REVENUE,
                                                                 lambda r: r > cut)):
        with target.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=header, lineterminator="\n")
            writer.writeheader()
            writer.writerows(r for r in rows if keep(pd.Timestamp(r["calendar_quarter_end"])))
    write_manifest(base)  # the data as they were before that quarter arrived
    return base, tmp_path / REVENUE


def _cli(*args: str) -> subprocess.CompletedProcess:
    """In a new process: the refit lock is held by this one."""
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=600)


def _fit_dirs(store: Path) -> list[str]:
    return sorted(p.name for p in (store / "fits").iterdir())


def test_drop_with_new_quarter_publishes_fit_and_revision_report(store, split, capsys,
                                                               loose_gate):
    base, drop = split
    (previous,) = _fit_dirs(store)
    result = refit(drop=drop, data_dir=base, root=store, gate=loose_gate, report_draws=300)
    assert result.status == "published" and result.merge.n_added > 0
    assert latest_fit_id(store) == result.bundle.fit_id != previous
    report = json.loads((result.directory / REPORT_JSON).read_text())
    assert report["previous_fit"] == previous
    rows = pd.DataFrame(report["rows"])
    assert set(rows["scenario"]) == {"base", "bull", "bear"}
    assert {"tam:2026", "tam:2030", "share:2030:nvidia", "share:2030:aws",
            "aws_rental_revenue:2030"} <= set(rows["metric"])
    assert rows["metric"].str.startswith("thesis:").sum() >= 3 * 4
    # Same models (reused), same data once merged, same scenario files, same draws and seed:
    # every headline value is unchanged (up to rounding: the merged rows are in another
    # order), so no move is attributed to data or assumptions.
    assert rows["previous_q50"].notna().all()
    scale = rows["new_q50"].abs().clip(lower=1.0)
    for column in ("move", "from_assumptions", "from_data"):
        assert (rows[column].abs() / scale).max() < 1e-9, column
    assert "## base" in (result.directory / REPORT_MARKDOWN).read_text()
    # Reused models are stored whole again (LOO and compare read these groups).
    import arviz as az

    stored = az.from_netcdf(result.directory / next(iter(result.bundle.models)) / "posterior.nc")
    assert {"sample_stats", "observed_data", "log_likelihood"} <= set(stored.groups())
    # The new fit carries the merged data; forecasts now use it.
    snapshot = result.directory / "data" / REVENUE
    assert snapshot.read_bytes().count(b"\n") == (DATA / REVENUE).read_bytes().count(b"\n")
    assert run_scenario("base", root=store, draws=200).fit_id == result.bundle.fit_id
    registry = Registry(store)
    assert [row["fit_id"] for row in registry.fits()] == _fit_dirs(store)
    assert registry.runs()[-1]["outcome"] == "published"
    # fits list / show / diff read the same store.
    assert cli.main(["fits", "list", "--artifacts", str(store)]) == 0
    assert cli.main(["fits", "show", result.bundle.fit_id, "--artifacts", str(store)]) == 0
    assert cli.main(["fits", "diff", previous, result.bundle.fit_id, "--draws", "300",
                     "--artifacts", str(store)]) == 0
    out = capsys.readouterr().out
    assert result.bundle.fit_id in out and "| tam:2030 |" in out


def test_corrupt_drop_is_rejected_and_nothing_changes(run_cli, store, split, tmp_path):
    base, drop = split
    lines = drop.read_text().splitlines()
    header, fields = next(csv.reader([lines[0]])), next(csv.reader([lines[2]]))
    # The revenue, by name: the row's dates (published_date among them) stay valid.
    fields[header.index("revenue_usd_billions")] = "fifty"
    bad = tmp_path / "bad" / REVENUE
    bad.parent.mkdir()
    with bad.open("w", newline="", encoding="utf-8") as handle:
        handle.write(lines[0] + "\n" + lines[1] + "\n")
        csv.writer(handle, lineterminator="\n").writerow(fields)
    before = _fit_dirs(store)
    result = run_cli("refit", "--drop", bad, "--data", base, "--artifacts", store)
    assert result.returncode == 2
    assert f"{bad}:3:revenue_usd_billions" in result.stderr
    assert "Traceback" not in result.stderr
    assert _fit_dirs(store) == before
    assert Registry(store).runs()[-1]["outcome"] == "rejected"


def test_failure_before_publishing_leaves_previous_fit_loadable(store, loose_gate):
    (previous,) = _fit_dirs(store)

    def crash(staging: Path) -> None:
        raise OSError("disk full (injected)")

    with pytest.raises(OSError, match="injected"):
        refit(root=store, scenarios=["base"], gate=loose_gate, before_publish=crash,
              report_draws=200)
    assert _fit_dirs(store) == [previous]
    assert load_bundle(previous, store).status == "published"
    assert run_scenario("bear", root=store, draws=200).fit_id == previous
    registry = Registry(store)
    assert [row["fit_id"] for row in registry.fits()] == [previous]
    assert registry.runs()[-1]["outcome"] == "failed"


def test_second_refit_is_refused_while_one_runs(store):
    with refit_lock(store):
        with pytest.raises(RefitBusyError, match="another refit is running"):
            refit(root=store)
        result = _cli("refit", "--artifacts", str(store))
    assert result.returncode == 4
    assert "another refit is running" in result.stderr and "Traceback" not in result.stderr
    assert len(list_fits(store)) == 1


def test_gated_fit_is_recorded_and_never_used(run_cli, store):
    (previous,) = _fit_dirs(store)
    result = run_cli("refit", "--scenario", "base", "--min-ess", "1000000", "--report-draws",
                     "300", "--artifacts", store)
    assert result.returncode == 3, result.stderr
    assert "gated" in result.stdout
    (gated,) = [name for name in _fit_dirs(store) if name != previous]
    assert {row["fit_id"]: row["status"] for row in Registry(store).fits()} == {
        previous: "published", gated: "gated"}
    assert run_scenario("base", root=store, draws=200).fit_id == previous
    refused = run_cli("forecast", "--fit", gated, "--artifacts", store)
    assert refused.returncode == 2 and "gated" in refused.stderr
