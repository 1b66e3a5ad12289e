"""The games of a running server: creating, loading, changing, saving and broadcasting them.

One :class:`GameService` per app. It keeps the live :class:`~hexgames.web.matches.Match`
of every game someone opened, serialises changes to a game with a per-game lock (two
browsers clicking at once cannot interleave), writes every change to storage before
telling anyone about it, and starts the AI whenever it is an AI seat's turn. Storage calls
run in threads and AI searches in worker processes, so the event loop never blocks.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from hexgames.ai.levels import LEVELS
from hexgames.errors import IllegalAction
from hexgames.game import game_names, get_game
from hexgames.web.ai_worker import AiBusy, AiWorkers
from hexgames.web.clocks import (
    LAG_ALLOWANCE_MS,
    Clock,
    TimeControl,
    clock_in,
    put_clock,
    wall_ms,
)
from hexgames.web.hub import Connection, Hub
from hexgames.web.identity import seat_token
from hexgames.web.matches import MAX_PLIES, MODES, Match, start_position
from hexgames.web.options import parse_options
from hexgames.web.ratings import record_rated_result
from hexgames.web.storage import (
    Change,
    MetaConflict,
    Seek,
    SeekTaken,
    StaleWrite,
    Storage,
    StorageUnavailable,
    StoredGame,
    hashed,
)

__all__ = ["AiBusy", "GameNotFound", "GameService", "SeekTaken", "WriteUnconfirmed"]

log = logging.getLogger(__name__)

#: Largest record accepted by the upload (characters); see docs/web.md.
MAX_RECORD = 1_000_000
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
})
#: A game held in memory that nobody watches (no socket, no AI turn, no change under
#: way) is dropped after this many seconds unused; it is read from storage again when
#: next opened. Beyond ``MAX_IDLE_GAMES`` such games, or ``MAX_IDLE_ACTIONS`` actions in
#: them, the least recently used go first. Checked every ``EVICT_EVERY`` seconds.
IDLE_SECONDS = 300.0
MAX_IDLE_GAMES = 200
MAX_IDLE_ACTIONS = 50_000
EVICT_EVERY = 15.0
NOT_ANSWERING = "the game storage is not answering; try again in a moment"
UNCONFIRMED = ("the game storage has not confirmed this change yet; reload the game to "
               "see whether it was stored")
#: ``players[seat]["invite"]`` while a seat's invitation link has not been opened.
INVITE_OPEN = "open"
#: Times a write of a game's meta or seats is tried again on the re-read game when
#: another request or server process wrote it first (the writes are conditional on the
#: row's version: see docs/web.md, "Storage"); past them the client gets 409.
META_RETRIES = 8
#: Seconds between two looks at an AI turn that another server process is searching
#: (if that process died, its claim is gone and this one takes over).
AI_CLAIM_RETRY = 1.0
#: Seconds between two reads of every running clock's deadline from storage (another
#: server process's games, or a restart's): the flag-fall watch never misses one longer.
CLOCK_RESYNC = 30.0
#: Reason words of the site's own endings (the engine's come from ``outcome()``).
ABORTED = "Game aborted"
#: Open challenges shown in the lobby, and games listed as being played.
LOBBY_LIMIT = 100
#: Open challenges one identity may have at once (a fourth waits until one is accepted,
#: withdrawn or expired), and in the whole lobby (past that: "the lobby is full", 503):
#: nobody can push the other players' challenges out of the lobby's list.
MAX_OPEN_SEEKS_PER_PLAYER = 3
MAX_OPEN_SEEKS = LOBBY_LIMIT
#: Seconds an open challenge waits for an opponent: a day for correspondence, an hour
#: otherwise (a real-time challenge accepted long after its poster left starts a game
#: nobody plays).
SEEK_TTL = {"correspondence": 86_400.0, "realtime": 3_600.0, "untimed": 3_600.0}
#: Open challenges posted from one client address at once (issue 31: 5 addresses filled
#: the lobby of 100): past them 409, whatever identities the address makes up.
MAX_OPEN_SEEKS_PER_ADDRESS = 5
#: Seconds a poster's real-time or untimed challenges stay open once their last lobby
#: socket (in this process) closed: then they are withdrawn (correspondence ones stay).
LOBBY_LEAVE_GRACE = 60.0
#: Housekeeping (issue 31): every ``HOUSEKEEPING_EVERY`` seconds at most
#: ``HOUSEKEEPING_BATCH`` rows of each kind are expired: open challenges past their
#: ``SEEK_TTL``; online games whose invitation nobody opened within ``INVITE_TTL``
#: (aborted); guests with no name and no game (or only aborted ones) idle for
#: ``GUEST_TTL`` (deleted).
HOUSEKEEPING_EVERY = 600.0
HOUSEKEEPING_BATCH = 200
INVITE_TTL = {"correspondence": 7 * 86_400.0, "realtime": 86_400.0, "untimed": 86_400.0}
GUEST_TTL = 30 * 86_400.0
#: Seconds between two "the clocks are kept" marks in storage; at start, running clocks
#: are credited the time since the last mark (a stop, or a crash after the last mark)
#: when it is over ``2 * CLOCK_HEARTBEAT`` (no other process kept them meanwhile).
CLOCK_HEARTBEAT = 5.0
CLOCK_ALIVE = "clocks-alive"


class LobbyFull(RuntimeError):
    """As many open challenges as the lobby lists: try again when one is taken (503)."""


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


def _release_memory() -> None:
    """Hand the heap freed by dropped games back to the system (glibc keeps it
    otherwise: 124 of 282 MB after four 18k-action uploads were dropped)."""
    with contextlib.suppress(Exception):  # not glibc: nothing to do
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)


class GameNotFound(LookupError):
    """No game with that id (a 404, not a server error)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_token() -> str:
    return secrets.token_urlsafe(18)


def resigned_from_tags(match: Match, tags: dict[str, str]) -> None:
    """Restore a resignation or timeout stated by a record's tags, which the position
    itself cannot express.

    Accepted: this site's own ``Winner``/``Ending`` pair (a colour of the game and an
    ending that says "resigned"), or ``Result`` ``1-0``/``0-1`` with ``Termination``
    ``resignation``/``timeout``. The reason shown is written here, never taken from the
    tags: a record cannot make the site display words of its uploader's choosing.
    """
    colors = tuple(match.game.colors)
    winner: str | None = None
    how = "resigned"
    raw_winner = str(tags.get("Winner", "")).strip().lower()[:20]
    ending = str(tags.get("Ending", "")).strip().lower()
    if raw_winner in colors and ending.endswith("resigned"):
        winner = raw_winner
    result = str(tags.get("Result", "")).strip()
    termination = str(tags.get("Termination", "")).strip().lower()
    if winner is None and result in ("1-0", "0-1") and termination in ("resignation", "timeout"):
        winner = match.position.color_of_seat(0 if result == "1-0" else 1)
        how = "resigned" if termination == "resignation" else "ran out of time"
    if winner is None:
        return
    loser = colors[1] if winner == colors[0] else colors[0]
    match.stored.status, match.stored.winner = "over", winner
    match.stored.reason = f"{loser.capitalize()} {how}"


#: Largest start position text accepted when creating a game (characters).
MAX_START = 20_000


def checked_start(game: Any, options: dict[str, Any], start: str) -> str:
    """A start text the engine reads with these rules, in its own words (so the stored
    text is canonical); ``ValueError`` when it is malformed or the game is over there."""
    if len(start) > MAX_START:
        raise ValueError(f"a start position is at most {MAX_START} characters")
    position = start_position(game, options, start)
    outcome = position.outcome()
    if outcome is not None:
        raise ValueError(f"the game is already over in this position: {outcome.describe()}")
    return position.to_text()


Batch = list[tuple[Any, tuple[Any, ...], asyncio.Future[Any], _Pending]]


def _call_each(batch: Batch) -> list[tuple[bool, Any]]:
    """Run a batch of storage calls (in the storage thread): (True, result) or (False,
    the exception) for each, in order; a call its caller gave up is skipped."""
    outcomes: list[tuple[bool, Any]] = []
    for function, args, _, pending in batch:
        if not pending.start():
            outcomes.append((False, asyncio.CancelledError()))
            continue
        try:
            outcomes.append((True, function(*args)))
        except Exception as error:
            outcomes.append((False, error))
    return outcomes


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


class GameService:
    def __init__(self, storage: Storage, workers: AiWorkers, hub: Hub,
                 now: Callable[[], float] = wall_ms) -> None:
        self.storage = storage
        #: Wall time in ms since the epoch (injected by clock tests).
        self.now = now
        #: Flag-fall deadlines (ms) of running clocks, watched by ``_watch_clocks``.
        self._deadlines: dict[str, float] = {}
        self._clock_wake: asyncio.Event | None = None
        self._clock_task: asyncio.Task[None] | None = None
        #: Run the flag-fall watch task (tests with an injected time turn it off and call
        #: :meth:`resync_clocks`/:meth:`check_clocks` themselves).
        self.watch_clocks = True
        #: Lobby sockets (``/ws/lobby``).
        self._lobby: dict[Any, Connection] = {}
        self.workers = workers
        self.hub = hub
        self._matches: dict[str, Match] = {}
        #: When each held game was last opened (``time.monotonic``): idle ones are
        #: dropped from memory (:meth:`evict_idle`).
        self._used: dict[str, float] = {}
        self._evict_task: asyncio.Task[None] | None = None
        self.storage_timeout = STORAGE_TIMEOUT
        self.storage_write_timeout = STORAGE_WRITE_TIMEOUT
        #: Storage calls have threads of their own; CPU work (parsing, rebuilding,
        #: drawing, analysis) has its own few (:meth:`call_thread`), so it never delays
        #: a storage call, and at most ``WORK_THREADS`` of it compete with the event loop.
        self._storage_threads = ThreadPoolExecutor(STORAGE_THREADS, "hexgames-storage")
        self._work_threads = ThreadPoolExecutor(WORK_THREADS, "hexgames-work")
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._ai_tasks: dict[str, asyncio.Task[None]] = {}
        # Changes stored by other server processes (PostgreSQL LISTEN/NOTIFY).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_listening: Any = None
        self._dirty: set[str] = set()
        self._full_reload: set[str] = set()
        self._refreshing: dict[str, asyncio.Task[None]] = {}
        #: Games being loaded: a change heard meanwhile is applied once they are in.
        self._loading: set[str] = set()
        self._seat_key: bytes | None = None
        #: Storage calls waiting for the next batch (see :meth:`_store_batched`).
        self._batch: Batch = []
        #: Run the housekeeping task (expiries, the clocks' heartbeat); tests with an
        #: injected time turn it off and call :meth:`housekeep` themselves.
        self.housekeeping = True
        self._housekeeping_task: asyncio.Task[None] | None = None
        #: The identity of each lobby socket that has one, and when each poster's last
        #: lobby socket closed (ms; see :meth:`withdraw_departed`).
        self._lobby_players: dict[Any, str] = {}
        self._departed: dict[str, float] = {}
        self._timers: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        """Listen to the other server processes' changes (a shared storage only)."""
        self._loop = asyncio.get_running_loop()
        if self.storage.shared:
            self._stop_listening = await asyncio.to_thread(self.storage.listen, self._on_change)
        self._clock_wake = asyncio.Event()
        try:  # before the flag-fall watch first reads the deadlines
            await self.credit_outage()
        except Exception:
            log.exception("could not credit the clocks with the server's downtime")
        if self.housekeeping:
            self._housekeeping_task = asyncio.create_task(self._housekeeping_loop())
        if self.watch_clocks:
            self._clock_task = asyncio.create_task(self._watch_clocks())
        self._evict_task = asyncio.create_task(self._evict_loop())

    def _on_change(self, change: Change | None) -> None:
        """Called by the storage's listener thread: hand the change to the event loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._changed, change)

    def _changed(self, change: Change | None) -> None:
        """Another process stored a change (``None``: maybe several were missed): bring
        the games this process holds up to date, one refresh task per game at a time."""
        if change is None or change.kind == "lobby":
            self._lobby_changed()
            if change is not None:
                return
        ids = list(self._matches) if change is None else [change.game_id]
        for game_id in ids:
            if game_id not in self._matches and game_id not in self._loading:
                continue  # not held here: it is loaded from storage when opened
            if change is None or change.kind not in ("append", "meta"):
                self._full_reload.add(game_id)
            self._dirty.add(game_id)
            if game_id not in self._refreshing:
                self._refreshing[game_id] = asyncio.create_task(self._refresh_loop(game_id))

    async def _refresh_loop(self, game_id: str) -> None:
        try:
            while game_id in self._dirty:
                self._dirty.discard(game_id)
                full = game_id in self._full_reload
                self._full_reload.discard(game_id)
                try:
                    await self.refresh(game_id, full)
                except Exception:
                    log.exception("could not bring game %s up to date", game_id)
        finally:
            self._refreshing.pop(game_id, None)

    async def refresh(self, game_id: str, full: bool = False) -> Match | None:
        """Bring the game held in memory up to the stored one (the single source of
        truth): the actions stored since, or (``full``, or when they do not follow on)
        the whole game again. Publishes the new state to this process's sockets."""
        async with self._locks[game_id]:
            match = self._matches.get(game_id)
            if match is None:
                return None
            have = len(match.plies)
            loaded = await self._store(self.storage.load_tail, game_id, 0 if full else have)
            if loaded is None:
                return match
            stored, total = loaded
            changed = False
            if not full and total == have + len(stored.actions):
                try:
                    for text in stored.actions:
                        match.play_for_seat(match.position.current_seat, text)
                        changed = True
                except (IllegalAction, ValueError):
                    full = True
            else:
                full = True
            if full:
                whole = await self._store(self.storage.load_game, game_id)
                if whole is None:
                    return match
                fresh = await self._adopt(await self.call_thread(Match, whole))
                fresh.now = self.now
                fresh.thinking = match.thinking
                self._matches[game_id] = match = fresh
                changed = True
            else:
                row = (stored.status, stored.winner, stored.reason, stored.players,
                       stored.seat_tokens, stored.meta)
                mine = match.stored
                if row != (mine.status, mine.winner, mine.reason, mine.players,
                           mine.seat_tokens, mine.meta):
                    mine.status, mine.winner, mine.reason = row[:3]
                    mine.players, mine.seat_tokens, mine.meta = row[3], row[4], row[5]
                    mine.rated = stored.rated
                    match.revision += 1
                    await self._adopt(match)
                    changed = True
                elif mine.rated and match.is_over and match.rating_changes is None:
                    await self._adopt(match)  # the ratings were applied since
                    changed = match.rating_changes is not None
                mine.updated_at = stored.updated_at
                mine.version = stored.version  # what the next conditional write expects
        if changed:
            self.hub.publish(match)
            self._schedule_ai(match)
            self._watch(match)
        return match

    async def call_storage(self, function: Any, *args: Any) -> Any:
        """Run a storage call off the event loop with the storage timeout (for modules
        built on the service: identity, ratings, lobby)."""
        return await self._store(function, *args)

    async def call_thread(self, function: Any, *args: Any) -> Any:
        """Run CPU work (a password hash, parsing, rebuilding a game, drawing, analysis)
        off the event loop, in the work threads: never in the storage threads."""
        return await asyncio.get_running_loop().run_in_executor(
            self._work_threads, function, *args)

    async def seat_key(self) -> bytes:
        """The site key of identity-derived seat tokens (stored once, shared by every
        server process)."""
        if self._seat_key is None:
            value = await self._store(self.storage.site_secret, "seat-key",
                                      lambda: secrets.token_hex(32))
            self._seat_key = bytes.fromhex(value)
        return self._seat_key

    async def _adopt(self, match: Match) -> Match:
        """Give a match built from storage what the service knows: the seat key, the
        names of the identities in its seats and (a finished rated game) its rating
        changes, applying them if that was missed."""
        match.seat_key = await self.seat_key()
        holders = [player_id for _, player_id in match.seat_holders()]
        if holders:
            match.names = await self._store(self.storage.player_names, holders)
        if match.stored.rated and match.is_over and match.rating_changes is None:
            # Applied already (idempotent: then only read), or missed by a failure.
            match.rating_changes = await self._store(record_rated_result, self.storage, match)
        return match

    async def renamed(self, player_id: str, name: str) -> None:
        """A player changed their name: the games this process holds show it at once."""
        for match in list(self._matches.values()):
            if player_id in match.names:
                match.names[player_id] = name
                self.hub.publish(match)

    async def _store(self, function: Any, *args: Any) -> Any:
        """Run a storage call in a storage thread. Past ``storage_timeout`` seconds (a
        frozen database) a read, or a call not started yet (then never started), is
        answered 503; a write that started may still commit, so it is waited for, up
        to ``storage_write_timeout`` (then :class:`WriteUnconfirmed`)."""
        pending = _Pending()
        future = asyncio.get_running_loop().run_in_executor(
            self._storage_threads, pending.run, function, args)
        try:
            return await self._outcome(future, pending, not self._reads(function))
        except WriteUnconfirmed:
            if args and isinstance(args[0], str):  # a game's id: its copy may be stale
                self._matches.pop(args[0], None)  # read from storage when next opened
            raise

    def _reads(self, function: Any) -> bool:
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
            return future.result()
        finally:
            future.cancel()  # given up (no effect once done): its outcome is not waited for

    async def _store_batched(self, function: Any, *args: Any) -> Any:
        """:meth:`_store` for the calls of every move: those made in the same turn of the
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

    def _run_batch(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        done = asyncio.get_running_loop().run_in_executor(
            self._storage_threads, _call_each, batch)
        done.add_done_callback(lambda finished: _settle(batch, finished))

    # ---------------------------------------------------------------- creating
    async def create(
        self,
        game_name: str,
        options: dict[str, Any] | None,
        mode: str,
        seat: int = 0,
        level: int = 3,
        start: str | None = None,
        control: dict[str, Any] | None = None,
        player: Any = None,
        rated: bool = False,
        opponent: Any = None,
    ) -> tuple[Match, list[str | None]]:
        """A new game; returns it with the seat tokens (the creator's seat first for AI).

        ``start``: a start position in the game's board text (the board editor's),
        read with the rules of ``options`` (``ValueError`` with the reader's message).
        ``player`` (a :class:`~hexgames.web.identity.Player`) takes the creator's seat
        (not in hot-seat games); ``opponent`` the other seat of an online game (a lobby
        pairing: no invitation then). ``rated`` is allowed for online games only; its
        result counts only when both seats end up held by two different identities.
        """
        game = get_game(game_name)
        rules_options = parse_options(game, options)
        if start is not None:
            start = await self.call_thread(checked_start, game, rules_options, start)
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        time_control = TimeControl.parse(control)
        if time_control.timed and mode != "online":
            raise ValueError("clocks are for online games (untimed against the computer "
                             "and at one screen)")
        human: dict[str, Any] = {"kind": "human", "level": None}
        if mode == "ai":
            if level not in LEVELS:
                raise ValueError(f"AI level must be 1 to 5, got {level!r}")
            if self.workers.busy(level):
                raise AiBusy("the computer is busy with other games; try again in a minute")
            token = new_token()
            players = [dict(human), dict(human)]
            players[1 - seat] = {"kind": "ai", "level": level}
            tokens: list[str | None] = [None, None]
            tokens[seat] = token
        elif mode == "hotseat":
            token = new_token()
            players, tokens = [dict(human), dict(human)], [token, token]
        else:
            players, tokens = [dict(human), dict(human)], [new_token(), new_token()]
            # The opponent's link is an invitation: the first browser to open it takes
            # the seat and gets a credential of its own (see claim).
            if opponent is None:
                players[1 - seat]["invite"] = INVITE_OPEN
            else:
                players[1 - seat]["player_id"] = opponent.id
        if rated and mode != "online":
            raise ValueError("only online games between two players can be rated")
        if player is not None and mode != "hotseat":
            players[seat]["player_id"] = player.id
        stamp = now()
        stored = StoredGame(
            id=secrets.token_urlsafe(9),
            game=game.name,
            options=rules_options,
            mode=mode,
            players=players,
            seat_tokens=[hashed(token) for token in tokens],  # only hashes are kept
            status="playing",
            winner=None,
            reason=None,
            created_at=stamp,
            updated_at=stamp,
            start=start,
            rated=bool(rated),
        )
        # built in a thread: a start position's reading and a new variant's tables take
        # time that other clients must not wait for
        match = await self._adopt(await self.call_thread(Match, stored))
        match.now = self.now
        if mode == "online":
            self._start_clock(match, time_control)
        await self._store(self.storage.create_game, stored)
        self._matches[stored.id] = match
        self._schedule_ai(match)
        self._watch(match)
        return match, tokens

    async def import_record(self, text: str, game_name: str | None = None) -> tuple[Match, str]:
        """A hot-seat game continuing from an uploaded record (any registered game).

        Parsing and replaying run in a thread (a long record must not stall the server),
        and both are linear in the record's length.
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError("the record is empty")
        if len(text) > MAX_RECORD:
            raise ValueError(f"a record is at most {MAX_RECORD} characters, not {len(text)}")
        if game_name is not None and game_name not in game_names():
            known = ", ".join(game_names())
            raise ValueError(f"unknown game {game_name[:40]!r}; known games: {known}")
        match, token = await self.call_thread(self._read_record, text, game_name)
        await self._store(self.storage.create_game, match.stored)  # with its result
        self._matches[match.id] = await self._adopt(match)
        return match, token

    def _read_record(self, text: str, game_name: str | None) -> tuple[Match, str]:
        errors = []
        for name in [game_name] if game_name else game_names():
            game = get_game(name)
            try:
                position, tags = game.read_record(text)
            except ValueError as error:
                errors.append(f"{game.title}: {str(error)[:200]}")
                continue
            options = dict(game.rules_options(position.rules))
            actions = [str(action) for action in position.history]
            if len(actions) > MAX_PLIES:
                raise ValueError(f"a game is at most {MAX_PLIES} actions long")
            start = None
            if "Start" in tags:  # the record's own start position (records write it so)
                start = "\n".join(part.strip() for part in tags["Start"].split("/"))
                start_position(game, options, start)  # raises ValueError if malformed
            token = new_token()
            stamp = now()
            stored = StoredGame(
                id=secrets.token_urlsafe(9),
                game=game.name,
                options=options,
                mode="hotseat",
                players=[{"kind": "human", "level": None}, {"kind": "human", "level": None}],
                seat_tokens=[hashed(token), hashed(token)],
                status="playing",
                winner=None,
                reason=None,
                created_at=stamp,
                updated_at=stamp,
                actions=actions,
                start=start,
            )
            match = Match(stored)  # replays the stored form: raises if it does not
            if not match.sync_result():
                resigned_from_tags(match, tags)
            return match, token
        raise ValueError("not a game record this site can read: " + "; ".join(errors))

    async def claim(self, game_id: str, token: str | None, have: str | None,
                    player: Any = None) -> dict[str, Any]:
        """:meth:`_claim_once`, again on the re-read game when another process changed
        its seats first: of two browsers claiming one invitation through two processes at
        once, exactly one becomes its player."""
        result: dict[str, Any] = await self._conditionally(
            game_id, self._claim_once, game_id, token, have, player)
        return result

    async def _claim_once(self, game_id: str, token: str | None, have: str | None,
                          player: Any = None) -> dict[str, Any]:
        """A browser opened a link with ``token`` (it already holds ``have``, if any; it
        is ``player``, an identity, if known).

        An online game's invitation is claimed once: the first browser to open it takes
        the seat with a fresh credential of its own (the link's token stops working), and
        the seat then belongs to that browser's identity; whoever opens the link later is
        a spectator and is told so. The game's creator opening their opponent's link is
        told so and keeps their own seat. A browser of an identity that holds a seat gets
        that seat's identity-derived credential (another device, no link needed).
        """
        match = await self.get(game_id)
        async with self._locks[game_id]:
            match = self.current(game_id, match)  # reloaded while this waited
            seats = match.seats_of(token)
            mine = match.seats_of(have)
            owned = match.seats_of_player(player.id) if player is not None else frozenset()
            if owned and not mine and match.seat_key is not None:
                have = seat_token(match.seat_key, match.id, min(owned), player.id)
                mine = match.seats_of(have)
            if mine and not seats:
                return {"role": "player", "token": have, "seats": sorted(mine), "notice": None}
            if not seats:
                notice = ("this invitation has already been taken by another browser: "
                          "you are watching" if token else None)
                return {"role": "spectator", "token": None, "seats": [], "notice": notice}
            if mine and mine != seats:
                return {
                    "role": "player", "token": have, "seats": sorted(mine),
                    "notice": "this is your opponent's invitation link: send it to them; "
                              "you keep your own seat",
                }
            players = match.stored.players
            open_seats = [s for s in sorted(seats) if players[s].get("invite") == INVITE_OPEN]
            if not open_seats:
                return {"role": "player", "token": token, "seats": sorted(seats), "notice": None}
            seat = open_seats[0]
            fresh = new_token()
            tokens = list(match.stored.seat_tokens)
            tokens[seat] = hashed(fresh)
            new_players = [dict(entry) for entry in players]
            new_players[seat].pop("invite", None)
            if player is not None:
                new_players[seat]["player_id"] = player.id
            stamp = now()
            match.stored.version = await self._store(
                self.storage.set_seats, game_id, new_players, tokens, stamp,
                match.stored.version)  # MetaConflict if another process claimed first
            match.stored.seat_tokens, match.stored.players = tokens, new_players
            match.stored.updated_at = stamp
            clock = match.clock()
            if (clock is not None and not match.is_over and not clock.started()
                    and clock.abort_at is None):  # the first-turn limit starts again
                clock.resume(match.position.current_seat, self.now())
                match.set_clock(clock)
                match.stored.version = await self._store(
                    self.storage.set_meta, game_id, match.meta, stamp, match.stored.version)
                self._watch(match)
            if player is not None:
                match.names[player.id] = player.name
        self.hub.publish(match)  # a socket still using the old link now only watches
        return {"role": "player", "token": fresh, "seats": [seat], "notice": None}

    # ----------------------------------------------------------------- reading
    async def get(self, game_id: str) -> Match:
        match = self._matches.get(game_id)
        if match is not None:
            self._used[game_id] = time.monotonic()  # see evict_idle
            self._schedule_ai(match)  # retries after a failed search
            return match
        async with self._locks[game_id]:
            match = self._matches.get(game_id)
            if match is None:
                self._loading.add(game_id)
                try:
                    stored = await self._store(self.storage.load_game, game_id)
                    if stored is None:
                        self._locks.pop(game_id, None)
                        raise GameNotFound(f"there is no game {game_id!r}")
                    match = await self._adopt(await self.call_thread(Match, stored))
                    match.now = self.now
                    self._matches[game_id] = match
                    self._used[game_id] = time.monotonic()
                finally:
                    self._loading.discard(game_id)
        self._schedule_ai(match)  # a server restart interrupted the AI's turn
        return match

    async def list(self, limit: int = 50) -> list[StoredGame]:
        return await self._store(self.storage.list_games, limit)

    # ---------------------------------------------------------------- changing
    async def act(self, game_id: str, token: str | None, action: Any,
                  expected_ply: int | None = None, lag_ms: float = 0) -> Match:
        """Play ``action`` for the token's seat. ``lag_ms``: the round trip the client
        measured (ping/pong); its clock is credited up to ``clocks.LAG_ALLOWANCE_MS``."""
        match = await self.get(game_id)
        if self.storage.shared and expected_ply is not None and expected_ply > len(match.plies):
            # The client saw a newer position (stored through another process): catch up.
            match = await self.refresh(game_id) or match
        for attempt in (1, 2):
            try:
                async with self._locks[game_id]:
                    match = self._matches.get(game_id, match)
                    clock = match.clock()
                    if (clock is not None and not match.is_over
                            and match.seats_of(token)
                            and clock.flagged(self.now(), lag_ms) is not None):
                        await self._flag_fall(match, clock)
                        flagged = True
                    else:
                        flagged = False
                        mover = match.position.current_seat
                        first = len(match.plies)
                        ply = match.play(token, action, expected_ply)
                        await self._save_or_take_back(match, first, ply.notation)
                        await self._after_action(match, mover, lag_ms)
                if flagged:
                    await self._finished(match)
                    raise IllegalAction("your time ran out: the game is over")
                break
            except StaleWrite:
                # Another process stored this ply first. The stored game wins: reload it
                # and show it; an action meant for a ply (``expected_ply``) is tried once
                # more (refused as stale if that ply is taken), others are refused.
                match = await self.get(game_id)
                self.hub.publish(match)
                if attempt == 2 or expected_ply is None:
                    raise
        await self.hub.broadcast(match)
        self._schedule_ai(match)
        self._watch(match)
        if match.is_over:
            await self._finished(match)
        return match

    async def undo(self, game_id: str, token: str | None) -> Match:
        match = await self.get(game_id)
        async with self._locks[game_id]:
            match = self.current(game_id, match)  # reloaded while this waited
            match.undo(token)
            match.thinking = False
            stamp = now()
            self._bumped(match, await self._store(
                self.storage.truncate_actions, game_id, len(match.plies), stamp))
            self._bumped(match, await self._store(
                self.storage.finish_game, game_id, None, None, stamp))
            match.stored.updated_at = stamp
        await self.hub.broadcast(match)
        self._schedule_ai(match)
        return match

    async def resign(self, game_id: str, token: str | None) -> Match:
        match = await self.get(game_id)
        async with self._locks[game_id]:
            match = self.current(game_id, match)  # reloaded while this waited
            match.resign(token)
            match.thinking = False
            stamp = now()
            stored = match.stored
            self._bumped(match, await self._store(
                self.storage.finish_game, game_id, stored.winner, stored.reason, stamp
            ))
            stored.updated_at = stamp
            moment = self.now()

            def resigned(meta: dict[str, Any]) -> None:
                clock = clock_in(meta)
                if clock is not None:
                    clock.stop(moment)
                    put_clock(meta, clock)
                meta["termination"] = "resignation"

            if match.stored.mode == "online":
                await self._write_meta(match, resigned)
            await self.on_game_over(match)
        await self.hub.broadcast(match)
        self._watch(match)
        await self._finished(match)
        return match

    async def _save_or_take_back(self, match: Match, first: int, notation: str) -> None:
        """Store an action just played; if storing fails, the live game forgets it too,
        so that memory and database never disagree (the error then reaches the caller)."""
        try:
            await self._save_actions(match, first, [notation])
        except (StaleWrite, WriteUnconfirmed):
            # The stored game is not what this server holds (another writer, or a write
            # that timed out and landed later): reload it from storage next time.
            match.take_back_unsaved()
            self._matches.pop(match.id, None)
            raise
        except BaseException:
            match.take_back_unsaved()
            raise

    async def _save_actions(
        self, match: Match, first: int, actions: builtins.list[str]
    ) -> None:
        stamp = now()
        self._bumped(match, await self._store_batched(
            self.storage.append_actions, match.id, first, actions, stamp))
        match.stored.updated_at = stamp
        if match.sync_result():
            stored = match.stored
            self._bumped(match, await self._store_batched(
                self.storage.finish_game, match.id, stored.winner, stored.reason, stamp
            ))
            await self.on_game_over(match)

    @staticmethod
    def _bumped(match: Match, version: Any) -> None:
        """After an unconditional write that returned the row's new ``version``: the
        copy held here is that version only if nobody else wrote in between (else it is
        left older, and the next conditional write re-reads the game)."""
        if isinstance(version, int) and version == match.stored.version + 1:
            match.stored.version = version

    async def _write_meta(self, match: Match, change: Callable[[dict[str, Any]], None],
                          batched: bool = False) -> bool:
        """Apply ``change`` (a pure function of a meta dict, run in the storage thread)
        to the game's meta *as stored* and store it, in one transaction that holds the
        game's row (``Storage.update_meta``): a takeback offer written meanwhile through
        another process is kept and never turns the clock back, and nothing needs a
        retry. Under the game's lock. False when the game moved on meanwhile (other
        actions, another status): it is then reloaded, and the stored game counts."""
        store = self._store_batched if batched else self._store
        written = await store(self.storage.update_meta, match.id, change, now(),
                              len(match.plies), match.stored.status)
        if written is None:
            self._reload_later(match.id)
            return False
        mine = match.stored
        mine.meta, mine.version, mine.updated_at = written.meta, written.version, \
            written.updated_at
        mine.players, mine.seat_tokens = written.players, written.seat_tokens
        match.revision += 1
        return True

    async def _conditionally(self, game_id: str, operation: Any, *args: Any) -> Any:
        """Run ``operation`` (a takeback answer, a rematch offer, a claim), whose writes
        are conditional on the game's version; when another request or server process
        wrote the game first (:class:`MetaConflict`, nothing stored), bring the game up
        to the stored one and run it again, checked afresh (at most ``META_RETRIES``
        times; then the conflict reaches the client: 409)."""
        for attempt in range(META_RETRIES):
            try:
                return await operation(*args)
            except MetaConflict:
                if attempt == META_RETRIES - 1:
                    raise
                await self.refresh(game_id)

    async def on_game_over(self, match: Match) -> None:
        """A game just ended (the rules, a resignation, a flag fall...), its end already
        stored: apply a rated game's result to the ratings (once; see
        :func:`hexgames.web.ratings.record_rated_result`) and keep the changes for the
        game's state. Call it with the game's lock held. A storage failure is logged and
        the result is applied the next time the game is loaded or ends."""
        if not match.stored.rated or match.rating_changes is not None:
            return
        try:
            changes = await self._store(record_rated_result, self.storage, match)
        except StorageUnavailable:
            log.warning("could not apply the ratings of game %s now", match.id)
            return
        if changes is None:
            return
        match.rating_changes = changes
        if self.storage.shared:  # the other processes reload the game and its changes
            stored = match.stored
            self._bumped(match, await self._store(
                self.storage.finish_game, match.id, stored.winner, stored.reason,
                stored.updated_at))

    # ---------------------------------------------------------------------- AI
    def _schedule_ai(self, match: Match) -> None:
        if match.ai_to_move() and match.id not in self._ai_tasks:
            self._ai_tasks[match.id] = asyncio.create_task(self._run_ai(match))

    async def _run_ai(self, match: Match) -> None:
        """Let the AI act while it is its turn, one action per search.

        The position is captured under the lock, searched without it, and the answer is
        played only if nothing changed meanwhile (an undo or resignation makes it moot).
        """
        try:
            while True:
                async with self._locks[match.id]:
                    if not match.ai_to_move():
                        break
                    revision = match.revision
                    seat = match.position.current_seat
                    level = match.ai_level(seat) or 1
                    actions = [ply.notation for ply in match.plies]
                    start = match.stored.start
                    announce = not match.thinking
                    match.thinking = True
                if announce:
                    await self.hub.broadcast(match)
                try:
                    if self.storage.shared:
                        claimed = await self._claim_ai(match, len(actions), revision)
                        if claimed is None:
                            break  # the game was reloaded: its new copy has its own task
                        if not claimed:
                            continue  # the game changed meanwhile: look again
                    choice = await self.workers.choose(
                        match.stored.game, match.stored.options, actions, level,
                        start=start or None, game_id=match.id,
                    )
                    async with self._locks[match.id]:
                        if match.revision != revision:
                            continue  # undone or resigned meanwhile: look again
                        first = len(match.plies)
                        ply = match.play_for_seat(seat, choice)  # checked like any input
                        match.ai_error = None
                        if not match.ai_to_move():
                            match.thinking = False
                        await self._save_or_take_back(match, first, ply.notation)
                except Exception as error:
                    match.thinking = False
                    if isinstance(error, AiBusy):
                        match.ai_error = str(error) + " (reload the page to try again)"
                    else:
                        log.exception("the AI failed in game %s", match.id)
                        match.ai_error = (
                            f"the computer could not move ({type(error).__name__}); "
                            "reload the page to let it try again"
                        )
                    await self.hub.broadcast(match)
                    return
                finally:
                    if self.storage.shared:
                        with contextlib.suppress(Exception):
                            await self._store(self.storage.release_ai, match.id, len(actions))
                await self.hub.broadcast(match)
        finally:
            match.thinking = False
            self._ai_tasks.pop(match.id, None)
            current = self._matches.get(match.id)
            if current is not None and current is not match:
                self._schedule_ai(current)  # reloaded meanwhile: go on with the new copy

    async def _claim_ai(self, match: Match, ply: int, revision: int) -> bool | None:
        """Wait until this process holds the AI search of ``match`` at ``ply`` (another
        process may hold it: its answer then arrives as a change, or, if that process
        died, its claim goes with it and this one takes over). False when the game
        changed meanwhile, None when it was replaced by a reloaded copy."""
        while True:
            if self._matches.get(match.id) is not match:
                return None
            if match.revision != revision:
                return False
            if await self._store(self.storage.claim_ai, match.id, ply):
                return True
            await asyncio.sleep(AI_CLAIM_RETRY)
            if self._matches.get(match.id) is match and match.revision == revision:
                await self.refresh(match.id)  # in case a notification was missed

    async def _evict_loop(self) -> None:
        while True:
            await asyncio.sleep(EVICT_EVERY)
            try:
                if self.evict_idle():
                    await self.call_thread(_release_memory)
            except Exception:
                log.exception("could not drop idle games from memory")

    def evict_idle(self, now: float | None = None) -> builtins.list[str]:
        """Drop from memory the games nobody watches (no socket, AI turn, change or load
        under way) unused for ``IDLE_SECONDS``, and the least recently used beyond
        ``MAX_IDLE_GAMES`` games or ``MAX_IDLE_ACTIONS`` actions of such games; they are
        read from storage again when next opened (:meth:`get`). Returns their ids."""
        moment = time.monotonic() if now is None else now
        idle, expired = [], []
        for game_id, match in self._matches.items():
            lock = self._locks.get(game_id)
            if ((lock is not None and lock.locked()) or self.hub.watchers(game_id)
                    or game_id in self._ai_tasks or game_id in self._refreshing
                    or game_id in self._loading or match.thinking):
                continue
            used = self._used.setdefault(game_id, time.monotonic())  # first seen now
            if match.stored.mode == "online" and not match.is_over:
                # Being played (analysis reads its position: LivePositions): by time only.
                if moment - used >= IDLE_SECONDS:
                    expired.append(game_id)
                continue
            idle.append((used, game_id, len(match.plies)))
        for gone in [game_id for game_id in self._used if game_id not in self._matches]:
            del self._used[gone]  # dropped by a reload meanwhile
        idle.sort()  # least recently used first
        games, actions = len(idle), sum(plies for _, _, plies in idle)
        for used, game_id, plies in idle:
            if (moment - used < IDLE_SECONDS and games <= MAX_IDLE_GAMES
                    and actions <= MAX_IDLE_ACTIONS):
                break
            expired.append(game_id)
            games, actions = games - 1, actions - plies
        for game_id in expired:
            del self._matches[game_id]
            self._used.pop(game_id, None)
            lock = self._locks.get(game_id)
            if lock is not None and not lock.locked() and not getattr(lock, "_waiters", None):
                del self._locks[game_id]
        return expired

    async def close(self) -> None:
        if self._housekeeping_task is not None:
            self._housekeeping_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._housekeeping_task
        for timer in list(self._timers):
            timer.cancel()
        with contextlib.suppress(Exception):  # the clocks are kept until now
            await self.mark_clocks_kept()
        if self._evict_task is not None:
            self._evict_task.cancel()
        if self._clock_task is not None:
            self._clock_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._clock_task
        for connection in list(self._lobby.values()):
            await connection.close(1001)
        self._lobby.clear()
        if self._stop_listening is not None:
            await asyncio.to_thread(self._stop_listening)
        for task in list(self._refreshing.values()):
            task.cancel()
        for task in list(self._ai_tasks.values()):
            task.cancel()
        for task in list(self._ai_tasks.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.workers.shutdown()
        await self.hub.close_all()
        self.storage.close()
        self._work_threads.shutdown(wait=False, cancel_futures=True)
        self._storage_threads.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ clocks
    def _start_clock(self, match: Match, control: TimeControl) -> None:
        """Give a new online game its time control (and clock, unless untimed)."""
        match.meta["control"] = control.to_dict()
        match.meta["turn"] = match.position.current_seat
        if control.timed:
            clock = Clock.new(control)
            clock.resume(match.position.current_seat, self.now())
            match.set_clock(clock)

    def _watch(self, match: Match) -> None:
        """Keep the flag-fall watch in step with the game's running clock."""
        deadline = None if match.is_over else match.meta.get("deadline")
        if deadline is None:
            self._deadlines.pop(match.id, None)
            return
        # A running clock's flag falls once the lag credit after its deadline is spent
        # too (a move arriving within it still counts): the watch looks then.
        running = (match.meta.get("clock") or {}).get("running") is not None
        self._deadlines[match.id] = float(deadline) + (LAG_ALLOWANCE_MS if running else 0)
        if self._clock_wake is not None:
            self._clock_wake.set()

    async def _after_action(self, match: Match, mover: int, lag_ms: float) -> None:
        """After an online action is stored: end the mover's turn on its clock when the
        side to move changed (the protocol's turn start), stop it at the end of the game,
        drop a pending takeback request, and store the meta. Under the game's lock."""
        if match.stored.mode != "online":
            return
        position = match.position
        turn_over = match.is_over or position.is_turn_start()
        offers = match.meta.get("offers", {})
        if not turn_over and "takeback" not in offers:
            return
        moment = self.now()
        over, next_seat = match.is_over, position.current_seat

        def ended(meta: dict[str, Any]) -> None:  # on the stored meta (storage thread)
            meta.get("offers", {}).pop("takeback", None)  # any move drops a request
            clock = clock_in(meta)
            if clock is not None:
                if over:
                    clock.turn_ended(mover, None, moment, lag_ms)
                elif turn_over:
                    clock.turn_ended(mover, next_seat, moment, lag_ms)
                put_clock(meta, clock)
            meta["turn"] = None if over else next_seat

        # With the other moves' writes of this loop turn (one thread hop for all).
        await self._write_meta(match, ended, batched=True)

    async def _flag_fall(self, match: Match, clock: Clock) -> bool:
        """The running side's time is up: the game ends with a timeout (under the lock).
        False when another server process had ended the game already."""
        seat = clock.running
        if seat is None or match.is_over:
            return False
        clock.stop(self.now())
        match.set_clock(clock)
        match.meta["termination"] = "timeout"  # CommonTermination.TIMEOUT
        match.meta["turn"] = None
        loser = match.position.color_of_seat(seat)
        winner = match.position.color_of_seat(1 - seat)
        reason = f"{loser.capitalize()} ran out of time"
        stamp = now()
        done = await self._store(self.storage.end_if_playing, match.id, winner, reason,
                                 match.meta, stamp, match.stored.version)
        if not done:  # another process ended it first (or changed it: judged again on
            self._reload_later(match.id)  # the stored game)
            return False
        match.stored.version += 1
        match.stored.status, match.stored.winner, match.stored.reason = "over", winner, reason
        match.stored.updated_at = stamp
        match.revision += 1
        self._deadlines.pop(match.id, None)
        await self.on_game_over(match)  # a rated game: the ratings change
        self.hub.publish(match)
        return True

    def current(self, game_id: str, held: Match) -> Match:
        """The live copy of a game (a reload from storage replaces the object a caller
        may still hold)."""
        return self._matches.get(game_id, held)

    def _reload_later(self, game_id: str) -> None:
        """Reload a game from storage once its lock is free (the caller holds it)."""
        self._full_reload.add(game_id)
        self._dirty.add(game_id)
        if game_id not in self._refreshing:
            self._refreshing[game_id] = asyncio.create_task(self._refresh_loop(game_id))

    async def check_clocks(self) -> builtins.list[str]:
        """Adjudicate every game whose flag has fallen by now; returns their ids. The
        watch task calls this at each deadline; tests call it after moving their clock."""
        current = self.now()
        due = [game_id for game_id, deadline in self._deadlines.items() if deadline <= current]
        ended = []
        for game_id in due:
            self._deadlines.pop(game_id, None)
            try:
                match = await self.get(game_id)
                async with self._locks[game_id]:
                    clock = match.clock()
                    waiting = any(player.get("invite") for player in match.stored.players)
                    if (clock is not None and not match.is_over
                            and clock.abandoned(self.now()) and waiting):
                        # The friend has not opened the invitation yet: the first-turn
                        # limit waits (written once; it starts again when the link is
                        # opened, see claim) and housekeeping ends the game after
                        # INVITE_TTL (issue 31: rewritten every 60 s forever before).
                        clock.abort_at = None
                        match.set_clock(clock)
                        try:  # conditional: a claim written meanwhile wins
                            match.stored.version = await self._store(
                                self.storage.set_meta, game_id, match.meta, now(),
                                match.stored.version)
                        except MetaConflict:
                            self._reload_later(game_id)
                        fell = False
                    elif (clock is not None and not match.is_over
                            and clock.abandoned(self.now()) and match.can_abort()):
                        fell = await self._abort_locked(match)
                    else:
                        fell = (clock is not None and not match.is_over
                                and clock.flagged(self.now(), LAG_ALLOWANCE_MS) is not None
                                and await self._flag_fall(match, clock))
                if fell:
                    ended.append(game_id)
                    await self._finished(match)
                else:
                    self._watch(match)
            except Exception:
                log.exception("could not adjudicate the clock of game %s", game_id)
        return ended

    async def credit_outage(self) -> int:
        """At start: when no server process kept the clocks for more than
        ``2 * CLOCK_HEARTBEAT`` seconds (the last mark: a stop, or the heartbeat before a
        crash), every running clock resumes from now, crediting that time (the player to
        move is not charged the outage; a flag that fell before it still falls). Returns
        how many games were credited. Marks the clocks as kept from now on."""
        current = self.now()
        raw = await self._store(self.storage.site_value, CLOCK_ALIVE)
        await self._store(self.storage.set_site_value, CLOCK_ALIVE, repr(float(current)))
        try:
            last = float(raw) if raw is not None else None
        except ValueError:
            last = None
        if last is None or current - last <= 2 * CLOCK_HEARTBEAT * 1000:
            return 0
        outage = current - last
        credited = 0
        for game_id, deadline in await self._store(self.storage.clocked_games):
            if deadline <= last:
                continue  # overdue before the outage: adjudicated as it is
            loaded = await self._store(self.storage.load_tail, game_id, 1 << 30)
            if loaded is None or loaded[0].status != "playing" or not loaded[0].meta.get("clock"):
                continue
            stored = loaded[0]
            meta = dict(stored.meta)
            clock = clock_in(meta)
            assert clock is not None  # checked above
            if clock.running is not None and clock.since is not None:
                clock.since += outage
            if clock.abort_at is not None:
                clock.abort_at += outage
            put_clock(meta, clock)
            try:  # conditional: a game another process changed meanwhile is live there
                await self._store(self.storage.set_meta, game_id, meta, now(), stored.version)
            except MetaConflict:
                continue
            credited += 1
        if credited:
            log.info("credited %d running clocks with %.1f s of downtime", credited,
                     outage / 1000)
        return credited

    async def _housekeeping_loop(self) -> None:
        """Mark the clocks as kept every ``CLOCK_HEARTBEAT`` seconds and run
        :meth:`housekeep` every ``HOUSEKEEPING_EVERY`` seconds."""
        loop = asyncio.get_running_loop()
        next_pass = loop.time() + HOUSEKEEPING_EVERY  # not in the start's rush
        while True:
            try:
                await self.mark_clocks_kept()
                if loop.time() >= next_pass:
                    next_pass = loop.time() + HOUSEKEEPING_EVERY
                    await self.housekeep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("housekeeping failed; trying again")
            await asyncio.sleep(CLOCK_HEARTBEAT)

    async def mark_clocks_kept(self) -> None:
        """Store "the clocks are kept until now" (the heartbeat :meth:`credit_outage`
        reads at the next start)."""
        await self._store(self.storage.set_site_value, CLOCK_ALIVE, repr(float(self.now())))

    def _iso_before(self, seconds: float) -> str:
        return datetime.fromtimestamp(self.now() / 1000 - seconds, UTC).isoformat(
            timespec="seconds")

    async def housekeep(self) -> dict[str, int]:
        """One pass (at most ``HOUSEKEEPING_BATCH`` rows of each kind): expire open
        challenges past ``SEEK_TTL``, abort online games whose invitation nobody opened
        within ``INVITE_TTL``, delete idle guests (``GUEST_TTL``). Returns the counts."""
        expired = 0
        for seek in await self._store(self.storage.open_seeks, HOUSEKEEPING_BATCH):
            if self.seek_expired(seek) and await self._store(self.storage.expire_seek, seek.id):
                expired += 1
        if expired:
            self._lobby_changed()
        aborted = 0
        for correspondence, kind in ((False, "realtime"), (True, "correspondence")):
            rows = await self._store(self.storage.unopened_games,
                                     self._iso_before(INVITE_TTL[kind]),
                                     HOUSEKEEPING_BATCH, correspondence)
            for game_id, meta in rows:
                if await self._expire_invitation(game_id, meta):
                    aborted += 1
        guests = await self._store(self.storage.delete_idle_guests,
                                   self._iso_before(GUEST_TTL), ABORTED, HOUSEKEEPING_BATCH)
        if aborted:
            self._lobby_changed()
        return {"seeks": expired, "invitations": aborted, "guests": len(guests)}

    async def _expire_invitation(self, game_id: str, meta: dict[str, Any]) -> bool:
        """Abort an online game whose invitation was never opened (no result)."""
        match = self._matches.get(game_id)
        if match is not None:
            async with self._locks[game_id]:
                if match.is_over or not any(player.get("invite")
                                            for player in match.stored.players):
                    return False
                done = await self._abort_locked(match)
            if done:
                await self._finished(match)
            return done
        meta = dict(meta)
        clock = clock_in(meta)
        if clock is not None:
            clock.stop(self.now())
            put_clock(meta, clock)
        meta["deadline"] = None
        meta["termination"] = "aborted"
        meta["turn"] = None
        done = bool(await self._store(self.storage.end_if_playing, game_id, None, ABORTED,
                                      meta, now()))
        self._deadlines.pop(game_id, None)
        return done

    async def resync_clocks(self) -> None:
        """Read every running clock's deadline from storage (at start: games overdue
        since before a restart are adjudicated at once; then other processes' games)."""
        rows = await self._store(self.storage.clocked_games)
        for game_id, deadline in rows:
            match = self._matches.get(game_id)
            if match is None or match.meta.get("deadline") == deadline:
                self._deadlines[game_id] = float(deadline)

    async def _watch_clocks(self) -> None:
        """The flag-fall watch: ends games whose time ran out even when nobody is
        connected. Sleeps until the nearest deadline (or a change, or ``CLOCK_RESYNC``)."""
        loop = asyncio.get_running_loop()
        next_sync = 0.0
        assert self._clock_wake is not None
        while True:
            try:
                if loop.time() >= next_sync:
                    await self.resync_clocks()
                    next_sync = loop.time() + CLOCK_RESYNC
                await self.check_clocks()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the clock watch failed; trying again")
            wait = CLOCK_RESYNC
            if self._deadlines:
                wait = min(wait, max(0.01, (min(self._deadlines.values()) - self.now()) / 1000))
            self._clock_wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self._clock_wake.wait()

    async def _finished(self, match: Match) -> None:
        """A game just ended (its ratings applied by :meth:`on_game_over`): the lobby's
        list of games being played changes."""
        self._lobby_changed()

    # ------------------------------------------ takeback, abort, rematch (online)
    async def takeback(self, game_id: str, token: str | None, answer: str) -> Match:
        """A takeback request in an online game: ``offer`` (ask to take back your last
        action), ``accept``/``decline`` (the opponent answers), ``cancel`` (withdraw).
        Accepted, it works as undo against the computer does for the asking seat.
        Stored only if the game is still what this process holds (its version), else
        checked and applied again on the re-read game (:meth:`_conditionally`)."""
        if answer not in ("offer", "accept", "decline", "cancel"):
            raise ValueError("answer must be offer, accept, decline or cancel")
        match: Match = await self._conditionally(
            game_id, self._takeback_once, game_id, token, answer)
        return match

    async def _takeback_once(self, game_id: str, token: str | None, answer: str) -> Match:
        match = await self.get(game_id)
        async with self._locks[game_id]:
            match = self.current(game_id, match)  # reloaded while this waited
            seats = match.seats_of(token)
            if not seats:
                raise PermissionError("this link does not hold a seat in this game")
            if match.stored.mode != "online":
                raise IllegalAction("takeback requests are for online games; use undo")
            if match.is_over:
                raise IllegalAction(f"the game is over: {match.result_text()}")
            offers = match.offers()
            pending = offers.get("takeback")
            taken = 0
            if answer == "offer":
                if pending is not None:
                    raise IllegalAction("a takeback has already been asked for")
                mine = [seat for seat in sorted(seats) if match.seat_has_moved(seat)]
                if not mine:
                    raise IllegalAction("there is no action of yours to take back")
                offers["takeback"] = mine[0]
            elif pending is None:
                raise IllegalAction("nobody has asked for a takeback")
            elif answer == "cancel":
                if pending not in seats:
                    raise IllegalAction("only the player who asked can withdraw it")
                offers.pop("takeback")
            else:
                if 1 - pending not in seats:
                    raise IllegalAction("your opponent answers your takeback request")
                offers.pop("takeback")
                if answer == "accept":
                    taken = match.take_back_for(pending)
            stamp = now()
            if taken:
                clock = match.clock()
                if clock is not None:
                    clock.resume(match.position.current_seat, self.now())
                    match.set_clock(clock)
                match.meta["turn"] = match.position.current_seat
            try:  # the meta and (accepted) the actions taken back, in one transaction
                match.stored.version = await self._store(
                    self.storage.set_meta, game_id, match.meta, stamp, match.stored.version,
                    len(match.plies) if taken else None)
            except MetaConflict:
                if taken:  # read the whole game again (its actions were taken back here)
                    self._matches.pop(game_id, None)
                raise
            match.stored.updated_at = stamp
            match.revision += 1
        self.hub.publish(match)
        self._watch(match)
        return match

    async def abort(self, game_id: str, token: str | None) -> Match:
        """End an online game before each side has moved: no result, no rating change."""
        match = await self.get(game_id)
        async with self._locks[game_id]:
            match = self.current(game_id, match)  # reloaded while this waited
            if not match.seats_of(token):
                raise PermissionError("this link does not hold a seat in this game")
            if not match.can_abort():
                raise IllegalAction("a game can be aborted only before each side has moved")
            if not await self._abort_locked(match):
                raise IllegalAction("the game had already ended")
        self.hub.publish(match)
        self._watch(match)
        self._lobby_changed()
        return match

    async def _abort_locked(self, match: Match) -> bool:
        """End the game without a result (under its lock); False when another process
        ended it first."""
        game_id = match.id
        clock = match.clock()
        if clock is not None:
            clock.stop(self.now())
            match.set_clock(clock)
        match.meta["termination"] = "aborted"
        match.meta["turn"] = None
        stamp = now()
        if not await self._store(self.storage.end_if_playing, game_id, None, ABORTED,
                                 match.meta, stamp, match.stored.version):
            self._reload_later(game_id)
            return False
        match.stored.version += 1
        match.stored.status, match.stored.winner, match.stored.reason = "over", None, ABORTED
        match.stored.updated_at = stamp
        match.revision += 1
        self._deadlines.pop(game_id, None)
        self.hub.publish(match)
        return True

    async def rematch(self, game_id: str, token: str | None, answer: str = "offer") -> Match:
        """After an online game: ``offer`` (or accept the opponent's offer: the same)
        or ``decline``. When both seats asked, a new game starts with the colours
        swapped, the same options and time control; each seat credential moves to the
        other seat, so both players hold their seats in it at once. Its id is in the
        old game's ``rematch``."""
        if answer not in ("offer", "decline"):
            raise ValueError("answer must be offer or decline")
        match: Match = await self._conditionally(
            game_id, self._rematch_once, game_id, token, answer)
        return match

    async def _rematch_once(self, game_id: str, token: str | None, answer: str) -> Match:
        """One try of :meth:`rematch`: the offers and the new game are stored together,
        only if the old game's row is still at the version read here, so two offers
        made at once through two processes make exactly one rematch."""
        match = await self.get(game_id)
        created = None
        async with self._locks[game_id]:
            match = self.current(game_id, match)  # reloaded while this waited
            seats = match.seats_of(token)
            if not seats:
                raise PermissionError("this link does not hold a seat in this game")
            stored = match.stored
            if stored.mode != "online" or not match.is_over:
                raise IllegalAction("a rematch is offered after an online game")
            if match.meta.get("rematch"):
                raise IllegalAction("the rematch has already started")
            if any(player.get("invite") for player in stored.players):
                raise IllegalAction("your opponent never joined this game")
            offers = match.offers()
            asked = set(offers.get("rematch", []))
            asked = set() if answer == "decline" else asked | seats
            offers["rematch"] = sorted(asked)
            stamp = now()
            if asked == {0, 1}:
                players = [dict(player) for player in reversed(stored.players)]
                created = StoredGame(
                    id=secrets.token_urlsafe(9), game=stored.game, options=dict(stored.options),
                    mode="online", players=players,
                    seat_tokens=list(reversed(stored.seat_tokens)),
                    status="playing", winner=None, reason=None,
                    created_at=stamp, updated_at=stamp,
                    rated=stored.rated, meta={"rematch_of": stored.id},
                )
                fresh = await self._adopt(await self.call_thread(Match, created))
                fresh.now = self.now
                self._start_clock(fresh, TimeControl.parse(match.meta.get("control")))
                match.meta["rematch"] = created.id
            match.stored.version = await self._store(
                self.storage.set_meta, game_id, match.meta, stamp, match.stored.version,
                None, created)
            if created is not None:
                self._matches[created.id] = fresh
                self._watch(fresh)
            match.revision += 1
        self.hub.publish(match)
        if created is not None:
            self._lobby_changed()
        return match

    # ------------------------------------------------------------------- lobby
    async def create_seek(self, game_name: str, options: dict[str, Any] | None,
                          control: dict[str, Any] | None, color: str, rated: bool,
                          creator: dict[str, Any], target: str | None = None,
                          address: str | None = None) -> tuple[Seek, str]:
        """Post an open challenge (or a direct one to the player named ``target``).
        Returns it with the seat credential its creator will hold in the game.
        ``address``: the poster's client address (at most
        ``MAX_OPEN_SEEKS_PER_ADDRESS`` open challenges each; kept as a keyed hash)."""
        game = get_game(game_name)
        rules_options = parse_options(game, options)
        time_control = TimeControl.parse(control)
        if color != "random" and color not in game.colors:
            raise ValueError(f"colour must be random or one of {', '.join(game.colors)}")
        if target is not None and (not target.strip() or len(target) > 40):
            raise ValueError("a direct challenge names a player")
        open_now = [seek for seek in await self._store(self.storage.open_seeks, MAX_OPEN_SEEKS)
                    if not self.seek_expired(seek)]
        poster = creator.get("player_id")
        if poster and sum(seek.creator.get("player_id") == poster
                          for seek in open_now) >= MAX_OPEN_SEEKS_PER_PLAYER:
            raise IllegalAction(f"you already have {MAX_OPEN_SEEKS_PER_PLAYER} open "
                                "challenges; withdraw one or wait for an opponent")
        if address is not None:
            key = await self.seat_key()
            origin = hmac.new(key, b"address\x00" + address.encode("utf-8", "replace"),
                              hashlib.sha256).hexdigest()[:24]
            creator = {**creator, "from": origin}
            if sum(seek.creator.get("from") == origin
                   for seek in open_now) >= MAX_OPEN_SEEKS_PER_ADDRESS:
                raise IllegalAction(f"{MAX_OPEN_SEEKS_PER_ADDRESS} open challenges come "
                                    "from your address already; withdraw one or wait for "
                                    "an opponent")
        if len(open_now) >= MAX_OPEN_SEEKS:
            raise LobbyFull("the lobby is full of open challenges; accept one, or try "
                            "again in a few minutes")
        token = new_token()
        seek = Seek(
            id=secrets.token_urlsafe(9), game=game.name, options=rules_options,
            control=time_control.to_dict(), color=color, rated=bool(rated),
            creator=dict(creator), creator_token=hashed(token) or "",
            target=target.strip() if target else None, status="open", game_id=None,
            created_at=datetime.fromtimestamp(self.now() / 1000, UTC).isoformat(
                timespec="milliseconds"),
        )
        await self._store(self.storage.create_seek, seek)
        self._lobby_changed()
        return seek, token

    async def accept_seek(self, seek_id: str, acceptor: dict[str, Any]) -> tuple[Match, str]:
        """Accept an open challenge: the game starts for both at once. Of two players
        accepting together exactly one gets the game (the storage's conditional update);
        the other gets :class:`SeekTaken` (409)."""
        seek = await self._store(self.storage.load_seek, seek_id)
        if seek is None:
            raise GameNotFound(f"there is no challenge {seek_id[:40]!r}")
        if seek.status == "open" and self.seek_expired(seek):
            await self._store(self.storage.expire_seek, seek.id)
            raise SeekTaken("this challenge has expired")
        if seek.status != "open":
            raise SeekTaken("this challenge has already been accepted, withdrawn or expired")
        mine = acceptor.get("player_id")
        if mine and mine == seek.creator.get("player_id"):
            raise IllegalAction("this is your own challenge; wait for an opponent")
        if seek.target is not None:
            name = str(acceptor.get("name") or "").casefold()
            if name != seek.target.casefold():
                raise PermissionError(f"this challenge is for {seek.target}")
        game = get_game(seek.game)
        color = seek.color if seek.color != "random" else secrets.choice(list(game.colors))
        start = await self.call_thread(start_position, game, seek.options)  # off the loop
        creator_seat = start.seat_of(color)
        token = new_token()
        players: list[dict[str, Any]] = [{}, {}]
        tokens: list[str | None] = [None, None]
        for seat, who in ((creator_seat, seek.creator), (1 - creator_seat, acceptor)):
            players[seat] = {"kind": "human", "level": None}
            if who.get("player_id"):
                players[seat]["player_id"] = who["player_id"]
        tokens[creator_seat], tokens[1 - creator_seat] = seek.creator_token, hashed(token)
        stamp = now()
        stored = StoredGame(
            id=secrets.token_urlsafe(9), game=game.name, options=dict(seek.options),
            mode="online", players=players, seat_tokens=tokens, status="playing",
            winner=None, reason=None, created_at=stamp, updated_at=stamp,
            rated=seek.rated, meta={"seek": seek.id},
        )
        match = await self._adopt(await self.call_thread(Match, stored))  # off the loop
        match.now = self.now
        self._start_clock(match, TimeControl.parse(seek.control))
        await self._store(self.storage.accept_seek, seek.id, stored)
        self._matches[stored.id] = match
        self._watch(match)
        self._lobby_changed({"type": "seek_taken", "seek": seek.id, "game": stored.id})
        return match, token

    async def cancel_seek(self, seek_id: str, token: str | None) -> None:
        if not token or not await self._store(self.storage.cancel_seek, seek_id, token):
            raise IllegalAction("only an open challenge of yours can be withdrawn")
        self._lobby_changed()

    async def seek_status(self, seek_id: str) -> dict[str, Any]:
        seek = await self._store(self.storage.load_seek, seek_id)
        if seek is None:
            raise GameNotFound(f"there is no challenge {seek_id[:40]!r}")
        return {**public_seek(seek), "status": seek.status, "game": seek.game_id}

    def seek_expired(self, seek: Seek) -> bool:
        ttl = SEEK_TTL.get(str(seek.control.get("kind")), SEEK_TTL["untimed"])
        try:
            posted = datetime.fromisoformat(seek.created_at).timestamp() * 1000
        except ValueError:
            return False
        return self.now() - posted > ttl * 1000

    async def lobby_state(self) -> dict[str, Any]:
        seeks = []
        for seek in await self._store(self.storage.open_seeks, LOBBY_LIMIT):
            if self.seek_expired(seek):
                await self._store(self.storage.expire_seek, seek.id)
            else:
                seeks.append(seek)
        playing = [
            stored for stored in
            await self._store(self.storage.games_with_status, "playing", LOBBY_LIMIT)
            if stored.mode == "online"
            and not any(player.get("invite") for player in stored.players)
        ]
        names = await self._names(playing)
        return {
            "type": "lobby",
            "seeks": [public_seek(seek) for seek in seeks],
            "playing": [playing_summary(stored, names) for stored in playing],
        }

    async def names_of(self, games: builtins.list[StoredGame]) -> dict[str, str]:
        """The display names of the identities holding seats in ``games`` (id -> name)."""
        return await self._names(games)

    async def _names(self, games: builtins.list[StoredGame]) -> dict[str, str]:
        ids = {player["player_id"] for stored in games for player in stored.players
               if player.get("player_id")}
        return await self._store(self.storage.player_names, sorted(ids)) if ids else {}

    def lobby_full(self) -> bool:
        """As many lobby sockets as the hub allows game sockets in total (1,000)."""
        return len(self._lobby) >= self.hub.max_total

    def join_lobby(self, socket: Any, player_id: str | None = None) -> Connection:
        """A lobby socket opened (``player_id``: its identity, if the cookie names one:
        while it is open, that player's challenges are not withdrawn as departed)."""
        connection = Connection(socket, None)
        self._lobby[socket] = connection
        if player_id:
            self._lobby_players[socket] = player_id
            self._departed.pop(player_id, None)
        return connection

    def leave_lobby(self, socket: Any) -> None:
        connection = self._lobby.pop(socket, None)
        if connection is not None:
            connection.stop()
        player_id = self._lobby_players.pop(socket, None)
        if player_id and player_id not in self._lobby_players.values():
            # The poster's last lobby socket here closed: real-time challenges are
            # withdrawn unless they are back within the grace period.
            self._departed[player_id] = self.now()
            with contextlib.suppress(RuntimeError):  # no running loop: tests call it
                loop = asyncio.get_running_loop()
                loop.call_later(LOBBY_LEAVE_GRACE + 0.5, self._withdraw_later)

    def _withdraw_later(self) -> None:
        task = asyncio.get_running_loop().create_task(self.withdraw_departed())
        self._timers.add(task)
        task.add_done_callback(self._timers.discard)

    async def withdraw_departed(self) -> builtins.list[str]:
        """Withdraw the real-time and untimed open challenges of posters whose last
        lobby socket closed ``LOBBY_LEAVE_GRACE`` seconds ago or more and who did not
        come back (status ``expired``; correspondence challenges stay). Returns their
        ids. Called after each grace period; tests call it after moving their clock."""
        current = self.now()
        due = {player_id for player_id, since in self._departed.items()
               if current - since >= LOBBY_LEAVE_GRACE * 1000}
        if not due:
            return []
        for player_id in due:
            self._departed.pop(player_id, None)
        withdrawn = []
        try:
            for seek in await self._store(self.storage.open_seeks, 2 * LOBBY_LIMIT):
                if (seek.creator.get("player_id") in due
                        and seek.control.get("kind") != "correspondence"
                        and await self._store(self.storage.expire_seek, seek.id)):
                    withdrawn.append(seek.id)
        except Exception:
            log.exception("could not withdraw the challenges of departed posters")
        if withdrawn:
            self._lobby_changed()
        return withdrawn

    def _lobby_changed(self, event: dict[str, Any] | None = None) -> None:
        """Send every lobby socket ``event`` (if any) and the new lobby (off the caller)."""
        if not self._lobby:
            return
        for connection in list(self._lobby.values()):
            if event is not None:
                connection.send(event, state=False)
        with contextlib.suppress(RuntimeError):  # no running loop: nobody to tell
            asyncio.get_running_loop().create_task(self._publish_lobby())

    async def _publish_lobby(self) -> None:
        try:
            state = await self.lobby_state()
        except Exception:
            log.exception("could not read the lobby")
            return
        text = json.dumps(state, separators=(",", ":"))
        for socket, connection in list(self._lobby.items()):
            if connection.closed:
                self.leave_lobby(socket)
            else:
                connection.send(text, state=True)

    async def your_turn(self, player_id: str, games: builtins.list[StoredGame]
                        ) -> builtins.list[dict[str, Any]]:
        """Of ``games`` (a player's), those being played where it is their turn."""
        mine = []
        names = await self._names(games)
        for stored in games:
            seat = stored.meta.get("turn")
            if (stored.status == "playing" and isinstance(seat, int)
                    and stored.players[seat].get("player_id") == player_id):
                mine.append(playing_summary(stored, names))
        return mine


def public_seek(seek: Seek) -> dict[str, Any]:
    """A challenge as the lobby shows it (no credential)."""
    game = get_game(seek.game)
    return {
        "id": seek.id,
        "game": seek.game,
        "title": game.title,
        "options": seek.options,
        "control": seek.control,
        "time": TimeControl.parse(seek.control).describe(),
        "color": seek.color,
        "rated": seek.rated,
        "by": str(seek.creator.get("name") or "Anonymous"),
        "by_player": seek.creator.get("player_id"),
        "target": seek.target,
        "created_at": seek.created_at,
    }


def playing_summary(stored: StoredGame, names: dict[str, str] | None = None) -> dict[str, Any]:
    """A game being played, for the lobby and "your turn" lists."""
    control = TimeControl.parse(stored.meta.get("control")) if stored.meta.get("control") \
        else TimeControl()
    return {
        "id": stored.id,
        "game": stored.game,
        "title": get_game(stored.game).title if stored.game in game_names() else stored.game,
        "names": [(names or {}).get(str(player.get("player_id")), f"Player {seat + 1}")
                  for seat, player in enumerate(stored.players)],
        "time": control.describe(),
        "rated": stored.rated,
        "turn": stored.meta.get("turn"),
        "deadline": stored.meta.get("deadline"),
        "updated_at": stored.updated_at,
    }
