"""Fuzzing the scenario loader: 200 seeded mutations of the shipped scenario files (truncated,
flipped bytes, lines deleted, repeated or swapped, values swapped between keys, huge numbers,
empty strings, unknown distributions and metrics, sections removed, byte-order marks, CRLF...)
each end in a scenario (which then samples and shows) or in one ScenarioError/ForecastError
line; no other exception. A mutated base.toml is also loaded through bull.toml, which extends
it."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from forecast.core.errors import ForecastError
from forecast.scenarios import DEFAULT_SCENARIOS_DIR, Scenario, load_scenario_file

SEED = 20251031
CHUNKS = 10
PER_CHUNK = 20  # 200 scenario files in all
FILES = ("base.toml", "bull.toml", "bear.toml")
NUMBER = re.compile(r"(?<![\w.])-?\d+(\.\d+)?([eE][-+]?\d+)?(?![\w.])")
STRING = re.compile(r'"[^"\n]*"')
VALUE_LINE = re.compile(r"^([A-Za-z_][\w]*) = (.+)$", re.MULTILINE)
HUGE = ["1e309", "1" + "0" * 400, "-1", "0", "nan", "inf", "1e-320", "9" * 5000, "-0.0"]
WORDS = ['"weibull"', '"pert"', '"quarter"', '"fixed"', '"profit"', '"2099Q9"', '"2030..2026"',
         '"=="', '"median"', '""', '" "', "[]", "{}", "true", '"base"', '"../../etc/passwd"']


def truncate(text: str, rng: np.random.Generator) -> str:
    return text[:int(rng.integers(len(text) + 1))]


def flip_bytes(text: str, rng: np.random.Generator) -> str:
    data = bytearray(text.encode("utf-8", errors="surrogateescape"))
    for _ in range(int(rng.integers(1, 6))):
        at = int(rng.integers(len(data)))
        data[at] ^= int(rng.integers(1, 256))
    return data.decode("utf-8", errors="surrogateescape")


def lines_moved(text: str, rng: np.random.Generator) -> str:
    lines = text.split("\n")
    a, b = int(rng.integers(len(lines))), int(rng.integers(len(lines)))
    action = int(rng.integers(3))
    if action == 0:
        del lines[a]
    elif action == 1:
        lines.insert(a, lines[b])
    else:
        lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


def swap_values(text: str, rng: np.random.Generator) -> str:
    matches = list(VALUE_LINE.finditer(text))
    if len(matches) < 2:
        return text
    first, second = (matches[int(i)] for i in rng.integers(len(matches), size=2))
    if first.start() > second.start():
        first, second = second, first
    if first.start() == second.start():
        return text
    return (text[:first.start(2)] + second.group(2) + text[first.end(2):second.start(2)]
            + first.group(2) + text[second.end(2):])


def _replace_one(pattern: re.Pattern[str], text: str, rng: np.random.Generator,
                 choices: list[str]) -> str:
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    match = matches[int(rng.integers(len(matches)))]
    return text[:match.start()] + str(rng.choice(choices)) + text[match.end():]


def huge_number(text: str, rng: np.random.Generator) -> str:
    return _replace_one(NUMBER, text, rng, HUGE)


def odd_word(text: str, rng: np.random.Generator) -> str:
    return _replace_one(STRING, text, rng, WORDS)


def section_removed(text: str, rng: np.random.Generator) -> str:
    starts = [m.start() for m in re.finditer(r"^\[", text, re.MULTILINE)]
    if len(starts) < 2:
        return text
    i = int(rng.integers(len(starts) - 1))
    return text[:starts[i]] + text[starts[i + 1]:]


def nested(text: str, rng: np.random.Generator) -> str:
    depth = int(rng.choice([5, 50, 600]))
    return text + "\n[inputs.deep]\nvalues = " + "[" * depth + "]" * depth + "\n"


def byte_order_mark(text: str, rng: np.random.Generator) -> str:
    return "\ufeff" + text


def crlf(text: str, rng: np.random.Generator) -> str:
    return text.replace("\n", "\r\n")


MUTATIONS: list[Callable[[str, np.random.Generator], str]] = [
    truncate, flip_bytes, lines_moved, swap_values, huge_number, odd_word, section_removed,
    nested, byte_order_mark, crlf]


def load(path: Path) -> str:
    """``loaded`` or the kind of ForecastError; any other exception propagates."""
    try:
        scenario = load_scenario_file(path)
    except ForecastError as exc:
        assert "\n" not in str(exc), str(exc)
        return "error"
    assert isinstance(scenario, Scenario)
    # Extreme but valid parameters (a beta's alpha near 0) overflow inside the inverse CDFs.
    with np.errstate(all="ignore"):
        scenario.sample(16, seed=1)
        scenario.to_table()
    return "loaded"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("fuzz") / "scenarios"
    shutil.copytree(DEFAULT_SCENARIOS_DIR, directory)
    return directory


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_mutated_scenario_files_end_in_a_scenario_or_one_error(workspace: Path, chunk: int):
    rng = np.random.default_rng([SEED, chunk])
    outcomes: Counter[str] = Counter()
    for case in range(PER_CHUNK):
        name = str(rng.choice(FILES))
        path = workspace / name
        original = path.read_bytes()
        text = original.decode("utf-8")
        applied = []
        for _ in range(int(rng.integers(1, 4))):
            mutation = MUTATIONS[int(rng.integers(len(MUTATIONS)))]
            text = mutation(text, rng)
            applied.append(mutation.__name__)
        path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
        try:
            outcomes[load(path)] += 1
            if name == "base.toml":  # the mutation seen through inheritance
                outcomes[load(workspace / "bull.toml")] += 1
        except Exception as exc:  # noqa: BLE001 - the finding this test exists for
            pytest.fail(f"chunk {chunk} case {case} ({name}: {', '.join(applied)}): "
                        f"{type(exc).__name__}: {exc}")
        finally:
            path.write_bytes(original)
    assert outcomes["loaded"] + outcomes["error"] >= PER_CHUNK
