"""Vendor roadmaps and price erosion: the ``[roadmap]`` and ``[price_erosion]`` tables.

A scenario gives every vendor group its announced chip generations beyond the catalogue
(``data/accelerators.csv``)::

    [roadmap.nvidia.Rubin]
    after = "GB300 (Blackwell Ultra, per GPU)"   # its predecessor: a catalogue chip or an
                                                 # earlier generation of the same vendor
    launch = "nvidia_next_launch_quarter"        # input: quarter of volume availability
    performance = "nvidia_next_fp8_multiplier"   # input: x the predecessor's dense FLOPS
    price = "nvidia_next_price_ratio"            # input: x the predecessor's price per chip
    announced = 2025-03-18                       # the announcement the entry relies on
    source = "GTC 2025 keynote: ... (URL)"

and every vendor group the yearly fall of its chips' prices::

    [price_erosion]
    nvidia = "nvidia_price_response"             # input: fractional fall per year

The numbers live in ``[inputs]`` (each with its unit and rationale), so they are sampled,
correlated and varied like every other input; these tables only say which input plays which
part. A generation's ``announced`` date and ``source`` name the public announcement behind it
(``data/accelerator_roadmap.csv`` holds the claims). A file may override a parent's
generation (wholesale, by vendor and name) or a vendor's erosion input.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from forecast.scenarios.distributions import InputSpec
from forecast.scenarios.locations import (
    IDENTIFIER_PATTERN,
    Where,
    check_keys,
    expect_name,
    expect_str,
    expect_table,
    fmt,
)

__all__ = ["Generation", "check_price_erosion", "check_roadmap", "order_roadmap",
           "parse_price_erosion", "parse_roadmap"]

_GENERATION_KEYS = ("after", "launch", "performance", "price", "announced", "source")
#: The input keys of a generation and whether each names a launch quarter.
_INPUT_ROLES = {"launch": True, "performance": False, "price": False}


@dataclass(frozen=True)
class Generation:
    """One announced chip generation of a vendor group, defined relative to its predecessor.

    Parameters
    ----------
    vendor : str
        Vendor group (``data/vendor_groups.csv``), e.g. ``amd``.
    name : str
        The generation's label (a chip column of the cost paths).
    after : str
        Its predecessor: a catalogue chip or an earlier generation of the same vendor.
    launch, performance, price : str
        Inputs: launch quarter; dense FLOPS per chip as a multiple of the predecessor's;
        price per chip as a multiple of the predecessor's.
    announced : datetime.date
        Date of the announcement the entry relies on.
    source : str
        The announcement (who said what, where).
    """

    vendor: str
    name: str
    after: str
    launch: str
    performance: str
    price: str
    announced: dt.date
    source: str

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (the date as ISO text)."""
        return {"vendor": self.vendor, "name": self.name, "after": self.after,
                "launch": self.launch, "performance": self.performance, "price": self.price,
                "announced": self.announced.isoformat(), "source": self.source}


def parse_roadmap(value: Any, roadmap_where: Where) -> dict[tuple[str, str], tuple[Generation,
                                                                                    Where]]:
    """The ``[roadmap.<vendor>.<name>]`` tables of one file, keyed by (vendor, name).

    Raises
    ------
    ScenarioError
        On a vendor that is not a name, an unknown or missing key, a value of the wrong type.
    """
    out: dict[tuple[str, str], tuple[Generation, Where]] = {}
    for vendor, generations in expect_table(value, roadmap_where).items():
        vendor_where = roadmap_where.child(vendor)
        expect_name(vendor, vendor_where, IDENTIFIER_PATTERN, "vendor group")
        for name, table in expect_table(generations, vendor_where).items():
            where = vendor_where.child(name)
            if not name.strip():
                raise where.error("generation name must not be empty")
            entry = expect_table(table, where)
            check_keys(entry, _GENERATION_KEYS, _GENERATION_KEYS, where)
            announced = entry["announced"]
            # TOML local dates arrive as datetime.date; a datetime or a string is refused.
            if isinstance(announced, dt.datetime) or not isinstance(announced, dt.date):
                raise where.child("announced").error(
                    f"must be a date (e.g. 2025-03-18, unquoted), got {fmt(announced)}")
            inputs = {key: expect_name(entry[key], where.child(key), IDENTIFIER_PATTERN,
                                       "input") for key in _INPUT_ROLES}
            generation = Generation(
                vendor=vendor, name=name,
                after=expect_str(entry["after"], where.child("after")).strip(),
                announced=announced, source=expect_str(entry["source"], where.child("source")),
                **inputs)
            out[vendor, name] = (generation, where)
    return out


def parse_price_erosion(value: Any, erosion_where: Where) -> dict[str, tuple[str, Where]]:
    """The ``[price_erosion]`` table: vendor group -> input name (checked after merging)."""
    out: dict[str, tuple[str, Where]] = {}
    for vendor, target in expect_table(value, erosion_where).items():
        where = erosion_where.child(vendor)
        expect_name(vendor, where, IDENTIFIER_PATTERN, "vendor group")
        out[vendor] = (expect_name(target, where, IDENTIFIER_PATTERN, "input"), where)
    return out


def check_roadmap(roadmap: dict[tuple[str, str], tuple[Generation, Where]],
                  inputs: dict[str, InputSpec]) -> None:
    """Every generation's inputs exist and are of their kind; predecessors do not loop.

    Raises
    ------
    ScenarioError
        At the generation's key naming the problem.
    """
    for (vendor, name), (generation, where) in roadmap.items():
        for key, is_quarter in _INPUT_ROLES.items():
            target = getattr(generation, key)
            if target not in inputs:
                raise where.child(key).error(f"unknown input {target!r}")
            if inputs[target].is_quarter != is_quarter:
                kind = "a launch quarter" if is_quarter else "a number (a multiple)"
                raise where.child(key).error(f"input {target!r} must be {kind}")
        if generation.after == name:
            raise where.child("after").error("a generation cannot follow itself")
        # Follow the chain of predecessors inside the roadmap: it must leave it (reach a
        # catalogue chip) rather than come back to this generation.
        seen, current = {name}, generation.after
        while (vendor, current) in roadmap:
            if current in seen:
                raise where.child("after").error(
                    f"predecessors loop back to {current!r}")
            seen.add(current)
            current = roadmap[vendor, current][0].after


def check_price_erosion(erosion: dict[str, tuple[str, Where]],
                        inputs: dict[str, InputSpec]) -> None:
    """Every vendor's erosion input exists and is a number (a fraction a year)."""
    for vendor, (target, where) in erosion.items():
        if target not in inputs:
            raise where.error(f"unknown input {target!r} for vendor {vendor!r}")
        if inputs[target].is_quarter:
            raise where.error(f"input {target!r} is a launch quarter, not a yearly fall")


def order_roadmap(roadmap: dict[tuple[str, str], tuple[Generation, Where]]
                  ) -> tuple[Generation, ...]:
    """The generations with every predecessor before its successors (file order otherwise).

    Call after :func:`check_roadmap` (no loops).
    """
    placed: dict[tuple[str, str], Generation] = {}
    pending = [generation for generation, _ in roadmap.values()]
    while pending:
        rest = []
        for generation in pending:
            parent = (generation.vendor, generation.after)
            if parent in roadmap and parent not in placed:
                rest.append(generation)
            else:
                placed[generation.vendor, generation.name] = generation
        pending = rest
    return tuple(placed.values())
