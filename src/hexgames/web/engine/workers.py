"""The AI thinks in worker processes so the server's event loop never waits for a search.

A search is CPU-bound Python: run in the server's process it would freeze every other game
and every WebSocket. Workers receive only plain data (game name, options, actions in
notation) and answer with the chosen action in notation, which the server then checks
with the engine like any other input.

**Sessions.** Each worker process keeps one AI *session* per game (its position and its
player, so the MCTS tree) and the server sends a game to the same worker while that
session lives, so the tree is reused across the actions of a turn and across turns,
exactly as when the arena plays a game. A session that is missing (first call, worker
restarted, session evicted after ``idle_seconds`` or past ``max_sessions`` per worker) is
rebuilt from the actions, and its first search then gets the full budget (the MCTS cuts a
continuation's budget only when it reused a tree).

**Pondering.** For the levels in ``ponder_levels`` (level 5), after the AI has moved and
it is the opponent's turn, its worker goes on growing that game's tree until the next
request reaches that worker (the opponent's move, or any other game's), at most
``ponder_seconds``, and only when no search waits in its lane, so it never delays
another game.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar, cast

from hexgames.phrases import N_

T = TypeVar("T")

log = logging.getLogger(__name__)


def choose_action(game_name: str, options: dict[str, Any], actions: list[str], level: int,
                  seed: int | None, start: str | None = None) -> str:
    """Runs in a worker: the AI's action (in notation) after ``actions``, by a new player
    (a search without a game: no session to keep its tree)."""
    from hexgames.ai import player

    position = _replay(game_name, options, actions, start)
    return str(player(game_name, level, seed=seed).choose(position))


def _replay(game_name: str, options: dict[str, Any], actions: list[str],
            start: str | None) -> Any:
    from hexgames.game import get_game

    game = get_game(game_name)
    rules = game.make_rules(**options)
    position = game.position_from_text(start, rules) if start else game.new_position(rules)
    for action in actions:
        position.play(action)
    return position


# --------------------------------------------------------- in the worker processes
@dataclass
class _Session:
    """One game's AI in a worker: its position (following the game's actions) and its
    player, whose MCTS tree survives between calls."""

    signature: tuple[Any, ...]
    position: Any
    actions: list[str]
    player: Any
    used: float = field(default_factory=time.monotonic)
    searches: int = 0


_SESSIONS: OrderedDict[str, _Session] = OrderedDict()
#: Set by the server to stop a ponder (a multiprocessing Event, given at start-up).
_CANCEL: Any = None


def _init_worker(cancel: Any) -> None:
    """A worker's start: the event that stops a ponder; Ctrl+C ignored (a terminal sends
    it to the whole process group: the server stops its workers itself, and a worker
    interrupted on its own would only print a traceback)."""
    import signal

    global _CANCEL
    _CANCEL = cancel
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _session(game_id: str, game_name: str, options: dict[str, Any], actions: list[str],
             level: int, seed: int | None, start: str | None, max_sessions: int,
             idle_seconds: float) -> tuple[_Session, str]:
    """The session of ``game_id`` brought to ``actions``, and how: ``kept`` (the same
    session, its position advanced), ``replayed`` (the same player, the position rebuilt
    after an undo) or ``new`` (none, or one for other settings: rebuilt from history)."""
    from hexgames.ai import player

    now = time.monotonic()
    for key, old in list(_SESSIONS.items()):
        if key != game_id and now - old.used > idle_seconds:
            del _SESSIONS[key]
    signature = (game_name, json.dumps(options, sort_keys=True, default=str), level, start)
    session = _SESSIONS.get(game_id)
    if session is None or session.signature != signature:
        session = _Session(signature, _replay(game_name, options, actions, start),
                           list(actions), player(game_name, level, seed=seed))
        how = "new"
    elif actions[: len(session.actions)] != session.actions:
        session.position = _replay(game_name, options, actions, start)
        how = "replayed"
    else:
        how = "kept"
        try:
            for action in actions[len(session.actions):]:
                session.position.play(action)
        except Exception:  # out of step somehow: rebuild from the history
            session.position = _replay(game_name, options, actions, start)
            how = "replayed"
    session.actions = list(actions)
    session.used = now
    _SESSIONS[game_id] = session
    _SESSIONS.move_to_end(game_id)
    while len(_SESSIONS) > max(1, max_sessions):
        _SESSIONS.popitem(last=False)
    return session, how


def session_choose(game_id: str, game_name: str, options: dict[str, Any],
                   actions: list[str], level: int, seed: int | None, start: str | None,
                   max_sessions: int, idle_seconds: float) -> dict[str, Any]:
    """Runs in a worker: the AI's action for ``game_id`` by its session, with facts about
    the search (``session``: kept/replayed/new, ``reused``: tree visits reused, ...)."""
    session, how = _session(game_id, game_name, options, actions, level, seed, start,
                            max_sessions, idle_seconds)
    position = session.position
    seat = position.current_seat
    action = session.player.choose(position)
    session.searches += 1
    stats = dict(getattr(session.player, "last_stats", {}) or {})
    position.play(action)
    try:  # worth pondering: the opponent is to move next
        opponent_next = not position.is_over and position.current_seat != seat
    finally:
        position.undo()
    return {
        "action": str(action),
        "session": how,
        "reused": int(stats.get("reused", 0) or 0),
        "iterations": int(stats.get("iterations", 0) or 0),
        "share": stats.get("share"),
        "reason": stats.get("reason"),
        "searches": session.searches,
        "sessions": len(_SESSIONS),
        "opponent_next": opponent_next,
        "pid": os.getpid(),
    }


def session_ponder(game_id: str, actions: list[str], seconds: float) -> dict[str, Any]:
    """Runs in a worker: grow the tree of ``game_id``'s session at ``actions`` (its last
    action being the AI's own) until the server sets the cancel event, or ``seconds``."""
    session = _SESSIONS.get(game_id)
    ponder = getattr(session.player, "ponder", None) if session is not None else None
    if session is None or ponder is None or actions[:-1] != session.actions:
        return {"iterations": 0, "stopped": "no session"}
    session.position.play(actions[-1])
    session.actions = list(actions)
    cancel = _CANCEL
    stop = cancel.is_set if cancel is not None else (lambda: False)
    done = ponder(session.position, stop, deadline=time.perf_counter() + seconds)
    session.used = time.monotonic()
    stopped = "cancelled" if stop() else "ended"
    return {"iterations": done, "stopped": stopped, "pid": os.getpid()}


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


class AiStuck(AiBusy):
    """A search missed its bound twice, on two fresh workers: the computer cannot
    answer this request (HTTP 503, ``ai_error`` in a game). Each stuck worker was
    replaced, so every other game goes on."""


#: Seconds a search (or an analysis) may run in a worker before the worker is judged
#: stuck, replaced, and the request handed to the fresh one. The levels have no time
#: cap (their budgets are iterations), so this is a bound on a bug, far above any
#: level's search on a slow machine (level 5: a few seconds).
SEARCH_SECONDS = 120.0
#: Seconds a cancelled ponder may take to report back before its worker is replaced: a
#: ponder polls its stop event every few milliseconds.
CANCEL_GRACE_SECONDS = 10.0


@dataclass
class Answer:
    """The AI's action and what its worker reported about the search (``info``:
    ``session`` kept/replayed/new, ``reused`` tree visits, ``iterations``, ``slot``,
    ``ponder`` (the ponder this search ended, if any) ...)."""

    action: str
    info: dict[str, Any] = field(default_factory=dict)


class _RecordingContext:
    """The spawn context, keeping the processes it starts: the pool's ``mp_context`` (a
    documented parameter) is how a pool's workers are known without reading the
    executor's private attributes (to stop a stuck search, and for :meth:`worker_pids`)."""

    def __init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")
        self.processes: list[BaseProcess] = []

    def Process(self, *args: Any, **kwargs: Any) -> BaseProcess:
        process = self._context.Process(*args, **kwargs)
        self.processes.append(process)
        return process

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class _WorkerPool(ProcessPoolExecutor):
    """A one-process pool whose worker gets the ponder's stop event, and which knows its
    worker processes (:meth:`processes`)."""

    def __init__(self, cancel: Any) -> None:
        self._recording = _RecordingContext()
        # A stand-in for the spawn context (it forwards all but Process to it): the
        # executor only calls a context's documented methods.
        super().__init__(max_workers=1, mp_context=cast(BaseContext, self._recording),
                         initializer=_init_worker, initargs=(cancel,))

    def processes(self) -> list[BaseProcess]:
        """Every worker process this pool started (alive or not)."""
        return list(self._recording.processes)


class _Slot:
    """One worker process (a one-process pool) of a lane: the sessions of the games routed
    to it live there. ``lock`` lets one search at a time hand work to it."""

    def __init__(self, lane: str, index: int) -> None:
        self.lane = lane
        self.index = index
        self.pool: _WorkerPool | None = None
        self.cancel: Any = None
        self._lock: asyncio.Lock | None = None
        #: The ponder running there (a future of the pool) and its game.
        self.pondering: Future[dict[str, Any]] | None = None
        self.ponder_game: str | None = None
        #: Workers of this slot stopped because they were stuck (missed a bound).
        self.replaced = 0

    def lock(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    def busy(self) -> bool:
        return self.lock().locked()

    def executor(self) -> _WorkerPool:
        if self.pool is None:
            self.cancel = multiprocessing.get_context("spawn").Event()
            self.pool = _WorkerPool(self.cancel)
        return self.pool

    async def stop_pondering(self, grace: float = CANCEL_GRACE_SECONDS
                             ) -> tuple[str | None, dict[str, Any] | None]:
        """Cancel the ponder running here (if any); (its game, its report). A ponder
        that does not stop within ``grace`` seconds is stuck: its worker is stopped
        (the caller's search starts a fresh one) and the report is None."""
        future, game = self.pondering, self.ponder_game
        self.pondering = self.ponder_game = None
        if future is None:
            return None, None
        if self.cancel is not None:
            self.cancel.set()
        try:
            return game, await asyncio.wait_for(asyncio.wrap_future(future), grace)
        except TimeoutError:
            log.warning("an AI worker did not stop pondering within %.0f s; replacing "
                        "worker %d of the %s lane", grace, self.index, self.lane)
            self.replaced += 1
            self.stop()
            return game, None
        except Exception:  # the worker died meanwhile: the next search notices
            return game, None

    def stop(self) -> None:
        pool, self.pool = self.pool, None
        self.pondering = self.ponder_game = None
        if self.cancel is not None:
            self.cancel.set()
        if pool is not None:
            _stop(pool)

    async def call(self, seconds: float, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in this slot's worker, bounded by ``seconds``: a worker
        that misses the bound is stuck (a search that does not stop), so it is stopped
        (the next call starts a fresh one) and :class:`TimeoutError` raised."""
        pool = self.executor()
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(loop.run_in_executor(pool, function, *args),
                                          seconds)
        except TimeoutError:
            if self.pool is pool:
                log.warning("an AI worker missed its %.0f s bound; replacing worker %d "
                            "of the %s lane", seconds, self.index, self.lane)
                self.replaced += 1
                self.stop()
            raise


class _Lane:
    """Worker processes (slots) with a bounded number of searches waiting for them.

    A game keeps its slot while its session may live there (its affinity, forgotten
    after ``idle_seconds``); a game without one, or whose slot is busy while another is
    free, goes to the least loaded free slot (rebuilding its session there). Searches
    that find their slot busy wait here, up to ``max_waiting``.
    """

    def __init__(self, name: str, workers: int, max_waiting: int,
                 idle_seconds: float = 600.0) -> None:
        self.name = name
        self.workers = max(1, workers)
        self.max_waiting = max_waiting
        self.idle_seconds = idle_seconds
        self.slots = [_Slot(name, i) for i in range(self.workers)]
        #: game id -> (slot index, last use), most recently used last.
        self.affinity: OrderedDict[str, tuple[int, float]] = OrderedDict()
        #: Calls waiting for a slot, and how many of them are jobs (:meth:`AiWorkers.run`:
        #: analysis, hints) rather than games' searches.
        self.waiting = 0
        self.waiting_jobs = 0
        self.running = 0
        self.restarts = 0

    @property
    def pool(self) -> _WorkerPool | None:
        """The first slot's pool (for callers of the one-pool lane of old)."""
        return self.slots[0].pool

    def full(self) -> bool:
        """No room for another game's search: analysis and hints waiting do not count,
        so no flood of them can make a game's move refused (they have their own share,
        :meth:`jobs_full`)."""
        games_waiting = self.waiting - self.waiting_jobs
        return self.running >= self.workers and games_waiting >= self.max_waiting

    def jobs_full(self) -> bool:
        """No room for another job (analysis, a hint): half the games' share may wait."""
        return (self.running >= self.workers
                and self.waiting_jobs >= max(1, self.max_waiting // 2))

    def slot_for(self, game_id: str | None) -> _Slot:
        now = time.monotonic()
        while self.affinity:
            oldest, (_, used) = next(iter(self.affinity.items()))
            if now - used <= self.idle_seconds and len(self.affinity) <= 100_000:
                break
            del self.affinity[oldest]
        known = self.affinity.get(game_id) if game_id is not None else None
        free = [slot for slot in self.slots if not slot.busy()]
        if known is not None and (not self.slots[known[0]].busy() or not free):
            slot = self.slots[known[0]]
        else:
            load = {slot.index: 0 for slot in self.slots}
            for index, _ in self.affinity.values():
                load[index] += 1
            slot = min(free or self.slots, key=lambda s: (s.busy(), load[s.index], s.index))
        if game_id is not None:
            self.affinity[game_id] = (slot.index, now)
            self.affinity.move_to_end(game_id)
        return slot

    def restart(self, slot: _Slot, broken: _WorkerPool | None) -> None:
        """Replace a broken worker (it died: killed, out of memory...); its sessions are
        gone and will be rebuilt from the games' histories."""
        if slot.pool is broken and broken is not None:
            slot.pool = None
            slot.pondering = slot.ponder_game = None
            self.restarts += 1
            log.warning("an AI worker died; restarting worker %d of the %s lane",
                        slot.index, self.name)
            _stop(broken)

    def stop(self) -> None:
        for slot in self.slots:
            slot.stop()


def _stop(pool: _WorkerPool) -> None:
    # The executor has no public way to stop a running task; terminating its processes
    # is the only way not to leave a long search behind the server.
    processes = pool.processes()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():  # stuck in compiled code that ignores SIGTERM's handler
            process.kill()
            process.join(timeout=5)


class AiWorkers:
    """Worker processes for the AI, started on first use and shut down with the app.

    Two lanes: cheap levels (1-2) have one worker of their own, expensive levels (3-5)
    share the other cores, so a beginner's game never waits behind strong searches. Each
    lane lets a bounded number of searches wait (``max_waiting``); past that,
    :class:`AiBusy` ("the computer is busy, try again") instead of an ever longer wait.
    A worker that dies is restarted and the search retried once (its sessions are
    rebuilt from the histories).

    With a ``game_id``, a search goes to that game's session (see the module's
    docstring); ``max_sessions`` bounds the sessions per worker and ``idle_seconds``
    evicts unused ones; without a ``game_id`` a new player searches. ``ponder_levels``
    think on the opponent's time for at most ``ponder_seconds``.

    ``spawn`` rather than ``fork``: the server process runs threads (uvicorn, storage), and
    forking a threaded process can deadlock the child.
    """

    def __init__(self, processes: int | None = None, max_waiting: int = 8, *,
                 max_sessions: int = 16, idle_seconds: float = 600.0,
                 ponder_levels: frozenset[int] | set[int] = frozenset({5}),
                 ponder_seconds: float = 30.0,
                 search_seconds: float = SEARCH_SECONDS,
                 cancel_grace: float = CANCEL_GRACE_SECONDS) -> None:
        cores = usable_cores()
        # One core stays for the server itself; past 16 workers memory matters more.
        self.processes = max(1, processes if processes else min(16, cores - 1))
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self.ponder_levels = frozenset(ponder_levels)
        self.ponder_seconds = ponder_seconds
        self.search_seconds = search_seconds
        self.cancel_grace = cancel_grace
        #: Ponders started, and those stopped by a request (for tests and diagnostics).
        self.ponders = 0
        self.ponders_cancelled = 0
        self.lanes = {
            "cheap": _Lane("cheap", 1, max_waiting * 2, idle_seconds),
            "expensive": _Lane("expensive", self.processes, max_waiting, idle_seconds),
        }

    def lane(self, level: int) -> _Lane:
        return self.lanes["cheap" if level in CHEAP_LEVELS else "expensive"]

    def busy(self, level: int) -> bool:
        """True when a new search at ``level`` would be refused right now."""
        return self.lane(level).full()

    async def choose(self, game_name: str, options: dict[str, Any], actions: list[str],
                     level: int, seed: int | None = None, start: str | None = None,
                     game_id: str | None = None) -> str:
        """The AI's action in notation (see :meth:`search`)."""
        answer = await self.search(game_name, options, actions, level, seed=seed,
                                   start=start, game_id=game_id)
        return answer.action

    async def search(self, game_name: str, options: dict[str, Any], actions: list[str],
                     level: int, seed: int | None = None, start: str | None = None,
                     game_id: str | None = None) -> Answer:
        """The AI's action after ``actions``, by ``game_id``'s session when given."""
        lane = self.lane(level)
        if lane.full():
            raise AiBusy(N_("the computer is busy with other games; try again in a minute"))
        use_session = game_id is not None
        slot = lane.slot_for(game_id if use_session else None)
        lane.waiting += 1
        try:
            await slot.lock().acquire()
        finally:
            lane.waiting -= 1
        lane.running += 1
        try:
            pondered_game, pondered = await slot.stop_pondering(self.cancel_grace)
            if pondered is not None:
                self.ponders_cancelled += pondered.get("stopped") == "cancelled"
            if use_session and game_id is not None:
                info = await self._bounded(lane, slot, session_choose, game_id, game_name,
                                           options, list(actions), level, seed, start,
                                           self.max_sessions, self.idle_seconds)
            else:
                action = await self._bounded(lane, slot, choose_action, game_name, options,
                                             list(actions), level, seed, start)
                info = {"action": action, "session": None}
            info["slot"] = (lane.name, slot.index)
            if pondered_game is not None and pondered_game == game_id:
                info["ponder"] = pondered
            answer = Answer(str(info.pop("action")), info)
            if (use_session and level in self.ponder_levels and info.get("opponent_next")
                    and lane.waiting == 0):
                self._ponder(slot, str(game_id), [*actions, answer.action])
            return answer
        finally:
            lane.running -= 1
            slot.lock().release()

    def _ponder(self, slot: _Slot, game_id: str, actions: list[str]) -> None:
        pool = slot.pool
        if pool is None or slot.cancel is None:
            return
        slot.cancel.clear()
        try:
            slot.pondering = pool.submit(session_ponder, game_id, actions, self.ponder_seconds)
        except (BrokenProcessPool, RuntimeError):  # a dead or stopped worker: no ponder
            return
        slot.ponder_game = game_id
        self.ponders += 1

    async def run(self, function: Callable[..., T], *args: Any, level: int = 3) -> T:
        """Run ``function(*args)`` (a module-level function of plain data, e.g. an
        analysis) in the lane of ``level``, with the same bounds as :meth:`choose`
        (:class:`AiBusy` when too many jobs wait: a share of their own, apart from the
        games'; retried once if a worker died, replaced if stuck)."""
        lane = self.lane(level)
        if lane.jobs_full():
            raise AiBusy(N_("the computer is busy with other analyses; try again in a minute"))
        slot = lane.slot_for(None)  # no session: the least loaded free worker
        lane.waiting += 1
        lane.waiting_jobs += 1
        try:
            await slot.lock().acquire()
        finally:
            lane.waiting -= 1
            lane.waiting_jobs -= 1
        lane.running += 1
        try:
            await slot.stop_pondering(self.cancel_grace)  # a ponder must not hold the worker
            return await self._bounded(lane, slot, function, *args)
        finally:
            lane.running -= 1
            slot.lock().release()

    async def _bounded(self, lane: _Lane, slot: _Slot, function: Callable[..., T],
                       *args: Any) -> T:
        """``function(*args)`` in ``slot``'s worker within ``search_seconds``; a worker
        that dies or misses the bound is replaced and the call made once more on the
        fresh one (a session lost with it is rebuilt from the game's history). Raises
        :class:`AiStuck` when the second worker misses the bound too."""
        for attempt in (1, 2):
            pool = None
            try:
                pool = slot.executor()
                return await slot.call(self.search_seconds, function, *args)
            except BrokenProcessPool:
                lane.restart(slot, pool)
                if attempt == 2:
                    raise
            except TimeoutError:
                lane.restarts += 1
                if attempt == 2:
                    raise AiStuck(N_("the computer could not finish its search in time; "
                                     "try again")) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def replaced_workers(self) -> int:
        """Workers stopped because they were stuck (missed a bound), in all lanes."""
        return sum(slot.replaced for lane in self.lanes.values() for slot in lane.slots)

    def worker_pids(self) -> list[int]:
        """Process ids of the running workers (for tests and diagnostics)."""
        pids: list[int] = []
        for lane in self.lanes.values():
            for slot in lane.slots:
                if slot.pool is not None:
                    pids.extend(process.pid for process in slot.pool.processes()
                                if process.pid is not None and process.is_alive())
        return pids

    def shutdown(self) -> None:
        """Stop the workers now, abandoning a search in progress (its answer is moot)."""
        for lane in self.lanes.values():
            lane.stop()
