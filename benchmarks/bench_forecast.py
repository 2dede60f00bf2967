"""Benchmark ``cli.py forecast`` from the shipped fit: first run and warm runs, against
importing numpy, pandas and xarray alone.

Targets: the first ``forecast --scenario bull`` on a fresh clone (no byte-code, no data cache,
no fit of one's own: the shipped fit serves it) in at most 15 s; a warm forecast of 4,000
draws within 1.5x the time a fresh Python takes to import numpy, pandas and xarray; time
growing linearly with the number of draws.

1. The first run: one ``python cli.py forecast --scenario bull`` with an empty private
   ``PYTHONPYCACHEPREFIX`` and an empty fit store (``FORECAST_ARTIFACTS``, whose ``cache/``
   holds the validated data).
2. Side by side, in fresh processes, alternating so that both see the same machine load:
   ``python -c "import numpy, pandas, xarray"`` and ``python cli.py forecast --scenario bull
   --draws 4000`` (table output, as a user runs it), each ``--repeats`` times after one
   warm-up run of each; medians, their ratio and whether the targets are met.
3. Forecasts of 1,000, 10,000 and 100,000 draws, with the time per draw and the marginal cost
   of each further draw, which is constant when time is linear in draws.
4. What the shipped fit's storage costs: reading the scenario's fitted models from the shipped
   fit (float32 byte planes, deflated) against the same posteriors and data stored plain
   (float64, not compressed), in process, medians of ``--repeats`` reads each.

The runs share the private byte-code prefix and fit store of step 1, so "warm" means modules
byte-compiled and the validated-data cache filled, even where ``PYTHONDONTWRITEBYTECODE`` is
set (numpy, pandas and xarray come compiled in site-packages). ``--no-bytecode-cache``
measures with the project's modules compiled on every run instead.

    python benchmarks/bench_forecast.py [--repeats 7] [--scenario bull] [--no-bytecode-cache]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "import numpy, pandas, xarray"
FIRST_RUN_SECONDS = 15.0
TARGET_RATIO = 1.5


def run(command: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one run of ``command`` (which must succeed without fitting)."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr.strip()}")
    if "sampling" in result.stderr:
        sys.exit("the forecast had to fit first: the shipped fit does not serve this code "
                 "and data; regenerate it with `python cli.py fits ship`")
    return seconds


def side_by_side(commands: dict[str, list[str]], repeats: int,
                 env: dict[str, str]) -> dict[str, list[float]]:
    """Run every command once to warm up, then ``repeats`` rounds, alternating."""
    for command in commands.values():
        run(command, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, command in commands.items():
            times[name].append(run(command, env))
    return times


def storage_cost(scenario: str, repeats: int) -> tuple[float, float, float]:
    """Median seconds to read ``scenario``'s fitted models from the shipped fit and from a
    plain copy, and the plain copy's size over the shipped one's."""
    import json

    from forecast.core import fastio

    published = ROOT / "published"
    bundle = json.loads((published / "bundle.json").read_text())
    models = bundle["scenarios"][scenario]["models"].values()
    with tempfile.TemporaryDirectory(prefix="bench-plain-") as plain:
        directories = {}
        for model in models:
            shipped, copy = published / model, Path(plain) / model
            copy.mkdir()
            keys = json.loads((shipped / "data_layout.json").read_text())
            fastio.save_posterior(fastio.load_posterior(shipped), copy)
            fastio.save_frames(fastio.load_frames(shipped, keys), copy)
            directories[model] = (shipped, copy, list(keys))

        def read(which: int) -> float:
            start = time.perf_counter()
            for entry in directories.values():
                fastio.load_posterior(entry[which])
                fastio.load_frames(entry[which], entry[2])
            return time.perf_counter() - start

        times = {which: [] for which in (0, 1)}
        for _ in range(repeats):
            for which in (0, 1):
                times[which].append(read(which))
        size = [sum((entry[which] / name).stat().st_size for entry in directories.values()
                    for name in ("posterior.npz", "data.npz")) for which in (0, 1)]
    return statistics.median(times[0]), statistics.median(times[1]), size[1] / size[0]


def load() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "unknown"
    return f"{one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="runs per measurement")
    parser.add_argument("--scenario", default="bull")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="compile the project's modules on every run")
    args = parser.parse_args()
    python = sys.executable
    store = tempfile.TemporaryDirectory(prefix="bench-store-")
    env = {**os.environ, "FORECAST_ARTIFACTS": store.name}
    cache = tempfile.TemporaryDirectory(prefix="bench-pycache-")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = cache.name

    forecast = [python, "cli.py", "forecast", "--scenario", args.scenario]
    print(f"python {sys.version.split()[0]}, load average {load()}")
    first = run(forecast, env)
    print(f"first run (empty byte-code prefix, empty store, shipped fit): {first:.2f} s; "
          f"target <= {FIRST_RUN_SECONDS:g} s: "
          f"{'met' if first <= FIRST_RUN_SECONDS else 'NOT met'}\n")
    if args.no_bytecode_cache:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX")
    print(f"byte-code cache: {'off' if args.no_bytecode_cache else 'on (private prefix)'}; "
          f"medians of {args.repeats} runs after one warm-up, alternating\n")

    times = side_by_side({"imports": [python, "-c", BASELINE],
                          "forecast": [*forecast, "--draws", "4000"]}, args.repeats, env)
    imports, base = (statistics.median(times[k]) for k in ("imports", "forecast"))
    ratio = base / imports
    width = 46
    print(f"{'what':<{width}} {'median s':>9} {'min s':>7} {'max s':>7}")
    for label, key in ((f"python -c '{BASELINE}'", "imports"),
                       (f"cli.py forecast --scenario {args.scenario} --draws 4000", "forecast")):
        print(f"{label:<{width}} {statistics.median(times[key]):9.2f} "
              f"{min(times[key]):7.2f} {max(times[key]):7.2f}")
    print(f"{'ratio forecast / imports':<{width}} {ratio:9.2f}")
    print(f"target <= {TARGET_RATIO:g}x the imports: "
          f"{'met' if ratio <= TARGET_RATIO else 'NOT met'}\n")

    print(f"{'draws':>8} {'median s':>9} {'ms per draw':>12} {'marginal ms per draw':>21}")
    previous = None
    for draws in (1_000, 10_000, 100_000):
        repeats = args.repeats if draws < 100_000 else max(1, args.repeats // 2)
        seconds = statistics.median(
            side_by_side({"f": [*forecast, "--draws", str(draws)]}, repeats, env)["f"])
        marginal = "" if previous is None else (
            f"{1000 * (seconds - previous[1]) / (draws - previous[0]):21.4f}")
        print(f"{draws:>8,} {seconds:9.2f} {1000 * seconds / draws:12.4f} {marginal}")
        previous = (draws, seconds)
    shipped, plain, size = storage_cost(args.scenario, args.repeats)
    print(f"\nreading {args.scenario}'s fitted models (posterior and data), in process: shipped "
          f"{1000 * shipped:.0f} ms, stored plain {1000 * plain:.0f} ms ({size:.1f}x the "
          f"bytes); shipped / plain {shipped / plain:.2f}")
    print(f"\nload average at the end: {load()}")
    cache.cleanup()
    store.cleanup()


if __name__ == "__main__":
    main()
