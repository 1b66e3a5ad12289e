"""Storage calls off the event loop: their threads, their time limits and write batching.

The storage is synchronous (SQLite, psycopg); the server is one event loop. Every storage
call therefore runs in a thread of :class:`StorageCalls` (threads of their own, so a call
never waits behind CPU work, which has :data:`WORK_THREADS` others: :meth:`call_thread`),
with a time limit, so that a frozen database answers 503 instead of hanging requests:

- a read, or a call that has not started (it then never starts), is given up after
  ``storage_timeout`` seconds (:class:`~hexgames.web.storage.StorageUnavailable`);
- a write that started may still commit, so it is waited for up to
  ``storage_write_timeout`` seconds, then answered :class:`WriteUnconfirmed` (409: reload
  the game to see whether it was stored).

The calls of every move made in one turn of the event loop, or while the previous moves
were being stored, go to the storage thread together (:meth:`call_batched`): one thread
hop for all, and the moves' writes (``store_move``) one call of ``Storage.store_moves``,
which PostgreSQL commits together (one flush of its log for all: a group commit); each
move still succeeds or fails alone.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hexgames.phrases import N_
from hexgames.web.game.clocks import wall_ms
from hexgames.web.storage import Storage, StorageUnavailable

__all__ = ["READS", "StorageCalls", "WriteUnconfirmed"]

#: Seconds a storage call may take before the request is answered 503 (a read, or a
#: write that has not started: nothing was stored).
STORAGE_TIMEOUT = 10.0
#: Seconds a write that has started is waited for (it may still commit, so it is never
#: answered 503); past them the answer is 409 :class:`WriteUnconfirmed` ("reload the
#: game": the game is read again from storage, which shows whether it was stored).
STORAGE_WRITE_TIMEOUT = 60.0
#: Threads of the storage calls: their own, so a call never waits behind CPU work
#: (parsing an upload, rebuilding a game, analysis), which has :data:`WORK_THREADS`.
STORAGE_THREADS = 2
WORK_THREADS = 2
#: Storage calls that only read: past ``STORAGE_TIMEOUT`` they are answered 503 even
#: once started. Every other call is a write (see ``STORAGE_WRITE_TIMEOUT``).
READS = frozenset({
    "load_game", "load_tail", "list_games", "clocked_games", "games_with_status",
    "load_seek", "open_seeks", "player_by_session", "player_by_id", "player_by_name",
    "player_names", "games_of_player", "ratings_of", "leaderboard", "rating_pools",
    "site_value", "unopened_games",
    # Profiles (hexgames.web.routes.profiles).
    "rating_history", "unfiled_games", "result_counts", "opponent_counts", "search_games",
    "finished_game_ids",
    # Rate limits (hexgames.web.storage.site_limits).
    "limit_count", "limit_rows",
    # Tournaments, chat, follows and blocks (issue 42).
    "load_tournament", "due_tournaments", "list_tournaments", "tournament_game",
    "tournaments_of", "chat_messages", "chat_muted", "chat_silenced_until",
    "chat_posts_since", "chat_reports", "blocked_between", "relations_of", "related_to",
})
NOT_ANSWERING = N_("the game storage is not answering; try again in a moment")
UNCONFIRMED = N_("the game storage has not confirmed this change yet; reload the game to "
                 "see whether it was stored")


#: Storage outages remembered for the clocks' credit (older ones have been credited).
KEPT_OUTAGES = 32


class WriteUnconfirmed(RuntimeError):
    """A write that started was not confirmed within ``STORAGE_WRITE_TIMEOUT``: it may
    still commit (HTTP 409: reload the game to see the stored outcome)."""


class _Pending:
    """A storage call handed to the storage threads: it either starts or is given up
    (by a caller whose ``storage_timeout`` passed first), never both."""

    __slots__ = ("state",)
    _claim = threading.Lock()

    def __init__(self) -> None:
        self.state = "queued"

    def start(self) -> bool:
        with self._claim:
            if self.state == "abandoned":
                return False
            self.state = "started"
            return True

    def abandon(self) -> bool:
        """Give the call up if it has not started (True: it never will)."""
        with self._claim:
            if self.state == "started":
                return False
            self.state = "abandoned"
            return True

    def run(self, function: Any, args: tuple[Any, ...]) -> Any:
        if not self.start():
            raise asyncio.CancelledError  # given up: its caller has gone
        return function(*args)


Batch = list[tuple[Any, tuple[Any, ...], asyncio.Future[Any], _Pending]]


def _moves_of(function: Any) -> Callable[[list[Any]], list[Any]] | None:
    """``store_moves`` of the storage whose ``store_move`` ``function`` is (a replaced
    one, a test's, is called on its own)."""
    storage = getattr(function, "__self__", None)
    if getattr(function, "__name__", "") != "store_move" or storage is None:
        return None
    return getattr(storage, "store_moves", None)


def _call_each(batch: Batch) -> list[tuple[bool, Any]]:
    """Run a batch of storage calls (in the storage thread): (True, result) or (False,
    the exception) for each, in order; a call its caller gave up is skipped. The moves'
    writes go to the storage together (one ``store_moves``), after the other calls."""
    outcomes: list[tuple[bool, Any] | None] = []
    moves: list[tuple[int, Any]] = []
    together = None
    for function, args, _, pending in batch:
        if not pending.start():
            outcomes.append((False, asyncio.CancelledError()))
            continue
        many = _moves_of(function)
        if many is not None and (together is None or many == together):
            together = many
            moves.append((len(outcomes), args[0]))
            outcomes.append(None)
            continue
        try:
            outcomes.append((True, function(*args)))
        except Exception as error:
            outcomes.append((False, error))
    if together is not None:
        try:
            results = together([move for _, move in moves])
        except Exception as error:
            results = [error] * len(moves)
        for (index, _), result in zip(moves, results, strict=True):
            outcomes[index] = (not isinstance(result, Exception), result)
    return [outcome for outcome in outcomes if outcome is not None]


def _settle(batch: Batch, finished: asyncio.Future[list[tuple[bool, Any]]]) -> None:
    """Hand each caller of a batch its result (one that gave up meanwhile is skipped)."""
    if finished.cancelled():
        outcomes: list[tuple[bool, Any]] = [(False, asyncio.CancelledError())] * len(batch)
    elif finished.exception() is not None:
        outcomes = [(False, finished.exception())] * len(batch)
    else:
        outcomes = finished.result()
    for (_, _, future, _), (ok, value) in zip(batch, outcomes, strict=True):
        if future.done():
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)


def _ignore(game_id: str) -> None:
    """The default of :attr:`StorageCalls.on_unconfirmed`: nothing held to forget."""


class StorageOutages:
    """When the storage failed this process's calls: the spans in which no move could be
    stored, which running clocks are credited (issue 39, row 7; :meth:`Clock.credit`).

    An outage runs from the first call that failed (unavailable, or a write not
    confirmed) to the next call that succeeded; the last :data:`KEPT_OUTAGES` are kept.
    ``now`` is the service's wall clock (ms), injected by tests.
    """

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now
        self.down_since: float | None = None
        self.past: deque[tuple[float, float]] = deque(maxlen=KEPT_OUTAGES)
        #: Called (on the event loop) when an outage ends: the clock watch credits the
        #: running clocks at once (:meth:`ClockWatch.credit_storage_outage`).
        self.on_recovered: Callable[[], None] | None = None

    def failed(self) -> None:
        if self.down_since is None:
            self.down_since = self.now()

    def succeeded(self) -> None:
        if self.down_since is not None:
            self.past.append((self.down_since, max(self.down_since, self.now())))
            self.down_since = None
            if self.on_recovered is not None:
                self.on_recovered()

    def spans(self) -> list[tuple[float, float]]:
        """The outages seen, the one under way (if any) until now."""
        spans = list(self.past)
        if self.down_since is not None:
            spans.append((self.down_since, max(self.down_since, self.now())))
        return spans


class StorageCalls:
    """The storage of one server, called off the event loop (see the module's doc).

    ``storage`` may be replaced (a test points a running app at another database);
    ``storage_timeout`` and ``storage_write_timeout`` are read at each call.
    """

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.storage_timeout = STORAGE_TIMEOUT
        self.storage_write_timeout = STORAGE_WRITE_TIMEOUT
        #: Called with a game's id when a write to it (its id the call's first argument)
        #: was not confirmed: the copy held in memory may be stale.
        self.on_unconfirmed: Callable[[str], None] = _ignore
        self._storage_threads = ThreadPoolExecutor(STORAGE_THREADS, "hexgames-storage")
        self._work_threads = ThreadPoolExecutor(WORK_THREADS, "hexgames-work")
        #: Storage calls waiting for the next batch (see :meth:`call_batched`).
        self._batch: Batch = []
        #: A batch of moves is being stored (the next waits for it: see _run_batch).
        self._batch_running = False
        #: When calls failed (the clocks do not run then); its ``now`` is the service's.
        self.outages = StorageOutages(wall_ms)

    async def call(self, function: Any, *args: Any) -> Any:
        """Run a storage call in a storage thread. Past ``storage_timeout`` seconds (a
        frozen database) a read, or a call not started yet (then never started), is
        answered 503; a write that started may still commit, so it is waited for, up
        to ``storage_write_timeout`` (then :class:`WriteUnconfirmed`)."""
        pending = _Pending()
        future = asyncio.get_running_loop().run_in_executor(
            self._storage_threads, pending.run, function, args)
        try:
            return await self._outcome(future, pending, not self.reads(function))
        except WriteUnconfirmed:
            if args and isinstance(args[0], str):  # a game's id: its copy may be stale
                self.on_unconfirmed(args[0])  # read from storage when next opened
            raise

    async def call_batched(self, function: Any, *args: Any) -> Any:
        """:meth:`call` for the calls of every move: those made in the same turn of the
        event loop (many games moving at once) go to the storage thread together, one
        thread hop for all instead of one each. Each call is still its own transaction,
        committed before its caller goes on (an acknowledged move is stored), and fails
        or succeeds alone."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        pending = _Pending()
        self._batch.append((function, args, future, pending))
        if len(self._batch) == 1:
            loop.call_soon(self._run_batch)  # after the other moves of this turn
        return await self._outcome(future, pending, write=True)

    async def call_thread(self, function: Any, *args: Any) -> Any:
        """Run CPU work (a password hash, parsing, rebuilding a game, drawing, analysis)
        off the event loop, in the work threads: never in the storage threads."""
        return await asyncio.get_running_loop().run_in_executor(
            self._work_threads, function, *args)

    def reads(self, function: Any) -> bool:
        """Whether a storage call only reads (one of :data:`READS`, or a wrapper put in
        its place on the storage object)."""
        if getattr(function, "__name__", "") in READS:
            return True
        replaced = getattr(self.storage, "__dict__", {})
        return any(replaced.get(name) is function for name in READS)

    async def _outcome(self, future: asyncio.Future[Any], pending: _Pending,
                       write: bool) -> Any:
        try:
            done, _ = await asyncio.wait((future,), timeout=self.storage_timeout)
            if not done and (pending.abandon() or not write):
                raise StorageUnavailable(NOT_ANSWERING)
            if not done:
                rest = max(0.0, self.storage_write_timeout - self.storage_timeout)
                done, _ = await asyncio.wait((future,), timeout=rest)
                if not done:
                    raise WriteUnconfirmed(UNCONFIRMED)
            result = future.result()
        except (StorageUnavailable, WriteUnconfirmed):
            self.outages.failed()
            raise
        except Exception:  # the storage answered (a refusal, a conflict): it is up
            self.outages.succeeded()
            raise
        else:
            self.outages.succeeded()
            return result
        finally:
            future.cancel()  # given up (no effect once done): its outcome is not waited for

    def _run_batch(self) -> None:
        """Send the moves waiting to the storage thread, unless a batch is still being
        stored: then they wait for it and go together when it is done (a group commit:
        the moves made while one commit waits for the disk share the next one, instead
        of each waiting its turn for the connection and a commit of its own)."""
        if self._batch_running or not self._batch:
            return
        batch, self._batch = self._batch, []
        self._batch_running = True
        loop = asyncio.get_running_loop()
        done = loop.run_in_executor(self._storage_threads, _call_each, batch)

        def finished(outcome: asyncio.Future[list[tuple[bool, Any]]]) -> None:
            self._batch_running = False
            _settle(batch, outcome)
            if self._batch:
                loop.call_soon(self._run_batch)

        done.add_done_callback(finished)

    def shutdown(self) -> None:
        """Stop the threads (calls under way finish; queued ones are dropped)."""
        self._work_threads.shutdown(wait=False, cancel_futures=True)
        self._storage_threads.shutdown(wait=False, cancel_futures=True)
