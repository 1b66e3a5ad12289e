"""Follows, blocks and muted chats between identities, in SQL (issue 42).

A relation is one row (``player_id`` follows or blocks ``other_id``); setting it twice is
setting it once (an upsert), removing a missing one removes nothing. Blocks are read in
both directions at once (:meth:`RelationTables.blocked_between`), because a block holds
whoever made it: neither of the two chats with, challenges or is paired with the other.
"""

from __future__ import annotations

from collections.abc import Sequence

from hexgames.web.storage.sql_connection import SqlConnection

#: The kinds of relation one identity keeps to another.
RELATIONS = ("follow", "block")


class RelationTables(SqlConnection):
    """The relation statements of the SQL storage (see :class:`~.interface.Storage`)."""

    def set_relation(self, player_id: str, other_id: str, kind: str, on: bool,
                     at: int) -> bool:
        if kind not in RELATIONS:
            raise ValueError(f"a relation is one of {RELATIONS}, not {kind!r}")
        with self._transaction() as cursor:
            if on:
                cursor.execute(self._sql(
                    "INSERT INTO relations (player_id, other_id, kind, at) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (player_id, kind, other_id) DO NOTHING"),
                    (player_id, other_id, kind, int(at)))
            else:
                cursor.execute(self._sql("DELETE FROM relations WHERE player_id = ? AND "
                                         "other_id = ? AND kind = ?"),
                               (player_id, other_id, kind))
            return bool(cursor.rowcount == 1)

    def relations_of(self, player_id: str, kind: str, limit: int = 500) -> list[str]:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT other_id FROM relations WHERE player_id = ? AND "
                                     "kind = ? ORDER BY at, other_id LIMIT ?"),
                           (player_id, kind, int(limit)))
            return [str(row[0]) for row in cursor.fetchall()]

    def related_to(self, other_id: str, kind: str, limit: int = 500) -> list[str]:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT player_id FROM relations WHERE other_id = ? AND "
                                     "kind = ? ORDER BY at, player_id LIMIT ?"),
                           (other_id, kind, int(limit)))
            return [str(row[0]) for row in cursor.fetchall()]

    def blocked_between(self, pairs: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
        with self._transaction() as cursor:
            for first, second in sorted(set(pairs))[:500]:  # a bounded question
                cursor.execute(self._sql(
                    "SELECT 1 FROM relations WHERE kind = 'block' AND ((player_id = ? AND "
                    "other_id = ?) OR (player_id = ? AND other_id = ?)) LIMIT 1"),
                    (first, second, second, first))
                if cursor.fetchone() is not None:
                    found.add((first, second))
        return found

    def mute_chat(self, player_id: str, game_id: str, on: bool) -> None:
        with self._transaction() as cursor:
            if on:
                cursor.execute(self._sql("INSERT INTO muted_chats (player_id, game_id) "
                                         "VALUES (?, ?) ON CONFLICT DO NOTHING"),
                               (player_id, game_id))
            else:
                cursor.execute(self._sql("DELETE FROM muted_chats WHERE player_id = ? AND "
                                         "game_id = ?"), (player_id, game_id))

    def chat_muters(self, game_id: str, player_ids: Sequence[str]) -> set[str]:
        wanted = sorted(set(player_ids))
        if not wanted:
            return set()
        marks = ",".join("?" * len(wanted))
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT player_id FROM muted_chats WHERE player_id IN "
                                     f"({marks}) AND game_id = ?"), (*wanted, game_id))
            return {str(row[0]) for row in cursor.fetchall()}

    def chat_muted(self, player_id: str, game_id: str) -> bool:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT 1 FROM muted_chats WHERE player_id = ? AND "
                                     "game_id = ?"), (player_id, game_id))
            return cursor.fetchone() is not None
