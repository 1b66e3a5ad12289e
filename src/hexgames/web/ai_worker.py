"""The AI thinks in worker processes so the server's event loop never waits for a search.

A search is CPU-bound Python: run in the server's process it would freeze every other game
and every WebSocket. Workers receive only plain data (game name, options, actions in
notation), rebuild the position themselves and answer with the chosen action in notation,
which the server then checks with the engine like any other input.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)


def choose_action(game_name: str, options: dict[str, Any], actions: list[str], level: int,
                  seed: int | None, start: str | None = None) -> str:
    """Runs in a worker: the AI's action (in notation) after ``actions``."""
    from hexgames.ai import player
    from hexgames.game import get_game

    game = get_game(game_name)
    rules = game.make_rules(**options)
    position = game.position_from_text(start, rules) if start else game.new_position(rules)
    for action in actions:
        position.play(action)
    return str(player(game, level, seed=seed).choose(position))


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask, else the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: Levels whose searches are quick (a greedy move, a small MCTS): they get a lane of
#: their own so that they never wait behind the expensive ones.
CHEAP_LEVELS = frozenset({1, 2})


class AiBusy(RuntimeError):
    """Too many searches are waiting: the computer is busy (HTTP 503; try again)."""


class _Lane:
    """One process pool with a bounded number of searches waiting for it.

    At most ``workers`` searches are handed to the pool at a time (the pool's own queue
    stays empty); the others wait here in arrival order, up to ``max_waiting``.
    """

    def __init__(self, name: str, workers: int, max_waiting: int) -> None:
        self.name = name
        self.workers = max(1, workers)
        self.max_waiting = max_waiting
        self.pool: ProcessPoolExecutor | None = None
        self._slots: asyncio.Semaphore | None = None
        self.waiting = 0
        self.running = 0
        self.restarts = 0

    def executor(self) -> ProcessPoolExecutor:
        if self.pool is None:
            self.pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
            )
        return self.pool

    def slots(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.workers)
        return self._slots

    def full(self) -> bool:
        return self.running >= self.workers and self.waiting >= self.max_waiting

    def restart(self, broken: ProcessPoolExecutor | None) -> None:
        """Replace a broken pool (a worker died: killed, out of memory...)."""
        if self.pool is broken and broken is not None:
            self.pool = None
            self.restarts += 1
            log.warning("an AI worker died; restarting the %s pool", self.name)
            _stop(broken)

    def stop(self) -> None:
        pool, self.pool = self.pool, None
        if pool is not None:
            _stop(pool)


def _stop(pool: ProcessPoolExecutor) -> None:
    # The executor has no public way to stop a running task; terminating its processes
    # is the only way not to leave a long search behind the server.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)


class AiWorkers:
    """Process pools for the AI, started on first use and shut down with the app.

    Two lanes: cheap levels (1-2) have one worker of their own, expensive levels (3-5)
    share the other cores, so a beginner's game never waits behind strong searches. Each
    lane lets a bounded number of searches wait (``max_waiting``); past that,
    :class:`AiBusy` ("the computer is busy, try again") instead of an ever longer wait.
    A worker that dies breaks its pool: the pool is rebuilt and the search retried once.

    ``spawn`` rather than ``fork``: the server process runs threads (uvicorn, storage), and
    forking a threaded process can deadlock the child.
    """

    def __init__(self, processes: int | None = None, max_waiting: int = 8) -> None:
        cores = usable_cores()
        # One core stays for the server itself; past 16 workers memory matters more.
        self.processes = max(1, processes if processes else min(16, cores - 1))
        self.lanes = {
            "cheap": _Lane("cheap", 1, max_waiting * 2),
            "expensive": _Lane("expensive", self.processes, max_waiting),
        }

    def lane(self, level: int) -> _Lane:
        return self.lanes["cheap" if level in CHEAP_LEVELS else "expensive"]

    def busy(self, level: int) -> bool:
        """True when a new search at ``level`` would be refused right now."""
        return self.lane(level).full()

    async def choose(self, game_name: str, options: dict[str, Any], actions: list[str],
                     level: int, seed: int | None = None, start: str | None = None) -> str:
        lane = self.lane(level)
        if lane.full():
            raise AiBusy("the computer is busy with other games; try again in a minute")
        lane.waiting += 1
        try:
            await lane.slots().acquire()
        finally:
            lane.waiting -= 1
        lane.running += 1
        try:
            for attempt in (1, 2):
                pool = None
                try:
                    pool = lane.executor()
                    loop = asyncio.get_running_loop()
                    return await loop.run_in_executor(
                        pool, choose_action, game_name, options, list(actions), level, seed, start
                    )
                except BrokenProcessPool:
                    lane.restart(pool)
                    if attempt == 2:
                        raise
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            lane.running -= 1
            lane.slots().release()

    async def run(self, function: Callable[..., T], *args: Any, level: int = 3) -> T:
        """Run ``function(*args)`` (a module-level function of plain data, e.g. an
        analysis) in the lane of ``level``, with the same bounds as :meth:`choose`
        (:class:`AiBusy` when too many searches wait; retried once if a worker died)."""
        lane = self.lane(level)
        if lane.full():
            raise AiBusy("the computer is busy with other games; try again in a minute")
        lane.waiting += 1
        try:
            await lane.slots().acquire()
        finally:
            lane.waiting -= 1
        lane.running += 1
        try:
            for attempt in (1, 2):
                pool = None
                try:
                    pool = lane.executor()
                    loop = asyncio.get_running_loop()
                    return await loop.run_in_executor(pool, function, *args)
                except BrokenProcessPool:
                    lane.restart(pool)
                    if attempt == 2:
                        raise
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            lane.running -= 1
            lane.slots().release()

    def worker_pids(self) -> list[int]:
        """Process ids of the running workers (for tests and diagnostics)."""
        pids: list[int] = []
        for lane in self.lanes.values():
            if lane.pool is not None:
                pids.extend((getattr(lane.pool, "_processes", None) or {}).keys())
        return pids

    def shutdown(self) -> None:
        """Stop the workers now, abandoning a search in progress (its answer is moot)."""
        for lane in self.lanes.values():
            lane.stop()
