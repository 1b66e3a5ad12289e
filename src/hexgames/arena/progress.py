"""Progress of ``hexgames arena``, ``report`` and ``sweep``: a bar on a terminal, lines
at a steady pace anywhere else.

Rich's bar only draws on a terminal; under ``nohup``, in CI or through ``tee`` it would
show nothing until the end of a run that may take hours. :func:`game_progress` returns
the bar on a terminal and :class:`LineProgress` otherwise: one plain line per task every
:data:`LINE_SECONDS` (games done of all, elapsed time, an estimate of the time left),
written by a background thread so that the lines keep coming while a long game is
played, and a last line when a task completes.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

#: Seconds between two progress lines when the output is not a terminal.
LINE_SECONDS = 15.0


def game_progress(console: Console, *, line_seconds: float = LINE_SECONDS
                  ) -> Progress | LineProgress:
    """A bar with games done/total, elapsed time and an ETA on a terminal; plain lines
    every ``line_seconds`` otherwise. Both offer ``add_task(description, total=N)``,
    ``advance(task)`` and use as a context manager."""
    if console.is_terminal:
        return Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("games"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
        )
    return LineProgress(console, line_seconds)


@dataclass
class _Task:
    description: str
    total: int
    done: int = 0
    started: float = 0.0
    finished: bool = False


class LineProgress:
    """Plain progress lines for output that is not a terminal (see the module)."""

    def __init__(self, console: Console, line_seconds: float = LINE_SECONDS) -> None:
        if line_seconds <= 0:
            raise ValueError(f"line_seconds must be positive, got {line_seconds}")
        self.console = console
        self.line_seconds = line_seconds
        self._tasks: list[_Task] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> LineProgress:
        self._thread = threading.Thread(target=self._tick, name="progress-lines", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def add_task(self, description: str, total: int) -> TaskID:
        with self._lock:
            self._tasks.append(_Task(description, total, started=time.perf_counter()))
            number = len(self._tasks) - 1
            self._line(self._tasks[number])
        return TaskID(number)

    def advance(self, task: TaskID, advance: int = 1) -> None:
        with self._lock:
            state = self._tasks[int(task)]
            state.done += advance
            if state.done >= state.total and not state.finished:
                state.finished = True
                self._line(state)

    def report(self) -> None:
        """A line for every task still running, now (the background thread's tick)."""
        with self._lock:
            for state in self._tasks:
                if not state.finished:
                    self._line(state)

    def _tick(self) -> None:
        while not self._stop.wait(self.line_seconds):
            self.report()

    def _line(self, state: _Task) -> None:
        elapsed = time.perf_counter() - state.started
        text = f"{state.description}: {state.done}/{state.total} games, {_clock(elapsed)} elapsed"
        if state.finished:
            text += ", done"
        elif state.done:
            left = elapsed / state.done * (state.total - state.done)
            text += f", about {_clock(left)} left"
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)


def _clock(seconds: float) -> str:
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
