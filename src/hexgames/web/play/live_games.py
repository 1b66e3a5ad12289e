"""The games a server process holds in memory: loading, locking, saving and dropping them.

:class:`LiveGames` keeps the live :class:`~hexgames.web.game.matches.Match` of every game
someone opened, with one lock per game (two browsers clicking at once cannot interleave),
and is the one place that builds a match from storage (:meth:`LiveGames.adopt`: the seat
key, the names in its seats, a rated game's rating changes), stores a played action
(:meth:`LiveGames.save_or_take_back`: memory and database never disagree), and applies a
finished rated game's result (:meth:`LiveGames.record_result`). Games nobody watches are
dropped after a while and read again when next opened (:meth:`LiveGames.evict_idle`).

The collaborators built on it (the change feed, the clock watch, the AI queue, the lobby)
are above it: what it needs of them (start the AI, watch a clock, tell the lobby) it calls
through :class:`Hooks`, which :class:`~hexgames.web.service.GameService` fills in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hexgames.errors import IllegalAction
from hexgames.phrases import N_, Phrase
from hexgames.web.game.matches import Match
from hexgames.web.play.hub import Hub
from hexgames.web.play.storage_calls import StorageCalls, WriteUnconfirmed
from hexgames.web.ratings.games import record_rated_result
from hexgames.web.ratings.results import results_of_match
from hexgames.web.storage import (
    GameMeta,
    Mode,
    MoveWrite,
    StaleWrite,
    Storage,
    StorageUnavailable,
    StoredGame,
)

__all__ = ["GameNotFound", "Hooks", "LiveGames", "MetaChange", "iso_now"]

#: A change of a game's meta, made in place (a move's clock and turn: :class:`Hooks`).
MetaChange = Callable[[GameMeta], None]

log = logging.getLogger(__name__)

#: A game held in memory that nobody watches (no socket, no AI turn, no change under
#: way) is dropped after this many seconds unused; it is read from storage again when
#: next opened. Beyond ``MAX_IDLE_GAMES`` such games, or ``MAX_IDLE_ACTIONS`` actions in
#: them, the least recently used go first. Checked every ``EVICT_EVERY`` seconds.
IDLE_SECONDS = 300.0
MAX_IDLE_GAMES = 200
MAX_IDLE_ACTIONS = 50_000
EVICT_EVERY = 15.0


class GameNotFound(LookupError):
    """No game with that id (a 404, not a server error)."""


def iso_now() -> str:
    """The time stamp of a stored change (ISO 8601, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _release_memory() -> None:
    """Hand the heap freed by dropped games back to the system (glibc keeps it
    otherwise: 124 of 282 MB after four 18k-action uploads were dropped)."""
    with contextlib.suppress(Exception):  # not glibc: nothing to do
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _no_match(match: Match) -> None:
    """A hook nobody set: nothing to do."""


def _nothing() -> None:
    """A hook nobody set: nothing to do."""


def _no_seat(match: Match, seat: int) -> None:
    """A hook nobody set: nothing to do."""


def _no_change(match: Match, mover: int, lag_ms: float) -> MetaChange | None:
    """A hook nobody set: a move changes nothing in the meta."""
    return None


def _idle(game_id: str) -> bool:
    """A hook nobody set: no collaborator is busy with the game."""
    return False


#: A link (seat token) that holds no seat of the game it acts on.
NO_SEAT = N_("this link does not hold a seat in this game")


@dataclass(frozen=True)
class Held:
    """A game held under its lock by :meth:`LiveGames.locked`: the live match (reloaded
    while the caller waited) and the seats the caller's token holds in it."""

    match: Match
    seats: frozenset[int]


@dataclass
class Hooks:
    """What the collaborators above :class:`LiveGames` do when a game is opened or changes.

    Set once by the service when it wires them together, so that no collaborator imports
    one above it (each is built on the ones below).
    """

    #: Start the AI's search if it is an AI seat's turn (the AI queue).
    schedule_ai: Callable[[Match], None] = field(default=_no_match)
    #: Keep the flag-fall watch in step with the game's clock (the clock watch).
    watch_clock: Callable[[Match], None] = field(default=_no_match)
    #: The lobby's lists changed: a game started or ended, a challenge came or went.
    lobby_changed: Callable[[], None] = field(default=_nothing)
    #: Whether a collaborator is busy with a game (then it is not dropped from memory).
    busy: Callable[[str], bool] = field(default=_idle)
    #: A seat of the game acted (stored): it is present (the absence watch).
    acted: Callable[[Match, int], None] = field(default=_no_seat)
    #: The meta change of an action of ``mover`` just played (the clock switched at a
    #: turn's end, the turn, a takeback request dropped; ``None``: none), stored with
    #: the action in one write (the clock watch; its last argument the client's lag).
    move_change: Callable[[Match, int, float], MetaChange | None] = field(
        default=_no_change)
    #: The game ended here, its end stored, with a result or aborted (the tournaments
    #: record it; called with the game's lock held, so it only schedules its work).
    game_over: Callable[[Match], None] = field(default=_no_match)
    #: A new game was stored and is held here (an accepted challenge, a pairing, a
    #: rematch, a tournament's game...): its players' followers are told (the bell).
    started: Callable[[Match], None] = field(default=_no_match)


class LiveGames:
    """The games held by one server process (see the module's doc)."""

    def __init__(self, calls: StorageCalls, hub: Hub, now: Callable[[], float]) -> None:
        self.calls = calls
        self.hub = hub
        #: Wall time in ms since the epoch (injected by clock tests).
        self.now = now
        calls.outages.now = lambda: self.now()  # the outages on the clocks' own time
        self.hooks = Hooks()
        self.matches: dict[str, Match] = {}
        #: When each held game was last opened (``time.monotonic``): idle ones are
        #: dropped from memory (:meth:`evict_idle`).
        self.used: dict[str, float] = {}
        self.locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        #: Games being loaded: a change heard meanwhile is applied once they are in.
        self.loading: set[str] = set()
        self._seat_key: bytes | None = None
        calls.on_unconfirmed = self.forget

    @property
    def storage(self) -> Storage:
        return self.calls.storage

    def forget(self, game_id: str) -> None:
        """Drop the copy held of a game (it is read from storage when next opened)."""
        self.matches.pop(game_id, None)

    async def seat_key(self) -> bytes:
        """The site key of identity-derived seat tokens (stored once, shared by every
        server process)."""
        if self._seat_key is None:
            value = await self.calls.call(self.storage.site_secret, "seat-key",
                                          lambda: secrets.token_hex(32))
            self._seat_key = bytes.fromhex(value)
        return self._seat_key

    async def build(self, stored: StoredGame) -> Match:
        """A match of a stored game, built in a work thread (a long game's replay, a start
        position's reading and a new variant's tables take time that other clients must
        not wait for) and adopted (:meth:`adopt`)."""
        return await self.adopt(await self.calls.call_thread(Match, stored))

    async def adopt(self, match: Match) -> Match:
        """Give a match built from storage what the service knows: the wall clock, the
        seat key, the names of the identities in its seats and (a finished rated game)
        its rating changes, applying them if that was missed."""
        match.now = self.now
        match.seat_key = await self.seat_key()
        holders = [player_id for _, player_id in match.seat_holders()]
        if holders:
            match.names = await self.calls.call(self.storage.player_names, holders)
        if match.stored.rated and match.is_over and match.rating_changes is None:
            # Applied already (idempotent: then only read), or missed by a failure.
            match.rating_changes = await self.calls.call(record_rated_result, self.storage,
                                                         match)
        return match

    async def get(self, game_id: str) -> Match:
        """The live game (loaded from storage if not held); :class:`GameNotFound`."""
        match = self.matches.get(game_id)
        if match is not None:
            self.used[game_id] = time.monotonic()  # see evict_idle
            self.hooks.schedule_ai(match)  # retries after a failed search
            return match
        async with self.locks[game_id]:
            match = self.matches.get(game_id)
            if match is None:
                self.loading.add(game_id)
                try:
                    stored = await self.calls.call(self.storage.load_game, game_id)
                    if stored is None:
                        self.locks.pop(game_id, None)
                        raise GameNotFound(Phrase("there is no game {id}", id=repr(game_id)))
                    match = await self.build(stored)
                    self.matches[game_id] = match
                    self.used[game_id] = time.monotonic()
                finally:
                    self.loading.discard(game_id)
        self.hooks.schedule_ai(match)  # a server restart interrupted the AI's turn
        return match

    def current(self, game_id: str, held: Match) -> Match:
        """The live copy of a game (a reload from storage replaces the object a caller
        may still hold)."""
        return self.matches.get(game_id, held)

    @contextlib.asynccontextmanager
    async def locked(self, game_id: str, token: str | None = None, *, seat: bool = True,
                     online: str | Phrase | None = None, playing: bool = False,
                     no_seat: str | Phrase = NO_SEAT) -> AsyncIterator[Held]:
        """The guard every change of a live game starts with, held once: get the game,
        take its lock, reload (a refresh may have replaced the object meanwhile), then
        check, in this order and under the lock so that nothing changes between the
        check and the change:

        - ``seat``: ``token`` holds a seat (``PermissionError(no_seat)`` otherwise);
        - ``online``: the game is online (``IllegalAction(online)``, the words saying
          what the action is for, otherwise);
        - ``playing``: the game is not over (``IllegalAction``, naming the result).

        ``async with games.locked(game_id, token, online=..., playing=True) as held:``
        then works on ``held.match`` and ``held.seats``; :class:`GameNotFound` for an
        unknown game."""
        match = await self.get(game_id)
        async with self.locks[game_id]:
            match = self.current(game_id, match)  # reloaded while this waited
            seats = match.seats_of(token)
            if seat and not seats:
                raise PermissionError(no_seat)
            if online is not None and match.stored.mode != Mode.ONLINE:
                raise IllegalAction(online)
            if playing and match.is_over:
                raise IllegalAction("the game is over: {result}", result=match.result_phrase())
            yield Held(match, seats)

    def hold(self, match: Match) -> None:
        """Keep a new game (just stored) in memory, and say it started
        (:attr:`Hooks.started`)."""
        self.matches[match.id] = match
        try:
            self.hooks.started(match)
        except Exception:  # a listener must never undo a stored game
            log.exception("a started-game listener failed on game %s", match.id)

    async def renamed(self, player_id: str, name: str) -> None:
        """A player changed their name: the games this process holds show it at once."""
        for match in list(self.matches.values()):
            if player_id in match.names:
                match.names[player_id] = name
                self.hub.publish(match)

    @staticmethod
    def bumped(match: Match, version: Any) -> None:
        """After an unconditional write that returned the row's new ``version``: the
        copy held here is that version only if nobody else wrote in between (else it is
        left older, and the next conditional write re-reads the game)."""
        if isinstance(version, int) and version == match.stored.version + 1:
            match.stored.version = version

    # ------------------------------------------------------------------ saving
    async def save_or_take_back(self, match: Match, first: int, notation: str,
                                present: bool = False, lag_ms: float = 0.0) -> None:
        """Store an action just played, with what it changes in the game's row (the
        clock and the turn of an online game, the end), in one write; if storing fails,
        the live game forgets it too, so that memory and database never disagree (the
        error then reaches the caller). ``present``: the mover played it in person (not
        the AI, not a stored line), so its seat is stored as seen now in the same commit
        (an absence claim on any process then sees it: issue 39, row 2), unless a socket
        of that seat is open here: the presence beat stores it then, and a claim counts
        a seat seen within two beats as present. ``lag_ms``: the client's measured
        round trip, credited to its clock."""
        seen = None
        seat = match.plies[first].seat
        if (present and match.stored.mode == Mode.ONLINE
                and not self.hub.holds_seat(match.id, seat)):  # with a socket here, the
            seen = (seat, int(self.now()))  # presence beat stores it (no write per move)
        try:
            await self._save_actions(match, first, [notation], seen, lag_ms)
        except (StaleWrite, WriteUnconfirmed):
            # The stored game is not what this server holds (another writer, or a write
            # that timed out and landed later): reload it from storage next time.
            match.take_back_unsaved()
            self.matches.pop(match.id, None)
            raise
        except BaseException:
            match.take_back_unsaved()
            raise

    async def _save_actions(self, match: Match, first: int, actions: list[str],
                            seen: tuple[int, int] | None = None, lag_ms: float = 0.0
                            ) -> None:
        """One write (:meth:`Storage.store_move`): the actions, the mover's presence,
        the meta change of the move (applied to this copy of the meta for the usual
        case, to the stored one if another writer changed the row meanwhile) and the
        end of the game it made."""
        stamp = iso_now()
        stored = match.stored
        change = self.hooks.move_change(match, match.plies[first].seat, lag_ms)
        held = None
        if change is not None:
            held = stored.meta.copy()
            change(held)
        ended = match.sync_result()
        write = MoveWrite(match.id, first, tuple(actions), stamp, seen, change, held,
                          stored.version if change is not None else None, ended,
                          stored.winner, stored.reason)
        written = await self.calls.call_batched(self.storage.store_move, write)
        match.lines_held = written.lines
        if written.meta is not None:
            stored.meta = written.meta
            match.revision += 1
        self.bumped(match, written.version)
        stored.updated_at = stamp
        if ended:
            await self.record_result(match)

    async def record_result(self, match: Match) -> None:
        """A game just ended (the rules, a resignation, a flag fall...), its end already
        stored: apply a rated game's result to the ratings (once; see
        :func:`hexgames.web.ratings.games.record_rated_result`) and keep the changes for
        the game's state. Call it with the game's lock held. A storage failure is logged
        and the result is applied the next time the game is loaded or ends.

        First it files how the game went for each identity in it (profiles: see
        :mod:`hexgames.web.ratings.results`; one that fails is filed when a profile is read)."""
        await self.file_results(match)
        self.hooks.game_over(match)
        if not match.stored.rated or match.rating_changes is not None:
            return
        try:
            changes = await self.calls.call(record_rated_result, self.storage, match)
        except StorageUnavailable:
            log.warning("could not apply the ratings of game %s now", match.id)
            return
        if changes is None:
            return
        match.rating_changes = changes
        if self.storage.shared:  # the other processes reload the game and its changes
            stored = match.stored
            self.bumped(match, await self.calls.call(
                self.storage.finish_game, match.id, stored.winner, stored.reason,
                stored.updated_at))

    async def file_results(self, match: Match) -> None:
        """File the finished game's results for its players' profiles (no replay: the
        match is in memory)."""
        rows = results_of_match(match)
        if not rows:
            return
        try:
            await self.calls.call(self.storage.file_results, match.id, rows)
        except (StorageUnavailable, StaleWrite, WriteUnconfirmed):
            log.warning("could not file the results of game %s now", match.id)

    # ---------------------------------------------------------------- dropping
    async def evict_loop(self) -> None:
        """Drop idle games every ``EVICT_EVERY`` seconds (the service's task)."""
        while True:
            await asyncio.sleep(EVICT_EVERY)
            try:
                if self.evict_idle():
                    await self.calls.call_thread(_release_memory)
            except Exception:
                log.exception("could not drop idle games from memory")

    def evict_idle(self, now: float | None = None) -> list[str]:
        """Drop from memory the games nobody watches (no socket, AI turn, change or load
        under way) unused for ``IDLE_SECONDS``, and the least recently used beyond
        ``MAX_IDLE_GAMES`` games or ``MAX_IDLE_ACTIONS`` actions of such games; they are
        read from storage again when next opened (:meth:`get`). Returns their ids."""
        moment = time.monotonic() if now is None else now
        idle, expired = [], []
        for game_id, match in self.matches.items():
            lock = self.locks.get(game_id)
            if ((lock is not None and lock.locked()) or self.hub.watchers(game_id)
                    or self.hooks.busy(game_id) or game_id in self.loading
                    or match.thinking):
                continue
            used = self.used.setdefault(game_id, time.monotonic())  # first seen now
            if match.stored.mode == Mode.ONLINE and not match.is_over:
                # Being played (analysis reads its position: LivePositions): by time only.
                if moment - used >= IDLE_SECONDS:
                    expired.append(game_id)
                continue
            idle.append((used, game_id, len(match.plies)))
        for gone in [game_id for game_id in self.used if game_id not in self.matches]:
            del self.used[gone]  # dropped by a reload meanwhile
        idle.sort()  # least recently used first
        games, actions = len(idle), sum(plies for _, _, plies in idle)
        for used, game_id, plies in idle:
            if (moment - used < IDLE_SECONDS and games <= MAX_IDLE_GAMES
                    and actions <= MAX_IDLE_ACTIONS):
                break
            expired.append(game_id)
            games, actions = games - 1, actions - plies
        for game_id in expired:
            del self.matches[game_id]
            self.used.pop(game_id, None)
            lock = self.locks.get(game_id)
            if lock is not None and not lock.locked() and not getattr(lock, "_waiters", None):
                del self.locks[game_id]
        return expired
