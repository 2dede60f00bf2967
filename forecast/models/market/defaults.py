"""Default priors of the market model, each with its rationale (see
:mod:`forecast.models.market`). A scenario's ``[priors.market]`` table overrides any of them;
the ceiling comes from its ``tam_ceiling_usd_billions`` input."""

from __future__ import annotations

from typing import Any

#: Default priors. Each carries its rationale; override any of them from a scenario's
#: ``[priors.market]`` table (the ceiling comes from its ``tam_ceiling_usd_billions`` input).
DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "ceiling": {
        "dist": "lognormal", "median": 600.0, "sigma": 0.6,
        "unit": "USD billions per year",
        "rationale": "Annual accelerator spend ceiling K*4. Vendors' own TAM statements in "
                     "market_estimates.csv run $150-500B for 2027-28 (AMD); the 90% prior "
                     "range, about $220-1600B, spans them and a 3x higher outcome. The "
                     "scenario's tam_ceiling_usd_billions replaces it.",
    },
    "growth_longrun": {
        "dist": "normal", "mu": 0.045, "sigma": 0.015, "unit": "log USD / quarter",
        "rationale": "g*, the quarterly growth of total spend that today's growth fades "
                     "towards. Published long-run growth for the market runs from about 12% "
                     "a year (Gartner, server accelerators 2024-2028) through 23-29% "
                     "(Market Intelo 2026-2034, Kaiso 2025-2035) to AMD's 60%+ to 2028 "
                     "(market_estimates.csv): 90% prior range 8%-31% a year "
                     "(0.020-0.070 a quarter). The scenario's [priors.market] sets it.",
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
    "share_sigma": {
        "dist": "lognormal", "median": 0.12, "sigma": 0.5, "unit": "log-ratio / quarter",
        "rationale": "Random-walk step of each vendor's log spend relative to NVIDIA; 90% "
                     "range 5-27% a quarter. Lognormal, not half-normal: a share that never "
                     "moves is implausible and the zero region is a funnel for the sampler.",
    },
    "ratio_start_amd": {
        "dist": "normal", "mu": -3.0, "sigma": 1.0,
        "rationale": "log(AMD / NVIDIA accelerator spend) in the first data quarter (2019): "
                     "AMD's MI50/MI100 sold a few percent of NVIDIA's volume.",
    },
    "ratio_start_custom": {
        "dist": "normal", "mu": -2.0, "sigma": 1.0,
        "rationale": "log(custom XPU / NVIDIA spend) in 2019: TPUs were in their third "
                     "generation; a tenth of NVIDIA's DC compute is the centre, wide.",
    },
    "ratio_start_aws": {
        "dist": "normal", "mu": -4.0, "sigma": 1.5,
        "rationale": "log(AWS Trainium/Inferentia / NVIDIA spend) in 2019: Inferentia1 only "
                     "(Trainium1 is 2022); about 2% of NVIDIA, very wide.",
    },
    "ratio_start_rest": {
        "dist": "normal", "mu": -2.5, "sigma": 1.0,
        "rationale": "log(other accelerators / NVIDIA spend) in 2019: Intel (Habana), "
                     "Huawei Ascend, Graphcore and others, about 8% of NVIDIA at the centre, "
                     "90% range 1.6%-42%. Later evidence: Intel missed its $0.5B Gaudi "
                     "target for 2024 (vendor_quarterly_revenue.csv) and Huawei planned "
                     "about 400k Ascend 910B/910C chips for 2025 (press reports); the "
                     "share interval of 2024 enters the likelihood.",
    },
    "rest_custom_fraction": {
        "dist": "beta", "alpha": 3.0, "beta": 3.0,
        "rationale": "Custom (cloud-designed) share of the rest group: Microsoft Maia and "
                     "Marvell-built custom chips against merchant Intel Gaudi and Huawei "
                     "Ascend. No row splits them: prior-only, mean 0.5, sd 0.19.",
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
    "nvidia_compute_fraction": {
        "dist": "beta", "alpha": 8.0, "beta": 2.0,
        "rationale": "Compute share of NVIDIA's Data Center segment (the rest is networking). "
                     "The networking rows on file put it at 0.78-0.92; they enter the "
                     "likelihood, so the prior (mean 0.8, sd 0.12) is kept wider than them.",
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
    "aws_chip_value": {
        "dist": "lognormal", "median": 10000.0, "sigma": 0.7, "unit": "USD per Trainium2",
        "rationale": "Spend per Trainium2 chip (chip, HBM, board at cost; no merchant "
                     "margin): about a third of an H100's selling price; 90% range "
                     "$3k-32k. Epoch's Trainium2 shipments give AWS spend through it.",
    },
    "sigma_networking": {
        "dist": "halfnormal", "sigma": 0.3,
        "rationale": "Networking's share of NVIDIA's segment swings (8-22% on file): the "
                     "networking and compute rows scatter around the constant fraction.",
    },
    "sigma_amd": {
        "dist": "lognormal", "median": 0.05, "sigma": 0.5,
        "rationale": "AMD's DC segment around accelerator + CPU curve (log scale); 90% "
                     "range 2-11%. Bounded away from 0 (an exact proxy is implausible).",
    },
}
