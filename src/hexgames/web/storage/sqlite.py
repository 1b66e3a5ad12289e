"""SQLite storage: the default, a single file in the data directory (stdlib ``sqlite3``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hexgames.web.storage.base import SqlStorage


class SqliteStorage(SqlStorage):
    """Games in ``<data_dir>/hexgames.sqlite3``.

    WAL journaling lets readers (a game list) proceed while a move is written; foreign keys
    are switched on so deleting a game would take its moves with it, as in PostgreSQL.
    """

    placeholder = "?"

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path, check_same_thread=False, timeout=10.0)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA foreign_keys=ON")
        self.path = path
        super().__init__(connection)
