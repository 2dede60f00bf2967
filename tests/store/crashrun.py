"""Child process of the crash tests: a refit that kills itself with SIGKILL at a chosen point.

    python crashrun.py ROOT WORK MODE POINT

MODE is ``toy`` (the refit's real lock, clean-up, registry, temporary directories and publish
around a toy fit instead of sampling; see toyfit.py) or ``real`` (the whole refit, reusing the
stored models). POINT is

- an integer k: die just before the k-th I/O call of the run (an fsync, rename, file copy,
  file write, model save or registry connection); 0 runs to the end and prints how many
  there were (``io-calls N``) and which, in order (``io-log NAME,NAME,...``);
- ``transaction``: die inside the registry transaction recording the run's outcome, after
  its UPDATE and before its COMMIT;
- ``gc``: run ``fits gc`` and die after it removed its first leftover.
"""

from __future__ import annotations

import functools
import os
import pathlib
import shutil
import signal
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

_calls = 0
_kill_at = 0
_log: list[str] = []


def _die(where: str) -> None:
    print(f"killed at {where}", file=sys.stderr, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


def _counted(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _calls
        _calls += 1
        _log.append(name)
        if _calls == _kill_at:
            _die(f"{name} (I/O call {_calls})")
        return function(*args, **kwargs)

    return wrapper


def _instrument() -> None:
    from forecast.models.fitted import Fitted
    from forecast.store.registry import Registry

    os.fsync = _counted("os.fsync", os.fsync)
    os.replace = _counted("os.replace", os.replace)
    shutil.copy2 = _counted("shutil.copy2", shutil.copy2)
    for name in ("write_bytes", "write_text"):
        setattr(pathlib.Path, name, _counted(f"Path.{name}", getattr(pathlib.Path, name)))
    Fitted.save = _counted("Fitted.save", Fitted.save)
    Registry._connect = _counted("Registry._connect", Registry._connect)


def _die_in_transaction() -> None:
    from forecast.store.registry import Registry

    def finish_run(self: Registry, run_id: int, outcome: str, *args: Any, **kw: Any) -> None:
        connection = sqlite3.connect(self.path)
        connection.execute("BEGIN")
        connection.execute("UPDATE runs SET outcome = ? WHERE run_id = ?", (outcome, run_id))
        _die("registry transaction, before COMMIT")

    Registry.finish_run = finish_run


def _toy_body(work: pathlib.Path) -> None:
    """Replace the refit's data merge and sampling by a toy fit; keep its store writes."""
    import toyfit

    from forecast.data.drop import MergeSummary
    from forecast.pipeline import refit as refit_module
    from forecast.store.bundles import fits_dir

    toyfit.register()

    def body(drop: Any, cutoff: Any, root: Any, scenarios: Any, data_dir: Any, say: Any,
             run_id: int, options: Any) -> tuple[Any, Any, Any]:
        prefix = refit_module.REFIT_DATA_PREFIX
        with tempfile.TemporaryDirectory(prefix=prefix, dir=fits_dir(root)) as staged:
            pathlib.Path(staged, "vendor_quarterly_revenue.csv").write_text("a,b\n1,2\n")
            with tempfile.NamedTemporaryFile(delete=False) as source:  # as PyTensor does
                source.write(b"def numba_funcified_fgraph(x):\n    return x\n")
            fit_id = f"20260401T000000-toyrun-{run_id:04d}"
            bundle = toyfit.publish_toy(pathlib.Path(root), fit_id, work, run_id=run_id)
        return bundle, MergeSummary(), None

    refit_module._refit_run = body


def main(argv: list[str]) -> None:
    global _kill_at
    root, work, mode, point = pathlib.Path(argv[1]), pathlib.Path(argv[2]), argv[3], argv[4]
    if mode == "toy":
        _toy_body(work)
    if point == "gc":
        from forecast.store import cleanup

        remove = cleanup._remove

        def remove_then_die(paths: list[pathlib.Path], report: Any) -> None:
            remove(paths[:1], report)
            if paths:
                _die("clean-up, after its first removal")

        cleanup._remove = remove_then_die
        print(cleanup.clean_store(root).describe())
        return
    if point == "transaction":
        _die_in_transaction()
    else:
        _kill_at = int(point)
    _instrument()
    from forecast.pipeline.refit import refit

    gate = {"max_r_hat": 1.2, "min_ess_bulk": 20, "max_divergences": 20}
    result = refit(root=root, gate=gate, report_draws=100)
    print(f"published {result.bundle.fit_id} {result.status}")
    print(f"io-calls {_calls}")
    print(f"io-log {','.join(_log)}")


if __name__ == "__main__":
    main(sys.argv)
