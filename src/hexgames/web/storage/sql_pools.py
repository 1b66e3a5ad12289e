"""Quick-pairing pools in SQL: the players waiting (``pool_entries``) and a pairing.

Two rules make the pools safe with any number of server processes: a player waits in one
pool at most (joining takes them out of any other in the same transaction, and a partial
unique index on ``player_id`` among waiting entries refuses a second one), and a pairing
is one transaction that moves both entries from ``waiting`` to ``paired`` with a
conditional ``UPDATE`` and stores the game only when both moved, so an entry is paired
once, whichever processes match at the same time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hexgames.web.storage.errors import PairingTaken
from hexgames.web.storage.records import PoolEntry, StoredGame, hashed
from hexgames.web.storage.sql_games import GameTables

_COLUMNS = ("id, pool, rated, player_id, name, rating, token, origin, status, game_id, "
            "joined_at, seen_at")


def _entry_from_row(row: Sequence[Any]) -> PoolEntry:
    return PoolEntry(
        id=row[0], pool=row[1], rated=bool(row[2]), player_id=row[3], name=row[4],
        rating=float(row[5]), token=row[6], origin=row[7], status=row[8], game_id=row[9],
        joined_at=int(row[10]), seen_at=int(row[11]),
    )


class PoolTables(GameTables):
    """The pool statements of the SQL storage (see :class:`~.interface.Storage`).

    Built on :class:`GameTables` because a pairing stores its game in the same
    transaction."""

    def join_pool(self, entry: PoolEntry) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE pool_entries SET status = 'left' "
                          "WHERE player_id = ? AND status = 'waiting'"),
                (entry.player_id,),
            )
            cursor.execute(
                self._sql(f"INSERT INTO pool_entries ({_COLUMNS}) "
                          "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"),
                (entry.id, entry.pool, int(entry.rated), entry.player_id, entry.name,
                 float(entry.rating), hashed(entry.token), entry.origin, entry.status,
                 entry.game_id, int(entry.joined_at), int(entry.seen_at)),
            )

    def pool_entry(self, entry_id: str) -> PoolEntry | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_COLUMNS} FROM pool_entries WHERE id = ?"),
                           (entry_id,))
            row = cursor.fetchone()
            return None if row is None else _entry_from_row(row)

    def latest_pool_entry(self, player_id: str) -> PoolEntry | None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_COLUMNS} FROM pool_entries WHERE player_id = ? "
                          "ORDER BY CASE WHEN status = 'waiting' THEN 0 ELSE 1 END, "
                          "joined_at DESC, id LIMIT 1"),
                (player_id,),
            )
            row = cursor.fetchone()
            return None if row is None else _entry_from_row(row)

    def waiting_pool_entries(self, limit: int) -> list[PoolEntry]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_COLUMNS} FROM pool_entries WHERE status = 'waiting' "
                          "ORDER BY joined_at, id LIMIT ?"),
                (limit,),
            )
            return [_entry_from_row(row) for row in cursor.fetchall()]

    def touch_pool_entry(self, entry_id: str, seen_at: int) -> bool:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE pool_entries SET seen_at = ? "
                          "WHERE id = ? AND status = 'waiting' AND seen_at < ?"),
                (int(seen_at), entry_id, int(seen_at)),
            )
            return bool(cursor.rowcount == 1)

    def leave_pool(self, player_id: str) -> bool:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE pool_entries SET status = 'left' "
                          "WHERE player_id = ? AND status = 'waiting'"),
                (player_id,),
            )
            return bool(cursor.rowcount)

    def drop_stale_pool_entries(self, seen_before: int, forget_before: int) -> int:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE pool_entries SET status = 'left' "
                          "WHERE status = 'waiting' AND seen_at < ?"),
                (int(seen_before),),
            )
            dropped = int(cursor.rowcount or 0)
            cursor.execute(
                self._sql("DELETE FROM pool_entries WHERE status <> 'waiting' "
                          "AND joined_at < ?"),
                (int(forget_before),),
            )
            return dropped

    def pair_pool_entries(self, first_id: str, second_id: str, game: StoredGame) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE pool_entries SET status = 'paired', game_id = ? "
                          "WHERE id IN (?, ?) AND status = 'waiting'"),
                (game.id, first_id, second_id),
            )
            if cursor.rowcount != 2 or first_id == second_id:
                # Rolled back by the raise: neither entry is paired, no game stored.
                raise PairingTaken("a player of this pairing is no longer waiting")
            self._insert_game(cursor, game)
            self._notify(cursor, "", "lobby", -1)
