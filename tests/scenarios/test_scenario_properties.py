"""Properties of the scenario parser (Hypothesis): any TOML text, any document built from the
format's vocabulary and any edit of a shipped file ends in a scenario or in one
ScenarioError/ForecastError of one line; a scenario that loads can be sampled and shown."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forecast.core.errors import ForecastError
from forecast.core.scenario_contract import MODEL_PRIORS, REQUIRED_INPUTS, THESIS_METRICS
from forecast.scenarios import DEFAULT_SCENARIOS_DIR, DISTRIBUTIONS, load_scenario_file

PROPERTY = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
BASE = (DEFAULT_SCENARIOS_DIR / "base.toml").read_text(encoding="utf-8")
PARAMETERS = sorted({p for required, optional in DISTRIBUTIONS.values()
                     for p in (*required, *optional)})


def outcome(text: str, require_inputs: bool = True) -> object:
    """Load ``text`` as ``fuzz.toml``; use what loads; return the scenario or the error."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.toml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            scenario = load_scenario_file(path, require_inputs=require_inputs)
            scenario.sample(8, seed=0)
            scenario.to_table()
            scenario.digest()
        except ForecastError as exc:
            assert "\n" not in str(exc), str(exc)
            return exc
    return scenario


# --------------------------------------------------------------------------- TOML writer


def toml(value: Any) -> str:
    """``value`` as a TOML inline value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(map(toml, value)) + "]"
    return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)} = {toml(v)}"
                           for k, v in value.items()) + "}"


def document_text(document: dict[str, Any]) -> str:
    return "".join(f"{json.dumps(key)} = {toml(value)}\n" for key, value in document.items())


# --------------------------------------------------------------------------- strategies

_NUMBERS = st.one_of(st.integers(-10, 10), st.floats(-1e3, 1e3), st.floats(),
                     st.integers(), st.sampled_from([0, 0.5, 1, 1e308, -1e-308, 10**30]))
_WORDS = st.sampled_from([*DISTRIBUTIONS, *THESIS_METRICS, *REQUIRED_INPUTS, "2027Q1",
                          "2030", "2026..2030", "<=", "mean", "nvidia", "Trainium3", "fuzz"])
_SCALARS = st.one_of(_NUMBERS, _WORDS, st.text(max_size=12), st.booleans())
_ANY = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(_WORDS, st.text(max_size=6)),
                                                 inner, max_size=4)), max_leaves=20)


def _table(keys: list[str], values: st.SearchStrategy) -> st.SearchStrategy:
    return st.dictionaries(st.sampled_from(keys), values, max_size=len(keys))


_RANDOM_SPEC = st.builds(lambda dist, params, meta: {"dist": dist, **params, **meta},
                         st.sampled_from([*DISTRIBUTIONS, "weibull"]),
                         _table(PARAMETERS, st.one_of(_NUMBERS, st.lists(_SCALARS, max_size=4))),
                         _table(["unit", "rationale"], st.text(min_size=1, max_size=8)))


@st.composite
def _valid_spec(draw: st.DrawFn) -> dict[str, Any]:
    """A distribution table that is usually valid: its parameters present and in order."""
    dist = draw(st.sampled_from(sorted(DISTRIBUTIONS)))
    required, _ = DISTRIBUTIONS[dist]
    table: dict[str, Any] = {"dist": dist, "unit": "x", "rationale": "fuzz"}
    if dist == "quarter":
        table.update(values=["2027Q1", "2027Q3"], probs=[0.25, 0.75])
    else:
        low = draw(st.floats(-1e6, 1e6))
        width = draw(st.floats(1e-6, 1e6))
        table.update({name: draw(st.floats(1e-3, 1e3)) for name in required})
        table.update({key: value for key, value in (("lower", low), ("upper", low + width),
                                                    ("mode", low + width / 2),
                                                    ("mu", low + width / 3)) if key in required})
    if draw(st.integers(0, 4)) == 0:  # now and then one bad entry
        table[draw(st.sampled_from([*PARAMETERS, "dist", "unit"]))] = draw(_SCALARS)
    return table


_SPEC = st.one_of(_valid_spec(), _RANDOM_SPEC)
_METADATA = st.one_of(
    st.fixed_dictionaries({"name": st.just("fuzz"), "description": st.text(min_size=1),
                           "horizon": st.integers(2026, 2040), "draws": st.integers(1, 50),
                           "seed": st.integers(0, 2**63)}),
    _table(["name", "description", "horizon", "draws", "seed", "extends"],
           _SCALARS).map(lambda t: {"name": "fuzz", **t}))
_THESIS = _table(["statement", "metric", "period", "comparator", "threshold", "vendor",
                  "aggregate", "numerator", "denominator", "unit"], st.one_of(_SCALARS, _ANY))
_DOCUMENT = st.fixed_dictionaries(
    {"scenario": _METADATA},
    optional={
        "inputs": st.dictionaries(st.sampled_from([*REQUIRED_INPUTS, "x", "1bad"]), _SPEC,
                                  max_size=6),
        "priors": st.dictionaries(st.sampled_from([*MODEL_PRIORS, "nope"]), st.dictionaries(
            st.sampled_from([n for names in MODEL_PRIORS.values() for n in names] + ["zz"]),
            _SPEC, max_size=3), max_size=3),
        "theses": st.dictionaries(st.sampled_from(["t", "u", "9"]), _THESIS, max_size=3),
        "correlations": st.lists(_table(["inputs", "rho"], st.one_of(
            st.lists(st.sampled_from([*REQUIRED_INPUTS[:4], "x"]), max_size=3), _NUMBERS)),
            max_size=3),
        "chip_prices": st.dictionaries(st.sampled_from(["Trainium3", "B200", " "]), _SCALARS,
                                       max_size=2),
    })


# --------------------------------------------------------------------------- properties


@PROPERTY
@given(st.text(max_size=300))
def test_any_text_ends_in_a_scenario_or_one_error(text):
    outcome(text)


@PROPERTY
@given(_DOCUMENT, st.booleans())
def test_any_document_of_the_vocabulary_ends_in_a_scenario_or_one_error(document, required):
    outcome(document_text(document), require_inputs=required)


@st.composite
def edited_base(draw: st.DrawFn) -> str:
    text = BASE.replace('name = "base"', 'name = "fuzz"', 1)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        end = min(len(text), at + draw(st.integers(0, 60)))
        piece = draw(st.one_of(st.text(max_size=8), st.sampled_from(
            ['"', "[", "]", "=", "\n", "[[correlations]]\n", "1e999", "-1", "nan", '"2099Q9"',
            "[inputs.x]\n", "{", "'''"])))
        text = text[:at] + piece + text[end:]
    return text


@PROPERTY
@given(edited_base())
def test_any_edit_of_a_shipped_scenario_ends_in_a_scenario_or_one_error(text):
    outcome(text)
