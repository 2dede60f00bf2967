"""Regenerate the published fit that ships with the package (``python cli.py fits ship``).

Fits every shipped scenario (``scenarios/*.toml``: bull, base and bear) on the project's
``data/`` at the models' default samplers and default gate, in a private temporary fit store
(nothing is reused from the user's own store: a fit there may have used lighter samplers),
then reduces the fit into ``published/`` (:func:`forecast.store.shipped.write_shipped`).
A fit that fails the gate is not shipped. Run it only when a model or the data change: each
regeneration adds the fit's files to the repository's history.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from forecast.core.errors import FitError
from forecast.store.bundles import load_bundle
from forecast.store.shipped import KEEP_SAMPLES, write_shipped


def ship_fit(target: str | Path | None = None, keep: int = KEEP_SAMPLES,
             progress: Callable[[str], None] | None = None) -> Path:
    """Fit the shipped scenarios on ``data/`` and write the shipped fit.

    Parameters
    ----------
    target
        Directory to write (default ``published/``).
    keep
        Posterior draws kept per model.
    progress
        Called with one line per fitting step.

    Returns
    -------
    pathlib.Path
        The shipped fit's directory.

    Raises
    ------
    FitError
        When a model fails its convergence gate (nothing is written).
    """
    from forecast.data.dataset import DEFAULT_DATA_DIR, load_dataset
    from forecast.pipeline.fitting import fit_all
    from forecast.scenarios import list_scenarios

    say = progress or (lambda message: None)
    dataset = load_dataset(DEFAULT_DATA_DIR)
    with tempfile.TemporaryDirectory(prefix="forecast-ship-") as root:
        bundle = fit_all(dataset, list_scenarios(), root=root, progress=say, reuse=False,
                         extra_meta={"run_kind": "shipped"})
        if bundle.status != "published":
            why = "; ".join(f"{key}: {', '.join(reasons)}"
                            for key, reasons in bundle.meta["gate_failures"].items())
            raise FitError(f"the fit failed its convergence gate ({why}); nothing shipped")
        say(f"reducing fit {bundle.fit_id} to the shipped fit...")
        return write_shipped(load_bundle(bundle.fit_id, root), target, keep)
