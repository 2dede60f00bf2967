"""The example notebook runs on the shipped fit with no error and no warning in its outputs.

``examples/quickstart.ipynb`` is committed executed; here a copy is executed again from the
first cell, in an empty fit store (so the published fit serves it), as a reader would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "quickstart.ipynb"


def _outputs(notebook) -> list[dict]:
    return [output for cell in notebook.cells if cell.cell_type == "code"
            for output in cell.get("outputs", [])]


def test_the_quickstart_notebook_runs_clean(tmp_path, monkeypatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("FORECAST_ARTIFACTS", str(tmp_path / "artifacts"))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    outputs = _outputs(notebook)
    assert not [o for o in outputs if o.output_type == "error"]
    stderr = [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    assert not stderr, stderr
    assert not [o for o in outputs if "Warning" in str(o.get("text", ""))]
    # The committed copy is the executed one: a reader sees these outputs without running it.
    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert len(_outputs(committed)) == len(outputs)
