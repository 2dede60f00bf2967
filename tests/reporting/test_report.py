"""The report: rendering of blocks (fast) and, on the session's fit store, the whole report
built by the CLI, opened in headless Chromium (no console errors, every image decodes, a
screenshot), with its numbers checked against the Python API."""

from __future__ import annotations

import base64
import html
import io
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pytest

from forecast.core.errors import ForecastError
from forecast.core.presentation import format_number
from forecast.reporting.report import (
    Cell,
    Heading,
    Image,
    Paragraph,
    Report,
    ReportBuilder,
    Table,
)

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"
DRAWS = 300  # believe needs 4 paths per varying input and intercept (asserted below)


# --------------------------------------------------------------------------- fast


def small_report() -> Report:
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    from forecast.reporting.plots import png_bytes

    return Report(scenario="demo", blocks=[
        Heading(1, "Demo <report>"),
        Paragraph("a <script>alert(1)</script> & more"),
        Heading(2, "Numbers"),
        Table(["name", "value"], [[Cell("x|y"), Cell("0.123", "k:x", 0.1234567)]], "cap"),
        Image("line.png", "a line", png_bytes(fig)),
    ], numbers={"k:x": 0.1234567})


def test_html_escapes_text_and_tags_numbers():
    page = small_report().html()
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert 'data-key="k:x" data-value="0.1234567">0.123</td>' in page
    assert '<a href="#numbers">Numbers</a>' in page
    assert re.search(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="a line"', page)
    assert "http" not in page  # self-contained: nothing fetched


def test_markdown_has_the_same_content():
    text = small_report().markdown("imgs")
    assert text.startswith("# Demo <report>\n")
    assert "| x\\|y | 0.123 |" in text and "|---|---:|" in text
    assert "![a line](imgs/line.png)" in text


def test_write_creates_files_and_reports_unwritable_places(tmp_path):
    report = small_report()
    written = report.write(tmp_path / "out")
    names = sorted(p.name for p in written)
    assert names == ["line.png", "report_demo.html", "report_demo.md"]
    assert all(p.stat().st_size > 0 for p in written)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ForecastError):
        report.write(blocker / "sub")


def test_builder_formats_cells_by_unit_and_records_full_values():
    b = ReportBuilder()
    cells = [b.number("a", 1234.56, "USD billions"), b.number("b", 0.12345, "probability"),
             b.number("c", float("nan")), b.number("a", 1234.56, "USD billions")]
    assert [c.text for c in cells] == ["1,234.6", "0.123", "\u2013", "1,234.6"]
    assert b.numbers["a"] == 1234.56 and np.isnan(b.numbers["c"])
    with pytest.raises(AssertionError):
        b.number("a", 1.0)  # one key, one value


def backtest_report() -> dict:
    """The harness's JSON of a backtest of two forecasters, scored by hand."""
    import pandas as pd

    from forecast.evaluation.harness import summarize_scores

    pits = {"bayes": [0.05, 0.25, 0.45, 0.65], "ets": [0.01, 0.5, 0.98, 0.99]}
    frame = pd.DataFrame([{"forecaster": name, "quarters_ahead": 1 + j % 2, "crps": 2.0 + j,
                           "log_crps": np.nan if name == "ets" else 0.1, "pinball": 1.0,
                           "in_80": float(j > 0), "in_95": 1.0, "pit": pit}
                          for name, values in pits.items() for j, pit in enumerate(values)])
    return summarize_scores(frame)


def test_backtest_section_tables_and_pit_chart():
    from forecast.reporting.report.backtest_section import backtests

    b = ReportBuilder()
    backtests(b, None)
    assert b.blocks == []  # no backtests, no section
    report = backtest_report()
    backtests(b, {"backtest_market": report})
    page = Report("demo", [Heading(1, "Demo"), *b.blocks], b.numbers).html()
    assert '<h2 id="backtests">Backtests</h2>' in page
    assert '<a href="#backtests">Backtests</a>' in page
    assert re.search(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="PIT histograms: '
                     r'backtest_market" data-name="pit_backtest_market.png">', page)
    pooled = report["models"][0]["pooled"]
    assert b.numbers["backtest:backtest_market:bayes:crps"] == pooled["crps"] == 3.5
    assert 'data-key="backtest:backtest_market:bayes:n" data-value="4.0">4</td>' in page
    assert b.numbers["backtest:backtest_market:bayes:coverage_80"] == 0.75
    assert np.isnan(b.numbers["backtest:backtest_market:ets:log_crps"])  # null: missing
    assert b.numbers["backtest:backtest_market:ets:h2:coverage_95"] == 1.0
    tables = [block for block in b.blocks if isinstance(block, Table)]
    assert [t.columns for t in tables] == [
        ["model", "n", "CRPS", "log CRPS", "pinball", "80% coverage", "95% coverage",
         "mean PIT"], ["model", "quarters ahead", "n", "80% coverage", "95% coverage"]]
    assert [[c.text for c in row[:3]] for row in tables[1].rows] == [
        ["bayes", "1", "2"], ["bayes", "2", "2"], ["ets", "1", "2"], ["ets", "2", "2"]]
    (image,) = [block for block in b.blocks if isinstance(block, Image)]
    assert image.png.startswith(PNG)


def test_backtest_files_are_checked_one_line_each(tmp_path):
    from forecast.reporting.report.backtest_section import load_backtests

    good = tmp_path / "backtest_market.json"
    good.write_text(json.dumps(backtest_report()))
    other = tmp_path / "other"
    other.mkdir()
    (other / "backtest_market.json").write_text(good.read_text())
    loaded = load_backtests([good, other / "backtest_market.json"])
    assert list(loaded) == ["backtest_market", "backtest_market_2"]
    broken = {"not json": "{", "not a report": '{"models": []}',
              "no histogram": json.dumps({"models": [
                  {k: v for k, v in backtest_report()["models"][0].items()
                   if k != "pit_histogram"}]})}
    for name, text in broken.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        with pytest.raises(ForecastError, match=f"--backtest {path}: ") as raised:
            load_backtests([good, path])
        assert "\n" not in str(raised.value)


def fake_build(calls: list):
    """A stand-in for build_report: a title and the backtests it was given, nothing slow."""
    from forecast.reporting.report.backtest_section import backtests

    def build(name, **options):
        calls.append(options)
        b = ReportBuilder()
        b.heading(1, f"Report {name}")
        backtests(b, options.get("backtests"))
        return Report(scenario=name, blocks=b.blocks, numbers=b.numbers,
                      timings={"total": 0.0})

    return build


def test_cli_report_with_backtests(tmp_path, capsys, monkeypatch):
    from cli import main

    calls: list = []
    monkeypatch.setattr("forecast.pipeline.runner.preflight", lambda *a, **k: None)
    monkeypatch.setattr("forecast.reporting.report.build.build_report", fake_build(calls))
    market, share = tmp_path / "backtest_market.json", tmp_path / "backtest_share.json"
    market.write_text(json.dumps(backtest_report()))
    share.write_text(json.dumps(backtest_report()))
    out = tmp_path / "out"
    assert main(["report", "--scenario", "base", "--out", str(out), "--backtest", str(market),
                 "--backtest", str(share)]) == 0
    assert list(calls[0]["backtests"]) == ["backtest_market", "backtest_share"]
    page = (out / "report_base.html").read_text(encoding="utf-8")
    assert '<h2 id="backtests">Backtests</h2>' in page
    for label in ("backtest_market", "backtest_share"):
        assert f'data-name="pit_{label}.png"' in page
        assert f"*{label}: pooled scores per model*" in (out / "report_base.md").read_text()
        assert (out / "report_base_images" / f"pit_{label}.png").read_bytes().startswith(PNG)
    assert main(["report", "--scenario", "base", "--out", str(out)]) == 0
    assert "backtests" not in calls[1]  # without the option the report is unchanged
    assert "Backtests" not in (out / "report_base.html").read_text(encoding="utf-8")
    capsys.readouterr()

    broken = tmp_path / "broken.json"
    broken.write_text('{"models": "none"}')
    assert main(["report", "--scenario", "base", "--out", str(tmp_path / "new"),
                 "--backtest", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --backtest {broken}: not a backtest report (no list of models)\n"
    assert len(calls) == 2 and not (tmp_path / "new").exists()
    assert main(["report", "--backtest", str(tmp_path / "missing.json")]) == 2
    assert "missing.json: no such file" in capsys.readouterr().err


# --------------------------------------------------------------------------- browser


class _Cells(HTMLParser):
    """Numeric cells (data-key -> (data-value, text)) and image sources of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[str, tuple[float, str]] = {}
        self.images: list[str] = []
        self.probe: dict | None = None
        self._open: tuple[str, float] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "td" and "data-key" in attributes:
            self._open = (attributes["data-key"], float(attributes["data-value"]))
            self._text = []
        if tag == "img":
            self.images.append(attributes.get("src", ""))
        if tag == "body" and "data-probe" in attributes:
            self.probe = json.loads(attributes["data-probe"])

    def handle_data(self, data):
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "td" and self._open is not None:
            key, value = self._open
            assert key not in self.cells, f"duplicate key {key}"
            self.cells[key] = (value, "".join(self._text))
            self._open = None


PROBE = """<script>
window.__problems = [];
window.addEventListener('error', function (event) {
  var target = event.target && event.target.tagName ? event.target.tagName : '';
  window.__problems.push('error: ' + (event.message || target));
}, true);
var originalError = console.error;
console.error = function () {
  window.__problems.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
  originalError.apply(console, arguments);
};
window.addEventListener('load', function () {
  var broken = [];
  Array.prototype.forEach.call(document.images, function (img) {
    if (!img.complete || img.naturalWidth === 0 || img.naturalHeight === 0) {
      broken.push(img.getAttribute('data-name') || img.alt);
    }
  });
  document.body.setAttribute('data-probe', JSON.stringify({
    images: document.images.length, broken: broken, problems: window.__problems,
    tables: document.querySelectorAll('table').length, title: document.title}));
});
</script>"""


def chromium() -> str:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        if os.environ.get("FORECAST_REQUIRE_BROWSER"):
            pytest.fail("chromium is not on PATH (.ci/run installs Debian's chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return binary


def browse(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess:
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
               f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args,
               page.resolve().as_uri()]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def console_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


@pytest.mark.parametrize("args", [
    ["report", "--scenario", "nope"],
    ["report", "--draws", "0"],
    ["report", "--out", "/proc/no/such/dir"],
])
def test_cli_report_bad_input_fails_fast(args, capsys, tmp_path, monkeypatch):
    from cli import main

    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def _build_report(run_cli: Callable[..., Any], out: Path, store: Path) -> Path:
    result = run_cli("report", "--scenario", "bull", "--out", out, "--artifacts", store,
                     "--draws", DRAWS)
    assert result.returncode == 0, result.stderr
    assert f"wrote {out / 'report_bull.html'}" in result.stdout
    return out


# One test reads the built report three ways: a build per test would cost a build per test
# worker (pytest-xdist spreads a module's tests over its workers). The browser comes last:
# without chromium (outside CI) the test skips there, after the other checks.
@pytest.mark.slow
def test_the_built_report(run_cli, shipped_store, tmp_path):
    built = _build_report(run_cli, tmp_path / "report", shipped_store)
    every_image_is_non_empty(built)
    report_numbers_equal_the_python_api(built, shipped_store)
    renders_in_headless_chromium(built, tmp_path)


def renders_in_headless_chromium(built: Path, tmp_path: Path) -> None:
    page = built / "report_bull.html"
    source = page.read_text(encoding="utf-8")
    assert "<script" not in source.lower()
    probe_page = tmp_path / "probe.html"
    probe_page.write_text(source.replace("<head>", "<head>\n" + PROBE, 1), encoding="utf-8")
    dumped = browse(probe_page, tmp_path / "profile", "--dump-dom")
    assert console_lines(dumped.stderr) == []
    parser = _Cells()
    parser.feed(dumped.stdout)
    probe = parser.probe
    assert probe is not None, "the page did not finish loading"
    assert probe["problems"] == [] and probe["broken"] == []
    assert probe["images"] >= 8 and probe["tables"] >= 10
    assert probe["title"] == "Accelerator-market forecast: bull scenario"

    shot = tmp_path / "report_bull.png"
    result = browse(page, tmp_path / "profile2", f"--screenshot={shot}",
                    "--window-size=1280,2400", "--hide-scrollbars")
    assert console_lines(result.stderr) == []
    data = shot.read_bytes()
    assert data.startswith(PNG) and len(data) > 20_000
    assert plt.imread(io.BytesIO(data)).std() > 0.05


def every_image_is_non_empty(built: Path) -> None:
    source = (built / "report_bull.html").read_text(encoding="utf-8")
    parser = _Cells()
    parser.feed(source)
    inline = [base64.b64decode(src.split(",", 1)[1]) for src in parser.images]
    assert len(inline) >= 8
    files = sorted((built / "report_bull_images").glob("*.png"))
    assert len(files) == len(inline)
    assert sorted(f.read_bytes() for f in files) == sorted(inline)
    for data in inline:
        assert data.startswith(PNG) and len(data) > 5000
        pixels = plt.imread(io.BytesIO(data))
        assert pixels.shape[0] > 100 and pixels.shape[1] > 100 and pixels.std() > 0.02
    markdown = (built / "report_bull.md").read_text(encoding="utf-8")
    for path in files:
        assert f"(report_bull_images/{path.name})" in markdown


def report_numbers_equal_the_python_api(built: Path, shipped_store: Path) -> None:
    from forecast.core.presentation import HEADLINE
    from forecast.pipeline.results import quantile_table
    from forecast.pipeline.runner import load_run, run_scenario
    from forecast.reporting.sensitivity import (
        SimulationSensitivity,
        forecast_inputs,
        global_ranking,
        output_draws,
        parse_output,
    )

    parser = _Cells()
    parser.feed((built / "report_bull.html").read_text(encoding="utf-8"))
    cells = parser.cells

    def check(key: str, expected: float, unit: str = "") -> None:
        assert key in cells, key
        value, text = cells[key]
        if np.isnan(expected):
            assert np.isnan(value), key
        else:
            # A few ulp apart at most: numpy's SIMD reductions may sum in another order when
            # an array lands at another memory alignment (seen once: 7.653139072882398 against
            # 7.6531390728824), so equality to the last bit is not what the report promises.
            assert value == pytest.approx(float(expected), rel=1e-12, abs=0.0), (
                key, value, expected)
        assert text == format_number(float(expected), unit), (key, text)

    api = run_scenario("bull", draws=DRAWS, root=shipped_store)
    table = quantile_table(api, HEADLINE)
    assert len(table) > 20
    for row in table.itertuples(index=False):
        key = f"{row.metric}:{row.period}" + (f":{row.key}" if row.key else "")
        for level in ("q10", "q50", "q90"):
            check(f"{level}:{key}", getattr(row, level), row.unit)
    binding = api.bounds_binding()
    assert set(binding["bound"]) == {"funding", "power", "supply", "none"}
    for row in binding.itertuples(index=False):
        check(f"binds:{row.bound}:{row.year}", row.share, "fraction")
    theses = api.theses()
    for row in theses.itertuples(index=False):
        check(f"thesis:{row.name}:probability", row.probability, "probability")
        check(f"thesis:{row.name}:mcse", row.mcse, "probability")
    horizon = str(api.meta["horizon"])
    for name in ("bull", "base", "bear"):
        other = api if name == "bull" else run_scenario(name, draws=DRAWS, root=shipped_store)
        for row in other.theses().itertuples(index=False):
            check(f"compare:{name}:thesis:{row.name}", row.probability, "probability")
        tam = other.quantiles("tam").set_index("period").loc[horizon, "q50"]
        check(f"compare:{name}:q50:tam:{horizon}", tam, "USD billions")

    scenario, dataset, bundle = load_run("bull", root=shipped_store)
    for model, values in bundle.diagnostics().items():
        check(f"diag:{model}:max_r_hat", values["max_r_hat"])
        check(f"diag:{model}:divergences", values["divergences"])

    spec = parse_output(f"aws_rental_revenue:{horizon}")
    ranking = global_ranking(forecast_inputs(scenario, api), output_draws(api, spec))
    for row in ranking.itertuples(index=False):
        check(f"ranking:{row.input}:spearman", row.spearman)
    # The three largest swings in the report, recomputed through the API.
    top = sorted((key.split(":")[1] for key in cells if key.endswith(":swing")),
                 key=lambda name: -cells[f"tornado:{name}:swing"][0])[:3]
    runner = SimulationSensitivity(bundle, dataset, scenario, [spec], draws=DRAWS,
                                   seed=api.seed)
    tornado = runner.tornado(spec, inputs=top)
    assert len(tornado) == 3
    for row in tornado.itertuples(index=False):
        check(f"tornado:{row.input}:swing", row.swing, spec.unit)
        check(f"tornado:{row.input}:output_at_low", row.output_at_low, spec.unit)

    markdown = (built / "report_bull.md").read_text(encoding="utf-8")
    # The "what would I have to believe" section analyses every thesis the forecast evaluates
    # (at too few paths it would say "Not analysed"), on the forecast's own paths.
    assert "Not analysed" not in markdown
    for row in theses.itertuples(index=False):
        if not isinstance(getattr(row, "note", None), str):
            assert f"P = {row.probability:.3f} +- {row.mcse:.3f}" in markdown, row.name
    median = table[(table["metric"] == "tam") & (table["period"] == horizon)]["q50"].item()
    assert f"| tam | {horizon} |  | USD billions |" in markdown
    assert format_number(median, "USD billions") in markdown
    for spec_name, input_spec in scenario.inputs.items():
        assert spec_name in markdown
        assert html.escape(input_spec.rationale.split("\n")[0][:40]) in (
            built / "report_bull.html").read_text(encoding="utf-8")
