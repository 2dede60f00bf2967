"""Bass diffusion of accelerator unit shipments: Bass, generalised Bass and Norton-Bass.

The models describe how a chip's unit shipments rise and fall after its launch, and how a new
generation takes over from the one before it (DESIGN section 4, end of M4).

Time convention
---------------
Time ``t`` is measured in *periods* (calendar quarters for every default prior) since launch;
launch is the *start* of period 1. The continuous-time Bass cumulative adoption fraction is::

    F(t) = (1 - exp(-(p + q) t)) / (1 + (q / p) exp(-(p + q) t)),   F(t) = 0 for t <= 0,

with density ``f(t) = dF/dt = ((p + q)^2 / p) e^{-(p+q)t} / (1 + (q/p) e^{-(p+q)t})^2``. The
discrete per-period adoptions are differences of ``m F`` at period ends: adoptions in period
``k`` (k = 1..n) are ``m (F(k) - F(k - 1))``, so they sum to ``m F(n)`` exactly. ``p`` and
``q`` are rates *per period*: rescaling time from years to quarters divides both by 4 and
leaves the curve unchanged (F depends on ``(p + q) t`` and ``q / p`` only), so per-year values
from the literature convert exactly by dividing by 4. The peak of ``f`` is at
``t* = ln(q / p) / (p + q)`` when ``q > p`` (otherwise adoptions fall from launch on).

Generalised Bass (Bass, Krishnan & Jain 1994)
---------------------------------------------
The hazard is multiplied by ``x(t) = 1 + beta * (change in log covariate)``, e.g. the log
change of price-performance. With ``x`` constant within a period this is the Bass curve run on
an *effective time* ``X(k) = x_1 + ... + x_k``: ``F_gb(k) = F(X(k))``. For a covariate path
``c_1..c_n`` (levels, one per period) ``x_1 = 1`` and ``x_k = 1 + beta (log c_k - log
c_{k-1})``; ``x`` is floored at 0 (no adoption rather than "un-adoption" in a period whose
covariate moves very adversely). A constant covariate or ``beta = 0`` gives the Bass curve.
For a covariate that rises with attractiveness (price-performance) ``beta > 0`` speeds
adoption; for a price, expect ``beta < 0``.

Norton-Bass successive generations (Norton & Bass 1987)
-------------------------------------------------------
Generations ``g = 1..G`` launch at ``tau_g`` periods (``tau_1 = 0``) and share ``p`` and
``q``; ``F_g(t) = F(t - tau_g)``. The cumulative demand reaching generation ``g`` or a later
one is ``D_1 = m_1 F_1``, ``D_g = F_g (m_g + D_{g-1})``, and generation ``g``'s cumulative
demand (installed base) is ``S_g = D_g (1 - F_{g+1})``, which is the standard form::

    S_1 = m_1 F_1 (1 - F_2),   S_2 = F_2 (m_2 + m_1 F_1) (1 - F_3),   ...,
    S_G = F_G (m_G + D_{G-1}),   sum_g S_g -> m_1 + ... + m_G.

Per-period *net* sales ``S_g(k) - S_g(k-1)`` turn negative for an old generation once its
users upgrade faster than new users arrive, so they cannot be unit shipments. Shipments are
the *gross* sales, the inflow term of the product rule, which splits each period exactly::

    S_g(k) - S_g(k-1) = gross_g(k) - upgrades_g(k),
    gross_g(k)    = [D_g(k) - D_g(k-1)] (1 - F_{g+1}(k)),
    upgrades_g(k) = D_g(k-1) [F_{g+1}(k) - F_{g+1}(k-1)].

Gross sales are never negative, count leapfroggers (who skip generation ``g``) only in ``g+1``,
and with one generation equal Bass adoptions. :func:`norton_bass_adoptions` returns either.

The Bayesian model
------------------
Observed per-period units ``y_k`` (positive; gaps allowed) are lognormal around the model's
adoptions ``mu_k``: ``log y_k ~ Normal(log mu_k, sigma)``. Why lognormal rather than a
negative binomial: Epoch's unit figures are modelled estimates (not counts) whose uncertainty
bands are proportional to the level, and a series runs from thousands of units in its launch
quarter to hundreds of thousands at its peak; a multiplicative error weighs a factor-2 miss
equally at both ends, whereas a count likelihood at these magnitudes would be
near-deterministic in the tails and dominated by the peak quarters. ``m`` is sampled as
``m_ratio``, the market potential as a multiple of the observed total units (for Norton-Bass,
of the generation's observed total), so one default prior fits a series of any size, and the
likelihood is evaluated on ``y / total``.

Priors (defaults; each overridable with ``priors=``, e.g. a scenario's ``[priors.diffusion]``)
--------------------------------------------------------------------------------------------
===========  ===================================  ==============================================
parameter    default                              why
===========  ===================================  ==============================================
p            LogNormal(median 0.01, sigma 1.0)    innovation per quarter; meta-analyses of Bass
             per quarter                          fits put p near 0.03/yr (0.0075/quarter);
                                                  95% prior range 0.0014-0.07 per quarter
q            LogNormal(median 0.1, sigma 1.0)     imitation per quarter: 0.3-0.5/yr is 0.075-
             per quarter                          0.125/quarter; the wide sigma (95% range
                                                  0.014-0.71) admits the fast ramps of
                                                  accelerator generations (peak in ~2 years)
m_ratio      LogNormal(median 2.0, sigma 0.8)     market potential / observed total units: a
                                                  series observed to its peak has seen about
                                                  half of m (F(t*) = 1/2 - p/(2q)); 95% range
                                                  0.4-9.6 times the observed total
sigma        HalfNormal(0.5)                      log-scale error; Epoch's 90% bands are about
                                                  +-30% (sd ~0.2) plus misfit of a smooth curve
beta         Normal(0, 1) (gbass only)            a 10% log change of the covariate moves the
                                                  hazard by 10% x beta, within +-20% a priori
===========  ===================================  ==============================================

Modules
-------
``math`` (the curves, one expression for numpy and PyTensor), ``data`` (series and their
periods arranged for the model), ``units_io`` (CSV files), ``builder``
(default priors and the PyMC model), ``fitted`` (parameters and forecasts, numpy only),
``model`` (the protocol's hooks), ``report`` (the command line's report), ``simulate``
(series drawn from the model, for recovery tests).
"""

from forecast.models.diffusion.builder import (
    DEFAULT_PRIORS,
    TINY,
    build_diffusion_model,
    summary_vars,
)
from forecast.models.diffusion.data import (
    KINDS,
    MIN_OBSERVATIONS,
    DiffusionData,
    period_labels,
    period_positions,
    prepare_diffusion_data,
)
from forecast.models.diffusion.fitted import FittedDiffusion
from forecast.models.diffusion.math import (
    bass_adoptions,
    bass_cdf,
    bass_pdf,
    bass_peak_time,
    effective_time,
    gbass_adoptions,
    norton_bass_adoptions,
    norton_bass_cumulative,
)
from forecast.models.diffusion.model import DIFFUSION_SAMPLER, DiffusionModel
from forecast.models.diffusion.report import diffusion_report
from forecast.models.diffusion.simulate import simulate_units
from forecast.models.diffusion.units_io import fit_units_csv, read_units_csv

__all__ = [
    "DEFAULT_PRIORS", "DIFFUSION_SAMPLER", "KINDS", "MIN_OBSERVATIONS", "TINY",
    "DiffusionData", "DiffusionModel", "FittedDiffusion", "bass_adoptions", "bass_cdf",
    "bass_pdf", "bass_peak_time", "build_diffusion_model", "diffusion_report", "effective_time",
    "fit_units_csv", "gbass_adoptions", "norton_bass_adoptions",
    "norton_bass_cumulative", "period_labels", "period_positions", "prepare_diffusion_data",
    "read_units_csv", "simulate_units", "summary_vars",
]
