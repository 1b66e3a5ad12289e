"""The AI on Benediction: constructed tactical positions and the evaluation module."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexgames.ai import GreedyPlayer, MCTSPlayer, RandomPlayer, player
from hexgames.ai.knowledge import brute_force_winning_actions
from hexgames.benediction import GAME, Position
from hexgames.benediction import evaluation as ev
from hexgames.benediction._tables import BLUE, RED

# Red to act; the man on e5 can take Blue's king on e6.
KING_CAPTURE = "Benediction v1: R-E2 B E8\nR:E2kE5\nB:E6kE8"
# Red's king on e8 is one step from Blue's wall: e8e9, then through the portal from e9
# onto the red man on e1 (e9+e1) blesses the king. No single action wins.
PORTAL_TURN = "Benediction v1: R-E2 B E8\nR:A1E18k\nB:A5C7kG7"
# Red, last action of the turn: Blue's 2-stack on e7 can jump e6 and take the king on e5.
ATTACKED_LAST_ACTION = "Benediction v1: R=E2 B E8\nR:A1B1E5k\nB:E7+G7k"
ATTACKED_FULL_TURN = "Benediction v1: R-E2 B E8\nR:A1B1E5k\nB:E7+G7k"


def mcts(**kw) -> MCTSPlayer:
    kw.setdefault("iterations", 150)
    kw.setdefault("seed", 7)
    return MCTSPlayer(GAME, **kw)


def play_turn(bot, position: Position) -> None:
    seat = position.current_seat
    position.play(bot.choose(position))
    while not position.is_over and position.current_seat == seat and not position.is_turn_start():
        position.play(bot.choose(position))


def random_position(seed: int, actions: int) -> Position:
    rng = random.Random(seed)
    position = Position.initial()
    for _ in range(actions):
        if position.is_over:
            break
        position.play(rng.choice(position.legal_actions()))
    return position


# ------------------------------------------------------------------------ tactics
@pytest.mark.parametrize("iterations", [1, 150])
def test_captures_the_king_in_one_action(iterations):
    position = Position.from_text(KING_CAPTURE)
    bot = mcts(iterations=iterations)
    assert str(bot.choose(position)) == "e5e6"
    assert bot.last_stats["reason"] == "win"


def test_a_king_on_the_enemy_wall_steps_through_the_portal():
    # Red's king on e9: stepping N (to e1) or NE (onto a5) leaves Blue's wall forward.
    position = Position.from_text("Benediction v1: R-E2 B E8\nR:A1E9k\nB:A5C7kG7")
    position.play(mcts(iterations=1).choose(position))
    assert position.winner == "red" and position.win_reason == "blessed king"


def test_greedy_also_captures_the_king():
    assert str(GreedyPlayer(1).choose(Position.from_text(KING_CAPTURE))) == "e5e6"


def test_wins_with_the_two_actions_of_one_turn_through_the_portal():
    position = Position.from_text(PORTAL_TURN)
    assert brute_force_winning_actions(position) == []  # no single action wins
    play_turn(mcts(), position)
    assert position.winner == "red" and position.win_reason == "blessed king"
    assert [str(a) for a in position.history] == ["e8e9", "e9+e1"]


@pytest.mark.parametrize("iterations", [1, 150])
def test_defends_the_king_with_the_last_action_of_a_turn(iterations):
    position = Position.from_text(ATTACKED_LAST_ACTION)
    assert brute_force_winning_actions(_blue_to_act(position))  # the threat is real
    position.play(mcts(iterations=iterations).choose(position))
    assert position.to_move == "blue" and not position.is_over
    assert brute_force_winning_actions(position) == []


def test_defends_the_king_over_a_whole_turn():
    position = Position.from_text(ATTACKED_FULL_TURN)
    play_turn(mcts(iterations=60), position)
    assert position.to_move == "blue" and not position.is_over
    assert brute_force_winning_actions(position) == []


def _blue_to_act(position: Position) -> Position:
    """The same board with Blue to act (to show the threat exists)."""
    text = position.to_text().splitlines()
    text[0] = "Benediction v1: R E2 B-E8"
    return Position.from_text("\n".join(text))


# ------------------------------------------------------------------ evaluation
def test_winning_actions_hook_is_exact_on_the_constructed_positions():
    for text in (KING_CAPTURE, PORTAL_TURN, ATTACKED_LAST_ACTION):
        position = Position.from_text(text)
        assert set(ev.winning_actions(position)) == set(brute_force_winning_actions(position))
    blue = _blue_to_act(Position.from_text(ATTACKED_LAST_ACTION))
    wins = {str(a) for a in ev.winning_actions(blue)}
    assert "e7e5" in wins
    assert wins == {str(a) for a in brute_force_winning_actions(blue)}


@settings(
    max_examples=30, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(seed=st.integers(0, 100_000), actions=st.integers(0, 60))
def test_winning_actions_hook_agrees_with_brute_force(seed, actions):
    position = random_position(seed, actions)
    assert set(ev.winning_actions(position)) == set(brute_force_winning_actions(position))


def test_attackers_and_portal_threats_are_read_from_reach():
    position = Position.from_text(ATTACKED_LAST_ACTION)
    assert ev.attackers(position, RED) == 1
    assert ev.attackers(position, BLUE) == 0
    portal = Position.from_text(PORTAL_TURN)
    assert not ev.portal_threat(portal, RED)
    portal.play("e8e9")
    assert ev.portal_threat(portal, RED)


def test_heuristic_sees_an_attacked_king_as_a_danger():
    attacked = Position.from_text(ATTACKED_LAST_ACTION)
    safe = Position.from_text(ATTACKED_LAST_ACTION.replace("B:E7+G7k", "B:A5+G7k"))
    assert ev.heuristic(attacked) < ev.heuristic(safe)


def test_heuristic_is_near_won_for_a_side_that_can_win_now():
    position = Position.from_text(KING_CAPTURE)
    assert ev.heuristic(position) == pytest.approx(ev.WON)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 100_000), actions=st.integers(0, 60))
def test_heuristic_is_bounded_and_exact_at_the_end(seed, actions):
    position = random_position(seed, actions)
    value = ev.heuristic(position)
    assert -1.0 <= value <= 1.0
    if position.is_over:
        assert value == position.returns()[0]


def test_priors_put_the_king_capture_first():
    position = Position.from_text(KING_CAPTURE)
    actions = position.legal_actions()
    priors = ev.action_priors(position, actions)
    best = max(range(len(actions)), key=priors.__getitem__)
    assert str(actions[best]) == "e5e6"


# -------------------------------------------------------------- safety of choose
@settings(
    max_examples=15, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(seed=st.integers(0, 100_000), actions=st.integers(0, 40))
def test_choose_never_mutates_and_is_legal(seed, actions):
    position = random_position(seed, actions)
    if position.is_over:
        return
    before = (position.to_text(), position.key, list(position.history))
    for bot in (mcts(iterations=15, seed=seed), GreedyPlayer(seed), RandomPlayer(seed)):
        action = bot.choose(position)
        assert action in position.legal_actions()
        assert (position.to_text(), position.key, list(position.history)) == before


def test_tree_is_reused_after_the_opponents_turn():
    bot = mcts(iterations=200, seed=3)
    position = Position.initial()
    position.play(bot.choose(position))  # Red's one-action first turn
    position.play(bot.choose(position))  # the same bot answers for Blue ...
    position.play(bot.choose(position))
    assert bot.last_stats["reused"] > 0  # ... following its own tree


def test_levels_choose_legal_actions_for_both_seats():
    position = Position.initial()
    bots = [player(GAME, 1, seed=1), player("benediction", 2, seed=2)]
    while not position.is_over and len(position.history) < 20:
        action = bots[position.current_seat].choose(position)
        assert action in position.legal_actions()
        position.play(action)
    assert position.turn_number > 3 or position.is_over
