"""Identities in SQL: players, the hashed secrets of their browsers, and site secrets.

Names are unique twice over: ``name_key`` (case-folded) by a UNIQUE constraint, whose
violation arrives as :class:`StaleWrite` and leaves as :class:`NameTaken`, and
``name_skeleton`` (the look-alike form) checked in the renaming transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hexgames.phrases import Phrase
from hexgames.web.storage.confusables import skeleton
from hexgames.web.storage.errors import NameLookAlike, NameTaken, StaleWrite
from hexgames.web.storage.records import PlayerRecord, StoredGame, name_key
from hexgames.web.storage.sql_games import GAME_COLUMNS, GameTables, game_from_row

_PLAYER_COLUMNS = "id, name, created_at, password"


def _player_from_row(row: Sequence[Any] | None) -> PlayerRecord | None:
    if row is None:
        return None
    return PlayerRecord(id=row[0], name=row[1], created_at=row[2], password=row[3])


class PlayerTables(GameTables):
    """The identity statements of the SQL storage (see :class:`~.interface.Storage`).

    Built on :class:`GameTables` for a player's games (``game_players`` joined to
    ``games``)."""

    # ------------------------------------------------------ players and browsers
    def create_player(self, player: PlayerRecord, secret_hash: str) -> None:
        try:
            with self._transaction() as cursor:
                cursor.execute(
                    self._sql("INSERT INTO players (id, name, name_key, password, created_at, "
                              "name_skeleton) VALUES (?,?,?,?,?,?)"),
                    (player.id, player.name, name_key(player.name), player.password,
                     player.created_at, skeleton(player.name)),
                )
                cursor.execute(
                    self._sql("INSERT INTO player_sessions (secret_hash, player_id, created_at) "
                              "VALUES (?,?,?)"),
                    (secret_hash, player.id, player.created_at),
                )
        except StaleWrite:
            raise NameTaken(Phrase("the name {name} is taken", name=repr(player.name))) from None

    def add_session(self, secret_hash: str, player_id: str, at: str) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("INSERT INTO player_sessions (secret_hash, player_id, created_at) "
                          "VALUES (?,?,?)"),
                (secret_hash, player_id, at),
            )

    def delete_session(self, secret_hash: str) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("DELETE FROM player_sessions WHERE secret_hash = ?"), (secret_hash,)
            )

    def player_by_session(self, secret_hash: str) -> PlayerRecord | None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("SELECT p.id, p.name, p.created_at, p.password FROM players p "
                          "JOIN player_sessions s ON s.player_id = p.id "
                          "WHERE s.secret_hash = ?"),
                (secret_hash,),
            )
            return _player_from_row(cursor.fetchone())

    def player_by_id(self, player_id: str) -> PlayerRecord | None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_PLAYER_COLUMNS} FROM players WHERE id = ?"),
                (player_id,),
            )
            return _player_from_row(cursor.fetchone())

    def player_by_name(self, name: str) -> PlayerRecord | None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_PLAYER_COLUMNS} FROM players WHERE name_key = ?"),
                (name_key(name),),
            )
            return _player_from_row(cursor.fetchone())

    def player_names(self, player_ids: Sequence[str]) -> dict[str, str]:
        wanted = sorted(set(player_ids))
        if not wanted:
            return {}
        marks = ",".join("?" * len(wanted))
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT id, name FROM players WHERE id IN ({marks})"), tuple(wanted)
            )
            return {row[0]: row[1] for row in cursor.fetchall()}

    def rename_player(self, player_id: str, name: str) -> None:
        look = skeleton(name)
        try:
            with self._transaction() as cursor:
                cursor.execute(
                    self._sql("SELECT name FROM players WHERE name_skeleton = ? AND id <> ? "
                              "AND name_key <> ?"),
                    (look, player_id, name_key(name)),
                )
                row = cursor.fetchone()
                if row is not None:
                    raise NameLookAlike(name, row[0])
                cursor.execute(
                    self._sql("UPDATE players SET name = ?, name_key = ?, name_skeleton = ? "
                              "WHERE id = ?"),
                    (name, name_key(name), look, player_id),
                )
        except StaleWrite:
            raise NameTaken(Phrase("the name {name} is taken", name=repr(name))) from None

    def set_password(self, player_id: str, password_hash: str | None) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE players SET password = ? WHERE id = ?"),
                (password_hash, player_id),
            )

    def change_password(self, player_id: str, password_hash: str, keep_session: str | None
                        ) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE players SET password = ? WHERE id = ?"),
                (password_hash, player_id),
            )
            cursor.execute(
                self._sql("DELETE FROM player_sessions WHERE player_id = ? "
                          "AND secret_hash <> ?"),
                (player_id, keep_session or ""),
            )

    def games_of_player(self, player_id: str, limit: int = 100) -> list[StoredGame]:
        columns = ", ".join(f"g.{column.strip()}" for column in GAME_COLUMNS.split(","))
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(
                    f"SELECT DISTINCT {columns} FROM games g "
                    "JOIN game_players gp ON gp.game_id = g.id WHERE gp.player_id = ? "
                    "ORDER BY g.updated_at DESC, g.id LIMIT ?"
                ),
                (player_id, limit),
            )
            return [game_from_row(row) for row in cursor.fetchall()]

    # ------------------------------------------------------ removing idle guests
    def delete_idle_guests(self, created_before: str, aborted_reason: str, limit: int
                           ) -> list[str]:
        idle = (
            "p.name LIKE ? AND p.password IS NULL AND p.created_at < ? "
            "AND NOT EXISTS (SELECT 1 FROM player_sessions s WHERE s.player_id = p.id "
            "AND s.created_at >= ?) "
            "AND NOT EXISTS (SELECT 1 FROM game_players gp JOIN games g ON g.id = gp.game_id "
            "WHERE gp.player_id = p.id AND NOT (g.status = 'over' AND g.winner IS NULL "
            "AND g.reason = ?)) "
            "AND NOT EXISTS (SELECT 1 FROM seeks k WHERE k.status = 'open' "
            "AND k.creator LIKE ? || p.id || ?)"
        )
        args = ("Guest-%", created_before, created_before, aborted_reason, "%", "%")
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT p.id FROM players p WHERE {idle} "
                                     "ORDER BY p.created_at, p.id LIMIT ?"), (*args, limit))
            ids = [str(row[0]) for row in cursor.fetchall()]
            if not ids:
                return []
            marks = ",".join("?" * len(ids))
            # Checked again as it is deleted (another process may have seated one since).
            cursor.execute(self._sql(f"DELETE FROM players WHERE id IN ({marks}) AND id IN "
                                     f"(SELECT p.id FROM players p WHERE {idle})"),
                           (*ids, *args))
            cursor.execute(self._sql(f"SELECT id FROM players WHERE id IN ({marks})"), tuple(ids))
            kept = {str(row[0]) for row in cursor.fetchall()}
            gone = [player_id for player_id in ids if player_id not in kept]
            if gone:
                marks = ",".join("?" * len(gone))
                for table in ("player_sessions", "ratings", "game_players", "game_results"):
                    cursor.execute(self._sql(f"DELETE FROM {table} WHERE player_id IN ({marks})"),
                                   tuple(gone))
            return gone

    # ------------------------------------------------------------- site values
    def site_secret(self, name: str, make: Callable[[], str]) -> str:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("INSERT INTO site_secrets (name, value) VALUES (?, ?) "
                          "ON CONFLICT (name) DO NOTHING"),
                (name, make()),
            )
            cursor.execute(self._sql("SELECT value FROM site_secrets WHERE name = ?"), (name,))
            return str(cursor.fetchone()[0])

    def site_value(self, name: str) -> str | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT value FROM site_secrets WHERE name = ?"), (name,))
            row = cursor.fetchone()
            return None if row is None else str(row[0])

    def set_site_value(self, name: str, value: str) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("INSERT INTO site_secrets (name, value) VALUES (?, ?) "
                          "ON CONFLICT (name) DO UPDATE SET value = excluded.value"),
                (name, value),
            )
