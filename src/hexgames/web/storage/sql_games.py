"""Games in SQL: the ``games`` row, its actions in ``moves``, its seats in ``game_players``.

Two rules keep several writers (requests, server processes) from corrupting a game:
an action is stored only at the ply that follows the stored ones, so the list of actions
always replays; and every write of the row adds one to its ``version``, so a writer can
make its write conditional on the version it read (:class:`MetaConflict` otherwise).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from hexgames.phrases import N_, Phrase
from hexgames.web.storage.errors import MetaConflict, StaleWrite
from hexgames.web.storage.meta import GameMeta, Mode, SeatPlayer
from hexgames.web.storage.records import (
    MoveWrite,
    StoredGame,
    StoredMove,
    hashed,
    seat_holders,
)
from hexgames.web.storage.sql_connection import SqlConnection
from hexgames.web.storage.sql_presence import PRESENCE_UPSERT

GAME_COLUMNS = (
    "id, game, options, mode, players, seat_tokens, status, winner, reason, "
    "created_at, updated_at, start, rated, meta, version"
)
_INSERT_MOVE = "INSERT INTO moves (game_id, ply, action, played_at) VALUES (?,?,?,?)"
#: An action is stored only at the ply that follows the stored ones (so that two writers
#: can never leave a gap or a fork: the list of actions always replays).
_APPEND_MOVE = (
    "INSERT INTO moves (game_id, ply, action, played_at) SELECT ?, ?, ?, ? "
    "WHERE (SELECT COALESCE(MAX(ply), -1) FROM moves WHERE game_id = ?) = ?"
)


def _deadline(meta: GameMeta) -> int | None:
    """The flag-fall deadline kept in a column of its own, so running clocks are found
    by a query (:meth:`GameTables.clocked_games`) without reading every game's meta."""
    return None if meta.deadline is None else int(meta.deadline)


def meta_json(meta: GameMeta) -> str:
    """The stored form of a game's meta (the JSON object it always was)."""
    return json.dumps(meta.to_dict())


def meta_of(text: str | None) -> GameMeta:
    """A game's meta from its stored form (``NULL`` or empty: none)."""
    return GameMeta.from_dict(json.loads(text) if text else None)


def move_assignments(move: MoveWrite, meta: GameMeta | None
                      ) -> tuple[str, tuple[Any, ...]]:
    """The ``SET`` of a move's write of the game's row (without the version) and its
    values: the time, the meta it changed (``meta``), the end it made."""
    assignments, values = ["updated_at = ?"], [move.at]  # type: list[str], list[Any]
    if meta is not None:
        assignments.append("meta = ?, deadline = ?")
        values += [meta_json(meta), _deadline(meta)]
    if move.ended:
        assignments.append("status = 'over', winner = ?, reason = ?")
        values += [move.winner, move.reason]
    return ", ".join(assignments), tuple(values)


def outcome_of(store: Callable[[MoveWrite], StoredMove], move: MoveWrite
               ) -> StoredMove | Exception:
    """``store(move)``, or the exception it raised (a move of a batch fails alone)."""
    try:
        return store(move)
    except Exception as error:
        return error


def game_from_row(row: Sequence[Any]) -> StoredGame:
    """A :class:`StoredGame` (without actions) from a row of :data:`GAME_COLUMNS`."""
    return StoredGame(
        id=row[0],
        game=row[1],
        options=json.loads(row[2]),
        mode=Mode(row[3]),
        players=json.loads(row[4]),
        seat_tokens=json.loads(row[5]),
        status=row[6],
        winner=row[7],
        reason=row[8],
        created_at=row[9],
        updated_at=row[10],
        start=row[11],
        rated=bool(row[12]),
        meta=meta_of(row[13]),
        version=int(row[14] or 0),
    )


#: How many conditional lines a game holds, read with each move (:class:`StoredMove`).
LINES_HELD = "SELECT count(*) FROM conditional_lines WHERE game_id = ?"

class GameTables(SqlConnection):
    """The game statements of the SQL storage (see :class:`~.interface.Storage` for what
    each method promises)."""

    # ------------------------------------------------------------ creating games
    def create_game(self, game: StoredGame) -> None:
        with self._transaction() as cursor:
            self._insert_game(cursor, game)

    def _insert_game(self, cursor: Any, game: StoredGame) -> None:
        """The row, its seat holders and its initial actions, in the caller's transaction
        (a rematch or an accepted challenge stores its game with another change)."""
        cursor.execute(
            self._sql(f"INSERT INTO games ({GAME_COLUMNS}, deadline) "
                      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
            (
                game.id,
                game.game,
                json.dumps(game.options, sort_keys=True),
                game.mode,
                json.dumps(game.players),
                json.dumps([hashed(token) for token in game.seat_tokens]),
                game.status,
                game.winner,
                game.reason,
                game.created_at,
                game.updated_at,
                game.start,
                1 if game.rated else 0,
                meta_json(game.meta),
                int(game.version),
                _deadline(game.meta),
            ),
        )
        self._write_seat_holders(cursor, game.id, game.players)
        if game.mode == "online" and game.status == "playing":
            # A game started: the other processes tell the followers of its players.
            self._notify(cursor, game.id, "started", -1)
        if game.actions:
            cursor.executemany(
                self._sql(_INSERT_MOVE),
                [(game.id, ply, action, game.created_at)
                 for ply, action in enumerate(game.actions)],
            )

    def _write_seat_holders(self, cursor: Any, game_id: str,
                            players: Sequence[SeatPlayer]) -> None:
        """Keep ``game_players`` in step with the row's ``players``."""
        cursor.execute(self._sql("DELETE FROM game_players WHERE game_id = ?"), (game_id,))
        holders = seat_holders(players)
        if holders:
            cursor.executemany(
                self._sql("INSERT INTO game_players (game_id, seat, player_id) VALUES (?,?,?)"),
                [(game_id, seat, player_id) for seat, player_id in holders],
            )

    # ------------------------------------------------------------- reading games
    def load_game(self, game_id: str) -> StoredGame | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?"), (game_id,))
            row = cursor.fetchone()
            if row is None:
                return None
            game = game_from_row(row)
            cursor.execute(
                self._sql("SELECT action FROM moves WHERE game_id = ? ORDER BY ply"), (game_id,)
            )
            game.actions = [r[0] for r in cursor.fetchall()]
            return game

    def load_tail(self, game_id: str, since: int) -> tuple[StoredGame, int] | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?"), (game_id,))
            row = cursor.fetchone()
            if row is None:
                return None
            game = game_from_row(row)
            cursor.execute(
                self._sql("SELECT ply, action FROM moves WHERE game_id = ? AND ply >= ? "
                          "ORDER BY ply"),
                (game_id, since),
            )
            rows = cursor.fetchall()
            game.actions = [r[1] for r in rows]
            if rows:
                return game, int(rows[-1][0]) + 1
            cursor.execute(
                self._sql("SELECT COALESCE(MAX(ply), -1) FROM moves WHERE game_id = ?"),
                (game_id,),
            )
            return game, int(cursor.fetchone()[0]) + 1

    def list_games(self, limit: int = 50) -> list[StoredGame]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(
                    f"SELECT {GAME_COLUMNS} FROM games ORDER BY updated_at DESC, id LIMIT ?"
                ),
                (limit,),
            )
            return [game_from_row(row) for row in cursor.fetchall()]

    def games_with_status(self, status: str, limit: int = 200) -> list[StoredGame]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {GAME_COLUMNS} FROM games WHERE status = ? "
                          "ORDER BY updated_at DESC, id LIMIT ?"),
                (status, limit),
            )
            return [game_from_row(row) for row in cursor.fetchall()]

    def clocked_games(self) -> list[tuple[str, int]]:
        with self._transaction() as cursor:
            cursor.execute(
                "SELECT id, deadline FROM games WHERE status = 'playing' AND deadline IS NOT NULL"
            )
            return [(row[0], int(row[1])) for row in cursor.fetchall()]

    def unopened_games(self, created_before: str, limit: int, correspondence: bool
                       ) -> list[tuple[str, GameMeta]]:
        kind = "" if correspondence else "NOT "
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("SELECT id, meta FROM games WHERE status = 'playing' "
                          "AND mode = 'online' AND players LIKE ? AND created_at < ? "
                          f"AND COALESCE(meta, '') {kind}LIKE ? ORDER BY created_at, id LIMIT ?"),
                ('%"invite": "open"%', created_before, '%"kind": "correspondence"%', limit),
            )
            return [(row[0], meta_of(row[1])) for row in cursor.fetchall()]

    # ------------------------------------------------------------ storing actions
    def append_actions(self, game_id: str, first_ply: int, actions: Sequence[str], at: str,
                       seen: tuple[int, int] | None = None) -> int:
        return self.store_move(MoveWrite(game_id, first_ply, tuple(actions), at, seen)).version

    def store_move(self, move: MoveWrite) -> StoredMove:
        done = self._store_move_at_once(move)
        if done is not None:
            return done
        with self._transaction() as cursor:
            return self._store_move(cursor, move)

    def store_moves(self, moves: Sequence[MoveWrite]) -> list[StoredMove | Exception]:
        # Each its own transaction: SQLite's commits do not wait for the disk (WAL,
        # synchronous=NORMAL), so there is no flush to share.
        return [outcome_of(self.store_move, move) for move in moves]

    def _store_move_at_once(self, move: MoveWrite) -> StoredMove | None:
        """Hook: store the usual move (the row as its writer held it) in one round trip
        and one commit, or return ``None`` having stored nothing (then
        :meth:`_store_move` does it in a transaction). SQLite has no round trips to
        save: its transaction is in-process."""
        return None

    def _store_move(self, cursor: Any, move: MoveWrite) -> StoredMove:
        """A move in the caller's transaction (see :meth:`Storage.store_move`)."""
        game_id, at = move.game_id, move.at
        meta = None
        if move.change is not None:
            # The stored meta under the row's lock (FOR UPDATE): a takeback offer written
            # meanwhile through another process is kept, the clock never turned back.
            cursor.execute(self._sql("SELECT status, meta FROM games WHERE id = ?"
                                     + self.for_update), (game_id,))
            row = cursor.fetchone()
            if row is not None and row[0] == "playing":
                meta = meta_of(row[1])
                move.change(meta)
        assignments, values = move_assignments(move, meta)
        # The row first, touched only while the game is being played: that write locks
        # it, so an end stored meanwhile (a claim, a flag fall on another process) makes
        # this action too late, and one stored after waits for this one and finds the
        # version moved (issue 39, row 2).
        cursor.execute(
            self._sql(f"UPDATE games SET {assignments}, version = version + 1 "
                      "WHERE id = ? AND status = 'playing' RETURNING version"),
            (*values, game_id),
        )
        touched = cursor.fetchall()
        if not touched:
            cursor.execute(self._sql("SELECT 1 FROM games WHERE id = ?"), (game_id,))
            if cursor.fetchone() is not None:
                raise StaleWrite(N_("the game ended before this action was stored; "
                                    "reload the game"))
        new = int(touched[0][0]) if touched else -1
        for offset, action in enumerate(move.actions):
            ply = move.first_ply + offset
            cursor.execute(
                self._sql(_APPEND_MOVE), (game_id, ply, action, at, game_id, ply - 1)
            )
            if cursor.rowcount != 1:
                raise StaleWrite(Phrase(
                    "action {number} was not stored: the stored game does not end at "
                    "ply {ply} (changed by another server?); reload the game",
                    number=ply + 1, ply=ply))
        if move.seen is not None:  # the mover was here: in the same commit as its action
            cursor.execute(self._sql(PRESENCE_UPSERT),
                           (game_id, int(move.seen[0]), int(move.seen[1])))
        # ``turn``: actions and a meta change (the turn passed: turn alerts), one note.
        self._notify(cursor, game_id, "append" if meta is None else "turn",
                     move.first_ply + len(move.actions))
        if move.ended:  # the other processes read the whole game again, as for an end
            self._notify(cursor, game_id, "row", -1)
        cursor.execute(self._sql(LINES_HELD), (game_id,))
        return StoredMove(new, meta, int(cursor.fetchone()[0]))

    def truncate_actions(self, game_id: str, keep: int, at: str) -> int:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("DELETE FROM moves WHERE game_id = ? AND ply >= ?"), (game_id, keep)
            )
            new = self._write_row(cursor, game_id, "updated_at = ?", (at,), None)
            self._notify(cursor, game_id, "reset", keep)
            return new

    # ------------------------------------------------------ writing the game's row
    def _write_row(self, cursor: Any, game_id: str, assignments: str,
                   values: Sequence[Any], version: int | None) -> int:
        """``UPDATE`` the game's row (``assignments``: ``column = ?, ...``), adding one
        to its version, and return the new version. With ``version``, only if the row is
        still at that version (the one its writer read; PostgreSQL's row lock makes the
        second of two concurrent writers see the first one's version): else
        :class:`MetaConflict` and nothing is written. Without, -1 for a missing game."""
        where = "WHERE id = ?" if version is None else "WHERE id = ? AND version = ?"
        params = (*values, game_id) if version is None else (*values, game_id, version)
        cursor.execute(
            self._sql(f"UPDATE games SET {assignments}, version = version + 1 {where} "
                      "RETURNING version"),
            params,
        )
        rows = cursor.fetchall()
        if not rows:
            if version is None:
                return -1
            raise MetaConflict(N_("the game was changed meanwhile (by another request or "
                                  "server); reload it and try again"))
        return int(rows[0][0])

    def finish_game(self, game_id: str, winner: str | None, reason: str | None, at: str) -> int:
        status = "playing" if winner is None and reason is None else "over"
        with self._transaction() as cursor:
            new = self._write_row(cursor, game_id,
                                  "status = ?, winner = ?, reason = ?, updated_at = ?",
                                  (status, winner, reason, at), None)
            if status == "playing":  # reopened (an undo): its filed results are void
                cursor.execute(self._sql("DELETE FROM game_results WHERE game_id = ?"),
                               (game_id,))
            self._notify(cursor, game_id, "row", -1)
            return new

    def set_seats(self, game_id: str, players: list[SeatPlayer],
                  seat_tokens: list[str | None], at: str, version: int | None = None) -> int:
        with self._transaction() as cursor:
            new = self._write_row(cursor, game_id, "players = ?, seat_tokens = ?, updated_at = ?",
                                  (json.dumps(players),
                                   json.dumps([hashed(t) for t in seat_tokens]), at), version)
            self._write_seat_holders(cursor, game_id, players)
            self._notify(cursor, game_id, "row", -1)
            return new

    def set_meta(self, game_id: str, meta: GameMeta, at: str,
                 version: int | None = None, keep: int | None = None,
                 new_game: StoredGame | None = None) -> int:
        with self._transaction() as cursor:
            new = self._write_row(cursor, game_id, "meta = ?, deadline = ?, updated_at = ?",
                                  (meta_json(meta), _deadline(meta), at), version)
            if keep is not None:
                cursor.execute(self._sql("DELETE FROM moves WHERE game_id = ? AND ply >= ?"),
                               (game_id, keep))
                self._notify(cursor, game_id, "reset", keep)
            else:
                self._notify(cursor, game_id, "meta", -1)
            if new_game is not None:
                self._insert_game(cursor, new_game)
                self._notify(cursor, "", "lobby", -1)
            return new

    def update_meta(self, game_id: str, change: Callable[[GameMeta], None], at: str,
                    plies: int | None = None, status: str | None = None,
                    ) -> StoredGame | None:
        with self._transaction() as cursor:
            # FOR UPDATE: a concurrent conditional write waits, then finds a new version.
            cursor.execute(
                self._sql(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?{self.for_update}"),
                (game_id,),
            )
            row = cursor.fetchone()
            if row is None:
                return None
            game = game_from_row(row)
            if status is not None and game.status != status:
                return None
            if plies is not None:
                cursor.execute(
                    self._sql("SELECT COALESCE(MAX(ply), -1) + 1 FROM moves WHERE game_id = ?"),
                    (game_id,),
                )
                if int(cursor.fetchone()[0]) != plies:
                    return None
            change(game.meta)
            game.version = self._write_row(
                cursor, game_id, "meta = ?, deadline = ?, updated_at = ?",
                (meta_json(game.meta), _deadline(game.meta), at), game.version)
            game.updated_at = at
            self._notify(cursor, game_id, "meta", -1)
            return game

    def end_if_playing(self, game_id: str, winner: str | None, reason: str,
                       meta: GameMeta, at: str, version: int | None = None) -> bool:
        condition = "" if version is None else " AND version = ?"
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE games SET status = 'over', winner = ?, reason = ?, meta = ?, "
                          "deadline = NULL, updated_at = ?, version = version + 1 "
                          f"WHERE id = ? AND status = 'playing'{condition}"),
                (winner, reason, meta_json(meta), at, game_id,
                 *(() if version is None else (version,))),
            )
            done = cursor.rowcount == 1
            if done:
                self._notify(cursor, game_id, "row", -1)
            return done
