"""One player's result in one round of a Swiss: a game, a forfeit, a bye, or absence.

The pairing and the tiebreaks both need more than the points: whether the round was
played over the board (FIDE's tiebreaks treat unplayed rounds apart), who the opponent
was (no repeat pairing), whether the player moved first (seat balance), and whether the
player chose not to play (a "voluntarily unplayed round", which the tiebreaks cut first
and count as a draw once the player has left). One record holds all of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

#: ``game``: played over the board; ``forfeit``: paired but not played (a no-show: the
#: winner gets a point without a game); ``bye``: the pairing-allocated bye (odd count),
#: a win's point; ``half_bye``: a half-point bye (kept for published crosstables: this
#: site gives none); ``absent``: not paired (withdrawn, paused, or joined later), no points.
Kind = Literal["game", "forfeit", "bye", "half_bye", "absent"]
POINTS = (0.0, 0.5, 1.0)
#: The points of the pairing-allocated bye: a win's, as FIDE's C.04.1 (c) gives it.
BYE_POINTS = 1.0


@dataclass(frozen=True)
class RoundResult:
    """What one player got in one round; build it with the class methods."""

    kind: Kind
    points: float
    opponent: str | None = None
    #: Whether this player moved first (``None`` when no game was played).
    first: bool | None = None

    def __post_init__(self) -> None:
        if self.points not in POINTS:
            raise ValueError(f"points must be 0, 0.5 or 1, not {self.points!r}")
        paired = self.kind in ("game", "forfeit")
        if paired != (self.opponent is not None):
            raise ValueError(f"a {self.kind} has {'an' if paired else 'no'} opponent")
        if (self.kind == "game") != (self.first is not None):
            raise ValueError("the seat is known for a game, and only for a game")
        if self.kind == "forfeit" and self.points == 0.5:
            raise ValueError("a forfeit is won or lost")
        fixed = {"bye": BYE_POINTS, "half_bye": 0.5, "absent": 0.0}.get(self.kind)
        if fixed is not None and self.points != fixed:
            raise ValueError(f"a {self.kind} scores {fixed}")

    @classmethod
    def game(cls, opponent: str, points: float, first: bool) -> RoundResult:
        """A game played against ``opponent``: 1 a win, 0.5 a draw, 0 a loss."""
        return cls("game", points, opponent, first)

    @classmethod
    def forfeit(cls, opponent: str, won: bool) -> RoundResult:
        """Paired with ``opponent``, but the game was not played; ``won``: the opponent
        did not show up."""
        return cls("forfeit", 1.0 if won else 0.0, opponent)

    @classmethod
    def bye(cls) -> RoundResult:
        """The pairing-allocated bye."""
        return cls("bye", BYE_POINTS)

    @classmethod
    def half_bye(cls) -> RoundResult:
        """A half-point bye a player asked for."""
        return cls("half_bye", 0.5)

    @classmethod
    def absent(cls) -> RoundResult:
        """Not paired this round: withdrawn, paused, or not yet joined."""
        return cls("absent", 0.0)

    @property
    def played(self) -> bool:
        """Played over the board (only then does the opponent's score count as such in the
        tiebreaks)."""
        return self.kind == "game"

    @property
    def voluntary(self) -> bool:
        """A voluntarily unplayed round in FIDE's sense (the player could have played and
        did not): absence, a half-point bye, a forfeit lost. The pairing-allocated bye and
        a forfeit won are not: the player was there."""
        return self.kind in ("absent", "half_bye") or (self.kind == "forfeit" and not self.points)


#: Every player's results, round by round (each list as long as the rounds played).
Crosstable = Mapping[str, Sequence[RoundResult]]


def check_crosstable(table: Crosstable) -> int:
    """The number of rounds of a consistent crosstable; ``ValueError`` naming the first
    inconsistency otherwise: lists of unequal length, an unknown opponent, a player paired
    with themselves, or a pairing whose two sides disagree (opponents, kind, points that
    do not add up to 1, both or neither moving first)."""
    lengths = {len(results) for results in table.values()}
    if len(lengths) > 1:
        raise ValueError(f"players have results for different numbers of rounds: {sorted(lengths)}")
    for player, results in table.items():
        for number, result in enumerate(results, start=1):
            if result.opponent is None:
                continue
            if result.opponent == player or result.opponent not in table:
                raise ValueError(f"round {number}: {player} is paired with {result.opponent!r}")
            other = table[result.opponent][number - 1]
            if (other.opponent != player or other.kind != result.kind
                    or other.points + result.points != 1.0
                    or (result.first is not None and other.first == result.first)):
                raise ValueError(f"round {number}: {player} and {result.opponent} disagree")
    return lengths.pop() if lengths else 0
