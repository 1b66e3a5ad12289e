"""Rate limits shared by every server process, in SQL (``rate_limits``).

A row per key counts the hits of the key's current window. A hit is one upsert: a new
key, or one whose window ended, starts a window of one hit; any other hit adds one. The
upsert is atomic in both databases (PostgreSQL locks the row; SQLite has one writer), so
two processes counting the same key at once never lose a hit, and every process reads
the same count (:mod:`hexgames.web.storage.site_limits` compares it with the limit).
"""

from __future__ import annotations

from hexgames.web.storage.sql_connection import SqlConnection

#: A hit: a new window when the stored one has ended (``excluded`` is the row offered;
#: the SET expressions read the stored row as it was, in both databases).
_HIT = (
    "INSERT INTO rate_limits (key, started, expires, hits) VALUES (?, ?, ?, 1) "
    "ON CONFLICT (key) DO UPDATE SET "
    "hits = CASE WHEN rate_limits.expires <= excluded.started THEN 1 "
    "ELSE rate_limits.hits + 1 END, "
    "started = CASE WHEN rate_limits.expires <= excluded.started THEN excluded.started "
    "ELSE rate_limits.started END, "
    "expires = CASE WHEN rate_limits.expires <= excluded.started THEN excluded.expires "
    "ELSE rate_limits.expires END "
    "RETURNING hits, expires"
)
#: Milliseconds between two prunings of ended windows by one process.
PRUNE_EVERY_MS = 60_000
#: Rows deleted by one pruning at most (bounded statements; the next one goes on).
PRUNE_BATCH = 5000


class LimitTables(SqlConnection):
    """The rate-limit statements of the SQL storage (see :class:`~.interface.Storage`)."""

    _pruned_at = 0

    def limit_hit(self, key: str, window_ms: int, now_ms: int) -> tuple[int, int]:
        with self._transaction() as cursor:
            cursor.execute(self._sql(_HIT), (key, int(now_ms), int(now_ms) + int(window_ms)))
            hits, expires = cursor.fetchone()
            if now_ms - self._pruned_at >= PRUNE_EVERY_MS:
                self._pruned_at = int(now_ms)
                cursor.execute(self._sql(
                    "DELETE FROM rate_limits WHERE key IN (SELECT key FROM rate_limits "
                    f"WHERE expires <= ? LIMIT {PRUNE_BATCH})"), (int(now_ms),))
        return int(hits), int(expires)

    def limit_count(self, key: str, now_ms: int) -> tuple[int, int]:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT hits, expires FROM rate_limits WHERE key = ? "
                                     "AND expires > ?"), (key, int(now_ms)))
            row = cursor.fetchone()
        return (int(row[0]), int(row[1])) if row else (0, int(now_ms))

    def limit_rows(self) -> int:
        with self._transaction() as cursor:
            cursor.execute("SELECT COUNT(*) FROM rate_limits")
            return int(cursor.fetchone()[0])
