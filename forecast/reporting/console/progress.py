"""Progress of distributed tasks on the command line, and the executor the commands share.

On a terminal a progress bar (rich's, when rich is installed) counts the tasks done; when
stderr is not a terminal (a log, CI) plain lines do, about every tenth of the tasks.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from forecast.pipeline.execution import OnTask, TaskMap, executor

#: Plain progress lines per map (at most; every task when there are fewer).
PLAIN_STEPS = 10


class PlainProgress:
    """``on_task`` printing ``tasks done: k/n (s)`` about every tenth of the tasks."""

    def __init__(self, say: Callable[[str], None]):
        self.say = say
        self.started = time.perf_counter()
        self.next_line = 0

    def __call__(self, done: int, total: int) -> None:
        if done == 0:
            self.started = time.perf_counter()
            self.next_line = max(1, total // PLAIN_STEPS)
            self.say(f"{total} tasks")
            return
        if done >= self.next_line or done == total:
            self.say(f"tasks done: {done}/{total} ({time.perf_counter() - self.started:.0f} s)")
            self.next_line = done + max(1, total // PLAIN_STEPS)


class BarProgress:
    """``on_task`` driving a rich progress bar (one bar per map, restarted on each)."""

    def __init__(self, stream: TextIO):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(TextColumn("tasks"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), TimeRemainingColumn(),
                            console=Console(file=stream))
        self.task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if done == 0 or self.task is None:
            if self.task is not None:
                self.bar.remove_task(self.task)
            self.task = self.bar.add_task("tasks", total=total)
        self.bar.update(self.task, completed=done, total=total)


def _has_rich() -> bool:
    try:
        import rich.progress  # noqa: F401
    except ImportError:
        return False
    return True


@contextmanager
def task_progress(say: Callable[[str], None] | None,
                  stream: TextIO | None = None) -> Iterator[OnTask | None]:
    """The ``on_task`` callback for this terminal: a bar on a TTY, plain lines otherwise.

    ``say`` prints a line (None: no progress at all); ``stream`` is the terminal checked
    (default stderr).
    """
    stream = sys.stderr if stream is None else stream
    if say is None:
        yield None
        return
    if not (getattr(stream, "isatty", lambda: False)() and _has_rich()):
        yield PlainProgress(say)
        return
    progress = BarProgress(stream)
    with progress.bar:
        yield progress


@contextmanager
def task_executor(workers: int | None, scheduler: str | None,
                  say: Callable[[str], None] | None) -> Iterator[TaskMap]:
    """The executor of ``--workers`` / ``--scheduler`` with this terminal's progress."""
    with task_progress(say) as on_task, executor(workers, scheduler, on_task=on_task,
                                                 say=say) as task_map:
        yield task_map
