"""Reading one scenario file on its own: the TOML document, validated into a :class:`Layer`.

A layer is what one file says, before the ``extends`` chain is merged
(:mod:`forecast.scenarios.inheritance`). Checks that need the merged scenario (required
metadata, references to inputs, the correlation matrix, thesis periods within the horizon)
happen after merging.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forecast.core.scenario_contract import MODEL_PRIORS, PRIOR_DISTRIBUTIONS
from forecast.scenarios.distributions import InputSpec, parse_spec
from forecast.scenarios.locations import (
    IDENTIFIER_PATTERN,
    NAME_PATTERN,
    Where,
    check_keys,
    display,
    expect_int,
    expect_name,
    expect_number,
    expect_str,
    expect_table,
    fmt,
)
from forecast.scenarios.readings import Reading, Setting, parse_readings, parse_settings
from forecast.scenarios.roadmap import Generation, parse_price_erosion, parse_roadmap
from forecast.scenarios.theses import ThesisSpec, parse_thesis

#: Models whose priors a scenario may override (``[priors.<model>]``).
PRIOR_MODELS: tuple[str, ...] = tuple(MODEL_PRIORS)
#: Largest scenario file read (the shipped ones are under 30 kB).
MAX_FILE_BYTES = 1_000_000
#: Deepest nesting of tables and arrays in a scenario file (the format needs 5 levels:
#: ``priors.<model>.<key>.<parameter>``, ``inputs.<name>.values[i]``).
MAX_NESTING = 10

_TOP_LEVEL_KEYS = ("scenario", "inputs", "chip_prices", "roadmap", "price_erosion",
                   "correlations", "priors", "readings", "settings", "theses")
_SCENARIO_KEYS = ("name", "description", "extends", "horizon", "draws", "seed")
_CORRELATION_KEYS = ("inputs", "rho")
_HORIZON_RANGE = (2000, 2100)
_MAX_DRAWS = 10_000_000


@dataclass
class Layer:
    """One file's validated content, before merging with its parents.

    Entries that are checked against the merged scenario keep their :class:`Where`, so the
    error names the file and key that made the reference.
    """

    path: Path
    where: Where
    name: str
    extends: str | None
    metadata: dict[str, Any]
    inputs: dict[str, InputSpec]
    chip_prices: dict[str, tuple[str, Where]]
    roadmap: dict[tuple[str, str], tuple[Generation, Where]]
    price_erosion: dict[str, tuple[str, Where]]
    correlations: dict[tuple[str, str], tuple[float, Where]]
    priors: dict[str, dict[str, InputSpec]]
    theses: dict[str, tuple[ThesisSpec, Where]]
    readings: dict[str, Reading]
    settings: dict[str, Setting]


def read_toml(path: Path, where: Where) -> dict[str, Any]:
    """Read and decode a TOML file; unreadable, oversized, too deeply nested or bad TOML
    raises at ``where``."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise where.error(f"file is larger than {MAX_FILE_BYTES:,} bytes: not a scenario")
        # utf-8-sig: a byte-order mark (as some editors write) is not part of the document.
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise where.error(f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise where.error(f"cannot read file ({exc.strerror or exc})") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise where.error(f"invalid TOML: {exc}") from None
    except RecursionError:
        raise where.error(f"tables or arrays nested deeper than {MAX_NESTING} levels") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise where.error(f"invalid TOML value: {exc}") from None
    if _nesting(document) > MAX_NESTING:
        raise where.error(f"tables or arrays nested deeper than {MAX_NESTING} levels")
    return document


def _nesting(document: dict[str, Any]) -> int:
    """Deepest nesting of tables and arrays (the document is level 1), without recursion."""
    deepest, stack = 0, [(document, 1)]
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_NESTING:
            break
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, dict | list))
    return deepest


def parse_layer(path: Path) -> Layer:
    """Read and validate one scenario file on its own (references are checked after merging).

    Parameters
    ----------
    path : pathlib.Path
        The scenario file; its ``[scenario] name`` must equal the file stem.

    Returns
    -------
    Layer

    Raises
    ------
    ScenarioError
        On the first problem found, located by file and key path.
    """
    root = Where(display(path))
    document = read_toml(path, root)
    check_keys(document, _TOP_LEVEL_KEYS, ("scenario",), root)
    name, extends, metadata = _parse_metadata(document["scenario"], path, root.child("scenario"))
    # Sections in file-format order, so the first problem reported is the same every time.
    inputs = _parse_inputs(document.get("inputs", {}), root.child("inputs"))
    chip_prices = _parse_chip_prices(document.get("chip_prices", {}), root.child("chip_prices"))
    roadmap = parse_roadmap(document.get("roadmap", {}), root.child("roadmap"))
    erosion = parse_price_erosion(document.get("price_erosion", {}),
                                  root.child("price_erosion"))
    correlations = _parse_correlations(
        document.get("correlations", []), root.child("correlations")
    )
    priors = _parse_priors(document.get("priors", {}), root.child("priors"))
    readings = parse_readings(document.get("readings", {}), root.child("readings"))
    settings = parse_settings(document.get("settings", {}), root.child("settings"))
    theses = _parse_theses(document.get("theses", {}), root.child("theses"))
    return Layer(
        path=path,
        where=root,
        name=name,
        extends=extends,
        metadata=metadata,
        inputs=inputs,
        chip_prices=chip_prices,
        roadmap=roadmap,
        price_erosion=erosion,
        correlations=correlations,
        priors=priors,
        theses=theses,
        readings=readings,
        settings=settings,
    )


def _parse_metadata(
    value: Any, path: Path, meta_where: Where
) -> tuple[str, str | None, dict[str, Any]]:
    """The ``[scenario]`` table: name (the file stem), parent name, and the other keys set."""
    meta_table = expect_table(value, meta_where)
    check_keys(meta_table, _SCENARIO_KEYS, ("name",), meta_where)
    name = expect_name(meta_table["name"], meta_where.child("name"), NAME_PATTERN, "name")
    if name != path.stem:
        raise meta_where.child("name").error(
            f"must equal the file name stem {path.stem!r}, got {name!r}"
        )
    extends = None
    if "extends" in meta_table:
        extends = expect_name(
            meta_table["extends"], meta_where.child("extends"), NAME_PATTERN, "extends"
        )
    # Only the keys this file sets: the others may come from the scenario it extends.
    metadata: dict[str, Any] = {}
    if "description" in meta_table:
        metadata["description"] = expect_str(
            meta_table["description"], meta_where.child("description")
        )
    if "horizon" in meta_table:
        horizon = expect_int(meta_table["horizon"], meta_where.child("horizon"))
        low, high = _HORIZON_RANGE
        if not low <= horizon <= high:
            raise meta_where.child("horizon").error(
                f"must be a calendar year in {low}..{high}, got {horizon}"
            )
        metadata["horizon"] = horizon
    if "draws" in meta_table:
        draws = expect_int(meta_table["draws"], meta_where.child("draws"))
        if not 0 < draws <= _MAX_DRAWS:
            raise meta_where.child("draws").error(f"must be in 1..{_MAX_DRAWS}, got {draws}")
        metadata["draws"] = draws
    if "seed" in meta_table:
        seed = expect_int(meta_table["seed"], meta_where.child("seed"))
        if seed < 0:
            raise meta_where.child("seed").error(f"must be >= 0, got {seed}")
        metadata["seed"] = seed
    return name, extends, metadata


def _parse_inputs(value: Any, inputs_where: Where) -> dict[str, InputSpec]:
    """The ``[inputs.<name>]`` tables, in file order; each needs a unit and a rationale."""
    inputs: dict[str, InputSpec] = {}
    for input_name, table in expect_table(value, inputs_where).items():
        where = inputs_where.child(input_name)
        expect_name(input_name, where, IDENTIFIER_PATTERN, "input name")
        inputs[input_name] = parse_spec(input_name, table, where, require_meta=True)
    return inputs


def _parse_chip_prices(value: Any, chips_where: Where) -> dict[str, tuple[str, Where]]:
    """The ``[chip_prices]`` table: catalogue chip name -> input name (checked after merging)."""
    chip_prices: dict[str, tuple[str, Where]] = {}
    for chip, target in expect_table(value, chips_where).items():
        where = chips_where.child(chip)
        if not chip.strip():
            raise where.error("chip name must not be empty")
        chip_prices[chip] = (expect_name(target, where, IDENTIFIER_PATTERN, "input"), where)
    return chip_prices


def _parse_correlations(
    entries: Any, corr_where: Where
) -> dict[tuple[str, str], tuple[float, Where]]:
    """The ``[[correlations]]`` entries, keyed by the sorted input pair (one entry per pair)."""
    correlations: dict[tuple[str, str], tuple[float, Where]] = {}
    if not isinstance(entries, list):
        raise corr_where.error("must be an array of tables ([[correlations]])")
    for i, entry in enumerate(entries):
        where = corr_where.child(i)
        entry = expect_table(entry, where)
        check_keys(entry, _CORRELATION_KEYS, _CORRELATION_KEYS, where)
        pair = entry["inputs"]
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(item, str) for item in pair)
        ):
            raise where.child("inputs").error(
                f"must be a list of two input names, got {fmt(pair)}"
            )
        if pair[0] == pair[1]:
            raise where.child("inputs").error(f"an input cannot correlate with itself: {pair[0]}")
        rho = expect_number(entry["rho"], where.child("rho"))
        if not -1.0 <= rho <= 1.0:
            raise where.child("rho").error(f"must lie in [-1, 1], got {fmt(rho)}")
        key = (min(pair), max(pair))
        if key in correlations:
            raise where.child("inputs").error(
                f"pair {key[0]} ~ {key[1]} is already correlated at {correlations[key][1].path}"
            )
        correlations[key] = (rho, where.child("inputs"))
    return correlations


def _parse_priors(value: Any, priors_where: Where) -> dict[str, dict[str, InputSpec]]:
    """The ``[priors.<model>]`` tables: parameter -> distribution (unit and rationale optional)."""
    priors: dict[str, dict[str, InputSpec]] = {}
    priors_table = expect_table(value, priors_where)
    check_keys(priors_table, PRIOR_MODELS, (), priors_where)
    for model, specs in priors_table.items():
        model_where = priors_where.child(model)
        priors[model] = {}
        for key, table in expect_table(specs, model_where).items():
            where = model_where.child(key)
            expect_name(key, where, IDENTIFIER_PATTERN, "prior name")
            _check_prior_name(model, key, where)
            spec = parse_spec(f"{model}.{key}", table, where, require_meta=False)
            if spec.dist not in PRIOR_DISTRIBUTIONS:
                raise where.child("dist").error(
                    f"{spec.dist} is not a prior the models can build "
                    f"(known: {', '.join(PRIOR_DISTRIBUTIONS)})")
            priors[model][key] = spec
    return priors


def _check_prior_name(model: str, key: str, where: Where) -> None:
    """``key`` is a prior of ``model`` (its default priors), with a spelling hint if not."""
    known = MODEL_PRIORS[model]
    if key in known:
        return
    hint = difflib.get_close_matches(key, known, n=1)
    suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
    raise where.error(f"unknown prior of the {model} model (known: {', '.join(known)})"
                      f"{suggestion}")


def _parse_theses(value: Any, theses_where: Where) -> dict[str, tuple[ThesisSpec, Where]]:
    """The ``[theses.<name>]`` tables (periods are checked against the merged horizon)."""
    theses: dict[str, tuple[ThesisSpec, Where]] = {}
    for thesis_name, table in expect_table(value, theses_where).items():
        where = theses_where.child(thesis_name)
        expect_name(thesis_name, where, IDENTIFIER_PATTERN, "thesis name")
        theses[thesis_name] = (parse_thesis(thesis_name, table, where), where)
    return theses
