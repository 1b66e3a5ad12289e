"""The pairing of one Swiss round, in the spirit of FIDE's Dutch system (C.04.3), simplified.

What it guarantees, in this order of priority (FIDE's absolute criteria first):

1. **No repeat pairing while one can be avoided.** Two players who have played each
   other are not paired again unless no pairing of the round avoids it; then the fewest
   repeats any pairing needs. This is exact, not a heuristic: the choice of each pair is
   checked with a maximum matching (:mod:`.matching`), so it is found even when a greedy
   walk would end in a corner.
2. **One bye per player at most.** With an odd number of players the pairing-allocated
   bye (a win's point, FIDE C.04.1 (c)) goes to the lowest-ranked player who has neither had
   a bye nor won a forfeit (C.04.1 (d)) and whose absence still lets the others be paired
   without a repeat (or, if nobody's does, leaves the fewest repeats). Only when every
   active player has had one (more rounds than players) does a second bye go out, to the
   lowest-ranked player.
3. **Pairing by score, top half against bottom half.** The players are ranked by score,
   then rating, then name. From the top, each score group is split in two halves and the
   first of the top half meets the first of the bottom half, the second the second, and so
   on; a group with an odd number of players sends its lowest-ranked player down to the
   next group, where that player is ranked first ("floats down"). When rule 1 forbids the
   natural partner, a player takes the nearest one instead: first another player of the
   other half of the same group (nearest the natural partner's place), then one of the
   same half, then one from the groups below (the top of the next group first).
4. **Seats (who moves first) alternate and balance.** Of two paired players, the one who
   has moved first fewer times (net of moving second) moves first; if even, the one who
   moved second most recently where their histories differ; with identical histories
   (round 1) the higher-ranked player moves first on boards 1, 3, 5... and second on
   boards 2, 4, 6...

This is not a full Dutch implementation (no colour-preference criteria that reshuffle
score groups, no minimisation of float counts over rounds): a site for two small games
needs pairings that are fair, explainable and exact on the absolute rules.

Withdrawn or paused players are marked inactive and left out; a late joiner enters with
the points they have (0, or whatever the site gives for missed rounds). Deterministic: the
same players give the same round, in whatever order they are passed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from hexgames.web.tournaments.matching import matching_size, pair_in_order
from hexgames.web.tournaments.results import RoundResult


@dataclass(frozen=True)
class SwissPlayer:
    """A player as the pairing sees them before a round."""

    id: str
    rating: float
    score: float = 0.0
    #: Everyone this player has played a game with (a forfeit is no meeting: FIDE lets
    #: them meet again).
    opponents: frozenset[str] = field(default_factory=frozenset)
    #: Pairing-allocated byes received so far.
    byes: int = 0
    #: Whether the player won a forfeit (which, like a bye, rules out the bye: C.04.1 (d)).
    forfeit_win: bool = False
    #: The seats of the games played, oldest first: True where the player moved first.
    seats: tuple[bool, ...] = ()
    #: False for a withdrawn or paused player: not paired.
    active: bool = True

    @property
    def balance(self) -> int:
        """Games moving first minus games moving second."""
        return sum(1 if seat else -1 for seat in self.seats)

    @property
    def may_have_bye(self) -> bool:
        """Neither a bye nor a forfeit win so far."""
        return not self.byes and not self.forfeit_win


@dataclass(frozen=True)
class SwissRound:
    """The pairings of a round: ``(moves first, moves second)`` by board, the bye, and how
    many pairs are repeats that could not be avoided."""

    pairings: tuple[tuple[str, str], ...]
    bye: str | None
    repeats: int


def player_from_results(player: str, rating: float, results: Sequence[RoundResult],
                        active: bool = True) -> SwissPlayer:
    """The pairing's view of a player from their results so far."""
    return SwissPlayer(
        id=player, rating=rating, score=sum(result.points for result in results),
        opponents=frozenset(r.opponent for r in results if r.played and r.opponent),
        byes=sum(1 for result in results if result.kind == "bye"),
        forfeit_win=any(r.kind == "forfeit" and r.points for r in results),
        seats=tuple(bool(result.first) for result in results if result.played),
        active=active)


def players_from_crosstable(table: Mapping[str, Sequence[RoundResult]],
                            ratings: Mapping[str, float],
                            inactive: frozenset[str] = frozenset()) -> list[SwissPlayer]:
    """Every player of a crosstable, ready for :func:`pair_round`."""
    return [player_from_results(player, ratings[player], results, player not in inactive)
            for player, results in table.items()]


def ranked(players: Sequence[SwissPlayer]) -> list[SwissPlayer]:
    """Active players by score, then rating, then name (the pairing order)."""
    return sorted((p for p in players if p.active), key=lambda p: (-p.score, -p.rating, p.id))


def pair_round(players: Sequence[SwissPlayer]) -> SwissRound:
    """The next round for ``players`` (inactive ones are left out). ``ValueError`` when two
    players share an id."""
    ids = [player.id for player in players]
    if len(set(ids)) != len(ids):
        raise ValueError("a player appears twice")
    order = ranked(players)
    bye = _choose_bye(order) if len(order) % 2 else None
    if bye is not None:
        order = [player for player in order if player.id != bye.id]
    brackets = _brackets(order)
    flat = [player for bracket in brackets for player in bracket]
    place = {player.id: index for index, player in enumerate(flat)}
    pairs = pair_in_order(flat, _allowed, _preference(brackets))
    pairs.sort(key=lambda pair: min(place[pair[0].id], place[pair[1].id]))
    seated = tuple(_seat(a, b, board) for board, (a, b) in enumerate(pairs, start=1))
    repeats = sum(1 for a, b in pairs if not _allowed(a, b))
    return SwissRound(seated, bye.id if bye else None, repeats)


def _preference(brackets: list[list[SwissPlayer]]) -> Callable[
        [SwissPlayer, Sequence[SwissPlayer]], list[SwissPlayer]]:
    """Whom a player would rather meet: their own bracket's other half first (a
    transposition, which the Dutch system tries first), nearest the natural partner's
    place; then their own half; then lower brackets, nearest the natural partner's place
    (so the top of the next bracket first)."""
    natural = _natural_partners(brackets)
    place: dict[str, int] = {}
    bracket_of: dict[str, int] = {}
    bottom: dict[str, bool] = {}
    for number, bracket in enumerate(brackets):
        for index, player in enumerate(bracket):
            place[player.id] = len(place)
            bracket_of[player.id] = number
            bottom[player.id] = index >= len(bracket) // 2

    def preference(player: SwissPlayer, others: Sequence[SwissPlayer]) -> list[SwissPlayer]:
        target = place[natural[player.id].id]
        return sorted(others, key=lambda other: (
            abs(bracket_of[other.id] - bracket_of[player.id]),
            bracket_of[other.id] == bracket_of[player.id] and bottom[other.id] == bottom[player.id],
            abs(place[other.id] - target), place[other.id]))

    return preference


def _allowed(a: SwissPlayer, b: SwissPlayer) -> bool:
    return b.id not in a.opponents and a.id not in b.opponents


def _choose_bye(order: list[SwissPlayer]) -> SwissPlayer:
    """The lowest-ranked player who may have the bye and whose bye leaves the most
    non-repeat pairs among the others (all of them when possible)."""
    candidates = [player for player in order if player.may_have_bye] or order
    best: SwissPlayer | None = None
    best_size = -1
    full = (len(order) - 1) // 2
    for candidate in reversed(candidates):
        rest = [player for player in order if player is not candidate]
        size = matching_size(rest, _allowed)
        if size > best_size:
            best, best_size = candidate, size
        if size == full:
            break
    assert best is not None
    return best


def _brackets(order: list[SwissPlayer]) -> list[list[SwissPlayer]]:
    """Score groups from the top, each even: an odd group's last player floats down."""
    groups: list[list[SwissPlayer]] = []
    for player in order:
        if groups and groups[-1][0].score == player.score:
            groups[-1].append(player)
        else:
            groups.append([player])
    brackets: list[list[SwissPlayer]] = []
    floaters: list[SwissPlayer] = []
    for group in groups:
        bracket = floaters + group
        floaters = [bracket.pop()] if len(bracket) % 2 else []
        if bracket:
            brackets.append(bracket)
    assert not floaters, "an even number of players leaves no floater"
    return brackets


def _natural_partners(brackets: list[list[SwissPlayer]]) -> dict[str, SwissPlayer]:
    """Top half against bottom half in each bracket: 1st with 1st, 2nd with 2nd..."""
    partners: dict[str, SwissPlayer] = {}
    for bracket in brackets:
        half = len(bracket) // 2
        for top, bottom in zip(bracket[:half], bracket[half:], strict=True):
            partners[top.id], partners[bottom.id] = bottom, top
    return partners


def _seat(higher: SwissPlayer, lower: SwissPlayer, board: int) -> tuple[str, str]:
    """``(moves first, moves second)`` for two players, ``higher`` the better ranked."""
    if higher.balance != lower.balance:
        first_is_higher = higher.balance < lower.balance
    else:
        recent = [(a, b) for a, b in zip(reversed(higher.seats), reversed(lower.seats),
                                         strict=False) if a != b]
        first_is_higher = not recent[0][0] if recent else board % 2 == 1
    return (higher.id, lower.id) if first_is_higher else (lower.id, higher.id)
