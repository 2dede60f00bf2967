"""What a fit id may be: the name of a directory of the fit store, given on a command line.

Fit ids are made as ``<UTC time>-<data hash prefix>-<random suffix>``
(:func:`forecast.store.bundles.new_fit_id`); an id a user types is looked up as a directory
name, so anything that cannot be one (a path separator, a name longer than a file system
takes) is bad input, refused before any file is touched.
"""

from __future__ import annotations

import re
from typing import Final

from forecast.core.errors import ForecastError

__all__ = ["FIT_ID_PATTERN", "MAX_FIT_ID_LENGTH", "check_fit_id"]

#: Longest fit id (the ids made are 29 characters; a file name may have 255 bytes).
MAX_FIT_ID_LENGTH: Final = 100
#: Letters, digits, ``-`` and ``_``, starting with a letter or digit.
FIT_ID_PATTERN: Final = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9_-]{{0,{MAX_FIT_ID_LENGTH - 1}}}$")


def check_fit_id(text: str, what: str = "fit id") -> str:
    """``text`` if it can be a fit id, else a one-line :class:`ForecastError` naming ``what``.

    Raises
    ------
    ForecastError
        On an empty, over-long or malformed id.
    """
    if FIT_ID_PATTERN.match(text):
        return text
    shown = text if len(text) <= 40 else f"{text[:20]!s}...{text[-10:]!s}"
    reason = (f"longer than {MAX_FIT_ID_LENGTH} characters ({len(text)})"
              if len(text) > MAX_FIT_ID_LENGTH else
              "not letters, digits, '-' and '_' (as `fits list` shows ids)")
    raise ForecastError(f"{what} {shown!r} is {reason}")
