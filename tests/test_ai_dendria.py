"""The AI on Dendria: winning on the spot at the quiet limit, and the evaluation module."""

from __future__ import annotations

import pytest

from hexgames.ai import MCTSPlayer
from hexgames.ai.knowledge import brute_force_winning_actions
from hexgames.dendria import GAME, Position
from hexgames.dendria import evaluation as ev
from protocol_support import play_turn

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


