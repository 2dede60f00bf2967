"""Owner's total cost of ownership per utilised chip-hour, comparable with a rental price.

No number about the world (electricity tariffs, PUE, lives...) lives here: they arrive as
arguments, from a scenario. The only constants are unit conversions.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from forecast.economics.checks import (
    FloatOrArray,
    as_float,
    broadcast_check,
    check_fraction,
    check_non_negative,
    check_positive,
    require,
)

__all__ = ["owner_tco_per_chip_hour"]

# Unit conversions only.
_WATTS_PER_KW: Final = 1000.0
_HOURS_PER_YEAR: Final = 8760.0  # 365 x 24; leap days are ignored


def owner_tco_per_chip_hour(
    capex_usd: npt.ArrayLike,
    life_years: npt.ArrayLike,
    owner_utilisation: npt.ArrayLike,
    tdp_w: npt.ArrayLike,
    pue: npt.ArrayLike,
    usd_per_kwh: npt.ArrayLike,
    overhead_fraction: npt.ArrayLike,
) -> FloatOrArray:
    """Owner's total cost of ownership per *utilised* chip-hour.

    .. math::

        \\mathrm{TCO} = \\Big(\\frac{\\mathrm{capex}}{\\mathrm{life} \\times 8760 \\times u}
        + \\frac{\\mathrm{TDP}}{1000} \\times \\mathrm{PUE} \\times \\mathrm{USD/kWh}\\Big)
        \\times (1 + \\mathrm{overhead})

    Conventions (so the result is comparable with a rental price per chip-hour):

    - The hour is a *utilised* (billed or busy) hour: capex is spread over
      ``life x 8760 x u`` such hours, so low utilisation makes each used hour dearer.
    - Power is charged for each utilised hour at full TDP (times PUE for cooling and
      distribution losses). Idle hours draw no power in this formula: idle power is ignored,
      which slightly understates TCO at low utilisation.
    - ``overhead_fraction`` scales both terms and stands for networking, facility, staff and
      other costs not in ``capex_usd`` or PUE.

    Parameters
    ----------
    capex_usd : array_like
        Purchase cost per chip (USD), including whatever share of server hardware the caller
        chooses to put in capex rather than in overhead. >= 0.
    life_years : array_like
        Depreciation life in years, > 0.
    owner_utilisation : array_like
        Share of the chip's hours that are used, in (0, 1]. (Not MFU.)
    tdp_w : array_like
        Board power in watts, >= 0.
    pue : array_like
        Power usage effectiveness, >= 1 (by definition).
    usd_per_kwh : array_like
        Electricity price in USD per kWh, >= 0.
    overhead_fraction : array_like
        Multiplicative overhead, >= 0 (0.2 means +20%).

    Returns
    -------
    numpy.ndarray or numpy.float64
        USD per utilised chip-hour, broadcast over all inputs.

    Raises
    ------
    EconomicsInputError
        On out-of-range (non-NaN) inputs or shapes that do not broadcast.
    """
    capex, life, util, tdp, pue_a, tariff, overhead = _checked_inputs(
        capex_usd, life_years, owner_utilisation, tdp_w, pue, usd_per_kwh, overhead_fraction
    )
    capex_per_used_hour = capex / (life * _HOURS_PER_YEAR * util)
    power_per_used_hour = tdp / _WATTS_PER_KW * pue_a * tariff
    return (capex_per_used_hour + power_per_used_hour) * (1.0 + overhead)


def _checked_inputs(
    capex_usd: npt.ArrayLike,
    life_years: npt.ArrayLike,
    owner_utilisation: npt.ArrayLike,
    tdp_w: npt.ArrayLike,
    pue: npt.ArrayLike,
    usd_per_kwh: npt.ArrayLike,
    overhead_fraction: npt.ArrayLike,
) -> tuple[npt.NDArray[np.float64], ...]:
    """The seven TCO inputs as float arrays, each checked against its range."""
    capex = as_float("capex_usd", capex_usd)
    life = as_float("life_years", life_years)
    util = as_float("owner_utilisation", owner_utilisation)
    tdp = as_float("tdp_w", tdp_w)
    pue_a = as_float("pue", pue)
    tariff = as_float("usd_per_kwh", usd_per_kwh)
    overhead = as_float("overhead_fraction", overhead_fraction)
    check_non_negative("capex_usd", capex)
    check_positive("life_years", life)
    check_fraction("owner_utilisation", util)
    check_non_negative("tdp_w", tdp)
    require("pue", pue_a, np.isfinite(pue_a) & (pue_a >= 1), "finite and >= 1")
    check_non_negative("usd_per_kwh", tariff)
    check_non_negative("overhead_fraction", overhead)
    broadcast_check(
        capex_usd=capex,
        life_years=life,
        owner_utilisation=util,
        tdp_w=tdp,
        pue=pue_a,
        usd_per_kwh=tariff,
        overhead_fraction=overhead,
    )
    return capex, life, util, tdp, pue_a, tariff, overhead
