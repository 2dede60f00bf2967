"""The fit store on the terminal: ``fits list|show|diff|gc|ship``, and a refit's outcome."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.reporting.console import arguments as check
from forecast.reporting.console.arguments import STORE_HELP
from forecast.reporting.console.exits import EXIT_OK
from forecast.reporting.console.table import table_text
from forecast.reporting.console.terminal import timed_progress

#: Header fields ``fits show`` prints, in order, when present.
FIT_FIELDS = ("fit_id", "status", "created", "as_of", "data_end", "data_hash", "code_version",
              "run_kind", "previous_fit", "drop", "merge")


def fits_text(root: str | Path | None = None, fmt: str = "table") -> str:
    """Every stored fit, oldest first, then the shipped fit (``cli.py fits list``).

    Parameters
    ----------
    root
        Fit store (default: the project's ``artifacts/``).
    fmt
        ``table`` (status, dates, scenarios and the worst diagnostics of each fit) or
        ``json`` (the registry's records).

    Returns
    -------
    str
        The text.
    """
    from forecast.store.registry import Registry
    from forecast.store.shipped import shipped_rows

    rows = Registry(root).fits() + shipped_rows()
    if fmt == "json":
        return json.dumps(rows, indent=2, sort_keys=True, default=str)
    if not rows:
        return "no stored fits and no shipped fit"
    table = pd.DataFrame([_fit_row(row) for row in rows])
    return table_text(table.round({"max_r_hat": 3, "min_ess": 0}))


def _fit_row(row: dict[str, Any]) -> dict[str, Any]:
    diagnostics = (row["diagnostics"] or {}).values()
    return {
        "fit_id": row["fit_id"], "status": row["status"], "as_of": row["as_of"],
        "data_end": row["data_end"], "scenarios": ",".join(row["scenarios"] or []),
        "max_r_hat": max((d["max_r_hat"] for d in diagnostics), default=float("nan")),
        "min_ess": min((d["min_ess_bulk"] for d in diagnostics), default=float("nan")),
        "divergences": sum(d["divergences"] for d in diagnostics),
        "kind": row["run_kind"]}


def fit_text(fit_id: str, root: str | Path | None = None, fmt: str = "table") -> str:
    """Provenance and diagnostics of one stored fit (``cli.py fits show``).

    Parameters
    ----------
    fit_id
        The fit.
    root
        Fit store (default: the project's ``artifacts/``).
    fmt
        ``table`` or ``json`` (the whole ``bundle.json``).

    Returns
    -------
    str
        The text.
    """
    from forecast.store.bundles import fit_directory, read_header

    header = read_header(fit_directory(fit_id, root))
    if fmt == "json":
        return json.dumps(header, indent=2, sort_keys=True, default=str)
    lines = [f"{key:14s} {header[key]}" for key in FIT_FIELDS if key in header]
    for name, entry in header.get("scenarios", {}).items():
        lines.append(f"scenario       {name}: {', '.join(entry['models'].values())}")
    table = pd.DataFrame([{"model": key, **values, "seconds":
                           header.get("timings_seconds", {}).get(key)}
                          for key, values in header.get("diagnostics", {}).items()])
    if not table.empty:
        lines += ["", table_text(table.round(3))]
    for key, why in header.get("gate_failures", {}).items():
        lines.append(f"gate failed for {key}: {', '.join(why)}")
    return "\n".join(lines)


def refit_text(result: Any) -> str:
    """The outcome of a refit: status, time, what the drop changed, the gate, the report.

    Parameters
    ----------
    result
        A :class:`~forecast.pipeline.refit.RefitResult`.

    Returns
    -------
    str
        The text.
    """
    from forecast.pipeline.refit import REPORT_MARKDOWN

    bundle = result.bundle
    lines = [f"fit {bundle.fit_id}: {bundle.status} in {result.seconds:.0f} s "
             f"(previous published fit: {result.previous_fit or 'none'}; "
             f"{result.merge.describe()})"]
    for key, why in bundle.meta["gate_failures"].items():
        lines.append(f"  gate failed for {key}: {', '.join(why)}")
    lines.append(f"revision report: {result.directory / REPORT_MARKDOWN}")
    return "\n".join(lines)


def cmd_fits_list(args: argparse.Namespace) -> int:
    """Every stored fit, then the shipped one."""
    print(fits_text(args.artifacts, args.format))
    return EXIT_OK


def cmd_fits_show(args: argparse.Namespace) -> int:
    """Provenance and diagnostics of one fit."""
    print(fit_text(args.fit_id, args.artifacts, args.format))
    return EXIT_OK


def cmd_fits_diff(args: argparse.Namespace) -> int:
    """How the headline forecasts moved between two fits."""
    from forecast.pipeline.revision import compare_fits, to_markdown
    from forecast.pipeline.runner import preflight

    preflight(None, args.draws, root=args.artifacts)
    print(to_markdown(*compare_fits(args.old, args.new, args.artifacts, draws=args.draws,
                                    seed=args.seed)))
    return EXIT_OK


def cmd_fits_ship(args: argparse.Namespace) -> int:
    """Regenerate the shipped fit (published/) from a fresh fit of data/; exit 3 when gated."""
    from forecast.pipeline.shipping import ship_fit

    directory = ship_fit(keep=args.keep, progress=timed_progress())
    print(f"wrote the shipped fit to {directory}")
    return EXIT_OK


def cmd_fits_gc(args: argparse.Namespace) -> int:
    """Remove what crashed runs left and mark their runs crashed (exit 4 while a refit runs)."""
    from forecast.store.cleanup import clean_store

    print(clean_store(args.artifacts).describe())
    return EXIT_OK


def add_fits(commands: Any) -> None:
    """Add ``fits list|show|diff|gc|ship``."""
    parent = commands.add_parser("fits", help="stored fits and the shipped fit")
    fits = parent.add_subparsers(dest="action", required=True, parser_class=type(parent))
    listing = fits.add_parser("list", help="every stored fit, oldest first, and the shipped fit")
    listing.add_argument("--format", choices=["table", "json"], default="table")
    listing.set_defaults(handler=cmd_fits_list)
    showing = fits.add_parser("show", help="provenance and diagnostics of one fit")
    showing.add_argument("fit_id", type=check.fit_id)
    showing.add_argument("--format", choices=["table", "json"], default="table")
    showing.set_defaults(handler=cmd_fits_show)
    diffing = fits.add_parser("diff", help="how headline forecasts moved between two fits")
    diffing.add_argument("old", type=check.fit_id)
    diffing.add_argument("new", type=check.fit_id)
    diffing.add_argument("--draws", type=check.positive_int, default=2000)
    diffing.add_argument("--seed", type=check.seed, default=0)
    diffing.set_defaults(handler=cmd_fits_diff)
    collecting = fits.add_parser("gc", help="remove what crashed runs left, mark them crashed")
    collecting.set_defaults(handler=cmd_fits_gc)
    shipping = fits.add_parser("ship", help="regenerate the shipped fit (published/): fit "
                               "bull, base and bear on data/ at the default samplers")
    shipping.add_argument("--keep", type=check.positive_int, default=1000,
                          help="posterior draws kept per model (default 1000)")
    shipping.set_defaults(handler=cmd_fits_ship, fits=True)
    for sub in (listing, showing, diffing, collecting):
        sub.add_argument("--artifacts", type=check.store_directory, help=STORE_HELP)
