"""What a forecast reads from a scenario, and what a scenario may ask of a forecast.

A scenario file is validated by :mod:`forecast.scenarios`, which may import only this core
layer; the names it is validated against are used by the layers above it (the forecast's
outputs in :mod:`forecast.pipeline.simulate`, the inputs read there and in
:mod:`forecast.economics.cost_paths`, the priors of each model's ``DEFAULT_PRIORS``, the
readings of statements the spend model uses and the settings the cost paths read). They are
listed here once, so that ``scenarios validate`` rejects every file ``forecast`` would reject
for them. ``tests/scenarios/test_contract.py`` holds each list equal to the code that uses it:
a model gaining a prior, or the forecast a new input or output, fails that test until the list
here follows.
"""

from __future__ import annotations

from typing import Final

from forecast.core.input_support import (
    AT_LEAST_ONE,
    FRACTION,
    NON_NEGATIVE,
    POSITIVE,
    QUARTER,
    RATE,
    Support,
)

__all__ = [
    "DATA_VENDOR_GROUPS",
    "FORECAST_METRICS",
    "FRACTION_METRICS",
    "FRONTIER_PREFIX",
    "INPUT_SUPPORT",
    "IN_SAMPLE_METRICS",
    "METRIC_DIMS",
    "MODEL_INPUTS",
    "MODEL_PRIORS",
    "NUMBER_READING",
    "PRICED_CHIPS",
    "PRIOR_DISTRIBUTIONS",
    "QUARTER_INPUTS",
    "RATIO_METRICS",
    "READING_UNIT",
    "REQUIRED_INPUTS",
    "REQUIRED_READINGS",
    "ROLE_SUPPORT",
    "SETTINGS",
    "THESIS_METRICS",
    "VENDOR_GROUPS",
    "VENDOR_METRICS",
]

#: The vendor groups every model covers (DESIGN section 4), in the models' order: the vendor
#: axis of the spend model and of every forecast path. ``data/vendor_groups.csv`` may name
#: no other group, and a thesis or roadmap no other vendor.
VENDOR_GROUPS: Final = ("nvidia", "amd", "google", "aws", "other")
#: The vendor groups ``data/vendor_groups.csv`` may name: the models' and ``other_custom``,
#: the custom chips of ``other`` (Meta's, Microsoft's), a group of its own in the data and in
#: the price model and part of ``other`` in every forecast path.
DATA_VENDOR_GROUPS: Final = (*VENDOR_GROUPS, "other_custom")

#: The sample paths a forecast holds (the variables :func:`forecast.pipeline.simulate.simulate`
#: returns).
FORECAST_METRICS: Final = (
    "tam",
    "tam_demand",
    "share",
    "spend",
    "custom_silicon_spend",
    "vendor_cost",
    "price",
    "cost_per_pflop_hour",
    "owner_cost_per_pflop_hour",
    "aws_spend_at_cost",
    "aws_shipments",
    "aws_fleet",
    "aws_rental_revenue",
    "aws_merchant_value",
    "aws_merchant_price",
    "aws_custom_chips_run_rate",
    "bound_funding",
    "bound_power",
    "bound_supply",
)
#: Metrics a thesis evaluator derives from the paths, ``numerator`` / ``denominator``: the
#: ratio of two priced chips' cost per effective PFLOP-hour at hyperscaler list prices
#: (``cost_per_pflop_hour_ratio``), and the same ratio on the owner-TCO basis of the cost
#: paths (``owner_cost_ratio``), whose sides may also be a vendor group's best offer
#: (:data:`FRONTIER_PREFIX`).
RATIO_METRICS: Final = ("cost_per_pflop_hour_ratio", "owner_cost_ratio")
#: ``frontier:<vendor group>`` as a side of ``owner_cost_ratio``: that group's best offer of
#: the quarter (its ``vendor_cost`` path: the cheapest chip per effective PFLOP-hour, a chip
#: still ramping blended with the one it replaces), e.g. ``frontier:nvidia``.
FRONTIER_PREFIX: Final = "frontier:"
#: Metrics whose paths also hold the fitted posterior of the in-sample quarters (the market
#: model's, draw by draw the same posterior draws as the forecast), so that a thesis may read
#: a period the data have reached, such as calendar 2025 when the data end in 2025Q3.
IN_SAMPLE_METRICS: Final = ("tam", "share", "spend", "custom_silicon_spend")
#: The dimensions of each forecast metric's paths besides ``draw`` and ``quarter``: a thesis
#: selects a ``vendor`` and sums AWS chips over their ``generation``, but has no way to pick a
#: ``chip`` or a ``cost_vendor`` (the ratio metrics compare chips and best offers instead).
METRIC_DIMS: Final[dict[str, tuple[str, ...]]] = {
    "tam": (), "tam_demand": (), "share": ("vendor",), "spend": ("vendor",),
    "custom_silicon_spend": (),
    "vendor_cost": ("cost_vendor",), "price": ("chip",), "cost_per_pflop_hour": ("chip",),
    "owner_cost_per_pflop_hour": ("chip",), "aws_spend_at_cost": (),
    "aws_shipments": ("generation",), "aws_fleet": ("generation",), "aws_rental_revenue": (),
    "aws_merchant_value": (), "aws_merchant_price": (), "aws_custom_chips_run_rate": (),
    "bound_funding": (), "bound_power": (), "bound_supply": (),
}
#: Every metric a thesis may name: the forecast's, but those with one path per chip or per
#: best offer, and the ratios.
THESIS_METRICS: Final = tuple(
    metric for metric in FORECAST_METRICS
    if not {"chip", "cost_vendor"} & set(METRIC_DIMS[metric])) + RATIO_METRICS
#: Metrics with one path per vendor group: a thesis on one of them names its ``vendor``, and
#: only a thesis on one of them may.
VENDOR_METRICS: Final = tuple(m for m in FORECAST_METRICS if "vendor" in METRIC_DIMS[m])
#: Metrics that are fractions of a whole, in [0, 1] (a change of one in [-1, 1]); every other
#: metric is a non-negative amount (money, chips, a cost or a ratio of costs).
FRACTION_METRICS: Final = ("share",)
#: Chips whose price paths the forecast carries (the chips a ratio thesis can compare).
PRICED_CHIPS: Final = ("H100 SXM5 80GB", "B200", "Trainium2", "Trainium3")

#: The ``[priors.<model>]`` parameters each model accepts: the keys of its ``DEFAULT_PRIORS``.
MODEL_PRIORS: Final[dict[str, tuple[str, ...]]] = {
    "price": ("decay_mu", "decay_tau", "launch_price", "type_offset", "list_premium",
              "list_drift", "cycle_rho", "cycle_sigma", "noise_list", "noise_market",
              "class_effect", "provider_sd", "premium_sd", "series_sd", "vintage",
              "commitment_sd", "list_drift_sd", "list_move_hazard", "list_move_size",
              "list_move_sd"),
    "spend": ("growth_longrun", "growth_persistence", "growth_init", "sigma_level",
              "sigma_growth", "position_start_amd", "position_start_custom",
              "price_coefficient",
              "adjustment_speed", "deviation_persistence", "ecosystem",
              "ecosystem_erosion", "deviation_sd", "ramp_lift", "ramp_lift_ahead",
              "sigma_broadcom", "nvidia_compute_fraction",
              "sigma_networking", "broadcom_custom_fraction",
              "google_fraction_of_custom", "rest_custom_fraction",
              "amd_cpu_fraction_start", "amd_cpu_growth", "sigma_amd",
              "guide_beat_nvidia", "guide_sigma_nvidia", "guide_beat_broadcom",
              "guide_sigma_broadcom", "unit_cost_trainium1", "unit_cost_trainium2",
              "unit_cost_trainium3", "useful_life", "effective_price",
              "price_elasticity", "price_decline", "billed_utilisation",
              "merchant_price", "merchant_price_decline"),
    "diffusion": ("p", "q", "m_ratio", "sigma", "beta"),
}
#: Distributions the models' prior builder turns into PyMC variables
#: (:mod:`forecast.models.priors`).
PRIOR_DISTRIBUTIONS: Final = ("normal", "lognormal", "halfnormal", "truncnormal", "beta",
                              "uniform", "gamma", "exponential", "studentt", "zerosumnormal")

#: Launch quarters of the chips beyond the catalogue (``FUTURE_CHIPS`` of the cost paths):
#: ``quarter`` distributions.
QUARTER_INPUTS: Final = ("trainium4_launch_quarter", "nvidia_next_launch_quarter")
#: Every input a forecast reads from a scenario's draws: utilisation per vendor group, the
#: owner-TCO inputs, the future chips, NVIDIA's price response (the cost paths), the
#: Graviton run rate and the rental-revenue ceiling of AWS's fleet forecast (simulate), and
#: the funding, power and supply bounds (M6, :mod:`forecast.economics.bounds`).
REQUIRED_INPUTS: Final = (
    "mfu_nvidia",
    "mfu_amd",
    "mfu_google",
    "mfu_aws",
    "chip_life_years",
    "owner_utilisation",
    "pue",
    "electricity_usd_per_kwh",
    "overhead_fraction",
    "trainium4_launch_quarter",
    "trainium4_fp8_multiplier",
    "trainium4_price_ratio",
    "nvidia_next_launch_quarter",
    "nvidia_next_fp8_multiplier",
    "nvidia_next_price_ratio",
    "nvidia_price_response",
    "graviton_run_rate_usd_billions",
    "graviton_growth_per_year",
    "aws_rental_revenue_ceiling_usd_billions",
    "trainium1_unit_cost_usd",
    "trainium2_unit_cost_usd",
    "trainium3_unit_cost_usd",
    "big_five_cash_flow_usd_billions",
    "cash_flow_growth_per_year",
    "debt_share_of_cash_flow",
    "big_five_share_of_demand",
    "ai_share_of_funding",
    "accelerator_share_of_capex",
    "ai_gw_added_per_year",
    "ai_gw_growth_per_year",
    "accelerator_usd_billions_per_gw",
    "cowos_wafers_per_month",
    "cowos_growth_per_year",
    "accelerators_per_wafer",
    "accelerator_asp_usd",
    "mfu_other",
)
#: Inputs a model reads when the scenario has them besides :data:`REQUIRED_INPUTS` (none
#: now: the spend model's unit-cost priors come from required inputs).
MODEL_INPUTS: Final[tuple[str, ...]] = ()
#: The support of every input of :data:`REQUIRED_INPUTS` and :data:`MODEL_INPUTS`, as the
#: code that reads it needs it (:mod:`forecast.core.input_support`): utilisations and shares
#: are fractions, NVIDIA's price response is its price erosion, the Graviton growth and the
#: bounds' growth are rates a year that may be negative.
INPUT_SUPPORT: Final[dict[str, Support]] = {
    **{f"mfu_{group}": FRACTION for group in VENDOR_GROUPS},
    "chip_life_years": POSITIVE,
    "owner_utilisation": FRACTION,
    "pue": AT_LEAST_ONE,
    "electricity_usd_per_kwh": NON_NEGATIVE,
    "overhead_fraction": NON_NEGATIVE,
    "trainium4_launch_quarter": QUARTER,
    "trainium4_fp8_multiplier": POSITIVE,
    "trainium4_price_ratio": POSITIVE,
    "nvidia_next_launch_quarter": QUARTER,
    "nvidia_next_fp8_multiplier": POSITIVE,
    "nvidia_next_price_ratio": POSITIVE,
    "nvidia_price_response": RATE,
    "graviton_run_rate_usd_billions": NON_NEGATIVE,
    "graviton_growth_per_year": RATE,
    "aws_rental_revenue_ceiling_usd_billions": POSITIVE,
    **{f"trainium{n}_unit_cost_usd": POSITIVE for n in (1, 2, 3)},
    "big_five_cash_flow_usd_billions": POSITIVE,
    "cash_flow_growth_per_year": RATE,
    "debt_share_of_cash_flow": NON_NEGATIVE,
    "big_five_share_of_demand": FRACTION,
    "ai_share_of_funding": FRACTION,
    "accelerator_share_of_capex": FRACTION,
    "ai_gw_added_per_year": POSITIVE,
    "ai_gw_growth_per_year": RATE,
    "accelerator_usd_billions_per_gw": POSITIVE,
    "cowos_wafers_per_month": POSITIVE,
    "cowos_growth_per_year": RATE,
    "accelerators_per_wafer": POSITIVE,
    "accelerator_asp_usd": POSITIVE,
}
#: The support of an input by the part a scenario table gives it: a ``[roadmap]``
#: generation's launch quarter, performance and price multiples, a ``[chip_prices]`` price
#: per chip-hour, a ``[price_erosion]`` extra log fall a year beyond M2's (either sign).
ROLE_SUPPORT: Final[dict[str, Support]] = {
    "launch": QUARTER, "performance": POSITIVE, "price": POSITIVE, "chip_price": POSITIVE,
    "price_erosion": RATE,
}

#: ``[readings.<key>]``: how the spend model reads Amazon's run-rate statements
#: (``data/aws_statements.csv``). The reading of a stated number has this key and gives
#: its bounds as factors of the number (``lower_factor``, ``upper_factor``); every other key
#: is a phrase the data use instead of a number, read as ``lower``-``upper`` in
#: :data:`READING_UNIT`.
NUMBER_READING: Final = "stated_number"
#: The unit of a phrase's reading: a run rate, USD billions a year.
READING_UNIT: Final = "USD billions per year"
#: The readings a forecast needs: a stated number's, and each phrase the run-rate statements
#: of the shipped data use (the spend model skips a statement it has no reading for).
REQUIRED_READINGS: Final = ("several billion", NUMBER_READING)

#: ``[settings.<name>]``: values a forecast reads from the scenario without sampling them
#: (a new sampled input would change every other input's draws), each with its unit: the
#: quarters a new chip takes to ramp to full supply in the cost paths
#: (:func:`forecast.economics.offers.best_offer`).
SETTINGS: Final[dict[str, str]] = {"new_chip_ramp_quarters": "quarters"}
