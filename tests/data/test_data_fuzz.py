"""Fuzzing the data loader: 200 seeded mutations of the shipped data directory (truncated files,
flipped bytes, dropped, duplicated or reordered columns, swapped values, huge numbers, empty
fields, byte-order marks, CRLF, stray quotes...) each end in a dataset or in one
DataValidationError whose issues are one line each; no other exception."""

from __future__ import annotations

import csv
import io
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from forecast.core.errors import DataValidationError, ForecastError
from forecast.data.dataset import DEFAULT_DATA_DIR, SCHEMAS, Dataset, load_dataset

SEED = 20251031
CHUNKS = 10
PER_CHUNK = 20  # 200 data directories in all
NAMES = sorted([*SCHEMAS, "as_of.csv"])
HUGE = ["1e308", "1e309", "9" * 400, "-0", "inf", "NaN", "-1e-320", "0x10", "1_000", "١٢٣"]


def _rows(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode("utf-8"), newline="")))


def _csv(rows: list[list[str]]) -> bytes:
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return text.getvalue().encode("utf-8")


def _cell(rng: np.random.Generator, rows: list[list[str]]) -> tuple[int, int]:
    row = int(rng.integers(1, len(rows))) if len(rows) > 1 else 0
    return row, int(rng.integers(len(rows[row]))) if rows[row] else 0


# Each mutation takes (content, rng) and returns new content.
def truncate(content: bytes, rng: np.random.Generator) -> bytes:
    return content[:int(rng.integers(len(content) + 1))]


def flip_bytes(content: bytes, rng: np.random.Generator) -> bytes:
    data = bytearray(content)
    for _ in range(int(rng.integers(1, 6))):
        if data:
            at = int(rng.integers(len(data)))
            data[at] ^= int(rng.integers(1, 256))
    return bytes(data)


def drop_column(content: bytes, rng: np.random.Generator) -> bytes:
    rows = _rows(content)
    column = int(rng.integers(len(rows[0])))
    return _csv([row[:column] + row[column + 1:] for row in rows])


def duplicate_column(content: bytes, rng: np.random.Generator) -> bytes:
    rows = _rows(content)
    column = int(rng.integers(len(rows[0])))
    return _csv([row + [row[column]] if len(row) > column else row for row in rows])


def reorder_columns(content: bytes, rng: np.random.Generator) -> bytes:
    rows = _rows(content)
    order = rng.permutation(len(rows[0]))
    return _csv([[row[i] for i in order] if len(row) == len(order) else row for row in rows])


def swap_values(content: bytes, rng: np.random.Generator) -> bytes:
    rows = _rows(content)
    for _ in range(int(rng.integers(1, 4))):
        (r1, c1), (r2, c2) = _cell(rng, rows), _cell(rng, rows)
        if rows[r1] and rows[r2]:
            rows[r1][c1], rows[r2][c2] = rows[r2][c2], rows[r1][c1]
    return _csv(rows)


def huge_number(content: bytes, rng: np.random.Generator) -> bytes:
    rows = _rows(content)
    row, column = _cell(rng, rows)
    if rows[row]:
        rows[row][column] = str(rng.choice(HUGE))
    return _csv(rows)


def empty_fields(content: bytes, rng: np.random.Generator) -> bytes:
    rows = _rows(content)
    for _ in range(int(rng.integers(1, 5))):
        row, column = _cell(rng, rows)
        if rows[row]:
            rows[row][column] = str(rng.choice(["", " ", "\t"]))
    return _csv(rows)


def byte_order_mark(content: bytes, rng: np.random.Generator) -> bytes:
    return b"\xef\xbb\xbf" + content


def crlf(content: bytes, rng: np.random.Generator) -> bytes:
    return content.replace(b"\n", b"\r\n")


def stray_quote(content: bytes, rng: np.random.Generator) -> bytes:
    at = int(rng.integers(len(content) + 1))
    return content[:at] + b'"' + content[at:]


def lines_shuffled(content: bytes, rng: np.random.Generator) -> bytes:
    lines = content.split(b"\n")
    action = int(rng.integers(3))
    at = int(rng.integers(len(lines)))
    if action == 0:  # a line deleted
        return b"\n".join(lines[:at] + lines[at + 1:])
    if action == 1:  # a line repeated
        return b"\n".join(lines[:at + 1] + lines[at:])
    return b"\n".join(lines + [lines[at][::-1]])  # a garbled line appended


def odd_text(content: bytes, rng: np.random.Generator) -> bytes:
    rows = _rows(content)
    row, column = _cell(rng, rows)
    if rows[row]:
        rows[row][column] = str(rng.choice(["\u202e2025", "H100\u200b", "a\nb", "\x00", "é" * 300,
                                            "2025-02-30", "2025-Q5", "29999", "1999-12-31"]))
    return _csv(rows)


MUTATIONS: list[Callable[[bytes, np.random.Generator], bytes]] = [
    truncate, flip_bytes, drop_column, duplicate_column, reorder_columns, swap_values,
    huge_number, empty_fields, byte_order_mark, crlf, stray_quote, lines_shuffled, odd_text]


def mutate(content: bytes, rng: np.random.Generator) -> tuple[bytes, list[str]]:
    """One to three mutations; the CSV-level ones fall back to a byte-level one on bytes
    that are no longer CSV text."""
    applied = []
    for _ in range(int(rng.integers(1, 4))):
        mutation = MUTATIONS[int(rng.integers(len(MUTATIONS)))]
        try:
            content = mutation(content, rng)
        except (UnicodeDecodeError, csv.Error, IndexError, ValueError):
            content = flip_bytes(content, rng)
            mutation = flip_bytes
        applied.append(mutation.__name__)
    return content, applied


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    shutil.copytree(DEFAULT_DATA_DIR, root / "data")
    return root


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_mutated_data_directories_end_in_a_dataset_or_one_error(workspace: Path, chunk: int):
    rng = np.random.default_rng([SEED, chunk])
    directory, cache = workspace / "data", workspace / "cache"
    outcomes: Counter[str] = Counter()
    for case in range(PER_CHUNK):
        names = list(rng.choice(NAMES, size=int(rng.integers(1, 3)), replace=False))
        originals = {name: (directory / name).read_bytes() for name in names}
        applied = []
        for name in names:
            content, done = mutate(originals[name], rng)
            (directory / name).write_bytes(content)
            applied.append(f"{name}: {', '.join(done)}")
        try:
            result = load_dataset(directory, cache_dir=cache)
            assert isinstance(result, Dataset)
            outcomes["dataset"] += 1
        except DataValidationError as exc:
            assert exc.issues, applied
            assert all("\n" not in str(i) and "\r" not in str(i) for i in exc.issues), applied
            outcomes["validation error"] += 1
        except ForecastError:
            outcomes["other forecast error"] += 1
        except Exception as exc:  # noqa: BLE001 - the finding this test exists for
            pytest.fail(f"chunk {chunk} case {case} ({'; '.join(applied)}): "
                        f"{type(exc).__name__}: {exc}")
        finally:
            for name, content in originals.items():
                (directory / name).write_bytes(content)
    assert sum(outcomes.values()) == PER_CHUNK
