"""What the web app stores about a game, and the interface every storage backend offers.

The server never keeps a position in the database: a game is its options, its players and
the list of actions in notation. Positions are rebuilt by replaying the actions, so a game
survives a restart (and an engine speed-up) without any migration of stored boards.
Both backends (SQLite, PostgreSQL) share one schema and one implementation of the SQL;
they differ only in how they connect and in the placeholder style of their driver.
"""

from __future__ import annotations

import hashlib
import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from hexgames.web.confusables import skeleton

#: The schema, written once for both backends (only portable types: TEXT and INTEGER).
SCHEMA: tuple[str, ...] = (
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
    # Open challenges of the lobby (issue 11). ``creator_token`` is the hash of the seat
    # credential the creator will hold in the game; ``status`` goes open -> taken or
    # cancelled, exactly once (a conditional UPDATE: two acceptors, one game).
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
    # (hexgames.web.confusables; added by ``_migrate`` to older databases).
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
    # Glicko-2 ratings (hexgames.web.ratings), one row per player and rating pool.
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
    # Secrets the site generates once (the key of identity-derived seat tokens).
    """CREATE TABLE IF NOT EXISTS site_secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
)
#: Columns added after the first release, with their types (added to older databases).
_ADDED_COLUMNS = (("start", "TEXT"), ("rated", "INTEGER NOT NULL DEFAULT 0"), ("meta", "TEXT"),
                  ("deadline", "BIGINT"), ("version", "INTEGER NOT NULL DEFAULT 0"))

_INSERT_MOVE = "INSERT INTO moves (game_id, ply, action, played_at) VALUES (?,?,?,?)"
#: An action is stored only at the ply that follows the stored ones (so that two writers
#: can never leave a gap or a fork: the list of actions always replays).
_APPEND_MOVE = (
    "INSERT INTO moves (game_id, ply, action, played_at) SELECT ?, ?, ?, ? "
    "WHERE (SELECT COALESCE(MAX(ply), -1) FROM moves WHERE game_id = ?) = ?"
)
_GAME_COLUMNS = (
    "id, game, options, mode, players, seat_tokens, status, winner, reason, "
    "created_at, updated_at, start, rated, meta, version"
)
_SEEK_COLUMNS = (
    "id, game, options, control, color, rated, creator, creator_token, target, status, "
    "game_id, created_at"
)

#: Stored seat tokens are ``sha256:<hex>`` of the token, never the token itself.
HASH_PREFIX = "sha256:"


def hash_token(token: str) -> str:
    return HASH_PREFIX + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def hashed(token: str | None) -> str | None:
    """A seat credential as stored: hashed (idempotent; ``None`` stays ``None``)."""
    if token is None or token.startswith(HASH_PREFIX):
        return token
    return hash_token(token)


class StorageUnavailable(RuntimeError):
    """The database failed or did not answer in time (HTTP 503; try again later)."""


class StaleWrite(RuntimeError):
    """An action was written for a ply that is not the next one (another writer got
    there first): nothing was stored."""


class MetaConflict(StaleWrite):
    """A conditional write of a game's row (meta: clock, offers, rematch; seats) found
    another ``version`` than the one its writer read: another request or server process
    wrote the game meanwhile, and nothing was stored. The writer re-reads the game and
    applies its change again, or answers 409."""


@dataclass
class StoredGame:
    """One game as stored: everything needed to rebuild and present it.

    ``players`` has one entry per seat (``{"kind": "human"|"ai", "level": int|None}``);
    ``seat_tokens`` holds the secret that lets a browser act for each seat (``None`` for a
    seat nobody may act for, i.e. the AI's). ``status`` is ``"playing"`` or ``"over"``;
    ``winner``/``reason`` are set when the game is over (including by resignation, which is
    not a property of the position and so must be stored).
    """

    id: str
    game: str
    options: dict[str, Any]
    mode: str
    players: list[dict[str, Any]]
    seat_tokens: list[str | None]
    status: str
    winner: str | None
    reason: str | None
    created_at: str
    updated_at: str
    actions: list[str] = field(default_factory=list)
    #: The start position in the game's board-text format when it is not the standard
    #: one (an uploaded record with a ``[Start]`` tag); ``None`` for the standard start.
    start: str | None = None
    #: A rated game: its result updates the players' ratings (see hexgames.web.ratings).
    rated: bool = False
    #: What the site keeps beside the actions (issue 11): ``control`` (time control),
    #: ``clock`` (:meth:`hexgames.web.clocks.Clock.to_dict`), ``offers``
    #: (takeback/rematch), ``rematch`` (the next game's id), ``seek``,
    #: ``turn`` (the seat to move, for "your turn" lists), ``termination``.
    meta: dict[str, Any] = field(default_factory=dict)
    #: The row's version: every write of the game (actions, meta, seats, result) adds
    #: one, and the writes of meta and seats are conditional on the version their writer
    #: read (:class:`MetaConflict` otherwise; see docs/web.md, "Storage").
    version: int = 0


class NameTaken(ValueError):
    """Another player already has this name (compared case-insensitively)."""


class NameLookAlike(NameTaken):
    """Another player has a name that reads the same (the same
    :func:`~hexgames.web.confusables.skeleton`: ``AIice`` beside ``Alice``)."""

    def __init__(self, name: str, other: str) -> None:
        super().__init__(f"the name {name!r} looks too much like {other!r}, another "
                         "player's name; pick another")
        self.other = other


@dataclass(frozen=True)
class PlayerRecord:
    """A player as stored: ``password`` is the scrypt hash (``None``: no password)."""

    id: str
    name: str
    created_at: str
    password: str | None = None


@dataclass(frozen=True)
class RatingRecord:
    """A player's Glicko-2 rating in one pool, as of ``rated_at`` (its last rated game)."""

    player_id: str
    pool: str
    rating: float
    deviation: float
    volatility: float
    games: int
    wins: int
    losses: int
    draws: int
    rated_at: str


def name_key(name: str) -> str:
    """A name as compared for uniqueness (names are ASCII: see hexgames.web.identity)."""
    return name.strip().casefold()


def seat_holders(players: Sequence[dict[str, Any]]) -> list[tuple[int, str]]:
    """``(seat, player id)`` of the seats held by an identity."""
    return [(seat, str(player["player_id"])) for seat, player in enumerate(players)
            if isinstance(player, dict) and player.get("player_id")]


@dataclass
class Seek:
    """An open challenge of the lobby. ``creator`` is the creator's player entry
    (``{"player_id", "name"}``: the name as it was when posted); ``color`` a colour of the game
    or ``"random"``; ``target`` a player's name for a direct challenge."""

    id: str
    game: str
    options: dict[str, Any]
    control: dict[str, Any]
    color: str
    rated: bool
    creator: dict[str, Any]
    creator_token: str
    target: str | None
    status: str
    game_id: str | None
    created_at: str


class SeekTaken(RuntimeError):
    """The challenge is no longer open (accepted by someone else, or withdrawn)."""


class Storage(ABC):
    """A place where games live between requests and across restarts."""

    @abstractmethod
    def create_game(self, game: StoredGame) -> None:
        """Store a new game together with its initial actions (an uploaded record has some)."""

    @abstractmethod
    def load_game(self, game_id: str) -> StoredGame | None:
        """The game with its actions in order, or ``None`` when there is no such game."""

    @abstractmethod
    def list_games(self, limit: int = 50) -> list[StoredGame]:
        """Most recently updated games first; ``actions`` is left empty (summaries)."""

    @abstractmethod
    def append_actions(self, game_id: str, first_ply: int, actions: Sequence[str],
                       at: str) -> int | None:
        """Record actions played from ply ``first_ply`` on (0-based) and touch the game
        (the row's new version, when the backend keeps one)."""

    @abstractmethod
    def truncate_actions(self, game_id: str, keep: int, at: str) -> int | None:
        """Forget every action from ply ``keep`` on (an undo) and touch the game."""

    @abstractmethod
    def finish_game(self, game_id: str, winner: str | None, reason: str | None,
                    at: str) -> int | None:
        """Mark the game over (or playing again, with ``winner=reason=None`` after an undo)."""

    def set_seats(self, game_id: str, players: list[dict[str, Any]],
                  seat_tokens: list[str | None], at: str,
                  version: int | None = None) -> int | None:
        """Replace the players and seat credentials (hashed) of a game (an invitation
        was claimed); with ``version``, only if the row is still at it."""
        raise NotImplementedError

    @abstractmethod
    def close(self) -> None: ...

    # ------------------------------------------ clocks and the lobby (issue 11)
    def set_meta(self, game_id: str, meta: dict[str, Any], at: str,
                 version: int | None = None, keep: int | None = None,
                 new_game: StoredGame | None = None) -> int | None:
        raise NotImplementedError

    def update_meta(self, game_id: str, change: Callable[[dict[str, Any]], None], at: str,
                    plies: int | None = None, status: str | None = None,
                    ) -> StoredGame | None:
        raise NotImplementedError

    def end_if_playing(self, game_id: str, winner: str | None, reason: str,
                       meta: dict[str, Any], at: str, version: int | None = None) -> bool:
        raise NotImplementedError

    def clocked_games(self) -> list[tuple[str, int]]:
        raise NotImplementedError

    def games_with_status(self, status: str, limit: int = 200) -> list[StoredGame]:
        raise NotImplementedError

    def create_seek(self, seek: Seek) -> None:
        raise NotImplementedError

    def load_seek(self, seek_id: str) -> Seek | None:
        raise NotImplementedError

    def open_seeks(self, limit: int = 200) -> list[Seek]:
        raise NotImplementedError

    def accept_seek(self, seek_id: str, game: StoredGame) -> None:
        raise NotImplementedError

    def expire_seek(self, seek_id: str) -> bool:
        raise NotImplementedError

    def cancel_seek(self, seek_id: str, creator_token: str) -> bool:
        raise NotImplementedError

    # ------------------------------------------------------------- identities
    # Implemented by SqlStorage (both backends); see hexgames.web.identity.
    def create_player(self, player: PlayerRecord, secret_hash: str) -> None:
        """Store a new player with its first browser's hashed secret (``NameTaken``)."""
        raise NotImplementedError

    def add_session(self, secret_hash: str, player_id: str, at: str) -> None:
        """Let one more browser (hashed secret) act as the player (a login)."""
        raise NotImplementedError

    def delete_session(self, secret_hash: str) -> None:
        raise NotImplementedError

    def player_by_session(self, secret_hash: str) -> PlayerRecord | None:
        raise NotImplementedError

    def player_by_id(self, player_id: str) -> PlayerRecord | None:
        raise NotImplementedError

    def player_by_name(self, name: str) -> PlayerRecord | None:
        """The player whose name equals ``name`` ignoring case."""
        raise NotImplementedError

    def player_names(self, player_ids: Sequence[str]) -> dict[str, str]:
        raise NotImplementedError

    def rename_player(self, player_id: str, name: str) -> None:
        """Change the name (``NameTaken`` when another player has it)."""
        raise NotImplementedError

    def set_password(self, player_id: str, password_hash: str | None) -> None:
        raise NotImplementedError

    def change_password(self, player_id: str, password_hash: str, keep_session: str | None
                        ) -> None:
        """Set the password and, in the same transaction, forget every browser of the
        player except ``keep_session`` (a hashed secret): a password change logs the
        player's other browsers out."""
        raise NotImplementedError

    def games_of_player(self, player_id: str, limit: int = 100) -> list[StoredGame]:
        """The games in which the player holds a seat, most recently updated first
        (summaries: ``actions`` left empty)."""
        raise NotImplementedError

    def site_secret(self, name: str, make: Callable[[], str]) -> str:
        """The site-wide secret ``name``, created with ``make()`` the first time (the
        first process to store it wins; every process then reads the same value)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- ratings
    def ratings_of(self, player_id: str) -> list[RatingRecord]:
        raise NotImplementedError

    def leaderboard(self, pool: str, limit: int = 100) -> list[tuple[RatingRecord, str]]:
        """The pool's ratings, best first, with the players' names."""
        raise NotImplementedError

    def rating_pools(self) -> list[str]:
        raise NotImplementedError

    def apply_rated_result(
        self, game_id: str, pool: str, player_ids: tuple[str, str], at: str,
        compute: Callable[[RatingRecord | None, RatingRecord | None],
                          tuple[RatingRecord, RatingRecord, Any]],
    ) -> tuple[bool, Any]:
        """Apply a rated game's result once: in one transaction, mark the game as rated
        (a second call finds the mark and changes nothing), read both players' ratings
        (locked against a concurrent update), store what ``compute`` returns and keep its
        third element (JSON) as the game's rating changes. Returns ``(applied now,
        changes)``; a repeated call returns ``(False, the changes stored the first time)``."""
        raise NotImplementedError

    #: True when several server processes may use this storage at once (PostgreSQL):
    #: they then learn of each other's changes through :meth:`listen`.
    shared = False

    def load_tail(self, game_id: str, since: int) -> tuple[StoredGame, int] | None:
        """The game's row with the actions from ply ``since`` on, and how many are stored."""
        game = self.load_game(game_id)
        if game is None:
            return None
        total = len(game.actions)
        game.actions = game.actions[since:]
        return game, total

    def listen(self, callback: Callable[[Change | None], None]) -> Callable[[], None] | None:
        """Call ``callback`` (from another thread) for every change another process
        stores; ``callback(None)`` when changes may have been missed (reload everything).
        Returns a function that stops listening, or ``None`` for a single-process storage."""
        return None

    def claim_ai(self, game_id: str, ply: int) -> bool:
        """Reserve the AI search of ``game_id`` at ``ply`` for this process: False when
        another process holds it, or when the stored game is not at ``ply`` any more.
        A single-process storage always grants it."""
        return True

    def release_ai(self, game_id: str, ply: int) -> None:
        """Give back a claim of :meth:`claim_ai` (after the answer is stored, or not)."""
        return None

    # ------------------------------------------- housekeeping (issue 31, row 6)
    def unopened_games(self, created_before: str, limit: int, correspondence: bool
                       ) -> list[tuple[str, dict[str, Any]]]:
        """(id, meta) of online games still being played whose invitation was never
        opened, created before ``created_before``, oldest first (``correspondence``:
        those with a correspondence clock, else the others)."""
        return []

    def delete_idle_guests(self, created_before: str, aborted_reason: str, limit: int
                           ) -> list[str]:
        """Delete at most ``limit`` guests (the site's ``Guest-`` name, no password)
        created and last logged in before ``created_before`` that hold no seat but in
        games ended ``aborted_reason`` without a winner and post no open challenge;
        returns their ids."""
        return []

    def site_value(self, name: str) -> str | None:
        """A value the site keeps (``set_site_value``), or ``None``."""
        return None

    def set_site_value(self, name: str, value: str) -> None:
        """Keep ``value`` under ``name`` (replacing it)."""
        return None


def _deadline(meta: dict[str, Any]) -> int | None:
    value = meta.get("deadline") if meta else None
    return None if value is None else int(value)


@dataclass(frozen=True)
class Change:
    """A change another server process stored: ``kind`` is ``append`` (actions up to
    ``ply`` exclusive are stored), ``reset`` (actions from ``ply`` on were taken back),
    ``row`` (result, players or seats changed), ``meta`` (only the meta: clock,
    offers; the actions are read from ``load_tail``, no full reload) or ``lobby`` (the
    open challenges changed; ``game_id`` empty)."""

    game_id: str
    kind: str
    ply: int


class SqlStorage(Storage):
    """The SQL both backends run. Subclasses provide a DB-API connection and a placeholder.

    One connection guarded by a lock: the web app calls storage from worker threads, and
    both drivers allow a connection to be shared that way as long as calls don't overlap.
    Statements are tiny, so a lock costs less than a pool would.
    """

    placeholder = "?"
    #: The driver's exception base class (failures become :class:`StorageUnavailable`).
    driver_error: type[BaseException] = Exception
    integrity_error: type[BaseException] = Exception

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._lock = threading.Lock()
        with self._transaction() as cursor:
            self._lock_schema(cursor)
            for statement in SCHEMA:
                cursor.execute(statement)
        self._migrate()

    def _migrate(self) -> None:
        """Bring an older database up to date: the added columns, hashed tokens.
        (New tables are created by :data:`SCHEMA`'s ``IF NOT EXISTS``.)"""
        for column, kind in _ADDED_COLUMNS:
            try:
                with self._transaction() as cursor:
                    cursor.execute(self._sql(f"SELECT {column} FROM games WHERE id = ?"), ("",))
            except StorageUnavailable:
                with self._transaction() as cursor:
                    cursor.execute(f"ALTER TABLE games ADD COLUMN {column} {kind}")
        self._migrate_skeletons()
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT id, seat_tokens FROM games"))
            rows = cursor.fetchall()
            for game_id, raw in rows:
                tokens = json.loads(raw)
                if any(t is not None and not t.startswith(HASH_PREFIX) for t in tokens):
                    cursor.execute(
                        self._sql("UPDATE games SET seat_tokens = ? WHERE id = ?"),
                        (json.dumps([hashed(t) for t in tokens]), game_id),
                    )

    def _migrate_skeletons(self) -> None:
        """Players' look-alike column: added to an older database, filled where empty."""
        try:
            with self._transaction() as cursor:
                cursor.execute(self._sql("SELECT name_skeleton FROM players WHERE id = ?"),
                               ("",))
        except StorageUnavailable:
            with self._transaction() as cursor:
                cursor.execute("ALTER TABLE players ADD COLUMN name_skeleton TEXT")
        with self._transaction() as cursor:
            cursor.execute("CREATE INDEX IF NOT EXISTS players_by_skeleton "
                           "ON players (name_skeleton)")
            cursor.execute("SELECT id, name FROM players WHERE name_skeleton IS NULL")
            for player_id, name in cursor.fetchall():
                cursor.execute(self._sql("UPDATE players SET name_skeleton = ? WHERE id = ?"),
                               (skeleton(name), player_id))

    # ------------------------------------------------------------------ helpers
    def _sql(self, text: str) -> str:
        return text.replace("?", self.placeholder)

    def _reconnect_if_needed(self) -> None:
        """Hook for backends whose connection can drop (PostgreSQL); called under the lock."""

    def _lock_schema(self, cursor: Any) -> None:
        """Hook: keep two processes starting at once from creating the schema together
        (PostgreSQL's ``CREATE TABLE IF NOT EXISTS`` is not safe against a concurrent one)."""

    def _notify(self, cursor: Any, game_id: str, kind: str, ply: int) -> None:
        """Hook: tell the other server processes that a game changed (PostgreSQL sends a
        ``NOTIFY``, delivered when the transaction commits; SQLite has one process)."""

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._lock:
            cursor = None
            try:
                self._reconnect_if_needed()
                cursor = self._connection.cursor()
                yield cursor
            except BaseException as error:
                with suppress(Exception):  # a dropped connection cannot roll back
                    self._connection.rollback()
                if isinstance(error, self.integrity_error):
                    raise StaleWrite(
                        "the game was changed by another request; reload to see it"
                    ) from error
                if isinstance(error, self.driver_error):
                    raise StorageUnavailable(
                        "the game storage is not answering; try again in a moment"
                    ) from error
                raise
            else:
                try:
                    self._connection.commit()
                except self.driver_error as error:
                    raise StorageUnavailable(
                        "the game storage is not answering; try again in a moment"
                    ) from error
            finally:
                if cursor is not None:
                    with suppress(Exception):
                        cursor.close()

    @staticmethod
    def _game_from_row(row: Sequence[Any]) -> StoredGame:
        return StoredGame(
            id=row[0],
            game=row[1],
            options=json.loads(row[2]),
            mode=row[3],
            players=json.loads(row[4]),
            seat_tokens=json.loads(row[5]),
            status=row[6],
            winner=row[7],
            reason=row[8],
            created_at=row[9],
            updated_at=row[10],
            start=row[11],
            rated=bool(row[12]),
            meta=json.loads(row[13]) if row[13] else {},
            version=int(row[14] or 0),
        )

    # ---------------------------------------------------------------- interface
    def create_game(self, game: StoredGame) -> None:
        with self._transaction() as cursor:
            self._insert_game(cursor, game)

    def _insert_game(self, cursor: Any, game: StoredGame) -> None:
        cursor.execute(
            self._sql(f"INSERT INTO games ({_GAME_COLUMNS}, deadline) "
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
                json.dumps(game.meta),
                int(game.version),
                _deadline(game.meta),
            ),
        )
        self._write_seat_holders(cursor, game.id, game.players)
        if game.actions:
            cursor.executemany(
                self._sql(_INSERT_MOVE),
                [(game.id, ply, action, game.created_at)
                 for ply, action in enumerate(game.actions)],
            )

    # ------------------------------------------------ clocks, offers (issue 11)
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
            raise MetaConflict("the game was changed meanwhile (by another request or "
                               "server); reload it and try again")
        return int(rows[0][0])

    def set_meta(self, game_id: str, meta: dict[str, Any], at: str,
                 version: int | None = None, keep: int | None = None,
                 new_game: StoredGame | None = None) -> int:
        """Replace the game's ``meta`` (clock, offers...) and its flag-fall deadline
        (``meta["deadline"]``, ms since the epoch, or none); returns the row's new
        version. ``version``: only if the row is still at it (:class:`MetaConflict`
        otherwise). In the same transaction: ``keep``, the actions from that ply on are
        deleted (an accepted takeback); ``new_game`` is stored (a rematch: with the
        condition, exactly one per game)."""
        with self._transaction() as cursor:
            new = self._write_row(cursor, game_id, "meta = ?, deadline = ?, updated_at = ?",
                                  (json.dumps(meta), _deadline(meta), at), version)
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

    def update_meta(self, game_id: str, change: Callable[[dict[str, Any]], None], at: str,
                    plies: int | None = None, status: str | None = None,
                    ) -> StoredGame | None:
        """Apply ``change`` (a function of the meta dict, which it changes in place) to
        the stored meta and store it, in one transaction that holds the game's row
        (``SELECT ... FOR UPDATE``: a concurrent conditional write waits, then finds a new
        version): for changes that must never be lost to a concurrent one nor retried (a
        move's clock). Only while the game has ``plies`` stored actions and ``status``
        (when given); else ``None`` and nothing is written. Returns the row as written
        (without actions)."""
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?{self.for_update}"),
                (game_id,),
            )
            row = cursor.fetchone()
            if row is None:
                return None
            game = self._game_from_row(row)
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
                (json.dumps(game.meta), _deadline(game.meta), at), game.version)
            game.updated_at = at
            self._notify(cursor, game_id, "meta", -1)
            return game

    def end_if_playing(self, game_id: str, winner: str | None, reason: str,
                       meta: dict[str, Any], at: str, version: int | None = None) -> bool:
        """End a game still being played (a flag fall, an abort): False when it was
        already over (another process adjudicated it first) or, with ``version``, when
        its row is no longer at that version (the ending was decided on an older state;
        the row then has ``version + 1``)."""
        condition = "" if version is None else " AND version = ?"
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE games SET status = 'over', winner = ?, reason = ?, meta = ?, "
                          "deadline = NULL, updated_at = ?, version = version + 1 "
                          f"WHERE id = ? AND status = 'playing'{condition}"),
                (winner, reason, json.dumps(meta), at, game_id,
                 *(() if version is None else (version,))),
            )
            done = cursor.rowcount == 1
            if done:
                self._notify(cursor, game_id, "row", -1)
            return done

    def clocked_games(self) -> list[tuple[str, int]]:
        """(id, deadline) of every game being played whose clock is running."""
        with self._transaction() as cursor:
            cursor.execute(
                "SELECT id, deadline FROM games WHERE status = 'playing' AND deadline IS NOT NULL"
            )
            return [(row[0], int(row[1])) for row in cursor.fetchall()]

    def games_with_status(self, status: str, limit: int = 200) -> list[StoredGame]:
        """Summaries (no actions) of games with ``status``, most recently updated first."""
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_GAME_COLUMNS} FROM games WHERE status = ? "
                          "ORDER BY updated_at DESC, id LIMIT ?"),
                (status, limit),
            )
            return [self._game_from_row(row) for row in cursor.fetchall()]

    # ----------------------------------------------------------------- seeks
    @staticmethod
    def _seek_from_row(row: Sequence[Any]) -> Seek:
        return Seek(
            id=row[0], game=row[1], options=json.loads(row[2]), control=json.loads(row[3]),
            color=row[4], rated=bool(row[5]), creator=json.loads(row[6]),
            creator_token=row[7], target=row[8], status=row[9], game_id=row[10],
            created_at=row[11],
        )

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
            return None if row is None else self._seek_from_row(row)

    def open_seeks(self, limit: int = 200) -> list[Seek]:
        """Open challenges, oldest first."""
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {_SEEK_COLUMNS} FROM seeks WHERE status = 'open' "
                          "ORDER BY created_at, id LIMIT ?"),
                (limit,),
            )
            return [self._seek_from_row(row) for row in cursor.fetchall()]

    def accept_seek(self, seek_id: str, game: StoredGame) -> None:
        """Take the open challenge ``seek_id`` and store ``game`` for it, in one
        transaction. The UPDATE is conditional on the challenge being open, so of two
        acceptors racing (in any processes) exactly one gets a game; the other gets
        :class:`SeekTaken` and nothing is stored for it."""
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE seeks SET status = 'taken', game_id = ? "
                          "WHERE id = ? AND status = 'open'"),
                (game.id, seek_id),
            )
            if cursor.rowcount != 1:
                raise SeekTaken("this challenge has already been accepted or withdrawn")
            self._insert_game(cursor, game)
            self._notify(cursor, "", "lobby", -1)

    def expire_seek(self, seek_id: str) -> bool:
        """Close an open challenge nobody accepted in time (status ``expired``)."""
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
        """Withdraw an open challenge; only its creator (who holds the token) may."""
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

    # ------------------------------------------- housekeeping (issue 31, row 6)
    def unopened_games(self, created_before: str, limit: int, correspondence: bool
                       ) -> list[tuple[str, dict[str, Any]]]:
        kind = "" if correspondence else "NOT "
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("SELECT id, meta FROM games WHERE status = 'playing' "
                          "AND mode = 'online' AND players LIKE ? AND created_at < ? "
                          f"AND COALESCE(meta, '') {kind}LIKE ? ORDER BY created_at, id LIMIT ?"),
                ('%"invite": "open"%', created_before, '%"kind": "correspondence"%', limit),
            )
            return [(row[0], json.loads(row[1]) if row[1] else {})
                    for row in cursor.fetchall()]

    def delete_idle_guests(self, created_before: str, aborted_reason: str, limit: int
                           ) -> list[str]:
        idle = (
            "p.name LIKE ? AND p.password IS NULL AND p.created_at < ? "
            "AND NOT EXISTS (SELECT 1 FROM player_sessions s WHERE s.player_id = p.id "
            "AND s.created_at >= ?) "
            "AND NOT EXISTS (SELECT 1 FROM game_players gp JOIN games g ON g.id = gp.game_id "
            "WHERE gp.player_id = p.id AND NOT (g.status = 'over' AND g.winner IS NULL "
            "AND g.reason = ?)) "
            "AND NOT EXISTS (SELECT 1 FROM seeks k WHERE k.status = 'open' "
            "AND k.creator LIKE ? || p.id || ?)"
        )
        args = ("Guest-%", created_before, created_before, aborted_reason, "%", "%")
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT p.id FROM players p WHERE {idle} "
                                     "ORDER BY p.created_at, p.id LIMIT ?"), (*args, limit))
            ids = [str(row[0]) for row in cursor.fetchall()]
            if not ids:
                return []
            marks = ",".join("?" * len(ids))
            # Checked again as it is deleted (another process may have seated one since).
            cursor.execute(self._sql(f"DELETE FROM players WHERE id IN ({marks}) AND id IN "
                                     f"(SELECT p.id FROM players p WHERE {idle})"),
                           (*ids, *args))
            cursor.execute(self._sql(f"SELECT id FROM players WHERE id IN ({marks})"), tuple(ids))
            kept = {str(row[0]) for row in cursor.fetchall()}
            gone = [player_id for player_id in ids if player_id not in kept]
            if gone:
                marks = ",".join("?" * len(gone))
                for table in ("player_sessions", "ratings", "game_players"):
                    cursor.execute(self._sql(f"DELETE FROM {table} WHERE player_id IN ({marks})"),
                                   tuple(gone))
            return gone

    def site_value(self, name: str) -> str | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT value FROM site_secrets WHERE name = ?"), (name,))
            row = cursor.fetchone()
            return None if row is None else str(row[0])

    def set_site_value(self, name: str, value: str) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("INSERT INTO site_secrets (name, value) VALUES (?, ?) "
                          "ON CONFLICT (name) DO UPDATE SET value = excluded.value"),
                (name, value),
            )

    def load_game(self, game_id: str) -> StoredGame | None:
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?"), (game_id,))
            row = cursor.fetchone()
            if row is None:
                return None
            game = self._game_from_row(row)
            cursor.execute(
                self._sql("SELECT action FROM moves WHERE game_id = ? ORDER BY ply"), (game_id,)
            )
            game.actions = [r[0] for r in cursor.fetchall()]
            return game

    def list_games(self, limit: int = 50) -> list[StoredGame]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(
                    f"SELECT {_GAME_COLUMNS} FROM games ORDER BY updated_at DESC, id LIMIT ?"
                ),
                (limit,),
            )
            return [self._game_from_row(row) for row in cursor.fetchall()]

    def append_actions(self, game_id: str, first_ply: int, actions: Sequence[str], at: str) -> int:
        """Store actions from ``first_ply`` on (:class:`StaleWrite` unless the stored game
        ends there); returns the row's new version."""
        with self._transaction() as cursor:
            for offset, action in enumerate(actions):
                ply = first_ply + offset
                cursor.execute(
                    self._sql(_APPEND_MOVE), (game_id, ply, action, at, game_id, ply - 1)
                )
                if cursor.rowcount != 1:
                    raise StaleWrite(
                        f"action {ply + 1} was not stored: the stored game does not end at "
                        f"ply {ply} (changed by another server?); reload the game"
                    )
            new = self._write_row(cursor, game_id, "updated_at = ?", (at,), None)
            self._notify(cursor, game_id, "append", first_ply + len(actions))
            return new

    def truncate_actions(self, game_id: str, keep: int, at: str) -> int:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("DELETE FROM moves WHERE game_id = ? AND ply >= ?"), (game_id, keep)
            )
            new = self._write_row(cursor, game_id, "updated_at = ?", (at,), None)
            self._notify(cursor, game_id, "reset", keep)
            return new

    def finish_game(self, game_id: str, winner: str | None, reason: str | None, at: str) -> int:
        status = "playing" if winner is None and reason is None else "over"
        with self._transaction() as cursor:
            new = self._write_row(cursor, game_id,
                                  "status = ?, winner = ?, reason = ?, updated_at = ?",
                                  (status, winner, reason, at), None)
            self._notify(cursor, game_id, "row", -1)
            return new

    def set_seats(self, game_id: str, players: list[dict[str, Any]],
                  seat_tokens: list[str | None], at: str, version: int | None = None) -> int:
        """Replace the seats (players, hashed credentials); returns the row's new version.
        ``version``: only if the row is still at it (:class:`MetaConflict` otherwise: an
        invitation claimed through two processes at once has one claimant)."""
        with self._transaction() as cursor:
            new = self._write_row(cursor, game_id, "players = ?, seat_tokens = ?, updated_at = ?",
                                  (json.dumps(players),
                                   json.dumps([hashed(t) for t in seat_tokens]), at), version)
            self._write_seat_holders(cursor, game_id, players)
            self._notify(cursor, game_id, "row", -1)
            return new

    def load_tail(self, game_id: str, since: int) -> tuple[StoredGame, int] | None:
        """The game's row with only the actions from ply ``since`` on (in ``actions``),
        and the number of stored actions; ``None`` when there is no such game. What a
        process that holds the first ``since`` actions reads when told of a change."""
        with self._transaction() as cursor:
            cursor.execute(self._sql(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?"), (game_id,))
            row = cursor.fetchone()
            if row is None:
                return None
            game = self._game_from_row(row)
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

    # ------------------------------------------------------------- identities
    #: Appended to a SELECT that must lock its rows until the transaction ends
    #: (PostgreSQL; SQLite has one writer at a time anyway).
    for_update = ""

    def _write_seat_holders(self, cursor: Any, game_id: str,
                            players: Sequence[dict[str, Any]]) -> None:
        cursor.execute(self._sql("DELETE FROM game_players WHERE game_id = ?"), (game_id,))
        holders = seat_holders(players)
        if holders:
            cursor.executemany(
                self._sql("INSERT INTO game_players (game_id, seat, player_id) VALUES (?,?,?)"),
                [(game_id, seat, player_id) for seat, player_id in holders],
            )

    _PLAYER_COLUMNS = "id, name, created_at, password"

    @staticmethod
    def _player_from_row(row: Sequence[Any] | None) -> PlayerRecord | None:
        if row is None:
            return None
        return PlayerRecord(id=row[0], name=row[1], created_at=row[2], password=row[3])

    def create_player(self, player: PlayerRecord, secret_hash: str) -> None:
        try:
            with self._transaction() as cursor:
                cursor.execute(
                    self._sql("INSERT INTO players (id, name, name_key, password, created_at, "
                              "name_skeleton) VALUES (?,?,?,?,?,?)"),
                    (player.id, player.name, name_key(player.name), player.password,
                     player.created_at, skeleton(player.name)),
                )
                cursor.execute(
                    self._sql("INSERT INTO player_sessions (secret_hash, player_id, created_at) "
                              "VALUES (?,?,?)"),
                    (secret_hash, player.id, player.created_at),
                )
        except StaleWrite:
            raise NameTaken(f"the name {player.name!r} is taken") from None

    def add_session(self, secret_hash: str, player_id: str, at: str) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("INSERT INTO player_sessions (secret_hash, player_id, created_at) "
                          "VALUES (?,?,?)"),
                (secret_hash, player_id, at),
            )

    def delete_session(self, secret_hash: str) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("DELETE FROM player_sessions WHERE secret_hash = ?"), (secret_hash,)
            )

    def player_by_session(self, secret_hash: str) -> PlayerRecord | None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("SELECT p.id, p.name, p.created_at, p.password FROM players p "
                          "JOIN player_sessions s ON s.player_id = p.id "
                          "WHERE s.secret_hash = ?"),
                (secret_hash,),
            )
            return self._player_from_row(cursor.fetchone())

    def player_by_id(self, player_id: str) -> PlayerRecord | None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {self._PLAYER_COLUMNS} FROM players WHERE id = ?"),
                (player_id,),
            )
            return self._player_from_row(cursor.fetchone())

    def player_by_name(self, name: str) -> PlayerRecord | None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {self._PLAYER_COLUMNS} FROM players WHERE name_key = ?"),
                (name_key(name),),
            )
            return self._player_from_row(cursor.fetchone())

    def player_names(self, player_ids: Sequence[str]) -> dict[str, str]:
        wanted = sorted(set(player_ids))
        if not wanted:
            return {}
        marks = ",".join("?" * len(wanted))
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT id, name FROM players WHERE id IN ({marks})"), tuple(wanted)
            )
            return {row[0]: row[1] for row in cursor.fetchall()}

    def rename_player(self, player_id: str, name: str) -> None:
        look = skeleton(name)
        try:
            with self._transaction() as cursor:
                cursor.execute(
                    self._sql("SELECT name FROM players WHERE name_skeleton = ? AND id <> ? "
                              "AND name_key <> ?"),
                    (look, player_id, name_key(name)),
                )
                row = cursor.fetchone()
                if row is not None:
                    raise NameLookAlike(name, row[0])
                cursor.execute(
                    self._sql("UPDATE players SET name = ?, name_key = ?, name_skeleton = ? "
                              "WHERE id = ?"),
                    (name, name_key(name), look, player_id),
                )
        except StaleWrite:
            raise NameTaken(f"the name {name!r} is taken") from None

    def set_password(self, player_id: str, password_hash: str | None) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE players SET password = ? WHERE id = ?"),
                (password_hash, player_id),
            )

    def change_password(self, player_id: str, password_hash: str, keep_session: str | None
                        ) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("UPDATE players SET password = ? WHERE id = ?"),
                (password_hash, player_id),
            )
            cursor.execute(
                self._sql("DELETE FROM player_sessions WHERE player_id = ? "
                          "AND secret_hash <> ?"),
                (player_id, keep_session or ""),
            )

    def games_of_player(self, player_id: str, limit: int = 100) -> list[StoredGame]:
        columns = ", ".join(f"g.{column.strip()}" for column in _GAME_COLUMNS.split(","))
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(
                    f"SELECT DISTINCT {columns} FROM games g "
                    "JOIN game_players gp ON gp.game_id = g.id WHERE gp.player_id = ? "
                    "ORDER BY g.updated_at DESC, g.id LIMIT ?"
                ),
                (player_id, limit),
            )
            return [self._game_from_row(row) for row in cursor.fetchall()]

    def site_secret(self, name: str, make: Callable[[], str]) -> str:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("INSERT INTO site_secrets (name, value) VALUES (?, ?) "
                          "ON CONFLICT (name) DO NOTHING"),
                (name, make()),
            )
            cursor.execute(self._sql("SELECT value FROM site_secrets WHERE name = ?"), (name,))
            return str(cursor.fetchone()[0])

    # ---------------------------------------------------------------- ratings
    _RATING_COLUMNS = ("player_id, pool, rating, deviation, volatility, games, wins, losses, "
                       "draws, rated_at")

    @staticmethod
    def _rating_from_row(row: Sequence[Any]) -> RatingRecord:
        return RatingRecord(row[0], row[1], float(row[2]), float(row[3]), float(row[4]),
                            int(row[5]), int(row[6]), int(row[7]), int(row[8]), row[9])

    def ratings_of(self, player_id: str) -> list[RatingRecord]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {self._RATING_COLUMNS} FROM ratings WHERE player_id = ? "
                          "AND games > 0 ORDER BY pool"),
                (player_id,),
            )
            return [self._rating_from_row(row) for row in cursor.fetchall()]

    def leaderboard(self, pool: str, limit: int = 100) -> list[tuple[RatingRecord, str]]:
        columns = ", ".join(f"r.{c.strip()}" for c in self._RATING_COLUMNS.split(","))
        with self._transaction() as cursor:
            cursor.execute(
                self._sql(f"SELECT {columns}, p.name FROM ratings r "
                          "JOIN players p ON p.id = r.player_id WHERE r.pool = ? AND r.games > 0 "
                          "ORDER BY r.rating DESC, p.name_key LIMIT ?"),
                (pool, limit),
            )
            return [(self._rating_from_row(row), row[10]) for row in cursor.fetchall()]

    def rating_pools(self) -> list[str]:
        with self._transaction() as cursor:
            cursor.execute("SELECT DISTINCT pool FROM ratings WHERE games > 0 ORDER BY pool")
            return [row[0] for row in cursor.fetchall()]

    def apply_rated_result(
        self, game_id: str, pool: str, player_ids: tuple[str, str], at: str,
        compute: Callable[[RatingRecord | None, RatingRecord | None],
                          tuple[RatingRecord, RatingRecord, Any]],
    ) -> tuple[bool, Any]:
        with self._transaction() as cursor:
            cursor.execute(
                self._sql("INSERT INTO rated_results (game_id, pool, changes, rated_at) "
                          "VALUES (?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING"),
                (game_id, pool, "null", at),
            )
            if cursor.rowcount != 1:  # rated before (by this or another process)
                cursor.execute(
                    self._sql("SELECT changes FROM rated_results WHERE game_id = ?"), (game_id,)
                )
                return False, json.loads(cursor.fetchone()[0])
            # Lock both rating rows (in a fixed order: no deadlock between two games),
            # creating empty ones first: FOR UPDATE cannot lock a row that is not there,
            # and two first games of a player must not both start from nothing.
            found: dict[str, RatingRecord | None] = {}
            for player_id in sorted(set(player_ids)):
                cursor.execute(
                    self._sql(f"INSERT INTO ratings ({self._RATING_COLUMNS}) "
                              "VALUES (?,?,0,0,0,0,0,0,0,?) "
                              "ON CONFLICT (player_id, pool) DO NOTHING"),
                    (player_id, pool, at),
                )
                cursor.execute(
                    self._sql(f"SELECT {self._RATING_COLUMNS} FROM ratings "
                              f"WHERE player_id = ? AND pool = ?{self.for_update}"),
                    (player_id, pool),
                )
                record = self._rating_from_row(cursor.fetchone())
                found[player_id] = record if record.games > 0 else None
            current = [found[player_id] for player_id in player_ids]
            first, second, changes = compute(current[0], current[1])
            for record in (first, second):
                cursor.execute(
                    self._sql(
                        f"INSERT INTO ratings ({self._RATING_COLUMNS}) "
                        "VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (player_id, pool) DO UPDATE SET "
                        "rating = excluded.rating, deviation = excluded.deviation, "
                        "volatility = excluded.volatility, games = excluded.games, "
                        "wins = excluded.wins, losses = excluded.losses, "
                        "draws = excluded.draws, rated_at = excluded.rated_at"
                    ),
                    (record.player_id, record.pool, record.rating, record.deviation,
                     record.volatility, record.games, record.wins, record.losses,
                     record.draws, record.rated_at),
                )
            cursor.execute(
                self._sql("UPDATE rated_results SET changes = ? WHERE game_id = ?"),
                (json.dumps(changes), game_id),
            )
            return True, changes

    def close(self) -> None:
        with self._lock:
            self._connection.close()
