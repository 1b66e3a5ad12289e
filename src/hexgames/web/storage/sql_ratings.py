"""Ratings in SQL: one row per player and pool, and the once-only record of a rated game.

The Glicko-2 maths is not here (hexgames.web.ratings.glicko2): the storage only guarantees that a
game's result is applied once, on ratings that no concurrent result changes meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from hexgames.web.storage.records import RatingRecord
from hexgames.web.storage.sql_connection import SqlConnection

_RATING_COLUMNS = ("player_id, pool, rating, deviation, volatility, games, wins, losses, "
                   "draws, rated_at")


def _rating_from_row(row: Sequence[Any]) -> RatingRecord:
    return RatingRecord(row[0], row[1], float(row[2]), float(row[3]), float(row[4]),
                        int(row[5]), int(row[6]), int(row[7]), int(row[8]), row[9])


class RatingTables(SqlConnection):
    """The rating statements of the SQL storage (see :class:`~.interface.Storage`)."""

    def ratings_of(self, player_id: str) -> list[RatingRecord]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_RATING_COLUMNS} FROM ratings WHERE player_id = ? "
                          "AND games > 0 ORDER BY pool"),
                (player_id,),
            )
            return [_rating_from_row(row) for row in cursor.fetchall()]

    def ratings_of_players(self, player_ids: Sequence[str]) -> list[RatingRecord]:
        wanted = sorted(set(player_ids))
        if not wanted:
            return []
        marks = ",".join("?" * len(wanted))
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_RATING_COLUMNS} FROM ratings WHERE player_id IN "
                          f"({marks}) AND games > 0 ORDER BY player_id, pool"),
                tuple(wanted),
            )
            return [_rating_from_row(row) for row in cursor.fetchall()]

    def leaderboard(self, pool: str, limit: int = 100) -> list[tuple[RatingRecord, str]]:
        columns = ", ".join(f"r.{c.strip()}" for c in _RATING_COLUMNS.split(","))
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {columns}, p.name FROM ratings r "
                          "JOIN players p ON p.id = r.player_id WHERE r.pool = ? AND r.games > 0 "
                          "ORDER BY r.rating DESC, p.name_key LIMIT ?"),
                (pool, limit),
            )
            return [(_rating_from_row(row), row[10]) for row in cursor.fetchall()]

    def rating_pools(self) -> list[str]:
        with self._transaction() as cursor:
            cursor.execute("SELECT DISTINCT pool FROM ratings WHERE games > 0 ORDER BY pool")
            return [row[0] for row in cursor.fetchall()]

    def apply_rated_result(
        self, game_id: str, pool: str, player_ids: tuple[str, str], at: str,
        compute: Callable[[RatingRecord | None, RatingRecord | None],
                          tuple[RatingRecord, RatingRecord, Any]],
    ) -> tuple[bool, Any]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("INSERT INTO rated_results (game_id, pool, changes, rated_at) "
                          "VALUES (?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING"),
                (game_id, pool, "null", at),
            )
            if cursor.rowcount != 1:  # rated before (by this or another process)
                cursor.execute(
                    self._sql("SELECT changes FROM rated_results WHERE game_id = ?"), (game_id,)
                )
                return False, json.loads(cursor.fetchone()[0])
            # Lock both rating rows (in a fixed order: no deadlock between two games),
            # creating empty ones first: FOR UPDATE cannot lock a row that is not there,
            # and two first games of a player must not both start from nothing.
            found: dict[str, RatingRecord | None] = {}
            for player_id in sorted(set(player_ids)):
                cursor.execute(
                    self._sql(f"INSERT INTO ratings ({_RATING_COLUMNS}) "
                              "VALUES (?,?,0,0,0,0,0,0,0,?) "
                              "ON CONFLICT (player_id, pool) DO NOTHING"),
                    (player_id, pool, at),
                )
                cursor.execute(
                    self._sql(f"SELECT {_RATING_COLUMNS} FROM ratings "
                              f"WHERE player_id = ? AND pool = ?{self.for_update}"),
                    (player_id, pool),
                )
                record = _rating_from_row(cursor.fetchone())
                found[player_id] = record if record.games > 0 else None
            current = [found[player_id] for player_id in player_ids]
            first, second, changes = compute(current[0], current[1])
            for record in (first, second):
                cursor.execute(
                    self._sql(
                        f"INSERT INTO ratings ({_RATING_COLUMNS}) "
                        "VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (player_id, pool) DO UPDATE SET "
                        "rating = excluded.rating, deviation = excluded.deviation, "
                        "volatility = excluded.volatility, games = excluded.games, "
                        "wins = excluded.wins, losses = excluded.losses, "
                        "draws = excluded.draws, rated_at = excluded.rated_at"
                    ),
                    (record.player_id, record.pool, record.rating, record.deviation,
                     record.volatility, record.games, record.wins, record.losses,
                     record.draws, record.rated_at),
                )
                # The rating history (profiles' graphs), with the rating it records.
                cursor.execute(
                    self._sql("INSERT INTO rating_history (player_id, pool, game_id, "
                              "rated_at, rating, deviation, games) VALUES (?,?,?,?,?,?,?) "
                              "ON CONFLICT (game_id, player_id) DO NOTHING"),
                    (record.player_id, record.pool, game_id, record.rated_at,
                     record.rating, record.deviation, record.games),
                )
            cursor.execute(
                self._sql("UPDATE rated_results SET changes = ? WHERE game_id = ?"),
                (json.dumps(changes), game_id),
            )
            return True, changes
