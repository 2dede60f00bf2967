"""Default priors of the vendor-spend model, each with its rationale (see
:mod:`forecast.models.spend` and docs/models/spend.md). A scenario's ``[priors.spend]`` table
overrides any of them."""

from __future__ import annotations

from typing import Any

#: Default priors. Each carries its rationale; override any of them from a scenario's
#: ``[priors.spend]`` table.
DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "growth_longrun": {
        "dist": "normal", "mu": 0.045, "sigma": 0.015, "unit": "log USD / quarter",
        "rationale": "g*, the quarterly growth of total spend that today's growth fades "
                     "towards. Published long-run growth for the market runs from about 12% "
                     "a year (Gartner, server accelerators 2024-2028) through 23-29% "
                     "(Market Intelo 2026-2034, Kaiso 2025-2035) to AMD's 60%+ to 2028 "
                     "(market_estimates.csv): 90% prior range 8%-31% a year "
                     "(0.020-0.070 a quarter). The scenario's [priors.spend] sets it.",
    },
    "growth_persistence": {
        "dist": "beta", "alpha": 18.0, "beta": 2.0,
        "rationale": "phi: the share of this quarter's growth gap to g* that is left next "
                     "quarter. Capex programmes run for several quarters, so growth "
                     "persists: mean 0.90 (the gap halves in about 6.6 quarters), 90% range "
                     "0.78-0.99.",
    },
    "growth_init": {
        "dist": "normal", "mu": 0.05, "sigma": 0.1, "unit": "log USD / quarter",
        "rationale": "Growth of total spend in the first data quarter (2019): wide, the "
                     "filter learns it from the next quarters.",
    },
    "sigma_level": {
        "dist": "lognormal", "median": 0.04, "sigma": 0.6, "unit": "log USD / quarter",
        "rationale": "One-off shocks to the level of total spend (a quarter's shipment "
                     "timing): 90% range 1.5%-11%. Lognormal keeps the sampler off zero.",
    },
    "sigma_growth": {
        "dist": "lognormal", "median": 0.04, "sigma": 0.6, "unit": "log USD / quarter",
        "rationale": "Shocks to the growth state: how fast momentum can change (2023Q2's "
                     "step into generative AI is a 3-4 sd event at the median); 90% range "
                     "1.5%-11% a quarter.",
    },
    "position_start_amd": {
        "dist": "normal", "mu": -3.0, "sigma": 0.7,
        "rationale": "log(AMD / NVIDIA accelerator spend) in 2022Q4, the quarter before the "
                     "rivals' positions start: AMD's MI250 sold a few hundred million dollars a "
                     "quarter against NVIDIA's Data Center compute of about USD 3 bn "
                     "(data/vendor_quarterly_revenue.csv): -3 (5%), 90% range 1.6%-16%.",
    },
    "position_start_custom": {
        "dist": "normal", "mu": -1.5, "sigma": 0.7,
        "rationale": "log(Broadcom-built XPUs / NVIDIA spend) in 2022Q4: Broadcom's AI revenue "
                     "ran near USD 1 bn a quarter in early 2023 "
                     "(data/vendor_quarterly_revenue.csv), most of it TPUs, against NVIDIA's USD "
                     "3-4 bn of compute: -1.5 (22%), 90% range 7%-70%.",
    },
    "price_coefficient": {
        "dist": "lognormal", "median": 1.0, "sigma": 0.6,
        "rationale": "b: how strongly a lower cost per effective PFLOP-hour than NVIDIA's "
                     "raises a vendor's target log-ratio to NVIDIA; b = 1 makes target spend "
                     "proportional to compute per dollar. 80% range 0.46-2.2. The scenario's "
                     "[priors.share] sets it.",
    },
    "adjustment_speed": {
        "dist": "beta", "alpha": 6.0, "beta": 9.0,
        "rationale": "lambda: the share of the gap to the cost-driven target closed in a "
                     "quarter; mean 0.4, 90% range 0.21-0.61: half the gap closes in one to "
                     "three quarters (contracts, software ports and supply slow switching). "
                     "Four rivals share it, two of them reported by no series: the data "
                     "barely move it (a Beta(2, 3) came back almost unchanged), and a wider "
                     "prior left the sampler a ridge with the unreported rivals' deviations.",
    },
    "deviation_persistence": {
        "dist": "beta", "alpha": 4.0, "beta": 3.0,
        "rationale": "rho: how much of a quarter's deviation from the partial-adjustment path "
                     "carries into the next; a ramp (Trainium2 in 2024-25) persists for a few "
                     "quarters. Mean 0.57, 90% range 0.27-0.84: kept off 1, where the "
                     "deviation becomes a random walk and the ecosystem terms lose their "
                     "meaning.",
    },
    "ecosystem": {
        "dist": "normal", "mu": -2.5, "sigma": 1.0, "unit": "log-ratio to NVIDIA",
        "rationale": "a_g: each rival's log spend over NVIDIA's at equal cost per effective "
                     "PFLOP-hour (its ecosystem, lock-in and supply, against CUDA's), one per "
                     "rival. Rivals sold a few percent to a fifth of NVIDIA's dollars in "
                     "2022-2025: -2.5 is 8%, 90% range 1.6%-42%; the reported series place "
                     "each one within it.",
    },
    "ecosystem_erosion": {
        "dist": "normal", "mu": 0.0, "sigma": 0.15, "unit": "log-ratio per year",
        "rationale": "How fast every rival's target gains on NVIDIA at equal costs: the "
                     "erosion of NVIDIA's ecosystem lead (CUDA), estimated from the data. "
                     "Centred on none; 90% range -0.25 to +0.25 a year, i.e. NVIDIA's lead "
                     "moving by up to a quarter of a log unit a year either way. Analysts' "
                     "projections of NVIDIA falling to about 67-70% of spend by 2030 "
                     "(Susquehanna 2025, DESIGN) sit inside it without being assumed.",
    },
    "deviation_sd": {
        "dist": "lognormal", "median": 0.1, "sigma": 0.5, "unit": "log-ratio / quarter",
        "rationale": "Sd of each rival's quarterly deviation shock from its partial-adjustment "
                     "path (shipment timing, a customer's order landing in one quarter); one "
                     "per rival. 90% range 4-23% a quarter. Ramps are separate terms.",
    },
    "ramp_lift": {
        "dist": "normal", "mu": 0.5, "sigma": 1.0, "unit": "log-ratio",
        "rationale": "h_n of a generation that ramps inside the data: how much its vendor's "
                     "position rises for good once it is installed (MI300X in 2024, TPU v6e, "
                     "Trainium2 in 2025). Wide (90% range -1.1 to +2.1): the data place it. "
                     "AWS's position rose from about -4.4 to -2.8 with Trainium2.",
    },
    "ramp_lift_ahead": {
        "dist": "normal", "mu": 0.25, "sigma": 0.5, "unit": "log-ratio",
        "rationale": "h_n of a generation whose ramp starts after the data (Trainium3, TPU "
                     "v7, MI355X's successor when in the window): prior-only in the fit, read "
                     "in forecasts. A new generation adds to its vendor's position at equal "
                     "costs (capacity built for it, customers' commitments): 0.25 (+28%) at "
                     "the centre, 90% range -0.57 to +1.07. The scenario's [priors.spend] "
                     "sets it.",
    },
    "sigma_broadcom": {
        "dist": "lognormal", "median": 0.05, "sigma": 0.3, "unit": "log USD",
        "rationale": "Scatter of Broadcom's reported AI revenue around the custom group's "
                     "spend over its XPU fraction: AI networking, about a third to 40% of it "
                     "(other_vendor_facts in the shared data), moves from quarter to quarter. "
                     "90% range 3-8%, kept off zero: an exact proxy would pin the custom "
                     "group's deviations to the data and leave the sampler a funnel.",
    },
    "nvidia_compute_fraction": {
        "dist": "beta", "alpha": 8.0, "beta": 2.0,
        "rationale": "Compute share of NVIDIA's Data Center segment (the rest is networking). "
                     "The networking rows on file put it at 0.78-0.92; they enter the "
                     "likelihood, so the prior (mean 0.8, sd 0.12) is kept wider than them.",
    },
    "sigma_networking": {
        "dist": "halfnormal", "sigma": 0.3,
        "rationale": "Networking's share of NVIDIA's segment swings (8-22% on file): the "
                     "networking and compute rows scatter around the constant fraction.",
    },
    "broadcom_custom_fraction": {
        "dist": "beta", "alpha": 6.5, "beta": 3.5,
        "rationale": "Custom-accelerator (XPU) share of Broadcom's AI revenue, the rest being "
                     "AI networking; management commentary puts networking near a third. "
                     "No row splits it: prior-only (mean 0.65, sd 0.14).",
    },
    "google_fraction_of_custom": {
        "dist": "beta", "alpha": 7.0, "beta": 3.0,
        "rationale": "Google TPU share of Broadcom's custom accelerators (Meta MTIA and others "
                     "the rest); Google is the largest XPU customer. Prior-only.",
    },
    "rest_custom_fraction": {
        "dist": "beta", "alpha": 3.0, "beta": 3.0,
        "rationale": "Custom (cloud-designed) share of the rest group: Microsoft Maia and "
                     "Marvell-built custom chips against merchant Intel Gaudi and Huawei "
                     "Ascend. No row splits them: prior-only, mean 0.5, sd 0.19.",
    },
    "amd_cpu_fraction_start": {
        "dist": "beta", "alpha": 9.0, "beta": 1.5,
        "rationale": "CPU (EPYC) share of AMD's Data Center segment in its first data "
                     "quarter (2023Q1): MI300 shipped from December 2023; mean 0.86.",
    },
    "amd_cpu_growth": {
        "dist": "normal", "mu": 0.025, "sigma": 0.025, "unit": "log USD / quarter",
        "rationale": "Growth of AMD's server-CPU revenue, about 10% a year, 90% range "
                     "-7% to +30% a year.",
    },
    "sigma_amd": {
        "dist": "lognormal", "median": 0.05, "sigma": 0.5,
        "rationale": "AMD's DC segment around accelerator + CPU curve (log scale); 90% "
                     "range 2-11%. Bounded away from 0 (an exact proxy is implausible).",
    },
    "guide_beat_nvidia": {
        "dist": "normal", "mu": 0.03, "sigma": 0.05, "unit": "log USD",
        "rationale": "log(actual / guided) of NVIDIA's next-quarter guide read as Data "
                     "Center revenue: companies guide conservatively and beat by a few "
                     "percent; the past guides with their actuals (vendor_guidance.csv) "
                     "enter the likelihood.",
    },
    "guide_sigma_nvidia": {
        "dist": "lognormal", "median": 0.04, "sigma": 0.5, "unit": "log USD",
        "rationale": "Scatter of NVIDIA's beat around its mean: 90% range 1.8%-9%.",
    },
    "guide_beat_broadcom": {
        "dist": "normal", "mu": 0.02, "sigma": 0.04, "unit": "log USD",
        "rationale": "log(actual / guided) of Broadcom's AI revenue guide: a small beat, "
                     "learnt from the past guides with their actuals.",
    },
    "guide_sigma_broadcom": {
        "dist": "lognormal", "median": 0.04, "sigma": 0.5, "unit": "log USD",
        "rationale": "Scatter of Broadcom's beat: 90% range 1.8%-9%.",
    },
    "unit_cost_trainium1": {
        "dist": "lognormal", "median": 5000.0, "sigma": 0.6, "unit": "USD per chip at cost",
        "rationale": "Trainium1/Inferentia2 chip at cost: the scenario's "
                     "trainium1_unit_cost_usd input, which this prior is matched to "
                     "(forecast/economics/chip_costs.py UNIT_COST_INPUTS); this default is "
                     "for a fit without a scenario.",
    },
    "unit_cost_trainium2": {
        "dist": "lognormal", "median": 10000.0, "sigma": 0.5, "unit": "USD per chip at cost",
        "rationale": "Trainium2 chip at cost: the scenario's trainium2_unit_cost_usd input, "
                     "which this prior is matched to; this default is for a fit without a "
                     "scenario. Amazon's statements (Rainier's fleet against the spend) "
                     "inform it.",
    },
    "unit_cost_trainium3": {
        "dist": "lognormal", "median": 15000.0, "sigma": 0.6, "unit": "USD per chip at cost",
        "rationale": "Trainium3 chip at cost: the scenario's trainium3_unit_cost_usd input, "
                     "which this prior is matched to; this default is for a fit without a "
                     "scenario. Prior-only in the fit.",
    },
    "useful_life": {
        "dist": "lognormal", "median": 5.0, "sigma": 0.25, "unit": "years",
        "rationale": "Mean service life of a chip (geometric retirements). Amazon's server "
                     "useful life for depreciation went 4 -> 5 years (2022), 5 -> 6 (2024) and "
                     "back to 5 for part of the fleet (2025, citing the pace of AI); 90% range "
                     "3.3-7.5 years.",
    },
    "effective_price": {
        "dist": "lognormal", "median": 1.0, "sigma": 0.7, "unit": "USD per Trainium2 chip-hour",
        "rationale": "Average billed price of a Trainium2 chip-hour at the data end, far below "
                     "list: no trn2 list price was found; trn1 lists at $1.34 on demand and "
                     "$0.97 as a Capacity Block per chip-hour, an H100 Capacity Block at $4.92; "
                     "Trainium2 has 0.66 of an H100's dense FP8 and is sold at '30-40% better "
                     "price-performance', so a list near $2-3, and the largest users (Project "
                     "Rainier) commit for far less. 90% range $0.32-3.2.",
    },
    "price_elasticity": {
        "dist": "normal", "mu": 0.7, "sigma": 0.2,
        "rationale": "Price per chip-hour scales as dense compute ** elasticity across "
                     "generations: AWS lists an A100 at $4.10 and an H100 at $12.29 per GPU-hour "
                     "for 3.2x the BF16 compute (0.95); market prices $1.2 vs $2.2 (0.5).",
    },
    "price_decline": {
        "dist": "normal", "mu": 0.15, "sigma": 0.1, "unit": "log USD per year",
        "rationale": "Erosion of a chip's effective price per year: hyperscaler lists stay flat "
                     "for years then drop (P5 up to 45% in June 2025); committed prices fall "
                     "as successors ship. 14% a year at the centre, 90% range 0-29%.",
    },
    "billed_utilisation": {
        "dist": "beta", "alpha": 8.0, "beta": 3.0,
        "rationale": "Share of the fleet's chip-hours that are billed: mean 0.73, sd 0.13. "
                     "Amazon's 'fully subscribed' (Q3 2025) enters as an observation.",
    },
    "merchant_price": {
        "dist": "lognormal", "median": 7000.0, "sigma": 0.35,
        "unit": "USD per dense FP8 PFLOP of merchant GPU at the data end",
        "rationale": "accelerator_unit_prices.csv: GB200/GB300 at $30-45k per GPU in 2025 "
                     "(Epoch) for 5 dense FP8 PFLOPS, B200 $30-40k for 4.5: $6-9k per PFLOP; "
                     "an H100 at $20-27k for 1.98 PFLOPS is $10-14k. 90% range $3.9k-12.4k.",
    },
    "merchant_price_decline": {
        "dist": "normal", "mu": 0.25, "sigma": 0.08, "unit": "log USD per year",
        "rationale": "Merchant price per FLOP falls 23-30% a year (DESIGN M2's anchor): "
                     "0.25 in log terms (22% a year), 90% range 12-34%.",
    },
}
