"""What the rest of the web app may ask of a storage, and what each call promises.

The service, identities and rating recording are written against :class:`Storage`, not
against the SQL: this is the one page that lists the whole surface (the SQL behind it is
spread over a module per group of tables) and says what is atomic, what is conditional and
which errors come back. mypy checks that both backends keep to it, since
:func:`~hexgames.web.storage.open_storage` returns them as a ``Storage``.

Every call may raise :class:`~.errors.StorageUnavailable` (the database failed or did not
answer in time). Times (``at``, ``created_before``) are ISO 8601 strings in UTC.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from hexgames.web.storage.meta import GameMeta, SeatPlayer
from hexgames.web.storage.records import (
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
    PuzzleRatingRecord,
    PuzzleStatRecord,
    PuzzleStreak,
    RatingPoint,
    RatingRecord,
    SeatResult,
    Seek,
    StoredGame,
    StoredMove,
    TournamentGame,
    TournamentRecord,
    TournamentState,
)


class Storage(Protocol):
    """A place where games live between requests and across restarts."""

    #: True when several server processes may use this storage at once (PostgreSQL):
    #: they then learn of each other's changes through :meth:`listen`.
    shared: bool

    def close(self) -> None:
        """Release the connection (and, for SQLite, the file's lock)."""

    # ---------------------------------------------------------------- games
    def create_game(self, game: StoredGame) -> None:
        """Store a new game together with its initial actions (an uploaded record has some)."""

    def load_game(self, game_id: str) -> StoredGame | None:
        """The game with its actions in order, or ``None`` when there is no such game."""

    def load_tail(self, game_id: str, since: int) -> tuple[StoredGame, int] | None:
        """The game's row with only the actions from ply ``since`` on (in ``actions``),
        and the number of stored actions; ``None`` when there is no such game. What a
        process that holds the first ``since`` actions reads when told of a change."""

    def list_games(self, limit: int = 50) -> list[StoredGame]:
        """Most recently updated games first; ``actions`` is left empty (summaries)."""

    def games_with_status(self, status: str, limit: int = 200) -> list[StoredGame]:
        """Summaries (no actions) of games with ``status``, most recently updated first."""

    def clocked_games(self) -> list[tuple[str, int]]:
        """(id, deadline in ms since the epoch) of every game being played whose clock
        is running."""

    def append_actions(self, game_id: str, first_ply: int, actions: Sequence[str],
                       at: str, seen: tuple[int, int] | None = None) -> int | None:
        """Record actions played from ply ``first_ply`` on (0-based) and touch the game;
        returns the row's new version. :class:`~.errors.StaleWrite`, and nothing stored,
        unless the stored game ends at ``first_ply`` (another writer got there first)
        and is still being played (an end stored first wins). ``seen``: ``(seat, ms)``,
        the mover's presence (:meth:`touch_presence`), stored in the same commit."""

    def store_move(self, move: MoveWrite) -> StoredMove:
        """Store a move in one transaction: its actions (from ply ``move.first_ply``), the
        mover's presence, the meta it changes and, when it ended the game, the result;
        touch the game and return the row's new version and meta as written. The same
        conditions as :meth:`append_actions` (:class:`~.errors.StaleWrite` and nothing
        stored unless the game is still being played and ends at ``first_ply``). A meta
        change is never lost to a concurrent one: ``move.meta`` is written only while the
        row is at ``move.version``, else ``move.change`` is applied to the stored meta
        under the row's lock. PostgreSQL stores the usual case (the row as the mover held
        it) in one statement: one round trip, one commit."""

    def store_moves(self, moves: Sequence[MoveWrite]) -> list[StoredMove | Exception]:
        """:meth:`store_move` for moves of several games at once (those made in the same
        turn of the event loop): for each, what it returned or the exception it raised,
        in order; each succeeds or fails alone, and none is stored before its commit.
        PostgreSQL commits them together (one flush of its log for all)."""

    def truncate_actions(self, game_id: str, keep: int, at: str) -> int | None:
        """Forget every action from ply ``keep`` on (an undo) and touch the game;
        returns the row's new version."""

    def finish_game(self, game_id: str, winner: str | None, reason: str | None,
                    at: str) -> int | None:
        """Mark the game over (or playing again, with ``winner=reason=None`` after an
        undo); returns the row's new version."""

    def set_seats(self, game_id: str, players: list[SeatPlayer],
                  seat_tokens: list[str | None], at: str,
                  version: int | None = None) -> int | None:
        """Replace the players and seat credentials (stored hashed) of a game (an
        invitation was claimed); returns the row's new version. With ``version``, only
        if the row is still at it (:class:`~.errors.MetaConflict` otherwise: an
        invitation claimed through two processes at once has one claimant)."""

    def set_meta(self, game_id: str, meta: GameMeta, at: str,
                 version: int | None = None, keep: int | None = None,
                 new_game: StoredGame | None = None) -> int | None:
        """Replace the game's ``meta`` (clock, offers...) and its flag-fall deadline
        (``meta.deadline``, ms since the epoch, or none); returns the row's new
        version. ``version``: only if the row is still at it (:class:`~.errors.MetaConflict`
        otherwise). In the same transaction: ``keep``, the actions from that ply on are
        deleted (an accepted takeback); ``new_game`` is stored (a rematch: with the
        condition, exactly one per game)."""

    def update_meta(self, game_id: str, change: Callable[[GameMeta], None], at: str,
                    plies: int | None = None, status: str | None = None,
                    ) -> StoredGame | None:
        """Apply ``change`` (a function of the meta, which it changes in place) to
        the stored meta and store it, in one transaction that holds the game's row (a
        concurrent conditional write waits, then finds a new version): for changes that
        must never be lost to a concurrent one nor retried (a move's clock). Only while
        the game has ``plies`` stored actions and ``status`` (when given); else ``None``
        and nothing is written. Returns the row as written (without actions)."""

    def end_if_playing(self, game_id: str, winner: str | None, reason: str,
                       meta: GameMeta, at: str, version: int | None = None) -> bool:
        """End a game still being played (a flag fall, an abort): False when it was
        already over (another process adjudicated it first) or, with ``version``, when
        its row is no longer at that version (the ending was decided on an older state;
        the row then has ``version + 1``)."""

    def unopened_games(self, created_before: str, limit: int, correspondence: bool
                       ) -> list[tuple[str, GameMeta]]:
        """(id, meta) of online games still being played whose invitation was never
        opened, created before ``created_before``, oldest first (``correspondence``:
        those with a correspondence clock, else the others)."""

    # ------------------------------------------------------------ the lobby
    def create_seek(self, seek: Seek) -> None:
        """Post a challenge (its ``creator_token`` is stored hashed)."""

    def load_seek(self, seek_id: str) -> Seek | None:
        """The challenge, in any status, or ``None``."""

    def open_seeks(self, limit: int = 200) -> list[Seek]:
        """Open challenges, oldest first."""

    def accept_seek(self, seek_id: str, game: StoredGame) -> None:
        """Take the open challenge ``seek_id`` and store ``game`` for it, in one
        transaction: of two acceptors racing (in any processes) exactly one gets a game;
        the other gets :class:`~.errors.SeekTaken` and nothing is stored for it."""

    def expire_seek(self, seek_id: str) -> bool:
        """Close an open challenge nobody accepted in time (status ``expired``); False
        when it was no longer open."""

    def cancel_seek(self, seek_id: str, creator_token: str) -> bool:
        """Withdraw an open challenge; only its creator (who holds the token) may.
        False when it was not open or the token is not the creator's."""

    # ----------------------------------------------------------- identities
    # See hexgames.web.http.identity.
    def create_player(self, player: PlayerRecord, secret_hash: str) -> None:
        """Store a new player with its first browser's hashed secret
        (:class:`~.errors.NameTaken` when another player has the name, ignoring case)."""

    def add_session(self, secret_hash: str, player_id: str, at: str) -> None:
        """Let one more browser (hashed secret) act as the player (a login)."""

    def delete_session(self, secret_hash: str) -> None:
        """Forget one browser of a player (a logout)."""

    def player_by_session(self, secret_hash: str) -> PlayerRecord | None:
        """The player the browser with this hashed secret acts as, or ``None``."""

    def player_by_id(self, player_id: str) -> PlayerRecord | None:
        """The player, or ``None``."""

    def player_by_name(self, name: str) -> PlayerRecord | None:
        """The player whose name equals ``name`` ignoring case."""

    def player_names(self, player_ids: Sequence[str]) -> dict[str, str]:
        """The current name of each player found among ``player_ids``."""

    def rename_player(self, player_id: str, name: str) -> None:
        """Change the name (:class:`~.errors.NameTaken` when another player has it,
        :class:`~.errors.NameLookAlike` when another's reads the same)."""

    def set_password(self, player_id: str, password_hash: str | None) -> None:
        """Set (or, with ``None``, remove) the player's password hash."""

    def change_password(self, player_id: str, password_hash: str, keep_session: str | None
                        ) -> None:
        """Set the password and, in the same transaction, forget every browser of the
        player except ``keep_session`` (a hashed secret): a password change logs the
        player's other browsers out."""

    def games_of_player(self, player_id: str, limit: int = 100) -> list[StoredGame]:
        """The games in which the player holds a seat, most recently updated first
        (summaries: ``actions`` left empty)."""

    def delete_idle_guests(self, created_before: str, aborted_reason: str, limit: int
                           ) -> list[str]:
        """Delete at most ``limit`` guests (the site's ``Guest-`` name, no password)
        created and last logged in before ``created_before`` that hold no seat but in
        games ended ``aborted_reason`` without a winner and post no open challenge;
        returns their ids."""

    # ---------------------------------------------------------- site values
    def site_secret(self, name: str, make: Callable[[], str]) -> str:
        """The site-wide secret ``name``, created with ``make()`` the first time (the
        first process to store it wins; every process then reads the same value)."""

    def site_value(self, name: str) -> str | None:
        """A value the site keeps (``set_site_value``), or ``None``."""

    def set_site_value(self, name: str, value: str) -> None:
        """Keep ``value`` under ``name`` (replacing it)."""

    # -------------------------------------------------------------- ratings
    # The Glicko-2 maths is hexgames.web.ratings.glicko2; the storage applies its results.
    def ratings_of(self, player_id: str) -> list[RatingRecord]:
        """The player's ratings in the pools where it has rated games, by pool."""

    def ratings_of_players(self, player_ids: Sequence[str]) -> list[RatingRecord]:
        """The ratings of several players at once (as :meth:`ratings_of` each), by player
        then pool: one read for a page that shows many players (TV). At most a few hundred
        ids: the caller bounds them."""

    def leaderboard(self, pool: str, limit: int = 100) -> list[tuple[RatingRecord, str]]:
        """The pool's ratings, best first, with the players' names."""

    def rating_pools(self) -> list[str]:
        """The pools in which some rated game was played, in order."""

    def apply_rated_result(
        self, game_id: str, pool: str, player_ids: tuple[str, str], at: str,
        compute: Callable[[RatingRecord | None, RatingRecord | None],
                          tuple[RatingRecord, RatingRecord, Any]],
    ) -> tuple[bool, Any]:
        """Apply a rated game's result once: in one transaction, mark the game as rated
        (a second call finds the mark and changes nothing), read both players' ratings
        (locked against a concurrent update), store what ``compute`` returns and keep its
        third element (JSON) as the game's rating changes. Returns ``(applied now,
        changes)``; a repeated call returns ``(False, the changes stored the first time)``.
        Each player's new rating is added to the rating history in the same transaction."""

    # ------------------------------------------------------------- profiles
    # See hexgames.web.routes.profiles and hexgames.web.ratings.results.
    def rating_history(self, player_id: str, per_pool: int = 1000) -> list[RatingPoint]:
        """The player's rating after each rated game, by pool then in the order they
        were played, at most the last ``per_pool`` of each pool."""

    def file_results(self, game_id: str, results: Sequence[SeatResult]) -> bool:
        """Replace the filed results of a finished game by ``results`` (one per seat an
        identity holds). False, and nothing stored, unless the game is over (a game
        reopened meanwhile keeps none: reopening deletes them, see ``finish_game``)."""

    def unfiled_games(self, player_id: str, limit: int) -> list[str]:
        """Ids of at most ``limit`` finished games in which the player holds a seat
        that has no filed result (games that ended before results were filed, or
        whose filing failed), most recently updated first."""

    def result_counts(self, player_id: str
                      ) -> list[tuple[str, str, int, str, bool, str, int]]:
        """``(game, pool, seat, colour played, rated, result, count)`` of the player's
        filed finished games with a result (aborted games left out)."""

    def opponent_counts(self, player_id: str) -> list[tuple[str, str, str, int]]:
        """``(opponent id, current name, result, count)`` of the player's filed
        finished games against identities (aborted games left out)."""

    def search_games(self, player_id: str, query: GameQuery, offset: int, limit: int
                     ) -> tuple[list[ListedGame], int]:
        """The player's filed finished games matching ``query``, newest first, from
        ``offset``, at most ``limit``; and how many match in all."""

    def finished_game_ids(self, player_id: str, limit: int) -> list[str]:
        """Ids of the player's finished games, most recently updated first, at most
        ``limit`` (what a profile's export writes)."""

    # ---------------------------------------------------------- turn emails
    # See hexgames.web.alerts.turns.
    def alert_settings(self, player_id: str) -> AlertSettings | None:
        """The player's turn-email settings, or ``None`` when it never set any."""

    def set_alert_email(self, player_id: str, email: str | None, verify_hash: str | None,
                        at: str, language: str | None = None) -> None:
        """Give the player a new email address (``None``: none, and turn emails off),
        unverified until :meth:`verify_alert_email` is called with ``verify_hash``; a
        ``language`` (of the turn emails) replaces the stored one, ``None`` keeps it."""

    def set_turn_emails(self, player_id: str, on: bool, at: str,
                        language: str | None = None) -> None:
        """Turn the player's turn emails on or off (sent only to a verified address); a
        ``language`` (of the emails) replaces the stored one, ``None`` keeps it."""

    def verify_alert_email(self, verify_hash: str, at: str) -> str | None:
        """Mark the address whose verification token hashes to ``verify_hash`` verified
        (once: the hash is forgotten); returns its player's id, or ``None``."""

    def claim_turn_email(self, game_id: str, ply: int, player_id: str, at: str,
                         since: str, limit: int, forget_before: str) -> bool:
        """Record the turn email of ``game_id`` at ``ply`` to ``player_id``, about to be
        sent: False, and nothing recorded, when that turn's email was claimed already (by
        any process) or the player was sent ``limit`` emails since ``since``. The
        player's marks older than ``forget_before`` are deleted meanwhile."""

    # ----------------------------------------------------- conditional moves
    # See hexgames.web.play.conditional_moves.
    def conditional_lines(self, game_id: str) -> list[ConditionalLine]:
        """The game's stored conditional lines (both seats), oldest first."""

    def add_conditional_line(self, line: ConditionalLine, limit: int,
                             replaces: Sequence[str] = ()) -> str:
        """Store ``line`` in one transaction that holds the game's row, only while the
        game is being played with exactly ``line.ply`` stored actions (else ``"moved"``,
        nothing stored) and, once the lines ``replaces`` (ids of the same seat) are
        deleted, its seat holds fewer than ``limit`` lines (else ``"full"``, nothing
        deleted); ``"stored"`` when done."""

    def delete_conditional_lines(self, game_id: str, ids: Sequence[str] | None = None,
                                 seat: int | None = None) -> int:
        """Delete the game's lines ``ids`` (``None``: all), of ``seat`` only when given;
        returns how many went."""

    # ------------------------------------------------- quick-pairing pools
    # See hexgames.web.lobby.pools.
    def join_pool(self, entry: PoolEntry) -> None:
        """Put ``entry`` (status ``waiting``; its ``token`` is stored hashed) in its pool,
        taking its player out of any pool they wait in, in one transaction: a player
        waits in one pool at most."""

    def pool_entry(self, entry_id: str) -> PoolEntry | None:
        """The entry, in any status, or ``None``."""

    def latest_pool_entry(self, player_id: str) -> PoolEntry | None:
        """The entry the player waits with, else their most recent one, or ``None``."""

    def waiting_pool_entries(self, limit: int) -> list[PoolEntry]:
        """Entries still waiting, in every pool, longest waiting first."""

    def touch_pool_entry(self, entry_id: str, seen_at: int) -> bool:
        """A sign of life of a waiting entry (ms): its ``seen_at`` moves forward. False
        when it no longer waits."""

    def leave_pool(self, player_id: str) -> bool:
        """Take the player out of the pool they wait in (status ``left``); False when
        they waited in none."""

    def drop_stale_pool_entries(self, seen_before: int, forget_before: int) -> int:
        """Entries waiting with no sign of life since ``seen_before`` (ms) leave; entries
        no longer waiting that joined before ``forget_before`` are deleted. Returns how
        many left."""

    def pair_pool_entries(self, first_id: str, second_id: str, game: StoredGame) -> None:
        """Pair two waiting entries and store their ``game``, in one transaction: of
        processes pairing at once an entry is paired once; when either entry no longer
        waits, :class:`~.errors.PairingTaken` and nothing is stored."""

    # ------------------------------------------------------------- presence
    # See hexgames.web.play.absence.
    def touch_presence(self, seen: Sequence[tuple[str, int, int]]) -> None:
        """``(game id, seat, ms)``: the seat was seen then (a socket of it open, an
        action of it); each row keeps the latest time any process wrote."""

    def presence(self, game_ids: Sequence[str]) -> dict[str, dict[int, int]]:
        """The last time each seat of these games was seen (game id -> seat -> ms);
        seats never seen are missing."""

    # -------------------------------------------------------------- puzzles
    # The Glicko-2 maths and the choice of puzzles are hexgames.web.ratings.puzzles.
    def puzzle_rating(self, player_id: str, game: str) -> PuzzleRatingRecord | None:
        """The player's puzzle rating in ``game`` (with its best streak), or ``None``."""

    def puzzle_stats(self, game: str) -> dict[str, PuzzleStatRecord]:
        """The ratings of ``game``'s puzzles that someone tried, by puzzle id."""

    def attempted_puzzles(self, player_id: str, game: str) -> set[str]:
        """The ids of ``game``'s puzzles the player tried (rated first tries)."""

    def record_puzzle_attempt(
        self, player_id: str, game: str, puzzle_id: str, win: bool, at: str,
        player_start: tuple[float, float, float], puzzle_start: tuple[float, float, float],
        compute: Callable[[PuzzleRatingRecord, PuzzleStatRecord],
                          tuple[PuzzleRatingRecord, PuzzleStatRecord, Any]],
    ) -> tuple[bool, Any]:
        """Apply a player's first try at a puzzle once: in one transaction, mark the
        (player, puzzle) pair as tried (a later call finds the mark and changes nothing),
        read the player's and the puzzle's ratings (created at ``player_start`` and
        ``puzzle_start``, (rating, deviation, volatility), when missing; locked against a
        concurrent try), store what ``compute`` returns and keep its third element (JSON)
        as the try's changes. Returns ``(applied now, changes)``; a repeated call returns
        ``(False, the changes stored the first time)``."""

    def create_streak(self, streak: PuzzleStreak) -> None:
        """Store a new puzzle streak."""

    def load_streak(self, streak_id: str) -> PuzzleStreak | None:
        """The streak, or ``None``."""

    def advance_streak(self, streak_id: str, solved: int, won: bool, at: str,
                       player_start: tuple[float, float, float],
                       keep_best: bool) -> PuzzleStreak | None:
        """Judge the streak's puzzle number ``solved`` once: solved (``won``) moves the
        streak on, a mistake ends it; it also ends after its last puzzle. Only while the
        streak is playing with ``solved`` puzzles solved (else ``None``: another request
        judged that puzzle first). An ended streak with ``keep_best`` raises its player's
        best streak in the game (a rating row made at ``player_start`` if missing)."""

    def delete_streaks(self, updated_before: str) -> int:
        """Forget the streaks last played before ``updated_before``; how many."""

    # ------------------------------------------------------------------ chat
    # Issue 42; the rooms and who may read or post: hexgames.web.chat.rules.
    def post_chat(self, game_id: str, room: str, player_id: str, name: str, text: str,
                  at: int, room_limit: int) -> ChatMessage:
        """Store a message at the end of the room, numbered after the last one (two
        processes posting at once store both, numbered apart). :class:`~.errors.
        ChatRefused` when the writer is silenced at ``at``, the game is unknown, or the
        room already holds ``room_limit`` messages: nothing stored."""

    def chat_messages(self, game_id: str, room: str, after: int = 0,
                      limit: int = 200) -> list[ChatMessage]:
        """The room's messages numbered after ``after``, oldest first, at most ``limit``."""

    def newest_chat_messages(self, game_id: str, room: str,
                             limit: int = 200) -> list[ChatMessage]:
        """The room's last ``limit`` messages, oldest first (what a reader opening the
        chat is shown: one read of those rows only)."""

    def chat_posts_since(self, player_id: str, since: int) -> int:
        """How many messages the player stored after ``since`` (ms), in every game."""

    def report_chat(self, game_id: str, room: str, seq: int, reporter_id: str,
                    at: int) -> ChatReport | None:
        """Keep a copy of a message for the moderators (once per reporter and message:
        a second report returns the first); ``None`` for an unknown message."""

    def chat_reports(self, status: str | None = "open", limit: int = 100) -> list[ChatReport]:
        """Reports oldest first (``status`` ``open``, ``closed``, or ``None``: all)."""

    def close_chat_report(self, report_id: str) -> bool:
        """Mark a report dealt with; False when it was unknown or closed already."""

    def silence_chat(self, player_id: str, until: int, reason: str, at: int) -> None:
        """No chat from the player until ``until`` (ms; a later call replaces it, a past
        ``until`` lifts it)."""

    def chat_silenced_until(self, player_id: str, now: int) -> int | None:
        """When the player's silence ends, or ``None`` when none holds at ``now``."""

    # ------------------------------------------------------------- relations
    def set_relation(self, player_id: str, other_id: str, kind: str, on: bool,
                     at: int) -> bool:
        """Start (``on``) or end a ``follow`` or ``block`` of ``other_id`` by
        ``player_id``; True when it changed anything."""

    def relations_of(self, player_id: str, kind: str, limit: int = 500) -> list[str]:
        """The identities ``player_id`` follows or blocks, oldest first."""

    def related_to(self, other_id: str, kind: str, limit: int = 500) -> list[str]:
        """The identities that follow or block ``other_id`` (a player's followers)."""

    def blocked_between(self, pairs: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """The pairs (as given) of which either identity blocks the other (500 at most
        are asked)."""

    def mute_chat(self, player_id: str, game_id: str, on: bool) -> None:
        """Mute (``on``) or unmute a game's chat for the player."""

    def chat_muted(self, player_id: str, game_id: str) -> bool:
        """Whether the player muted the game's chat."""

    def chat_muters(self, game_id: str, player_ids: Sequence[str]) -> set[str]:
        """Those of ``player_ids`` who muted the game's chat (one read for a message's
        readers; a few hundred ids at most: the caller bounds them)."""

    # ----------------------------------------------------------- tournaments
    # Issue 42; the rules: hexgames.web.tournaments, the scheduling: its director. Times
    # here are ms since the epoch. Refusals are TournamentRefused subclasses
    # (hexgames.web.storage.sql_tournaments): nothing is stored then.
    def create_tournament(self, tournament: TournamentRecord, daily_limit: int) -> None:
        """Store a new tournament, unless its creator already created ``daily_limit`` in
        the 24 hours before its ``created_at`` (:class:`TournamentQuota`; counted and
        stored in one transaction, under a lock of the creator's player row)."""

    def join_tournament(self, tournament_id: str, player_id: str, rating: float,
                        at: int) -> bool:
        """Enter the player (``rating``: the pairing's); False when they are in already
        (a player who left comes back). :class:`TournamentUnknown`, or
        :class:`TournamentClosed` when it has ended or is full (under a lock of the
        tournament's row: two players cannot both take the last place)."""

    def leave_tournament(self, tournament_id: str, player_id: str) -> bool:
        """Withdraw the player (never paired again; their games stay); False when they
        were not in."""

    def pause_tournament(self, tournament_id: str, player_id: str, paused: bool) -> bool:
        """Pause (not paired until unpaused) or unpause; True when it changed anything."""

    def list_tournaments(self, which: str, limit: int = 50) -> list[TournamentRecord]:
        """``upcoming`` (by start), ``running`` (by start) or ``recent`` (finished, the
        latest first); at most ``limit`` (and never more than 200)."""

    def due_tournaments(self, now: int, limit: int = 100, after_id: str = "") -> list[str]:
        """The ids of the tournaments a director must look at: running, or created and
        due to start at ``now``; at most ``limit`` of them, by id, after ``after_id``
        (the director's cursor: every tournament gets its turn, however many are due)."""

    def load_tournament(self, tournament_id: str) -> TournamentState | None:
        """The tournament with its players and games, or ``None``."""

    def tournament_game(self, game_id: str) -> TournamentGame | None:
        """The tournament pairing a game was created for, or ``None`` (not a tournament
        game)."""

    def tournaments_of(self, player_id: str, limit: int = 50) -> list[TournamentRecord]:
        """The tournaments the player entered, the latest start first (their history)."""

    def claim_tournament_step(self, tournament_id: str, expected_step: int, at: int,
                              status: str | None = None) -> bool:
        """Move the tournament's step counter on (and its status to ``status``:
        ``running`` or ``finished``) only if it is still at ``expected_step`` and not
        finished; False, and nothing changed, when another process moved it first."""

    def store_pairing(self, tournament_id: str, expected_step: int,
                      games: Sequence[TournamentGame], at: int,
                      status: str | None = None) -> bool:
        """:meth:`claim_tournament_step` and the insertion of ``games`` (all of step
        ``expected_step + 1``) in one transaction: of several processes pairing the
        same step, exactly one stores its games; the others get False and store
        nothing."""

    def attach_tournament_game(self, tournament_id: str, step: int, board: int,
                               game_id: str | None, at: int) -> bool:
        """Give a stored pairing the game created for it, once; ``game_id`` ``None``:
        the game could not be created, and the pairing is void (no points, not live)."""

    def record_tournament_result(self, game_id: str, result: str, turns: int,
                                 first_berserk: bool, second_berserk: bool,
                                 at: int) -> bool:
        """Record a tournament game's result (``first``, ``second`` or ``draw``, from the
        side of the player who moved first) once; False when it was recorded already or
        the game is no tournament's."""

    # ------------------------------------- several processes on one database
    # ---------------------------------------------------------- rate limits
    # See hexgames.web.storage.site_limits: counted here, so every server process sees the same.
    def limit_hit(self, key: str, window_ms: int, now_ms: int) -> tuple[int, int]:
        """Count one hit of ``key`` at ``now_ms`` (ms since the epoch) and return (hits
        in the key's current window, the window's end). A key seen for the first time,
        or whose window ended, starts a window of ``window_ms``. Atomic: hits counted
        by several processes at once are all counted. Ended windows are pruned."""

    def limit_count(self, key: str, now_ms: int) -> tuple[int, int]:
        """(hits, end) of ``key``'s window still running at ``now_ms``; (0, ``now_ms``)
        when none runs. Counts nothing."""

    def limit_rows(self) -> int:
        """How many keys are stored (the pruning keeps it to the windows running)."""

    def listen(self, callback: Callable[[Change | None], None]) -> Callable[[], None] | None:
        """Call ``callback`` (from another thread) for every change another process
        stores; ``callback(None)`` when changes may have been missed (reload everything).
        Returns a function that stops listening, or ``None`` for a single-process storage."""

    def claim_ai(self, game_id: str, ply: int) -> bool:
        """Reserve the AI search of ``game_id`` at ``ply`` for this process: False when
        another process holds it, or when the stored game is not at ``ply`` any more.
        A single-process storage always grants it."""

    def release_ai(self, game_id: str, ply: int) -> None:
        """Give back a claim of :meth:`claim_ai` (after the answer is stored, or not)."""
