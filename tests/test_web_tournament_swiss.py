"""The Swiss pairing (hexgames.web.tournaments.swiss).

Worked examples pin the rules a player reads in docs/tournaments.md (score groups, top
half against bottom half, floats, the bye, seats); properties check the absolute ones
against brute force on small fields: no repeat pairing while one can be avoided, one bye
per player while anyone is left without one, everyone active paired exactly once.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hexgames.web.tournaments.results import RoundResult
from hexgames.web.tournaments.swiss import (
    SwissPlayer,
    SwissRound,
    pair_round,
    player_from_results,
    players_from_crosstable,
)
from hexgames.web.tournaments.tiebreaks import standings


def field(count: int) -> list[SwissPlayer]:
    """``count`` players, p0 the strongest (rating 2000, 1990...)."""
    return [SwissPlayer(f"p{i}", 2000 - 10 * i) for i in range(count)]


def play(table: dict[str, list[RoundResult]], pairing: SwissRound,
         winner: dict[tuple[str, str], str | None]) -> None:
    """Add a round to ``table``: ``winner[(first, second)]`` (``None``: a draw)."""
    for first, second in pairing.pairings:
        won = winner.get((first, second), first)
        points = 0.5 if won is None else (1.0 if won == first else 0.0)
        table[first].append(RoundResult.game(second, points, True))
        table[second].append(RoundResult.game(first, 1.0 - points, False))
    if pairing.bye:
        table[pairing.bye].append(RoundResult.bye())
    paired = {p for pair in pairing.pairings for p in pair} | {pairing.bye}
    for player, results in table.items():
        if player not in paired:
            results.append(RoundResult.absent())


def test_round_one_pairs_top_half_against_bottom_half_and_alternates_seats() -> None:
    pairing = pair_round(field(8))
    # p0-p4, p1-p5, p2-p6, p3-p7; the higher-ranked moves first on boards 1 and 3.
    assert pairing.pairings == (("p0", "p4"), ("p5", "p1"), ("p2", "p6"), ("p7", "p3"))
    assert pairing.bye is None and pairing.repeats == 0


def test_an_odd_field_gives_the_bye_to_the_lowest_ranked() -> None:
    pairing = pair_round(field(7))
    assert pairing.bye == "p6"
    assert pairing.pairings == (("p0", "p3"), ("p4", "p1"), ("p2", "p5"))


def test_round_two_pairs_score_groups_and_floats_down_the_odd_one() -> None:
    """Round 1 of 6 players: p0 beats p3, p1 beats p4, p5 beats p2. The 1-point group
    (p0, p1, p5) is odd: p5 floats down and heads the 0-point group, whose top half (p5,
    p2) meets its bottom half (p3, p4)."""
    table: dict[str, list[RoundResult]] = {p.id: [] for p in field(6)}
    ratings = {p.id: p.rating for p in field(6)}
    first = pair_round(field(6))
    assert first.pairings == (("p0", "p3"), ("p4", "p1"), ("p2", "p5"))
    play(table, first, {("p0", "p3"): "p0", ("p4", "p1"): "p1", ("p2", "p5"): "p5"})
    second = pair_round(players_from_crosstable(table, ratings))
    # Board 1: p1 moved second in round 1, p0 first: p1 moves first. Board 2: p5 and p3
    # both moved second, so the board decides (even: the higher-ranked p5 moves second).
    # Board 3: p2 and p4 both moved first; odd board: the higher-ranked p2 moves first.
    assert second.pairings == (("p1", "p0"), ("p3", "p5"), ("p2", "p4"))


def test_a_repeat_is_avoided_by_the_nearest_partner() -> None:
    players = field(4)
    players[0] = SwissPlayer("p0", 2000, opponents=frozenset({"p2"}))
    players[2] = SwissPlayer("p2", 1980, opponents=frozenset({"p0"}))
    pairing = pair_round(players)
    pairs = {frozenset(pair) for pair in pairing.pairings}
    assert pairs == {frozenset({"p0", "p3"}), frozenset({"p1", "p2"})}
    assert pairing.repeats == 0


def test_a_greedy_dead_end_is_escaped() -> None:
    """p0's natural partner p2 is free, but taking it would leave p1 and p3, who have
    played each other: the pairing must see that and give p0 another partner."""
    players = field(4)
    players[1] = SwissPlayer("p1", 1990, opponents=frozenset({"p3"}))
    players[3] = SwissPlayer("p3", 1970, opponents=frozenset({"p1"}))
    pairing = pair_round(players)
    assert {frozenset(pair) for pair in pairing.pairings} == {
        frozenset({"p0", "p3"}), frozenset({"p1", "p2"})}


def test_when_every_pairing_repeats_the_fewest_repeats_are_used() -> None:
    everyone = frozenset(f"p{i}" for i in range(4))
    players = [SwissPlayer(p.id, p.rating, opponents=everyone - {p.id}) for p in field(4)]
    pairing = pair_round(players)
    assert pairing.repeats == 2 and len(pairing.pairings) == 2


def test_the_bye_skips_players_who_had_one_or_won_a_forfeit() -> None:
    players = field(5)
    players[4] = SwissPlayer("p4", 1960, byes=1)
    players[3] = SwissPlayer("p3", 1970, forfeit_win=True)
    assert pair_round(players).bye == "p2"


def test_the_bye_goes_up_when_the_lowest_one_would_force_a_repeat() -> None:
    """p0, p1 and p2 have all played each other; p3 and p4 too. A bye for p4 leaves
    p0..p3, which cannot avoid a repeat; a bye for p3 neither; p2's bye works (p0-p3,
    p1-p4)."""
    group_a, group_b = {"p0", "p1", "p2"}, {"p3", "p4"}
    players = [SwissPlayer(p.id, p.rating,
                           opponents=frozenset((group_a if p.id in group_a else group_b)
                                               - {p.id})) for p in field(5)]
    pairing = pair_round(players)
    assert pairing.bye == "p2" and pairing.repeats == 0


def test_when_everyone_had_a_bye_the_lowest_ranked_gets_another() -> None:
    players = [SwissPlayer(p.id, p.rating, byes=1) for p in field(3)]
    assert pair_round(players).bye == "p2"


def test_withdrawn_players_are_not_paired_and_late_joiners_are() -> None:
    table: dict[str, list[RoundResult]] = {p.id: [] for p in field(4)}
    ratings = {p.id: p.rating for p in field(4)} | {"late": 2500.0}
    play(table, pair_round(field(4)), {})
    table["late"] = [RoundResult.absent()]
    players = players_from_crosstable(table, ratings, inactive=frozenset({"p1"}))
    late = next(p for p in players if p.id == "late")
    assert late.score == 0.0 and late.opponents == frozenset()
    pairing = pair_round(players)
    named = {p for pair in pairing.pairings for p in pair} | {pairing.bye} - {None}
    assert "p1" not in named and "late" in named and len(named) == 4


def test_duplicate_players_are_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        pair_round([SwissPlayer("a", 1500), SwissPlayer("a", 1600)])


def test_player_from_results_reads_a_history() -> None:
    results = [RoundResult.game("b", 1.0, True), RoundResult.bye(),
               RoundResult.forfeit("c", won=True), RoundResult.game("d", 0.5, False)]
    player = player_from_results("a", 1500, results)
    assert player.score == 3.5
    assert player.opponents == frozenset({"b", "d"})  # a forfeit is no meeting
    assert player.byes == 1 and player.forfeit_win and not player.may_have_bye
    assert player.seats == (True, False) and player.balance == 0


def test_seats_go_to_the_player_who_moved_first_less_often() -> None:
    players = [SwissPlayer("a", 2000, seats=(True, True)), SwissPlayer("b", 1900, seats=(False,))]
    assert pair_round(players).pairings == (("b", "a"),)
    # Equal balance: the one who moved second most recently where they differ moves first.
    players = [SwissPlayer("a", 2000, seats=(True, False)),
               SwissPlayer("b", 1900, seats=(False, True))]
    assert pair_round(players).pairings == (("a", "b"),)


# --- properties against brute force -------------------------------------------------


def perfect_matchings(players: Sequence[str]) -> list[list[tuple[str, str]]]:
    if not players:
        return [[]]
    head, rest = players[0], players[1:]
    found = []
    for index, partner in enumerate(rest):
        for tail in perfect_matchings(rest[:index] + rest[index + 1:]):
            found.append([(head, partner), *tail])
    return found


def fewest_repeats(players: Sequence[SwissPlayer]) -> int:
    """The fewest repeats any legal round has (bye to someone who may have it, if anyone)."""
    active = [p for p in players if p.active]
    met = {p.id: p.opponents for p in active}
    byes: list[str | None] = [None]
    if len(active) % 2:
        byes = [p.id for p in active if p.may_have_bye] or [p.id for p in active]
    best = len(active)
    for bye in byes:
        rest = [p.id for p in active if p.id != bye]
        for matching in perfect_matchings(rest):
            best = min(best, sum(1 for a, b in matching if b in met[a]))
    return best


@st.composite
def histories(draw: st.DrawFn) -> list[SwissPlayer]:
    """2 to 9 players with random scores, ratings, past opponents, byes and activity."""
    count = draw(st.integers(2, 9))
    ids = [f"p{i}" for i in range(count)]
    pairs = list(itertools.combinations(ids, 2))
    met = draw(st.sets(st.sampled_from(pairs), max_size=len(pairs)))
    return [SwissPlayer(
        id=player, rating=draw(st.sampled_from([1400.0, 1500.0, 1600.0])),
        score=draw(st.sampled_from([0.0, 0.5, 1.0, 2.0])),
        opponents=frozenset(b if a == player else a for a, b in met if player in (a, b)),
        byes=draw(st.integers(0, 1)), active=draw(st.booleans()) or count < 3,
    ) for player in ids]


@settings(max_examples=150, deadline=None)
@given(histories())
def test_no_repeat_pairing_while_one_can_be_avoided(players: list[SwissPlayer]) -> None:
    pairing = pair_round(players)
    assert pairing.repeats == fewest_repeats(players)
    actual = sum(1 for a, b in pairing.pairings
                 if b in next(p for p in players if p.id == a).opponents)
    assert actual == pairing.repeats


@settings(max_examples=150, deadline=None)
@given(histories())
def test_every_active_player_is_paired_once_and_the_bye_is_fair(
        players: list[SwissPlayer]) -> None:
    pairing = pair_round(players)
    active = {p.id for p in players if p.active}
    named = [p for pair in pairing.pairings for p in pair]
    if pairing.bye:
        named.append(pairing.bye)
    assert sorted(named) == sorted(active)
    assert (pairing.bye is None) == (len(active) % 2 == 0)
    if pairing.bye and any(p.may_have_bye for p in players if p.active):
        assert next(p for p in players if p.id == pairing.bye).may_have_bye


@settings(max_examples=100, deadline=None)
@given(histories(), st.randoms(use_true_random=False))
def test_the_pairing_is_deterministic_whatever_the_order(
        players: list[SwissPlayer], shuffle: random.Random) -> None:
    shuffled = list(players)
    shuffle.shuffle(shuffled)
    assert pair_round(shuffled) == pair_round(players)


@settings(max_examples=100, deadline=None)
@given(histories())
def test_the_player_who_moved_first_less_often_moves_first(players: list[SwissPlayer]) -> None:
    seated = [SwissPlayer(p.id, p.rating, p.score, p.opponents, p.byes, seats=seats,
                          active=p.active)
              for p, seats in zip(players, itertools.cycle([(True,), (), (False, False)]),
                                  strict=False)]
    balance = {p.id: p.balance for p in seated}
    for first, second in pair_round(seated).pairings:
        assert balance[first] <= balance[second]


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 9), st.integers(1, 100))
def test_whole_tournaments_never_repeat_when_avoidable_nor_give_two_byes(
        count: int, seed: int) -> None:
    """Simulated Swisses of count - 1 rounds (results drawn from ``seed``): each round has
    the fewest repeats possible, and nobody gets a second bye while someone has none."""
    rng = random.Random(seed)
    table: dict[str, list[RoundResult]] = {p.id: [] for p in field(count)}
    ratings = {p.id: p.rating for p in field(count)}
    for _ in range(count - 1):
        players = players_from_crosstable(table, ratings)
        pairing = pair_round(players)
        assert pairing.repeats == fewest_repeats(players)
        play(table, pairing, {pair: rng.choice([pair[0], pair[1], None])
                              for pair in pairing.pairings})
    byes = [sum(1 for r in results if r.kind == "bye") for results in table.values()]
    assert max(byes, default=0) <= 1


def test_a_three_round_swiss_of_five_players_worked_by_hand() -> None:
    """Five players p0..p4 (ratings 2000..1960), three rounds, a bye each round.

    Round 1: all on 0; p4, the lowest, gets the bye; p0-p2 and p1-p3 (top half against
    bottom half); p0 moves first on board 1, p3 (the lower) on board 2. p0 beats p2,
    p1-p3 drawn.
    Round 2: p0 1, p4 1, p1 0.5, p3 0.5, p2 0. p2 is the lowest without a bye, and the
    others can still be paired without a rematch. p0-p4 (their natural pairing) would
    leave p1-p3, a rematch, so p0 takes p1 (the top of the next group) and p4 takes p3.
    p1 moved second before, p0 first: p1 moves first; p4 has never played, p3 moved
    first: p4 moves first. p1 beats p0, p4-p3 drawn.
    Round 3: p1 1.5, p4 1.5, p0 1, p2 1, p3 1. p2 and p4 have had byes; p3 is the lowest
    without one. p1-p4 would leave p0-p2, a rematch; p1-p0 is one; so p1-p2 and p4-p0.
    p2 (balance -1) moves first against p1 (0); p0 (0) against p4 (+1). p1 and p0 win.
    """
    ratings = {p.id: p.rating for p in field(5)}
    table: dict[str, list[RoundResult]] = {p: [] for p in ratings}
    results = [{("p0", "p2"): "p0", ("p3", "p1"): None},
               {("p1", "p0"): "p1", ("p4", "p3"): None},
               {("p2", "p1"): "p1", ("p0", "p4"): "p0"}]
    expected = [(("p0", "p2"), ("p3", "p1"), "p4"),
                (("p1", "p0"), ("p4", "p3"), "p2"),
                (("p2", "p1"), ("p0", "p4"), "p3")]
    for winners, (board1, board2, bye) in zip(results, expected, strict=True):
        pairing = pair_round(players_from_crosstable(table, ratings))
        assert pairing == SwissRound((board1, board2), bye, 0)
        play(table, pairing, winners)

    # Scores: p1 2.5 (D W W), p0 2 (W L W), p3 2 (D D bye), p4 1.5 (bye D L), p2 1.
    # Buchholz, a bye counting as a game against a dummy opponent with the player's own
    # score: p1 = p3(2) + p0(2) + p2(1) = 5; p0 = p2(1) + p1(2.5) + p4(1.5) = 5;
    # p3 = p1(2.5) + p4(1.5) + dummy(2) = 6, so p3 passes p0; p4 = dummy(1.5) + p3(2)
    # + p0(2) = 5.5; p2 = p0(2) + dummy(1) + p1(2.5) = 5.5.
    # Sonneborn-Berger: p1 = 1/2 x 2 + 1 x 2 + 1 x 1 = 4; p0 = 1 x 1 + 0 + 1 x 1.5 = 2.5;
    # p3 = 1/2 x 2.5 + 1/2 x 1.5 + 1 x 2 = 4; p4 = 1 x 1.5 + 1/2 x 2 + 0 = 2.5; p2 = 1.
    lines = standings(table)
    assert [(line.player, line.rank, line.score, line.buchholz, line.sonneborn_berger)
            for line in lines] == [
        ("p1", 1, 2.5, 5.0, 4.0), ("p3", 2, 2.0, 6.0, 4.0), ("p0", 3, 2.0, 5.0, 2.5),
        ("p4", 4, 1.5, 5.5, 2.5), ("p2", 5, 1.0, 5.5, 1.0)]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=2, max_size=12))
def test_without_history_the_pairing_is_the_natural_one(scores: list[float]) -> None:
    """With nobody's past in the way, every pair is top half against bottom half of its
    (floated) score group, and the bye is the lowest-ranked player."""
    players = [SwissPlayer(f"p{i:02}", 2000 - i, score) for i, score in enumerate(scores)]
    pairing = pair_round(players)
    order = sorted(players, key=lambda p: (-p.score, -p.rating))
    if len(order) % 2:
        assert pairing.bye == order.pop().id
    brackets: list[list[str]] = []
    carry: list[str] = []
    for score in sorted({p.score for p in order}, reverse=True):
        bracket = carry + [p.id for p in order if p.score == score]
        carry = [bracket.pop()] if len(bracket) % 2 else []
        brackets.append(bracket)
    natural = {frozenset(pair) for b in brackets
               for pair in zip(b[:len(b) // 2], b[len(b) // 2:], strict=True)}
    assert {frozenset(pair) for pair in pairing.pairings} == natural
