"""Where the web app keeps its games: SQLite by default, PostgreSQL when asked.

Import storage names from here. The package reads bottom-up: :mod:`.records` (what is
stored) and :mod:`.errors`; :mod:`.interface` (the :class:`Storage` the rest of the app is
written against); :mod:`.schema` (tables and migrations); the SQL, one module per group of
tables (:mod:`.sql_connection`, :mod:`.sql_games`, :mod:`.sql_lobby`,
:mod:`.sql_players`, :mod:`.sql_ratings`, :mod:`.sql_alerts`, :mod:`.sql_pools`,
:mod:`.sql_presence`, :mod:`.sql_conditional`, :mod:`.sql_limits`, :mod:`.sql_chat`,
:mod:`.sql_relations`, :mod:`.sql_tournaments`,
assembled in :mod:`.sql`); and the two
backends, :mod:`.sqlite` and :mod:`.postgres`, which only connect.

>>> storage = open_storage(data_dir="data")  # data/hexgames.sqlite3  # doctest: +SKIP
>>> storage = open_storage(database_url="postgresql://user@host/db")  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from hexgames.web.storage.errors import (
    ChatRefused,
    MetaConflict,
    NameLookAlike,
    NameTaken,
    PairingTaken,
    SeekTaken,
    StaleWrite,
    StorageUnavailable,
)
from hexgames.web.storage.interface import Storage
from hexgames.web.storage.meta import GameMeta, Mode, SeatPlayer
from hexgames.web.storage.records import (
    HASH_PREFIX,
    RESULTS,
    AlertSettings,
    Change,
    ChatMessage,
    ChatReport,
    ConditionalLine,
    GameQuery,
    ListedGame,
    MoveWrite,
    PlayerRecord,
    PoolEntry,
    RatingPoint,
    RatingRecord,
    SeatResult,
    Seek,
    StoredGame,
    StoredMove,
    TournamentEntry,
    TournamentGame,
    TournamentRecord,
    TournamentState,
    hash_token,
    hashed,
    name_key,
    seat_holders,
)
from hexgames.web.storage.sql_tournaments import (
    TournamentClosed,
    TournamentQuota,
    TournamentRefused,
    TournamentUnknown,
)

__all__ = [
    "HASH_PREFIX",
    "RESULTS",
    "AlertSettings",
    "Change",
    "ChatMessage",
    "ChatRefused",
    "ChatReport",
    "ConditionalLine",
    "GameMeta",
    "GameQuery",
    "ListedGame",
    "MetaConflict",
    "Mode",
    "MoveWrite",
    "NameLookAlike",
    "NameTaken",
    "PairingTaken",
    "PlayerRecord",
    "PoolEntry",
    "RatingPoint",
    "RatingRecord",
    "SeatPlayer",
    "SeatResult",
    "Seek",
    "SeekTaken",
    "StaleWrite",
    "Storage",
    "StorageUnavailable",
    "StoredGame",
    "StoredMove",
    "TournamentClosed",
    "TournamentEntry",
    "TournamentGame",
    "TournamentQuota",
    "TournamentRecord",
    "TournamentRefused",
    "TournamentState",
    "TournamentUnknown",
    "hash_token",
    "hashed",
    "name_key",
    "open_storage",
    "seat_holders",
]

SQLITE_FILE = "hexgames.sqlite3"


def open_storage(data_dir: str | Path = "data", database_url: str | None = None,
                 beside_server: bool = False) -> Storage:
    """Open the storage a server should use.

    ``beside_server``: for a tool that runs while a server uses the same SQLite file
    and writes only what no server holds in memory (``hexgames moderate``); a server
    opens it alone (see :class:`~.sqlite.SqliteStorage`).

    ``database_url`` wins when given: ``postgresql://``/``postgres://`` URLs open
    PostgreSQL, ``sqlite:///path`` opens that SQLite file. Otherwise games go to an SQLite
    file in ``data_dir``. An unsupported URL raises ``ValueError`` naming what is accepted.
    """
    if database_url:
        url = database_url.strip()
        if url.startswith(("postgresql://", "postgres://")):
            from hexgames.web.storage.postgres import PostgresStorage

            return PostgresStorage(url)
        if url.startswith("sqlite:///"):
            from hexgames.web.storage.sqlite import SqliteStorage

            return SqliteStorage(url.removeprefix("sqlite:///"), lock=not beside_server)
        raise ValueError(
            f"unsupported DATABASE_URL {database_url!r}: expected postgresql://... or sqlite:///path"
        )
    from hexgames.web.storage.sqlite import SqliteStorage

    return SqliteStorage(Path(data_dir) / SQLITE_FILE, lock=not beside_server)
