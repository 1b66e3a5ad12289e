"""PostgreSQL storage through psycopg 3, used when ``DATABASE_URL`` names a server.

psycopg is an optional dependency (``pip install 'hexgames[postgres]'``): it is imported
only here, so the default SQLite setup never needs it.
"""

from __future__ import annotations

from hexgames.web.storage.base import SqlStorage, StorageUnavailable

#: Seconds to wait for a connection, and milliseconds for any one statement.
CONNECT_TIMEOUT = 5
STATEMENT_TIMEOUT_MS = 5000


class PostgresStorage(SqlStorage):
    """Games in the PostgreSQL database named by a ``postgresql://`` URL (or conninfo).

    A server outlives database restarts and network hiccups: a connection found closed or
    broken is replaced before the next statement (the statement that met the failure
    still fails, and its request gets an error).
    """

    placeholder = "%s"

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
        super().__init__(connect())

    def _reconnect_if_needed(self) -> None:
        if self._connection.closed or self._connection.broken:
            try:
                self._connection = self._connect()
            except Exception as error:
                raise StorageUnavailable(
                    "the game storage is not answering; try again in a moment"
                ) from error
