"""The AWS silicon model's inputs: the spend frame, generations, Epoch's counts, statements.

Pure pandas and numpy. The inputs are a dict of four frames (``spend``, ``generations``,
``cumulative``, ``statements``); :func:`~forecast.models.aws_silicon.simulate.simulate_inputs`
makes the same dict from the model's own math.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.calendar import period_index, quarter_index, quarter_label
from forecast.core.errors import FitError, ForecastError
from forecast.models.market.data import QUALITATIVE_BILLIONS, STATED_NUMBER_FACTORS

#: Generations of the fit: catalogue chip name -> ramp midpoint (the quarter by which half of
#: AWS's accelerator spend goes to it). The first generation's midpoint is ignored (it takes
#: all spend until the next ramps up). Dense FP8 compute comes from ``accelerators.csv``.
#: - Trainium1 (GA 2022-10) stands for the NeuronCore-v2 generation: Inferentia2 (2023-04)
#:   has the same 190 dense TFLOPS and is counted with it.
#: - Trainium2: Epoch's quarterly Trainium2 shipments against its flat Trainium1 figure cross
#:   half in 2024Q3-Q4 (12%, 21%, 42%, 63% of 2024's quarters); GA was 2024-12-03.
#: - Trainium3: "late 2025" availability (announced 2024-12-03); volume half a year later.
GENERATION_MIDPOINTS: dict[str, str] = {
    "Trainium1": "2022Q4", "Trainium2": "2024Q3", "Trainium3": "2026Q2",
}
#: Ramp width in quarters (10% to 90% of a ramp in about 4.4 quarters).
RAMP_WIDTH = 1.0
#: The generation whose price per chip-hour is the model's ``effective_price``.
REFERENCE_GENERATION = "Trainium2"
#: The fit's first quarter: Trainium1's general availability. The fleet is zero before it
#: (Inferentia1 chips are not counted).
FIRST_QUARTER = "2022Q4"

#: How a qualitative run-rate statement (USD billions a year) and a stated number are read
#: when no scenario says: the package's one set of defaults (the scenarios'
#: ``[readings]`` have the same bounds and the rationale).
RUN_RATE_READINGS: dict[str, tuple[float, float]] = QUALITATIVE_BILLIONS
NUMBER_FACTORS: tuple[float, float] = STATED_NUMBER_FACTORS
#: How a capacity statement is read as billed utilisation (share of chip-hours billed).
#: "Fully subscribed" (Q3 2025 call): every chip is committed, but a fleet is never billed
#: every hour (chips in burn-in, between tenants, held for failover): 0.85 and up.
UTILISATION_READINGS: dict[str, tuple[float, float]] = {"fully subscribed": (0.85, 1.0)}

#: Metric prefix of Epoch's cumulative Trainium estimates in ``aws_custom_silicon.csv``.
EPOCH_CUMULATIVE = "Epoch AI estimate: cumulative Trainium chips deployed since"
#: Columns of the ``statements`` frame.
STATEMENT_COLUMNS = ["observes", "kind", "quarter", "lower", "upper", "label"]
#: z of the 95th percentile: a 5-95% band spans 2 x 1.645 standard deviations.
_Z95 = 1.6448536269514722


def spend_frame(log_spend: np.ndarray, quarters: Sequence[str]) -> pd.DataFrame:
    """The spend input from draws of log spend: quarter, log_mean, log_sd.

    Parameters
    ----------
    log_spend
        Draws (draw, quarter) of log AWS accelerator spend at cost, log USD bn per quarter
        (the market model's ``log_spend`` of group ``aws``).
    quarters
        Their calendar quarter labels.
    """
    values = np.asarray(log_spend, dtype=float)
    return pd.DataFrame({"quarter": [str(q) for q in quarters],
                         "log_mean": values.mean(axis=0), "log_sd": values.std(axis=0)})


def spend_frame_from_market(fitted_market: Any) -> pd.DataFrame:
    """The spend input summarising a fitted market model's AWS spend (``FittedMarket``).

    Reads its posterior ``log_spend`` (group, quarter) at group ``aws``.
    """
    groups = [str(g) for g in fitted_market.posterior["log_spend"]["group"].values]
    log_spend = fitted_market.stacked("log_spend")[:, groups.index("aws"), :]
    return spend_frame(log_spend, fitted_market.timeline)


def generations_frame(accelerators: pd.DataFrame,
                      midpoints: Mapping[str, str] = GENERATION_MIDPOINTS) -> pd.DataFrame:
    """generation, ramp_midpoint (quarter label), fp8_dense_tflops, from the chip catalogue."""
    chips = accelerators.set_index("chip")
    missing = [name for name in midpoints if name not in chips.index]
    if missing:
        raise FitError(f"aws_silicon: no catalogue row for {', '.join(missing)}")
    return pd.DataFrame({
        "generation": list(midpoints),
        "ramp_midpoint": [midpoints[name] for name in midpoints],
        "fp8_dense_tflops": [float(chips.loc[name, "fp8_dense_tflops"]) for name in midpoints],
    })


def epoch_cumulative(silicon: pd.DataFrame) -> pd.DataFrame:
    """Epoch's cumulative Trainium deployments: start, quarter, value, sd_log, label.

    ``start`` is the first quarter counted ("since 2024-01-01"), ``sd_log`` the log-scale sd
    from the 5-95% band (half its log width over 1.645).
    """
    rows = silicon[silicon["metric"].str.startswith(EPOCH_CUMULATIVE)]
    rows = rows[rows["value"].notna() & rows["value_p5"].notna() & rows["value_p95"].notna()]
    since = [pd.Timestamp(str(m).split("since", 1)[1].split("(")[0].strip())
             for m in rows["metric"]]
    return pd.DataFrame({
        "start": [quarter_label(period_index(d)) for d in since],
        "quarter": [quarter_label(period_index(pd.Timestamp(d))) for d in rows["date"]],
        "value": rows["value"].astype(float).to_numpy(),
        "sd_log": ((np.log(rows["value_p95"].astype(float))
                    - np.log(rows["value_p5"].astype(float))) / (2 * _Z95)).to_numpy(),
        "label": [f"Epoch cumulative Trainium {pd.Timestamp(d).date()}" for d in rows["date"]],
    })


def completed_quarter(date: pd.Timestamp) -> str:
    """The last calendar quarter completed on ``date`` (a late-October call speaks of Q3)."""
    stated = pd.Timestamp(date)
    period = stated.to_period("Q")
    if stated.normalize() < period.end_time.normalize():
        period -= 1
    return quarter_label(period)


def statement_bounds(statements: pd.DataFrame,
                     run_rate_readings: Mapping[str, tuple[float, float]] = RUN_RATE_READINGS,
                     number_factors: tuple[float, float] = NUMBER_FACTORS,
                     utilisation_readings: Mapping[str, tuple[float, float]] = UTILISATION_READINGS,
                     ) -> pd.DataFrame:
    """Amazon's statements (``aws_statements.csv``) as soft bounds on model quantities.

    One row per usable statement: observes, kind (interval | lower | upper), quarter, lower,
    upper, label. Run rates are USD bn a year; the Trainium2 fleet in chips (a lower bound:
    Project Rainier is part of the fleet); utilisation a share; Trainium1 list prices in USD
    per chip-hour (upper bounds: the effective price is below any list price). A phrase
    without a reading is skipped (the fit must not invent one).
    """
    low_factor, _ = number_factors
    rows = []
    for row in statements.itertuples(index=False):
        phrase = str(row.value_qualifier).strip()
        value = float(row.value)
        label = f"{row.metric} ({pd.Timestamp(row.date).date()})"
        if row.observes == "rental_run_rate":
            if phrase in run_rate_readings:
                low, high = run_rate_readings[phrase]
            elif np.isfinite(value):
                low, high = number_factors[0] * value / 1e9, number_factors[1] * value / 1e9
            else:
                continue
            rows.append(("rental_run_rate", "interval", completed_quarter(row.date),
                         low, high, label))
        elif row.observes == "trainium2_fleet" and np.isfinite(value):
            rows.append(("trainium2_fleet", "lower", completed_quarter(row.date),
                         low_factor * value, np.inf, label))
        elif row.observes == "billed_utilisation" and phrase in utilisation_readings:
            low, high = utilisation_readings[phrase]
            rows.append(("billed_utilisation", "lower", completed_quarter(row.date),
                         low, high, label))
        elif row.observes == "trainium1_list_price" and np.isfinite(value):
            per_chip = value / float(row.chips_per_instance)
            rows.append(("trainium1_price", "upper", quarter_label(period_index(row.date)),
                         0.0, per_chip, label))
    return pd.DataFrame(rows, columns=STATEMENT_COLUMNS)


def check_spend(spend: pd.DataFrame) -> None:
    """Raise :class:`FitError` unless ``spend`` has quarter, log_mean, log_sd, gap-free."""
    missing = {"quarter", "log_mean", "log_sd"} - set(spend.columns)
    if missing:
        raise FitError(f"aws_silicon: spend frame lacks {', '.join(sorted(missing))}")
    idx = [quarter_index(str(q)) for q in spend["quarter"]]
    if not idx or np.any(np.diff(idx) != 1):
        raise FitError("aws_silicon: spend quarters must be consecutive and increasing")
    if not (np.all(np.isfinite(spend["log_mean"])) and np.all(spend["log_sd"] > 0)):
        raise FitError("aws_silicon: spend log_mean must be finite and log_sd > 0")


def prepare_aws_silicon_data(
    dataset: Any, spend: pd.DataFrame, *,
    run_rate_readings: Mapping[str, tuple[float, float]] = RUN_RATE_READINGS,
    number_factors: tuple[float, float] = NUMBER_FACTORS,
    utilisation_readings: Mapping[str, tuple[float, float]] = UTILISATION_READINGS,
    midpoints: Mapping[str, str] = GENERATION_MIDPOINTS, first_quarter: str = FIRST_QUARTER,
) -> dict[str, pd.DataFrame]:
    """The frames the model fits.

    Parameters
    ----------
    dataset
        A :class:`~forecast.data.dataset.Dataset` (cut with ``as_of`` for a backtest).
    spend
        AWS accelerator spend at cost: quarter, log_mean, log_sd (log USD bn per quarter),
        e.g. :func:`spend_frame_from_market`. Quarters before ``first_quarter`` are dropped.
    run_rate_readings, number_factors, utilisation_readings
        Readings of the statements (see :func:`statement_bounds`); defaults documented at
        :data:`RUN_RATE_READINGS`, :data:`NUMBER_FACTORS`, :data:`UTILISATION_READINGS`.
    midpoints
        Generation ramp midpoints (:data:`GENERATION_MIDPOINTS`).
    first_quarter
        The fleet's first quarter (:data:`FIRST_QUARTER`).

    Returns
    -------
    dict of pandas.DataFrame
        ``spend``, ``generations``, ``cumulative`` (Epoch, inside the timeline) and
        ``statements`` (inside the timeline; a price bound dated before it moves to its start).
    """
    spend = spend[[quarter_index(str(q)) >= quarter_index(first_quarter)
                   for q in spend["quarter"]]].reset_index(drop=True)
    check_spend(spend)
    timeline = [str(q) for q in spend["quarter"]]
    cumulative = epoch_cumulative(dataset.aws_custom_silicon)
    cumulative = cumulative[cumulative["quarter"].isin(timeline)
                            & cumulative["start"].isin(timeline)].reset_index(drop=True)
    statements = statement_bounds(dataset.aws_statements, run_rate_readings, number_factors,
                                  utilisation_readings)
    first = quarter_index(timeline[0])
    statements["quarter"] = [quarter_label(max(quarter_index(q), first))
                             for q in statements["quarter"]]
    statements = statements[statements["quarter"].isin(timeline)].reset_index(drop=True)
    return {"spend": spend, "generations": generations_frame(dataset.accelerators, midpoints),
            "cumulative": cumulative, "statements": statements}


def timeline_of(inputs: Mapping[str, pd.DataFrame]) -> list[str]:
    """Calendar quarters of the fit: those of the spend frame."""
    return [str(q) for q in inputs["spend"]["quarter"]]


def generation_keys(generations: pd.DataFrame) -> list[str]:
    """Prior names' suffixes of the generations: ``Trainium2`` -> ``trainium2``."""
    return [str(name).lower().replace(" ", "_") for name in generations["generation"]]


def check_generations(generations: pd.DataFrame) -> None:
    """Raise :class:`ForecastError` unless the reference generation is among them."""
    if REFERENCE_GENERATION not in set(generations["generation"]):
        raise ForecastError(f"aws_silicon: generations must include {REFERENCE_GENERATION} "
                            "(its price is the model's effective_price)")
