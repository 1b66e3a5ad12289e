"""Symmetry helpers (issue 15, item 7): every declared symmetry is checked by playing
the mirrored image of random games alongside them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hexgames.game import HEXAGON_SYMMETRIES, BoardSymmetry, get_game
from hexgames.integrations import symmetry as sym

VARIANTS = {"benediction": {"board_side": 4, "max_turns": 40}, "dendria": {"size": 4}}


def image_ids(game, symmetry, position, image) -> list[int]:
    return sorted(game.action_to_id(image, symmetry.action(game, image, action))
                  for action in position.legal_actions())


def play_alongside(game, symmetry, rules, seed: int, steps: int) -> int:
    """Play a random game and its image; check they stay equivalent; return the steps."""
    rng = random.Random(seed)
    position = game.new_position(rules)
    image = game.new_position(rules)
    played = 0
    while not position.is_over and played < steps:
        legal_image = sorted(game.action_to_id(image, a) for a in image.legal_actions())
        assert image_ids(game, symmetry, position, image) == legal_image, (symmetry.name, played)
        for seat in (0, 1):
            assert np.array_equal(symmetry.observation(game.observation(position, seat)),
                                  game.observation(image, seat))
        action = rng.choice(position.legal_actions())
        image.play(symmetry.action(game, image, action))
        position.play(action)
        played += 1
        assert image.is_over == position.is_over
    assert image.returns() == position.returns()
    return played


def test_dendria_has_twelve_symmetries_and_benediction_two() -> None:
    for name, count in (("dendria", 12), ("benediction", 2)):
        game = get_game(name)
        found = sym.symmetries(game, game.make_rules(**VARIANTS[name]))
        assert len(found) == count and found[0].name == "identity"
        assert found[0].points == tuple(range(len(found[0].points)))
        images = {s.points for s in found}
        assert len(images) == count  # all different
        for s in found:
            assert sorted(s.points) == list(range(len(s.points)))  # a permutation


@pytest.mark.parametrize("index", range(12))
def test_every_dendria_symmetry_maps_games_to_games(index: int) -> None:
    game = get_game("dendria")
    rules = game.make_rules(**VARIANTS["dendria"])
    symmetry = sym.symmetries(game, rules)[index]
    assert play_alongside(game, symmetry, rules, seed=index, steps=120) > 40


@pytest.mark.parametrize("seed", range(3))
def test_the_benediction_mirror_maps_games_to_games(seed: int) -> None:
    game = get_game("benediction")
    rules = game.make_rules(**VARIANTS["benediction"])
    mirror = sym.symmetries(game, rules)[1]
    start = game.new_position(rules)
    assert all(mirror.labels[p] == p for p in start.starting_points)
    assert {mirror.labels[p] for p in start.wall("red")} == set(start.wall("red"))
    assert mirror.labels["a1"] == "g1"  # side 4: the bottom corners exchange
    assert play_alongside(game, mirror, rules, seed=seed, steps=60) > 10


def test_board_symmetries_are_named_and_form_the_hexagon_group() -> None:
    names = [s.name for s in HEXAGON_SYMMETRIES]
    assert names[:3] == ["identity", "rotate60", "rotate120"]
    assert names[6:8] == ["mirror", "mirror+rotate60"] and len(set(names)) == 12
    for s in HEXAGON_SYMMETRIES:
        assert s(0, 0) == (0, 0)
        images = {s(q, r) for q, r in ((1, 0), (0, 1), (1, 1))}
        assert len(images) == 3
    assert BoardSymmetry(turns=6)(1, 0) == (1, 0)  # six turns: the identity
    mirror = BoardSymmetry(mirror=True)
    assert mirror(*mirror(2, 1)) == (2, 1)  # a mirror is its own inverse


def test_a_rotation_does_not_preserve_benediction() -> None:
    game = get_game("benediction")
    rules = game.make_rules(board_side=4)
    start = game.new_position(rules)
    # Half a turn: Red's men go to Blue's side.
    rotated = sym.on_board(BoardSymmetry(turns=3), game.board(rules))
    assert rotated.name == "rotate180"
    image = game.new_position(rules)
    legal = {str(a) for a in image.legal_actions()}
    assert any(rotated.notation(str(a)) not in legal for a in start.legal_actions())


def test_policy_and_mirrored_position_helpers() -> None:
    game = get_game("dendria")
    rules = game.make_rules(board_side=3)
    position = game.new_position(rules)
    rng = random.Random(4)
    for _ in range(12):
        position.play(rng.choice(position.legal_actions()))
    symmetry = sym.symmetries(game, rules)[7]
    image = sym.mirrored_position(game, position, symmetry)
    total = int(game.num_distinct_actions(rules))
    policy = np.zeros(total)
    legal = [game.action_to_id(position, a) for a in position.legal_actions()]
    policy[legal] = 1.0 / len(legal)
    mapped = symmetry.policy(game, position, image, policy)
    assert mapped.sum() == pytest.approx(1.0)
    assert set(np.flatnonzero(mapped)) == {game.action_to_id(image, a)
                                           for a in image.legal_actions()}
