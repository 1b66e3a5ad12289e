"""Player profiles in SQL: the rating history, and the filed results of finished games.

``rating_history`` is written by the rating transaction (:mod:`.sql_ratings`);
``game_results`` holds one row per identity seat of a finished game, filed by
:meth:`ProfileTables.file_results` (hexgames.web.ratings.results computes the rows: which
colour the seat played at the end and whether it won, which only the game's rules know).
The statistics, the game search and the export read them through the indexes of
:mod:`.schema` (``game_results_by_*``, ``rating_history_by_player``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hexgames.web.storage.meta import Mode
from hexgames.web.storage.records import GameQuery, ListedGame, RatingPoint, SeatResult
from hexgames.web.storage.sql_connection import SqlConnection

_RESULT_COLUMNS = ("game_id, seat, player_id, opponent_id, game, pool, rated, color, "
                   "result, ended_at")


def _result_from_row(row: Sequence[Any]) -> SeatResult:
    return SeatResult(str(row[0]), int(row[1]), str(row[2]),
                      None if row[3] is None else str(row[3]), str(row[4]), str(row[5]),
                      bool(row[6]), str(row[7]), str(row[8]), str(row[9]))


def _where(player_id: str, query: GameQuery) -> tuple[str, list[Any]]:
    """The search's conditions on ``r`` (game_results) and ``g`` (games)."""
    clauses: list[str] = ["r.player_id = ?", "g.status = 'over'"]
    args: list[Any] = [player_id]
    if query.opponent is not None:
        clauses.append("r.opponent_id = (SELECT id FROM players WHERE name_key = ?)")
        args.append(query.opponent)
    for column, value in (("result", query.result), ("game", query.game),
                          ("pool", query.pool)):
        if value is not None:
            clauses.append(f"r.{column} = ?")
            args.append(value)
    if query.rated is not None:
        clauses.append("r.rated = ?")
        args.append(1 if query.rated else 0)
    if query.since is not None:
        clauses.append("r.ended_at >= ?")
        args.append(query.since)
    if query.until is not None:
        clauses.append("r.ended_at < ?")
        args.append(query.until)
    return " AND ".join(clauses), args


class ProfileTables(SqlConnection):
    """The profile statements of the SQL storage (see :class:`~.interface.Storage`)."""

    def rating_history(self, player_id: str, per_pool: int = 1000) -> list[RatingPoint]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(
                    "SELECT pool, game_id, rated_at, rating, deviation, games FROM ("
                    "SELECT pool, game_id, rated_at, rating, deviation, games, ROW_NUMBER() "
                    "OVER (PARTITION BY pool ORDER BY games DESC, rated_at DESC) AS n "
                    "FROM rating_history WHERE player_id = ?) h WHERE n <= ? "
                    "ORDER BY pool, games, rated_at"
                ),
                (player_id, per_pool),
            )
            return [RatingPoint(str(row[0]), str(row[1]), str(row[2]), float(row[3]),
                                float(row[4]), int(row[5])) for row in cursor.fetchall()]

    def file_results(self, game_id: str, results: Sequence[SeatResult]) -> bool:
        with self._transaction() as cursor:
            # Holds the game's row: a concurrent reopening (which deletes the results)
            # waits for this one, so no result of a reopened game survives it.
            cursor.execute(
                self._sql(f"SELECT status FROM games WHERE id = ?{self.for_update}"),
                (game_id,),
            )
            row = cursor.fetchone()
            if row is None or row[0] != "over":
                return False
            cursor.execute(self._sql("DELETE FROM game_results WHERE game_id = ?"), (game_id,))
            cursor.executemany(
                self._sql(f"INSERT INTO game_results ({_RESULT_COLUMNS}) "
                          "VALUES (?,?,?,?,?,?,?,?,?,?)"),
                [(game_id, r.seat, r.player_id, r.opponent_id, r.game, r.pool,
                  1 if r.rated else 0, r.color, r.result, r.ended_at) for r in results],
            )
            return True

    def unfiled_games(self, player_id: str, limit: int) -> list[str]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(
                    "SELECT g.id FROM game_players gp JOIN games g ON g.id = gp.game_id "
                    "WHERE gp.player_id = ? AND g.status = 'over' AND NOT EXISTS "
                    "(SELECT 1 FROM game_results r WHERE r.game_id = gp.game_id "
                    "AND r.seat = gp.seat) ORDER BY g.updated_at DESC, g.id LIMIT ?"
                ),
                (player_id, limit),
            )
            return list(dict.fromkeys(str(row[0]) for row in cursor.fetchall()))

    def result_counts(self, player_id: str
                      ) -> list[tuple[str, str, int, str, bool, str, int]]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(
                    "SELECT r.game, r.pool, r.seat, r.color, r.rated, r.result, COUNT(*) "
                    "FROM game_results r JOIN games g ON g.id = r.game_id "
                    "WHERE r.player_id = ? AND g.status = 'over' AND r.result <> 'none' "
                    "GROUP BY r.game, r.pool, r.seat, r.color, r.rated, r.result "
                    "ORDER BY r.game, r.pool, r.seat, r.color, r.rated, r.result"
                ),
                (player_id,),
            )
            return [(str(row[0]), str(row[1]), int(row[2]), str(row[3]), bool(row[4]),
                     str(row[5]), int(row[6])) for row in cursor.fetchall()]

    def opponent_counts(self, player_id: str) -> list[tuple[str, str, str, int]]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(
                    "SELECT r.opponent_id, p.name, r.result, COUNT(*) FROM game_results r "
                    "JOIN games g ON g.id = r.game_id JOIN players p ON p.id = r.opponent_id "
                    "WHERE r.player_id = ? AND g.status = 'over' AND r.result <> 'none' "
                    "GROUP BY r.opponent_id, p.name, r.result ORDER BY p.name, r.result"
                ),
                (player_id,),
            )
            return [(str(row[0]), str(row[1]), str(row[2]), int(row[3]))
                    for row in cursor.fetchall()]

    def search_games(self, player_id: str, query: GameQuery, offset: int, limit: int
                     ) -> tuple[list[ListedGame], int]:
        where, args = _where(player_id, query)
        columns = ", ".join(f"r.{column.strip()}" for column in _RESULT_COLUMNS.split(","))
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT COUNT(*) FROM game_results r "
                          f"JOIN games g ON g.id = r.game_id WHERE {where}"),
                tuple(args),
            )
            total = int(cursor.fetchone()[0])
            cursor.execute(
                self._sql(
                    f"SELECT {columns}, o.name, g.players, g.mode, g.reason "
                    "FROM game_results r JOIN games g ON g.id = r.game_id "
                    f"LEFT JOIN players o ON o.id = r.opponent_id WHERE {where} "
                    "ORDER BY r.ended_at DESC, r.game_id DESC, r.seat LIMIT ? OFFSET ?"
                ),
                (*args, limit, offset),
            )
            listed = [
                ListedGame(_result_from_row(row), None if row[10] is None else str(row[10]),
                           json.loads(row[11]), Mode(str(row[12])),
                           None if row[13] is None else str(row[13]))
                for row in cursor.fetchall()
            ]
            return listed, total

    def finished_game_ids(self, player_id: str, limit: int) -> list[str]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(
                    "SELECT g.id FROM game_players gp "
                    "JOIN games g ON g.id = gp.game_id "
                    "WHERE gp.player_id = ? AND g.status = 'over' "
                    "ORDER BY g.updated_at DESC, g.id LIMIT ?"
                ),
                (player_id, limit),
            )
            return list(dict.fromkeys(str(row[0]) for row in cursor.fetchall()))
