"""Where pure tasks run: serially, on an embedded Dask ``LocalCluster``, or on a user's cluster.

Backtests (models x origins), sensitivity runs and scenario sweeps (grid points x seeds) are
lists of independent, pure tasks. :func:`executor` is a context manager giving a
:class:`TaskMap`: called like the builtin ``map`` (``task_map(fn, items)``), it runs
``fn(item)`` for every item and returns the results **in item order**, whatever ran them and
in whatever order they finished, so a serial run and a distributed run give the same numbers.
It is the ``map_fn`` of :func:`forecast.evaluation.harness.run_backtest`, of the backtests
built on it, of :class:`~forecast.reporting.sensitivity.SimulationSensitivity` and of
:func:`forecast.pipeline.sweep.run_sweep`.

Which executor (:func:`resolve`):

- ``workers=0``: serial, in this process; Dask is not imported.
- ``scheduler="tcp://host:8786"`` (or, when neither argument is given, the environment
  variable :data:`ENV_SCHEDULER`): the user's running Dask cluster. Its workers must have
  this package (and its data) installed at the same version; nothing is started or stopped
  but this client.
- otherwise: an embedded ``LocalCluster`` of ``workers`` processes (default: one per core
  this process may use), one thread each, started at the first map that pays for it and
  closed on exit. PyMC and nutpie hold the GIL in places and compile with numba, so workers
  are processes; each is bound to one core (``sched_setaffinity``) so that a fit inside it
  uses one core whatever its sampler asks and two workers use two cores, not four threads
  fighting over two.

When the local cluster pays (:func:`cluster_pays`): until it has started, a map runs its first
item in this process and times it, wall and CPU seconds, then a second one (the first pays
the warm-ups a fresh worker pays again). If after either the workers would save less time
on the rest of the items (at that time each, times the cores the item kept busy here, as a
worker has one) than :data:`LOCAL_START_SECONDS`, what starting and closing the cluster
costs, the rest run serially here too and the executor's note says so; otherwise the
cluster starts and takes the rest. So a backtest whose fits sample their chains on all the
cores stays here: one-core workers would only run the same chains on the same cores. One
worker never pays (it does this process's work plus the start-up). A user's cluster
(``--scheduler`` or :data:`ENV_SCHEDULER`) is always used: it is already running, and the
user chose its machines for the work.

How items travel (Dask only; :mod:`forecast.pipeline.packing`): the items are cut into
contiguous chunks (a few per worker, so that a worker done early takes another, and at least
:data:`~forecast.pipeline.packing.MIN_CHUNK_SECONDS` of work each when the items were timed),
and each chunk is one Dask task running ``fn`` over its items in order, so the scheduler's
cost is paid per chunk, not per item. An item that is a dataclass is sent field by field,
and a field value that several items share (the same object: a forecaster with its dataset,
a fit bundle) is scattered to the workers once and passed to each chunk by reference,
instead of being pickled into every task. Results are gathered by the client as chunks
complete and put back in item order (a worker that dies afterwards loses nothing); a chunk
running on a worker that dies is rescheduled whole by Dask on the others. Progress
(``on_task``) advances per item in this process and per chunk on the cluster. Workers never
write to the fit store: callers write what the tasks return.

Workers run numpy's BLAS with one thread (Dask's default, as the cores are the workers').
The package's tasks give bit-identical numbers that way and in a multi-threaded serial run
(tested); only a long BLAS reduction, which BLAS splits over its threads, could differ in
the last bits.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from forecast.core.errors import ForecastError
from forecast.pipeline.packing import chunk_bounds, chunk_count, pack_items, run_chunk

#: Environment variable naming the scheduler of a running Dask cluster.
ENV_SCHEDULER = "FORECAST_DASK_SCHEDULER"
#: Seconds to wait for a scheduler to answer, and for its first worker.
CONNECT_TIMEOUT = 30
WORKER_TIMEOUT = 120

#: Seconds that using the embedded ``LocalCluster`` costs the wall clock beyond the work it
#: takes: importing Dask here, spawning the worker processes (each imports numpy, pandas and
#: this package), binding them to cores, shipping the shared data and closing it all at the
#: end. Measured on the 2-core development machine under the load of other jobs (load
#: average 5-7): importing Dask 2.4-3.5 s, starting 2 workers 4.5-6.8 s, closing them
#: 1.3-1.9 s, scattering a sweep's fit 0.3 s; the margin covers the workers' first, colder
#: tasks. A map whose items left would save less than this on the workers
#: (:func:`cluster_pays`) runs serially.
LOCAL_START_SECONDS = 12.0
#: Items a map times in this process before it starts the local cluster (the first pays the
#: warm-ups; the second shows a warm item's cost).
PROBE_ITEMS = 2

#: ``on_task(done, total)``: called with ``(0, total)`` when a map starts and after each
#: result arrives (per item in this process, per chunk of items on a cluster).
OnTask = Callable[[int, int], None]
#: ``say(line)``: where a one-line note on the executor goes.
Say = Callable[[str], None]


def machine_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Plan:
    """What :func:`executor` will run on: ``kind`` is ``serial``, ``local`` or ``cluster``."""

    kind: str
    workers: int = 0
    address: str | None = None


def resolve(workers: int | None = None, scheduler: str | None = None,
            env: Mapping[str, str] | None = None) -> Plan:
    """Choose the executor from the ``--workers`` and ``--scheduler`` options.

    Parameters
    ----------
    workers
        0 for serial; N > 0 for a local cluster of N worker processes; None for the default
        (the scheduler of :data:`ENV_SCHEDULER` when set, else one local worker per core).
    scheduler
        Address of a running scheduler; wins over the environment variable.
    env
        The environment (default ``os.environ``).

    Raises
    ------
    ForecastError
        On negative workers, or workers and a scheduler both given.
    """
    env = os.environ if env is None else env
    if workers is not None and workers < 0:
        raise ForecastError(f"--workers must be >= 0, got {workers}")
    if scheduler is not None and not scheduler.strip():
        raise ForecastError("--scheduler needs an address such as tcp://host:8786")
    if workers is not None and scheduler is not None:
        raise ForecastError("--workers sizes a local cluster; it cannot be combined with "
                            "--scheduler (the cluster's own workers run the tasks)")
    if workers == 0:
        return Plan("serial")
    if workers is None:
        address = scheduler or env.get(ENV_SCHEDULER, "").strip() or None
        if address is not None:
            return Plan("cluster", address=address)
    return Plan("local", workers=workers or machine_cores())


class TaskMap:
    """Runs pure tasks like the builtin ``map`` and returns a list in item order.

    Attributes
    ----------
    description
        One line on where the tasks run, for progress output.
    workers
        How many tasks can run at once (1 when serial).
    """

    description = "serially in this process"
    workers = 1

    def __init__(self, on_task: OnTask | None = None):
        self.on_task = on_task

    def _tick(self, done: int, total: int) -> None:
        if self.on_task is not None:
            self.on_task(done, total)

    def __call__(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """``[fn(item) for item in items]``, one at a time in this process."""
        items = list(items)
        self._tick(0, len(items))
        results = []
        for item in items:
            results.append(fn(item))
            self._tick(len(results), len(items))
        return results


def cluster_pays(remaining_seconds: float, workers: int,
                 start_seconds: float | None = None, cores_used: float = 1.0) -> bool:
    """Whether ``workers`` workers save more than their start-up on this much serial work.

    Each worker is bound to one core, so an item that kept ``cores_used`` cores busy here
    (a fit sampling its chains side by side) takes about that many times as long there:
    the workers take ``remaining_seconds x max(cores_used, 1) / workers`` of wall time
    instead of ``remaining_seconds``. They pay when that saving exceeds ``start_seconds``
    (default :data:`LOCAL_START_SECONDS`). One worker never pays, nor do as many workers
    as the cores the items already use.
    """
    start_seconds = LOCAL_START_SECONDS if start_seconds is None else start_seconds
    slowdown = max(cores_used, 1.0) / workers
    return workers > 1 and remaining_seconds * (1 - slowdown) > start_seconds


def cpu_seconds() -> float:
    """CPU seconds used so far by this process, its threads and its reaped children."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


class DaskTaskMap(TaskMap):
    """Runs the tasks on a Dask cluster through ``client`` (see the module docstring)."""

    def __init__(self, client: Any, description: str, workers: int,
                 on_task: OnTask | None = None):
        super().__init__(on_task)
        self.client = client
        self.description = description
        self.workers = workers

    def __call__(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """Run the items in chunks on the cluster; the results in item order."""
        items = list(items)
        self._tick(0, len(items))
        return self.run_chunks(fn, items)

    def run_chunks(self, fn: Callable[[Any], Any], items: list[Any], *, done: int = 0,
                   total: int | None = None, item_seconds: float | None = None) -> list[Any]:
        """Submit the items in chunks (:func:`~forecast.pipeline.packing.chunk_count`),
        gather the chunks as they complete, return the results in item order.

        ``done`` of ``total`` items were already run elsewhere (progress goes on from there);
        ``item_seconds`` is an item's time where one was measured.
        """
        from distributed import as_completed

        total = len(items) + done if total is None else total
        if not items:
            return []
        packed, shared = pack_items(items)
        refs = (self.client.scatter(shared, broadcast=True, hash=False) if shared else [])
        name = getattr(fn, "__name__", "task").replace("_", "-")
        batch = uuid.uuid4().hex[:10]
        bounds = chunk_bounds(len(items),
                              chunk_count(len(items), self.workers, item_seconds))
        futures = [self.client.submit(run_chunk, fn, packed[begin:end], *refs, pure=False,
                                      key=f"{name}-{batch}-{begin}-{end}")
                   for begin, end in bounds]
        where = {future.key: span for future, span in zip(futures, bounds, strict=True)}
        results: list[Any] = [None] * len(items)
        try:
            for future, chunk in as_completed(futures, with_results=True):
                begin, end = where[future.key]
                results[begin:end] = chunk
                done += end - begin
                self._tick(done, total)
        except Exception as exc:
            self.client.cancel(futures)
            error = _cluster_error(exc)
            if error is exc:
                raise
            raise error from exc
        finally:
            del futures
            if refs:
                self.client.cancel(refs)
        return results


def _cluster_error(exc: Exception) -> Exception:
    """A failure of the cluster as a one-line :class:`ForecastError`; a task's own error
    (raised by the task's code) as it is."""
    from distributed import KilledWorker
    from distributed.comm.core import CommClosedError

    if isinstance(exc, KilledWorker):
        return ForecastError(f"Dask gave up on a task after its workers died: {exc}".strip())
    if isinstance(exc, CommClosedError | ConnectionError):
        return ForecastError(f"lost the connection to the Dask scheduler: {exc}")
    return exc


#: Dask's setting of ``MALLOC_TRIM_THRESHOLD_`` in the workers it spawns (to hand freed
#: memory back to the OS sooner). Setting it turns off glibc's adaptive mmap threshold, so
#: every large numpy array is mapped afresh and its pages faulted in again, system time that
#: numpy-heavy tasks pay on every array; the local cluster leaves it unset. A user's workers
#: can do the same: ``MALLOC_TRIM_THRESHOLD_: null`` under
#: ``distributed.nanny.pre-spawn-environ`` in the Dask configuration of ``dask worker``.
_MALLOC_TUNING = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"


def _pin(cpus: tuple[int, ...], dask_worker: Any = None) -> int | None:
    """Bind this worker process to one of ``cpus`` (by the worker's number); the core."""
    if not hasattr(os, "sched_setaffinity") or dask_worker is None:
        return None
    try:
        index = int(dask_worker.name)
    except (TypeError, ValueError):
        return None
    cpu = cpus[index % len(cpus)]
    os.sched_setaffinity(0, {cpu})
    return cpu


@contextmanager
def _local_cluster(workers: int, on_task: OnTask | None) -> Iterator[DaskTaskMap]:
    """A LocalCluster of ``workers`` one-thread processes, each bound to one core, with
    glibc's own malloc tuning (see :data:`_MALLOC_TUNING`)."""
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set({_MALLOC_TUNING: None}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=":0", silence_logs=logging.ERROR)
    try:
        client = Client(cluster)
        try:
            if hasattr(os, "sched_getaffinity"):
                client.run(_pin, tuple(sorted(os.sched_getaffinity(0))))
            yield DaskTaskMap(client, f"on a local Dask cluster of {workers} worker "
                              "processes (1 thread each)", workers, on_task)
        finally:
            client.close()
    finally:
        cluster.close()


@contextmanager
def _remote_cluster(address: str, on_task: OnTask | None) -> Iterator[DaskTaskMap]:
    """A client of the running cluster at ``address`` (closed on exit; the cluster stays)."""
    from distributed import Client

    try:
        client = Client(address, timeout=f"{CONNECT_TIMEOUT}s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise ForecastError(f"cannot reach the Dask scheduler at {address}: "
                            f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                            ) from None
    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
        except TimeoutError:
            raise ForecastError(f"the Dask scheduler at {address} has no worker "
                                f"(waited {WORKER_TIMEOUT} s)") from None
        workers = sum(w.get("nthreads", 1)
                      for w in client.scheduler_info()["workers"].values())
        yield DaskTaskMap(client, f"on the Dask cluster at {address} ({workers} worker "
                          "threads)", workers, on_task)
    finally:
        client.close()


@contextmanager
def executor(workers: int | None = None, scheduler: str | None = None, *,
             on_task: OnTask | None = None, say: Say | None = None,
             env: Mapping[str, str] | None = None, fallback: bool = True) -> Iterator[TaskMap]:
    """The :class:`TaskMap` chosen by :func:`resolve`; closes what it started on exit.

    Parameters
    ----------
    workers, scheduler, env
        See :func:`resolve`.
    on_task
        Progress: ``on_task(done, total)`` at the start of every map and after each result
        (each item run in this process, each chunk run on a cluster).
    say
        Called with one line saying where the tasks run (again when that changes).
    fallback
        For a local cluster: run a map serially when its work is too small to pay for the
        cluster's start-up (see the module docstring); False starts the cluster at the
        first map whatever its size. A user's cluster is always used.

    Raises
    ------
    ForecastError
        On bad options or Dask not installed; an unreachable scheduler, or one without
        workers, at the first map (the cluster starts or is reached then).
    """
    plan = resolve(workers, scheduler, env)
    if plan.kind == "serial":
        task_map: TaskMap = TaskMap(on_task)
        if say is not None:
            say(f"running tasks {task_map.description}")
        yield task_map
        return
    # Found, not imported: a map too small for the cluster never imports Dask.
    if importlib.util.find_spec("distributed") is None:
        raise ForecastError("Dask is not installed (pip install 'dask[distributed]'); "
                            "--workers 0 runs serially without it")

    def start() -> Any:
        return (_local_cluster(plan.workers, on_task) if plan.kind == "local"
                else _remote_cluster(str(plan.address), on_task))

    fallback_workers = plan.workers if fallback and plan.kind == "local" else None
    with ExitStack() as stack:
        yield LazyTaskMap(start, stack, on_task, say, fallback_workers)


class LazyTaskMap(TaskMap):
    """A :class:`DaskTaskMap` started when a map pays for it, closed by :func:`executor`.

    With ``fallback_workers`` (a local cluster of that many workers, not started yet) each
    map runs its first :data:`PROBE_ITEMS` items here, timing each, and runs the rest here
    too unless :func:`cluster_pays` for them after each; without, the cluster starts at the
    first map. A look at ``client`` or ``workers`` starts it too; ``description`` says where
    the last map ran (before any, what is planned). A command that fails before its first
    task starts no cluster.
    """

    def __init__(self, start: Callable[[], Any], stack: ExitStack, on_task: OnTask | None,
                 say: Say | None, fallback_workers: int | None = None):
        super().__init__(on_task)
        self._start, self._stack, self._say = start, stack, say
        self._inner: DaskTaskMap | None = None
        self._fallback_workers = fallback_workers
        self._note: str | None = None
        if fallback_workers is not None:
            self._note = (f"on a local Dask cluster of {fallback_workers} worker processes "
                          "when the work pays for its start-up, else serially")

    def _tell(self, note: str) -> None:
        """Record where tasks run; say it when it changed."""
        if note != self._note and self._say is not None:
            self._say(f"running tasks {note}")
        self._note = note

    def started(self) -> DaskTaskMap:
        """The running map (starting or connecting to the cluster the first time)."""
        if self._inner is None:
            inner = self._stack.enter_context(self._start())
            self._tell(inner.description)
            self._inner = inner
        self._inner.on_task = self.on_task
        return self._inner

    def __call__(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """See :meth:`DaskTaskMap.__call__`; with the serial fallback as the class says."""
        workers = self._fallback_workers
        if self._inner is not None or workers is None:
            return self.started()(fn, items)
        items = list(items)
        total = len(items)
        self._tick(0, total)
        results: list[Any] = []
        probed: list[tuple[float, float]] = []
        # The first item pays this process's warm-ups (imports, compiled code that later
        # items reuse here but a fresh worker pays again), so a second confirms with a
        # warm item's cost before the cluster starts.
        for _ in range(min(PROBE_ITEMS, total)):
            seconds, cores = self._timed(fn, items[len(results)], results)
            probed.append((seconds, cores))
            self._tick(len(results), total)
            remaining = seconds * (total - len(results))
            if not cluster_pays(remaining, workers, cores_used=cores):
                return self._serially(fn, items, results, probed)
        if len(results) == total:
            return results
        return results + self.started().run_chunks(fn, items[len(results):],
                                                   done=len(results), total=total,
                                                   item_seconds=seconds)

    @staticmethod
    def _timed(fn: Callable[[Any], Any], item: Any, results: list[Any]) -> tuple[float, float]:
        """Run one item here, appending its result: its wall seconds and the cores it used."""
        began, cpu_began = time.perf_counter(), cpu_seconds()
        results.append(fn(item))
        seconds = time.perf_counter() - began
        return seconds, (cpu_seconds() - cpu_began) / max(seconds, 1e-9)

    def _serially(self, fn: Callable[[Any], Any], items: list[Any], results: list[Any],
                  probed: list[tuple[float, float]]) -> list[Any]:
        """Run the items after ``results`` here, saying why (``probed``: the wall seconds
        and cores of each item timed here)."""
        timed = " and ".join(f"{seconds:.2g} s on {max(cores, 1.0):.1f} cores"
                             for seconds, cores in probed)
        self._tell(f"serially in this process: {len(items)} tasks; after the first "
                   f"{len(probed)} here ({timed}) the rest would save less on "
                   f"{self._fallback_workers} one-core workers than their start-up "
                   f"(~{LOCAL_START_SECONDS:.0f} s)")
        for item in items[len(results):]:
            results.append(fn(item))
            self._tick(len(results), len(items))
        return results

    @property
    def client(self) -> Any:
        """The Dask client."""
        return self.started().client

    @property  # type: ignore[override]
    def description(self) -> str:
        if self._inner is not None:
            return self._inner.description
        return self._note if self._note is not None else self.started().description

    @property  # type: ignore[override]
    def workers(self) -> int:
        return self.started().workers
