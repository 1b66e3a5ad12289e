"""Absent opponents: never stuck in an online game whose opponent went away (issue 32).

As on lichess, once a player's opponent has been gone long enough, the player may
**claim victory** or **call it a draw**. *Gone* means: no game socket of the opponent's
seat open in any server process, and no action of it, since the moment it was last seen.
How long is enough (:func:`claim_after_ms`):

- **real time**: ``(base + 40 × increment) / 10`` seconds, kept within 10 to 30 s (the
  estimated game length over ten: 1+1 gives 10 s, 3+2 26 s, 5+3 and longer 30 s);
- **untimed**: three days (``AbsenceLimits.untimed_s``);
- **correspondence**: the deadline. The clock watch ends a game whose deadline passed
  by itself (a timeout); a claim is accepted from then on too, should it not have yet.

The server decides every claim itself (:meth:`Absence.claim`): the claimant holds a seat,
the game is online and under way, each side has moved (before that, *Abort* is the way
out), and the opponent has been gone at least the limit by this process's sockets and by
what every process stored. The end is stored like a flag fall, with the termination
``"opponent left"`` (:class:`hexgames.game.CommonTermination`), reason "Blue left the
game", winner the claimant or ``"draw"``; a rated game's ratings change at once.

**Several processes.** Each process writes, every ``PRESENCE_BEAT`` seconds, "seen now"
for every seat with a game socket open here, and the moments seats left or acted here
(``presence`` in storage, which only moves forward); it reads back the games its sockets
show, so a player connected to another process is not taken for gone (a seat seen within
``2 × PRESENCE_BEAT`` counts as present), and the real-time limit is at least
``3 × PRESENCE_BEAT`` on a shared storage. Games show the absent seats in their state
(``absent``: :meth:`~hexgames.web.game.matches.Match.absent_view`), so pages count down.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from hexgames.errors import IllegalAction
from hexgames.game import CommonTermination
from hexgames.phrases import N_, Phrase
from hexgames.web.game.clocks import LAG_ALLOWANCE_MS, TimeControl
from hexgames.web.game.matches import Match, color_word
from hexgames.web.play.clock_watch import ClockWatch
from hexgames.web.play.live_games import LiveGames
from hexgames.web.storage import Mode

__all__ = ["CLAIMS", "PRESENCE_BEAT", "Absence", "AbsenceLimits", "claim_after_ms"]

log = logging.getLogger(__name__)

#: Seconds between two writes (and reads) of the presence kept in storage.
PRESENCE_BEAT = 4.0
#: What a player may claim when the opponent is gone.
CLAIMS = ("victory", "draw")
#: Real-time limits (seconds): a tenth of the estimated game length, within these bounds.
REALTIME_MIN_S = 10.0
REALTIME_MAX_S = 30.0


@dataclass(frozen=True)
class AbsenceLimits:
    """How long an opponent must be gone: ``realtime_s`` fixed for every real-time game
    (``None``: the formula of :func:`claim_after_ms`), ``untimed_s`` for untimed games.
    ``hexgames serve`` reads them from the environment (:meth:`from_environ`)."""

    realtime_s: float | None = None
    untimed_s: float = 3 * 86_400.0

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> AbsenceLimits:
        """``HEXGAMES_ABSENCE_REALTIME_S`` and ``HEXGAMES_ABSENCE_UNTIMED_S`` (seconds,
        above 0; a small site or a test shortens them); others are ignored."""
        environ = os.environ if environ is None else environ

        def seconds(name: str) -> float | None:
            try:
                value = float(environ.get(name, ""))
            except ValueError:
                return None
            return value if 0 < value <= 365 * 86_400 else None

        untimed = seconds("HEXGAMES_ABSENCE_UNTIMED_S")
        return cls(realtime_s=seconds("HEXGAMES_ABSENCE_REALTIME_S"),
                   untimed_s=cls.untimed_s if untimed is None else untimed)


def claim_after_ms(control: TimeControl, limits: AbsenceLimits = AbsenceLimits(),
                   shared: bool = False) -> float | None:
    """How long (ms) an opponent must be gone before a claim (``None``: correspondence,
    where the deadline decides). ``shared``: several processes (the presence beat's
    delay must not count as an absence)."""
    if control.kind == "correspondence":
        return None
    if control.kind == "untimed":
        return limits.untimed_s * 1000.0
    seconds = limits.realtime_s
    if seconds is None:
        estimate = control.base_s + 40.0 * control.increment_s
        seconds = min(REALTIME_MAX_S, max(REALTIME_MIN_S, estimate / 10.0))
    if shared:
        seconds = max(seconds, 3 * PRESENCE_BEAT)
    return seconds * 1000.0


def _created_ms(match: Match) -> float:
    try:
        return datetime.fromisoformat(match.stored.created_at).timestamp() * 1000.0
    except ValueError:
        return 0.0


class Absence:
    """Who is gone from the online games of this process, and the claims (see the
    module's doc)."""

    def __init__(self, games: LiveGames, clocks: ClockWatch,
                 limits: AbsenceLimits | None = None) -> None:
        self.games = games
        self.clocks = clocks
        self.limits = limits or AbsenceLimits()
        #: (game id, seat) -> when this process last saw the seat (ms).
        self.seen: dict[tuple[str, int], float] = {}
        #: Seats with a socket here at the last look (their leaving is a moment seen).
        self._here: set[tuple[str, int]] = set()
        #: Moments to write at the next beat; what the last beat read, per game.
        self._pending: dict[tuple[str, int], float] = {}
        self._stored: dict[str, dict[int, int]] = {}

    def now(self) -> float:
        return self.games.now()

    def limit_ms(self, match: Match) -> float | None:
        control = TimeControl.parse(match.meta.control)
        return claim_after_ms(control, self.limits, self.games.storage.shared)

    @staticmethod
    def watched(match: Match) -> bool:
        """An online game under way: the games whose players' presence matters."""
        return match.stored.mode == Mode.ONLINE and not match.is_over

    def _mark(self, game_id: str, seat: int, moment: float) -> None:
        key = (game_id, seat)
        self.seen[key] = max(moment, self.seen.get(key, 0.0))
        self._pending[key] = self.seen[key]

    def last_seen(self, match: Match, seat: int, stored: Mapping[int, int] | None = None
                  ) -> float:
        """When the seat was last seen, by this process or (``stored``) any: at the
        latest, the game's creation."""
        stored = self._stored.get(match.id, {}) if stored is None else stored
        return max(self.seen.get((match.id, seat), 0.0), float(stored.get(seat, 0)),
                   _created_ms(match))

    # ------------------------------------------------------------- tracking
    def update(self, match: Match) -> bool:
        """Bring ``match.gone`` up to date with this process's sockets and the presence
        read last (call it when a socket of the game opens or closes, and at each beat);
        True when the absent seats changed (the caller publishes)."""
        before = dict(match.gone)
        if not self.watched(match):
            match.gone = {}
            return before != match.gone
        moment = self.now()
        present = set(self.games.hub.seats_present(match))
        match.claim_after_ms = self.limit_ms(match)
        shared = self.games.storage.shared
        gone: dict[int, float] = {}
        for seat in (0, 1):
            key = (match.id, seat)
            if seat in present:
                self._mark(match.id, seat, moment)
                self._here.add(key)
                continue
            if key in self._here:  # its last socket here just closed: seen until now
                self._here.discard(key)
                self._mark(match.id, seat, moment)
            since = self.last_seen(match, seat)
            if shared and moment - since < 2 * PRESENCE_BEAT * 1000:
                continue  # seen lately by another process: connected there
            gone[seat] = since
        match.gone = gone
        return set(before) != set(gone)

    async def arrived(self, match: Match, seats: frozenset[int]) -> None:
        """A socket of ``seats`` is about to be shown present: store it now, not at the
        next beat, so that a claim judged on any process from then on sees it (issue 39,
        row 2). A storage failure is logged and left to the beat."""
        await self._store_now(match, seats)

    async def departed(self, match: Match, seats: frozenset[int]) -> None:
        """A socket of ``seats`` closed: store "seen until now" at once, so that every
        process counts the absence from the same moment."""
        await self._store_now(match, seats)

    async def _store_now(self, match: Match, seats: frozenset[int]) -> None:
        """Mark ``seats`` seen now and, where other processes judge claims (a shared
        storage), store it at once (one process alone reads its own sockets)."""
        if not self.watched(match) or not seats:
            return
        moment = self.now()
        for seat in seats:
            self._mark(match.id, seat, moment)
        if not self.games.storage.shared:
            return
        try:
            await self.games.calls.call(self.games.storage.touch_presence,
                                        [(match.id, seat, int(moment)) for seat in seats])
        except Exception:  # StorageUnavailable, a timeout...: pending, the beat retries
            log.warning("could not store the presence in game %s now", match.id)
            return
        for seat in seats:
            key = (match.id, seat)
            if self._pending.get(key, 0.0) <= moment:
                self._pending.pop(key, None)

    def acted(self, match: Match, seat: int) -> None:
        """A seat's action was stored here: it is present now."""
        if self.watched(match):
            self._mark(match.id, seat, self.now())
            match.gone.pop(seat, None)  # the action's state is published by the caller

    async def beat(self) -> None:
        """Write what this process saw and read what every process saw, for the online
        games under way with sockets here; publish those whose absent seats changed."""
        games = self.games
        held = [match for match in games.matches.values()
                if self.watched(match) and games.hub.watchers(match.id)]
        moment = self.now()
        for match in held:
            for seat in games.hub.seats_present(match):
                self._mark(match.id, seat, moment)
        if not held and not self._pending:
            return  # nobody to see, nothing to write
        pending, self._pending = self._pending, {}
        try:
            await games.calls.call(games.storage.touch_presence,
                                   [(game_id, seat, int(at))
                                    for (game_id, seat), at in pending.items()])
            self._stored = await games.calls.call(games.storage.presence,
                                                  [match.id for match in held])
        except Exception:
            for key, at in pending.items():  # written at the next beat
                self._pending[key] = max(at, self._pending.get(key, 0.0))
            raise
        for match in held:
            if self.update(match):
                games.hub.publish(match)
        keep = set(games.matches)
        for key in [key for key in self.seen if key[0] not in keep]:
            self.seen.pop(key, None)
            self._here.discard(key)

    async def loop(self) -> None:
        """:meth:`beat` every ``PRESENCE_BEAT`` seconds (the service's task)."""
        while True:
            await asyncio.sleep(PRESENCE_BEAT)
            try:
                await self.beat()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("could not keep the players' presence; trying again")

    async def gone_ms(self, match: Match, seat: int) -> float | None:
        """How long the seat has been gone, judged afresh (this process's sockets and
        the presence every process stored); ``None``: it is here."""
        if seat in self.games.hub.seats_present(match):
            return None
        stored = (await self.games.calls.call(self.games.storage.presence, [match.id])
                  ).get(match.id, {})
        return self.now() - self.last_seen(match, seat, stored)

    # --------------------------------------------------------------- claims
    async def claim(self, game_id: str, token: str | None, claim: str) -> Match:
        """``claim`` (``victory`` or ``draw``) the game whose opponent is gone; every
        condition is checked here (``PermissionError``: no seat; ``IllegalAction``: not
        now, saying why)."""
        if claim not in CLAIMS:
            raise ValueError(Phrase("claim must be {choices}", choices=" or ".join(CLAIMS)))
        games = self.games
        async with games.locked(game_id, token, playing=True, online=N_(
                "an absent opponent is claimed in online games only")) as held:
            match, seats = held.match, held.seats
            if len(seats) != 1:
                raise IllegalAction("you hold both seats of this game")
            seat = min(seats)
            opponent = 1 - seat
            if match.can_abort():
                raise IllegalAction("your opponent has not made a first move yet: abort "
                                    "the game instead")
            await self._check_gone(match, opponent)
            await self._end(match, seat, opponent, claim)
        games.hub.publish(match)
        self.clocks.watch(match)
        games.hooks.lobby_changed()  # one game fewer being played
        return match

    async def _check_gone(self, match: Match, opponent: int) -> None:
        """Refuse (``IllegalAction``) unless ``opponent`` has been gone long enough."""
        name = color_word(match.position.color_of_seat(opponent))
        limit = self.limit_ms(match)
        if limit is None:  # correspondence: the opponent's deadline
            clock = match.clock()
            moment = self.now()
            if (clock is None or clock.running != opponent
                    or clock.flagged(moment, LAG_ALLOWANCE_MS) is None):
                raise IllegalAction("a correspondence game is claimed once {color}'s "
                                    "time to move is up", color=name)
            return
        gone = await self.gone_ms(match, opponent)
        if gone is None:
            raise IllegalAction("{color} is connected", color=name)
        if gone < limit:
            wait = int((limit - gone) // 1000) + 1
            raise IllegalAction("{color} has been gone {gone} s; you may claim in {wait} s",
                                color=name, gone=int(gone // 1000), wait=wait)

    async def _end(self, match: Match, seat: int, opponent: int, claim: str) -> None:
        """End the game on the claim (under its lock), its clock stopped; a rated
        game's ratings change."""
        clock = match.clock()
        if clock is not None:
            clock.stop(self.now())
            match.set_clock(clock)
        match.meta.termination = CommonTermination.OPPONENT_LEFT.value
        match.meta.turn = None
        position = match.position
        winner = position.color_of_seat(seat) if claim == "victory" else "draw"
        reason = f"{position.color_of_seat(opponent).capitalize()} left the game"
        if not await self.clocks.end_locked(match, winner, reason):
            # Stored only on the version judged: a move (or any change) stored meanwhile
            # by any process wins, and the claim is judged again by whoever retries.
            raise IllegalAction("the game changed meanwhile (your opponent may have just "
                                "moved); look again, and claim again if they are still gone")
        match.gone = {}
        await self.games.record_result(match)
