"""M5: AWS custom silicon as one stock-and-flow model with three quantities.

One fleet of AWS accelerators, three quantities, each with its own unit, never mixed:

1. **spend at cost** (USD bn per quarter): what AWS pays to build its accelerators, the
   market model's ``aws`` spend. An *input*: the fit takes it as a frame (quarter,
   log_mean, log_sd) summarising the market posterior of log spend, a forecast takes spend
   paths (draw, quarter).
2. **rental revenue** (USD bn per quarter; the run rate is 4x, USD bn a year): what AWS earns
   renting the fleet by the chip-hour.
3. **merchant-equivalent value** (USD bn per quarter): the quarter's *shipments* valued at what
   the same dense FP8 compute costs as merchant GPUs (NVIDIA's current parts): the revenue a
   merchant chip business would book for AWS's chips, Amazon's "if it were a standalone chip
   business" framing. Its ratio to spend at cost is the margin AWS does not pay.

Structure (quarter t, generation g: Trainium1 with Inferentia2, Trainium2, Trainium3)::

    spend_t        = exp(log_spend_t),  log_spend_t ~ N(log_mean_t, log_sd_t)     (latent)
    mix_g,t        = w_g(t) prod_{h>g} (1 - w_h(t)),  w_g logistic ramps at launch dates
    shipments_g,t  = spend_t mix_g,t / unit_cost_g                     (chips; USD bn x 1e9)
    fleet_g,t      = fleet_g,t-1 survival + shipments_g,t,  survival = exp(-1 / (4 life))
    price_g,t      = effective_price (PFLOPS_g / PFLOPS_Trn2)^elasticity exp(-decline years_t)
    revenue_t      = sum_g mean fleet_g,t x 2191.5 h x billed_utilisation x price_g,t / 1e9
    merchant_t     = sum_g shipments_g,t PFLOPS_g x merchant_price exp(-m_decline years_t) / 1e9

(``years_t`` from the last data quarter; the mean fleet of a quarter is the average of its
opening and closing stock.)

Calibration inside the likelihood (``data/aws_statements.csv``, ``data/aws_custom_silicon.csv``,
everything dated on or before 2025-10-31; soft edges, no hard bounds):

- Jassy's "several billion" Trainium business (2025-10-30) is an interval on the 2025Q3 run
  rate ``4 x revenue``, its bounds the scenario's ``[readings."several billion"]`` (default
  USD 2-9 bn a year, :data:`~forecast.models.aws_silicon.data.RUN_RATE_READINGS`).
- Project Rainier's ~500,000 Trainium2 chips (2025-10-29) are a lower bound on the
  Trainium2 fleet at 2025Q3 at the stated number's lower factor (default 0.8).
- "Fully subscribed" is billed utilisation of 0.85 or more.
- Trainium1 instance prices (on-demand and Capacity Block) are upper bounds on the effective
  Trainium1 price per chip-hour: a list price bounds the price, it is not the price.
- Epoch's cumulative Trainium deployments since 2024 are lognormal observations of
  cumulative shipments with the sd of Epoch's 5-95% band.
- The 150% quarter-on-quarter growth quoted for Q3 2025 is not used: the secondary sources
  attribute it to different businesses and no primary wording was seen.

Modules
-------
``math`` (pure numpy/PyTensor), ``data`` (inputs from a dataset), ``builder`` (priors with
their rationale and the PyMC model), ``simulate`` (inputs from the model's own math),
``paths`` (forecast paths over spend paths, the revenue ceiling, identity checks),
``fitted`` (the fitted class), ``summary`` (calendar-year quantiles), ``graviton`` (the
Graviton-inclusive run rate), ``model`` (the protocol's hooks).
"""

from forecast.models.aws_silicon.builder import (
    DEFAULT_PRIORS,
    SCALAR_VARS,
    STATEMENT_SOFTNESS,
    build_aws_silicon_model,
)
from forecast.models.aws_silicon.data import (
    FIRST_QUARTER,
    GENERATION_MIDPOINTS,
    NUMBER_FACTORS,
    REFERENCE_GENERATION,
    RUN_RATE_READINGS,
    UTILISATION_READINGS,
    completed_quarter,
    prepare_aws_silicon_data,
    spend_frame,
    spend_frame_from_market,
)
from forecast.models.aws_silicon.fitted import FittedAwsSilicon, load_aws_silicon
from forecast.models.aws_silicon.graviton import custom_chips_run_rate, graviton_run_rate_paths
from forecast.models.aws_silicon.model import AWS_SILICON_SAMPLER, AwsSiliconModel
from forecast.models.aws_silicon.paths import (
    PATH_UNITS,
    aws_silicon_paths,
    cap_utilisation,
    ceiling_breaches,
    consistency_errors,
    quarters_after,
)
from forecast.models.aws_silicon.simulate import simulate_inputs
from forecast.models.aws_silicon.summary import ANNUAL_UNITS, annual_samples, annual_table

__all__ = [
    "ANNUAL_UNITS", "AWS_SILICON_SAMPLER", "DEFAULT_PRIORS", "FIRST_QUARTER",
    "GENERATION_MIDPOINTS", "NUMBER_FACTORS", "PATH_UNITS",
    "REFERENCE_GENERATION",
    "RUN_RATE_READINGS", "SCALAR_VARS", "STATEMENT_SOFTNESS", "UTILISATION_READINGS",
    "AwsSiliconModel", "FittedAwsSilicon", "annual_samples", "annual_table",
    "aws_silicon_paths", "build_aws_silicon_model",
    "cap_utilisation", "ceiling_breaches", "completed_quarter", "consistency_errors",
    "custom_chips_run_rate", "graviton_run_rate_paths", "load_aws_silicon",
    "prepare_aws_silicon_data", "quarters_after", "simulate_inputs", "spend_frame",
    "spend_frame_from_market",
]
