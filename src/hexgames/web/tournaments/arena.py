"""Arena tournaments as lichess runs them: scores, streaks, berserk, standings, and waves.

The rules follow lichess's arena help (https://lichess.org/tournament/help, whose text is
``translation/source/arena.xml`` in https://github.com/lichess-org/lila) and its scoring
code (``modules/tournament/src/main/arena/ArenaSheet.scala`` in the same repository):

- a win is 2 points, a draw 1, a loss 0;
- **streak**: after two wins in a row the player is "on fire" and the following games are
  worth double (a win 4, a draw 2) until they fail to win: two wins and a draw make
  2 + 2 + 2 = 6. Streaks can be switched off for a tournament;
- **berserk**: a player who gives up half their clock (the clock is the caller's business)
  gets one more point for a win, not doubled, if they played at least 7 moves;
- a draw **within the first 10 moves** gives neither player a point (and, not being a
  win, breaks a streak);
- **draw streaks**: after a draw, further draws score only when the game was long (more
  than 30 moves) until the player wins again;
- ties on points are broken by the **tournament performance**.

*Moves*: a chess move is one player's turn, so lichess's "moves" are counted here as turns
(:data:`BERSERK_MIN_OWN_TURNS` of the berserker's own turns; :data:`QUICK_DRAW_TURNS` and
:data:`LONG_DRAW_TURNS` turns of both players together, lichess's 10 and 30 moves each),
whatever the number of actions a turn of the game holds (Benediction's turns have two).

*Performance*: the mean, over the player's games, of the opponent's rating plus 500 for a
win, minus 500 for a loss (lichess's linear estimate; the constant is this module's choice
where the help page gives none).

*Waves*: the pairing of the players waiting at one moment (:func:`pair_wave`).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from hexgames.web.tournaments.matching import pair_in_order

Outcome = Literal["win", "draw", "loss"]
WIN_POINTS = 2
DRAW_POINTS = 1
#: The berserker's own turns needed for the berserk point (lichess: 7 moves).
BERSERK_MIN_OWN_TURNS = 7
#: A draw in fewer turns (both players') scores nothing (lichess: within 10 moves).
QUICK_DRAW_TURNS = 20
#: After a draw, a further draw scores only if it lasted at least this many turns
#: (lichess: more than 30 moves in standard chess).
LONG_DRAW_TURNS = 60
#: The rating swing a win or a loss adds to the opponent's rating in the performance.
PERFORMANCE_SWING = 500


@dataclass(frozen=True)
class ArenaGame:
    """One finished game of a player, as the score sheet needs it."""

    outcome: Outcome
    #: Turns played in the game by both players.
    turns: int
    #: Turns played by this player.
    own_turns: int
    berserk: bool = False
    opponent_rating: float = 0.0

    def __post_init__(self) -> None:
        if self.outcome not in ("win", "draw", "loss"):
            raise ValueError(f"unknown outcome {self.outcome!r}")
        if not 0 <= self.own_turns <= self.turns:
            raise ValueError("own turns must be between 0 and the game's turns")


@dataclass(frozen=True)
class SheetEntry:
    """What one game gave: its points, whether they were doubled (on fire), whether a
    berserk point was added."""

    points: int
    doubled: bool
    berserk_point: bool


def sheet(games: Sequence[ArenaGame], streaks: bool = True) -> list[SheetEntry]:
    """The points of each game, oldest first (a game's value depends on those before)."""
    entries: list[SheetEntry] = []
    history: list[Outcome | None] = []  # None: a quick draw, which is no result at all
    for game in games:
        entries.append(_entry(game, history, streaks))
        history.append(None if _quick_draw(game) else game.outcome)
    return entries


def _quick_draw(game: ArenaGame) -> bool:
    return game.outcome == "draw" and game.turns < QUICK_DRAW_TURNS


def _entry(game: ArenaGame, history: Sequence[Outcome | None], streaks: bool) -> SheetEntry:
    """One game's points, given the results before it (oldest first)."""
    if _quick_draw(game):
        return SheetEntry(0, False, False)
    fire = streaks and list(history[-2:]) == ["win", "win"]
    base = {"win": WIN_POINTS, "draw": DRAW_POINTS, "loss": 0}[game.outcome]
    if (game.outcome == "draw" and not fire and game.turns < LONG_DRAW_TURNS
            and _in_draw_streak(history)):
        base = 0
    berserk_point = (game.berserk and game.outcome == "win"
                     and game.own_turns >= BERSERK_MIN_OWN_TURNS)
    return SheetEntry(base * (2 if fire else 1) + (1 if berserk_point else 0),
                      fire and base > 0, berserk_point)


def _in_draw_streak(scored: Sequence[Outcome | None]) -> bool:
    """A draw since the last win (a quick draw does not count as one)."""
    for outcome in reversed(scored):
        if outcome == "win":
            return False
        if outcome == "draw":
            return True
    return False


def total(games: Sequence[ArenaGame], streaks: bool = True) -> int:
    """The player's arena score."""
    return sum(entry.points for entry in sheet(games, streaks))


def on_fire(games: Sequence[ArenaGame], streaks: bool = True) -> bool:
    """Whether the next game is worth double (the flame beside the name)."""
    return streaks and [game.outcome for game in games[-2:]] == ["win", "win"]


def performance(games: Sequence[ArenaGame]) -> float | None:
    """The tournament performance (``None`` before the first game)."""
    if not games:
        return None
    swing = {"win": PERFORMANCE_SWING, "draw": 0, "loss": -PERFORMANCE_SWING}
    return sum(game.opponent_rating + swing[game.outcome] for game in games) / len(games)


@dataclass(frozen=True)
class ArenaPlayer:
    """A player of an arena with their finished games, oldest first."""

    id: str
    rating: float
    games: tuple[ArenaGame, ...] = ()


@dataclass(frozen=True)
class ArenaStanding:
    """One line of the arena standings; equal score and performance share a rank."""

    rank: int
    player: str
    score: int
    performance: float | None
    on_fire: bool
    games: int


def standings(players: Sequence[ArenaPlayer], streaks: bool = True) -> list[ArenaStanding]:
    """Everyone by score, then performance (none counts lowest), then name."""
    lines = [ArenaStanding(0, p.id, total(p.games, streaks), performance(p.games),
                           on_fire(p.games, streaks), len(p.games)) for p in players]

    def key(line: ArenaStanding) -> tuple[int, float]:
        perf = line.performance
        return (line.score, float("-inf") if perf is None else perf)

    lines.sort(key=lambda line: (-key(line)[0], -key(line)[1], line.player))
    ranked: list[ArenaStanding] = []
    for index, line in enumerate(lines):
        tied = bool(ranked) and key(line) == key(lines[index - 1])
        rank = ranked[-1].rank if tied else index + 1
        ranked.append(ArenaStanding(rank, line.player, line.score, line.performance,
                                    line.on_fire, line.games))
    return ranked


@dataclass(frozen=True)
class Waiting:
    """A player waiting for a game: finished their last one, not paused, in no live game."""

    id: str
    score: int
    rating: float
    #: Whom they played last (not to be paired again at once).
    last_opponent: str | None = None
    #: When they started waiting, on any clock the caller likes (only the order matters).
    since: float = 0.0
    #: Games moving first minus games moving second in this tournament.
    balance: int = 0


@dataclass(frozen=True)
class Wave:
    """The games of a wave, ``(moves first, moves second)``, and who waits for the next."""

    pairings: tuple[tuple[str, str], ...]
    left_out: str | None


def pair_wave(waiting: Sequence[Waiting], seed: int,
              playing: Collection[str] = (),
              avoid: Collection[frozenset[str]] = ()) -> Wave:
    """Pair the waiting players with someone close in score and rating.

    The players are ranked by score, then rating (equal ones in an order drawn from
    ``seed``), and paired neighbour with neighbour from the top, except that two players
    who just played each other are not paired again while any other pairing of the wave
    avoids it. With an odd count, the player who started waiting last sits this wave out.
    Who moves first: the one who has moved first less often; if even, drawn from ``seed``.

    ``avoid``: pairs (two ids each) kept apart like an immediate rematch (the director
    passes the pairs that block each other, and drops any it still finds).

    Pure and deterministic for the same players and seed, whatever their order.
    ``ValueError`` if a player is listed twice or is also in ``playing`` (players in a live
    game, who must never be paired twice)."""
    ids = [player.id for player in waiting]
    if len(set(ids)) != len(ids):
        raise ValueError("a player is listed twice in the wave")
    busy = sorted(set(ids) & set(playing))
    if busy:
        raise ValueError(f"players in a live game cannot be paired: {', '.join(busy)}")
    draw = random.Random(seed)
    lot = {player_id: draw.random() for player_id in sorted(ids)}
    order = sorted(waiting, key=lambda p: (-p.score, -p.rating, lot[p.id]))
    left_out = None
    if len(order) % 2:
        left_out = max(order, key=lambda p: (p.since, lot[p.id]))
        order = [player for player in order if player is not left_out]
    place = {player.id: index for index, player in enumerate(order)}

    def allowed(a: Waiting, b: Waiting) -> bool:
        return (a.last_opponent != b.id and b.last_opponent != a.id
                and frozenset((a.id, b.id)) not in avoid)

    def preference(player: Waiting, others: Sequence[Waiting]) -> list[Waiting]:
        return sorted(others, key=lambda other: (abs(place[other.id] - place[player.id]),
                                                 place[other.id]))

    pairs = pair_in_order(order, allowed, preference)
    seated = tuple(_seat(a, b, draw) for a, b in pairs)
    return Wave(seated, left_out.id if left_out else None)


def _seat(a: Waiting, b: Waiting, draw: random.Random) -> tuple[str, str]:
    if a.balance != b.balance:
        return (a.id, b.id) if a.balance < b.balance else (b.id, a.id)
    return (a.id, b.id) if draw.random() < 0.5 else (b.id, a.id)
