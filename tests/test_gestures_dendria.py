"""Dendria's click gestures: the documented shapes, and one gesture per legal step."""

from __future__ import annotations

import random

from hexgames.dendria import GAME, Position, Rules
from hexgames.dendria.gestures import gesture
from hexgames.game import Gesture
from protocol_support import assert_gestures_injective


def test_turn_start_steps():
    position = Position.initial(Rules(size=5))
    assert gesture(position, "e5") == Gesture(None, ("e5",), "plant")
    assert gesture(position, "pass") == Gesture(None, (), "Pass")
    position.play_turn("e5")
    swap = gesture(position, "swap")
    assert (swap.tool, swap.points, swap.label) == (None, (), "Swap")
    assert "colour" in swap.explanation  # the page explains the pie rule when offered
    assert GAME.gesture(position, position.parse_action("swap")) == swap


def test_dendrid_legs_continuations_and_follow_ups():
    position = Position.from_text(
        "Dendria v1: size=5 to-move=dark\ndark seeds: c2\ndark dendrids: a1\n"
    )
    legs = [s for s in position.legal_actions() if s.kind == "leg"]
    assert legs
    for leg in legs:
        assert gesture(position, leg) == Gesture(None, (leg.origin, leg.target), "move")
    position.play("a1-a3")
    after_stop = {s.kind: s for s in position.legal_actions()}
    assert gesture(position, "-a5") == Gesture(None, ("a5",), "continue")
    assert gesture(position, "end") == Gesture(None, (), "End turn")
    assert "end" in after_stop
    for kind, label in (("sprout", "sprout"), ("grow", "grow"), ("convert", "convert")):
        step = position.parse_action({"sprout": "^c2", "grow": "+c2", "convert": "=c2"}[kind])
        assert gesture(position, step) == Gesture(None, ("c2",), label)


def test_gestures_are_injective_over_random_positions():
    seen = 0
    kinds: set[str] = set()
    for seed in range(30):
        rng = random.Random(seed)
        position = Position.initial(Rules(size=(5, 7)[seed % 2], quiet_limit=2))
        while not position.is_over:
            seen += assert_gestures_injective(GAME, position)
            steps = position.legal_actions()
            for step in steps:  # only end, pass and swap are button-only
                g = gesture(position, step)
                assert g.points or g.label in ("End turn", "Pass", "Swap"), (step, g)
            kinds.update(s.kind for s in steps)
            # Follow-ups and dendrid moves first: they are what make click sequences overlap.
            rich = [s for s in steps if s.kind not in ("plant", "pass", "end")]
            position.play(rng.choice(rich if rich and rng.random() < 0.7 else steps))
    assert kinds == {"plant", "leg", "continue", "sprout", "grow", "convert", "end", "pass", "swap"}
    assert seen > 5000


def test_a_seedbed_or_forest_is_entered_by_a_click_on_any_of_its_cells():
    checked = 0
    for seed in range(12):
        rng = random.Random(seed)
        position = Position.initial(Rules(size=5, quiet_limit=2))
        while not position.is_over:
            for step in position.legal_actions():
                if step.kind not in ("grow", "convert"):
                    continue
                g = gesture(position, step)
                group = set(position.group(step.target))
                assert {path[0] for path in g.paths} == group
                assert all(len(path) == 1 for path in g.paths)
                sign = "+" if step.kind == "grow" else "="
                position.play(step)
                expected = position.key
                position.undo()
                for (other,) in g.alternatives:
                    position.play(f"{sign}{other}")
                    assert position.key == expected
                    position.undo()
                    checked += 1
            steps = position.legal_actions()
            rich = [s for s in steps if s.kind not in ("plant", "pass", "end")]
            position.play(rng.choice(rich if rich and rng.random() < 0.7 else steps))
    assert checked > 0
