"""Fixed-width tables for the terminal."""

from __future__ import annotations

import pandas as pd


def table_text(frame: pd.DataFrame) -> str:
    """A DataFrame as the command line prints it: every row and column, no index.

    Parameters
    ----------
    frame
        The table.

    Returns
    -------
    str
        Its text, 200 characters wide at most per line before wrapping, cells cut at 60.
    """
    with pd.option_context(
        "display.max_rows", None, "display.max_columns", None, "display.width", 200,
        "display.max_colwidth", 60,
    ):
        return frame.to_string(index=False)
