"""The change feed: keeping the games held in memory in step with the stored ones.

Storage is the single source of truth. Several server processes may share it
(PostgreSQL): each tells the others what it stored (``LISTEN/NOTIFY``, a
:class:`~hexgames.web.storage.Change` per write), and :class:`ChangeFeed` brings the
games this process holds up to date (:meth:`ChangeFeed.refresh`: the actions stored
since, or the whole game again), one refresh task per game at a time. A write of this
process that finds the game moved on (another process wrote first) reloads it the same
way: :meth:`ChangeFeed.write_meta` and :meth:`ChangeFeed.conditionally`, the two ways a
game's meta and seats are written.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from hexgames.errors import IllegalAction
from hexgames.web.game.matches import Match
from hexgames.web.play.live_games import LiveGames, iso_now
from hexgames.web.storage import Change, GameMeta, MetaConflict

__all__ = ["META_RETRIES", "ChangeFeed"]

log = logging.getLogger(__name__)

#: Times a write of a game's meta or seats is tried again on the re-read game when
#: another request or server process wrote it first (the writes are conditional on the
#: row's version: see docs/web.md, "Storage"); past them the client gets 409.
META_RETRIES = 8


class ChangeFeed:
    """Changes stored by other server processes (or found by a failed write), applied to
    the games held here (see the module's doc)."""

    def __init__(self, games: LiveGames) -> None:
        self.games = games
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_listening: Any = None
        self._dirty: set[str] = set()
        self._full_reload: set[str] = set()
        #: The refresh task of each game being brought up to date.
        self.refreshing: dict[str, asyncio.Task[None]] = {}
        #: Called (on the event loop) with every change heard, held game or not (turn
        #: alerts for games this process does not hold).
        self.listeners: list[Callable[[Change | None], None]] = []

    async def start(self) -> None:
        """Listen to the other server processes' changes (a shared storage only)."""
        self._loop = asyncio.get_running_loop()
        storage = self.games.storage
        if storage.shared:
            self._stop_listening = await asyncio.to_thread(storage.listen, self._on_change)

    async def close(self) -> None:
        if self._stop_listening is not None:
            await asyncio.to_thread(self._stop_listening)
        for task in list(self.refreshing.values()):
            task.cancel()

    def _on_change(self, change: Change | None) -> None:
        """Called by the storage's listener thread: hand the change to the event loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._changed, change)

    def _changed(self, change: Change | None) -> None:
        """Another process stored a change (``None``: maybe several were missed): bring
        the games this process holds up to date, one refresh task per game at a time."""
        for listener in self.listeners:
            try:
                listener(change)
            except Exception:
                log.exception("a change listener failed")
        if change is not None and change.kind.startswith("chat."):
            return  # a chat message: no game changed (the chat's listener pushes it)
        if change is not None and change.kind in ("started", "tournament"):
            return  # a new game or tournament stored elsewhere: only the bell cares
        if change is None or change.kind == "lobby":
            self.games.hooks.lobby_changed()
            if change is not None:
                return
        ids = list(self.games.matches) if change is None else [change.game_id]
        for game_id in ids:
            if game_id not in self.games.matches and game_id not in self.games.loading:
                continue  # not held here: it is loaded from storage when opened
            if change is None or change.kind not in ("append", "turn", "meta"):
                self._full_reload.add(game_id)
            self._dirty.add(game_id)
            if game_id not in self.refreshing:
                self.refreshing[game_id] = asyncio.create_task(self._refresh_loop(game_id))

    def reload_later(self, game_id: str) -> None:
        """Reload a game from storage once its lock is free (the caller holds it)."""
        self._full_reload.add(game_id)
        self._dirty.add(game_id)
        if game_id not in self.refreshing:
            self.refreshing[game_id] = asyncio.create_task(self._refresh_loop(game_id))

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
            self.refreshing.pop(game_id, None)

    async def refresh(self, game_id: str, full: bool = False) -> Match | None:
        """Bring the game held in memory up to the stored one (the single source of
        truth): the actions stored since, or (``full``, or when they do not follow on)
        the whole game again. Publishes the new state to this process's sockets."""
        games = self.games
        async with games.locks[game_id]:
            match = games.matches.get(game_id)
            if match is None:
                return None
            have = len(match.plies)
            loaded = await games.calls.call(games.storage.load_tail, game_id,
                                            0 if full else have)
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
                whole = await games.calls.call(games.storage.load_game, game_id)
                if whole is None:
                    return match
                fresh = await games.build(whole)
                fresh.thinking = match.thinking
                games.matches[game_id] = match = fresh
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
                    await games.adopt(match)
                    changed = True
                elif mine.rated and match.is_over and match.rating_changes is None:
                    await games.adopt(match)  # the ratings were applied since
                    changed = match.rating_changes is not None
                mine.updated_at = stored.updated_at
                mine.version = stored.version  # what the next conditional write expects
        if changed:
            games.hub.publish(match)
            games.hooks.schedule_ai(match)
            games.hooks.watch_clock(match)
        return match

    async def write_meta(self, match: Match, change: Callable[[GameMeta], None],
                         batched: bool = False) -> bool:
        """Apply ``change`` (a pure function of a meta, run in the storage thread)
        to the game's meta *as stored* and store it, in one transaction that holds the
        game's row (``Storage.update_meta``): a takeback offer written meanwhile through
        another process is kept and never turns the clock back, and nothing needs a
        retry. Under the game's lock. False when the game moved on meanwhile (other
        actions, another status): it is then reloaded, and the stored game counts."""
        calls = self.games.calls
        store = calls.call_batched if batched else calls.call
        written = await store(self.games.storage.update_meta, match.id, change, iso_now(),
                              len(match.plies), match.stored.status)
        if written is None:
            self.reload_later(match.id)
            return False
        mine = match.stored
        mine.meta, mine.version, mine.updated_at = written.meta, written.version, \
            written.updated_at
        mine.players, mine.seat_tokens = written.players, written.seat_tokens
        match.revision += 1
        return True

    async def conditionally(self, game_id: str, operation: Any, *args: Any) -> Any:
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
