"""The bounds card's prior predictive check: base's 2030 TAM under the prior and the shipped
posterior, with and without M6's bounds, beside each bound and published projections.

    python -m forecast.reporting.prior_check

writes the table between ``<!-- prior:tam-2030 -->`` markers of ``docs/models/bounds.md`` and
``docs/models/figures/bounds_prior_tam_2030.png``. It reads the shipped fit and draws the
prior (a PyTensor compile of the spend model's forward graph), so the validation tier, not
the default one, checks that the committed card matches it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.core.presentation import format_number
from forecast.evaluation.prior_tails import YearTails, prior_spend, tails_frame, year_tails
from forecast.reporting.cards import fill

ROOT = Path(__file__).resolve().parents[2]
CARD = ROOT / "docs" / "models" / "bounds.md"
FIGURE = ROOT / "docs" / "models" / "figures" / "bounds_prior_tam_2030.png"
#: The card's block: ``<!-- prior:tam-2030 -->`` ... ``<!-- /prior:tam-2030 -->``
#: (:func:`forecast.reporting.cards.fill` with this prefix).
PREFIX, BLOCK = "prior", "tam-2030"
YEAR = 2030
COLOURS = {"prior": "tab:blue", "scenario": "tab:green", "posterior": "tab:orange"}
DRAWS = 1000

#: How each quantity reads in the table and the figure.
LABELS = {"tam": "TAM with the bounds", "tam_unbounded": "TAM without the bounds",
          "bound_funding": "funding bound", "bound_power": "power bound",
          "bound_supply": "supply bound"}


def compute(draws: int = DRAWS, seed: int = 0) -> dict[str, YearTails]:
    """Base's 2030 TAM under the prior and the shipped posterior, and its bounds (the
    scenario's draws, the same under both): sources ``prior``, ``scenario``, ``posterior``."""
    from forecast.data.dataset import load_dataset
    from forecast.pipeline.fitting import find_fit
    from forecast.scenarios.loading import load_scenario

    scenario, dataset = load_scenario("base"), load_dataset()
    posterior = find_fit(scenario).models["spend"]
    prior = prior_spend(dataset, scenario, draws=draws, seed=seed)
    found = {"prior": year_tails(prior, scenario, YEAR, draws, seed),
             "posterior": year_tails(posterior, scenario, YEAR, draws, seed)}
    bounds = {k: v for k, v in found["prior"].values.items() if k.startswith("bound_")}
    tam = {source: YearTails(YEAR, {k: v for k, v in tails.values.items() if k not in bounds})
           for source, tails in found.items()}
    return {"prior": tam["prior"], "scenario": YearTails(YEAR, bounds),
            "posterior": tam["posterior"]}


def projections(estimates: pd.DataFrame) -> pd.DataFrame:
    """Published projections for 2028 or later (publisher, target year, low, high, what)."""
    rows = estimates[pd.to_numeric(estimates["target_year"], errors="coerce") >= 2028]
    return rows[["publisher", "target_year", "value_usd_billions", "value_usd_billions_high",
                 "market_definition"]].reset_index(drop=True)


def table(tails: dict[str, YearTails]) -> str:
    """The card's markdown table, USD bn a year."""
    frame = tails_frame(tails)
    lines = ["| source | quantity | 10% | median | 90% | 90th/10th |", "|---|---|---|---|---|---|"]
    for row in frame.to_dict("records"):
        lines.append(f"| {row['source']} | {LABELS[row['quantity']]} | "
                     f"{format_number(row['q10'])} | {format_number(row['q50'])} | "
                     f"{format_number(row['q90'])} | {row['ratio']:.1f} |")
    return "\n".join(lines)


def figure(tails: dict[str, YearTails], published: pd.DataFrame) -> Any:
    """10-90% bars and medians of each quantity (log scale), published projections as lines."""
    from forecast.reporting.plots import plt

    rows = [(source, name) for source in tails for name in tails[source].values]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for y, (source, name) in enumerate(rows):
        q10, q50, q90 = np.quantile(tails[source].values[name], (0.1, 0.5, 0.9))
        colour = COLOURS[source]
        ax.plot([q10, q90], [y, y], color=colour, linewidth=6, alpha=0.5)
        ax.plot([q50], [y], marker="|", color="black", markersize=14)
    for k, row in enumerate(published.to_dict("records")):
        low, high = row["value_usd_billions"], row["value_usd_billions_high"]
        label = f"{row['publisher']}, {row['target_year']}"
        if pd.notna(high):
            ax.axvspan(low, high, color="grey", alpha=0.15, label=label)
        else:
            ax.axvline(low, color="grey", linestyle=("--", ":", "-.")[k % 3], label=label)
    ax.set_yticks(range(len(rows)), [f"{source}: {LABELS[name]}" for source, name in rows])
    ax.set_xscale("log")
    ax.set_xlabel(f"USD bn a year, {YEAR} (base; bars 10-90%, ticks medians)")
    ax.legend(loc="lower right", fontsize=7)
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig


def write(card: Path = CARD, figure_path: Path = FIGURE) -> None:
    """Regenerate the card's table and figure."""
    from forecast.data.dataset import load_dataset
    from forecast.reporting.plots import save

    tails = compute()
    card.write_text(fill(card.read_text(), {BLOCK: table(tails)}, prefix=PREFIX))
    save(figure(tails, projections(load_dataset().market_estimates)), figure_path)


if __name__ == "__main__":
    write()
    sys.exit(0)
