"""Inheritance: following a file's ``extends`` chain and merging it into a :class:`Scenario`.

A file may ``extends`` another scenario of the same directory and override parts of it:

- ``[scenario]`` metadata keys override the parent's;
- an input of the same name replaces the parent's input wholesale;
- ``[priors.<model>]`` tables merge key by key;
- theses merge by name (a child thesis replaces the parent's of the same name);
- ``[chip_prices]`` merges key by key;
- ``[roadmap]`` merges by (vendor, generation), a child's generation replacing the parent's
  wholesale; ``[price_erosion]`` merges by vendor;
- ``[[correlations]]`` merge by unordered input pair (the child's rho replaces the parent's);
- ``[readings]`` and ``[settings]`` merge by key (a child's entry replaces the parent's
  wholesale).

Cross-references (chip prices and correlations naming inputs, the correlation matrix, thesis
periods within the horizon) are checked on the merged result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from forecast.scenarios.copula import copula_matrix
from forecast.scenarios.distributions import InputSpec
from forecast.scenarios.locations import MAX_NAME_LENGTH, NAME_PATTERN, Where, display, fmt
from forecast.scenarios.parsing import Layer, parse_layer
from forecast.scenarios.readings import Reading, Setting
from forecast.scenarios.roadmap import (
    Generation,
    check_price_erosion,
    check_roadmap,
    order_roadmap,
)
from forecast.scenarios.scenario import Scenario
from forecast.scenarios.theses import ThesisSpec

_REQUIRED_METADATA = ("description", "horizon", "draws", "seed")
_PSD_TOLERANCE = -1e-10
_MAX_EXTENDS_DEPTH = 32


def resolve_name(name: str, directory: Path, where: Where) -> Path:
    """Map a scenario name to ``directory/<name>.toml``, refusing anything outside it.

    Parameters
    ----------
    name : str
        A scenario name (``[A-Za-z0-9_-]+``).
    directory : pathlib.Path
        Directory of scenario files.
    where : Where
        Location blamed in error messages (the directory, or the ``extends`` key).

    Returns
    -------
    pathlib.Path
        The resolved file.

    Raises
    ------
    ScenarioError
        If ``name`` is not a plain name, resolves outside ``directory`` or does not exist.
    """
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise where.error(
            f"{fmt(name)} is not a scenario name (letters, digits, '_' and '-' only, at most "
            f"{MAX_NAME_LENGTH} characters); load a file by path with load_scenario_file() "
            "or `scenarios validate FILE`"
        )
    try:
        base = directory.resolve()
        candidate = (base / f"{name}.toml").resolve()
        found = candidate.is_file()
    except (OSError, RuntimeError) as exc:
        raise where.error(f"cannot read scenario {name!r} ({exc})") from None
    # resolve() follows symlinks, so a link pointing elsewhere is caught here too.
    if not candidate.is_relative_to(base):
        raise where.error(f"scenario {name!r} resolves outside {display(base)}")
    if not found:
        available = ", ".join(sorted(p.stem for p in base.glob("*.toml"))) or "none"
        raise where.error(
            f"no scenario named {name!r} in {display(base)} (available: {available})"
        )
    return candidate


def load_chain(path: Path) -> list[Layer]:
    """Parse a file and every ancestor it extends, leaf first; detect cycles."""
    layers = [parse_layer(path)]
    seen = [path.resolve()]
    while layers[-1].extends is not None:
        child = layers[-1]
        where = child.where.child("scenario").child("extends")
        parent_path = resolve_name(child.extends, child.path.parent, where)
        if parent_path in seen:
            names = [layer.name for layer in layers] + [parent_path.stem]
            raise where.error(f"cyclic extends: {' -> '.join(names)}")
        if len(layers) >= _MAX_EXTENDS_DEPTH:
            raise where.error(f"extends chain deeper than {_MAX_EXTENDS_DEPTH} files")
        seen.append(parent_path)
        layers.append(parse_layer(parent_path))
    return layers


def merge(layers: list[Layer]) -> Scenario:
    """Merge a chain (leaf first) root to leaf, then check cross-references.

    Parameters
    ----------
    layers : list of Layer
        The chain from :func:`load_chain`: the loaded file first, its root ancestor last.

    Returns
    -------
    Scenario
        Named after the leaf, with every ancestor in ``lineage``.

    Raises
    ------
    ScenarioError
        If required metadata is set nowhere in the chain, a chip price or correlation names a
        missing (or unsuitable) input, the rank correlations contradict each other, or a
        thesis period ends after the horizon.
    """
    leaf = layers[0]
    merged = _merge_sections(layers)
    metadata = merged.metadata
    meta_where = leaf.where.child("scenario")
    for key in _REQUIRED_METADATA:
        if key not in metadata:
            raise meta_where.child(key).error(
                "required key missing (set it here or in a scenario this one extends)"
            )
    _check_chip_prices(merged.chip_prices, merged.inputs)
    check_roadmap(merged.roadmap, merged.inputs)
    check_price_erosion(merged.price_erosion, merged.inputs)
    sources = _sources(layers)
    _check_correlated_inputs(merged.correlations, merged.inputs, sources)
    names, spearman = _correlation_matrix(
        merged.correlations, merged.inputs, leaf.where.child("correlations")
    )
    horizon = metadata["horizon"]
    _check_thesis_periods(merged.theses, horizon)

    return Scenario(
        name=leaf.name,
        description=metadata["description"],
        horizon=horizon,
        draws=metadata["draws"],
        seed=metadata["seed"],
        inputs=merged.inputs,
        correlations={pair: rho for pair, (rho, _) in merged.correlations.items()},
        correlation_names=names,
        correlation_matrix=spearman,
        chip_prices={chip: target for chip, (target, _) in merged.chip_prices.items()},
        roadmap=order_roadmap(merged.roadmap),
        price_erosion={vendor: target for vendor, (target, _) in merged.price_erosion.items()},
        priors=merged.priors,
        theses={name: thesis for name, (thesis, _) in merged.theses.items()},
        readings=merged.readings,
        settings=merged.settings,
        path=leaf.path,
        extends=leaf.extends,
        lineage=tuple(layer.name for layer in layers[1:]),
        sources=sources,
    )


def _sources(layers: list[Layer]) -> dict[str, str]:
    """The file that set each input, chip price and roadmap generation (the nearest layer
    to the leaf that sets it), by key path."""
    sources: dict[str, str] = {}
    for layer in reversed(layers):
        sources.update({f"inputs.{name}": layer.where.file for name in layer.inputs})
        sources.update({f"chip_prices.{chip}": where.file
                        for chip, (_, where) in layer.chip_prices.items()})
        sources.update({f"roadmap.{vendor}.{name}": where.file
                        for (vendor, name), (_, where) in layer.roadmap.items()})
    return sources


def _merge_sections(layers: list[Layer]) -> Layer:
    """Apply the layers root first, so each child overrides its parent (see module doc)."""
    leaf = layers[0]
    metadata: dict[str, Any] = {}
    inputs: dict[str, InputSpec] = {}
    chip_prices: dict[str, tuple[str, Where]] = {}
    roadmap: dict[tuple[str, str], tuple[Generation, Where]] = {}
    erosion: dict[str, tuple[str, Where]] = {}
    correlations: dict[tuple[str, str], tuple[float, Where]] = {}
    priors: dict[str, dict[str, InputSpec]] = {}
    theses: dict[str, tuple[ThesisSpec, Where]] = {}
    readings: dict[str, Reading] = {}
    settings: dict[str, Setting] = {}
    for layer in reversed(layers):
        metadata.update(layer.metadata)
        inputs.update(layer.inputs)
        chip_prices.update(layer.chip_prices)
        roadmap.update(layer.roadmap)
        erosion.update(layer.price_erosion)
        correlations.update(layer.correlations)
        for model, specs in layer.priors.items():
            priors.setdefault(model, {}).update(specs)
        theses.update(layer.theses)
        readings.update(layer.readings)
        settings.update(layer.settings)
    return Layer(
        path=leaf.path,
        where=leaf.where,
        name=leaf.name,
        extends=leaf.extends,
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


def _check_chip_prices(
    chip_prices: dict[str, tuple[str, Where]], inputs: dict[str, InputSpec]
) -> None:
    """Every chip is priced by an existing input that is not a launch quarter."""
    for chip, (target, where) in chip_prices.items():
        if target not in inputs:
            raise where.error(f"unknown input {target!r} for chip {chip!r}")
        if inputs[target].is_quarter:
            raise where.error(f"input {target!r} is a launch quarter, not a price")


def _check_correlated_inputs(
    correlations: dict[tuple[str, str], tuple[float, Where]], inputs: dict[str, InputSpec],
    sources: dict[str, str],
) -> None:
    """Every correlated input exists and is not a constant (blamed on the file that fixed it,
    which may not be the file that correlates it)."""
    for (first, second), (_, where) in correlations.items():
        for name in (first, second):
            if name not in inputs:
                raise where.error(f"unknown input {name!r}")
            if not inputs[name].is_fixed:
                continue
            source = sources.get(f"inputs.{name}", where.file)
            if source == where.file:
                raise where.error(f"input {name!r} is fixed; a constant cannot be correlated")
            raise Where(source).child("inputs").child(name).error(
                f"fixed, but {where.file}: {where.path} correlates it; a constant cannot be "
                "correlated")


def _correlation_matrix(
    correlations: dict[tuple[str, str], tuple[float, Where]],
    inputs: dict[str, InputSpec],
    where: Where,
) -> tuple[tuple[str, ...], np.ndarray]:
    """The correlated inputs (in input order) and their read-only Spearman matrix.

    Raises at ``where`` if the copula matrix the rank correlations imply is not positive
    semi-definite, i.e. no joint distribution has them.
    """
    # Zero correlations carry no information; dropping them keeps the copula small.
    active = {pair: rho for pair, (rho, _) in correlations.items() if rho != 0.0}
    involved = {name for pair in active for name in pair}
    names = tuple(name for name in inputs if name in involved)
    spearman = np.eye(len(names))
    position = {name: i for i, name in enumerate(names)}
    for (first, second), rho in active.items():
        i, j = position[first], position[second]
        spearman[i, j] = spearman[j, i] = rho
    if names:
        smallest = float(np.linalg.eigvalsh(copula_matrix(spearman)).min())
        if smallest < _PSD_TOLERANCE:
            raise where.error(
                "the implied correlation matrix is not positive semi-definite "
                f"(smallest eigenvalue {smallest:.3g}); the requested rank correlations "
                "contradict each other, reduce some |rho|"
            )
    spearman.setflags(write=False)
    return names, spearman


def _check_thesis_periods(theses: dict[str, tuple[ThesisSpec, Where]], horizon: int) -> None:
    """No thesis period ends after the last quarter of the horizon year."""
    for thesis, where in theses.values():
        if thesis.last_quarter > horizon * 4 + 3:
            raise where.child("period").error(
                f"{thesis.period} ends after the scenario horizon {horizon}"
            )
