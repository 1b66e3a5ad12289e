"""The AI on Benediction: constructed tactical positions and the evaluation module."""

from __future__ import annotations

import pytest

from hexgames.ai import GreedyPlayer, MCTSPlayer
from hexgames.ai.knowledge import brute_force_winning_actions
from hexgames.benediction import GAME, Position
from hexgames.benediction import evaluation as ev
from hexgames.benediction._tables import BLUE, RED
from protocol_support import play_turn

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


def test_priors_put_the_king_capture_first():
    position = Position.from_text(KING_CAPTURE)
    actions = position.legal_actions()
    priors = ev.action_priors(position, actions)
    best = max(range(len(actions)), key=priors.__getitem__)
    assert str(actions[best]) == "e5e6"


# -------------------------------------------------------------- safety of choose
