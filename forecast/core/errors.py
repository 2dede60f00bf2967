"""Exceptions the package raises on bad input.

Every error a user can cause derives from :class:`ForecastError`, so the CLI can print it as
one line and exit 2 without a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


class ForecastError(Exception):
    """Base class for every user-facing error of the package."""


@dataclass(frozen=True)
class Issue:
    """One validation problem, located as ``file:row:column``.

    ``row`` is the 1-based line number in the file (the header is line 1), or ``None`` when
    the problem concerns the whole file.
    """

    file: str
    row: int | None
    column: str | None
    message: str

    def __str__(self) -> str:
        row = "" if self.row is None else str(self.row)
        column = self.column or ""
        return f"{self.file}:{row}:{column}: {self.message}"


class DataValidationError(ForecastError):
    """Raised when data files fail validation; carries every issue found, not just the first."""

    def __init__(self, issues: list[Issue]):
        self.issues = list(issues)
        super().__init__("\n".join(str(issue) for issue in self.issues))


class ScenarioError(ForecastError):
    """Raised when a scenario file is missing, malformed or asks for something impossible."""


class FitError(ForecastError):
    """Raised when a stored fit is missing, incompatible or fails its checks."""


class RefitBusyError(ForecastError):
    """Raised when another refit holds the refit lock."""
