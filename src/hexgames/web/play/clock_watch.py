"""The clock watch: online games' clocks kept, and games ended when their time is up.

The clocks themselves are pure (:mod:`hexgames.web.game.clocks`); this module applies them to
the games a server process holds. Each online game keeps its clock in its meta, with the
wall time its flag falls (``meta.deadline``, stored and indexed). :class:`ClockWatch`
keeps every running clock's deadline and one task that sleeps until the nearest, then
adjudicates (:meth:`ClockWatch.check_clocks`): a flag fall ends the game with a timeout,
a first turn not made in time aborts it. Games of other server processes (or from before
a restart) are found by re-reading every deadline from storage every ``CLOCK_RESYNC``
seconds. A heartbeat in storage (:meth:`ClockWatch.mark_clocks_kept`) lets the next start
credit running clocks with the time no server kept them (:meth:`ClockWatch.credit_outage`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from hexgames.phrases import N_
from hexgames.web.game.clocks import LAG_ALLOWANCE_MS, Clock, TimeControl, clock_in, put_clock
from hexgames.web.game.matches import Match
from hexgames.web.play.change_feed import ChangeFeed
from hexgames.web.play.live_games import LiveGames, iso_now
from hexgames.web.storage import GameMeta, MetaConflict, Mode

__all__ = ["ABORTED", "CLOCK_ALIVE", "CLOCK_HEARTBEAT", "CLOCK_RESYNC", "ClockWatch"]

log = logging.getLogger(__name__)

#: Seconds between two reads of every running clock's deadline from storage (another
#: server process's games, or a restart's): the flag-fall watch never misses one longer.
CLOCK_RESYNC = 30.0
#: Seconds between two "the clocks are kept" marks in storage; at start, running clocks
#: are credited the time since the last mark (a stop, or a crash after the last mark)
#: when it is over ``2 * CLOCK_HEARTBEAT`` (no other process kept them meanwhile).
CLOCK_HEARTBEAT = 5.0
CLOCK_ALIVE = "clocks-alive"
#: Reason words of the site's own endings (the engine's come from ``outcome()``); marked
#: for translation, as the lists of games show them in the visitor's language.
ABORTED = N_("Game aborted")


def crediting(outages: list[tuple[float, float]], moment: float
              ) -> Callable[[GameMeta], None]:
    """A change of a stored meta (:meth:`ChangeFeed.write_meta`) giving its running
    clock the time of ``outages`` (:meth:`Clock.credit`: each moment once)."""
    def credit(meta: GameMeta) -> None:
        clock = clock_in(meta)
        if clock is not None and clock.credit(outages, moment):
            put_clock(meta, clock)
    return credit


class ClockWatch:
    """The flag-fall deadlines of the games held here, and the task watching them."""

    def __init__(self, games: LiveGames, feed: ChangeFeed) -> None:
        self.games = games
        self.feed = feed
        #: Flag-fall deadlines (ms) of running clocks, watched by :meth:`watch_loop`.
        self.deadlines: dict[str, float] = {}
        self._wake: asyncio.Event | None = None
        #: Credits of the running clocks after a storage outage, under way.
        self._credits: set[asyncio.Task[int]] = set()

    def start(self) -> None:
        """Ready to be woken by a new deadline (call before the watch task starts), and
        to credit the clocks when the storage comes back after an outage."""
        self._wake = asyncio.Event()
        self.games.calls.outages.on_recovered = self._storage_recovered

    def _storage_recovered(self) -> None:
        task = asyncio.get_running_loop().create_task(self.credit_storage_outage())
        self._credits.add(task)
        task.add_done_callback(self._credits.discard)

    async def credit_storage_outage(self) -> int:
        """The storage is back after an outage: every running clock of the online games
        held here is given back the outage's time (no move could be stored then; issue
        39, row 7), in memory and in storage (each moment once: ``Clock.credited_to``),
        and its new deadline watched. Returns how many clocks were credited."""
        games = self.games
        credited = 0
        for match in list(games.matches.values()):
            clock = match.clock()
            if (match.stored.mode != Mode.ONLINE or match.is_over or clock is None
                    or (clock.since is None and clock.abort_at is None)):
                continue  # no time runs: nothing to give back
            try:
                async with games.locks[match.id]:
                    change = crediting(games.calls.outages.spans(), self.now())
                    if await self.feed.write_meta(match, change):  # idempotent
                        credited += 1
                        self.watch(match)
                        games.hub.publish(match)
            except Exception:
                log.exception("could not credit the clock of game %s", match.id)
        return credited

    def now(self) -> float:
        return self.games.now()

    # ------------------------------------------------------------- a game's clock
    def start_clock(self, match: Match, control: TimeControl) -> None:
        """Give a new online game its time control (and clock, unless untimed)."""
        match.meta.control = control.to_dict()
        match.meta.turn = match.position.current_seat
        if control.timed:
            clock = Clock.new(control)
            clock.resume(match.position.current_seat, self.now())
            match.set_clock(clock)

    def watch(self, match: Match) -> None:
        """Keep the flag-fall watch in step with the game's running clock."""
        deadline = None if match.is_over else match.meta.deadline
        if deadline is None:
            self.deadlines.pop(match.id, None)
            return
        # A running clock's flag falls once the lag credit after its deadline is spent
        # too (a move arriving within it still counts): the watch looks then.
        running = match.meta.clock_running
        self.deadlines[match.id] = float(deadline) + (LAG_ALLOWANCE_MS if running else 0)
        if self._wake is not None:
            self._wake.set()

    def unwatch(self, game_id: str) -> None:
        """The game ended: nothing to watch."""
        self.deadlines.pop(game_id, None)

    def move_change(self, match: Match, mover: int, lag_ms: float
                    ) -> Callable[[GameMeta], None] | None:
        """The meta change of an online action just played (``None``: none), stored
        with the action in one write (:meth:`LiveGames.save_or_take_back`): end the
        mover's turn on its clock when the side to move changed (the protocol's turn
        start), stop it at the end of the game, drop a pending takeback request, and
        set the seat to move. Under the game's lock."""
        if match.stored.mode != Mode.ONLINE:
            return None
        position = match.position
        turn_over = position.is_over or position.is_turn_start()
        offers = match.meta.offers
        if not turn_over and "takeback" not in offers:
            return None
        moment = self.now()
        over, next_seat = position.is_over, position.current_seat
        outages = self.games.calls.outages.spans()

        def ended(meta: GameMeta) -> None:  # the held or the stored meta
            meta.offers.pop("takeback", None)  # any move drops a request
            clock = clock_in(meta)
            if clock is not None:
                clock.credit(outages, moment)  # no time ran while no move could be stored
                if over:
                    clock.turn_ended(mover, None, moment, lag_ms)
                elif turn_over:
                    clock.turn_ended(mover, next_seat, moment, lag_ms)
                put_clock(meta, clock)
            meta.turn = None if over else next_seat

        return ended

    # ------------------------------------------------------------------ endings
    async def flag_fall(self, match: Match, clock: Clock) -> bool:
        """The running side's time is up: the game ends with a timeout (under the lock).
        False when another server process had ended the game already."""
        seat = clock.running
        if seat is None or match.is_over:
            return False
        clock.stop(self.now())
        match.set_clock(clock)
        match.meta.termination = "timeout"  # CommonTermination.TIMEOUT
        match.meta.turn = None
        loser = match.position.color_of_seat(seat)
        winner = match.position.color_of_seat(1 - seat)
        reason = f"{loser.capitalize()} ran out of time"
        if not await self._end(match, winner, reason):
            return False
        await self.games.record_result(match)  # a rated game: the ratings change
        self.games.hub.publish(match)
        return True

    async def abort_locked(self, match: Match) -> bool:
        """End the game without a result (under its lock); False when another process
        ended it first."""
        clock = match.clock()
        if clock is not None:
            clock.stop(self.now())
            match.set_clock(clock)
        match.meta.termination = "aborted"
        match.meta.turn = None
        if not await self._end(match, None, ABORTED):
            return False
        self.games.hub.publish(match)
        self.games.hooks.game_over(match)
        return True

    async def end_locked(self, match: Match, winner: str | None, reason: str) -> bool:
        """Store the end of a game still being played, its meta set by the caller (under
        the game's lock; an absence claim, :mod:`hexgames.web.play.absence`): False when
        another process ended or changed the game first."""
        return await self._end(match, winner, reason)

    async def _end(self, match: Match, winner: str | None, reason: str) -> bool:
        """Store the end of a game still being played, with its meta as set by the
        caller (conditional on the game's version); False when another process ended or
        changed it first (then it is judged again on the stored game)."""
        stamp = iso_now()
        games = self.games
        if not await games.calls.call(games.storage.end_if_playing, match.id, winner,
                                      reason, match.meta, stamp, match.stored.version):
            self.feed.reload_later(match.id)
            return False
        match.stored.version += 1
        match.stored.status, match.stored.winner, match.stored.reason = "over", winner, reason
        match.stored.updated_at = stamp
        match.revision += 1
        self.deadlines.pop(match.id, None)
        return True

    # -------------------------------------------------------------- the watch
    async def check_clocks(self) -> list[str]:
        """Adjudicate every game whose flag has fallen by now; returns their ids. The
        watch task calls this at each deadline; tests call it after moving their clock."""
        current = self.now()
        due = [game_id for game_id, deadline in self.deadlines.items() if deadline <= current]
        ended = []
        games = self.games
        for game_id in due:
            self.deadlines.pop(game_id, None)
            try:
                match = await games.get(game_id)
                async with games.locks[game_id]:
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
                            match.stored.version = await games.calls.call(
                                games.storage.set_meta, game_id, match.meta, iso_now(),
                                match.stored.version)
                        except MetaConflict:
                            self.feed.reload_later(game_id)
                        fell = False
                    elif (clock is not None and not match.is_over
                            and clock.abandoned(self.now()) and match.can_abort()):
                        fell = await self.abort_locked(match)
                    else:
                        fell = await self._flag_or_credit(match, clock)
                if fell:
                    ended.append(game_id)
                    games.hooks.lobby_changed()  # one game fewer being played
                else:
                    self.watch(match)
            except Exception:
                log.exception("could not adjudicate the clock of game %s", game_id)
        return ended

    async def _flag_or_credit(self, match: Match, clock: Clock | None) -> bool:
        """At a deadline (under the lock): credit the storage outages since the turn
        began (no time runs while no move can be stored: issue 39, row 7), then end the
        game if the flag fell all the same; else store the credited clock (its deadline
        moved). True when the game ended."""
        if clock is None or match.is_over:
            return False
        moment = self.now()
        credited = clock.credit(self.games.calls.outages.spans(), moment)
        if clock.flagged(moment, LAG_ALLOWANCE_MS) is not None:
            return await self.flag_fall(match, clock)
        if credited:
            match.set_clock(clock)
            try:  # conditional: a move stored meanwhile holds its own clock
                match.stored.version = await self.games.calls.call(
                    self.games.storage.set_meta, match.id, match.meta, iso_now(),
                    match.stored.version)
            except MetaConflict:
                self.feed.reload_later(match.id)
        return False

    async def resync_clocks(self) -> None:
        """Read every running clock's deadline from storage (at start: games overdue
        since before a restart are adjudicated at once; then other processes' games)."""
        rows = await self.games.calls.call(self.games.storage.clocked_games)
        for game_id, deadline in rows:
            match = self.games.matches.get(game_id)
            if match is None or match.meta.deadline == deadline:
                self.deadlines[game_id] = float(deadline)

    async def watch_loop(self) -> None:
        """The flag-fall watch: ends games whose time ran out even when nobody is
        connected. Sleeps until the nearest deadline (or a change, or ``CLOCK_RESYNC``)."""
        loop = asyncio.get_running_loop()
        next_sync = 0.0
        assert self._wake is not None
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
            if self.deadlines:
                wait = min(wait, max(0.01, (min(self.deadlines.values()) - self.now()) / 1000))
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self._wake.wait()

    # -------------------------------------------------------- restarts, outages
    async def mark_clocks_kept(self) -> None:
        """Store "the clocks are kept until now" (the heartbeat :meth:`credit_outage`
        reads at the next start)."""
        await self.games.calls.call(self.games.storage.set_site_value, CLOCK_ALIVE,
                                    repr(float(self.now())))

    async def credit_outage(self) -> int:
        """At start: when no server process kept the clocks for more than
        ``2 * CLOCK_HEARTBEAT`` seconds (the last mark: a stop, or the heartbeat before a
        crash), every running clock resumes from now, crediting that time (the player to
        move is not charged the outage; a flag that fell before it still falls). Returns
        how many games were credited. Marks the clocks as kept from now on."""
        call, storage = self.games.calls.call, self.games.storage
        current = self.now()
        raw = await call(storage.site_value, CLOCK_ALIVE)
        await call(storage.set_site_value, CLOCK_ALIVE, repr(float(current)))
        try:
            last = float(raw) if raw is not None else None
        except ValueError:
            last = None
        if last is None or current - last <= 2 * CLOCK_HEARTBEAT * 1000:
            return 0
        outage = current - last
        credited = 0
        for game_id, deadline in await call(storage.clocked_games):
            if deadline <= last:
                continue  # overdue before the outage: adjudicated as it is
            loaded = await call(storage.load_tail, game_id, 1 << 30)
            if loaded is None or loaded[0].status != "playing" or not loaded[0].meta.clock:
                continue
            stored = loaded[0]
            meta = stored.meta.copy()
            clock = clock_in(meta)
            assert clock is not None  # checked above
            # The arithmetic of a storage outage's credit (each moment once): a clock
            # kept by no process stood still from the last mark to now.
            clock.credit([(last, current)], current)
            put_clock(meta, clock)
            try:  # conditional: a game another process changed meanwhile is live there
                await call(storage.set_meta, game_id, meta, iso_now(), stored.version)
            except MetaConflict:
                continue
            credited += 1
        if credited:
            log.info("credited %d running clocks with %.1f s of downtime", credited,
                     outage / 1000)
        return credited
