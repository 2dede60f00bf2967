"""Embedded SQLite registry of fits and refit runs.

Two tables under ``<artifacts>/registry.sqlite``:

- ``fits``: one row per stored fit (published or gated): id, created and as-of dates, data
  end, data hash, code version, scenarios, status, gate failures, diagnostics and timings.
  The fit directories are the truth; opening the registry reconciles the table with them
  (adds rows for fits it misses, drops rows whose directory is gone), so an interrupted
  publish can never leave the two disagreeing for long.
- ``runs``: one row per refit attempt, whatever its outcome (published, gated, rejected,
  failed, busy), with the drop it ingested and a one-line message: what a scheduler's
  operator reads first.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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

    def _connect(self) -> sqlite3.Connection:
        self.root.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=30)
        connection.executescript(_SCHEMA)
        return connection

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
        """Make the ``fits`` table list exactly the fit directories on disk."""
        from forecast.store.bundles import list_fits

        headers = {h["fit_id"]: h for h in list_fits(self.root)}
        with self._connect() as connection:
            known = {row[0] for row in connection.execute("SELECT fit_id FROM fits")}
            for fit_id in known - set(headers):
                connection.execute("DELETE FROM fits WHERE fit_id = ?", (fit_id,))
        for fit_id in set(headers) - known:
            self.record(headers[fit_id])

    def fits(self) -> list[dict[str, Any]]:
        """Every fit, oldest first, as dicts (JSON columns decoded)."""
        self.reconcile()
        with self._connect() as connection:
            rows = connection.execute(
                f"SELECT {', '.join(_FIT_COLUMNS)} FROM fits ORDER BY fit_id").fetchall()
        return [self._decode(row) for row in rows]

    def fit(self, fit_id: str) -> dict[str, Any] | None:
        return next((row for row in self.fits() if row["fit_id"] == fit_id), None)

    @staticmethod
    def _decode(row: tuple[Any, ...]) -> dict[str, Any]:
        record = dict(zip(_FIT_COLUMNS, row, strict=True))
        for column in _JSON_COLUMNS:
            record[column] = json.loads(record[column]) if record[column] else None
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

    def runs(self) -> list[dict[str, Any]]:
        """Every refit attempt, oldest first."""
        with self._connect() as connection:
            cursor = connection.execute("SELECT * FROM runs ORDER BY run_id")
            columns = [item[0] for item in cursor.description]
            return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
