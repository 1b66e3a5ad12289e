"""Housekeeping: what expires on its own (issue 31), and the clocks' heartbeat.

Every ``HOUSEKEEPING_EVERY`` seconds at most ``HOUSEKEEPING_BATCH`` rows of each kind are
expired: open challenges past their ``SEEK_TTL``; online games whose invitation nobody
opened within ``INVITE_TTL`` (aborted: no result); guests with no name and no game (or
only aborted ones) idle for ``GUEST_TTL`` (deleted). Between two passes the loop marks
the clocks as kept every ``CLOCK_HEARTBEAT`` seconds (see
:meth:`~hexgames.web.play.clock_watch.ClockWatch.credit_outage`).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

from hexgames.web.game.clocks import clock_in, put_clock
from hexgames.web.lobby.challenges import Lobby
from hexgames.web.play.clock_watch import ABORTED, CLOCK_HEARTBEAT, ClockWatch
from hexgames.web.play.live_games import LiveGames, iso_now
from hexgames.web.storage import GameMeta

__all__ = ["Housekeeping"]

log = logging.getLogger(__name__)

#: Housekeeping (issue 31): every ``HOUSEKEEPING_EVERY`` seconds at most
#: ``HOUSEKEEPING_BATCH`` rows of each kind are expired: open challenges past their
#: ``SEEK_TTL``; online games whose invitation nobody opened within ``INVITE_TTL``
#: (aborted); guests with no name and no game (or only aborted ones) idle for
#: ``GUEST_TTL`` (deleted).
HOUSEKEEPING_EVERY = 600.0
HOUSEKEEPING_BATCH = 200
INVITE_TTL = {"correspondence": 7 * 86_400.0, "realtime": 86_400.0, "untimed": 86_400.0}
GUEST_TTL = 30 * 86_400.0


class Housekeeping:
    """The periodic expiries of one server process (any number may run them)."""

    def __init__(self, games: LiveGames, clocks: ClockWatch, lobby: Lobby) -> None:
        self.games = games
        self.clocks = clocks
        self.lobby = lobby

    async def loop(self) -> None:
        """Mark the clocks as kept every ``CLOCK_HEARTBEAT`` seconds and run
        :meth:`housekeep` every ``HOUSEKEEPING_EVERY`` seconds."""
        loop = asyncio.get_running_loop()
        next_pass = loop.time() + HOUSEKEEPING_EVERY  # not in the start's rush
        while True:
            try:
                await self.clocks.mark_clocks_kept()
                if loop.time() >= next_pass:
                    next_pass = loop.time() + HOUSEKEEPING_EVERY
                    await self.housekeep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("housekeeping failed; trying again")
            await asyncio.sleep(CLOCK_HEARTBEAT)

    def _iso_before(self, seconds: float) -> str:
        return datetime.fromtimestamp(self.games.now() / 1000 - seconds, UTC).isoformat(
            timespec="seconds")

    async def housekeep(self) -> dict[str, int]:
        """One pass (at most ``HOUSEKEEPING_BATCH`` rows of each kind): expire open
        challenges past ``SEEK_TTL``, abort online games whose invitation nobody opened
        within ``INVITE_TTL``, delete idle guests (``GUEST_TTL``). Returns the counts."""
        call, storage = self.games.calls.call, self.games.storage
        expired = 0
        for seek in await call(storage.open_seeks, HOUSEKEEPING_BATCH):
            if self.lobby.seek_expired(seek) and await call(storage.expire_seek, seek.id):
                expired += 1
        if expired:
            self.lobby.changed()
        aborted = 0
        for correspondence, kind in ((False, "realtime"), (True, "correspondence")):
            rows = await call(storage.unopened_games, self._iso_before(INVITE_TTL[kind]),
                              HOUSEKEEPING_BATCH, correspondence)
            for game_id, meta in rows:
                if await self._expire_invitation(game_id, meta):
                    aborted += 1
        guests = await call(storage.delete_idle_guests, self._iso_before(GUEST_TTL), ABORTED,
                            HOUSEKEEPING_BATCH)
        if aborted:
            self.lobby.changed()
        return {"seeks": expired, "invitations": aborted, "guests": len(guests)}

    async def _expire_invitation(self, game_id: str, meta: GameMeta) -> bool:
        """Abort an online game whose invitation was never opened (no result)."""
        games = self.games
        match = games.matches.get(game_id)
        if match is not None:
            async with games.locks[game_id]:
                if match.is_over or not any(player.get("invite")
                                            for player in match.stored.players):
                    return False
                done = await self.clocks.abort_locked(match)
            if done:
                self.lobby.changed()
            return done
        meta = meta.copy()
        clock = clock_in(meta)
        if clock is not None:
            clock.stop(games.now())
            put_clock(meta, clock)
        meta.deadline = None
        meta.termination = "aborted"
        meta.turn = None
        done = bool(await games.calls.call(games.storage.end_if_playing, game_id, None,
                                           ABORTED, meta, iso_now()))
        self.clocks.unwatch(game_id)
        return done
