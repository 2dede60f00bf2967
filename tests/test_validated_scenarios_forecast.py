"""Valid means usable: any scenario ``scenarios validate`` accepts runs ``forecast``.

Hypothesis writes scenarios that extend ``base`` and change its inputs and theses, then calls
the command line in process: ``scenarios validate`` either refuses the file in one line
(exit 2) naming it, or accepts it, and then ``forecast`` runs it from the stored fit without a
refusal. Most changes are plausible for the input's part (its support,
``forecast.core.input_support``) with parameters up to and past the edges of its sanity range
(beta shapes down to 0.3, lognormal sigmas up to 1.7, quarters from 2024); about one in ten
is anything at all (any distribution, parameters from 1e-300 to 1e308, launch quarters from
1990, misspelt names, unknown metrics and vendors). Priors are never changed (nor the AWS
chips' unit-cost inputs, which the spend model's unit-cost priors are matched to), so every
scenario forecasts from the fit of ``base``: ``shipped_store`` is the only fixture the test
needs. That fit is the shipped one (``published/``), so the property runs in the default tier
(200 scenarios).
"""

from __future__ import annotations

import shutil
import string
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import cli
from forecast.core import input_support as support
from forecast.core.scenario_contract import (
    FORECAST_METRICS,
    IN_SAMPLE_METRICS,
    MODEL_INPUTS,
    PRICED_CHIPS,
    RATIO_METRICS,
    THESIS_METRICS,
    VENDOR_GROUPS,
    VENDOR_METRICS,
)
from forecast.economics.chip_costs import UNIT_COST_INPUTS
from forecast.scenarios import DEFAULT_SCENARIOS_DIR, load_scenario
from forecast.scenarios import loading as scenario_loading
from forecast.scenarios.supports import input_roles

#: Scenarios whose forecast the property checks (validate-refused ones come on top): the
#: default tier's, and the validation tier's, which replays them (derandomized) and goes on.
EXAMPLES = 100
VALIDATION_EXAMPLES = 400
#: Paths per forecast: enough for every thesis to have a probability.
DRAWS = "50"
BASE = load_scenario("base")
#: Inputs a generated scenario may change, with the support of their part: every input of
#: base but those a model reads as priors.
SUPPORTS = {name: roles[0].support for name, roles in input_roles(BASE).items()
            if name not in MODEL_INPUTS and name not in UNIT_COST_INPUTS.values()}
PARAMETERS = {"normal": ("mu", "sigma"), "lognormal": ("median", "sigma"),
              "truncnormal": ("mu", "sigma", "lower", "upper"), "beta": ("alpha", "beta"),
              "uniform": ("lower", "upper"), "triangular": ("lower", "mode", "upper"),
              "pert": ("lower", "mode", "upper"), "fixed": ("value",),
              "halfnormal": ("sigma",), "gamma": ("alpha", "beta"), "exponential": ("lam",),
              "studentt": ("nu", "mu", "sigma")}

anything = st.one_of(
    st.floats(0.0, 1.0), st.floats(-2.0, 2.0),
    st.sampled_from([0.0, 1.0, -1.0, 0.5, 5.0, 1e-9, 1e-300, 1e9, 1e300, 1e308, 2030.0]),
    st.floats(allow_nan=False, allow_infinity=False, width=64))


def _number(value: float) -> str:
    text = repr(float(value))
    return text if any(c in text for c in ".en") else f"{text}.0"


def _ordered(draw: st.DrawFn, low: float, high: float, n: int) -> list[float]:
    values = sorted(draw(st.floats(low, high)) for _ in range(n))
    assume(all(b > a for a, b in zip(values, values[1:], strict=False)))
    return values


@st.composite
def plausible(draw: st.DrawFn, part: support.Support) -> dict[str, float | str]:
    """A distribution of the kind a user would give an input of this part, its parameters
    reaching past the edges of what validation accepts."""
    if part is support.RATE:
        kind = draw(st.sampled_from(["normal", "uniform", "fixed", "studentt"]))
        if kind == "normal":
            return {"dist": kind, "mu": draw(st.floats(-1, 1)), "sigma": draw(st.floats(0.01, 1.0))}
        if kind == "studentt":
            return {"dist": kind, "nu": draw(st.floats(1.5, 30)), "mu": draw(st.floats(-1, 1)),
                    "sigma": draw(st.floats(0.01, 0.5))}
        if kind == "fixed":
            return {"dist": kind, "value": draw(st.floats(-1, 1))}
        return dict(zip(("lower", "upper"), _ordered(draw, -1, 1, 2), strict=True), dist=kind)
    low, high = {support.FRACTION: (0.0, 1.0),
                 support.AT_LEAST_ONE: (1.0, 3.0)}.get(part, (0.0, 50.0))
    kinds = ["uniform", "pert", "fixed", "truncnormal"]
    kinds += ["beta"] if part == support.FRACTION else []
    kinds += ["lognormal", "gamma", "exponential", "halfnormal"] if high == 50.0 else []
    kind = draw(st.sampled_from(kinds))
    if kind == "fixed":
        return {"dist": kind, "value": draw(st.floats(low, high))}
    if kind == "beta":
        return {"dist": kind, "alpha": draw(st.floats(0.3, 30)), "beta": draw(st.floats(0.3, 30))}
    if kind == "lognormal":
        return {"dist": kind, "median": draw(st.floats(0.01, 1000)),
                "sigma": draw(st.floats(0.01, 1.7))}
    if kind == "gamma":
        return {"dist": kind, "alpha": draw(st.floats(0.5, 20)), "beta": draw(st.floats(0.05, 10))}
    if kind == "exponential":
        return {"dist": kind, "lam": draw(st.floats(0.05, 10))}
    if kind == "halfnormal":
        return {"dist": kind, "sigma": draw(st.floats(0.01, 10))}
    if kind == "truncnormal":
        lower, upper = _ordered(draw, low, high, 2)
        return {"dist": kind, "mu": draw(st.floats(low, high)),
                "sigma": draw(st.floats(0.01, 1.0)), "lower": lower, "upper": upper}
    keys = PARAMETERS[kind]
    return dict(zip(keys, _ordered(draw, low, high, len(keys)), strict=True), dist=kind)


@st.composite
def hostile(draw: st.DrawFn) -> dict[str, float | str]:
    """Any distribution, any parameters (bounds and modes in order, so that parsing reads
    them and the support checks decide)."""
    kind = draw(st.sampled_from(sorted(PARAMETERS)))
    values = [draw(anything) for _ in PARAMETERS[kind]]
    if kind in ("uniform", "triangular", "pert"):
        values = sorted(values)
    elif kind == "truncnormal":
        values = [*values[:2], *sorted(values[2:])]
    return dict(zip(PARAMETERS[kind], values, strict=True), dist=kind)


@st.composite
def quarters(draw: st.DrawFn, first_year: int) -> dict[str, str]:
    years = draw(st.lists(st.integers(first_year, 2034), min_size=1, max_size=4, unique=True))
    labels = sorted({(year, draw(st.integers(1, 4))) for year in years})
    weights = [draw(st.integers(1, 5)) for _ in labels]
    probs = [w / sum(weights) for w in weights]
    probs[-1] = 1.0 - sum(probs[:-1])
    return {"dist": "quarter",
            "values": "[" + ", ".join(f'"{y}Q{q}"' for y, q in labels) + "]",
            "probs": "[" + ", ".join(_number(p) for p in probs) + "]"}


@st.composite
def input_table(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(sorted(SUPPORTS)))
    part, wild = SUPPORTS[name], draw(st.integers(0, 9)) == 0
    if part is support.QUARTER:
        table = draw(quarters(1990 if wild else 2024))
    else:
        table = draw(hostile() if wild else plausible(part))
    if wild and draw(st.booleans()):  # a misspelling: one letter changed
        position = draw(st.integers(0, len(name) - 1))
        name = name[:position] + draw(st.sampled_from(string.ascii_lowercase)) + name[
            position + 1:]
    lines = [f'dist = "{table.pop("dist")}"']
    lines += [f"{key} = {value if isinstance(value, str) else _number(value)}"
              for key, value in table.items()]
    return "\n".join([f"[inputs.{name}]", *lines, 'unit = "test"', 'rationale = "generated"'])


@st.composite
def thesis_table(draw: st.DrawFn) -> str:
    wild = draw(st.integers(0, 9)) == 0
    name = draw(st.sampled_from([*BASE.theses, "extra", "another"]))
    metric = draw(st.sampled_from([*FORECAST_METRICS, "tma"] if wild else THESIS_METRICS))
    first = 2024 if wild or metric in IN_SAMPLE_METRICS else 2026
    year = draw(st.integers(first, 2031 if wild else 2030))
    period = draw(st.sampled_from([str(year), f"{year}Q{draw(st.integers(1, 4))}",
                                   f"{year}..{min(year + 2, 2030)}"]))
    if wild:
        threshold = draw(anything)
    elif metric == "share":
        threshold = draw(st.floats(0.0, 1.0))
    else:
        threshold = draw(st.floats(0.0, 1e4))
    lines = [f"[theses.{name}]", 'statement = "generated"', f'metric = "{metric}"',
             f'period = "{period}"',
             f'comparator = "{draw(st.sampled_from(["<", "<=", ">", ">="]))}"',
             f"threshold = {_number(threshold)}",
             f'aggregate = "{draw(st.sampled_from(["mean", "sum", "last", "run_rate"]))}"']
    if metric in VENDOR_METRICS or (wild and draw(st.booleans())):
        vendor = draw(st.sampled_from([*VENDOR_GROUPS, *(["bogus"] if wild else [])]))
        lines.append(f'vendor = "{vendor}"')
    if metric in RATIO_METRICS:
        sides = [*PRICED_CHIPS, *(f"frontier:{g}" for g in VENDOR_GROUPS)]
        sides += ["frontier:bogus", "H200"] if wild else []
        lines += [f'numerator = "{draw(st.sampled_from(sides))}"',
                  f'denominator = "{draw(st.sampled_from(sides))}"']
    if draw(st.booleans()) and (wild or ".." not in period):
        lines.append(f'when = "{draw(st.sampled_from(["in", "by"]))}"')
    if draw(st.integers(0, 4)) == 0:
        latest = 2029 if wild else year - 1
        lines.append(f'change_from = "{draw(st.integers(min(2023, latest), latest))}"')
    return "\n".join(lines)


@st.composite
def scenario_file(draw: st.DrawFn) -> str:
    inputs = draw(st.lists(input_table(), min_size=0, max_size=3))
    theses = draw(st.lists(thesis_table(), min_size=0, max_size=2))
    assume(inputs or theses)
    head = '[scenario]\nname = "mine"\nextends = "base"\n'
    return "\n\n".join([head, *inputs, *theses]) + "\n"


@pytest.fixture
def scenarios_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped scenarios in a directory of their own, where ``mine.toml`` is written:
    ``forecast --scenario mine`` finds it there as a user's file next to ``base.toml``."""
    directory = tmp_path / "scenarios"
    shutil.copytree(DEFAULT_SCENARIOS_DIR, directory)
    monkeypatch.setattr(scenario_loading, "DEFAULT_SCENARIOS_DIR", directory)
    return directory


@pytest.fixture
def read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fit and the data are read once for the whole property, as a notebook holding them
    would: neither changes between examples, and reading them again (about 0.1 s each time,
    most of a forecast from a stored fit) is not what the property is about. Every example
    still loads, validates and simulates its own scenario through the command line."""
    from forecast.data import dataset
    from forecast.pipeline import fitting

    for module, name in ((dataset, "load_dataset"), (fitting, "load_bundle")):
        original, kept = getattr(module, name), {}

        def once(*args, _original=original, _kept=kept, **kwargs):
            key = (args, tuple(sorted(kwargs.items())))
            if key not in _kept:
                _kept[key] = _original(*args, **kwargs)
            return _kept[key]

        monkeypatch.setattr(module, name, once)


@pytest.mark.parametrize("examples", [
    EXAMPLES, pytest.param(VALIDATION_EXAMPLES, marks=pytest.mark.validation)])
def test_every_scenario_validate_accepts_forecasts(shipped_store, scenarios_dir, read_once,
                                                   capsys, examples):
    counts = {"accepted": 0, "refused": 0}
    started = time.perf_counter()

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                     HealthCheck.function_scoped_fixture])
    @given(text=scenario_file())
    def holds(text: str) -> None:
        path = scenarios_dir / "mine.toml"
        path.write_text(text, encoding="utf-8")
        code = cli.main(["scenarios", "validate", str(path)])
        _, err = capsys.readouterr()
        if code != 0:
            counts["refused"] += 1
            assert code == 2, err
            assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
            assert "mine.toml" in err, err
            assume(False)
        counts["accepted"] += 1
        code = cli.main(["forecast", "--scenario", "mine", "--draws", DRAWS, "--format", "csv",
                         "--artifacts", str(shipped_store)])
        _, err = capsys.readouterr()
        assert code == 0, f"validate accepted, forecast refused:\n{text}\n{err}"

    holds()
    seconds = time.perf_counter() - started
    print(f"{counts['accepted']} accepted and forecast, {counts['refused']} refused, "
          f"{seconds:.1f} s")
    assert counts["accepted"] >= examples
