"""Where a problem lies in a scenario file, and the small validators that report it.

Every problem is raised as a :class:`~forecast.core.errors.ScenarioError` with a one-line
message ``<file>: <key path>: <what is wrong>``. :class:`Where` carries the ``<file>`` and
``<key path>`` parts; the ``expect_*`` helpers check one value and raise at that location.
These names are internal to :mod:`forecast.scenarios`.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forecast.core.errors import ScenarioError

#: Longest scenario name, input, prior or thesis name: a file stem must stay well within what
#: file systems allow (255 bytes), and a name is read by people.
MAX_NAME_LENGTH = 100
# Scenario names double as file stems, so they must not be able to spell a path.
NAME_PATTERN = re.compile(rf"^[A-Za-z0-9_-]{{1,{MAX_NAME_LENGTH}}}$")
# Input, prior-key and thesis names become DataFrame columns and attribute-like keys.
IDENTIFIER_PATTERN = re.compile(rf"^[A-Za-z_][A-Za-z0-9_]{{0,{MAX_NAME_LENGTH - 1}}}$")
#: Longest text of an offending value or path shown in a message.
_SHOWN = 80
#: Paths are shown whole (a user must find the file) unless absurdly long (a 5,000-character
#: name): an error stays one readable line.
_SHOWN_PATH = 400


def _shortened(text: str, limit: int = _SHOWN) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit // 2]}...{text[-limit // 4:]} ({len(text)} characters)"


def display(path: Path) -> str:
    """Show a path relative to the working directory when it lies below it (long ones cut)."""
    try:
        shown = str(path.resolve().relative_to(Path.cwd().resolve()))
    except (OSError, RuntimeError, ValueError):
        shown = str(path)
    return _shortened(shown, _SHOWN_PATH)


def _format_key(key: str | int) -> str:
    """One key-path part: ``[i]`` for array items, the key, or the key quoted if unusual."""
    if isinstance(key, int):
        return f"[{key}]"
    return key if NAME_PATTERN.match(key) else json.dumps(key)


@dataclass(frozen=True)
class Where:
    """A location in a scenario file, used to build one-line error messages.

    Parameters
    ----------
    file : str
        The file as shown to people (see :func:`display`).
    path : str, default ""
        Dotted key path inside the file, e.g. ``inputs.pue.sigma`` or ``correlations[0]``.
    """

    file: str
    path: str = ""

    def child(self, key: str | int) -> Where:
        """The location of ``key`` (a table key, or an array position) below this one."""
        part = _format_key(key)
        if isinstance(key, int) or not self.path:
            return Where(self.file, f"{self.path}{part}")
        return Where(self.file, f"{self.path}.{part}")

    def error(self, message: str) -> ScenarioError:
        """A :class:`ScenarioError` reading ``<file>: <path>: <message>`` on one line."""
        location = f"{self.file}: {_shortened(self.path)}: " if self.path else f"{self.file}: "
        # One line always, whatever a file name or key holds: the CLI prints it as is.
        return ScenarioError(" ".join(f"{location}{message}".split()))


def fmt(value: Any) -> str:
    """Show an offending value in a message: floats compactly, strings quoted, long ones cut."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return repr(value) if len(value) <= _SHOWN else repr(_shortened(value))
    try:
        text = str(value)
    except (RecursionError, ValueError):  # deeply nested, or an int of over 4300 digits
        text = f"<{type(value).__name__}>"
    return _shortened(text)


def check_keys(
    table: Mapping[str, Any],
    allowed: Sequence[str],
    required: Sequence[str],
    where: Where,
) -> None:
    """Reject unknown keys (with a spelling hint) first, then missing required keys."""
    for key in table:
        if key not in allowed:
            hint = difflib.get_close_matches(str(key)[:_SHOWN], list(allowed), n=1)
            suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
            raise where.child(key).error(f"unknown key (allowed: {', '.join(allowed)}){suggestion}")
    for key in required:
        if key not in table:
            raise where.child(key).error("required key missing")


def expect_table(value: Any, where: Where) -> dict[str, Any]:
    """``value`` if it is a TOML table, else a located error."""
    if not isinstance(value, dict):
        raise where.error(f"must be a table, got {type(value).__name__}")
    return value


def expect_str(value: Any, where: Where) -> str:
    """``value`` if it is a non-blank string, else a located error."""
    if not isinstance(value, str) or not value.strip():
        raise where.error(f"must be a non-empty string, got {fmt(value)}")
    return value


def expect_int(value: Any, where: Where) -> int:
    """``value`` if it is an integer (booleans are not), else a located error."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.error(f"must be an integer, got {fmt(value)}")
    return value


def expect_number(value: Any, where: Where, *, allow_infinite: bool = False) -> float:
    """``value`` as a float if it is a finite number (or infinite, when allowed)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise where.error(f"must be a number, got {fmt(value)}")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond the float range
        raise where.error(f"must be a finite number, got {fmt(value)}") from None
    if math.isnan(number) or (math.isinf(number) and not allow_infinite):
        raise where.error(f"must be a finite number, got {fmt(value)}")
    return number


def expect_name(value: Any, where: Where, pattern: re.Pattern[str], what: str) -> str:
    """``value`` if it is a string matching ``pattern``; ``what`` names it in the message."""
    if not isinstance(value, str) or not pattern.match(value):
        raise where.error(f"{what} must match {pattern.pattern}, got {fmt(value)}")
    return value
