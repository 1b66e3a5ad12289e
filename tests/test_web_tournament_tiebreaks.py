"""Buchholz, Buchholz Cut-1 and Sonneborn-Berger (hexgames.web.tournaments.tiebreaks).

The worked example is FIDE TEC's published tie-break exercise of 2024-03-18
(https://tec.fide.com/2024/03/18/tie-break-exercise/): a 5-round Swiss of 16 players with
every kind of unplayed round (a pairing-allocated bye, half-point byes, forfeits won and
lost, a player who stopped coming). Its answers need the 2023 rules for unplayed rounds:
the dummy opponent with the player's own score, the adjusted score of a player who left,
and Cut-1 cutting a voluntarily unplayed round first. The Sonneborn-Berger values were
computed by hand from the same table (the derivations are beside them).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hexgames.web.tournaments.results import Crosstable, RoundResult, check_crosstable
from hexgames.web.tournaments.tiebreaks import (
    adjusted_score,
    buchholz,
    score,
    sonneborn_berger,
    standings,
)

#: The exercise's crosstable: per player, per round, "+" a win, "=" a draw, "-" a loss,
#: then W (moved first) / B (second) and the opponent, F and the opponent for a forfeit,
#: BYE for a bye (+BYE the full-point bye, =BYE a half-point bye), "--" not paired.
FIDE_EXERCISE = """
1  +W9  =B13 =W2  +B15 =W4
2  +B10 +W7  =B1  +W16 =B3
3  =W11 +B6  +W8  =B4  =W2
4  +B12 =BYE +W13 =W3  =B1
5  -W13 -B15 +W11 =B7  +W10
6  -B14 -W3  +BYE +W10 +B8
7  +W15 -B2  -B16 =W5  -B11
8  =B16 +W14 -B3  +W13 -W6
9  -B1  -W10 =BYE -F11 +BYE
10 -W2  +B9  -W15 -B6  -B5
11 =B3  -W16 -B5  +F9  +W7
12 -W4  +BYE +F14 --   --
13 +B5  =W1  -B4  -B8  -W14
14 +W6  -B8  -F12 --   +B13
15 -B7  +W5  +B10 -W1  -B16
16 =W8  +B11 +W7  -B2  +W15
"""


def parse_cell(cell: str) -> RoundResult:
    if cell == "--":
        return RoundResult.absent()
    points = {"+": 1.0, "=": 0.5, "-": 0.0}[cell[0]]
    if cell[1:] == "BYE":
        return RoundResult.bye() if points == 1.0 else RoundResult.half_bye()
    if cell[1] == "F":
        return RoundResult.forfeit(cell[2:], won=points == 1.0)
    return RoundResult.game(cell[2:], points, first=cell[1] == "W")


def parse(text: str) -> dict[str, list[RoundResult]]:
    table = {}
    for line in text.strip().splitlines():
        player, *cells = line.split()
        table[player] = [parse_cell(cell) for cell in cells]
    return table


EXERCISE = parse(FIDE_EXERCISE)


def test_the_exercise_is_a_consistent_crosstable() -> None:
    assert check_crosstable(EXERCISE) == 5


@pytest.mark.parametrize(("player", "expected"), [
    # FIDE exercises 1-4 (Buchholz): 2 = 10(1) + 7(1.5) + 1(3.5) + 16(3.5) + 3(3.5) = 13.
    ("2", 13.0), ("1", 12.5), ("3", 15.5), ("5", 8.5), ("8", 13.5), ("16", 12.5),
    # 11 won a forfeit in round 4: a dummy opponent with 11's own 2.5, not 9's 1.5.
    ("11", 13.5),
    # 4: 12 stopped coming after round 3 (a full-point bye in round 2, a forfeit win in
    # round 3), so 12's rounds 4 and 5 count as draws: 12's adjusted score is
    # 0 + 1 + 1 + 0.5 + 0.5 = 3; with 4's half-point bye against a dummy of 4's own 3.5,
    # 3 + 3.5 + 13(1.5) + 3(3.5) + 1(3.5) = 15.
    ("4", 15.0),
])
def test_buchholz_reproduces_fide_exercise(player: str, expected: float) -> None:
    assert buchholz(EXERCISE, player) == expected


@pytest.mark.parametrize(("player", "expected"), [
    # FIDE exercises 5-8 (Buchholz Cut-1).
    ("5", 7.5), ("8", 12.0), ("11", 12.0), ("7", 12.5), ("13", 12.0), ("1", 11.0),
    ("3", 13.0), ("16", 11.0), ("15", 11.0),
    # 9: 1(3.5) + 10(1) + three unplayed rounds with a dummy of 9's own 1.5 = 9. Rounds 3
    # (half-point bye) and 4 (forfeit lost) are voluntarily unplayed, so a 1.5 of theirs is
    # cut rather than 10's lower 1: 7.5.
    ("9", 7.5),
    # 4: the voluntary half-point bye's 3.5 goes, not 13's 1.5: 15 - 3.5 = 11.5.
    ("4", 11.5),
    # 12: 4(3.5) + four dummies of 2 = 11.5; an absence's 2 goes: 9.5.
    ("12", 9.5),
    # 14: 6(3) + 8(2.5) + two voluntary dummies of 2 + 13(1.5) = 11; a dummy goes: 9.
    ("14", 9.0),
])
def test_buchholz_cut1_reproduces_fide_exercise(player: str, expected: float) -> None:
    assert buchholz(EXERCISE, player, cut=1) == expected


@pytest.mark.parametrize(("player", "expected"), [
    # 11: 1/2 x 3(3.5) + 0 x 16 + 0 x 5 + 1 x dummy(own 2.5) + 1 x 7(1.5) = 5.75.
    ("11", 5.75),
    # 4: 1 x 12(adjusted 3) + 1/2 x dummy(own 3.5) + 1 x 13(1.5) + 1/2 x 3(3.5)
    #    + 1/2 x 1(3.5) = 3 + 1.75 + 1.5 + 1.75 + 1.75 = 9.75.
    ("4", 9.75),
    # 9: 0 + 0 + 1/2 x dummy(1.5) + 0 x dummy + 1 x dummy(1.5) = 2.25.
    ("9", 2.25),
    # 2: 1 x 10(1) + 1 x 7(1.5) + 1/2 x 1(3.5) + 1 x 16(3.5) + 1/2 x 3(3.5) = 9.5.
    ("2", 9.5),
])
def test_sonneborn_berger_by_hand_on_the_exercise(player: str, expected: float) -> None:
    assert sonneborn_berger(EXERCISE, player) == expected


def test_adjusted_score_counts_rounds_after_leaving_as_draws() -> None:
    assert score(EXERCISE, "12") == 2.0
    assert adjusted_score(EXERCISE, "12") == 3.0
    # 14 missed round 4 but came back: nothing is adjusted.
    assert adjusted_score(EXERCISE, "14") == score(EXERCISE, "14") == 2.0


def test_a_forfeit_lost_after_leaving_keeps_its_zero() -> None:
    table = {"a": [RoundResult.game("b", 1.0, True), RoundResult.forfeit("b", won=True)],
             "b": [RoundResult.game("a", 0.0, False), RoundResult.forfeit("a", won=False)]}
    assert adjusted_score(table, "b") == 0.0


def test_standings_rank_by_score_then_buchholz_then_sonneborn_berger() -> None:
    lines = standings(EXERCISE)
    assert [line.player for line in lines[:5]] == ["2", "3", "4", "1", "16"]
    assert [line.rank for line in lines[:5]] == [1, 2, 3, 4, 5]
    by_player = {line.player: line for line in lines}
    assert by_player["4"].buchholz == 15.0 and by_player["4"].buchholz_cut1 == 11.5
    # 1 and 16 tie on score and Buchholz (12.5): Sonneborn-Berger decides.
    assert by_player["1"].sonneborn_berger > by_player["16"].sonneborn_berger


def test_standings_can_rank_by_cut1() -> None:
    """Round 1: c beats b, d beats e, f beats a; round 2: a-d and f-c drawn, e beats b.
    f, d and c have 1.5 each. Buchholz: f = a(0.5) + c(1.5) = 2, d = e(1) + a(0.5) = 1.5,
    c = b(0) + f(1.5) = 1.5, and Sonneborn-Berger puts d (1 x 1 + 1/2 x 0.5 = 1.25) before
    c (0 + 1/2 x 1.5 = 0.75). Cut-1 drops each one's lowest: f 1.5, d 1, c 1.5 (c's 0 goes),
    so c passes d."""
    def game(a: str, b: str, points: float) -> tuple[RoundResult, RoundResult]:
        return RoundResult.game(b, points, True), RoundResult.game(a, 1 - points, False)

    table: dict[str, list[RoundResult]] = {p: [] for p in "abcdef"}
    for a, b, points in [("b", "c", 0.0), ("d", "e", 1.0), ("a", "f", 0.0),
                         ("a", "d", 0.5), ("b", "e", 0.0), ("f", "c", 0.5)]:
        first, second = game(a, b, points)
        table[a].append(first)
        table[b].append(second)
    assert [line.player for line in standings(table)][:3] == ["f", "d", "c"]
    assert [line.player for line in standings(table, cut=1)][:3] == ["f", "c", "d"]


def test_players_tied_on_every_value_share_a_rank() -> None:
    table = {"a": [RoundResult.game("b", 0.5, True)], "b": [RoundResult.game("a", 0.5, False)]}
    assert [(line.rank, line.player) for line in standings(table)] == [(1, "a"), (1, "b")]


def test_inconsistent_crosstables_are_refused() -> None:
    with pytest.raises(ValueError, match="disagree"):
        standings({"a": [RoundResult.game("b", 1.0, True)],
                   "b": [RoundResult.game("a", 1.0, False)]})
    with pytest.raises(ValueError, match="different numbers"):
        standings({"a": [RoundResult.bye()], "b": []})
    with pytest.raises(ValueError, match="paired with"):
        standings({"a": [RoundResult.game("z", 1.0, True)]})
    with pytest.raises(ValueError, match="Cut-1"):
        buchholz(EXERCISE, "1", cut=2)


def test_round_results_refuse_impossible_records() -> None:
    with pytest.raises(ValueError):
        RoundResult("game", 0.25, "b", True)
    with pytest.raises(ValueError):
        RoundResult("bye", 0.0)
    with pytest.raises(ValueError):
        RoundResult("game", 1.0, "b")  # a game without a seat
    with pytest.raises(ValueError):
        RoundResult("forfeit", 0.5, "b")


@st.composite
def tournaments(draw: st.DrawFn) -> dict[str, list[RoundResult]]:
    """A Swiss of 2 to 8 players and 1 to 5 rounds, random pairings and results, byes for
    odd counts (everyone present: no voluntarily unplayed rounds)."""
    count = draw(st.integers(2, 8))
    players = [f"p{i}" for i in range(count)]
    table: dict[str, list[RoundResult]] = {p: [] for p in players}
    for _ in range(draw(st.integers(1, 5))):
        order = draw(st.permutations(players))
        if count % 2:
            table[order[-1]].append(RoundResult.bye())
        for a, b in zip(order[0:count - 1:2], order[1:count:2], strict=False):
            points = draw(st.sampled_from([0.0, 0.5, 1.0]))
            table[a].append(RoundResult.game(b, points, True))
            table[b].append(RoundResult.game(a, 1.0 - points, False))
    return table


@settings(max_examples=60, deadline=None)
@given(tournaments())
def test_buchholz_sums_to_rounds_times_all_scores(table: Crosstable) -> None:
    """Each player's score enters the Buchholz of each opponent once per game, and their
    own (dummy) Buchholz once per bye: in all, once per round."""
    rounds = check_crosstable(table)
    total = sum(buchholz(table, p) for p in table)
    assert total == pytest.approx(rounds * sum(score(table, p) for p in table))


@settings(max_examples=60, deadline=None)
@given(tournaments())
def test_cut1_and_sonneborn_berger_stay_below_buchholz(table: Crosstable) -> None:
    for player in table:
        full = buchholz(table, player)
        assert 0 <= buchholz(table, player, 1) <= full
        assert 0 <= sonneborn_berger(table, player) <= full


@settings(max_examples=60, deadline=None)
@given(tournaments())
def test_tiebreaks_do_not_depend_on_names(table: Crosstable) -> None:
    def rename(name: str) -> str:
        return "x" + name[::-1]

    renamed = {rename(p): [RoundResult(r.kind, r.points, r.opponent and rename(r.opponent),
                                       r.first) for r in results]
               for p, results in table.items()}
    for player in table:
        assert buchholz(renamed, rename(player)) == buchholz(table, player)
        assert sonneborn_berger(renamed, rename(player)) == sonneborn_berger(table, player)


@settings(max_examples=60, deadline=None)
@given(tournaments(), st.data())
def test_a_better_result_elsewhere_moves_buchholz_by_the_meetings(
        table: dict[str, list[RoundResult]], data: st.DataObject) -> None:
    """Turn a loss of Q against R into a draw: the Buchholz of every other player P
    changes by 1/2 x (games P played against Q - games P played against R)."""
    losses = [(q, n) for q, results in table.items() for n, r in enumerate(results)
              if r.played and r.points == 0.0]
    if not losses:
        return
    q, number = data.draw(st.sampled_from(losses))
    old = table[q][number]
    assert old.opponent is not None
    r = old.opponent
    changed = {p: list(results) for p, results in table.items()}
    changed[q][number] = RoundResult.game(r, 0.5, bool(old.first))
    changed[r][number] = RoundResult.game(q, 0.5, not old.first)

    def meetings(p: str, other: str) -> int:
        return sum(1 for result in table[p] if result.played and result.opponent == other)

    for p in table:
        if p not in (q, r):
            expected = 0.5 * (meetings(p, q) - meetings(p, r))
            assert buchholz(changed, p) - buchholz(table, p) == pytest.approx(expected)
