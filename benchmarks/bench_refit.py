"""Benchmark the quarterly refit on the shipped data: cold, warm, and with nothing changed.

Run ``python benchmarks/bench_refit.py [--scenario base bull bear]``. Each refit goes into a
fresh temporary artifacts root, with the models' default sampler settings and gate:

- ``cold``: the first refit in a fresh process (compiles every model);
- ``warm``: a second full refit in the same process, model reuse off (every model sampled
  again; compiled code is reused only where the sampler caches it in-process);
- ``unchanged``: a refit of the same data with reuse on (every model reused; the time is
  data checks, loading, the revision report and publishing).

Prints one line per run with per-model timings, then the ratio to the 90 s warm target.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings

from forecast.pipeline.refit import refit

TARGET_WARM_SECONDS = 90.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", nargs="+", default=None,
                        help="scenarios to fit for (default: all)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    with tempfile.TemporaryDirectory() as root:
        results = {}
        for label, reuse in (("cold", False), ("warm", False), ("unchanged", True)):
            start = time.perf_counter()
            result = refit(root=root, scenarios=args.scenario, reuse=reuse)
            wall = time.perf_counter() - start
            results[label] = wall
            timings = result.bundle.meta["timings_seconds"]
            per_model = ", ".join(f"{key.split('-')[0]} {value:.0f} s"
                                  for key, value in timings.items())
            print(f"{label:9s} {wall:7.1f} s  status {result.status:9s} [{per_model}]",
                  flush=True)
            for key, why in result.bundle.meta.get("gate_failures", {}).items():
                print(f"          gated: {key}: {why}", flush=True)
    print(f"warm / target ({TARGET_WARM_SECONDS:.0f} s): "
          f"{results['warm'] / TARGET_WARM_SECONDS:.2f}x; cold / warm: "
          f"{results['cold'] / results['warm']:.2f}x; unchanged: {results['unchanged']:.1f} s")


if __name__ == "__main__":
    main()
