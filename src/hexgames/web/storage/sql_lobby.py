"""The lobby in SQL: open challenges (``seeks``) and the game an accepted one starts.

Each change of a challenge's status is a conditional ``UPDATE`` (``... AND status =
'open'``), so of two acceptors racing, in any server processes, exactly one gets a game.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hexgames.phrases import N_
from hexgames.web.storage.errors import SeekTaken
from hexgames.web.storage.records import Seek, StoredGame, hashed
from hexgames.web.storage.sql_games import GameTables

_SEEK_COLUMNS = (
    "id, game, options, control, color, rated, creator, creator_token, target, status, "
    "game_id, created_at"
)


def _seek_from_row(row: Sequence[Any]) -> Seek:
    return Seek(
        id=row[0], game=row[1], options=json.loads(row[2]), control=json.loads(row[3]),
        color=row[4], rated=bool(row[5]), creator=json.loads(row[6]),
        creator_token=row[7], target=row[8], status=row[9], game_id=row[10],
        created_at=row[11],
    )


class LobbyTables(GameTables):
    """The lobby statements of the SQL storage (see :class:`~.interface.Storage`).

    Built on :class:`GameTables` because accepting a challenge stores its game in the
    same transaction."""

    def create_seek(self, seek: Seek) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"INSERT INTO seeks ({_SEEK_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"),
                (seek.id, seek.game, json.dumps(seek.options, sort_keys=True),
                 json.dumps(seek.control), seek.color, int(seek.rated),
                 json.dumps(seek.creator), hashed(seek.creator_token), seek.target,
                 seek.status, seek.game_id, seek.created_at),
            )
            self._notify(cursor, "", "lobby", -1)

    def load_seek(self, seek_id: str) -> Seek | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_SEEK_COLUMNS} FROM seeks WHERE id = ?"),
                           (seek_id,))
            row = cursor.fetchone()
            return None if row is None else _seek_from_row(row)

    def open_seeks(self, limit: int = 200) -> list[Seek]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_SEEK_COLUMNS} FROM seeks WHERE status = 'open' "
                          "ORDER BY created_at, id LIMIT ?"),
                (limit,),
            )
            return [_seek_from_row(row) for row in cursor.fetchall()]

    def accept_seek(self, seek_id: str, game: StoredGame) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE seeks SET status = 'taken', game_id = ? "
                          "WHERE id = ? AND status = 'open'"),
                (game.id, seek_id),
            )
            if cursor.rowcount != 1:
                raise SeekTaken(N_("this challenge has already been accepted or withdrawn"))
            self._insert_game(cursor, game)
            self._notify(cursor, "", "lobby", -1)

    def expire_seek(self, seek_id: str) -> bool:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE seeks SET status = 'expired' WHERE id = ? AND status = 'open'"),
                (seek_id,),
            )
            done = cursor.rowcount == 1
            if done:
                self._notify(cursor, "", "lobby", -1)
            return done

    def cancel_seek(self, seek_id: str, creator_token: str) -> bool:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE seeks SET status = 'cancelled' "
                          "WHERE id = ? AND status = 'open' AND creator_token = ?"),
                (seek_id, hashed(creator_token)),
            )
            done = cursor.rowcount == 1
            if done:
                self._notify(cursor, "", "lobby", -1)
            return done
