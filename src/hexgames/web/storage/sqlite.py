"""SQLite storage: the default, a single file in the data directory (stdlib ``sqlite3``)."""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path

from hexgames.web.storage.sql import SqlStorage


class DatabaseInUse(RuntimeError):
    """Another server already uses this SQLite file."""


class SqliteStorage(SqlStorage):
    """Games in ``<data_dir>/hexgames.sqlite3``.

    WAL journaling lets readers (a game list) proceed while a move is written; foreign keys
    are switched on so deleting a game would take its moves with it, as in PostgreSQL.

    One server per file: each server keeps its games in memory, so two servers on one
    file would overwrite each other's moves. An exclusive ``flock`` on ``<file>.lock``
    (released by the kernel when the process ends, even on SIGKILL) makes a second
    server refuse to start. A tool that writes only what no server holds in memory
    (``hexgames moderate``: reports and silences, which are read from storage at each
    use) opens the file with ``lock=False`` beside the running server; SQLite's own
    locking keeps each of its writes whole.
    """

    placeholder = "?"
    driver_error = sqlite3.Error
    integrity_error = sqlite3.IntegrityError

    def __init__(self, path: str | Path, lock: bool = True) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock_file = self._take_lock(path) if lock else -1
        try:
            connection = sqlite3.connect(path, check_same_thread=False, timeout=10.0)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
            super().__init__(connection)
        except BaseException:
            self._release_lock()
            raise

    @staticmethod
    def _take_lock(path: Path) -> int:
        lock_path = path.with_name(path.name + ".lock")
        descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            raise DatabaseInUse(
                f"another hexgames server is already using {path} (lock {lock_path}); "
                "stop it first, or give this one its own --data-dir"
            ) from None
        return descriptor

    def _release_lock(self) -> None:
        descriptor, self._lock_file = self._lock_file, -1
        if descriptor >= 0:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
            os.close(descriptor)

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._release_lock()
