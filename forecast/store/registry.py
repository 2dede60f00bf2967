"""Embedded SQLite registry of fits and refit runs.

Two tables under ``<artifacts>/registry.sqlite``:

- ``fits``: one row per stored fit (published, gated, or ``damaged``: a fit directory
  without a readable header): id, created and as-of dates, data end, data hash, code
  version, scenarios, status, gate failures, diagnostics and timings. The fit directories
  are the truth; listing the fits reconciles the table with them (adds rows for fits it
  misses, drops rows whose directory is gone, follows a fit into or out of damage), so an
  interrupted publish can never leave the two disagreeing for long.
- ``runs``: one row per refit attempt, whatever its outcome (published, gated, rejected,
  failed, or ``crashed``: a run whose process died, found by the next refit or ``fits gc``),
  with the drop it ingested and a one-line message: what a scheduler's operator reads first.

A registry file SQLite cannot use (not a database, damaged, another schema) is a
:class:`~forecast.core.errors.FitError` naming it; being an index, it can be moved aside and
is rebuilt from the fit directories (without the refit history it held).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forecast.core.errors import FitError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS fits (
    fit_id TEXT PRIMARY KEY,
    created TEXT,
    as_of TEXT,
    data_end TEXT,
    data_hash TEXT,
    code_version TEXT,
    scenarios TEXT,
    status TEXT NOT NULL,
    gate_failures TEXT,
    diagnostics TEXT,
    timings TEXT,
    run_kind TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    finished TEXT,
    outcome TEXT,
    fit_id TEXT,
    drop_path TEXT,
    as_of TEXT,
    seconds REAL,
    message TEXT
);
"""

#: Status of a fit directory without a readable header; outcome of a run whose process died.
DAMAGED = "damaged"
CRASHED = "crashed"

_FIT_COLUMNS = ("fit_id", "created", "as_of", "data_end", "data_hash", "code_version",
                "scenarios", "status", "gate_failures", "diagnostics", "timings", "run_kind")
_JSON_COLUMNS = ("scenarios", "gate_failures", "diagnostics", "timings")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Registry:
    """The registry of one artifacts root (created on first use)."""

    def __init__(self, root: str | Path | None = None) -> None:
        from forecast.store.bundles import fits_dir

        self.root = fits_dir(root)
        self.path = self.root / "registry.sqlite"

    def _broken(self, exc: BaseException) -> FitError:
        return FitError(f"{self.path}: not a usable fit registry ({exc}); it only indexes the "
                        "fit directories: move it aside and it is rebuilt from them (without "
                        "its refit history)")

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection in one transaction, closed after; SQLite's errors as FitError."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise FitError(f"{self.root}: cannot create the fit store ({exc.strerror})") from None
        try:
            connection = sqlite3.connect(self.path, timeout=30)
        except sqlite3.Error as exc:
            raise self._broken(exc) from None
        try:
            with connection:
                connection.executescript(_SCHEMA)
                yield connection
        except sqlite3.Error as exc:
            raise self._broken(exc) from None
        finally:
            connection.close()

    # ----------------------------------------------------------------- fits

    @staticmethod
    def _row(header: dict[str, Any]) -> tuple[Any, ...]:
        values = {
            "fit_id": header["fit_id"],
            "created": header.get("created"),
            "as_of": header.get("as_of"),
            "data_end": header.get("data_end"),
            "data_hash": header.get("data_hash"),
            "code_version": header.get("code_version"),
            "scenarios": sorted(header.get("scenarios", {})),
            "status": header.get("status", "published"),
            "gate_failures": header.get("gate_failures", {}),
            "diagnostics": header.get("diagnostics", {}),
            "timings": header.get("timings_seconds", {}),
            "run_kind": header.get("run_kind", "fit"),
        }
        return tuple(json.dumps(values[c], sort_keys=True, default=str)
                     if c in _JSON_COLUMNS else values[c] for c in _FIT_COLUMNS)

    def record(self, header: dict[str, Any]) -> None:
        """Insert (or replace) the row of one stored fit from its ``bundle.json`` header."""
        placeholders = ", ".join("?" for _ in _FIT_COLUMNS)
        with self._connect() as connection:
            connection.execute(
                f"INSERT OR REPLACE INTO fits ({', '.join(_FIT_COLUMNS)}) "
                f"VALUES ({placeholders})", self._row(header))

    def reconcile(self) -> None:
        """Make the ``fits`` table list exactly the fit directories on disk, damaged ones
        with status ``damaged``."""
        from forecast.store.bundles import scan_fits

        found, broken = scan_fits(self.root)
        headers = {h["fit_id"]: h for h in found}
        headers.update({name: {"fit_id": name, "status": DAMAGED} for name in broken})
        with self._connect() as connection:
            known = dict(connection.execute("SELECT fit_id, status FROM fits").fetchall())
            for fit_id in set(known) - set(headers):
                connection.execute("DELETE FROM fits WHERE fit_id = ?", (fit_id,))
        for fit_id, header in headers.items():
            # New fits, and fits that went into or out of damage since the last look.
            if fit_id not in known or (known[fit_id] == DAMAGED) != (fit_id in broken):
                self.record(header)

    def fits(self) -> list[dict[str, Any]]:
        """Every fit, oldest first, as dicts (JSON columns decoded)."""
        self.reconcile()
        with self._connect() as connection:
            rows = connection.execute(
                f"SELECT {', '.join(_FIT_COLUMNS)} FROM fits ORDER BY fit_id").fetchall()
        return [self._decode(row) for row in rows]

    def fit(self, fit_id: str) -> dict[str, Any] | None:
        return next((row for row in self.fits() if row["fit_id"] == fit_id), None)

    def _decode(self, row: tuple[Any, ...]) -> dict[str, Any]:
        record = dict(zip(_FIT_COLUMNS, row, strict=True))
        try:
            for column in _JSON_COLUMNS:
                record[column] = json.loads(record[column]) if record[column] else None
        except (TypeError, ValueError) as exc:
            raise self._broken(exc) from None
        return record

    # ----------------------------------------------------------------- runs

    def start_run(self, drop_path: str | None, as_of: str | None) -> int:
        """Record the start of a refit attempt; returns its run id."""
        with self._connect() as connection:
            cursor = connection.execute(
                "INSERT INTO runs (started, drop_path, as_of) VALUES (?, ?, ?)",
                (_now(), drop_path, as_of))
            return int(cursor.lastrowid)

    def finish_run(self, run_id: int, outcome: str, seconds: float,
                   fit_id: str | None = None, message: str = "") -> None:
        with self._connect() as connection:
            connection.execute(
                "UPDATE runs SET finished = ?, outcome = ?, fit_id = ?, seconds = ?, "
                "message = ? WHERE run_id = ?",
                (_now(), outcome, fit_id, round(seconds, 2), message, run_id))

    def mark_crashed(self, published: Mapping[int, str] | None = None) -> list[int]:
        """Give every run without an outcome the outcome ``crashed``; returns their ids.

        Only for a caller holding the refit lock: no run is alive then, so a run without an
        outcome is one whose process died. ``published`` maps run ids to the fit a run had
        published before it died (its header's ``run_id``), which stands.
        """
        published = published or {}
        with self._connect() as connection:
            ids = [row[0] for row in connection.execute(
                "SELECT run_id FROM runs WHERE outcome IS NULL ORDER BY run_id")]
            for run_id in ids:
                fit_id = published.get(run_id)
                message = (f"process died after publishing fit {fit_id}" if fit_id else
                           "process died before publishing; its leftovers were removed")
                connection.execute(
                    "UPDATE runs SET finished = ?, outcome = ?, fit_id = ?, message = ? "
                    "WHERE run_id = ?", (_now(), CRASHED, fit_id, message, run_id))
        return ids

    def runs(self) -> list[dict[str, Any]]:
        """Every refit attempt, oldest first."""
        with self._connect() as connection:
            cursor = connection.execute("SELECT * FROM runs ORDER BY run_id")
            columns = [item[0] for item in cursor.description]
            return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
