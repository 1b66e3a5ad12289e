"""What the web app stores, as plain records, and the stored forms of names and tokens.

The server never keeps a position in the database: a game is its options, its players and
the list of actions in notation. Positions are rebuilt by replaying the actions, so a game
survives a restart (and an engine speed-up) without any migration of stored boards.
These records are what the storage hands out and takes in; they know nothing of SQL, so
the service, identities and ratings can use them without touching a database.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hexgames.web.storage.meta import GameMeta, Mode, SeatPlayer

#: Stored seat tokens are ``sha256:<hex>`` of the token, never the token itself.
HASH_PREFIX = "sha256:"


def hash_token(token: str) -> str:
    """The stored form of a seat credential: a database leak must not hand out seats."""
    return HASH_PREFIX + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def hashed(token: str | None) -> str | None:
    """A seat credential as stored: hashed (idempotent; ``None`` stays ``None``)."""
    if token is None or token.startswith(HASH_PREFIX):
        return token
    return hash_token(token)


def name_key(name: str) -> str:
    """A name as compared for uniqueness (names are ASCII: see hexgames.web.http.identity)."""
    return name.strip().casefold()


def seat_holders(players: Sequence[SeatPlayer]) -> list[tuple[int, str]]:
    """``(seat, player id)`` of the seats held by an identity."""
    return [(seat, str(player["player_id"])) for seat, player in enumerate(players)
            if isinstance(player, dict) and player.get("player_id")]


@dataclass
class StoredGame:
    """One game as stored: everything needed to rebuild and present it.

    ``players`` has one entry per seat (:class:`~.meta.SeatPlayer`: its kind, level,
    holder and invitation);
    ``seat_tokens`` holds the secret that lets a browser act for each seat (``None`` for a
    seat nobody may act for, i.e. the AI's). ``status`` is ``"playing"`` or ``"over"``;
    ``winner``/``reason`` are set when the game is over (including by resignation, which is
    not a property of the position and so must be stored).
    """

    id: str
    game: str
    options: dict[str, Any]
    mode: Mode
    players: list[SeatPlayer]
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
    #: A rated game: its result updates the players' ratings (see hexgames.web.ratings.games).
    rated: bool = False
    #: What the site keeps beside the actions (:class:`~.meta.GameMeta`: the time
    #: control, the clock, offers, the rematch, the seat to move, the termination).
    meta: GameMeta = field(default_factory=GameMeta)
    #: The row's version: every write of the game (actions, meta, seats, result) adds
    #: one, and the writes of meta and seats are conditional on the version their writer
    #: read (:class:`~hexgames.web.storage.errors.MetaConflict` otherwise; see
    #: docs/web.md, "Storage").
    version: int = 0

    def __post_init__(self) -> None:
        self.mode = Mode(self.mode)  # a stored string: an unknown mode is an error here


@dataclass(frozen=True)
class MoveWrite:
    """One move as stored: its actions and what it changes in the game's row, written
    together in one transaction (:meth:`~.interface.Storage.store_move`; one round trip
    on PostgreSQL when the row is as the mover held it).

    ``seen`` is ``(seat, ms)``, the mover's presence. ``change`` is the meta change the
    move makes (the clock switched, the turn, a takeback request dropped), a function that
    changes a meta in place; ``meta`` is that change applied to the meta the mover held at
    row ``version`` (written as it is while the row is still at that version; otherwise
    ``change`` is applied to the stored meta under the row's lock). ``ended``: the move
    ended the game, with ``winner`` and ``reason`` stored in the same write."""

    game_id: str
    first_ply: int
    actions: tuple[str, ...]
    at: str
    seen: tuple[int, int] | None = None
    change: Callable[[GameMeta], None] | None = None
    meta: GameMeta | None = None
    version: int | None = None
    ended: bool = False
    winner: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class StoredMove:
    """What :meth:`~.interface.Storage.store_move` wrote: the row's new version and its
    meta as written (``None`` when the move did not change it), and how many conditional
    lines the game held when the move was stored (read in the same write, so that a move
    of a game without lines needs no second call to learn it; ``None``: not read)."""

    version: int
    meta: GameMeta | None = None
    lines: int | None = None


@dataclass
class Seek:
    """An open challenge of the lobby. ``creator`` is the creator's player entry
    (``{"player_id", "name"}``: the name as it was when posted); ``color`` a colour of the game
    or ``"random"``; ``target`` a player's name for a direct challenge. ``creator_token``
    is the (hashed) seat credential the creator will hold in the game; ``status`` goes
    ``open`` -> ``taken``, ``cancelled`` or ``expired``, exactly once."""

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


@dataclass
class PoolEntry:
    """A player waiting in a quick-pairing pool (:mod:`hexgames.web.lobby.pools`).

    ``pool`` names the game and time control (``"benediction-3+2"``); ``rating`` is the
    player's rating in the game when they joined (what the matching compares); ``token``
    the (hashed) seat credential they will hold in the game; ``origin`` a keyed hash of
    their client address. ``status`` goes ``waiting`` -> ``paired`` (``game_id`` set) or
    ``left``, exactly once. ``joined_at`` and ``seen_at`` (the last sign of life: what
    keeps the place) are ms since the epoch."""

    id: str
    pool: str
    rated: bool
    player_id: str
    name: str
    rating: float
    token: str
    origin: str
    status: str
    game_id: str | None
    joined_at: int
    seen_at: int


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


@dataclass(frozen=True)
class AlertSettings:
    """A player's turn-email settings (hexgames.web.alerts.turns): the address (``None``: none
    given), whether its owner opened the verification link, the opt-in, and the language
    of the page the player last changed them from (the emails' language; ``None``: not
    known, English)."""

    player_id: str
    email: str | None
    verified: bool
    turn_emails: bool
    updated_at: str
    language: str | None = None


@dataclass(frozen=True)
class RatingPoint:
    """A player's rating in ``pool`` right after the rated game ``game_id``, their
    ``games``-th rated game in the pool (the rating history a profile draws)."""

    pool: str
    game_id: str
    rated_at: str
    rating: float
    deviation: float
    games: int


#: What a finished game was for one of its players (:attr:`SeatResult.result`); ``none``
#: is a game that ended without a result (aborted).
RESULTS = ("win", "draw", "loss", "none")


@dataclass(frozen=True)
class SeatResult:
    """How a finished game went for the identity holding ``seat`` (filed when the game
    ends, for profiles: statistics and the game search). ``color`` is the colour the
    seat played at the end (a swap changes it); ``result`` one of :data:`RESULTS`;
    ``opponent_id`` the identity holding the other seat (``None``: the computer, or
    nobody); ``pool`` the rating pool of the game and its variant."""

    game_id: str
    seat: int
    player_id: str
    opponent_id: str | None
    game: str
    pool: str
    rated: bool
    color: str
    result: str
    ended_at: str


@dataclass(frozen=True)
class GameQuery:
    """A search of a player's finished games; ``None`` fields do not filter.
    ``opponent`` is a name folded by :func:`name_key` (matched exactly); ``since`` and
    ``until`` bound ``ended_at`` (``since`` included, ``until`` excluded)."""

    opponent: str | None = None
    result: str | None = None
    since: str | None = None
    until: str | None = None
    game: str | None = None
    pool: str | None = None
    rated: bool | None = None


@dataclass(frozen=True)
class ListedGame:
    """A finished game as the game search lists it: the player's :class:`SeatResult`,
    the opponent's current name, and the game's seats, mode and reason for the end."""

    result: SeatResult
    opponent_name: str | None
    players: list[SeatPlayer]
    mode: Mode
    reason: str | None


@dataclass(frozen=True)
class ConditionalLine:
    """A conditional line of a correspondence game (hexgames.web.play.conditional_moves): the
    turns its owner (``seat``) expects and answers from ply ``ply`` on, alternately the
    opponent's and the owner's, each a tuple of actions in notation. ``digest`` is the
    hash of the game's actions before ``ply`` (a takeback under the line voids it)."""

    id: str
    game_id: str
    seat: int
    ply: int
    digest: str
    turns: tuple[tuple[str, ...], ...]
    created_at: str


@dataclass(frozen=True)
class Change:
    """A change another server process stored: ``kind`` is ``append`` (actions up to
    ``ply`` exclusive are stored), ``turn`` (the same, with the meta changed: a move
    that ended a turn), ``reset`` (actions from ``ply`` on were taken back),
    ``row`` (result, players or seats changed), ``meta`` (only the meta: clock,
    offers; the actions are read from ``load_tail``, no full reload), ``lobby`` (the
    open challenges changed; ``game_id`` empty), ``chat.<room>`` (a chat message
    stored, ``ply`` its number in the room: no game changed), ``started`` (an online
    game was stored, being played: its players' followers are told) or ``tournament``
    (a tournament was created, ``game_id`` its id: its creator's followers are told)."""

    game_id: str
    kind: str
    ply: int


@dataclass(frozen=True)
class PuzzleRatingRecord:
    """A player's Glicko-2 puzzle rating in one game (hexgames.web.ratings.puzzles), as of
    ``rated_at``: ``attempts`` rated tries (first tries) of which ``solved`` were
    solved, and the player's best puzzle streak (``0``: none yet)."""

    player_id: str
    game: str
    rating: float
    deviation: float
    volatility: float
    attempts: int
    solved: int
    best_streak: int
    rated_at: str


@dataclass(frozen=True)
class PuzzleStatRecord:
    """A puzzle's own Glicko-2 rating (players' first tries rate it too) and its
    tries."""

    game: str
    puzzle_id: str
    rating: float
    deviation: float
    volatility: float
    attempts: int
    solved: int


@dataclass(frozen=True)
class PuzzleStreak:
    """A puzzle streak being played: ``puzzles`` (ids, in order of difficulty),
    ``solved`` so far, ``status`` ``playing`` or ``over`` (a mistake, or every puzzle
    solved); ``player_id`` the identity that started it (``None``: none)."""

    id: str
    player_id: str | None
    game: str
    puzzles: tuple[str, ...]
    solved: int
    status: str
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class ChatMessage:
    """One chat message of a game's room (``players`` or ``spectators``), as stored: its
    number in the room (``seq``, from 1), who wrote it (the identity and the name it had
    then) and when (ms since the epoch). The text is kept as written, already checked
    (:func:`hexgames.web.chat.rules.checked_text`); pages show it as text, never as HTML."""

    game_id: str
    room: str
    seq: int
    player_id: str
    name: str
    text: str
    at: int


@dataclass(frozen=True)
class ChatReport:
    """A message a player reported, kept for a moderator (``hexgames moderate``): a copy
    of the text (a report outlives the game's deletion), who reported whom, and whether a
    moderator has dealt with it (``status``: ``open`` or ``closed``)."""

    id: str
    game_id: str
    room: str
    seq: int
    reporter_id: str
    reported_id: str
    text: str
    at: int
    status: str = "open"


# ------------------------------------------------------------- tournaments (issue 42)
#: A tournament's life: ``created`` (counting down to ``starts_at``), ``running``,
#: ``finished``; each change is made once, by the process that claims it.
TOURNAMENT_STATUSES = ("created", "running", "finished")
#: A tournament game's result, from the first mover's side (``first``: the player who
#: moved first won), ``bye`` for a Swiss bye (no opponent), ``void`` for a pairing whose
#: game could not be created (no points, no game); ``None`` while the game is live.
TOURNAMENT_RESULTS = ("first", "second", "draw", "bye", "void")


@dataclass(frozen=True)
class TournamentRecord:
    """A tournament as stored: what it is (``settings``: the checked
    :class:`~hexgames.web.tournaments.model.TournamentSettings` as JSON, ``options`` the
    game's rules options, ``control`` the clock) and where it stands. ``step`` counts the
    claims made so far (the start, each Swiss round or arena wave, the end): a process
    that moves a tournament on names the step it read, so only one of several can.
    Times are ms since the epoch; ``ends_at`` is an arena's planned end, and a Swiss's
    real end once finished."""

    id: str
    creator_id: str
    game: str
    kind: str
    options: dict[str, Any]
    settings: dict[str, Any]
    control: dict[str, Any]
    created_at: int
    starts_at: int
    max_players: int
    ends_at: int | None = None
    status: str = "created"
    step: int = 0
    version: int = 0


@dataclass(frozen=True)
class TournamentEntry:
    """A player of a tournament: their rating when they joined (the pairing's), and
    whether they paused (not paired until they come back) or withdrew (left)."""

    tournament_id: str
    player_id: str
    rating: float
    joined_at: int
    paused: bool = False
    withdrawn: bool = False


@dataclass(frozen=True)
class TournamentGame:
    """One pairing of a tournament: board ``board`` of step ``step`` (a Swiss round's
    number, an arena wave's), ``first_id`` moving first against ``second_id`` (``None``:
    a Swiss bye). ``game_id`` is the real game once created; ``result`` (see
    :data:`TOURNAMENT_RESULTS`) is ``None`` while it is played, and with it come the
    turns played and who went berserk."""

    tournament_id: str
    step: int
    board: int
    first_id: str
    second_id: str | None
    paired_at: int
    game_id: str | None = None
    result: str | None = None
    turns: int = 0
    first_berserk: bool = False
    second_berserk: bool = False
    ended_at: int | None = None

    @property
    def live(self) -> bool:
        """Paired and not over: its players are not paired again until it ends."""
        return self.result is None


@dataclass(frozen=True)
class TournamentState:
    """A tournament with its players (by join time) and games (by step and board)."""

    tournament: TournamentRecord
    players: tuple[TournamentEntry, ...]
    games: tuple[TournamentGame, ...]
