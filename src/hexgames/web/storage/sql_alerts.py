"""Turn emails in SQL: a player's address, opt-in and language, and the once-only mark of
each email.

A turn email is claimed before it is sent (:meth:`AlertTables.claim_turn_email`): the
primary key ``(game_id, ply)`` of ``turn_emails`` lets exactly one claim of a game's turn
succeed, whichever processes try, and the rows of the last hour bound a player's emails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hexgames.web.storage.records import AlertSettings
from hexgames.web.storage.sql_connection import SqlConnection

_COLUMNS = "player_id, email, verified, turn_emails, updated_at, language"
#: A new language replaces the stored one; none given keeps it.
_KEEP_LANGUAGE = "language = COALESCE(excluded.language, player_alerts.language)"


def _settings_from_row(row: Sequence[Any] | None) -> AlertSettings | None:
    if row is None:
        return None
    return AlertSettings(player_id=row[0], email=row[1], verified=bool(row[2]),
                         turn_emails=bool(row[3]), updated_at=row[4], language=row[5])


class AlertTables(SqlConnection):
    """The turn-email statements of the SQL storage (see :class:`~.interface.Storage`)."""

    def alert_settings(self, player_id: str) -> AlertSettings | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_COLUMNS} FROM player_alerts "
                                     "WHERE player_id = ?"), (player_id,))
            return _settings_from_row(cursor.fetchone())

    def set_alert_email(self, player_id: str, email: str | None, verify_hash: str | None,
                        at: str, language: str | None = None) -> None:
        with self._transaction() as cursor:
            # A new address (or none) is unverified; without one nothing can be sent.
            cursor.execute(
                self._sql("INSERT INTO player_alerts (player_id, email, verified, turn_emails, "
                          "verify_hash, updated_at, language) VALUES (?, ?, 0, 0, ?, ?, ?) "
                          "ON CONFLICT (player_id) DO UPDATE SET email = excluded.email, "
                          "verified = 0, verify_hash = excluded.verify_hash, "
                          "updated_at = excluded.updated_at, "
                          f"{_KEEP_LANGUAGE}"),
                (player_id, email, verify_hash, at, language),
            )
            if email is None:
                cursor.execute(self._sql("UPDATE player_alerts SET turn_emails = 0 "
                                         "WHERE player_id = ?"), (player_id,))

    def set_turn_emails(self, player_id: str, on: bool, at: str,
                        language: str | None = None) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("INSERT INTO player_alerts (player_id, email, verified, turn_emails, "
                          "verify_hash, updated_at, language) VALUES (?, NULL, 0, ?, NULL, ?, ?) "
                          "ON CONFLICT (player_id) DO UPDATE SET turn_emails = "
                          "excluded.turn_emails, updated_at = excluded.updated_at, "
                          f"{_KEEP_LANGUAGE}"),
                (player_id, int(on), at, language),
            )

    def verify_alert_email(self, verify_hash: str, at: str) -> str | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT player_id FROM player_alerts WHERE verify_hash = ? "
                                     "AND email IS NOT NULL"), (verify_hash,))
            row = cursor.fetchone()
            if row is None:
                return None
            cursor.execute(
                self._sql("UPDATE player_alerts SET verified = 1, verify_hash = NULL, "
                          "updated_at = ? WHERE player_id = ? AND verify_hash = ?"),
                (at, row[0], verify_hash),
            )
            return str(row[0]) if cursor.rowcount else None

    def claim_turn_email(self, game_id: str, ply: int, player_id: str, at: str,
                         since: str, limit: int, forget_before: str) -> bool:
        with self._transaction() as cursor:
            cursor.execute(self._sql("DELETE FROM turn_emails WHERE player_id = ? "
                                     "AND sent_at < ?"), (player_id, forget_before))
            cursor.execute(self._sql("SELECT COUNT(*) FROM turn_emails WHERE player_id = ? "
                                     "AND sent_at >= ?"), (player_id, since))
            if int(cursor.fetchone()[0]) >= limit:
                return False
            cursor.execute(
                self._sql("INSERT INTO turn_emails (game_id, ply, player_id, sent_at) "
                          "VALUES (?, ?, ?, ?) ON CONFLICT (game_id, ply) DO NOTHING"),
                (game_id, ply, player_id, at),
            )
            return bool(cursor.rowcount)
