"""Benediction's click gestures: the documented shapes, and one gesture per legal action."""

from __future__ import annotations

import random

import pytest

from hexgames.benediction import GAME, Position, Rules
from hexgames.benediction.gestures import gesture
from hexgames.game import Gesture
from protocol_support import assert_gestures_injective

#: A position where Red may move, merge, split (2 sizes), drop and block.
MIDGAME = """\
Benediction v1: R-E2 B E8
R:D2E2k3+F2b
B:D7+8kE6+
X:H3
"""


@pytest.mark.parametrize(
    ("notation", "expected"),
    [
        ("e3e4", Gesture(None, ("e3", "e4"), "move")),
        ("e3+f2", Gesture(None, ("e3", "f2"), "merge")),
        ("e3-1-e4", Gesture(None, ("e3", "e4"), "split 1")),
        ("@e1", Gesture("drop", ("e1",), "drop")),
        ("Bc4", Gesture("block", ("c4",), "block")),
    ],
)
def test_each_kind_has_its_documented_gesture(notation, expected):
    position = Position.from_text(MIDGAME)
    action = position.parse_action(notation)
    assert action in position.legal_actions()
    assert gesture(position, action) == expected
    assert gesture(position, notation) == expected
    assert GAME.gesture(position, action) == expected


def test_split_sizes_and_whole_moves_to_one_point_get_separate_buttons():
    position = Position.from_text("Benediction v1: R-E2 B E8\nR:E2k3++\nB:E8k\n")
    to_e5 = [a for a in position.legal_actions() if a.origin == "e3" and a.target == "e5"]
    labels = sorted(gesture(position, a).label for a in to_e5)
    assert labels == ["move", "split 2"]
    to_e4 = [a for a in position.legal_actions() if a.origin == "e3" and a.target == "e4"]
    assert sorted(gesture(position, a).label for a in to_e4) == ["move", "split 1", "split 2"]


def test_gestures_are_injective_over_random_positions():
    seen = 0
    kinds = set()
    for seed in range(40):
        rng = random.Random(seed)
        rules = Rules(max_turns=40, first_turn_actions=2, max_stack=4 + seed % 4)
        position = Position.initial(rules)
        while not position.is_over:
            seen += assert_gestures_injective(GAME, position)
            actions = position.legal_actions()
            kinds.update(a.kind for a in actions)
            # Favour stacking so that merges and splits of several sizes come up.
            stacking = [a for a in actions if a.kind in ("merge", "split")]
            position.play(rng.choice(stacking if stacking and rng.random() < 0.5 else actions))
    assert kinds == {"move", "merge", "split", "drop", "block"}
    assert seen > 5000
