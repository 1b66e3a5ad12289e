"""One database connection shared by the web app's threads, and its transactions.

The base of the SQL storage: the table-by-table parts (:mod:`.sql_games`,
:mod:`.sql_lobby`, :mod:`.sql_players`, :mod:`.sql_ratings`) run their statements through
:meth:`SqlConnection._transaction`, and the backends (:mod:`.sqlite`, :mod:`.postgres`)
supply the connection, the driver's placeholder and exceptions, and the hooks below.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from hexgames.phrases import N_
from hexgames.web.storage.errors import StaleWrite, StorageUnavailable
from hexgames.web.storage.records import Change
from hexgames.web.storage.schema import SCHEMA, migrate

UNAVAILABLE = N_("the game storage is not answering; try again in a moment")


class SqlConnection:
    """A DB-API connection guarded by a lock, opened on a schema brought up to date.

    One connection guarded by a lock: the web app calls storage from worker threads, and
    both drivers allow a connection to be shared that way as long as calls don't overlap.
    Statements are tiny, so a lock costs less than a pool would.

    The defaults describe a single-process storage (SQLite): nobody else writes, so there
    is nothing to listen to and every AI claim is granted. PostgreSQL overrides them.
    """

    #: The driver's placeholder; statements are written with ``?`` (see :meth:`_sql`).
    placeholder = "?"
    #: The driver's exception base class (failures become :class:`StorageUnavailable`).
    driver_error: type[BaseException] = Exception
    #: A constraint violation: another writer got there first (:class:`StaleWrite`).
    integrity_error: type[BaseException] = Exception
    #: Appended to a SELECT that must lock its rows until the transaction ends
    #: (PostgreSQL; SQLite has one writer at a time anyway).
    for_update = ""
    #: True when several server processes may use this storage at once (PostgreSQL):
    #: they then learn of each other's changes through :meth:`listen`.
    shared = False

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._lock = threading.Lock()
        with self._transaction() as cursor:
            self._lock_schema(cursor)
            for statement in SCHEMA:
                cursor.execute(statement)
        migrate(self._transaction, self._sql)

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    # ------------------------------------------------- statements and transactions
    def _sql(self, text: str) -> str:
        return text.replace("?", self.placeholder)

    @contextmanager
    def _transaction(self, single: bool = False) -> Iterator[Any]:
        """A cursor whose statements commit together when the block ends, or roll back
        when it raises. Driver failures leave as :class:`StorageUnavailable`, constraint
        violations as :class:`StaleWrite`; nothing driver-specific reaches the caller.
        ``single``: the block runs one statement, committed on its own (no BEGIN nor
        COMMIT round trips where the driver sends them: :meth:`_autocommit`)."""
        with self._lock:
            cursor = None
            try:
                self._reconnect_if_needed()
                if single:
                    self._autocommit(True)
                cursor = self._connection.cursor()
                yield cursor
            except BaseException as error:
                with suppress(Exception):  # a dropped connection cannot roll back
                    self._connection.rollback()
                if isinstance(error, self.integrity_error):
                    raise StaleWrite(
                        N_("the game was changed by another request; reload to see it")
                    ) from error
                if isinstance(error, self.driver_error):
                    raise StorageUnavailable(UNAVAILABLE) from error
                raise
            else:
                try:
                    self._connection.commit()
                except self.driver_error as error:
                    raise StorageUnavailable(UNAVAILABLE) from error
            finally:
                if cursor is not None:
                    with suppress(Exception):
                        cursor.close()
                if single:
                    with suppress(Exception):  # a broken connection is replaced anyway
                        self._autocommit(False)

    # ------------------------------------------------------- hooks of the backends
    def _reconnect_if_needed(self) -> None:
        """Hook for backends whose connection can drop (PostgreSQL); called under the lock."""

    def _autocommit(self, on: bool) -> None:
        """Hook: commit each statement on its own (``on``) or in the caller's
        transaction. Nothing to switch by default: a one-statement transaction is as
        good in-process (SQLite)."""

    def _lock_schema(self, cursor: Any) -> None:
        """Hook: keep two processes starting at once from creating the schema together
        (PostgreSQL's ``CREATE TABLE IF NOT EXISTS`` is not safe against a concurrent one)."""

    def _notify(self, cursor: Any, game_id: str, kind: str, ply: int) -> None:
        """Hook: tell the other server processes that a game changed (PostgreSQL sends a
        ``NOTIFY``, delivered when the transaction commits; SQLite has one process)."""

    # ------------------------------------------- several processes on one database
    def listen(self, callback: Callable[[Change | None], None]) -> Callable[[], None] | None:
        """Nothing to listen to: no other process writes a single-process storage."""
        return None

    def claim_ai(self, game_id: str, ply: int) -> bool:
        """Always granted: no other process could be searching the same position."""
        return True

    def release_ai(self, game_id: str, ply: int) -> None:
        """Nothing to give back (see :meth:`claim_ai`)."""
        return None
