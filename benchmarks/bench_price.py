"""Benchmark the price-erosion fit: cold vs warm, PyMC's NUTS vs nutpie, ESS per second.

Each sampler runs in its own process with an empty PyTensor compile directory, so the first
fit pays every compilation (cold) and the second, in the same process, does not (warm).
Both use the model's default draws and tune. Prints a table and the nutpie / PyMC ratios.

    python benchmarks/bench_price.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, sys, time
start = time.perf_counter()
from forecast.data.dataset import load_dataset
from forecast.models.price import PriceModel
dataset = load_dataset()
sampler = sys.argv[1]
results = []
for run in ("cold", "warm"):
    t0 = time.perf_counter()
    fitted = PriceModel(sampler={"nuts_sampler": sampler}).fit_dataset(dataset)
    seconds = time.perf_counter() - t0
    d = fitted.diagnostics()
    results.append({"sampler": sampler, "run": run, "seconds": seconds,
                    "sampling_seconds": fitted.meta["fit_seconds"],
                    "min_ess_bulk": d["min_ess_bulk"], "max_r_hat": d["max_r_hat"],
                    "divergences": d["divergences"], "converged": d["converged"],
                    "draws": fitted.config["sampler"]["draws"]})
print("RESULT" + json.dumps(results))
"""


def run(sampler: str) -> list[dict]:
    with tempfile.TemporaryDirectory() as compiledir:
        env = {**os.environ, "PYTENSOR_FLAGS": f"compiledir={compiledir}"}
        done = subprocess.run([sys.executable, "-c", CHILD, sampler], env=env, text=True,
                              capture_output=True, check=True)
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT"))
    return json.loads(line.removeprefix("RESULT"))


def main() -> None:
    rows = []
    for sampler in ("pymc", "nutpie"):
        t0 = time.perf_counter()
        rows += run(sampler)
        print(f"# {sampler}: {time.perf_counter() - t0:.0f} s in all", file=sys.stderr)
    print(f"{'sampler':<8} {'run':<5} {'wall s':>7} {'min ESS':>8} {'ESS/s':>7} "
          f"{'max r_hat':>9} {'div':>4} converged")
    for r in rows:
        print(f"{r['sampler']:<8} {r['run']:<5} {r['seconds']:7.1f} {r['min_ess_bulk']:8.0f} "
              f"{r['min_ess_bulk'] / r['seconds']:7.1f} {r['max_r_hat']:9.4f} "
              f"{r['divergences']:4d} {r['converged']}")
    by = {(r["sampler"], r["run"]): r for r in rows}
    for run_kind in ("cold", "warm"):
        ratio = by[("pymc", run_kind)]["seconds"] / by[("nutpie", run_kind)]["seconds"]
        ess = ((by[("nutpie", run_kind)]["min_ess_bulk"] / by[("nutpie", run_kind)]["seconds"])
               / (by[("pymc", run_kind)]["min_ess_bulk"] / by[("pymc", run_kind)]["seconds"]))
        print(f"{run_kind}: nutpie is {ratio:.2f}x faster in wall time, "
              f"{ess:.2f}x in min-ESS per second")


if __name__ == "__main__":
    main()
