"""Who was last seen in which online game, in SQL (``presence``), for absence claims.

A row per game and seat holds the last moment (ms since the epoch) any server process saw
that seat: a game socket of it open, or an action of it. Writes only move the time
forward (an upsert keeping the later of the two), so processes writing in any order agree
(:mod:`hexgames.web.play.absence` reads it to decide whether a player is really gone).
"""

from __future__ import annotations

from collections.abc import Sequence

from hexgames.web.storage.sql_connection import SqlConnection

#: Portable "the later of the two" (SQLite's ``max`` is PostgreSQL's ``GREATEST``).
PRESENCE_UPSERT = (
    "INSERT INTO presence (game_id, seat, seen_at) VALUES (?, ?, ?) "
    "ON CONFLICT (game_id, seat) DO UPDATE SET seen_at = CASE "
    "WHEN excluded.seen_at > presence.seen_at THEN excluded.seen_at "
    "ELSE presence.seen_at END"
)


class PresenceTables(SqlConnection):
    """The presence statements of the SQL storage (see :class:`~.interface.Storage`)."""

    def touch_presence(self, seen: Sequence[tuple[str, int, int]]) -> None:
        if not seen:
            return
        with self._transaction() as cursor:
            # In a fixed order: two processes touching the same rows never deadlock.
            cursor.executemany(self._sql(PRESENCE_UPSERT),
                               [(game_id, int(seat), int(at))
                                for game_id, seat, at in sorted(seen)])

    def presence(self, game_ids: Sequence[str]) -> dict[str, dict[int, int]]:
        found: dict[str, dict[int, int]] = {}
        ids = sorted(set(game_ids))
        with self._transaction() as cursor:
            for first in range(0, len(ids), 500):  # bounded statements
                chunk = ids[first:first + 500]
                marks = ",".join("?" * len(chunk))
                cursor.execute(self._sql(f"SELECT game_id, seat, seen_at FROM presence "
                                         f"WHERE game_id IN ({marks})"), chunk)
                for game_id, seat, at in cursor.fetchall():
                    found.setdefault(game_id, {})[int(seat)] = int(at)
        return found
