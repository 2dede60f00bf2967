"""Child process of the crash tests: a refit that kills itself with SIGKILL at a chosen point.

    python crashrun.py ROOT WORK MODE POINT
    python crashrun.py serve


MODE is ``toy`` (the refit's real lock, clean-up, registry, temporary directories and publish
around a toy fit instead of sampling; see toyfit.py) or ``real`` (the whole refit, reusing the
stored models). POINT is

- an integer k: die just before the k-th I/O call of the run (an fsync, rename, file copy,
  file write, model save or registry connection); 0 runs to the end and prints how many
  there were (``io-calls N``) and which, in order (``io-log NAME,NAME,...``);
- ``transaction``: die inside the registry transaction recording the run's outcome, after
  its UPDATE and before its COMMIT;
- ``gc``: run ``fits gc`` and die after it removed its first leftover.

``serve`` imports what a toy run imports once, then reads one JSON request a line on stdin,
``[ROOT, WORK, MODE, POINT]``, runs it in a child forked from this warm process (so a run
still starts from nothing of an earlier run's state, and its SIGKILL ends only the child) and
answers one JSON line: the child's return code (negative: the signal that ended it), stdout
and stderr. The tests' many toy runs would otherwise each spend most of their time importing.
"""

from __future__ import annotations

import functools
import json
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


def serve() -> None:
    """Answer run requests on stdin with runs in forked children (see the module docstring)."""
    import threading

    # What a toy run imports: the store, ArviZ (a toy fit's InferenceData), h5netcdf and
    # Dask (xarray asks Dask for its scheduler whenever it writes a netCDF file).
    import arviz  # noqa: F401
    import dask.distributed  # noqa: F401
    import h5netcdf  # noqa: F401
    import toyfit  # noqa: F401

    import forecast.pipeline.refit  # noqa: F401
    import forecast.store.cleanup  # noqa: F401

    assert threading.active_count() == 1, "no thread may run when the server forks"

    for count, line in enumerate(sys.stdin):
        request = json.loads(line)
        work = pathlib.Path(request[1])
        work.mkdir(parents=True, exist_ok=True)
        out, err = work / f"served-{count}.out", work / f"served-{count}.err"
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(["crashrun.py", *request], out, err)
        _, status = os.waitpid(pid, 0)
        answer = {"returncode": os.waitstatus_to_exitcode(status),
                  "stdout": out.read_text(), "stderr": err.read_text()}
        out.unlink()
        err.unlink()
        print(json.dumps(answer), flush=True)


def _child(argv: list[str], out: pathlib.Path, err: pathlib.Path) -> None:
    """A forked run: its output to ``out`` and ``err``; it never returns to the server."""
    code = 0
    with out.open("w") as stdout, err.open("w") as stderr:
        os.dup2(stdout.fileno(), 1)
        os.dup2(stderr.fileno(), 2)
        try:
            main(argv)
        except SystemExit as exc:
            code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)


if __name__ == "__main__":
    serve() if sys.argv[1:] == ["serve"] else main(sys.argv)
