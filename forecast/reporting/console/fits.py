"""The fit store on the terminal: stored fits, one fit's provenance, a refit's outcome."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.reporting.console.table import table_text

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
