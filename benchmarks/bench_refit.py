"""Benchmark the quarterly refit on the shipped data: cold, warm, and with nothing changed.

Run ``python benchmarks/bench_refit.py [--scenario base bull bear]``. Each refit goes into a
fresh temporary artifacts root, with the models' default sampler settings and gate:

- ``cold``: the first refit in a fresh process (compiles every model);
- ``warm``: a second full refit in the same process, model reuse off (every model sampled
  again; compiled code is reused only where the sampler caches it in-process);
- ``unchanged``: a refit of the same data with reuse on (every model reused; the time is
  data checks, loading, the revision report and publishing).

Then the compiled-code cache kept under the fit store
(:mod:`forecast.models.compile_cache`), each a new process refitting one scenario
(``--cache-scenario``, default base) into a fresh store, as ``python cli.py refit`` does:

- ``cache empty``: nothing compiled yet (every model compiles);
- ``cache kept``: a second fresh store holding the first one's ``cache/compiled`` only.

Prints one line per run with per-model timings, then the ratios.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from forecast.models.compile_cache import use_compile_cache
from forecast.pipeline.refit import refit

TARGET_WARM_SECONDS = 90.0
ROOT = Path(__file__).resolve().parents[1]


def cold_process_refit(store: Path, scenario: str) -> float:
    """Wall seconds of ``python cli.py refit --scenario NAME`` in a new process."""
    env = {key: value for key, value in os.environ.items() if key != "PYTENSOR_FLAGS"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "refit", "--scenario",
                           scenario, "--artifacts", str(store), "--report-draws", "500"],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"refit failed ({done.returncode}): {done.stderr[-500:]}")
    return seconds


def compile_cache_runs(scenario: str) -> None:
    """A cold refit of one scenario with an empty compile cache, then with a kept one."""
    with tempfile.TemporaryDirectory() as tmp:
        first, second = Path(tmp) / "first", Path(tmp) / "second"
        empty = cold_process_refit(first, scenario)
        print(f"cache empty {empty:7.1f} s  (new process, fresh store, {scenario})", flush=True)
        (second / "cache").mkdir(parents=True)
        shutil.move(str(first / "cache" / "compiled"), str(second / "cache" / "compiled"))
        kept = cold_process_refit(second, scenario)
        print(f"cache kept  {kept:7.1f} s  (new process, fresh store, the first store's "
              f"compiled code)", flush=True)
        print(f"cache kept / cache empty: {kept / empty:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", nargs="+", default=None,
                        help="scenarios to fit for (default: all)")
    parser.add_argument("--cache-scenario", default="base",
                        help="scenario of the compile-cache runs (default base)")
    parser.add_argument("--skip-in-process", action="store_true",
                        help="only the compile-cache runs")
    args = parser.parse_args()
    if not args.skip_in_process:
        in_process_runs(args.scenario)
    compile_cache_runs(args.cache_scenario)


def in_process_runs(scenarios: list[str] | None) -> None:
    """Cold, warm and unchanged refits in this process."""
    warnings.filterwarnings("ignore")
    with tempfile.TemporaryDirectory() as root:
        use_compile_cache(root)  # an empty compile cache: the cold run compiles everything
        results = {}
        for label, reuse in (("cold", False), ("warm", False), ("unchanged", True)):
            start = time.perf_counter()
            result = refit(root=root, scenarios=scenarios, reuse=reuse)
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
