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

from hexgames.web.storage.confusables import SKELETON_VERSION, skeleton
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
    # Identities (hexgames.web.http.identity): a player, and the hashed secrets of the
    # browsers ("sessions") that act as it. ``name_key`` is the name folded for the
    # case-insensitive uniqueness check; ``name_skeleton`` its look-alike form
    # (hexgames.web.storage.confusables; added by :func:`migrate` to older databases).
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
    # Glicko-2 ratings (hexgames.web.ratings.glicko2), one row per player and rating pool.
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
    # Rating history (profiles' graphs): a player's rating in a pool after each rated
    # game, written with the rating by ``apply_rated_result`` (older databases get it
    # from ``rated_results`` in :func:`migrate`).
    """CREATE TABLE IF NOT EXISTS rating_history (
        player_id TEXT NOT NULL REFERENCES players(id) ON DELETE CASCADE,
        pool TEXT NOT NULL,
        game_id TEXT NOT NULL,
        rated_at TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        deviation DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL,
        PRIMARY KEY (game_id, player_id)
    )""",
    # ``games``: the player's rated games in the pool with this one (the history's order:
    # several games may be rated within the second of ``rated_at``).
    "CREATE INDEX IF NOT EXISTS rating_history_by_player "
    "ON rating_history (player_id, pool, games)",
    # How each finished game went for each identity in it (profiles: statistics by
    # colour and the game search), filed when the game ends (hexgames.web.ratings.results;
    # games that ended before are filed when their player's profile is read) and
    # deleted when the game is reopened. ``result``: win, draw, loss or none (aborted).
    # No foreign key on the players: a deleted guest's rows go with it explicitly.
    """CREATE TABLE IF NOT EXISTS game_results (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        opponent_id TEXT,
        game TEXT NOT NULL,
        pool TEXT NOT NULL,
        rated INTEGER NOT NULL,
        color TEXT NOT NULL,
        result TEXT NOT NULL,
        ended_at TEXT NOT NULL,
        PRIMARY KEY (game_id, seat)
    )""",
    # The game search: newest first, filtered by variant, opponent or result.
    "CREATE INDEX IF NOT EXISTS game_results_by_player "
    "ON game_results (player_id, ended_at)",
    "CREATE INDEX IF NOT EXISTS game_results_by_pool "
    "ON game_results (player_id, pool, ended_at)",
    "CREATE INDEX IF NOT EXISTS game_results_by_opponent "
    "ON game_results (player_id, opponent_id, ended_at)",
    "CREATE INDEX IF NOT EXISTS game_results_by_result "
    "ON game_results (player_id, result, ended_at)",
    # Secrets the site generates once (the key of identity-derived seat tokens) and
    # other values it keeps between runs.
    """CREATE TABLE IF NOT EXISTS site_secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    # Quick-pairing pools (hexgames.web.lobby.pools): one row per player joining a pool;
    # ``status`` goes waiting -> paired (``game_id``) or left, exactly once. Times in ms.
    # A player waits in one pool at most (the partial unique index).
    """CREATE TABLE IF NOT EXISTS pool_entries (
        id TEXT PRIMARY KEY,
        pool TEXT NOT NULL,
        rated INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        name TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        token TEXT NOT NULL,
        origin TEXT NOT NULL,
        status TEXT NOT NULL,
        game_id TEXT,
        joined_at BIGINT NOT NULL,
        seen_at BIGINT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS pool_entries_by_status ON pool_entries (status, joined_at)",
    "CREATE INDEX IF NOT EXISTS pool_entries_by_player ON pool_entries (player_id, joined_at)",
    "CREATE UNIQUE INDEX IF NOT EXISTS pool_entries_one_waiting ON pool_entries (player_id) "
    "WHERE status = 'waiting'",
    # When each seat of an online game was last seen by any server process (ms; a game
    # socket open or an action): what absence claims are judged on (hexgames.web.play.absence).
    """CREATE TABLE IF NOT EXISTS presence (
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        seen_at BIGINT NOT NULL,
        PRIMARY KEY (game_id, seat)
    )""",
    # Turn emails (hexgames.web.alerts.turns): a player's address, verified or not (the hash of
    # the verification link's token until it is opened), the opt-in and the emails'
    # language (of the page the settings were last changed from; added to older databases
    # by :func:`migrate`, from ADDED_TABLE_COLUMNS)...
    """CREATE TABLE IF NOT EXISTS player_alerts (
        player_id TEXT PRIMARY KEY REFERENCES players(id) ON DELETE CASCADE,
        email TEXT,
        verified INTEGER NOT NULL DEFAULT 0,
        turn_emails INTEGER NOT NULL DEFAULT 0,
        verify_hash TEXT,
        updated_at TEXT NOT NULL,
        language TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS player_alerts_by_token ON player_alerts (verify_hash)",
    # ...and one row per email sent: the key makes it one per game and turn (whatever the
    # processes), the rows of the last hour bound a player's emails.
    """CREATE TABLE IF NOT EXISTS turn_emails (
        game_id TEXT NOT NULL,
        ply INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        sent_at TEXT NOT NULL,
        PRIMARY KEY (game_id, ply)
    )""",
    "CREATE INDEX IF NOT EXISTS turn_emails_by_player ON turn_emails (player_id, sent_at)",
    # Conditional moves of correspondence games (hexgames.web.play.conditional_moves): a line
    # its owner's seat expects and answers from ply ``ply`` on (``turns``: JSON lists of
    # actions), voided when the actions before ``ply`` no longer hash to ``digest``.
    """CREATE TABLE IF NOT EXISTS conditional_lines (
        id TEXT PRIMARY KEY,
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        ply INTEGER NOT NULL,
        digest TEXT NOT NULL,
        turns TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS conditional_lines_by_game ON conditional_lines (game_id, seat)",
    # Puzzles (hexgames.web.ratings.puzzles): a player's Glicko-2 puzzle rating per game
    # with the best streak, each puzzle's own rating once someone tried it, one row per
    # player and puzzle tried (its key makes only the first try count, whatever the
    # processes), and the streaks being played (deleted a day after their last try).
    """CREATE TABLE IF NOT EXISTS puzzle_ratings (
        player_id TEXT NOT NULL REFERENCES players(id) ON DELETE CASCADE,
        game TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        deviation DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        attempts INTEGER NOT NULL,
        solved INTEGER NOT NULL,
        best_streak INTEGER NOT NULL,
        rated_at TEXT NOT NULL,
        PRIMARY KEY (player_id, game)
    )""",
    """CREATE TABLE IF NOT EXISTS puzzle_stats (
        game TEXT NOT NULL,
        puzzle_id TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        deviation DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        attempts INTEGER NOT NULL,
        solved INTEGER NOT NULL,
        PRIMARY KEY (game, puzzle_id)
    )""",
    """CREATE TABLE IF NOT EXISTS puzzle_attempts (
        player_id TEXT NOT NULL REFERENCES players(id) ON DELETE CASCADE,
        game TEXT NOT NULL,
        puzzle_id TEXT NOT NULL,
        win INTEGER NOT NULL,
        changes TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (player_id, game, puzzle_id)
    )""",
    """CREATE TABLE IF NOT EXISTS puzzle_streaks (
        id TEXT PRIMARY KEY,
        player_id TEXT,
        game TEXT NOT NULL,
        puzzles TEXT NOT NULL,
        solved INTEGER NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS puzzle_streaks_by_update ON puzzle_streaks (updated_at)",
    # Rate limits shared by every server process (hexgames.web.storage.site_limits): one row per
    # key (what is limited and for whom: ``login-ip:198.51.100.7``), the hits of its
    # current window, which began at ``started`` and ends at ``expires`` (ms since the
    # epoch). A hit after ``expires`` starts a new window; rows whose window ended are
    # pruned (``rate_limits_by_expiry``), so the table holds only the current windows.
    """CREATE TABLE IF NOT EXISTS rate_limits (
        key TEXT PRIMARY KEY,
        started BIGINT NOT NULL,
        expires BIGINT NOT NULL,
        hits INTEGER NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS rate_limits_by_expiry ON rate_limits (expires)",
    # Chat (issue 42): each game's two rooms, ``players`` and ``spectators``; a message is
    # numbered in its room (``seq``: the primary key makes two processes that numbered
    # alike collide instead of both storing). Deleted with the game.
    """CREATE TABLE IF NOT EXISTS chat_messages (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        room TEXT NOT NULL,
        seq INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        name TEXT NOT NULL,
        text TEXT NOT NULL,
        at BIGINT NOT NULL,
        PRIMARY KEY (game_id, room, seq)
    )""",
    "CREATE INDEX IF NOT EXISTS chat_by_player ON chat_messages (player_id, at)",
    # Reported messages, a copy each, until a moderator closes them.
    """CREATE TABLE IF NOT EXISTS chat_reports (
        id TEXT PRIMARY KEY,
        game_id TEXT NOT NULL,
        room TEXT NOT NULL,
        seq INTEGER NOT NULL,
        reporter_id TEXT NOT NULL,
        reported_id TEXT NOT NULL,
        text TEXT NOT NULL,
        at BIGINT NOT NULL,
        status TEXT NOT NULL DEFAULT 'open',
        UNIQUE (game_id, room, seq, reporter_id)
    )""",
    # Players a moderator silenced: no chat until ``until`` (ms since the epoch).
    """CREATE TABLE IF NOT EXISTS chat_silences (
        player_id TEXT PRIMARY KEY,
        until BIGINT NOT NULL,
        reason TEXT NOT NULL,
        at BIGINT NOT NULL
    )""",
    # Follows and blocks between identities (``kind``: follow or block), one row each way.
    """CREATE TABLE IF NOT EXISTS relations (
        player_id TEXT NOT NULL REFERENCES players(id) ON DELETE CASCADE,
        other_id TEXT NOT NULL REFERENCES players(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        at BIGINT NOT NULL,
        PRIMARY KEY (player_id, kind, other_id)
    )""",
    "CREATE INDEX IF NOT EXISTS relations_to ON relations (other_id, kind)",
    # The chats a player muted (a room stays muted on reload and on another device).
    """CREATE TABLE IF NOT EXISTS muted_chats (
        player_id TEXT NOT NULL REFERENCES players(id) ON DELETE CASCADE,
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        PRIMARY KEY (player_id, game_id)
    )""",
    # Tournaments (issue 42; hexgames.web.tournaments.director). ``step`` counts the
    # claims (start, each Swiss round or arena wave, end): a conditional UPDATE on it
    # lets exactly one process move a tournament on. JSON in ``options``, ``settings``
    # and ``control``; times in ms since the epoch.
    """CREATE TABLE IF NOT EXISTS tournaments (
        id TEXT PRIMARY KEY,
        creator_id TEXT NOT NULL,
        game TEXT NOT NULL,
        kind TEXT NOT NULL,
        options TEXT NOT NULL,
        settings TEXT NOT NULL,
        control TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'created',
        created_at BIGINT NOT NULL,
        starts_at BIGINT NOT NULL,
        ends_at BIGINT,
        max_players INTEGER NOT NULL,
        step INTEGER NOT NULL DEFAULT 0,
        version INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX IF NOT EXISTS tournaments_by_creator ON tournaments (creator_id, created_at)",
    "CREATE INDEX IF NOT EXISTS tournaments_by_status ON tournaments (status, starts_at)",
    """CREATE TABLE IF NOT EXISTS tournament_players (
        tournament_id TEXT NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
        player_id TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        joined_at BIGINT NOT NULL,
        paused INTEGER NOT NULL DEFAULT 0,
        withdrawn INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament_id, player_id)
    )""",
    "CREATE INDEX IF NOT EXISTS tournament_players_by_player ON tournament_players (player_id)",
    # A pairing: board ``board`` of step ``step``; ``second_id`` NULL for a Swiss bye;
    # ``result`` NULL while the game is live (see records.TOURNAMENT_RESULTS).
    """CREATE TABLE IF NOT EXISTS tournament_games (
        tournament_id TEXT NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        board INTEGER NOT NULL,
        first_id TEXT NOT NULL,
        second_id TEXT,
        paired_at BIGINT NOT NULL,
        game_id TEXT,
        result TEXT,
        turns INTEGER NOT NULL DEFAULT 0,
        first_berserk INTEGER NOT NULL DEFAULT 0,
        second_berserk INTEGER NOT NULL DEFAULT 0,
        ended_at BIGINT,
        PRIMARY KEY (tournament_id, step, board)
    )""",
    "CREATE UNIQUE INDEX IF NOT EXISTS tournament_games_by_game ON tournament_games (game_id)",
)

#: Columns of ``games`` added after the first release, with their types.
ADDED_COLUMNS = (("start", "TEXT"), ("rated", "INTEGER NOT NULL DEFAULT 0"), ("meta", "TEXT"),
                 ("deadline", "BIGINT"), ("version", "INTEGER NOT NULL DEFAULT 0"))
#: Columns of other tables added after the tables were: ``(table, column, type)``.
ADDED_TABLE_COLUMNS = (("player_alerts", "language", "TEXT"),)


def migrate(transaction: Transaction, sql: Callable[[str], str]) -> None:
    """Bring an older database up to date: the added columns (of ``games`` and of other
    tables), the players' look-alike column, the rating history of games rated before it
    was kept, hashed seat tokens.
    (New tables are created by :data:`SCHEMA`'s ``IF NOT EXISTS``.) ``sql`` turns ``?``
    placeholders into the driver's style.

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
    for table, column, kind in ADDED_TABLE_COLUMNS:
        try:
            with transaction() as cursor:
                cursor.execute(f"SELECT {column} FROM {table} WHERE 1 = 0")
        except StorageUnavailable:
            with transaction() as cursor:
                cursor.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    _migrate_skeletons(transaction, sql)
    _migrate_rating_history(transaction, sql)
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


#: The ``site_secrets`` row holding the version of the stored skeletons.
SKELETON_ROW = "name_skeleton_version"


def _migrate_skeletons(transaction: Transaction, sql: Callable[[str], str]) -> None:
    """Players' look-alike column: added to an older database, filled where empty, and
    recomputed for every player once when :func:`~hexgames.web.storage.confusables.skeleton`
    changed (:data:`~hexgames.web.storage.confusables.SKELETON_VERSION` above the stored one)."""
    try:
        with transaction() as cursor:
            cursor.execute(sql("SELECT name_skeleton FROM players WHERE id = ?"), ("",))
    except StorageUnavailable:
        with transaction() as cursor:
            cursor.execute("ALTER TABLE players ADD COLUMN name_skeleton TEXT")
    with transaction() as cursor:
        cursor.execute("CREATE INDEX IF NOT EXISTS players_by_skeleton "
                       "ON players (name_skeleton)")
        cursor.execute(sql("SELECT value FROM site_secrets WHERE name = ?"), (SKELETON_ROW,))
        row = cursor.fetchone()
        current = row is not None and row[0] == str(SKELETON_VERSION)
        cursor.execute("SELECT id, name FROM players" if not current
                       else "SELECT id, name FROM players WHERE name_skeleton IS NULL")
        for player_id, name in cursor.fetchall():
            cursor.execute(sql("UPDATE players SET name_skeleton = ? WHERE id = ?"),
                           (skeleton(name), player_id))
        if not current:
            cursor.execute(sql("INSERT INTO site_secrets (name, value) VALUES (?, ?) "
                               "ON CONFLICT (name) DO UPDATE SET value = excluded.value"),
                           (SKELETON_ROW, str(SKELETON_VERSION)))


def _migrate_rating_history(transaction: Transaction, sql: Callable[[str], str]) -> None:
    """The rating history of the games rated before it was kept: each rated result's
    changes (``after`` and ``deviation`` of each player, as shown at the end of the
    game) become history rows. Only results that have none yet (an index lookup each):
    nothing to do on a database that keeps it."""
    with transaction() as cursor:
        cursor.execute(
            "SELECT r.game_id, r.pool, r.changes, r.rated_at FROM rated_results r "
            "WHERE r.changes <> 'null' AND NOT EXISTS "
            "(SELECT 1 FROM rating_history h WHERE h.game_id = r.game_id)"
        )
        rows = cursor.fetchall()
        for game_id, pool, raw, rated_at in rows:
            changes = json.loads(raw)
            for change in changes if isinstance(changes, list) else ():
                cursor.execute(
                    sql("INSERT INTO rating_history (player_id, pool, game_id, rated_at, "
                        "rating, deviation, games) SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS "
                        "(SELECT 1 FROM players WHERE id = ?) "
                        "ON CONFLICT (game_id, player_id) DO NOTHING"),
                    (change["player_id"], change.get("pool", pool), game_id, rated_at,
                     float(change["after"]), float(change["deviation"]),
                     int(change["games"]), change["player_id"]),
                )
