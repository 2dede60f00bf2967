"""The price model's headline estimates next to the OLS cross-check.

``python -m forecast.models.price.summary [--seed 11]`` fits the model to the shipped data with
its default sampler and prints NVIDIA's decay with age, the vintage effect, how fast NVIDIA's
frontier moved, the combined yearly change of a chip's market price they imply, and the same
slopes from :func:`~forecast.models.price.crosscheck.ols_cross_check`; and the fit's gate.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from forecast.models.price.math import annual_change, frontier_log_tflops

#: Normal quantile of a central 90% interval (for the OLS estimates).
Z90 = 1.6449


def frontier_growth(catalogue: pd.DataFrame, vendor_group: str, start: str,
                    end: str) -> float:
    """Yearly log growth of a vendor's frontier dense BF16 TFLOPS: least-squares slope of the
    log frontier over monthly dates from ``start`` to ``end``."""
    dates = pd.date_range(start, end, freq="MS")
    frontier = frontier_log_tflops(catalogue, [vendor_group] * len(dates), dates)
    years = (dates - dates[0]).days.to_numpy() / 365.25
    keep = np.isfinite(frontier)
    return float(np.polyfit(years[keep], frontier[keep], 1)[0])


def _interval(draws: np.ndarray) -> str:
    low, mid, high = np.quantile(draws, [0.05, 0.5, 0.95])
    return f"{mid:+.3f} (90%: {low:+.3f} to {high:+.3f})"


def _percent(draws: np.ndarray) -> str:
    low, mid, high = np.quantile(annual_change(draws), [0.05, 0.5, 0.95])
    return f"{mid:+.1%} a year (90%: {low:+.1%} to {high:+.1%})"


def headline(fitted: Any, ols: Any, catalogue: pd.DataFrame,
             window: tuple[str, str] = ("2020-05-01", "2025-10-01")) -> list[str]:
    """Lines of the headline table (see the module docstring)."""
    from forecast.models.price.crosscheck import ols_decay_rates, ols_vintage

    vendors = [str(v) for v in fitted.posterior["vendor"].values]
    decay = fitted.stacked("decay")[:, vendors.index("nvidia")]
    vintage = fitted.stacked("vintage")
    growth = frontier_growth(catalogue, "nvidia", *window)
    rates = ols_decay_rates(ols).set_index("vendor")
    ols_decay, ols_se = rates.loc["nvidia", "decay"], rates.loc["nvidia", "se"]
    ols_vint, ols_vse = ols_vintage(ols)
    combined = decay + vintage * growth
    ols_combined = ols_decay + ols_vint * growth
    return [
        f"NVIDIA decay with age (log/yr): Bayesian {_interval(decay)}; "
        f"OLS {ols_decay:+.3f} (90%: {ols_decay - Z90 * ols_se:+.3f} to "
        f"{ols_decay + Z90 * ols_se:+.3f})",
        f"  as annual change: {_percent(decay)}",
        f"vintage effect (log price per log unit behind the frontier): Bayesian "
        f"{_interval(vintage)}; OLS {ols_vint:+.3f} (90%: {ols_vint - Z90 * ols_vse:+.3f} to "
        f"{ols_vint + Z90 * ols_vse:+.3f})",
        f"NVIDIA frontier growth {window[0][:7]}..{window[1][:7]}: {growth:.3f} log/yr "
        f"({np.expm1(growth):.0%} more dense BF16 TFLOPS a year)",
        f"combined change of a chip's market price (decay + vintage x frontier growth): "
        f"Bayesian {_percent(combined)}; OLS {np.expm1(ols_combined):+.1%} a year",
        "list premium (hyperscaler over neocloud, log): "
        f"{_interval(fitted.stacked('list_premium'))}",
        f"provider spread within a class (sd, log): {_interval(fitted.stacked('provider_sd'))}",
    ]


def main(argv: list[str] | None = None) -> None:
    """Fit with the default sampler and print :func:`headline` and the gate."""
    import argparse

    from forecast.data.dataset import load_dataset
    from forecast.models.price.crosscheck import ols_cross_check
    from forecast.models.price.model import PriceModel

    parser = argparse.ArgumentParser(prog="python -m forecast.models.price.summary")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    dataset = load_dataset()
    fitted = PriceModel().fit_dataset(dataset, random_seed=args.seed)
    for line in headline(fitted, ols_cross_check(dataset), dataset.accelerators):
        print(line)
    print("gate:", fitted.diagnostics())


if __name__ == "__main__":
    main()
