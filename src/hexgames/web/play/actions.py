"""Actions in a game: a move, an undo (against the computer, at one screen), a resignation.

Each runs under the game's lock on the live match (:class:`~hexgames.web.game.matches.Match`
checks who may act and what is legal), is stored before anyone is told (a write that
fails takes the action back in memory too), then published to the game's sockets, and
starts the AI if it is now its turn. In an online game the mover's clock is charged
(its flag may have fallen first: then the game ends on time instead), and a conditional
line the action completed plays its reply (:mod:`~hexgames.web.play.conditional_moves`).
"""

from __future__ import annotations

from typing import Any

from hexgames.errors import IllegalAction
from hexgames.web.game.clocks import clock_in, put_clock
from hexgames.web.game.matches import Match
from hexgames.web.play.ai_queue import AiQueue
from hexgames.web.play.change_feed import ChangeFeed
from hexgames.web.play.clock_watch import ClockWatch
from hexgames.web.play.conditional_moves import ConditionalMoves
from hexgames.web.play.live_games import LiveGames, iso_now
from hexgames.web.storage import GameMeta, Mode, StaleWrite

__all__ = ["GameActions"]


class GameActions:
    """Moves, undos and resignations in the games held here."""

    def __init__(self, games: LiveGames, feed: ChangeFeed, clocks: ClockWatch,
                 ai: AiQueue, conditional: ConditionalMoves | None = None) -> None:
        self.games = games
        self.feed = feed
        self.clocks = clocks
        self.ai = ai
        #: Plays the stored replies of conditional lines the action completed.
        self.conditional = conditional

    async def act(self, game_id: str, token: str | None, action: Any,
                  expected_ply: int | None = None, lag_ms: float = 0) -> Match:
        """Play ``action`` for the token's seat. ``lag_ms``: the round trip the client
        measured (ping/pong); its clock is credited up to ``clocks.LAG_ALLOWANCE_MS``."""
        games = self.games
        match = await games.get(game_id)
        if games.storage.shared and expected_ply is not None and expected_ply > len(match.plies):
            # The client saw a newer position (stored through another process): catch up.
            match = await self.feed.refresh(game_id) or match
        for attempt in (1, 2):
            try:
                async with games.locked(game_id, token, seat=False) as held:
                    match = held.match  # play names the seat (or refuses the token)
                    clock = match.clock()
                    if clock is not None and clock.credit(games.calls.outages.spans(),
                                                          games.now()):
                        match.set_clock(clock)  # no time ran while no move could be stored
                    if (clock is not None and not match.is_over
                            and held.seats
                            and clock.flagged(games.now(), lag_ms) is not None):
                        await self.clocks.flag_fall(match, clock)
                        flagged = True
                    else:
                        flagged = False
                        mover = match.position.current_seat
                        first = len(match.plies)
                        ply = match.play(token, action, expected_ply)
                        await games.save_or_take_back(match, first, ply.notation, True,
                                                      lag_ms)
                        games.hooks.acted(match, mover)
                        if self.conditional is not None:  # under the same lock
                            await self.conditional.follow(match)
                if flagged:
                    games.hooks.lobby_changed()  # one game fewer being played
                    raise IllegalAction("your time ran out: the game is over")
                break
            except StaleWrite:
                # Another process stored this ply first. The stored game wins: reload it
                # and show it; an action meant for a ply (``expected_ply``) is tried once
                # more (refused as stale if that ply is taken), others are refused.
                match = await games.get(game_id)
                games.hub.publish(match)
                if attempt == 2 or expected_ply is None:
                    raise
        await games.hub.broadcast(match)
        self.ai.schedule(match)
        self.clocks.watch(match)
        if match.is_over:
            games.hooks.lobby_changed()  # one game fewer being played
        return match

    async def undo(self, game_id: str, token: str | None) -> Match:
        """Take back the token's last action (against the computer, with the computer's
        actions after it: see :meth:`~hexgames.web.game.matches.Match.undo`); not online."""
        games = self.games
        async with games.locked(game_id, token, seat=False) as held:  # undo names the seat
            match = held.match
            match.undo(token)
            match.thinking = False
            stamp = iso_now()
            games.bumped(match, await games.calls.call(
                games.storage.truncate_actions, game_id, len(match.plies), stamp))
            games.bumped(match, await games.calls.call(
                games.storage.finish_game, game_id, None, None, stamp))
            match.stored.updated_at = stamp
        await games.hub.broadcast(match)
        self.ai.schedule(match)
        return match

    async def resign(self, game_id: str, token: str | None) -> Match:
        """The token's side gives the game up (its clock stops)."""
        games = self.games
        async with games.locked(game_id, token, seat=False) as held:  # resign names it
            match = held.match
            match.resign(token)
            match.thinking = False
            stamp = iso_now()
            stored = match.stored
            games.bumped(match, await games.calls.call(
                games.storage.finish_game, game_id, stored.winner, stored.reason, stamp
            ))
            stored.updated_at = stamp
            moment = games.now()

            def resigned(meta: GameMeta) -> None:
                clock = clock_in(meta)
                if clock is not None:
                    clock.stop(moment)
                    put_clock(meta, clock)
                meta.termination = "resignation"

            if match.stored.mode == Mode.ONLINE:
                await self.feed.write_meta(match, resigned)
            await games.record_result(match)
        await games.hub.broadcast(match)
        self.clocks.watch(match)
        games.hooks.lobby_changed()  # one game fewer being played
        return match
