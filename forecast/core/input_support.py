"""What values a scenario input may take: the support its readers need and a sanity range.

A scenario input is read in a role (a utilisation, a price, a multiple of a predecessor, a
yearly price fall, a launch quarter...), and the code that reads it needs its values in a
set: a utilisation in (0, 1], a yearly fall in [0, 1), a price positive and finite. That set
is the input's :class:`Support`. Validation checks the *distribution*, not draws, so that a
scenario that validates never draws a value its readers refuse:

1. **Support.** Every value the distribution can take (from its 0 to its 100% quantile)
   lies in the support. An open bound may be the edge of a continuous distribution (a
   lognormal or a beta reaching 0, a uniform from 0), which never draws it; never of a
   constant at it.
2. **Sanity range of the spread.** A distribution whose parameters are valid can still make
   draws no reader can use: a lognormal sigma of 1e300 draws 0 and infinity, a beta with
   ``alpha = 0.01`` piles its draws at 1e-300. So the values sampling reaches in practice,
   its quantiles at :data:`TAIL` and ``1 - TAIL`` (with 10 million draws, the most a scenario
   may ask for, about one in a hundred runs draws beyond them), must lie strictly inside the
   support and within the support's sane range (:attr:`Support.sane_low`,
   :attr:`Support.sane_high`): no unit the forecast reads (USD billions, USD per chip-hour,
   multiples of a predecessor, years, fractions) has a plausible value beyond
   :data:`HUGE`, and no rate a year beyond :data:`MAX_RATE`, which keeps every product and
   exponential of the paths finite to 2100. For a positive quantity the spread is also
   bounded as a ratio: its 99.9% quantile at most :data:`MAX_SPREAD_RATIO` times its 0.1%
   quantile (a lognormal sigma up to 1.49, an 80% range up to a factor of 45; the shipped
   scenarios' widest, the Trainium unit costs, span a factor of about 41).

Launch quarters are checked against the data (no launch before the data start), in
:mod:`forecast.economics.scenario_checks`; here they are only of their kind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

__all__ = [
    "AT_LEAST_ONE",
    "FRACTION",
    "HUGE",
    "MAX_RATE",
    "MAX_SPREAD_RATIO",
    "NON_NEGATIVE",
    "POSITIVE",
    "QUARTER",
    "RATE",
    "SPREAD_QUANTILES",
    "TAIL",
    "TINY",
    "Support",
]

#: The quantile whose value (and ``1 - TAIL``'s) sampling reaches in practice.
TAIL: Final = 1e-9
#: The largest magnitude, in its unit, of any value an input draws in practice.
HUGE: Final = 1e9
#: The smallest positive value an input of a positive quantity draws in practice (a
#: utilisation drawn uniformly from 0 to 0.5 reaches 5e-10 at :data:`TAIL`, and is accepted).
TINY: Final = 1e-12
#: The largest change a year a rate input may draw in practice (a log change of 5 is a factor
#: of 148 a year; exp(5 x 75 years) is still finite).
MAX_RATE: Final = 5.0
#: Quantiles whose ratio measures the spread of a positive quantity.
SPREAD_QUANTILES: Final = (0.001, 0.999)
#: The largest ratio of a positive quantity's 99.9% quantile to its 0.1% quantile.
MAX_SPREAD_RATIO: Final = 1e4


@dataclass(frozen=True)
class Support:
    """The values an input may take in one role, and the sane range of its draws.

    Parameters
    ----------
    name : str
        What the values are, for messages: "a fraction in (0, 1]".
    low, high : float
        Bounds of the support.
    low_open, high_open : bool
        Whether a bound is excluded (a utilisation of 0 is refused, of 1 accepted).
    sane_low, sane_high : float
        The range the values sampling reaches in practice must lie in (see the module doc).
    ratio : bool
        A positive quantity, whose spread is bounded as a ratio (:data:`MAX_SPREAD_RATIO`).
    """

    name: str
    low: float
    high: float
    low_open: bool
    high_open: bool
    sane_low: float
    sane_high: float
    ratio: bool = False

    def contains(self, value: float) -> bool:
        """Whether ``value`` is a value of the support (finite, inside its bounds)."""
        if not math.isfinite(value):
            return False
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def covers(self, lowest: float, highest: float, constant: bool) -> bool:
        """Whether every value of a distribution from ``lowest`` to ``highest`` (its 0 and
        100% quantiles) is one the support allows: an open bound only as the edge of a
        continuous distribution (``constant`` False)."""
        if math.isnan(lowest) or math.isnan(highest):
            return False
        if lowest < self.low or highest > self.high:
            return False
        at_edge = (self.low_open and lowest == self.low) or (self.high_open
                                                            and highest == self.high)
        return not (constant and at_edge)


#: A share of something whole (utilisation, the hours a chip is used, a cap on a share).
FRACTION: Final = Support("a fraction in (0, 1]", 0.0, 1.0, True, False, TINY, 1.0, ratio=True)
#: An amount that may be zero (a power price, an overhead, a run rate).
NON_NEGATIVE: Final = Support("a non-negative amount", 0.0, math.inf, False, True, 0.0, HUGE)
#: An amount that must be positive (a price, a life in years, a multiple of a predecessor).
POSITIVE: Final = Support("a positive amount", 0.0, math.inf, True, True, TINY, HUGE,
                          ratio=True)
#: A ratio that is at least one by definition (power usage effectiveness).
AT_LEAST_ONE: Final = Support("a ratio of at least 1", 1.0, math.inf, False, True, 1.0, HUGE,
                              ratio=True)
#: A change a year that may have either sign (a log growth rate, a drift of utility).
RATE: Final = Support(f"a change a year within +-{MAX_RATE:g}", -math.inf, math.inf, True,
                      True, -MAX_RATE, MAX_RATE)
#: A launch quarter: its values are quarter indices, checked against the data's start.
QUARTER: Final = Support("a launch quarter", -math.inf, math.inf, True, True, -math.inf,
                         math.inf)
