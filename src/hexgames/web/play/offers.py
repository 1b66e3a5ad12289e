"""What the two players of an online game ask each other: takeback, abort, rematch.

A takeback request and the rematch offers are kept in the game's meta (``offers``);
their writes are conditional on the game's version, so two answers given at once through
two server processes are applied one after the other, each checked afresh on the stored
game (:meth:`~hexgames.web.play.change_feed.ChangeFeed.conditionally`). An abort ends a game
before each side has moved, without a result.
"""

from __future__ import annotations

import secrets

from hexgames.errors import IllegalAction
from hexgames.phrases import N_
from hexgames.web.game.clocks import TimeControl
from hexgames.web.game.matches import Match
from hexgames.web.play.change_feed import ChangeFeed
from hexgames.web.play.clock_watch import ClockWatch
from hexgames.web.play.live_games import LiveGames, iso_now
from hexgames.web.storage import GameMeta, MetaConflict, Mode, StoredGame

__all__ = ["Offers"]

class Offers:
    """Takeback, abort and rematch in the online games held here."""

    def __init__(self, games: LiveGames, feed: ChangeFeed, clocks: ClockWatch) -> None:
        self.games = games
        self.feed = feed
        self.clocks = clocks

    # ---------------------------------------------------------------- takeback
    async def takeback(self, game_id: str, token: str | None, answer: str) -> Match:
        """A takeback request in an online game: ``offer`` (ask to take back your last
        action), ``accept``/``decline`` (the opponent answers), ``cancel`` (withdraw).
        Accepted, it works as undo against the computer does for the asking seat.
        Stored only if the game is still what this process holds (its version), else
        checked and applied again on the re-read game (``conditionally``)."""
        if answer not in ("offer", "accept", "decline", "cancel"):
            raise ValueError(N_("answer must be offer, accept, decline or cancel"))
        match: Match = await self.feed.conditionally(
            game_id, self._takeback_once, game_id, token, answer)
        return match

    async def _takeback_once(self, game_id: str, token: str | None, answer: str) -> Match:
        games = self.games
        async with games.locked(game_id, token, playing=True, online=N_(
                "takeback requests are for online games; use undo")) as held:
            match, seats = held.match, held.seats
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
            stamp = iso_now()
            if taken:
                clock = match.clock()
                if clock is not None:
                    clock.resume(match.position.current_seat, games.now())
                    match.set_clock(clock)
                match.meta.turn = match.position.current_seat
            try:  # the meta and (accepted) the actions taken back, in one transaction
                match.stored.version = await games.calls.call(
                    games.storage.set_meta, game_id, match.meta, stamp, match.stored.version,
                    len(match.plies) if taken else None)
            except MetaConflict:
                if taken:  # read the whole game again (its actions were taken back here)
                    games.forget(game_id)
                raise
            match.stored.updated_at = stamp
            match.revision += 1
        games.hub.publish(match)
        self.clocks.watch(match)
        return match

    # ------------------------------------------------------------------- abort
    async def abort(self, game_id: str, token: str | None) -> Match:
        """End an online game before each side has moved: no result, no rating change."""
        games = self.games
        async with games.locked(game_id, token) as held:
            match = held.match
            if not match.can_abort():
                raise IllegalAction("a game can be aborted only before each side has moved")
            if not await self.clocks.abort_locked(match):
                raise IllegalAction("the game had already ended")
        games.hub.publish(match)
        self.clocks.watch(match)
        games.hooks.lobby_changed()
        return match

    # ----------------------------------------------------------------- rematch
    async def rematch(self, game_id: str, token: str | None, answer: str = "offer") -> Match:
        """After an online game: ``offer`` (or accept the opponent's offer: the same)
        or ``decline``. When both seats asked, a new game starts with the colours
        swapped, the same options and time control; each seat credential moves to the
        other seat, so both players hold their seats in it at once. Its id is in the
        old game's ``rematch``."""
        if answer not in ("offer", "decline"):
            raise ValueError(N_("answer must be offer or decline"))
        match: Match = await self.feed.conditionally(
            game_id, self._rematch_once, game_id, token, answer)
        return match

    async def _rematch_once(self, game_id: str, token: str | None, answer: str) -> Match:
        """One try of :meth:`rematch`: the offers and the new game are stored together,
        only if the old game's row is still at the version read here, so two offers
        made at once through two processes make exactly one rematch."""
        games = self.games
        created = None
        async with games.locked(game_id, token) as held:
            match, seats = held.match, held.seats
            stored = match.stored
            if stored.mode != Mode.ONLINE or not match.is_over:
                raise IllegalAction("a rematch is offered after an online game")
            if match.meta.rematch:
                raise IllegalAction("the rematch has already started")
            if any(player.get("invite") for player in stored.players):
                raise IllegalAction("your opponent never joined this game")
            offers = match.offers()
            asked = set(offers.get("rematch", []))
            asked = set() if answer == "decline" else asked | seats
            offers["rematch"] = sorted(asked)
            stamp = iso_now()
            if asked == {0, 1}:
                players = [player.copy() for player in reversed(stored.players)]
                created = StoredGame(
                    id=secrets.token_urlsafe(9), game=stored.game, options=dict(stored.options),
                    mode=Mode.ONLINE, players=players,
                    seat_tokens=list(reversed(stored.seat_tokens)),
                    status="playing", winner=None, reason=None,
                    created_at=stamp, updated_at=stamp,
                    rated=stored.rated, meta=GameMeta(rematch_of=stored.id),
                )
                fresh = await games.build(created)
                self.clocks.start_clock(fresh, TimeControl.parse(match.meta.control))
                match.meta.rematch = created.id
            match.stored.version = await games.calls.call(
                games.storage.set_meta, game_id, match.meta, stamp, match.stored.version,
                None, created)
            if created is not None:
                games.hold(fresh)
                self.clocks.watch(fresh)
            match.revision += 1
        games.hub.publish(match)
        if created is not None:
            games.hooks.lobby_changed()
        return match
