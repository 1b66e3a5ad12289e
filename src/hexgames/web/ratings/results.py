"""How a finished game went for each identity in it: the rows profiles are built on.

A profile's statistics by colour and its game search need, for each finished game, the
colour each seat played at the end and whether it won. The stored game knows the winner
as a colour; which seat held that colour is the position's to say (Dendria's pie rule
swaps colours), so the rows are computed from a :class:`~hexgames.web.game.matches.Match` and
filed in the storage (``game_results``):

- when a game ends, by :meth:`hexgames.web.play.live_games.LiveGames.record_result`, from
  the match in memory (no replay);
- for games that ended before results were filed (or whose filing failed), by
  :func:`file_missing` when their player's profile is read: at most a bounded number
  per call, each replayed once.

Nothing here knows about HTTP. The ``file_*`` coroutines take the service's storage and
thread calls, so storage calls keep their time limits and replays stay off the loop.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from hexgames.errors import IllegalAction
from hexgames.game import get_game
from hexgames.web.game.matches import Match
from hexgames.web.ratings.games import rating_pool, seat_scores
from hexgames.web.storage import SeatResult, StoredGame, seat_holders

__all__ = ["FILE_PER_CALL", "file_missing", "results_of_match", "results_of_stored"]

log = logging.getLogger(__name__)

#: Finished games :func:`file_missing` files in one call: each is replayed (about 50 us
#: an action: 200 games of 240 random actions took 16 s, with their storage reads, on a
#: busy 2-core machine), so a profile read waits about a second at most.
FILE_PER_CALL = 25

_BY_SCORE = {1.0: "win", 0.5: "draw", 0.0: "loss"}

#: Runs a call in a thread with the service's limits (``GameService.call_storage`` or
#: ``call_thread``).
Caller = Callable[..., Awaitable[Any]]


def _pool(stored: StoredGame) -> str:
    try:
        return rating_pool(stored.game, stored.options)
    except (KeyError, ValueError):  # a game this server no longer knows
        return stored.game


def results_of_match(match: Match) -> list[SeatResult]:
    """One row per seat an identity holds in the finished game (none while it goes on):
    the colour the seat plays at the end, and its result (``none``: ended without one,
    as an abort)."""
    stored = match.stored
    holders = seat_holders(stored.players)
    if not holders or not match.is_over:
        return []
    scores = seat_scores(match)
    by_seat = dict(holders)
    rows = []
    for seat, player_id in holders:
        other = by_seat.get(1 - seat)
        rows.append(SeatResult(
            game_id=stored.id, seat=seat, player_id=player_id,
            opponent_id=other if other != player_id else None,
            game=stored.game, pool=_pool(stored), rated=stored.rated,
            color=match.position.color_of_seat(seat),
            result="none" if scores is None else _BY_SCORE[scores[seat]],
            ended_at=stored.updated_at,
        ))
    return rows


def results_of_stored(stored: StoredGame) -> list[SeatResult]:
    """:func:`results_of_match` of a stored game (replayed: blocking, call it in a
    thread). A game that no longer replays is filed without a result, each seat with
    the colour it started with, so that it is not tried again at every profile read."""
    try:
        return results_of_match(Match(stored))
    except (IllegalAction, ValueError, KeyError) as error:
        log.warning("game %s does not replay (%s); filed without a result", stored.id, error)
    try:
        colors: tuple[str, ...] = tuple(get_game(stored.game).colors)
    except (KeyError, ValueError):
        colors = ()
    holders = seat_holders(stored.players)
    by_seat = dict(holders)
    return [
        SeatResult(stored.id, seat, player_id,
                   by_seat.get(1 - seat) if by_seat.get(1 - seat) != player_id else None,
                   stored.game, _pool(stored), stored.rated,
                   colors[seat] if seat < len(colors) else "?", "none", stored.updated_at)
        for seat, player_id in holders
    ]


async def file_missing(storage: Any, call_storage: Caller, call_thread: Caller,
                       player_id: str, limit: int | None = None) -> bool:
    """File the results of at most ``limit`` (default :data:`FILE_PER_CALL`) of the
    player's finished games that have none; True when none is left unfiled after this
    call."""
    limit = FILE_PER_CALL if limit is None else limit
    missing = await call_storage(storage.unfiled_games, player_id, limit + 1)
    for game_id in missing[:limit]:
        stored = await call_storage(storage.load_game, game_id)
        if stored is None:
            continue
        rows = await call_thread(results_of_stored, stored)
        await call_storage(storage.file_results, game_id, rows)
    return len(missing) <= limit
