"""The AI on Dendria: winning on the spot at the quiet limit, and the evaluation module."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexgames.ai import GreedyPlayer, MCTSPlayer, RandomPlayer, player
from hexgames.ai.knowledge import brute_force_winning_actions
from hexgames.dendria import GAME, Position, Rules
from hexgames.dendria import evaluation as ev

# One quiet turn is left (quiet=19 of 2K=20). Light leads 2.5-0 with its tree on i5, so
# passing or ending a dendrid move as things stand loses. Dark's seedbed a1-a2 may grow
# (its fertile soils a3 and b1 are seen by the dendrids on a5 and e1): moving a dendrid,
# growing the seedbed (a size-2 forest: 3.5 to 2) and ending wins on the spot. Planting
# would restart the quiet count instead.
QUIET_LIMIT = """Dendria v1: size=5 to-move=dark quiet=19
dark seeds: a1 a2
dark dendrids: a5 e1 e5
light seeds: b2 b3
light trees: i5
"""
# Light passed last turn and Dark leads: Dark's pass ends the game, and wins.
BOTH_PASS = """Dendria v1: size=5 to-move=dark quiet=1 passes=1
dark trees: c3 c4
light seeds: g5
"""


def mcts(**kw) -> MCTSPlayer:
    kw.setdefault("iterations", 150)
    kw.setdefault("seed", 5)
    return MCTSPlayer(GAME, **kw)


def play_turn(bot, position: Position) -> None:
    seat = position.current_seat
    position.play(bot.choose(position))
    while not position.is_over and position.current_seat == seat and not position.is_turn_start():
        position.play(bot.choose(position))


def random_position(seed: int, steps: int, size: int = 5) -> Position:
    rng = random.Random(seed)
    position = Position.initial(Rules(board_side=size))
    for _ in range(steps):
        if position.is_over:
            break
        position.play(rng.choice(position.legal_actions()))
    return position


@pytest.mark.parametrize("iterations", [1, 200])
def test_grows_or_converts_to_win_at_the_quiet_limit(iterations):
    position = Position.from_text(QUIET_LIMIT)
    assert position.score() == {"dark": 0.0, "light": 2.5}
    play_turn(mcts(iterations=iterations), position)
    assert position.is_over and position.winner == "dark"
    kinds = [step.kind for step in position.history]
    assert "grow" in kinds or "convert" in kinds


def test_passes_to_end_a_won_game():
    position = Position.from_text(BOTH_PASS)
    bot = mcts()
    assert str(bot.choose(position)) == "pass"
    assert bot.last_stats["reason"] == "win"


def test_winning_actions_hook_is_exact_on_the_constructed_positions():
    for text in (QUIET_LIMIT, BOTH_PASS):
        position = Position.from_text(text)
        assert set(ev.winning_actions(position)) == set(brute_force_winning_actions(position))
    position = Position.from_text(QUIET_LIMIT)
    position.play("e5-e6")
    position.play("+a1")
    assert [str(s) for s in ev.winning_actions(position)] == ["end"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), steps=st.integers(0, 150))
def test_winning_actions_hook_agrees_with_brute_force(seed, steps):
    position = random_position(seed, steps)
    assert set(ev.winning_actions(position)) == set(brute_force_winning_actions(position))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), steps=st.integers(0, 150))
def test_heuristic_is_bounded_and_exact_at_the_end(seed, steps):
    position = random_position(seed, steps)
    value = ev.heuristic(position)
    assert -1.0 <= value <= 1.0
    if position.is_over:
        assert value == position.returns()[0]


def test_heuristic_follows_the_score_and_the_seats():
    ahead = Position.from_text(BOTH_PASS)
    assert ev.heuristic(ahead) > 0.3  # dark (seat 0) leads
    swapped = Position.from_text(BOTH_PASS.replace("quiet=1", "quiet=1 seats=swapped"))
    assert swapped.seat_of("dark") == 1
    assert ev.heuristic(swapped) == pytest.approx(-ev.heuristic(ahead))


def test_heuristic_counts_a_growable_seedbed():
    position = Position.from_text(QUIET_LIMIT.replace("quiet=19", "quiet=0"))
    text = QUIET_LIMIT.replace("quiet=19", "quiet=0")
    without = Position.from_text(text.replace("dark dendrids: a5 e1 e5", "dark dendrids: e5"))
    assert position.growable_seedbeds() == ["a1"] and without.growable_seedbeds() == []
    assert ev.heuristic(position) > ev.heuristic(without)


def test_priors_put_growing_and_converting_first():
    position = Position.from_text(QUIET_LIMIT)
    position.play("e5-h5")
    steps = position.legal_actions()
    priors = dict(zip((str(s) for s in steps), ev.action_priors(position, steps), strict=True))
    top = max(priors.values())
    assert {name for name, value in priors.items() if value == top} <= {"+a1", "=i5"}
    assert priors["+a1"] > priors["end"] and priors["=i5"] > priors["end"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), steps=st.integers(0, 120))
def test_choose_never_mutates_and_is_legal(seed, steps):
    position = random_position(seed, steps)
    if position.is_over:
        return
    before = (position.to_text(), position.key, tuple(position.history))
    for bot in (mcts(iterations=15, seed=seed), GreedyPlayer(seed), RandomPlayer(seed)):
        action = bot.choose(position)
        assert action in position.legal_actions()
        assert (position.to_text(), position.key, tuple(position.history)) == before


def test_tree_is_reused_within_and_across_turns():
    bot = mcts(iterations=100, seed=2)
    position = Position.initial(Rules(board_side=5))
    reused = []
    for _ in range(8):
        position.play(bot.choose(position))
        reused.append(bot.last_stats.get("reused", 0))
    assert max(reused) > 0


def test_levels_choose_legal_steps_for_both_seats():
    position = Position.initial(Rules(board_side=5))
    bots = [player(GAME, 1, seed=1), player("dendria", 2, seed=2)]
    while not position.is_over and len(position.history) < 40:
        step = bots[position.current_seat].choose(position)
        assert step in position.legal_actions()
        position.play(step)
    assert position.turn_number > 5
