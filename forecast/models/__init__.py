"""The Bayesian models: one protocol (:mod:`forecast.models.protocol`), one registry
(:mod:`forecast.models.registry`), one package per model.

PyTensor, on first use, searches the system for a BLAS library to link its C code against
and warns on every fresh pip install, where it finds none. The models sample with nutpie
(numba-compiled, no BLAS link needed) and use PyTensor's C backend only for small graphs
(log likelihoods, PyMC's NUTS in tests), so the package declares that choice instead of
searching: no BLAS link. A ``blas__ldflags`` of the user's own, in ``PYTENSOR_FLAGS`` or a
``.pytensorrc`` file, wins. With no link, compiling a graph that holds a GEMM op (the spend
model's log likelihood does) logs a warning that its NumPy C-API fallback is in use: that
fallback is the declared choice, so the package raises that one logger's level.

ArviZ 0.23 announces its coming 1.0 refactor with a FutureWarning on import; the package
pins ``arviz<1``, so that notice is not the user's to act on and is filtered here, before
PyMC or the models import ArviZ.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path


def _declare_no_blas_link() -> None:
    flags = os.environ.get("PYTENSOR_FLAGS", "")
    rc_files = [Path(p) for p in os.environ.get("PYTENSORRC", "").split(os.pathsep) if p]
    rc_files.append(Path.home() / ".pytensorrc")
    configured = "blas__ldflags" in flags or any(
        path.is_file() and "ldflags" in path.read_text(errors="ignore") for path in rc_files)
    if not configured:
        os.environ["PYTENSOR_FLAGS"] = ",".join(filter(None, [flags, "blas__ldflags="]))
        logging.getLogger("pytensor.tensor.blas").setLevel(logging.ERROR)


_declare_no_blas_link()
warnings.filterwarnings("ignore", message="\\s*ArviZ is undergoing a major refactor",
                        category=FutureWarning)
