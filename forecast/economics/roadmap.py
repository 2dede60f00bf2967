"""Vendor roadmaps and price erosion in the cost paths: chips beyond the catalogue, per draw.

A scenario's ``[roadmap]`` (:mod:`forecast.scenarios.roadmap`) lists each vendor group's
announced generations, each relative to its predecessor (a catalogue chip or an earlier
generation): it launches at its launch input's quarter (never before the quarter after its
predecessor's launch), with its predecessor's dense FLOPS x its performance input, for its
predecessor's price per chip x its price input, and keeps its predecessor's TDP (an
assumption: no announcement gives the power of every part). Chips' prices
fall with age at M2's posterior rate for their vendor group, shifted by the input the
scenario's ``[price_erosion]`` names for the group (:mod:`forecast.economics.cost_paths`).

This module cannot read a scenario (models import the cost paths, and models never read
scenario files), so callers pass the two tables (``Scenario.cost_tables``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from forecast.core.errors import ForecastError

__all__ = ["ChipColumns", "GenerationLike", "add_generations", "eroded_capex",
           "erosion_factor", "price_per_pflop", "roadmap_inputs", "yearly_log_price_change"]


class GenerationLike(Protocol):
    """What the cost paths read of a generation (``forecast.scenarios.roadmap.Generation``)."""

    vendor: str
    name: str
    after: str
    launch: str
    performance: str
    price: str


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


def eroded_capex(capex: np.ndarray, release: np.ndarray, log_rate: np.ndarray, quarter: int,
                 start: int) -> np.ndarray:
    """Capex after the yearly log price change ``log_rate``, at quarter index ``quarter``:
    ``capex`` times :func:`erosion_factor`.

    Parameters
    ----------
    capex, release
        ``(draws, chips)`` price per chip (USD) and launch quarter index.
    log_rate
        ``(draws, chips)`` change in log price per year, at most 0 (prices do not rise with
        age in the cost paths).
    quarter, start
        Quarter indices.

    Returns
    -------
    numpy.ndarray
        ``(draws, chips)`` USD per chip.
    """
    return capex * erosion_factor(release, log_rate, quarter, start)


def erosion_factor(release: np.ndarray, log_rate: np.ndarray, quarter: int,
                   start: int) -> np.ndarray:
    """The share of a chip's price left at quarter index ``quarter``.

    A chip's price changes from its launch, or from the first forecast quarter ``start`` for
    chips already on sale (their price of the price year already reflects their age); a
    generation launches at its predecessor's un-eroded price x its price ratio. Arguments
    as :func:`eroded_capex`.
    """
    if not np.all(log_rate <= 0.0):
        raise ForecastError("a price's yearly log change in the cost paths must be at most 0")
    years = np.maximum(0.0, quarter - np.maximum(release, start)) / 4.0
    return np.exp(log_rate * years)


def price_per_pflop(capex: np.ndarray, tflops: np.ndarray, release: np.ndarray,
                    vendor_codes: np.ndarray, quarter: int, n_vendors: int) -> np.ndarray:
    """Each vendor's lowest price per dense PFLOP among its chips launched by ``quarter``.

    Parameters
    ----------
    capex, tflops, release
        ``(draws, chips)`` price per chip at the quarter (USD, eroded), dense TFLOPS per chip
        and launch quarter index.
    vendor_codes
        ``(chips,)`` vendor index of each chip.
    quarter, n_vendors
        The quarter index and the number of vendors.

    Returns
    -------
    numpy.ndarray
        ``(draws, n_vendors)`` USD per dense PFLOP; NaN for a vendor with no chip launched.
    """
    per_pflop = np.where(release <= quarter, capex / (tflops / 1000.0), np.inf)
    out = np.full((per_pflop.shape[0], n_vendors), np.inf)
    for vendor in range(n_vendors):
        mine = np.asarray(vendor_codes) == vendor
        if mine.any():
            out[:, vendor] = per_pflop[:, mine].min(axis=1)
    return np.where(np.isfinite(out), out, np.nan)


def yearly_log_price_change(price_decay: Mapping[str, np.ndarray],
                            extra_fall: Mapping[str, np.ndarray], n: int
                            ) -> dict[str, np.ndarray]:
    """Each vendor's yearly log change of its chips' prices ahead of the data (draws,): M2's
    decay (``price_decay``) less the scenario's extra fall (``extra_fall``, its
    ``[price_erosion]`` inputs' draws), capped at 0. The one rate the cost paths and AWS's
    fleet revenue read.

    Raises
    ------
    ForecastError
        When a vendor of ``extra_fall`` has no decay of ``n`` finite values.
    """
    rates = {}
    for vendor, extra in extra_fall.items():
        decay = np.asarray(price_decay.get(vendor, np.empty(0)), dtype=float)
        if decay.shape != (n,) or not np.isfinite(decay).all():
            raise ForecastError(f"the cost paths need the price model's decay of {vendor!r}, "
                                f"one finite value per draw ({n})")
        rates[vendor] = np.minimum(decay - np.asarray(extra, dtype=float), 0.0)
    return rates
