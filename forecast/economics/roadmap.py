"""Vendor roadmaps and price erosion in the cost paths: chips beyond the catalogue, per draw.

A scenario's ``[roadmap]`` (:mod:`forecast.scenarios.roadmap`) lists each vendor group's
announced generations, each relative to its predecessor (a catalogue chip or an earlier
generation): it launches at its launch input's quarter (never before the quarter after its
predecessor's launch), with its predecessor's dense FLOPS x its performance input, for its
predecessor's price per chip x its price input, and keeps its predecessor's TDP (an
assumption: no announcement gives the power of every part). The scenario's
``[price_erosion]`` names per vendor group the input of the yearly fall of its chips' prices.

This module cannot read a scenario (models import the cost paths, and models never read
scenario files), so callers pass the two tables; :data:`SHIPPED_ROADMAP` and
:data:`SHIPPED_PRICE_EROSION` stand for the shipped scenarios' tables for callers that do not
pass them yet (``forecast.pipeline.simulate``). A test holds them equal to every shipped
scenario's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

import numpy as np

from forecast.core.errors import ForecastError

__all__ = ["SHIPPED_PRICE_EROSION", "SHIPPED_ROADMAP", "ChipColumns", "RoadmapChip",
           "add_generations", "eroded_capex", "roadmap_inputs"]


class GenerationLike(Protocol):
    """What the cost paths read of a generation (``forecast.scenarios.roadmap.Generation``)."""

    vendor: str
    name: str
    after: str
    launch: str
    performance: str
    price: str


@dataclass(frozen=True)
class RoadmapChip:
    """A generation as the cost paths read it: vendor, name, predecessor and its inputs."""

    vendor: str
    name: str
    after: str
    launch: str
    performance: str
    price: str


#: The ``[roadmap]`` of the shipped scenarios (``scenarios/base.toml``; bull and bear inherit
#: it), predecessors first. Remove once every caller passes its scenario's ``roadmap``.
SHIPPED_ROADMAP: Final = (
    RoadmapChip("nvidia", "Rubin", "GB300 (Blackwell Ultra, per GPU)",
                "nvidia_next_launch_quarter", "nvidia_next_fp8_multiplier",
                "nvidia_next_price_ratio"),
    RoadmapChip("nvidia", "Rubin Ultra", "Rubin", "nvidia_rubin_ultra_launch_quarter",
                "nvidia_rubin_ultra_fp8_multiplier", "nvidia_rubin_ultra_price_ratio"),
    RoadmapChip("nvidia", "Feynman", "Rubin Ultra", "nvidia_feynman_launch_quarter",
                "nvidia_feynman_fp8_multiplier", "nvidia_feynman_price_ratio"),
    RoadmapChip("nvidia", "Feynman successor", "Feynman", "nvidia_feynman_next_launch_quarter",
                "nvidia_feynman_next_fp8_multiplier", "nvidia_feynman_next_price_ratio"),
    RoadmapChip("amd", "Instinct MI450", "Instinct MI355X", "amd_mi450_launch_quarter",
                "amd_mi450_fp8_multiplier", "amd_mi450_price_ratio"),
    RoadmapChip("amd", "Instinct MI500", "Instinct MI450", "amd_mi500_launch_quarter",
                "amd_mi500_fp8_multiplier", "amd_mi500_price_ratio"),
    RoadmapChip("amd", "Instinct MI500 successor", "Instinct MI500",
                "amd_mi500_next_launch_quarter", "amd_mi500_next_fp8_multiplier",
                "amd_mi500_next_price_ratio"),
    RoadmapChip("google", "TPU v7 successor", "TPU v7 (Ironwood)",
                "google_tpu_next_launch_quarter", "google_tpu_next_fp8_multiplier",
                "google_tpu_next_price_ratio"),
    RoadmapChip("google", "TPU after next", "TPU v7 successor",
                "google_tpu_after_next_launch_quarter", "google_tpu_after_next_fp8_multiplier",
                "google_tpu_after_next_price_ratio"),
    RoadmapChip("aws", "Trainium4", "Trainium3", "trainium4_launch_quarter",
                "trainium4_fp8_multiplier", "trainium4_price_ratio"),
    RoadmapChip("aws", "Trainium5", "Trainium4", "trainium5_launch_quarter",
                "trainium5_fp8_multiplier", "trainium5_price_ratio"),
    RoadmapChip("other", "Crescent Island", "Gaudi3", "intel_next_launch_quarter",
                "intel_next_fp8_multiplier", "intel_next_price_ratio"),
    RoadmapChip("other", "Jaguar Shores", "Gaudi3", "intel_jaguar_shores_launch_quarter",
                "intel_jaguar_shores_fp8_multiplier", "intel_jaguar_shores_price_ratio"),
    RoadmapChip("other", "Maia 200", "Maia 100", "maia200_launch_quarter",
                "maia200_fp8_multiplier", "maia200_price_ratio"),
)
#: The ``[price_erosion]`` of the shipped scenarios; remove with :data:`SHIPPED_ROADMAP`.
SHIPPED_PRICE_EROSION: Final = {
    "nvidia": "nvidia_price_response",
    "amd": "amd_price_erosion",
    "google": "google_price_erosion",
    "aws": "aws_price_erosion",
    "other": "other_price_erosion",
}


@dataclass
class ChipColumns:
    """Every chip column of the cost paths: per-draw capex, dense TFLOPS and launch quarter
    (each ``(draws,)``), and per chip its TDP and vendor group."""

    names: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    capex: list[np.ndarray] = field(default_factory=list)
    tflops: list[np.ndarray] = field(default_factory=list)
    release: list[np.ndarray] = field(default_factory=list)
    tdp: list[float] = field(default_factory=list)

    def add(self, name: str, group: str, capex: np.ndarray, tflops: np.ndarray,
            release: np.ndarray, tdp: float) -> None:
        """Append one chip column."""
        self.names.append(name)
        self.groups.append(group)
        self.capex.append(capex)
        self.tflops.append(tflops)
        self.release.append(release)
        self.tdp.append(float(tdp))

    def matrices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(draws, chips)`` capex, TFLOPS and launch quarter, and ``(chips,)`` TDP."""
        return (np.column_stack(self.capex), np.column_stack(self.tflops),
                np.column_stack(self.release), np.asarray(self.tdp, dtype=float))


def roadmap_inputs(roadmap: Iterable[GenerationLike], vendors: Sequence[str]) -> list[str]:
    """The inputs the generations of ``vendors`` read, in roadmap order."""
    return [name for g in roadmap if g.vendor in vendors
            for name in (g.launch, g.performance, g.price)]


def add_generations(columns: ChipColumns, roadmap: Iterable[GenerationLike],
                    vendors: Sequence[str], col: Mapping[str, np.ndarray]) -> None:
    """Append the generations of ``vendors`` to ``columns``, each after its predecessor.

    Raises
    ------
    ForecastError
        When a predecessor is neither a chip of the catalogue's covered vendors nor an
        earlier generation, belongs to another vendor group, or a name is used twice.
    """
    for generation in roadmap:
        if generation.vendor not in vendors:
            continue
        if generation.name in columns.names:
            raise ForecastError(f"roadmap generation {generation.name!r} is already a chip "
                                "of the catalogue or of the roadmap")
        if generation.after not in columns.names:
            raise ForecastError(
                f"roadmap generation {generation.name!r} follows {generation.after!r}, which "
                "is neither a catalogue chip of the covered vendors nor an earlier generation")
        j = columns.names.index(generation.after)
        if columns.groups[j] != generation.vendor:
            raise ForecastError(
                f"roadmap generation {generation.name!r} ({generation.vendor}) follows "
                f"{generation.after!r}, a chip of vendor group {columns.groups[j]!r}")
        # A successor cannot ship before its predecessor: independent launch distributions
        # would otherwise let Rubin Ultra precede Rubin in a few draws.
        release = np.maximum(col[generation.launch], columns.release[j] + 1.0)
        columns.add(generation.name, generation.vendor,
                    columns.capex[j] * col[generation.price],
                    columns.tflops[j] * col[generation.performance], release, columns.tdp[j])


def eroded_capex(capex: np.ndarray, release: np.ndarray, rate: np.ndarray, quarter: int,
                 start: int) -> np.ndarray:
    """Capex after the yearly price erosion ``rate``, at quarter index ``quarter``.

    A chip's price falls from its launch, or from the first forecast quarter ``start`` for
    chips already on sale (their price of the price year already reflects their age); a
    generation launches at its predecessor's un-eroded price x its price ratio.

    Parameters
    ----------
    capex, release
        ``(draws, chips)`` price per chip (USD) and launch quarter index.
    rate
        ``(draws, chips)`` fractional fall per year, in [0, 1).
    quarter, start
        Quarter indices.

    Returns
    -------
    numpy.ndarray
        ``(draws, chips)`` USD per chip.
    """
    if np.any((rate < 0) | (rate >= 1)):
        raise ForecastError("price erosion must lie in [0, 1) a year")
    years = np.maximum(0.0, quarter - np.maximum(release, start)) / 4.0
    return capex * (1.0 - rate) ** years
