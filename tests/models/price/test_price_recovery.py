"""Parameter recovery of the price model: prices simulated by the model's own math
(:func:`simulate_price_observations`) on a design where NVIDIA's and AMD's successors ship at
different times, then fitted. The provider spread, NVIDIA's age slope and the vintage effect
must be recovered: 90% intervals cover the truth and are under half as wide as the prior's,
which the prior alone would not pass."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest

from forecast.data.dataset import load_dataset
from forecast.models.price import DEFAULT_PRIORS, PriceModel, SimulationTruth
from forecast.models.price.crosscheck import simulate_price_observations

#: A higher target acceptance: a simulated cycle near a unit root (rho 0.93-0.97) diverged
#: twice in 1,000 draws at the default 0.9.
SAMPLER = {"draws": 500, "tune": 800, "chains": 2, "nuts_sampler": "nutpie",
           "target_accept": 0.95}
NVIDIA = ("A100 SXM4 80GB", "H100 SXM5 80GB", "B200")
AMD = ("Instinct MI250X", "Instinct MI300X", "Instinct MI355X")
NEOCLOUDS = tuple(f"Neocloud {i}" for i in range(1, 13))
CLASSES = {**{name: "neocloud" for name in NEOCLOUDS}, "Index 1": "index",
           "Hyperscaler 1": "hyperscaler", "Hyperscaler 2": "hyperscaler"}


def _template(catalogue: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Quarterly quotes 2021-2025: four market quotes per released chip, a list price
    every fourth quarter."""
    release = catalogue.set_index("chip")["release_date"]
    market = (*NEOCLOUDS, "Index 1")
    rows = []
    for k, date in enumerate(pd.date_range("2021-02-15", "2025-08-15", freq="3MS")):
        for chip in (*NVIDIA, *AMD):
            if release[chip] > date:
                continue
            for provider in rng.choice(market, size=4, replace=False):
                rows.append((date, chip, provider, "on-demand"))
            if k % 4 == 0:
                rows.append((date, chip, f"Hyperscaler {1 + k // 4 % 2}", "on-demand"))
    frame = pd.DataFrame(rows, columns=["date", "chip", "provider_or_index", "pricing_type"])
    return frame.assign(recalled=False)


def _truth(rng: np.random.Generator, quarters: pd.PeriodIndex) -> SimulationTruth:
    means = {"neocloud": 0.0, "index": -0.1, "hyperscaler": 0.7}
    spread = 0.25
    # The realised deviations are scaled to the spread: the test checks recovery, not the
    # luck of fifteen draws.
    z = rng.standard_normal(len(CLASSES))
    z = (z - z.mean()) / z.std()
    providers = {name: means[label] + spread * z[i]
                 for i, (name, label) in enumerate(CLASSES.items())}
    cycle, value = {}, 0.0
    for quarter in quarters:
        value = 0.7 * value + 0.08 * rng.standard_normal()
        cycle[str(quarter)] = value
    # Every series carries its own markup too (the model's series effects, sd 0.1).
    series = {f"{chip} @ {name}": 0.1 * rng.standard_normal()
              for chip in (*NVIDIA, *AMD) for name in CLASSES}
    return SimulationTruth(
        decay={"nvidia": -0.10, "amd": -0.20, "google": -0.3, "aws": -0.3,
               "other_custom": -0.3, "other": -0.3},
        launch_log_price=dict(zip((*NVIDIA, *AMD), [1.4, 1.9, 2.1, 0.9, 1.3, 1.5],
                                  strict=True)),
        provider_effect=providers, vintage=-0.6, list_drift=0.0, type_offsets={},
        noise=0.06, cycle=cycle, series_effect=series)


def _prior_width(name: str, rng: np.random.Generator) -> float:
    """Width of the prior's central 90% interval, by simulation."""
    n = 200_000
    if name == "provider_sd":
        draws = np.abs(rng.normal(0, DEFAULT_PRIORS["provider_sd"]["sigma"], n))
    elif name == "decay":
        mu, tau = DEFAULT_PRIORS["decay_mu"], DEFAULT_PRIORS["decay_tau"]
        draws = (rng.normal(mu["mu"], mu["sigma"], n)
                 + np.abs(rng.normal(0, tau["sigma"], n)) * rng.standard_normal(n))
    else:
        spec = DEFAULT_PRIORS["vintage"]
        draws = rng.normal(spec["mu"], spec["sigma"], 4 * n)
        draws = draws[draws <= spec["upper"]]
    low, high = np.quantile(draws, [0.05, 0.95])
    return float(high - low)


# Validation tier: a 500-draw fit of a simulated market, mostly compile time; the default
# tier keeps the checks that need no price-model fit.
@pytest.mark.validation
@pytest.mark.parametrize("seed", [21])
def test_provider_spread_age_slope_and_vintage_are_recovered(seed):
    dataset = load_dataset()
    rng = np.random.default_rng(seed)
    template = _template(dataset.accelerators, rng)
    quarters = pd.period_range("2021Q1", "2025Q4", freq="Q")
    truth = _truth(rng, quarters)
    simulated = simulate_price_observations(template, dataset.accelerators, CLASSES, truth,
                                            seed)
    providers = pd.DataFrame({"provider_or_index": list(CLASSES),
                              "provider_class": list(CLASSES.values()),
                              "company": list(CLASSES),  # each provider its own company
                              "source": "simulated", "confidence": "verified", "notes": ""})
    fake = dataclasses.replace(dataset, rental_prices=simulated, providers=providers)
    fit = PriceModel().fit_dataset(fake, **{**SAMPLER, "random_seed": seed})
    # A simulated cycle near a unit root leaves a divergence now and then even at 0.95, and
    # which draw diverges depends on the CPU (seed 21: none on an AVX-512 machine, one of the
    # 1,000 on an AVX2 one). Recovery is what this test checks; a handful of divergences
    # (0.3% of the draws) is tolerated, many are not. The shipped fits' gate stays at none.
    assert fit.diagnostics()["divergences"] <= 3
    vendors = [str(v) for v in fit.posterior["vendor"].values]
    checks = {
        "provider_sd": (fit.stacked("provider_sd"), 0.25),
        "decay": (fit.stacked("decay")[:, vendors.index("nvidia")], -0.10),
        "vintage": (fit.stacked("vintage"), -0.6),
    }
    widths = np.random.default_rng(0)
    for name, (draws, true_value) in checks.items():
        low, high = np.quantile(draws, [0.05, 0.95])
        assert low <= true_value <= high, (name, low, high)
        assert high - low < 0.5 * _prior_width(name, widths), (name, low, high)


def test_the_recovery_design_moves_both_frontiers_at_different_times():
    """The design identifies the vintage effect apart from the common cycle: NVIDIA's and
    AMD's frontiers step in different quarters."""
    dataset = load_dataset()
    template = _template(dataset.accelerators, np.random.default_rng(0))
    simulated = simulate_price_observations(
        template, dataset.accelerators, CLASSES, _truth(np.random.default_rng(0),
                                                        pd.period_range("2021Q1", "2025Q4",
                                                                        freq="Q")), 0)
    from forecast.models.price import observation_frame

    rows = observation_frame(simulated, dataset.accelerators, CLASSES)
    steps = {}
    for vendor, group in rows.groupby("vendor_group"):
        gaps = group.groupby("quarter")["vintage_gap"].max()
        steps[vendor] = set(gaps.index[np.flatnonzero(np.diff(gaps.to_numpy()) > 0) + 1])
    assert steps["nvidia"] and steps["amd"]
    assert not steps["nvidia"] & steps["amd"]
    assert all(np.isfinite(simulated["usd_per_chip_hour"]))
    assert len(list(itertools.chain(*steps.values()))) >= 3
