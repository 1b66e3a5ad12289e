"""Puzzle ratings, the choice of the next puzzle, streaks and the daily puzzle (lichess's
puzzle training, on the site's shipped sets).

- **Ratings.** A named player has one Glicko-2 puzzle rating per game; each puzzle has
  one too, starting at the rating its generator gave it (``puzzles.json``) with a
  deviation of :data:`PUZZLE_DEVIATION`. A player's **first** finished try at a puzzle
  (solved, or a wrong line; the server judges it) is one game between the player and the
  puzzle, a rating period of its own for both, as on lichess; later tries change nothing.
  The player's deviation grows with idle days, as for game ratings. Guests are not rated
  (an unrated session kept by their browser).
- **Choice.** The next puzzle is one of the :data:`NEAR` puzzles closest to the player's
  rating (a guest: 1500, or the rating its browser asks for) among those not tried yet,
  of the chosen theme if any; picked at random among them.
- **Streaks.** A streak is :data:`STREAK_LENGTH` puzzles of increasing difficulty (one
  from each slice of the set sorted by initial rating), played until the first mistake;
  unrated, its best kept per named player.
- **Daily puzzle.** One per game and day (UTC): the date's hash picks among the puzzles
  of middle difficulty, by their shipped ratings, so every server process shows the same.

Pure apart from the storage calls of :func:`record_attempt`; nothing here knows HTTP.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from hexgames.tutorial import Puzzle
from hexgames.web.ratings.games import PROVISIONAL_DEVIATION
from hexgames.web.ratings.glicko2 import (
    START_DEVIATION,
    START_RATING,
    START_VOLATILITY,
    Rating,
    idle,
    periods_between,
    update,
)
from hexgames.web.storage import Storage
from hexgames.web.storage.records import PuzzleRatingRecord, PuzzleStatRecord

#: A puzzle's deviation before anyone tried it (its rating is the generator's estimate).
PUZZLE_DEVIATION = 250.0
#: The next puzzle is drawn from this many puzzles closest to the player's rating.
NEAR = 12
#: Puzzles in a streak (a set smaller than this gives all of its puzzles).
STREAK_LENGTH = 50
#: The daily puzzle is drawn from puzzles whose shipped rating lies in this range (all
#: of them when none does).
DAILY_RANGE = (1100.0, 1800.0)
PLAYER_START = (START_RATING, START_DEVIATION, START_VOLATILITY)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def player_rating(record: PuzzleRatingRecord | None, at: str | None = None) -> Rating:
    """A player's puzzle rating as of ``at`` (now): the stored one with its deviation
    grown over idle days, or the start rating."""
    if record is None or record.attempts == 0:
        return Rating()
    return idle(Rating(record.rating, record.deviation, record.volatility),
                periods_between(record.rated_at, at or now()))


def puzzle_rating(puzzle: Puzzle, stat: PuzzleStatRecord | None) -> Rating:
    """A puzzle's rating: the stored one once tried, else the shipped one."""
    if stat is None:
        return Rating(puzzle.rating, PUZZLE_DEVIATION, START_VOLATILITY)
    return Rating(stat.rating, stat.deviation, stat.volatility)


def rating_view(record: PuzzleRatingRecord | None, at: str | None = None) -> dict[str, Any]:
    """A player's puzzle rating as the API shows it."""
    rating = player_rating(record, at)
    return {
        "rating": round(rating.rating, 1),
        "deviation": round(rating.deviation, 1),
        "provisional": rating.deviation > PROVISIONAL_DEVIATION,
        "attempts": record.attempts if record else 0,
        "solved": record.solved if record else 0,
        "best_streak": record.best_streak if record else 0,
    }


def record_attempt(storage: Storage, player_id: str, game: str, puzzle: Puzzle, win: bool,
                   at: str | None = None) -> dict[str, Any]:
    """Rate the player's finished try at ``puzzle`` if it is their first: both ratings
    move (one Glicko-2 game each). Returns ``{"first", "win", "player": {"before",
    "after", "change", "deviation"}, "puzzle": {"before", "after", "change"}}``; a later
    try returns the first try's changes with ``"first": False``. Blocking (storage)."""
    at = at or now()
    start = (puzzle.rating, PUZZLE_DEVIATION, START_VOLATILITY)

    def compute(record: PuzzleRatingRecord, stat: PuzzleStatRecord
                ) -> tuple[PuzzleRatingRecord, PuzzleStatRecord, Any]:
        before = player_rating(record, at)
        opponent = Rating(stat.rating, stat.deviation, stat.volatility)
        after = update(before, [(opponent, 1.0 if win else 0.0)])
        puzzle_after = update(opponent, [(before, 0.0 if win else 1.0)])
        changes = {
            "win": win,
            "player": {"before": round(before.rating, 1), "after": round(after.rating, 1),
                       "change": round(after.rating - before.rating, 1),
                       "deviation": round(after.deviation, 1)},
            "puzzle": {"before": round(opponent.rating, 1),
                       "after": round(puzzle_after.rating, 1),
                       "change": round(puzzle_after.rating - opponent.rating, 1)},
        }
        return (
            PuzzleRatingRecord(record.player_id, game, after.rating, after.deviation,
                               after.volatility, record.attempts + 1,
                               record.solved + int(win), record.best_streak, at),
            PuzzleStatRecord(game, puzzle.id, puzzle_after.rating, puzzle_after.deviation,
                             puzzle_after.volatility, stat.attempts + 1,
                             stat.solved + int(win)),
            changes,
        )

    applied, changes = storage.record_puzzle_attempt(player_id, game, puzzle.id, win, at,
                                                     PLAYER_START, start, compute)
    return {"first": applied, **(changes or {})}


def choose(puzzles: Sequence[Puzzle], ratings: dict[str, float], target: float,
           exclude: set[str], theme: str | None, rng: random.Random) -> Puzzle | None:
    """The next puzzle: one of the :data:`NEAR` closest to ``target`` (by ``ratings``,
    the current rating of each puzzle by id, else its shipped one) among those of
    ``theme`` not in ``exclude``; when every one of them was tried, among all of the
    theme. ``None`` when the theme has none."""
    pool = [p for p in puzzles if theme is None or theme in p.themes]
    fresh = [p for p in pool if p.id not in exclude] or pool
    if not fresh:
        return None
    closest = sorted(fresh, key=lambda p: (abs(ratings.get(p.id, p.rating) - target), p.id))
    return rng.choice(closest[:NEAR])


def streak_puzzles(puzzles: Sequence[Puzzle], rng: random.Random,
                   length: int = STREAK_LENGTH) -> list[str]:
    """The ids of a streak: the set sorted by shipped rating and cut into ``length``
    slices, one puzzle drawn from each, easiest first."""
    ordered = sorted(puzzles, key=lambda p: (p.rating, p.id))
    count = min(length, len(ordered))
    chosen = []
    for i in range(count):
        band = ordered[i * len(ordered) // count:(i + 1) * len(ordered) // count]
        chosen.append(rng.choice(band).id)
    return chosen


def daily_puzzle(puzzles: Sequence[Puzzle], game: str, day: date) -> Puzzle | None:
    """The game's puzzle of ``day``: the same for everyone on that day (the date's
    SHA-256 picks among the puzzles of middle difficulty, by id), whatever the process."""
    middle = [p for p in puzzles if DAILY_RANGE[0] <= p.rating <= DAILY_RANGE[1]]
    pool = sorted(middle or puzzles, key=lambda p: p.id)
    if not pool:
        return None
    digest = hashlib.sha256(f"{game}:{day.isoformat()}".encode()).digest()
    return pool[int.from_bytes(digest[:8], "big") % len(pool)]


def today() -> date:
    """Today's date in UTC (the daily puzzle changes at midnight UTC)."""
    return datetime.now(UTC).date()
