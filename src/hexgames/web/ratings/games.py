"""Rated results: a finished rated game applied to its players' Glicko-2 ratings, once.

The maths is :mod:`hexgames.web.ratings.glicko2`; this module is how the site applies it
(docs/web.md, "Ratings"):

- **Pools.** A rating belongs to a player and a *pool*: the game's name for its default
  options (``"dendria"``, ``"benediction"``), or the name followed by every option that
  differs from its default (``"dendria board_side=9"``). So Dendria on a side-9 board is
  rated apart from the standard side 7, as is any other variant; no game is named here.
- **Rating periods.** Glicko-2 updates ratings once per rating period with all of its
  games. The site updates at once after every rated game, treating the game as a rating
  period of its own (as lichess does), and counts inactivity in whole periods of
  :data:`~hexgames.web.ratings.glicko2.PERIOD_DAYS` day(s): before a player's next game (and
  whenever a rating is shown), step 6 is applied once per period elapsed since their last
  rated game (:func:`current`), capped at the starting deviation (350).
- **Who counts.** Only games created ``rated`` (online games; the lobby sets it), which
  ended with a result (a win or a draw; an aborted game has no winner), between two
  different identities that both picked a name (no guests), in which **each side made
  at least one action of its own** (a resignation or a timeout before that is recorded
  but unrated, like an abort: no farming of 0-move wins). :func:`record_rated_result`
  applies a game once, whoever calls it and however often (the storage's
  ``apply_rated_result`` is the single writer).

Synchronous and blocking (storage calls): the service runs :func:`record_rated_result`
in a storage thread. Nothing here knows about HTTP.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from hexgames.game import get_game
from hexgames.web.accounts.credentials import GUEST_PREFIX
from hexgames.web.game.matches import Match
from hexgames.web.ratings.glicko2 import Rating, idle, periods_between, update
from hexgames.web.storage import RatingRecord, Storage, StoredGame, seat_holders

__all__ = [
    "PROVISIONAL_DEVIATION",
    "current",
    "pool_title",
    "rating_in",
    "rating_pool",
    "rating_view",
    "record_rated_result",
    "seat_scores",
]

#: A rating whose deviation is above this is provisional (shown with a "?").
PROVISIONAL_DEVIATION = 110.0


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def current(record: RatingRecord, at: str | None = None) -> Rating:
    """A stored rating as of ``at`` (now by default): its deviation grown with the
    periods of inactivity since its last game."""
    stored = Rating(record.rating, record.deviation, record.volatility)
    return idle(stored, periods_between(record.rated_at, at or now()))


def rating_in(records: Sequence[RatingRecord], pool: str) -> float:
    """A player's current rating in ``pool`` among their ``records`` (Glicko-2's start,
    1500, when they have none there): what pairings and the TV rank players by."""
    for record in records:
        if record.pool == pool:
            return float(current(record).rating)
    return float(Rating().rating)


def rating_pool(game_name: str, options: Mapping[str, Any]) -> str:
    """The pool a game's ratings belong to: the game's name, followed by each option
    that differs from the game's default (``"dendria board_side=9"``)."""
    game = get_game(game_name)
    parts = [game.name]
    for option in sorted(game.options, key=lambda option: option.name):
        if option.name in options and options[option.name] != option.default:
            value = options[option.name]
            shown = "off" if value is None else str(value).lower()
            parts.append(f"{option.name}={shown}")
    return " ".join(parts)


def pool_title(pool: str) -> str:
    """A pool as people read it: ``"Dendria (board_side=9)"``."""
    name, _, rest = pool.partition(" ")
    try:
        title = get_game(name).title
    except (KeyError, ValueError):
        title = name
    return f"{title} ({rest.replace(' ', ', ')})" if rest else title


def seat_scores(match: Match) -> tuple[float, float] | None:
    """The rated result of a finished game as (seat 0, seat 1) scores, or ``None`` when
    the game has no result to rate (still playing, aborted)."""
    if not match.is_over:
        return None
    stored = match.stored
    position = match.position
    winner = stored.winner if stored.status == "over" else position.winner
    if winner is None:
        if stored.status == "over" and not position.is_over:
            return None  # ended by the site without a winner: an abort
        winner = "draw" if position.is_over else None
    if winner is None:
        return None
    if winner == "draw":
        return 0.5, 0.5
    if winner == position.color_of_seat(0):
        return 1.0, 0.0
    if winner == position.color_of_seat(1):
        return 0.0, 1.0
    return None


def record_rated_result(storage: Storage, game: Match | StoredGame, at: str | None = None
                        ) -> list[dict[str, Any]] | None:
    """Apply a finished rated game to its players' ratings, once.

    ``game`` is a :class:`~hexgames.web.game.matches.Match` (or a ``StoredGame``, replayed
    to learn which seat won). Returns the rating changes, one entry per seat
    (``{"seat", "player_id", "pool", "before", "after", "change", "deviation",
    "games"}``), also when they were applied by an earlier call (idempotent); ``None``
    when the game does not count (not rated, not over, no result, not two named
    identities, a side that made no action).
    Blocking (storage): call it from a thread.
    """
    if isinstance(game, StoredGame):
        game = Match(game)
    stored = game.stored
    if not stored.rated:
        return None
    holders = dict(seat_holders(stored.players))
    if set(holders) != {0, 1} or holders[0] == holders[1]:
        return None
    if not (game.seat_has_moved(0) and game.seat_has_moved(1)):
        return None  # a side never played: no rated result (as an abort)
    scores = seat_scores(game)
    if scores is None:
        return None
    names = storage.player_names([holders[0], holders[1]])
    if any(names.get(holders[seat], GUEST_PREFIX).startswith(GUEST_PREFIX)
           for seat in (0, 1)):
        return None  # guests do not play rated games (see hexgames.web.http.cross_site)
    pool = rating_pool(stored.game, stored.options)
    at = at or now()
    ids = (holders[0], holders[1])

    def compute(first: RatingRecord | None, second: RatingRecord | None
                ) -> tuple[RatingRecord, RatingRecord, Any]:
        before = [current(r, at) if r is not None else Rating() for r in (first, second)]
        records, changes = [], []
        for seat, record in enumerate((first, second)):
            after = update(before[seat], [(before[1 - seat], scores[seat])])
            score = scores[seat]
            games = (record.games if record else 0) + 1
            records.append(RatingRecord(
                ids[seat], pool, after.rating, after.deviation, after.volatility, games,
                (record.wins if record else 0) + (score == 1.0),
                (record.losses if record else 0) + (score == 0.0),
                (record.draws if record else 0) + (score == 0.5),
                at,
            ))
            changes.append({
                "seat": seat,
                "player_id": ids[seat],
                "pool": pool,
                "before": round(before[seat].rating, 1),
                "after": round(after.rating, 1),
                "change": round(after.rating - before[seat].rating, 1),
                "deviation": round(after.deviation, 1),
                "games": games,
            })
        return records[0], records[1], changes

    _, changes = storage.apply_rated_result(stored.id, pool, ids, at, compute)
    return changes


def rating_view(record: RatingRecord, at: str | None = None) -> dict[str, Any]:
    """A rating as the API shows it (deviation as of now)."""
    rating = current(record, at)
    return {
        "pool": record.pool,
        "title": pool_title(record.pool),
        "game": record.pool.partition(" ")[0],
        "rating": round(rating.rating, 1),
        "deviation": round(rating.deviation, 1),
        "volatility": round(rating.volatility, 6),
        "provisional": rating.deviation > PROVISIONAL_DEVIATION,
        "games": record.games,
        "wins": record.wins,
        "losses": record.losses,
        "draws": record.draws,
        "last_game_at": record.rated_at,
    }
