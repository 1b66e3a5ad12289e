"""Buchholz, Buchholz Cut-1 and Sonneborn-Berger, as the FIDE Tie-Break Regulations define them.

Sources: FIDE Handbook C.07, *Tie-Break Regulations* (the 2023 text,
https://handbook.fide.com/chapter/TieBreakRegulations2023, and its successor of
1 August 2024, https://handbook.fide.com/chapter/TieBreakRegulations082024):

- **Buchholz** (BH): the sum of the scores of the player's opponents;
- **Sonneborn-Berger** (SB): the sum, over the player's opponents, of the points the player
  scored against each one times that opponent's score;
- **Cut-1**: Buchholz without its least significant value.

Unplayed rounds (article 16 of the 2023/2024 text, "unplayed rounds management") change
two things, and this module does both:

1. *The player's own unplayed rounds* (a bye, a forfeit won or lost, absence) count as a
   game against a **dummy opponent whose score is the player's own score**; its SB value is
   the points the player got that round times that score.
2. *An opponent's score*, as it enters someone else's Buchholz and SB, is the opponent's
   **adjusted score**: their real points, except that the rounds without an opponent after
   the last round in which they were there to play (they withdrew) count as draws (a
   forfeit lost keeps its zero). FIDE's Technical Commission's reference program
   (TieBreakServer, https://github.com/TEC-FIDE/TieBreakServer) does the same and quotes
   the rule as "16.3.2 Unplayed rounds of category 16.2.5 are evaluated as draws".
3. *Cut-1 cuts a voluntarily unplayed round first* (half-point bye, forfeit lost, absence):
   when there are some, the lowest of them is cut rather than the lowest value overall
   (in the 2022 numbering, article 14.6: "these unplayed rounds are the first games to be
   cut").

The text of article 16 itself could not be read while this was written (only the
regulations' opening articles and third-party summaries were at hand), so the numbers
were checked against FIDE TEC's published tie-break exercise
(https://tec.fide.com/2024/03/18/tie-break-exercise/):
``tests/test_tournament_tiebreaks.py`` reproduces its answers, which need all three rules.

The pairing-allocated bye scores a win's point (:data:`.results.BYE_POINTS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hexgames.web.tournaments.results import Crosstable, RoundResult, check_crosstable

#: The score of a round counted "as a draw".
DRAW = 0.5


@dataclass(frozen=True)
class Contribution:
    """What one round brings to a player's Buchholz: the (adjusted or dummy) opponent's
    score, the player's points that round, and whether the round was voluntarily unplayed."""

    opponent_score: float
    points: float
    voluntary: bool


def score(table: Crosstable, player: str) -> float:
    """The player's points: wins, draws, forfeits won and byes."""
    return sum(result.points for result in table[player])


def adjusted_score(table: Crosstable, player: str) -> float:
    """The player's score as their opponents' tiebreaks see it: the rounds without an
    opponent after the last round the player was there for count as draws."""
    results = table[player]
    last_there = max((number for number, result in enumerate(results, start=1)
                      if not result.voluntary), default=0)
    return sum(_adjusted_points(result) if number > last_there else result.points
               for number, result in enumerate(results, start=1))


def _adjusted_points(result: RoundResult) -> float:
    """A round after the player left: a draw, unless they were paired and forfeited it."""
    return result.points if result.kind == "forfeit" else DRAW


def contributions(table: Crosstable, player: str) -> list[Contribution]:
    """Round by round, the opponent's adjusted score, or for an unplayed round the dummy
    opponent's (the player's own score)."""
    own = score(table, player)
    found = []
    for result in table[player]:
        if result.played:
            assert result.opponent is not None
            found.append(Contribution(adjusted_score(table, result.opponent), result.points,
                                      False))
        else:
            found.append(Contribution(own, result.points, result.voluntary))
    return found


def buchholz(table: Crosstable, player: str, cut: int = 0) -> float:
    """Buchholz, or with ``cut=1`` Buchholz Cut-1: the lowest value goes, and a voluntarily
    unplayed round's value goes first when there is one."""
    if cut not in (0, 1):
        raise ValueError("only Buchholz and Buchholz Cut-1 are offered")
    values = contributions(table, player)
    total = sum(value.opponent_score for value in values)
    if cut and values:
        unplayed = [value.opponent_score for value in values if value.voluntary]
        total -= min(unplayed) if unplayed else min(value.opponent_score for value in values)
    return total


def sonneborn_berger(table: Crosstable, player: str) -> float:
    """Sonneborn-Berger: the points scored against each opponent times their (adjusted)
    score; an unplayed round gives its points times the player's own score."""
    return sum(value.points * value.opponent_score for value in contributions(table, player))


@dataclass(frozen=True)
class Standing:
    """One line of the standings; ``rank`` is shared by players tied on every value."""

    rank: int
    player: str
    score: float
    buchholz: float
    buchholz_cut1: float
    sonneborn_berger: float


def standings(table: Crosstable, cut: int = 0) -> list[Standing]:
    """Everyone ranked by score, then Buchholz (Cut-1 with ``cut=1``), then Sonneborn-Berger.
    Players still tied share a rank (FIDE would draw lots; the list shows them by name).
    ``ValueError`` for an inconsistent crosstable."""
    check_crosstable(table)
    lines = [(player, score(table, player), buchholz(table, player),
              buchholz(table, player, 1), sonneborn_berger(table, player))
             for player in table]

    def key(line: tuple[str, float, float, float, float]) -> tuple[float, float, float]:
        return (line[1], line[3] if cut else line[2], line[4])

    lines.sort(key=lambda line: (tuple(-value for value in key(line)), line[0]))
    ranked: list[Standing] = []
    for index, line in enumerate(lines):
        tied = bool(ranked) and key(line) == key(lines[index - 1])
        rank = ranked[-1].rank if tied else index + 1
        ranked.append(Standing(rank, *line))
    return ranked


def ordered(table: Crosstable, cut: int = 0) -> Sequence[str]:
    """The players in standings order."""
    return [line.player for line in standings(table, cut)]
