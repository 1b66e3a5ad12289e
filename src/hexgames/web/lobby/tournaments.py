"""The site's side of the tournaments: the real game of each pairing, each tournament
game's end handed back to the director, and the tick that moves tournaments on.

The director (:mod:`hexgames.web.tournaments.director`) knows tournaments, not games; it
is given :meth:`TournamentGames.make_game` to start the game of a pairing, and hears the
end of every tournament game through :meth:`TournamentGames.game_over` (a hook of the
live games: whatever ended it, a move, a resignation, a flag, a claim or an abort).

A tournament game is an online game like a quick-pairing one: the tournament's game,
rules options, clock and rated flag, seats held by the two identities (each browser of
a player gets the seat's credential when it opens the game, as for any game it holds a
seat in), and the tournament's id in its record (``GameMeta.tournament``). A game aborted
before both players moved is a loss for the one who never moved (lichess's rule: a
player who does not show up loses), and a draw, scoring as one, when neither moved.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets

from hexgames.game import get_game
from hexgames.web.accounts.credentials import seat_token
from hexgames.web.game.clocks import TimeControl
from hexgames.web.game.matches import Match
from hexgames.web.game.options import parse_options
from hexgames.web.play.clock_watch import ClockWatch
from hexgames.web.play.live_games import LiveGames, iso_now
from hexgames.web.ratings.games import seat_scores
from hexgames.web.storage import GameMeta, Mode, StoredGame
from hexgames.web.storage.records import TournamentRecord
from hexgames.web.tournaments.director import TournamentDirector

__all__ = ["TICK_SECONDS", "TournamentGames"]

log = logging.getLogger(__name__)

#: Seconds between two ticks of the director on each process (an arena's players wait
#: at most this long for their next game).
TICK_SECONDS = 1.0
#: Results being handed to the director at once, at most (past it a result is left to
#: the director's reconciliation: see :meth:`TournamentGames.ended_game`).
MAX_PENDING_ENDS = 1000
#: Seconds before each new try of a result the director failed to record (then it is
#: left to the reconciliation).
REPORT_BACKOFF_S = (0.5, 2.0)
#: ``load_tail``'s first ply past any game's end: the stored row, none of its moves.
ROW_ONLY = 10**9


def game_result(match: Match) -> tuple[int | None, int]:
    """A finished tournament game's result for the director: the winner's seat (``None``:
    a draw) and the turns played. Aborted, whoever moved wins; nobody moved, a draw."""
    scores = seat_scores(match)
    if scores is None:
        moved = [match.seat_has_moved(seat) for seat in (0, 1)]
        scores = (1.0, 0.0) if moved == [True, False] else (
            (0.0, 1.0) if moved == [False, True] else (0.5, 0.5))
    winner = None if scores[0] == scores[1] else (0 if scores[0] > scores[1] else 1)
    return winner, sum(1 for ply in match.plies if ply.turn_start)


class TournamentGames:
    """Starts tournament games and reports their ends; runs the director's tick."""

    def __init__(self, games: LiveGames, clocks: ClockWatch) -> None:
        self.games = games
        self.clocks = clocks
        self.director = TournamentDirector(games.storage, games.calls.call, self.make_game,
                                           lambda: int(games.now()),
                                           ended_game=self.ended_game)
        self._ends: set[asyncio.Task[None]] = set()
        #: Sockets watching each tournament on this process (``/ws/tournaments/{id}``).
        self.watchers: dict[str, int] = {}

    async def make_game(self, tournament: TournamentRecord, first_id: str,
                        second_id: str) -> str:
        """The game of a pairing, stored and held here, its clock running; the first
        player moves first."""
        game = get_game(tournament.game)
        options = parse_options(game, tournament.options)
        control = TimeControl.parse(tournament.control)
        key = await self.games.seat_key()
        game_id = secrets.token_urlsafe(9)
        holders = (first_id, second_id)
        stamp = iso_now()
        stored = StoredGame(
            id=game_id, game=game.name, options=options, mode=Mode.ONLINE,
            players=[{"kind": "human", "level": None, "player_id": player_id}
                     for player_id in holders],
            seat_tokens=[seat_token(key, game_id, seat, player_id)
                         for seat, player_id in enumerate(holders)],
            status="playing", winner=None, reason=None, created_at=stamp, updated_at=stamp,
            rated=bool(tournament.settings.get("rated", False)),
            meta=GameMeta(tournament=tournament.id),
        )
        match = await self.games.build(stored)  # off the loop
        self.clocks.start_clock(match, control)
        await self.games.calls.call(self.games.storage.create_game, stored)
        self.games.hold(match)
        self.clocks.watch(match)
        self.games.hooks.lobby_changed()
        return game_id

    def game_over(self, match: Match) -> None:
        """A game ended here: if it is a tournament's, hand its result to the director
        (a task: this is called under the game's lock)."""
        if not match.meta.tournament or len(self._ends) >= MAX_PENDING_ENDS:
            return
        task = asyncio.get_running_loop().create_task(self._report(match))
        self._ends.add(task)
        task.add_done_callback(self._ends.discard)

    async def _report(self, match: Match) -> None:
        """Hand the result over, trying again after each of :data:`REPORT_BACKOFF_S`;
        what still fails is recorded later by the director's reconciliation."""
        winner, turns = game_result(match)
        for wait in (*REPORT_BACKOFF_S, None):
            try:
                await self.director.game_ended(match.id, winner, turns)
                return
            except Exception:
                log.exception("could not record the tournament result of game %s%s",
                              match.id, "" if wait is None else "; trying again")
            if wait is not None:
                await asyncio.sleep(wait)

    async def ended_game(self, game_id: str) -> tuple[int | None, int] | None:
        """The director's question about a pairing whose end it never heard of: the
        result if the game is over, ``None`` while it is played. The game held here is
        read as it is; otherwise its stored row first (no moves read), and only a game
        that is over is rebuilt to compute its result."""
        match = self.games.matches.get(game_id)
        if match is None:
            row = await self.games.calls.call(self.games.storage.load_tail, game_id,
                                              ROW_ONLY)
            if row is None or row[0].status != "over":
                return None
            match = await self.games.get(game_id)
        return game_result(match) if match.is_over else None

    async def loop(self) -> None:
        """The director's tick every :data:`TICK_SECONDS` (the service's task)."""
        while True:
            await asyncio.sleep(TICK_SECONDS)
            try:
                await self.director.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the tournaments' tick failed; trying again")

    async def close(self) -> None:
        """Let the results being handed over finish (bounded), then drop the rest."""
        pending = list(self._ends)
        if pending:
            with contextlib.suppress(Exception):
                await asyncio.wait(pending, timeout=5)
        for task in pending:
            task.cancel()
