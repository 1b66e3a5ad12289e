"""PostgreSQL storage through psycopg 3, used when ``DATABASE_URL`` names a server.

psycopg is an optional dependency (``pip install 'hexgames[postgres]'``): it is imported
only here, so the default SQLite setup never needs it.
"""

from __future__ import annotations

from hexgames.web.storage.base import SqlStorage


class PostgresStorage(SqlStorage):
    """Games in the PostgreSQL database named by a ``postgresql://`` URL (or conninfo).

    A server outlives database restarts and network hiccups: a connection found closed or
    broken is replaced before the next statement (the statement that met the failure
    still fails, and its request gets an error).
    """

    placeholder = "%s"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as error:  # pragma: no cover - depends on the installation
            raise RuntimeError(
                "DATABASE_URL names PostgreSQL but psycopg is not installed; "
                "install it with: pip install 'hexgames[postgres]'"
            ) from error
        self._connect = lambda: psycopg.connect(url)
        super().__init__(self._connect())

    def _reconnect_if_needed(self) -> None:
        if self._connection.closed or self._connection.broken:
            self._connection = self._connect()
