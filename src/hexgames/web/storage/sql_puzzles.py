"""Puzzles in SQL: players' puzzle ratings, puzzles' own ratings, the once-only record of a
player's first try at each puzzle, and puzzle streaks.

The Glicko-2 maths is not here (hexgames.web.ratings.puzzles): the storage guarantees that
a player's first try at a puzzle is applied once, on ratings no concurrent try changes
meanwhile, and that a streak moves on exactly once per solved puzzle.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from hexgames.web.storage.records import PuzzleRatingRecord, PuzzleStatRecord, PuzzleStreak
from hexgames.web.storage.sql_connection import SqlConnection

_RATING = ("player_id, game, rating, deviation, volatility, attempts, solved, best_streak, "
           "rated_at")
_STAT = "game, puzzle_id, rating, deviation, volatility, attempts, solved"
_STREAK = "id, player_id, game, puzzles, solved, status, created_at, updated_at"


def _rating(row: Sequence[Any]) -> PuzzleRatingRecord:
    return PuzzleRatingRecord(row[0], row[1], float(row[2]), float(row[3]), float(row[4]),
                              int(row[5]), int(row[6]), int(row[7]), row[8])


def _stat(row: Sequence[Any]) -> PuzzleStatRecord:
    return PuzzleStatRecord(row[0], row[1], float(row[2]), float(row[3]), float(row[4]),
                            int(row[5]), int(row[6]))


def _streak(row: Sequence[Any] | None) -> PuzzleStreak | None:
    if row is None:
        return None
    return PuzzleStreak(row[0], row[1], row[2], tuple(json.loads(row[3])), int(row[4]),
                        row[5], row[6], row[7])


class PuzzleTables(SqlConnection):
    """The puzzle statements of the SQL storage (see :class:`~.interface.Storage`)."""

    def puzzle_rating(self, player_id: str, game: str) -> PuzzleRatingRecord | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_RATING} FROM puzzle_ratings "
                                     "WHERE player_id = ? AND game = ?"), (player_id, game))
            row = cursor.fetchone()
            return _rating(row) if row is not None else None

    def puzzle_stats(self, game: str) -> dict[str, PuzzleStatRecord]:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_STAT} FROM puzzle_stats WHERE game = ?"),
                           (game,))
            return {row[1]: _stat(row) for row in cursor.fetchall()}

    def attempted_puzzles(self, player_id: str, game: str) -> set[str]:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT puzzle_id FROM puzzle_attempts "
                                     "WHERE player_id = ? AND game = ?"), (player_id, game))
            return {row[0] for row in cursor.fetchall()}

    def record_puzzle_attempt(
        self, player_id: str, game: str, puzzle_id: str, win: bool, at: str,
        player_start: tuple[float, float, float], puzzle_start: tuple[float, float, float],
        compute: Callable[[PuzzleRatingRecord, PuzzleStatRecord],
                          tuple[PuzzleRatingRecord, PuzzleStatRecord, Any]],
    ) -> tuple[bool, Any]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("INSERT INTO puzzle_attempts (player_id, game, puzzle_id, win, "
                          "changes, at) VALUES (?, ?, ?, ?, ?, ?) "
                          "ON CONFLICT (player_id, game, puzzle_id) DO NOTHING"),
                (player_id, game, puzzle_id, int(win), "null", at),
            )
            if cursor.rowcount != 1:  # tried before: only the first try counts
                cursor.execute(
                    self._sql("SELECT changes FROM puzzle_attempts WHERE player_id = ? "
                              "AND game = ? AND puzzle_id = ?"), (player_id, game, puzzle_id))
                return False, json.loads(cursor.fetchone()[0])
            # Both rows exist before they are locked (FOR UPDATE locks no missing row):
            # the player's at the start rating, the puzzle's at its shipped one.
            cursor.execute(
                self._sql(f"INSERT INTO puzzle_ratings ({_RATING}) VALUES (?,?,?,?,?,0,0,0,?) "
                          "ON CONFLICT (player_id, game) DO NOTHING"),
                (player_id, game, *player_start, at))
            cursor.execute(
                self._sql(f"INSERT INTO puzzle_stats ({_STAT}) VALUES (?,?,?,?,?,0,0) "
                          "ON CONFLICT (game, puzzle_id) DO NOTHING"),
                (game, puzzle_id, *puzzle_start))
            cursor.execute(self._sql(f"SELECT {_RATING} FROM puzzle_ratings WHERE player_id = ? "
                                     f"AND game = ?{self.for_update}"), (player_id, game))
            rating = _rating(cursor.fetchone())
            cursor.execute(self._sql(f"SELECT {_STAT} FROM puzzle_stats WHERE game = ? "
                                     f"AND puzzle_id = ?{self.for_update}"), (game, puzzle_id))
            stat = _stat(cursor.fetchone())
            new_rating, new_stat, changes = compute(rating, stat)
            cursor.execute(
                self._sql("UPDATE puzzle_ratings SET rating = ?, deviation = ?, volatility = ?, "
                          "attempts = ?, solved = ?, rated_at = ? WHERE player_id = ? "
                          "AND game = ?"),
                (new_rating.rating, new_rating.deviation, new_rating.volatility,
                 new_rating.attempts, new_rating.solved, new_rating.rated_at, player_id, game))
            cursor.execute(
                self._sql("UPDATE puzzle_stats SET rating = ?, deviation = ?, volatility = ?, "
                          "attempts = ?, solved = ? WHERE game = ? AND puzzle_id = ?"),
                (new_stat.rating, new_stat.deviation, new_stat.volatility, new_stat.attempts,
                 new_stat.solved, game, puzzle_id))
            cursor.execute(
                self._sql("UPDATE puzzle_attempts SET changes = ? WHERE player_id = ? "
                          "AND game = ? AND puzzle_id = ?"),
                (json.dumps(changes), player_id, game, puzzle_id))
            return True, changes

    # ---------------------------------------------------------------- streaks
    def create_streak(self, streak: PuzzleStreak) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"INSERT INTO puzzle_streaks ({_STREAK}) VALUES (?,?,?,?,?,?,?,?)"),
                (streak.id, streak.player_id, streak.game, json.dumps(list(streak.puzzles)),
                 streak.solved, streak.status, streak.created_at, streak.updated_at))

    def load_streak(self, streak_id: str) -> PuzzleStreak | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_STREAK} FROM puzzle_streaks WHERE id = ?"),
                           (streak_id,))
            return _streak(cursor.fetchone())

    def advance_streak(self, streak_id: str, solved: int, won: bool, at: str,
                       player_start: tuple[float, float, float],
                       keep_best: bool) -> PuzzleStreak | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_STREAK} FROM puzzle_streaks WHERE id = ?"
                                     f"{self.for_update}"), (streak_id,))
            streak = _streak(cursor.fetchone())
            if streak is None or streak.status != "playing" or streak.solved != solved:
                return None  # moved on (or ended) by another request first
            count = solved + 1 if won else solved
            over = not won or count >= len(streak.puzzles)
            status = "over" if over else "playing"
            cursor.execute(self._sql("UPDATE puzzle_streaks SET solved = ?, status = ?, "
                                     "updated_at = ? WHERE id = ?"),
                           (count, status, at, streak_id))
            if over and keep_best and streak.player_id is not None and count > 0:
                cursor.execute(
                    self._sql(f"INSERT INTO puzzle_ratings ({_RATING}) "
                              "VALUES (?,?,?,?,?,0,0,?,?) ON CONFLICT (player_id, game) "
                              "DO UPDATE SET best_streak = CASE WHEN "
                              "puzzle_ratings.best_streak < excluded.best_streak THEN "
                              "excluded.best_streak ELSE puzzle_ratings.best_streak END"),
                    (streak.player_id, streak.game, *player_start, count, at))
            return PuzzleStreak(streak.id, streak.player_id, streak.game, streak.puzzles,
                                count, status, streak.created_at, at)

    def delete_streaks(self, updated_before: str) -> int:
        with self._transaction() as cursor:
            cursor.execute(self._sql("DELETE FROM puzzle_streaks WHERE updated_at < ?"),
                           (updated_before,))
            return int(cursor.rowcount or 0)
