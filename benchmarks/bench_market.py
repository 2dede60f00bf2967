"""Benchmark the market model fit: cold and warm fit time, ESS per second, pymc vs nutpie.

Run ``python benchmarks/bench_market.py [--samplers pymc nutpie] [--draws 1000]``. "Cold" is
the first fit in the process (includes compilation), "warm" a second fit of the same model
configuration. Prints one line per (sampler, run) and a small table at the end.
"""

from __future__ import annotations

import argparse
import time
import warnings

import pandas as pd

from forecast.data.dataset import load_dataset
from forecast.models.market import MarketModel, prepare_market_data


def bench(sampler: str, draws: int, tune: int, chains: int) -> list[dict[str, object]]:
    """Two fits (cold, warm) with one NUTS implementation; diagnostics and timings."""
    inputs = prepare_market_data(load_dataset())
    rows = []
    for run in ("cold", "warm"):
        start = time.perf_counter()
        fitted = MarketModel().fit(inputs, nuts_sampler=sampler, draws=draws, tune=tune,
                                   chains=chains)
        wall = time.perf_counter() - start
        diag = fitted.diagnostics()
        sampling = float(fitted.meta["fit_seconds"])
        rows.append({
            "sampler": sampler, "run": run, "wall_s": round(wall, 1),
            "sampling_s": round(sampling, 1), "min_ess_bulk": round(diag["min_ess_bulk"]),
            "ess_per_s": round(diag["min_ess_bulk"] / sampling, 1),
            "max_r_hat": round(diag["max_r_hat"], 3), "divergences": diag["divergences"],
        })
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samplers", nargs="+", default=["pymc", "nutpie"])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rows = []
    for sampler in args.samplers:
        rows += bench(sampler, args.draws, args.tune, args.chains)
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
