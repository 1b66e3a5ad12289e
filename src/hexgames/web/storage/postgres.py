"""PostgreSQL storage through psycopg 3, used when ``DATABASE_URL`` names a server.

psycopg is an optional dependency (``pip install 'hexgames[postgres]'``): it is imported
only here, so the default SQLite setup never needs it.
"""

from __future__ import annotations

from hexgames.web.storage.base import SqlStorage


class PostgresStorage(SqlStorage):
    """Games in the PostgreSQL database named by a ``postgresql://`` URL (or conninfo)."""

    placeholder = "%s"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as error:  # pragma: no cover - depends on the installation
            raise RuntimeError(
                "DATABASE_URL names PostgreSQL but psycopg is not installed; "
                "install it with: pip install 'hexgames[postgres]'"
            ) from error
        super().__init__(psycopg.connect(url))
