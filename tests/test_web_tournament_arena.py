"""Arena scoring, standings and waves (hexgames.web.tournaments.arena).

The scores are lichess's worked examples and rules (https://lichess.org/tournament/help):
two wins and a draw make 2 + 2 + 2 = 6, the berserk point, quick draws, draw streaks.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hexgames.web.tournaments.arena import (
    ArenaGame,
    ArenaPlayer,
    Outcome,
    Waiting,
    on_fire,
    pair_wave,
    performance,
    sheet,
    standings,
    total,
)


def games(outcomes: str, turns: int = 40) -> list[ArenaGame]:
    """``"WWD"`` -> a win, a win, a draw, each of ``turns`` turns (half of them own)."""
    names: dict[str, Outcome] = {"W": "win", "D": "draw", "L": "loss"}
    return [ArenaGame(names[c], turns, turns // 2) for c in outcomes]


@pytest.mark.parametrize(("outcomes", "points", "expected"), [
    ("W", [2], 2),
    ("WWD", [2, 2, 2], 6),  # lichess's example: 2 + 2 + (2 x 1)
    ("WWW", [2, 2, 4], 8),
    ("WWWWL", [2, 2, 4, 4, 0], 12),
    ("WWWLW", [2, 2, 4, 0, 2], 10),  # a loss ends the streak
    ("WWDWW", [2, 2, 2, 2, 2], 10),  # so does a draw (it still counts double)
    ("LWLW", [0, 2, 0, 2], 4),
])
def test_points_and_streaks(outcomes: str, points: list[int], expected: int) -> None:
    assert [entry.points for entry in sheet(games(outcomes))] == points
    assert total(games(outcomes)) == expected


def test_streaks_can_be_switched_off() -> None:
    assert total(games("WWW"), streaks=False) == 6
    assert not on_fire(games("WW"), streaks=False)


def test_on_fire_after_two_wins() -> None:
    assert on_fire(games("LWW")) and not on_fire(games("WWL")) and not on_fire(games("W"))
    assert [entry.doubled for entry in sheet(games("WWWL"))] == [False, False, True, False]


def test_berserk_adds_one_point_to_a_win_of_seven_own_turns_not_doubled() -> None:
    berserk_win = ArenaGame("win", 14, 7, berserk=True)
    too_quick = ArenaGame("win", 13, 6, berserk=True)
    berserk_loss = ArenaGame("loss", 40, 20, berserk=True)
    assert total([berserk_win]) == 3
    assert total([too_quick]) == 2
    assert total([berserk_loss]) == 0
    # On fire: 4 for the win, plus 1 (the berserk point is not doubled).
    assert [e.points for e in sheet([*games("WW"), berserk_win])] == [2, 2, 5]


def test_a_quick_draw_scores_nothing_and_breaks_the_streak() -> None:
    quick = ArenaGame("draw", 19, 10)
    assert [e.points for e in sheet([*games("WW"), quick, *games("W")])] == [2, 2, 0, 2]
    assert [e.points for e in sheet([ArenaGame("draw", 20, 10)])] == [1]


def test_draw_streaks_score_only_the_first_draw_or_long_ones() -> None:
    assert [e.points for e in sheet(games("DD"))] == [1, 0]
    assert [e.points for e in sheet(games("DLD"))] == [1, 0, 0]  # a loss does not break it
    assert [e.points for e in sheet(games("DWD"))] == [1, 2, 1]  # a win does
    assert [e.points for e in sheet(games("DD", turns=60))] == [1, 1]
    # A quick draw is no draw for the streak.
    assert [e.points for e in sheet([ArenaGame("draw", 10, 5), *games("D")])] == [0, 1]


def test_performance_is_the_opponents_rating_plus_or_minus_500() -> None:
    played = [ArenaGame("win", 40, 20, opponent_rating=1500),
              ArenaGame("loss", 40, 20, opponent_rating=1700),
              ArenaGame("draw", 40, 20, opponent_rating=1600)]
    # (2000 + 1200 + 1600) / 3
    assert performance(played) == 1600
    assert performance([]) is None


def test_standings_by_score_then_performance() -> None:
    strong = [ArenaGame("win", 40, 20, opponent_rating=1800)]
    weak = [ArenaGame("win", 40, 20, opponent_rating=1200)]
    lines = standings([ArenaPlayer("a", 1500, tuple(weak)), ArenaPlayer("b", 1500, tuple(strong)),
                       ArenaPlayer("c", 1500, tuple(games("WW"))), ArenaPlayer("d", 1500),
                       ArenaPlayer("e", 1500, tuple(weak))])
    assert [(line.rank, line.player, line.score) for line in lines] == [
        (1, "c", 4), (2, "b", 2), (3, "a", 2), (3, "e", 2), (5, "d", 0)]
    assert lines[0].on_fire and lines[0].games == 2 and lines[-1].performance is None


def test_games_refuse_nonsense() -> None:
    with pytest.raises(ValueError):
        ArenaGame("win", 3, 5)
    with pytest.raises(ValueError):
        ArenaGame("resign", 3, 1)  # type: ignore[arg-type]


# --- waves ---------------------------------------------------------------------------


def test_a_wave_pairs_neighbours_in_the_standings() -> None:
    waiting = [Waiting("a", 10, 1500), Waiting("b", 8, 1700), Waiting("c", 8, 1600),
               Waiting("d", 2, 1900)]
    wave = pair_wave(waiting, seed=1)
    assert {frozenset(pair) for pair in wave.pairings} == {frozenset("ab"), frozenset("cd")}
    assert wave.left_out is None


def test_a_wave_avoids_an_immediate_rematch() -> None:
    waiting = [Waiting("a", 10, 1500, last_opponent="b"), Waiting("b", 8, 1700, last_opponent="a"),
               Waiting("c", 8, 1600), Waiting("d", 2, 1900)]
    wave = pair_wave(waiting, seed=1)
    assert {frozenset(pair) for pair in wave.pairings} == {frozenset("ac"), frozenset("bd")}


def test_a_wave_keeps_apart_the_pairs_it_is_asked_to_avoid() -> None:
    waiting = [Waiting("a", 10, 1500), Waiting("b", 8, 1700), Waiting("c", 8, 1600),
               Waiting("d", 2, 1900)]
    wave = pair_wave(waiting, seed=1, avoid={frozenset("ab")})
    assert {frozenset(pair) for pair in wave.pairings} == {frozenset("ac"), frozenset("bd")}


def test_a_rematch_only_when_nobody_else_waits() -> None:
    waiting = [Waiting("a", 0, 1500, last_opponent="b"), Waiting("b", 0, 1500, last_opponent="a")]
    assert len(pair_wave(waiting, seed=1).pairings) == 1


def test_an_odd_wave_leaves_out_who_started_waiting_last() -> None:
    waiting = [Waiting("a", 0, 1500, since=3.0), Waiting("b", 0, 1500, since=9.0),
               Waiting("c", 0, 1500, since=1.0)]
    wave = pair_wave(waiting, seed=7)
    assert wave.left_out == "b" and {frozenset(p) for p in wave.pairings} == {frozenset("ac")}


def test_who_moves_first_balances() -> None:
    waiting = [Waiting("a", 0, 1500, balance=1), Waiting("b", 0, 1500, balance=-1)]
    assert pair_wave(waiting, seed=3).pairings == (("b", "a"),)


def test_duplicates_and_players_in_a_live_game_are_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        pair_wave([Waiting("a", 0, 1500), Waiting("a", 0, 1500)], seed=1)
    with pytest.raises(ValueError, match="live game"):
        pair_wave([Waiting("a", 0, 1500), Waiting("b", 0, 1500)], seed=1, playing={"b", "z"})


def test_the_seed_decides_between_equals_and_only_between_equals() -> None:
    waiting = [Waiting(name, 0, 1500) for name in "abcdef"]
    waves = {pair_wave(waiting, seed).pairings for seed in range(20)}
    assert len(waves) > 1
    assert len({pair_wave(waiting, 5).pairings for _ in range(3)}) == 1


@st.composite
def waves(draw: st.DrawFn) -> list[Waiting]:
    count = draw(st.integers(0, 9))
    ids = [f"w{i}" for i in range(count)]
    return [Waiting(player, draw(st.integers(0, 6)), draw(st.sampled_from([1400.0, 1500.0])),
                    last_opponent=draw(st.sampled_from([None, *ids])),
                    since=draw(st.integers(0, 3)), balance=draw(st.integers(-1, 1)))
            for player in ids]


def rematch(pair: tuple[str, str], waiting: list[Waiting]) -> bool:
    last = {w.id: w.last_opponent for w in waiting}
    return last[pair[0]] == pair[1] or last[pair[1]] == pair[0]


@settings(max_examples=150, deadline=None)
@given(waves(), st.integers(0, 1000))
def test_every_waiting_player_is_placed_once(waiting: list[Waiting], seed: int) -> None:
    wave = pair_wave(waiting, seed)
    named = [p for pair in wave.pairings for p in pair] + ([wave.left_out] if wave.left_out else [])
    assert sorted(named) == sorted(w.id for w in waiting)
    assert (wave.left_out is None) == (len(waiting) % 2 == 0)


@settings(max_examples=150, deadline=None)
@given(waves(), st.integers(0, 1000), st.randoms(use_true_random=False))
def test_waves_are_deterministic_whatever_the_order(waiting: list[Waiting], seed: int,
                                                    shuffle: random.Random) -> None:
    shuffled = list(waiting)
    shuffle.shuffle(shuffled)
    assert pair_wave(shuffled, seed) == pair_wave(waiting, seed)


@settings(max_examples=150, deadline=None)
@given(waves(), st.integers(0, 1000))
def test_no_immediate_rematch_while_another_pairing_exists(waiting: list[Waiting],
                                                           seed: int) -> None:
    wave = pair_wave(waiting, seed)
    players = [w.id for w in waiting if w.id != wave.left_out]

    def fewest(rest: list[str]) -> int:
        if not rest:
            return 0
        return min(rematch((rest[0], other), waiting) + fewest([p for p in rest[1:] if p != other])
                   for other in rest[1:])

    assert sum(rematch(pair, waiting) for pair in wave.pairings) == fewest(players)


def test_a_large_wave_is_quick_enough_to_be_exact() -> None:
    """200 waiting players, each with a last opponent among them: paired with no rematch."""
    waiting = [Waiting(f"p{i:03}", i % 17, 1500 + i, last_opponent=f"p{(i + 1) % 200:03}")
               for i in range(200)]
    wave = pair_wave(waiting, seed=1)
    assert len(wave.pairings) == 100
    assert not any(rematch(pair, waiting) for pair in wave.pairings)
    assert len(set(itertools.chain.from_iterable(wave.pairings))) == 200
