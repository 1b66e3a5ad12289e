"""Conditional moves in SQL: the lines a correspondence player stored (``conditional_lines``).

A line is stored only while the game is still where its owner saw it (being played, with
the number of actions the line was checked against) and the seat holds fewer than the
limit: the check and the insert share one transaction, which on PostgreSQL first locks
the game's row, so two processes storing lines of one game at once queue there. The
lines themselves are immutable: a line that was followed or left is deleted, never
rewritten (how far it has been followed is read from the game's actions).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hexgames.web.storage.records import ConditionalLine
from hexgames.web.storage.sql_connection import SqlConnection

_COLUMNS = "id, game_id, seat, ply, digest, turns, created_at"


def _line_from_row(row: Sequence[Any]) -> ConditionalLine:
    return ConditionalLine(
        id=row[0], game_id=row[1], seat=int(row[2]), ply=int(row[3]), digest=row[4],
        turns=tuple(tuple(turn) for turn in json.loads(row[5])), created_at=row[6],
    )


class ConditionalTables(SqlConnection):
    """The conditional-move statements of the SQL storage (see
    :class:`~.interface.Storage`)."""

    def conditional_lines(self, game_id: str) -> list[ConditionalLine]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_COLUMNS} FROM conditional_lines WHERE game_id = ? "
                          "ORDER BY created_at, id"),
                (game_id,),
            )
            return [_line_from_row(row) for row in cursor.fetchall()]

    def add_conditional_line(self, line: ConditionalLine, limit: int,
                             replaces: Sequence[str] = ()) -> str:
        try:
            with self._transaction() as cursor:
                return self._add_line(cursor, line, limit, replaces)
        except _Full:  # raised inside: the replaced lines' deletion is rolled back
            return "full"

    def _add_line(self, cursor: Any, line: ConditionalLine, limit: int,
                  replaces: Sequence[str]) -> str:
        cursor.execute(
            self._sql(f"SELECT status FROM games WHERE id = ?{self.for_update}"),
            (line.game_id,),
        )
        row = cursor.fetchone()
        if row is None or row[0] != "playing":
            return "moved"
        cursor.execute(
            self._sql("SELECT COALESCE(MAX(ply), -1) + 1 FROM moves WHERE game_id = ?"),
            (line.game_id,),
        )
        if int(cursor.fetchone()[0]) != line.ply:
            return "moved"
        for replaced in replaces:
            cursor.execute(
                self._sql("DELETE FROM conditional_lines WHERE id = ? AND game_id = ? "
                          "AND seat = ?"),
                (replaced, line.game_id, line.seat),
            )
        cursor.execute(
            self._sql("SELECT COUNT(*) FROM conditional_lines WHERE game_id = ? AND seat = ?"),
            (line.game_id, line.seat),
        )
        if int(cursor.fetchone()[0]) >= limit:
            raise _Full
        cursor.execute(
            self._sql(f"INSERT INTO conditional_lines ({_COLUMNS}) VALUES (?,?,?,?,?,?,?)"),
            (line.id, line.game_id, line.seat, line.ply, line.digest,
             json.dumps([list(turn) for turn in line.turns]), line.created_at),
        )
        return "stored"

    def delete_conditional_lines(self, game_id: str, ids: Sequence[str] | None = None,
                                 seat: int | None = None) -> int:
        with self._transaction() as cursor:
            where = "game_id = ?"
            args: list[Any] = [game_id]
            if seat is not None:
                where += " AND seat = ?"
                args.append(seat)
            if ids is None:
                cursor.execute(self._sql(f"DELETE FROM conditional_lines WHERE {where}"),
                               tuple(args))
                return int(cursor.rowcount or 0)
            removed = 0
            for line_id in ids:
                cursor.execute(
                    self._sql(f"DELETE FROM conditional_lines WHERE {where} AND id = ?"),
                    (*args, line_id),
                )
                removed += int(cursor.rowcount or 0)
            return removed


class _Full(Exception):
    """The seat holds the limit of lines: raised inside the transaction so that the
    replaced lines' deletion is rolled back with it."""
