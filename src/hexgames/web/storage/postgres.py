"""PostgreSQL storage through psycopg 3, used when ``DATABASE_URL`` names a server.

psycopg is an optional dependency (``pip install 'hexgames[postgres]'``): it is imported
only here, so the default SQLite setup never needs it.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
from collections.abc import Callable, Sequence
from typing import Any

from hexgames.web.storage.errors import StaleWrite, StorageUnavailable
from hexgames.web.storage.meta import GameMeta
from hexgames.web.storage.records import Change, MoveWrite, StoredMove
from hexgames.web.storage.sql import SqlStorage
from hexgames.web.storage.sql_connection import UNAVAILABLE
from hexgames.web.storage.sql_games import LINES_HELD, move_assignments, outcome_of
from hexgames.web.storage.sql_presence import PRESENCE_UPSERT

#: Seconds to wait for a connection, and milliseconds for any one statement.
CONNECT_TIMEOUT = 5
STATEMENT_TIMEOUT_MS = 5000
#: The ``LISTEN``/``NOTIFY`` channel on which server processes announce changes.
CHANNEL = "hexgames_changes"
#: Seconds a starting server waits for its listener before serving anyway.
LISTEN_READY_TIMEOUT = 10.0

log = logging.getLogger(__name__)


def _pipelined(connection: Any, prepared: Sequence[tuple[str, list[Any], Any] | None]
               ) -> list[Sequence[Any] | None]:
    """Run the statements (``None``: none) in one pipeline, on cursors of their own, and
    return the first row of each (``None``: no row, or no statement)."""
    cursors = []
    try:
        with connection.pipeline():
            for statement in prepared:
                cursor = None
                if statement is not None:
                    cursor = connection.cursor()
                    cursor.execute(statement[0], statement[1])
                cursors.append(cursor)
        return [None if cursor is None else cursor.fetchone() for cursor in cursors]
    finally:
        for cursor in cursors:
            if cursor is not None:
                cursor.close()


class PostgresStorage(SqlStorage):
    """Games in the PostgreSQL database named by a ``postgresql://`` URL (or conninfo).

    A server outlives database restarts and network hiccups: a connection found closed or
    broken is replaced before the next statement (the statement that met the failure
    still fails, and its request gets an error).
    """

    placeholder = "%s"
    shared = True
    for_update = " FOR UPDATE"

    def __init__(self, url: str, connect_timeout: int = CONNECT_TIMEOUT,
                 statement_timeout_ms: int = STATEMENT_TIMEOUT_MS) -> None:
        try:
            import psycopg
        except ImportError as error:  # pragma: no cover - depends on the installation
            raise RuntimeError(
                "DATABASE_URL names PostgreSQL but psycopg is not installed; "
                "install it with: pip install 'hexgames[postgres]'"
            ) from error
        self.driver_error = psycopg.Error
        self.integrity_error = psycopg.IntegrityError

        def connect() -> psycopg.Connection:
            # A frozen database must not hang requests: bounded connect and statements.
            return psycopg.connect(
                url,
                connect_timeout=connect_timeout,
                options=f"-c statement_timeout={int(statement_timeout_ms)}",
            )

        self._connect = connect
        #: Who this process is in the notifications (its own are ignored).
        self.origin = secrets.token_hex(6)
        #: A connection of its own for AI claims: session advisory locks, held while a
        #: search runs and released by the server when this process dies.
        self._claims: Any = None
        self._claims_lock = threading.Lock()
        super().__init__(connect())

    def _lock_schema(self, cursor: Any) -> None:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext('hexgames schema'))")

    def _notify(self, cursor: Any, game_id: str, kind: str, ply: int) -> None:
        cursor.execute("SELECT pg_notify(%s, %s)",
                       (CHANNEL, f"{self.origin} {kind} {ply} {game_id}"))

    def _store_move_at_once(self, move: MoveWrite) -> StoredMove | None:
        """The usual move as one statement committed on its own (autocommit): one round
        trip and one commit (one WAL flush) instead of a BEGIN, a statement per table
        and a COMMIT (:meth:`_move_statement`); ``None`` when it wrote nothing."""
        prepared = self._move_statement(move)
        if prepared is None:
            return None
        with self._transaction(single=True) as cursor:
            cursor.execute(*prepared[:2])
            row = cursor.fetchone()
        return None if row is None else StoredMove(int(row[0]), prepared[2], int(row[-1]))

    def store_moves(self, moves: Sequence[MoveWrite]) -> list[StoredMove | Exception]:
        """Moves of several games (made in the same turn of the event loop) in one
        transaction, one statement each, sent together (a pipeline: one round trip for
        all), and one commit for all: one WAL flush instead of one per move (a flush is
        what a move costs on a disk, 0.5-2.5 ms here). Each still succeeds or fails
        alone: a move its statement did not write goes through :meth:`_store_move`
        under a savepoint (its refusal undoes only it); a database error aborting the
        transaction stores none of them, and each is then stored on its own
        (:meth:`store_move`)."""
        if len(moves) < 2:
            return [outcome_of(self.store_move, move) for move in moves]
        try:
            with self._transaction() as cursor:
                prepared = [self._move_statement(move) for move in moves]
                rows = _pipelined(cursor.connection, prepared)
                return [self._store_in(cursor, move, statement, row)
                        for move, statement, row in zip(moves, prepared, rows, strict=True)]
        except (StaleWrite, StorageUnavailable):
            return [outcome_of(self.store_move, move) for move in moves]

    def _store_in(self, cursor: Any, move: MoveWrite,
                  prepared: tuple[str, list[Any], GameMeta | None] | None,
                  row: Sequence[Any] | None) -> StoredMove | Exception:
        """One move of :meth:`store_moves`, in its transaction: written by its statement
        (``row``), or else by :meth:`_store_move` under a savepoint."""
        if prepared is not None and row is not None:
            return StoredMove(int(row[0]), prepared[2], int(row[-1]))
        cursor.execute("SAVEPOINT move")
        try:
            stored = self._store_move(cursor, move)
        except StaleWrite as refused:  # refused by the checks: nothing of it is kept
            cursor.execute("ROLLBACK TO SAVEPOINT move")
            return refused
        cursor.execute("RELEASE SAVEPOINT move")
        return stored

    def _move_statement(self, move: MoveWrite
                        ) -> tuple[str, list[Any], GameMeta | None] | None:
        """The usual move as one statement (with its parameters and the meta it writes):
        it writes only while the game is being played, ends at the move's first ply and
        (with a meta change) is still at the version the mover read, so that the meta
        written, computed from the mover's copy, is the stored one changed; otherwise it
        writes nothing and the move goes through the transaction that reads the row
        under its lock (:meth:`_store_move`). ``None``: no such shortcut for this move."""
        if move.change is not None and (move.meta is None or move.version is None):
            return None
        meta = move.meta if move.change is not None else None
        assignments, values = move_assignments(move, meta)
        version = "" if meta is None else " AND version = ?"
        seen = (", seen AS (" + PRESENCE_UPSERT.replace("VALUES (?, ?, ?)",
                                                         "SELECT ?, ?, ? FROM touched")
                + " RETURNING seat)") if move.seen is not None else ""
        # The same notifications as the transaction's (:meth:`_store_move`).
        kind = "append" if meta is None else "turn"
        notes = [f"{self.origin} {kind} {move.first_ply + len(move.actions)} {move.game_id}"]
        if move.ended:
            notes.append(f"{self.origin} row -1 {move.game_id}")
        statement = (
            f"WITH touched AS (UPDATE games SET {assignments}, version = version + 1 "
            f"WHERE id = ? AND status = 'playing'{version} "
            "AND (SELECT COALESCE(MAX(ply), -1) FROM moves WHERE game_id = ?) = ? "
            "RETURNING version), "
            "stored AS (INSERT INTO moves (game_id, ply, action, played_at) "
            "SELECT ?, ? + played.n - 1, played.action, ? "
            "FROM touched, unnest(?::text[]) WITH ORDINALITY AS played(action, n) "
            "RETURNING ply)"
            f"{seen}, noted AS (SELECT pg_notify(?, note) FROM touched, "
            "unnest(?::text[]) AS note) "
            "SELECT version, (SELECT count(*) FROM stored), (SELECT count(*) FROM noted)"
            + (", (SELECT count(*) FROM seen)" if move.seen is not None else "")
            + f", ({LINES_HELD}) FROM touched"
        )
        params: list[Any] = [*values, move.game_id,
                             *(() if meta is None else (move.version,)),
                             move.game_id, move.first_ply - 1,
                             move.game_id, move.first_ply, move.at, list(move.actions)]
        if move.seen is not None:
            params += [move.game_id, int(move.seen[0]), int(move.seen[1])]
        params += [CHANNEL, notes, move.game_id]
        return self._sql(statement), params, meta

    def _autocommit(self, on: bool) -> None:
        self._connection.autocommit = on

    def listen(self, callback: Callable[[Change | None], None]) -> Callable[[], None]:
        """A thread with a connection of its own that ``LISTEN``s to the channel; after a
        lost connection it reconnects and calls ``callback(None)`` (changes may have been
        missed meanwhile)."""
        stop = threading.Event()
        listening = threading.Event()
        late = threading.Event()  # serving started before the first LISTEN

        def run() -> None:
            while not stop.is_set():
                try:
                    connection = self._connect()
                    connection.autocommit = True
                except Exception as error:  # the database is down: try again soon
                    log.warning("cannot listen for changes: %r", error)
                    stop.wait(1.0)
                    continue
                try:
                    connection.execute(f"LISTEN {CHANNEL}")
                    if listening.is_set() or late.is_set():
                        callback(None)  # changes may have been stored meanwhile
                    listening.set()
                    while not stop.is_set():
                        for note in connection.notifies(timeout=0.5):
                            change = self._parse(note.payload)
                            if change is not None:
                                callback(change)
                except Exception as error:
                    if not stop.is_set():
                        log.warning("listening for changes failed: %r; reconnecting", error)
                        stop.wait(0.2)
                finally:
                    with contextlib.suppress(Exception):  # a broken connection
                        connection.close()

        thread = threading.Thread(target=run, name="hexgames-listen", daemon=True)
        thread.start()
        # Serve nothing before listening: a change stored meanwhile would go unheard.
        if not listening.wait(LISTEN_READY_TIMEOUT):
            late.set()
            log.warning("not yet listening for changes after %s s; going on (the games "
                        "are reloaded once the listener connects)", LISTEN_READY_TIMEOUT)

        def stop_listening() -> None:
            stop.set()
            thread.join(timeout=5.0)

        return stop_listening

    def _parse(self, payload: str) -> Change | None:
        try:
            origin, kind, ply, game_id = payload.split(" ", 3)
            if origin == self.origin:
                return None
            return Change(game_id, kind, int(ply))
        except ValueError:
            return None

    def claim_ai(self, game_id: str, ply: int) -> bool:
        """An advisory lock on (game, ply) held on the claims connection, granted only
        if the stored game still ends at ``ply`` (so an answer to an older position is
        never searched twice either)."""
        with self._claims_lock:
            try:
                if self._claims is None or self._claims.closed or self._claims.broken:
                    self._claims = self._connect()
                    self._claims.autocommit = True
                got = self._claims.execute(
                    "SELECT pg_try_advisory_lock(hashtext(%s), %s)", (game_id, ply)
                ).fetchone()[0]
                if not got:
                    return False
                stored = self._claims.execute(
                    "SELECT COALESCE(MAX(ply), -1) + 1 FROM moves WHERE game_id = %s",
                    (game_id,),
                ).fetchone()[0]
                if stored != ply:
                    self._claims.execute(
                        "SELECT pg_advisory_unlock(hashtext(%s), %s)", (game_id, ply)
                    )
                    return False
                return True
            except self.driver_error as error:
                raise StorageUnavailable(UNAVAILABLE) from error

    def release_ai(self, game_id: str, ply: int) -> None:
        with self._claims_lock:
            try:
                if self._claims is not None and not self._claims.closed:
                    self._claims.execute(
                        "SELECT pg_advisory_unlock(hashtext(%s), %s)", (game_id, ply)
                    )
            except self.driver_error:  # a lost connection released its locks anyway
                pass

    def close(self) -> None:
        with self._claims_lock:
            if self._claims is not None:
                with contextlib.suppress(Exception):
                    self._claims.close()
        super().close()

    def _reconnect_if_needed(self) -> None:
        if self._connection.closed or self._connection.broken:
            try:
                self._connection = self._connect()
            except Exception as error:
                raise StorageUnavailable(UNAVAILABLE) from error
