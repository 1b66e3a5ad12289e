"""The SQL storage both backends run, assembled from its table-by-table parts.

SQLite and PostgreSQL share one schema and every statement; they differ only in how they
connect, the placeholder style of their driver and the hooks of
:class:`~.sql_connection.SqlConnection` (row locks, notifications, AI claims). Each part
holds the statements of a few tables, so a change to the lobby is made in
:mod:`.sql_lobby` without reading the rest.
"""

from __future__ import annotations

from hexgames.web.storage.sql_alerts import AlertTables
from hexgames.web.storage.sql_chat import ChatTables
from hexgames.web.storage.sql_conditional import ConditionalTables
from hexgames.web.storage.sql_limits import LimitTables
from hexgames.web.storage.sql_lobby import LobbyTables
from hexgames.web.storage.sql_players import PlayerTables
from hexgames.web.storage.sql_pools import PoolTables
from hexgames.web.storage.sql_presence import PresenceTables
from hexgames.web.storage.sql_profiles import ProfileTables
from hexgames.web.storage.sql_puzzles import PuzzleTables
from hexgames.web.storage.sql_ratings import RatingTables
from hexgames.web.storage.sql_relations import RelationTables
from hexgames.web.storage.sql_tournaments import TournamentTables


class SqlStorage(LobbyTables, PlayerTables, RatingTables, AlertTables, ConditionalTables,
                 PoolTables, PresenceTables, ProfileTables, PuzzleTables, LimitTables,
                 ChatTables, RelationTables, TournamentTables):
    """Games, the lobby, identities and ratings in one SQL database, behind one
    connection (see :class:`~.sql_connection.SqlConnection`). Subclasses provide the
    DB-API connection and the driver's placeholder and exceptions; what each method
    promises is written once, in :class:`~.interface.Storage`."""
