"""The tables every backend creates, and how an older database is brought up to them.

One schema serves SQLite and PostgreSQL alike (only portable types: TEXT, INTEGER, BIGINT,
DOUBLE PRECISION), so the two backends cannot drift apart. Every statement is idempotent
(``IF NOT EXISTS``; a migration step checks before it changes anything), which lets each
server run all of it at start-up against a new database or one written by any earlier
release.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from hexgames.web.confusables import skeleton
from hexgames.web.storage.errors import StorageUnavailable
from hexgames.web.storage.records import HASH_PREFIX, hashed

#: Opens a transaction and yields its cursor (driver failures become
#: :class:`StorageUnavailable`): what the migration steps run their statements in.
Transaction = Callable[[], AbstractContextManager[Any]]

SCHEMA: tuple[str, ...] = (
    # A game is its options, players and result; its actions are rows of ``moves``.
    # ``rated`` is not here: :func:`migrate` adds it (from ADDED_COLUMNS), to new
    # databases too, as it always has.
    """CREATE TABLE IF NOT EXISTS games (
        id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        options TEXT NOT NULL,
        mode TEXT NOT NULL,
        players TEXT NOT NULL,
        seat_tokens TEXT NOT NULL,
        status TEXT NOT NULL,
        winner TEXT,
        reason TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        start TEXT,
        meta TEXT,
        deadline BIGINT,
        version INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS moves (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        action TEXT NOT NULL,
        played_at TEXT NOT NULL,
        PRIMARY KEY (game_id, ply)
    )""",
    "CREATE INDEX IF NOT EXISTS games_by_update ON games (updated_at)",
    # Open challenges of the lobby. ``creator_token`` is the hash of the seat credential
    # the creator will hold in the game; ``status`` goes open -> taken, cancelled or
    # expired, exactly once (a conditional UPDATE: two acceptors, one game).
    """CREATE TABLE IF NOT EXISTS seeks (
        id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        options TEXT NOT NULL,
        control TEXT NOT NULL,
        color TEXT NOT NULL,
        rated INTEGER NOT NULL,
        creator TEXT NOT NULL,
        creator_token TEXT NOT NULL,
        target TEXT,
        status TEXT NOT NULL,
        game_id TEXT,
        created_at TEXT NOT NULL
    )""",
    # Identities (hexgames.web.identity): a player, and the hashed secrets of the
    # browsers ("sessions") that act as it. ``name_key`` is the name folded for the
    # case-insensitive uniqueness check; ``name_skeleton`` its look-alike form
    # (hexgames.web.confusables; added by :func:`migrate` to older databases).
    """CREATE TABLE IF NOT EXISTS players (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        password TEXT,
        created_at TEXT NOT NULL,
        name_skeleton TEXT
    )""",
    """CREATE TABLE IF NOT EXISTS player_sessions (
        secret_hash TEXT PRIMARY KEY,
        player_id TEXT NOT NULL REFERENCES players(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS sessions_by_player ON player_sessions (player_id)",
    # Which identity holds which seat (kept in step with ``games.players`` by every
    # write of the players, so a player's games are found by an index).
    """CREATE TABLE IF NOT EXISTS game_players (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        PRIMARY KEY (game_id, seat)
    )""",
    "CREATE INDEX IF NOT EXISTS game_players_by_player ON game_players (player_id)",
    # Glicko-2 ratings (hexgames.web.glicko2), one row per player and rating pool.
    """CREATE TABLE IF NOT EXISTS ratings (
        player_id TEXT NOT NULL REFERENCES players(id) ON DELETE CASCADE,
        pool TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        deviation DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        losses INTEGER NOT NULL,
        draws INTEGER NOT NULL,
        rated_at TEXT NOT NULL,
        PRIMARY KEY (player_id, pool)
    )""",
    "CREATE INDEX IF NOT EXISTS ratings_by_pool ON ratings (pool, rating)",
    # One row per rated game whose result was applied: what makes the update idempotent.
    """CREATE TABLE IF NOT EXISTS rated_results (
        game_id TEXT PRIMARY KEY,
        pool TEXT NOT NULL,
        changes TEXT NOT NULL,
        rated_at TEXT NOT NULL
    )""",
    # Secrets the site generates once (the key of identity-derived seat tokens) and
    # other values it keeps between runs.
    """CREATE TABLE IF NOT EXISTS site_secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
)

#: Columns of ``games`` added after the first release, with their types.
ADDED_COLUMNS = (("start", "TEXT"), ("rated", "INTEGER NOT NULL DEFAULT 0"), ("meta", "TEXT"),
                 ("deadline", "BIGINT"), ("version", "INTEGER NOT NULL DEFAULT 0"))


def migrate(transaction: Transaction, sql: Callable[[str], str]) -> None:
    """Bring an older database up to date: the added columns, the players' look-alike
    column, hashed seat tokens. (New tables are created by :data:`SCHEMA`'s
    ``IF NOT EXISTS``.) ``sql`` turns ``?`` placeholders into the driver's style.

    A missing column is detected by selecting it: the failure is the driver's error,
    which ``transaction`` reports as :class:`StorageUnavailable` after rolling back, so
    PostgreSQL's aborted transaction does not spoil the next statement.
    """
    for column, kind in ADDED_COLUMNS:
        try:
            with transaction() as cursor:
                cursor.execute(sql(f"SELECT {column} FROM games WHERE id = ?"), ("",))
        except StorageUnavailable:
            with transaction() as cursor:
                cursor.execute(f"ALTER TABLE games ADD COLUMN {column} {kind}")
    _migrate_skeletons(transaction, sql)
    with transaction() as cursor:
        cursor.execute(sql("SELECT id, seat_tokens FROM games"))
        rows = cursor.fetchall()
        for game_id, raw in rows:
            tokens = json.loads(raw)
            if any(t is not None and not t.startswith(HASH_PREFIX) for t in tokens):
                cursor.execute(
                    sql("UPDATE games SET seat_tokens = ? WHERE id = ?"),
                    (json.dumps([hashed(t) for t in tokens]), game_id),
                )


def _migrate_skeletons(transaction: Transaction, sql: Callable[[str], str]) -> None:
    """Players' look-alike column: added to an older database, filled where empty."""
    try:
        with transaction() as cursor:
            cursor.execute(sql("SELECT name_skeleton FROM players WHERE id = ?"), ("",))
    except StorageUnavailable:
        with transaction() as cursor:
            cursor.execute("ALTER TABLE players ADD COLUMN name_skeleton TEXT")
    with transaction() as cursor:
        cursor.execute("CREATE INDEX IF NOT EXISTS players_by_skeleton "
                       "ON players (name_skeleton)")
        cursor.execute("SELECT id, name FROM players WHERE name_skeleton IS NULL")
        for player_id, name in cursor.fetchall():
            cursor.execute(sql("UPDATE players SET name_skeleton = ? WHERE id = ?"),
                           (skeleton(name), player_id))
