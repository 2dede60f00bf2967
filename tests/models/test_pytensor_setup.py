"""A fresh install compiles PyTensor graphs without the BLAS warning, and a user's own BLAS
setting is left alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNIPPET = (
    "import forecast.models, pytensor, pytensor.tensor as pt, numpy as np\n"
    "x = pt.matrix('x')\n"
    "print(pytensor.function([x], x.dot(x))(np.eye(2)).sum())\n"
    "print(repr(pytensor.config.blas__ldflags))\n"
)


def _run(env: dict[str, str], snippet: str = SNIPPET) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", snippet], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, **env}, timeout=300)


def test_compiling_a_graph_warns_about_nothing(tmp_path: Path) -> None:
    done = _run({"PYTENSOR_FLAGS": "", "PYTENSORRC": str(tmp_path / "none"),
                 "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "BLAS" not in done.stderr and "Warning" not in done.stderr
    assert done.stdout.split() == ["2.0", "''"]


def test_a_users_own_blas_flags_win(tmp_path: Path) -> None:
    done = _run({"PYTENSOR_FLAGS": "blas__ldflags=-lmissingblas", "HOME": str(tmp_path)},
                "import forecast.models, pytensor\nprint(repr(pytensor.config.blas__ldflags))")
    assert "'-lmissingblas'" in done.stdout
