"""No engine help at a live game's position, on any route (issue 39, rows 3 and 13).

**The rule** (docs/web.md, "Engine help and live games"). The engine refuses a position
that is *now on the board* of an online game being played, or that follows such a
position by at most :data:`FOLLOW_PLIES` actions (a candidate move for that game, looked
at one or two steps ahead). Transpositions count: positions are compared by their key
(``GameState.key``), however they were reached. Every route that puts the engine to
work checks it: an evaluation or a graph of the analysis board, a hint, a game against
the computer started from a board text, and **every move of the computer** in a game
against it (so that playing a live game's moves into an AI game gets no answer).

**Its scope**, as on lichess, where finished games and openings are anybody's to study:

- a live game's first :data:`OPENING_PLIES` actions are common openings, closed to
  nobody (its positions are not protected while it is there);
- a position a live game passed through earlier is open: only where it stands now is
  closed, and what follows from there;
- a line that merely passes through a live position on its way (a finished game that
  opened the same way, say) is open at every position that is not itself closed.

The list of live games comes from storage (every process sees every game) and is
re-read every :data:`LIVE_REFRESH` seconds; each game's position is the service's copy
of it, kept current by its moves and the other processes' notifications.
"""

from __future__ import annotations

import time
from typing import Any

from hexgames.game import Game, get_game
from hexgames.phrases import N_
from hexgames.web.game.matches import Match, rebuild, start_position
from hexgames.web.game.options import parse_options
from hexgames.web.play.live_games import LiveGames
from hexgames.web.storage import Mode, StorageUnavailable

__all__ = ["FOLLOW_PLIES", "LIVE_LIMIT", "LIVE_REFRESH", "LIVE_REFUSAL", "OPENING_PLIES",
           "LivePositions", "closed_on_line", "live_start"]

#: Online games in progress whose positions are closed to the engine: at most this many
#: (most recently updated first), their list re-read from storage every
#: ``LIVE_REFRESH`` seconds (the positions themselves are read live).
LIVE_LIMIT = 2000
LIVE_REFRESH = 2.0
#: A live game's first actions are a common opening: its position is protected only
#: once it has played this many (about three turns of either game).
OPENING_PLIES = 6
#: Positions up to this many actions after a live position are closed too (a candidate
#: move for the live game, and the answer to it: a turn of either game).
FOLLOW_PLIES = 4
#: The refusal of engine help at a position being played.
LIVE_REFUSAL = N_("this position is on the board of an online game being played: it can "
                  "be analysed once that game is over")


def protected(match: Match) -> bool:
    """Is the position on this game's board closed to the engine now?"""
    return (match.stored.mode == Mode.ONLINE and not match.is_over
            and len(match.plies) >= OPENING_PLIES)


class LivePositions:
    """The position keys on the boards of online games in progress, per game name, and
    the checks the engine's routes make with them (see the module's doc)."""

    def __init__(self, games: LiveGames) -> None:
        self.games = games
        self._ids: list[str] = []
        self._read_at = -1e9

    async def keys(self, game_name: str) -> set[int]:
        """The keys of the positions closed now (no opening positions)."""
        games = self.games
        now = time.monotonic()
        if now - self._read_at >= LIVE_REFRESH:
            stored = await games.calls.call(games.storage.games_with_status, "playing",
                                            LIVE_LIMIT)
            self._ids = [g.id for g in stored if g.mode == Mode.ONLINE]
            self._read_at = now
        keys: set[int] = set()
        for game_id in list(self._ids):
            try:
                match = await games.get(game_id)
            except (LookupError, ValueError, StorageUnavailable):
                continue  # gone, or not replayable: nothing to protect
            if match.game.name == game_name and protected(match):
                keys.add(match.position.key)
        return keys

    async def refuse(self, game: Game, options: dict[str, Any], start: str | None,
                     actions: list[str], first: int | None = None) -> None:
        """``PermissionError`` (403) when the engine would look at a closed position:
        the line's end, or (``first``) any position from ply ``first`` to the end (a
        graph's slice). Also checks that the line replays (``IllegalAction`` naming the
        action)."""
        live = await self.keys(game.name)
        if await self.games.calls.call_thread(closed_on_line, game, options, start, actions,
                                              live, first):
            raise PermissionError(LIVE_REFUSAL)

    async def refuse_match(self, match: Match) -> None:
        """``PermissionError`` when the engine may not act in ``match`` now (a hint, the
        computer's move): its position is closed, or follows a closed one."""
        live = await self.keys(match.game.name)
        if not live:
            return
        if match.position.key in live or await self.games.calls.call_thread(
                closed_on_line, match.game, match.stored.options, match.stored.start or None,
                [ply.notation for ply in match.plies], live, None):
            raise PermissionError(LIVE_REFUSAL)

    async def refuse_start(self, game_name: str, options: dict[str, Any] | None,
                           start: str | None) -> None:
        """``PermissionError`` when ``start`` (a board text) is a closed position: a game
        against the computer from there would be engine help."""
        if not start:
            return
        game = get_game(game_name)
        live = await self.keys(game.name)
        if not live:
            return
        rules_options = parse_options(game, options or {})
        if await self.games.calls.call_thread(live_start, game, rules_options, start, live):
            raise PermissionError(LIVE_REFUSAL)


def closed_on_line(game: Game, options: dict[str, Any], start: str | None,
                   actions: list[str], keys: set[int], first: int | None = None) -> bool:
    """Is a position the engine would look at on this line closed? Those looked at are
    the positions from ply ``first`` (the end of the line when ``None``) to the end;
    each is closed when it, or one of the ``FOLLOW_PLIES`` positions before it on the
    line, is in ``keys``. (The line is replayed first: errors as :func:`rebuild`'s.)"""
    position, _ = rebuild(game, options, list(actions), start)
    if not keys:
        return False
    end = len(actions)
    lowest = max(0, (end if first is None else first) - FOLLOW_PLIES)
    for ply in range(end, lowest - 1, -1):
        if position.key in keys:
            return True
        if ply == 0 or position.ply == 0:
            break
        position.undo()
    return False


def live_start(game: Game, options: dict[str, Any], start: str, keys: set[int]) -> bool:
    """Is the board text ``start`` one of ``keys``? (A text that does not read is left
    to the game's creation to refuse.)"""
    try:
        return start_position(game, options, start).key in keys
    except ValueError:
        return False
