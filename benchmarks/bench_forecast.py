"""Benchmark a warm `cli.py forecast` (stored fit) against importing numpy, pandas, xarray.

Prints the median wall time of each over repeated runs, their ratio (target: forecast with
4,000 draws at most 2 s and at most 2x the bare imports), and forecast time at 1k, 10k and
100k draws to show how it scales. Needs a stored fit: run `python cli.py forecast --scenario
bull` once first.

    python benchmarks/bench_forecast.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def wall(command: list[str], repeats: int) -> float:
    """Median wall seconds of a command over ``repeats`` runs (after one warm-up run)."""
    subprocess.run(command, cwd=ROOT, capture_output=True, check=True)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    python = sys.executable
    imports = wall([python, "-c", "import numpy, pandas, xarray"], args.repeats)
    forecast = [python, "cli.py", "forecast", "--scenario", "bull", "--format", "json"]
    base = wall([*forecast, "--draws", "4000"], args.repeats)
    print(f"{'what':<40} {'median wall s':>14}")
    print(f"{'import numpy, pandas, xarray':<40} {imports:14.2f}")
    print(f"{'forecast --scenario bull, 4,000 draws':<40} {base:14.2f}")
    print(f"ratio forecast / imports: {base / imports:.2f} (target <= 2); "
          f"target <= 2 s: {'met' if base <= 2 else 'NOT met'}")
    previous = None
    for draws in (1_000, 10_000, 100_000):
        seconds = wall([*forecast, "--draws", str(draws)], max(1, args.repeats // 2))
        growth = "" if previous is None else f"  x{seconds / previous:.1f} for 10x draws"
        print(f"{'forecast, ' + format(draws, ',') + ' draws':<40} {seconds:14.2f}{growth}")
        previous = seconds


if __name__ == "__main__":
    main()
